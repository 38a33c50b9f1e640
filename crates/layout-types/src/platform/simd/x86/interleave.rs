//! Planes into pixels of a few elements (an RGB image's planes into its pixels) with x86's
//! permutes and byte shuffles: AVX-512's and SSSE3's for every count of planes from 2 to 7
//! ([`gather`](mod@super::gather)), AVX2's for three (the inverse is
//! [`deinterleave`](mod@super::deinterleave)'s; the safety argument is the room's, in
//! `platform/mod.rs`).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::Level;
use super::gather::{avx2_tables, groups_ssse3, groups_vbmi, groups_wide, Masks, Tables, Way};
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
    /// 32 bytes of each of three streams with AVX2's permutes and blends (4- and 8-byte
    /// elements: no 256-bit way moves bytes and halves across lanes in one instruction).
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
/// VBMI); for three streams AVX2's from [`Level::Avx2`] for 4- and 8-byte elements; SSSE3's
/// above [`Level::Portable`] for bytes and halves where the CPU has it; `None` where there are
/// none (the plain loops then take every position).
pub(super) fn groups<const K: usize, const W: usize>(level: Level) -> Option<Groups> {
    if !(2..8).contains(&K) {
        None
    } else if level == Level::Avx512 && (W >= 2 || has_vbmi()) {
        Some(Groups::Avx512)
    } else if K == 3 && level >= Level::Avx2 && W >= 4 {
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
        if !unsafe { groups_of::<K, W, false>(kind, &mut dst[..K * done], streams.map(|s| &s[..done])) } {
            return 0;
        }
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
        // their width (`64 K`, 96 and 48 bytes a group) and a line's stores are back to back.
        if !unsafe { groups_of::<K, W, true>(kind, &mut dst[..K * wide], streams.map(|s| &s[..wide])) } {
            return None;
        }
    }
    Some(wide / W)
}

/// The whole groups of `kind` in `dst` and the streams, streamed when `STREAM`; `false`, having
/// written nothing, where `kind` has no groups for `K` streams (AVX2's take three).
///
/// # Safety
///
/// The CPU has `kind`'s features (AVX-512 with VBMI for bytes; AVX2, whose groups take three
/// streams; SSSE3); the streams hold whole groups of `kind` and `dst` `K` times their bytes;
/// when `STREAM`, `dst` starts on a line.
#[inline]
unsafe fn groups_of<const K: usize, const W: usize, const STREAM: bool>(
    kind: Groups,
    dst: &mut [MaybeUninit<u8>],
    streams: [&[u8]; K],
) -> bool {
    let groups = streams[0].len() / 64;
    // SAFETY: the caller's contract is each function's; AVX-512's groups read 64 bytes of each
    // stream and write `64 K` of `dst` a group.
    unsafe {
        match (kind, &streams[..]) {
            (Groups::Avx2, &[a, b, c]) => interleave3_avx2::<W, STREAM>(dst, [a, b, c]),
            (Groups::Ssse3, _) => {
                let masks = const { Masks::<K>::new(W, Way::IntoPixels) };
                let ins = (streams.map(|s| s.as_ptr()), 16);
                let outs: [*mut u8; K] =
                    core::array::from_fn(|k| dst.as_mut_ptr().wrapping_add(16 * k).cast());
                groups_ssse3::<K, STREAM, false>(&masks, ins, (outs, 16 * K), streams[0].len() / 16);
            }
            (Groups::Avx512, _) => {
                let tables = const { Tables::<K>::new(W, Way::IntoPixels) };
                let ins = (streams.map(|s| s.as_ptr()), 64);
                let outs: [*mut u8; K] =
                    core::array::from_fn(|k| dst.as_mut_ptr().wrapping_add(64 * k).cast());
                match W {
                    1 => groups_vbmi::<K, STREAM>(&tables, ins, (outs, 64 * K), groups),
                    _ => groups_wide::<K, W, STREAM>(&tables, ins, (outs, 64 * K), groups),
                }
            }
            // AVX2's groups take three streams (`groups` picks them for three only).
            _ => return false,
        }
    }
    true
}

/// # Safety
///
/// The CPU has AVX2; the streams hold whole groups of 32 bytes of equal count and `dst` three
/// times their bytes; `W` is 4 or 8; with `STREAM`, `dst` starts on 32 bytes.
#[target_feature(enable = "avx2")]
unsafe fn interleave3_avx2<const W: usize, const STREAM: bool>(
    dst: &mut [MaybeUninit<u8>],
    [a, b, c]: [&[u8]; 3],
) {
    let (permutes, masks) = const { avx2_tables(W, Way::IntoPixels) };
    // SAFETY: every table is 32 bytes of a constant; unaligned loads.
    let load = |t: *const u8| unsafe { _mm256_loadu_si256(t.cast()) };
    let p: [__m256i; 3] = permutes.each_ref().map(|t| load(t.as_ptr().cast()));
    let [m1, m2]: [[__m256i; 3]; 2] = masks.each_ref().map(|m| m.each_ref().map(|t| load(t.as_ptr())));
    let groups = a.chunks_exact(32).zip(b.chunks_exact(32)).zip(c.chunks_exact(32));
    for (out, ((a, b), c)) in dst.chunks_exact_mut(96).zip(groups) {
        // SAFETY: `a`, `b`, `c` are 32 bytes and `out` 96 inside their slices; unaligned.
        unsafe {
            let v = [a, b, c].map(|x| _mm256_loadu_si256(x.as_ptr().cast()));
            let [pa, pb, pc] = [0, 1, 2].map(|s| _mm256_permutevar8x32_epi32(v[s], p[s]));
            for k in 0..3 {
                let w = _mm256_blendv_epi8(_mm256_blendv_epi8(pa, pb, m1[k]), pc, m2[k]);
                let to = out[32 * k..].as_mut_ptr().cast();
                match STREAM {
                    true => _mm256_stream_si256(to, w),
                    false => _mm256_storeu_si256(to, w),
                }
            }
        }
    }
}
