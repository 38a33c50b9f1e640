//! AVX2's piped tiles (the safety argument is the room's, in `platform/mod.rs`; the bounds each
//! call relies on are checked by `super::super::piped`).
//!
//! A tile is one cache line of each of `256 / W` source runs (`64 / W` destination rows of
//! 256 bytes). It is transposed in steps of `16 / W` runs by 32 bytes: each step loads one
//! register of each run, transposes them within the 16-byte lanes as the strips do (each lane
//! then holds one destination row's 16 bytes), and stores those lanes into the tile (ordinary
//! stores, in the L1 cache). After each step a share of the previous tile's rows is streamed
//! out, so that the source loads of the transposes overlap the streamed lines.

use core::arch::x86_64::*;

use super::super::piped::TILE_ROW_BYTES;
use super::transpose::avx2::in_lanes;
use super::transpose::LINE;

/// Bytes of a tile.
const TILE_BYTES: usize = TILE_ROW_BYTES * LINE;

/// Two tiles, on cache lines.
#[repr(C, align(64))]
struct Tiles([[u8; TILE_BYTES]; 2]);

/// One step: `N = 16 / W` runs (`ss` bytes apart from `src`) by 32 bytes, from byte `half * 32`
/// of the tile's line of each, into the tile (`tile`, rows [`TILE_ROW_BYTES`] apart) at byte
/// `at` of each destination row it holds.
///
/// # Safety
///
/// The CPU has AVX2; `N` runs of 32 bytes from `src + half * 32` (`ss` apart) are readable, and
/// the tile holds `64 / W` rows of [`TILE_ROW_BYTES`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn step<const W: usize, const N: usize>(
    src: *const u8,
    ss: usize,
    tile: &mut [u8; TILE_BYTES],
    half: usize,
    at: usize,
) {
    const { assert!(N * W == 16) };
    let mut v = [_mm256_setzero_si256(); N];
    for (run, reg) in v.iter_mut().enumerate() {
        // SAFETY: run `run`'s 32 bytes at `half * 32` are readable (the caller's contract).
        *reg = unsafe { _mm256_loadu_si256(src.add(run * ss + half * 32).cast()) };
    }
    // The strips' transpose within each 16-byte lane: lane element `j` of every run into
    // register `j`.
    in_lanes::<W, N, N>(&mut v);
    // Register `j`'s low lane is destination row `j` of this half's rows, its high lane row
    // `j + N`: 16 bytes of each.
    let rows = 32 / W;
    for (j, reg) in v.iter().enumerate() {
        let low = (half * rows + j) * TILE_ROW_BYTES + at;
        let high = (half * rows + N + j) * TILE_ROW_BYTES + at;
        tile[low..low + 16].copy_from_slice(&bytes(_mm256_castsi256_si128(*reg)));
        tile[high..high + 16].copy_from_slice(&bytes(_mm256_extracti128_si256::<1>(*reg)));
    }
}

/// The 16 bytes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn bytes(v: __m128i) -> [u8; 16] {
    // SAFETY: both are 16 bytes of plain data.
    unsafe { core::mem::transmute(v) }
}

/// Streams rows `rows` of `tile` to `dst + r * ds`.
///
/// # Safety
///
/// The CPU has AVX2, and each row's [`TILE_ROW_BYTES`] at `dst + r * ds` are writable and start
/// on a cache line.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stream_rows(tile: &[u8; TILE_BYTES], dst: *mut u8, ds: usize, rows: core::ops::Range<usize>) {
    for r in rows {
        let row = &tile[r * TILE_ROW_BYTES..(r + 1) * TILE_ROW_BYTES];
        for (k, chunk) in row.chunks_exact(32).enumerate() {
            // SAFETY: the row's bytes are writable and start on a line (the caller's contract).
            unsafe {
                let v = _mm256_loadu_si256(chunk.as_ptr().cast());
                _mm256_stream_si256(dst.add(r * ds + k * 32).cast(), v);
            }
        }
    }
}

/// The plane of `rows` destination rows by `cols` source runs of `w`-byte elements (1, 2 or 4):
/// run `c` at `src + c * ss` (bytes), `rows` elements each; destination row `r` at
/// `dst + r * ds`, `cols` elements each, streamed; then a store fence. The tiles go down a
/// band of `band` destination rows (rounded up to whole tiles) one column of tiles after
/// another, then down the next band.
///
/// # Safety
///
/// The CPU has AVX2; `rows` is a multiple of `64 / w` and `cols` of `256 / w`, both above zero;
/// every run is readable and every row writable, no row overlapping a run; `dst` and `ds` are
/// multiples of a line.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn piped_tiles(
    w: usize,
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
    [rows, cols]: [usize; 2],
    band: usize,
) {
    // SAFETY: passed on (the caller's contract).
    unsafe {
        match w {
            1 => tiles::<1, 16>(src, ss, dst, ds, [rows, cols], band),
            2 => tiles::<2, 8>(src, ss, dst, ds, [rows, cols], band),
            _ => tiles::<4, 4>(src, ss, dst, ds, [rows, cols], band),
        }
    }
    _mm_sfence();
}

/// [`piped_tiles`] for `W`-byte elements, `N = 16 / W` runs a step.
///
/// # Safety
///
/// As [`piped_tiles`].
#[target_feature(enable = "avx2")]
unsafe fn tiles<const W: usize, const N: usize>(
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
    [rows, cols]: [usize; 2],
    band: usize,
) {
    let (tile_rows, tile_runs) = (LINE / W, TILE_ROW_BYTES / W);
    let steps = 2 * tile_runs / N; // two halves of a line, `N` runs a step
    let share = tile_rows.div_ceil(steps);
    let mut tiles = Tiles([[0; TILE_BYTES]; 2]);
    let [mut this, mut last] = tiles.0.each_mut();
    // The previous tile's first destination byte, while its rows wait in `last`.
    let mut pending: Option<*mut u8> = None;
    // Any band is whole tiles, so each tile stays inside the plane.
    let band = band.clamp(1, rows.max(1)).next_multiple_of(tile_rows);
    for b0 in (0..rows).step_by(band) {
        let band_rows = b0..rows.min(b0.saturating_add(band));
        for c0 in (0..cols).step_by(tile_runs) {
            for r0 in band_rows.clone().step_by(tile_rows) {
                for k in 0..steps {
                    let (group, half) = (k / 2, k % 2);
                    let runs = c0 + group * N;
                    // SAFETY: the step's runs are inside the plane's (the caller's contract).
                    unsafe { step::<W, N>(src.add(runs * ss + r0 * W), ss, this, half, group * N * W) };
                    if let Some(to) = pending {
                        let shared = (k * share).min(tile_rows)..((k + 1) * share).min(tile_rows);
                        // SAFETY: the previous tile's rows are inside the plane's.
                        unsafe { stream_rows(last, to, ds, shared) };
                    }
                }
                // SAFETY: this tile's rows and columns are inside the plane's.
                pending = Some(unsafe { dst.add(r0 * ds + c0 * W) });
                core::mem::swap(&mut this, &mut last);
            }
        }
    }
    if let Some(to) = pending {
        // SAFETY: as above.
        unsafe { stream_rows(last, to, ds, 0..tile_rows) };
    }
}
