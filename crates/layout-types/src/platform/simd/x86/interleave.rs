//! Planes into pixels of a few elements (an RGB image's planes into its pixels) with x86's
//! permutes and byte shuffles, for every count of planes from 2 to 7: AVX-512's and SSSE3's
//! ([`gather`](mod@super::gather)), AVX2's ([`gather_avx2`](mod@super::gather_avx2)); the
//! inverse is [`deinterleave`](mod@super::deinterleave)'s (the safety argument is the room's, in
//! `platform/mod.rs`).

use core::mem::MaybeUninit;

use super::super::Level;
use super::gather::{groups_16, groups_vbmi, groups_wide, Masks, Tables, Way};
use super::gather_avx2::groups_avx2;
use super::has_vbmi;

/// Whether this CPU has SSSE3's byte shuffle (`pshufb`), detected once.
fn has_ssse3() -> bool {
    static SSSE3: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SSSE3.get_or_init(|| is_x86_feature_detected!("ssse3"))
}

/// The groups that interleave `K` streams of `W`-byte elements at a level (and split pixels
/// into them), in the order of preference [`groups`] states once for every form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Groups {
    /// 64 bytes of each stream with AVX-512's two-source permutes (bytes: VBMI's).
    Avx512,
    /// 32 bytes of each stream with AVX2's unpacks, lane swaps, permutes and blends (4- and
    /// 8-byte elements: no 256-bit way moves bytes and halves across lanes in one instruction).
    Avx2,
    /// 16 bytes with SSSE3's byte shuffle (bytes and halves: 4- and 8-byte elements below AVX2
    /// keep the plain loop, against which the shuffle was measured for the smaller elements
    /// only).
    Ssse3,
}

impl Groups {
    /// Bytes of each stream a group takes.
    pub(super) const fn bytes(self) -> usize {
        match self {
            Groups::Avx512 => 64,
            Groups::Avx2 => 32,
            Groups::Ssse3 => 16,
        }
    }
}

/// The groups `level` (one the CPU has) interleaves `K` streams of `W`-byte elements with, the
/// widest first, for 2 to 7 streams: AVX-512's at [`Level::Avx512`] (bytes where the CPU has
/// VBMI); AVX2's from [`Level::Avx2`] for 4- and 8-byte elements; SSSE3's
/// above [`Level::Portable`] for bytes and halves where the CPU has it; `None` where there are
/// none (the plain loops then take every position).
pub(super) fn groups<const K: usize, const W: usize>(level: Level) -> Option<Groups> {
    if !(2..8).contains(&K) {
        None
    } else if level == Level::Avx512 && (W >= 2 || has_vbmi()) {
        Some(Groups::Avx512)
    } else if level >= Level::Avx2 && W >= 4 {
        Some(Groups::Avx2)
    } else if level > Level::Portable && W <= 2 && has_ssse3() {
        Some(Groups::Ssse3)
    } else {
        None
    }
}

/// Interleaves the whole groups of `K` equally long streams of `W`-byte elements into `dst`
/// (`K` elements per position), with the groups `level` takes ([`groups`]); where those are
/// AVX-512's, bytes and halves past its last group take SSSE3's, where the CPU has it. Returns
/// the positions done. `level` is one the CPU has.
///
/// For bytes, VBMI's permutes take 6 shuffles a 64-byte group where SSSE3 takes 36. u8 C = 3
/// NCHW→NHWC at 1 MiB, back to back, SSSE3 and VBMI alternating twice: one thread 51–52 →
/// 59–60 GB/s, two threads 60–62 → 70–75; at 256 MiB (streamed through staged panels) 29.6 →
/// 32.7 GB/s on two threads, 15.3 → 16.7 on one.
pub(in crate::platform) fn interleave<const K: usize, const W: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    streams: [&[u8]; K],
) -> usize {
    let Some(kind) = groups::<K, W>(level) else { return 0 };
    let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / K);
    let done = n / kind.bytes() * kind.bytes();
    if done > 0 {
        // SAFETY: `level` is available (the caller's contract) and `groups` picked a kind it
        // has (AVX2 at `level` or below it; VBMI and SSSE3 detected); whole groups inside every
        // slice (`done` is at most `n`, a multiple of the kind's group).
        unsafe { groups_of::<K, W, false>(level, kind, &mut dst[..K * done], streams.map(|s| &s[..done])) };
    }
    let rest = match kind == Groups::Avx512 && W <= 2 && has_ssse3() {
        true => (n - done) / 16 * 16,
        false => 0,
    };
    if rest > 0 {
        let end = K * (done + rest);
        // SAFETY: SSSE3 was detected; 16-byte groups inside every slice (`done + rest` is at
        // most `n`).
        unsafe {
            groups_of::<K, W, false>(
                level,
                Groups::Ssse3,
                &mut dst[K * done..end],
                streams.map(|s| &s[done..done + rest]),
            )
        };
    }
    (done + rest) / W
}

/// [`interleave`] with streaming stores into `dst`, which starts on a line: the same groups
/// ([`groups`]), each store a whole register and the registers back to back, so every line is
/// written whole. Returns the positions done (whole groups of 64 bytes of each stream, `64 K` of
/// `dst`, from the first), or `None`, having written nothing, where `level` (one the CPU has)
/// has no groups for `K` streams of `W`-byte elements. The caller fences; an empty `dst` may
/// start anywhere.
pub(in crate::platform) fn interleave_streamed<const K: usize, const W: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    streams: [&[u8]; K],
) -> Option<usize> {
    assert!(
        level.available() && (dst.is_empty() || (dst.as_ptr() as usize).is_multiple_of(64)),
        "a streamed interleave at a level this CPU lacks, or off a line"
    );
    let kind = groups::<K, W>(level)?;
    let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / K);
    let wide = n / 64 * 64;
    if wide > 0 {
        // SAFETY: `level` is available (asserted) and `groups` picked a kind it has; whole
        // groups inside every slice (`wide` is at most `n`, and a multiple of each kind's
        // group); `dst` starts on a line (asserted), so each group's stores are aligned to
        // their width (`64 K`, `32 K` and `16 K` bytes a group) and a line's stores are back
        // to back.
        unsafe { groups_of::<K, W, true>(level, kind, &mut dst[..K * wide], streams.map(|s| &s[..wide])) };
    }
    Some(wide / W)
}

/// The whole groups of `kind` in `dst` and the streams, streamed when `STREAM`.
///
/// # Safety
///
/// The CPU has `kind`'s features (AVX-512 with VBMI for bytes; AVX2; SSSE3) and `level`'s; the streams hold
/// whole groups of `kind` and `dst` `K` times their bytes; when `STREAM`, `dst` starts on a
/// line.
#[inline]
unsafe fn groups_of<const K: usize, const W: usize, const STREAM: bool>(
    level: Level,
    kind: Groups,
    dst: &mut [MaybeUninit<u8>],
    streams: [&[u8]; K],
) {
    let bytes = kind.bytes();
    let ins = (streams.map(|s| s.as_ptr()), bytes);
    let outs: [*mut u8; K] = core::array::from_fn(|k| dst.as_mut_ptr().wrapping_add(bytes * k).cast());
    let groups = streams[0].len() / bytes;
    // SAFETY: the caller's contract is each function's: a group reads `bytes` of each stream
    // and writes `K` registers of that width, back to back, into `dst`.
    unsafe {
        match kind {
            Groups::Avx2 => {
                groups_avx2::<K, W, STREAM, false>(Way::IntoPixels, ins, (outs, bytes * K), groups)
            }
            // With AVX2, two groups a register (`groups_16`). In cache, u8 and f16 C = 3
            // NCHW→NHWC at 1 MiB on an AMD EPYC (Zen 3), a scratch loop of `convert` alternating
            // four times, two threads: u8 66–77 → 89–98 GB/s, f16 71–79 → 95–97; one thread u8
            // 40–57 → 53–54, f16 41–55 → 55–67; the bench's rows (`-- "C=3 NCHW"`, in turn
            // twice): f16 42.6–45.7 → 48.3–50.7, u8 even (52.1–55.0 against 53.4–53.6); the
            // streamed rows at 16 and 256 MiB even.
            Groups::Ssse3 => {
                let masks = const { Masks::<K>::new(W, Way::IntoPixels) };
                groups_16::<K, STREAM>(level, Way::IntoPixels, &masks, ins, (outs, bytes * K), groups);
            }
            Groups::Avx512 => {
                let tables = const { Tables::<K>::new(W, Way::IntoPixels) };
                match W {
                    1 => groups_vbmi::<K, STREAM>(&tables, ins, (outs, bytes * K), groups),
                    _ => groups_wide::<K, W, STREAM>(&tables, ins, (outs, bytes * K), groups),
                }
            }
        }
    }
}
