//! Pixels of a few elements into planes (an RGB image's pixels into its planes): the inverse of
//! [`interleave`](mod@super::interleave)'s groups, at the same levels in the same order of
//! preference ([`groups`]), with ordinary or streaming stores (the safety argument is the
//! room's, in `platform/mod.rs`).
//!
//! Plane `s`'s element `i` is element `p = Ki + s` of the pixels: AVX-512 gathers a plane's
//! register from the group's `K` registers by two-source permutes, and SSSE3 (bytes and
//! halves) by a byte shuffle of each of them, ORed ([`gather`](mod@super::gather)), for every
//! `K` from 2 to 7 (with AVX2, two groups at once, one in each 128-bit lane); AVX2 (4- and
//! 8-byte elements) undoes its own steps ([`gather_avx2`](mod@super::gather_avx2)): for the odd
//! part of `K` it blends the registers so that each lane holds an element of the plane, then
//! permutes the lanes into order; for each factor 2 it splits pairs.
//! Streamed, AVX2 and SSSE3 form a whole line of each stream before they store it (two groups,
//! four groups): one group at a time, whose 16-byte stores went to the three streams in turn,
//! moved 0.65–0.66 of a streaming copy (C = 3 NHWC→NCHW at 256 MiB on an AMD EPYC, Zen 4, two
//! threads, u8 and f16 at SSE2 and AVX2 levels), a line at a time 0.96–0.99.
//!
//! Against the blocks of 64 pixels that were the only way before (`convert::kernels`'s
//! `deinterleave`, ordinary stores), in cache (C = 3 NHWC→NCHW at 1 MiB, two threads, a
//! scratch loop of `convert` in turn twice): AVX-512 f16 11.9–12.1 → 74.9–87.5 GB/s, f32
//! 18.9–19.4 → 72.5–73.6, u8 (VBMI's, as before) 75–85 → 86–90; at AVX2 f32 85, u8 and f16
//! (SSSE3's then) 68; u8 and f16 at AVX2 now take two SSSE3 groups a register
//! ([`groups_lane_pairs`](super::gather::groups_lane_pairs), its doc has the figures).

use core::mem::MaybeUninit;

use super::super::Level;
use super::gather::{groups_16, groups_vbmi, groups_wide, Masks, Tables, Way};
use super::gather_avx2::groups_avx2;
use super::interleave::{groups, Groups};

/// Splits the whole groups of `K`-element pixels of `src` (`W`-byte elements) into the `K`
/// streams `dst`, with the groups `level` (one the CPU has) takes ([`groups`]), streamed when
/// `STREAM`. Returns the pixels done, from the first: none where the level has no groups. With
/// `STREAM` every stream starts on a line (asserted) and only whole lines are written, so each
/// line's stores are back to back; the caller fences.
pub(in crate::platform) fn deinterleave<const K: usize, const W: usize, const STREAM: bool>(
    level: Level,
    src: &[u8],
    mut dst: [&mut [MaybeUninit<u8>]; K],
) -> usize {
    assert!(
        level.available() && (!STREAM || dst.iter().all(|d| (d.as_ptr() as usize).is_multiple_of(64))),
        "a split into planes at a level this CPU lacks, or streamed off a line"
    );
    let Some(kind) = groups::<K, W>(level) else { return 0 };
    let n = dst.iter().map(|d| d.len()).min().unwrap_or(0).min(src.len() / K);
    let whole = if STREAM { 64 } else { kind.bytes() };
    let done = n / whole * whole;
    if done == 0 {
        return 0;
    }
    let src = &src[..K * done];
    // SAFETY: `level` is available (asserted) and `groups` picked a kind it has; whole groups
    // inside every slice (`done` is at most `n`, a multiple of the kind's group, and streamed
    // a multiple of 64: whole lines, so AVX2's group count is even and SSSE3's a multiple of
    // 4, as their `LINES` need); streamed, every stream starts on a line (asserted), so each
    // store is aligned to its width; `groups_16` gets the available `level`.
    unsafe {
        match kind {
            Groups::Avx512 => {
                let tables = const { Tables::<K>::new(W, Way::IntoPlanes) };
                let ins: [*const u8; K] = core::array::from_fn(|r| src.as_ptr().wrapping_add(64 * r));
                let outs = (dst.each_mut().map(|d| d.as_mut_ptr().cast::<u8>()), 64);
                match W {
                    1 => groups_vbmi::<K, STREAM>(&tables, (ins, 64 * K), outs, done / 64),
                    _ => groups_wide::<K, W, STREAM>(&tables, (ins, 64 * K), outs, done / 64),
                }
            }
            Groups::Ssse3 => {
                let masks = const { Masks::<K>::new(W, Way::IntoPlanes) };
                let ins: [*const u8; K] = core::array::from_fn(|r| src.as_ptr().wrapping_add(16 * r));
                let outs = dst.each_mut().map(|d| d.as_mut_ptr().cast::<u8>());
                groups_16::<K, STREAM>(level, Way::IntoPlanes, &masks, (ins, 16 * K), (outs, 16), done / 16);
            }
            Groups::Avx2 => {
                let ins: [*const u8; K] = core::array::from_fn(|r| src.as_ptr().wrapping_add(32 * r));
                let outs = (dst.each_mut().map(|d| d.as_mut_ptr().cast::<u8>()), 32);
                groups_avx2::<K, W, STREAM, STREAM>(Way::IntoPlanes, (ins, 32 * K), outs, done / 32);
            }
        }
    }
    done / W
}
