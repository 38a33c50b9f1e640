//! AVX-512's streamed byte strips: 32 rows by one 64-byte line, one `__m512i` per destination
//! row, so a strip's lines are held in 32 registers and each is streamed with one store (AVX2's
//! byte strip of a whole line is two blocks of 32 registers, which spill when held for
//! streaming: u8 row→column matrices at 256 MiB moved 0.37 of the strongest copy, 0.77–0.82
//! with these).
//!
//! Register `j` holds source run `j` (32 bytes) in its low half and run `32 + j` in its high
//! half: AVX-512's in-lane unpacks transpose both halves at once, as two of AVX2's 32×32 byte
//! blocks side by side, and one two-source permute per register then gathers row `r`'s lanes
//! of both blocks into one line (columns 0..32 from the low half, 32..64 from the high). Where
//! a neighbouring strip reads the next 32 bytes of the same runs, the two go as a pair, each
//! source line loaded once: streamed, held in registers ([`strip_pair`]); in cache, from runs a
//! multiple of 4 KiB apart, copied into tiles first ([`staged_pairs`]).
//!
//! The safety argument is the room's, in `platform/mod.rs`; the bounds each call relies on are
//! checked by `strips`.

use core::arch::x86_64::*;

use super::staging::{Tiles, GROUP};
use super::walks::LineWalk;

/// Rows of a strip (bytes of a source run).
const E: usize = 32;

/// Row `k`'s and row `16 + k`'s qwords among registers `k` (0..8) and `16 + k` (8..16):
/// lanes 0 and 2 of both, then lanes 1 and 3.
const LOW_LANES: [i64; 8] = [0, 1, 8, 9, 4, 5, 12, 13];
const HIGH_LANES: [i64; 8] = [2, 3, 10, 11, 6, 7, 14, 15];

/// One round of the in-lane transpose of each group of 16 registers: pair `k` of a group is
/// the low and high byte interleave of its registers `k` and `k + 8`. Written out, so that
/// the registers stay registers (a loop over the array went through memory).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn unpack_round(g: [__m512i; E]) -> [__m512i; E] {
    macro_rules! pairs {
        ($($k:literal)*) => {
            [$(
                _mm512_unpacklo_epi8(g[$k / 8 * 16 + $k % 8], g[$k / 8 * 16 + $k % 8 + 8]),
                _mm512_unpackhi_epi8(g[$k / 8 * 16 + $k % 8], g[$k / 8 * 16 + $k % 8 + 8]),
            )*]
        };
    }
    pairs!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// Transposes a strip's registers `$v` (register `j`: source run `j` in its low half,
/// `E + j` in its high) and stores its rows `r * $ds` bytes from `$dst`, streamed when
/// `$stream`; unsafe: every row's 64 bytes are inside the destination, and start aligned
/// when streamed. A macro, so that each strip's registers stay registers (`#[inline]`
/// left it out of line once called from three places, and its 32 registers went through
/// memory: u8 row→column at 256 MiB 25 → 14 GB/s).
macro_rules! rows {
    ($v:expr, $dst:expr, $ds:expr, $stream:expr) => {{
        let (v, dst, ds): ([__m512i; E], *mut u8, usize) = ($v, $dst, $ds);
        // 16 bytes a lane: four rounds.
        let v = unpack_round(unpack_round(unpack_round(unpack_round(v))));
        // SAFETY: the constants are 64 bytes each; unaligned loads.
        let (low, high) = unsafe {
            (_mm512_loadu_si512(LOW_LANES.as_ptr().cast()), _mm512_loadu_si512(HIGH_LANES.as_ptr().cast()))
        };
        for k in 0..E / 2 {
            let (a, b) = (v[k], v[E / 2 + k]);
            let rows = [
                (k, _mm512_permutex2var_epi64(a, low, b)),
                (E / 2 + k, _mm512_permutex2var_epi64(a, high, b)),
            ];
            for (r, line) in rows {
                // SAFETY: row `r`'s 64 bytes are inside `dst`, and start aligned when
                // streamed (the caller's contract).
                unsafe {
                    match $stream {
                        true => _mm512_stream_si512(dst.add(r * ds).cast(), line),
                        false => _mm512_storeu_si512(dst.add(r * ds).cast(), line),
                    }
                }
            }
        }
    }};
}

/// One strip: source runs `j * ss` bytes from `src` (32 bytes each, `j` in 0..64), rows
/// `r * ds` bytes from `dst` (64 bytes each, `r` in 0..32), streamed when `STREAM`.
///
/// # Safety
///
/// The CPU has AVX-512 F and BW; those bytes are inside live, disjoint allocations; when
/// `STREAM`, every destination row starts 64-byte aligned.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn strip<const STREAM: bool>(src: *const u8, ss: usize, dst: *mut u8, ds: usize) {
    let v: [__m512i; E] = core::array::from_fn(|j| {
        // SAFETY: source runs `j` and `E + j` are inside `src` (the caller's contract).
        unsafe {
            let low = _mm256_loadu_si256(src.add(j * ss).cast());
            let high = _mm256_loadu_si256(src.add((E + j) * ss).cast());
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
        }
    });
    rows!(v, dst, ds, STREAM);
}

/// Two neighbouring strips, the second's source runs 32 bytes on from the first's and its
/// rows `step` bytes on: each source line is loaded once, whole, its halves split between
/// the two strips' registers (the second's wait on the stack).
///
/// # Safety
///
/// As [`strip`], for both strips.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn strip_pair<const STREAM: bool>(src: *const u8, ss: usize, dst: *mut u8, [ds, step]: [usize; 2]) {
    let mut second = [_mm512_setzero_si512(); E];
    let first: [__m512i; E] = core::array::from_fn(|j| {
        // SAFETY: source runs `j` and `E + j` of both strips, 64 bytes from `src`, are
        // inside `src` (the caller's contract).
        unsafe {
            let a = _mm512_loadu_si512(src.add(j * ss).cast());
            let b = _mm512_loadu_si512(src.add((E + j) * ss).cast());
            second[j] = _mm512_shuffle_i64x2::<0xEE>(a, b);
            _mm512_shuffle_i64x2::<0x44>(a, b)
        }
    });
    rows!(first, dst, ds, STREAM);
    rows!(second, dst.wrapping_add(step), ds, STREAM);
}

/// `L` neighbouring pairs of strips in cache (pair `l`'s source runs `l` lines on from `src`,
/// its rows `2 * l * step` bytes on from `dst`), as [`strip_pair`], through `tiles`
/// ([`staging`](super::staging)): each source run's `L` lines (both strips' 64 bytes of each
/// pair) are copied whole into the tiles, and the strips read their halves there. (Holding
/// the second strip's registers instead, as [`strip_pair`] does, spilled them and was slower
/// in cache.)
///
/// # Safety
///
/// As [`strip`], for every strip of the `L` pairs (ordinary stores).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn staged_pairs<const L: usize>(
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    [ds, step]: [usize; 2],
    tiles: &mut Tiles<{ 2 * E }>,
) {
    // SAFETY: the `L` pairs' source lines are inside `src` (the caller's contract).
    unsafe { tiles.fill::<L, true>(src, ss) };
    for l in 0..L {
        let (t, dst) = (tiles.tile(l), dst.wrapping_add(l * 2 * step));
        // SAFETY: the tile holds both strips' source runs, 64 bytes apart; their rows are
        // inside `dst` (the caller's contract).
        unsafe {
            strip::<false>(t, super::LINE, dst, ds);
            strip::<false>(t.add(E), super::LINE, dst.wrapping_add(step), ds);
        }
    }
}

/// `repeat` bands of `count` strips, strip `i` of band `k` at
/// `src + k * src_next + i * src_step` and `dst + k * dst_next + i * dst_step`, then (when
/// `STREAM`) a store fence.
///
/// # Safety
///
/// As [`strip`], for every strip.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn band<const STREAM: bool>(
    src: *const u8,
    [ss, src_step, src_next]: [usize; 3],
    dst: *mut u8,
    [ds, dst_step, dst_next]: [usize; 3],
    [count, repeat]: [usize; 2],
) {
    let steps = ([src_step, src_next], [dst_step, dst_next]);
    // Neighbouring strips (the second's source runs 32 bytes on) along a band, or (staged)
    // from band to band.
    let along_band = src_step == E && count > 1;
    let page_strided_runs = ss.is_multiple_of(super::super::PAGE_STRIDE_BYTES);
    let staged = match !STREAM && page_strided_runs {
        true => LineWalk::new(steps.0, steps.1, [count, repeat], 2),
        false => None,
    };
    if let Some(walk) = staged {
        // In cache, from runs a multiple of 4 KiB apart, neighbouring strips go two at a time
        // through staged tiles, four pairs at once where the band has them. One pair at a time
        // against each strip reading in place, alternating three times, u8 NCHW→NHWC at
        // 1 MiB: one thread 35.1–35.8 → 39.3–39.6 GB/s, two threads back to back 90.5–91.3 →
        // 96.8–98.2. Four pairs against one, 20 000 calls a process in turn ten times, the
        // medians of the paired ratios of time: C = 64 0.82 on two threads and on one, C = 128
        // 0.84, C = 256 0.80. Runs 1 KiB apart (1024-wide matrices, 16 lines a set) were
        // slower staged one pair at a time (two threads back to back 77–82 → 71–75) and even
        // four at a time (0.96–0.99), so they read in place.
        let mut tiles = Tiles::new();
        walk.run(
            src,
            dst,
            // SAFETY: every strip of the bands is inside both buffers (the caller's contract).
            |s, d, n| unsafe {
                match n {
                    GROUP => staged_pairs::<GROUP>(s, ss, d, [ds, walk.dst_step()], &mut tiles),
                    _ => staged_pairs::<1>(s, ss, d, [ds, walk.dst_step()], &mut tiles),
                }
            },
            // SAFETY: as above.
            |s, d| unsafe { strip::<false>(s, ss, d, ds) },
        );
    } else if along_band {
        // Neighbouring strips share their source lines: two at a time, the odd last alone.
        // Each line is then loaded once, whole, where one strip at a time loaded its halves
        // apart, the second from wherever the line had been evicted to (streamed at
        // 256 MiB, two threads, alternating three times: u8 row→column 26.2–26.7 →
        // 29.8–30.8 GB/s, one thread 13.3–13.7 → 16.0–16.3).
        super::each_group::<2>(
            src,
            steps.0,
            dst,
            steps.1,
            [count, repeat],
            // SAFETY: every strip of the bands is inside both buffers (the caller's contract).
            |s, d| unsafe { strip_pair::<STREAM>(s, ss, d, [ds, dst_step]) },
            // SAFETY: as above.
            |s, d| unsafe { strip::<STREAM>(s, ss, d, ds) },
        );
    } else {
        super::each_strip(src, steps.0, dst, steps.1, [count, repeat], |src, dst| {
            // SAFETY: every strip of the bands is inside both buffers (the caller's contract).
            unsafe { strip::<STREAM>(src, ss, dst, ds) }
        });
    }
    if STREAM {
        _mm_sfence();
    }
}
