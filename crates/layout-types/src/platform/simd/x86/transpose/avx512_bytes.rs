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

/// Neighbouring pairs of strips in cache, `L` pairs one after the other along their source
/// runs (pair `l`'s runs `l` lines on from `src`, its rows `l * step` bytes on from `dst`),
/// as [`strip_pair`], through `tiles`: each source run's `L` lines (both strips' 64 bytes of
/// each pair) are copied whole into the tiles, line `j` of pair `l` into tile `l`, and the
/// strips read their halves there. A strip's 64 source runs a multiple of 4 KiB apart (NCHW's
/// channel planes) share one set of the L1 data cache, which holds 12 of them: read in place,
/// every strip missed it on all 64 and waited on them behind its shuffles, the second strip
/// again on the lines the first had loaded; copied, each line is missed once, by loads nothing
/// waits on, and a tile's 64 lines are 64 sets. (Holding the second strip's registers
/// instead, as [`strip_pair`] does, spilled them and was slower still in cache.)
///
/// Each load asks for the same run's line `L` lines on, the next group's, into L2 (64 lines
/// of one L1 set would evict each other there): the tiles' loads took most of a pass (`perf`,
/// u8 NCHW→NHWC at 1 MiB on an AMD EPYC, Zen 4: about two thirds of the band's samples on
/// them). A scratch loop of `convert`, u8 NCHW→NHWC at 1 MiB, one pair a group, alternating
/// four times: with C = 64 two threads 56.4–58.3 → 60.9–63.1 GB/s, one thread even; with
/// C = 128 two threads 55.9–57.0 → 59.3–63.1, one thread 27.7–31.0 → 37.9–39.0. Asked for
/// after the tile's loads instead, the next pair into L1 lost, as did the pair after it into
/// L2.
///
/// Four pairs a group ([`GROUP`]): each run's four neighbouring lines are loaded one after the
/// other. The same loop without the shuffles (u8 NCHW→NHWC at 1 MiB, C = 64, against a copy
/// per thread in the same rounds, run twice) moved 0.50–0.53 of the copy on one thread and
/// 0.59 on two with one pair a group, 0.60–0.61 and 0.67 with two, 0.64 and 0.74 with four.
/// The library's (20 000 calls a process, four against one pair a group, in turn 10 times,
/// the medians of the paired ratios of time): C = 64 0.82 on two threads and on one, C = 128
/// 0.84, C = 256 0.80 (two threads); two pairs a group took 1.04–1.12 × four's time, eight
/// (a tile as large as L1) 1.28–1.46 ×. Runs 1 KiB apart (u8 row→column, 16 lines a set)
/// staged in groups of four were even (0.96–0.99), so they still read in place. Intel's cores
/// were not measured with it.
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
    tiles: &mut [Tile; GROUP],
) {
    const { assert!(L <= GROUP) };
    for j in 0..2 * E {
        for (l, tile) in tiles.iter_mut().take(L).enumerate() {
            let at = src.wrapping_add(j * ss + l * super::LINE);
            // SAFETY: both strips' 64 bytes of pair `l`'s source run `j` are inside `src` (the
            // caller's contract).
            tile.0[j] = unsafe { _mm512_loadu_si512(at.cast()) };
            super::next_line_into_l2(at.wrapping_add(L * super::LINE));
        }
    }
    for (l, tile) in tiles.iter().take(L).enumerate() {
        let (t, dst) = (tile.0.as_ptr().cast::<u8>(), dst.wrapping_add(l * 2 * step));
        // SAFETY: the tile holds both strips' source runs, 64 bytes apart; their rows are
        // inside `dst` (the caller's contract).
        unsafe {
            strip::<false>(t, super::LINE, dst, ds);
            strip::<false>(t.add(E), super::LINE, dst.wrapping_add(step), ds);
        }
    }
}

/// Pairs of strips that [`staged_pairs`] stages at once, where a band has them.
const GROUP: usize = 4;

/// The source lines of a pair of strips, staged ([`staged_pairs`]).
struct Tile([__m512i; 2 * E]);

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
    // Neighbouring strips (the second's source runs 32 bytes on) along a band, or from band to
    // band.
    let (along_band, across_bands) = (src_step == E && count > 1, src_next == E && repeat > 1);
    let page_strided_runs = ss.is_multiple_of(super::super::PAGE_STRIDE_BYTES);
    if !STREAM && page_strided_runs && (along_band || across_bands) {
        // In cache, from runs a multiple of 4 KiB apart, neighbouring strips go two at a time
        // through staged tiles, four pairs at once where the band has them: along the band,
        // or from band to band where a band is one strip wide (NCHW→NHWC's). One pair at a
        // time against none (each strip reading in place), alternating three times, u8
        // NCHW→NHWC at 1 MiB: one thread 35.1–35.8 → 39.3–39.6 GB/s, two threads back to back
        // 90.5–91.3 → 96.8–98.2. Runs 1 KiB apart (1024-wide matrices, 16 lines a set) were
        // slower staged one pair at a time (two threads back to back 77–82 → 71–75) and even
        // four at a time.
        let mut tiles: [Tile; GROUP] = core::array::from_fn(|_| Tile([_mm512_setzero_si512(); 2 * E]));
        let (src_steps, dst_steps, [count, repeat]) = match along_band {
            true => (steps.0, steps.1, [count, repeat]),
            false => ([src_next, src_step], [dst_next, dst_step], [repeat, count]),
        };
        for k in 0..repeat {
            let (src, dst) = (src.wrapping_add(k * src_steps[1]), dst.wrapping_add(k * dst_steps[1]));
            let at = |i: usize| (src.wrapping_add(i * src_steps[0]), dst.wrapping_add(i * dst_steps[0]));
            // Groups of four pairs, then the pairs left one at a time, then an odd last strip.
            let mut i = 0;
            while i + 2 * GROUP <= count {
                let (s, d) = at(i);
                // SAFETY: every strip of the bands is inside both buffers (the caller's
                // contract).
                unsafe { staged_pairs::<GROUP>(s, ss, d, [ds, dst_steps[0]], &mut tiles) };
                i += 2 * GROUP;
            }
            while i + 2 <= count {
                let (s, d) = at(i);
                // SAFETY: as above.
                unsafe { staged_pairs::<1>(s, ss, d, [ds, dst_steps[0]], &mut tiles) };
                i += 2;
            }
            if i < count {
                let (s, d) = at(i);
                // SAFETY: as above.
                unsafe { strip::<false>(s, ss, d, ds) };
            }
        }
    } else if along_band {
        // Neighbouring strips share their source lines: two at a time, the odd last alone.
        // Each line is then loaded once, whole, where one strip at a time loaded its halves
        // apart, the second from wherever the line had been evicted to (streamed at
        // 256 MiB, two threads, alternating three times: u8 row→column 26.2–26.7 →
        // 29.8–30.8 GB/s, one thread 13.3–13.7 → 16.0–16.3).
        super::each_pair(
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
