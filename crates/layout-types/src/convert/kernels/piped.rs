//! Streamed large matrices into columns through piped tiles ([`by_piped_tiles`]).

use super::{line_offset, square_tile, tiling, transpose, CACHE_LINE};
use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd::piped::{has_piped_tiles, piped_tile, piped_tiles};
use crate::platform::simd::strips::Strips;

/// A streamed plane whose both sides' streams are far apart (a large matrix into columns, whose
/// strips would otherwise sweep its source in square bands: `strip_sweep`), where the level has
/// piped tiles (AVX2, elements of 1, 2 or 4 bytes) and the destination rows are whole lines:
/// its whole tiles go through [`piped_tiles`] (one line of each of `256 / size` source runs a
/// tile, transposed into the L1 cache while the tile before streams out, four lines of each
/// destination row back to back), its edges back through [`transpose`], where the strips take
/// them. Returns `false`, having written nothing, for any other plane.
///
/// The strips' sweep writes one or two lines of a destination row at a time, each in another
/// DRAM page, and its transposes wait on the source with no stores in flight. On an AMD EPYC
/// (Zen 3), 16 matrices at 256 MiB (u8 4096 × 4096, f16 2048 × 4096, f32 2048 × 2048), the
/// bench's races, strips → piped tiles in turn twice, two threads: f32 29.3–31.7 → 36.3–41.1
/// GB/s, f16 21.3–22.6 → 31.6–32.5, u8 19.5–21.3 → 25.4–26.1 (one thread f16 11.6–12.1 →
/// 19.1–21.0); at 16 MiB f16 22.2–24.3 → 40.6–41.5, f32 26.7–33.8 → 35.2–36.8. A scratch probe
/// of the loop found the overlap to be the gain: each tile's rows streamed after its transposes
/// moved less than the same tiles copied without transposes (u8 18.6–18.8 against 22.5–24.3
/// GB/s, f16 27.3–28.2 against 26.9–31.0, f32 30.9 against 37.5), and the previous tile streamed
/// in two shares a tile instead of one a step moved u8 18.7, f16 26.8 (`BENCHMARKS.md`, step 52).
/// Tiles of 4-byte elements go down bands of 4 MiB of destination rows, not whole columns, so
/// that a destination of 4 KiB pages stays within the TLB's reach (`simd::piped`'s
/// `BAND_BYTES_4`). Matrices whose destination rows are not whole lines keep the strips; f64
/// keeps them too (an 8-byte piped step lost to its strips: `BENCHMARKS.md`, step 53).
pub(super) fn by_piped_tiles<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    if !takes_piped_tiles::<T>(rows, cols, strips) {
        return false;
    }
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let (tile_rows, tile_runs) = piped_tile(T::SIZE);
    let head = line_offset::<T>(dst.address(d)).min(cols.extent);
    let n_rows = rows.extent / tile_rows * tile_rows;
    let n_cols = (cols.extent - head) / tile_runs * tile_runs;
    let (s0, d0) = (s + head * src_stride, d + head);
    let level = strips.level();
    if !piped_tiles(level, src, (s0, src_stride), dst.rb(), (d0, dst_stride), [n_rows, n_cols]) {
        return false;
    }
    // The edges: the columns before the first line and after the last whole tile, then the
    // rows below the last whole tile.
    let mut part = |r: core::ops::Range<usize>, c: core::ops::Range<usize>| {
        let (sub_rows, sub_cols) =
            (LoopAxis { extent: r.len(), ..rows }, LoopAxis { extent: c.len(), ..cols });
        let (from, to) = (s + r.start + c.start * src_stride, d + r.start * dst_stride + c.start);
        if !r.is_empty() && !c.is_empty() {
            transpose(src, from as isize, dst.rb(), to as isize, sub_rows, sub_cols, Some(strips));
        }
    };
    part(0..rows.extent, 0..head);
    part(0..rows.extent, head + n_cols..cols.extent);
    part(n_rows..rows.extent, head..head + n_cols);
    true
}

/// Whether [`by_piped_tiles`] takes the plane `rows` × `cols` (the conditions its doc gives;
/// whole tiles are its own to check).
pub(super) fn takes_piped_tiles<T: Element>(rows: LoopAxis, cols: LoopAxis, strips: Strips) -> bool {
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let square = tiling::<T>(src_stride, dst_stride) == (false, square_tile::<T>());
    let whole_lines = dst_stride.checked_mul(T::SIZE).is_some_and(|b| b.is_multiple_of(CACHE_LINE));
    strips.streaming() && has_piped_tiles(strips.level(), T::SIZE) && square && whole_lines
}
