//! Sweeping a plane strip by strip ([`by_strips`]): strips that write whole destination lines,
//! in cache or streamed, in whole-row bands or tiles.

use super::line_walk::LineWalk;
use super::seams::stream_seams;
use super::{line_offset, near_lines, plane, square_tile, tiles, tiling, CACHE_LINE, SWEEP_BYTES};
use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd::strips::{Band, Strips};
use crate::platform::simd::Level;
use core::ops::Range;

/// Destination rows a plane has at least, for [`by_strips`] to sweep it in whole-row bands
/// (in cache, or streamed with few source runs).
pub(super) const WIDE_PLANE: usize = 256;

/// Source runs a streamed plane reads at once at most, for [`by_strips`] to sweep it in
/// whole-row bands, where the source is in the last-level cache (from memory:
/// [`Strips::streamed_runs`]).
pub(super) const MAX_CACHED_RUNS: usize = 64;

/// Bytes of each destination row that a streamed tile swept across its rows takes, where the
/// next tile's source lines are walked (more than two bands): a quarter of [`SWEEP_BYTES`], so a
/// tile's source is 64 KiB where it was 256 (f32 NHWC→NCHW with C = 64 at 256 MiB, the bench's
/// races, 4 KiB and 1 KiB alternating three times: two threads 27.8–29.2 → 30.9–32.1 GB/s, one
/// thread 14.5–14.9 → 16.1–16.4; at 16 MiB within the noise of the runs, 21–40 GB/s either
/// way). Checked again outside the bench (256 MiB, two threads, best of 8 calls each, 4 KiB and
/// 1 KiB alternating, two runs): f32 C = 64 29.1–29.4 → 31.8–32.0 GB/s, C = 128 27.8 →
/// 28.8–28.9, C = 256 26.4–28.2 → 26.7–27.7; f16 C = 128 25.6–26.0 → 26.4–26.8. With two bands
/// and no walk (f16 with C = 64) 1 KiB changed nothing (27.6–28.8 against 28.1–28.4), so those
/// keep [`SWEEP_BYTES`].
const WALKED_SWEEP_BYTES: usize = 1024;

/// The plane (unit inner strides) by [`Strips`]: the columns from the first that starts a
/// destination cache line, and the rows, that hold whole strips, tiled and swept as [`tiled`](super::tiled)
/// does its blocks, a tile's bands of strips in one call (a band a call where the next tile's
/// lines are walked between bands); the edges left over go through [`plane`].
/// Returns `false`, having written nothing, when no whole strip fits.
pub(super) fn by_strips<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    if !strips.has_blocks() {
        return false;
    }
    // Destination rows shorter than a line (NC/32HW32's of int8) take tall strips where there
    // are some: whole source lines in, half-line rows out; streamed where they are dense and
    // start on a line (pairs of rows fill lines), otherwise ordinary stores, no alignment asked.
    let tall = strips.tall().filter(|t| cols.extent < strips.cols() && cols.extent >= t.cols());
    let strips = tall.unwrap_or(strips);
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let head = match tall {
        Some(_) => 0,
        None => line_offset::<T>(dst.address(d)).min(cols.extent),
    };
    let n_cols = (cols.extent - head) / strips.cols() * strips.cols();
    let n_rows = rows.extent / strips.rows() * strips.rows();
    if n_cols == 0 || n_rows == 0 {
        return false;
    }
    // Where dense rows of whole lines start inside one, the lines across two rows (seams) are
    // streamed whole; the edges then hold only the rows the seams leave.
    let seams = match tall {
        Some(_) => 0,
        None => stream_seams(src, s, dst.rb(), d, rows, cols, strips, head),
    };
    let (s0, d0) = (s + head * src_stride, d + head);
    let (mut along_rows, (mut tr, mut tc)) = tiling::<T>(src_stride, dst_stride);
    // Tall strips' dense rows of half a line are whole lines two by two.
    let whole_lines = (dst_stride * T::SIZE).is_multiple_of(CACHE_LINE)
        || (tall.is_some() && dst_stride * T::SIZE == CACHE_LINE / 2);
    if strips.streaming() && along_rows && whole_lines {
        // Streamed rows of whole lines: each strip writes its lines whole, so no partly written
        // line waits in the cache for the sweep to come back, and the sweep runs the rows end to
        // end instead of [`SWEEP_BYTES`] at a time (measured at 256 MiB, same process, against a
        // streaming copy per thread: f32 NCHW→NHWC 0.93 → 1.00–1.01, f16 0.97 → 1.03–1.05, u8 0.94 → 0.96, f32
        // NC/32HW32 and NCDHW→NDHWC 1.02–1.05 → 1.10–1.13; one thread 1–6 % faster).
        tr = n_rows;
    }
    // Bands of a tile swept side by side, a strip of each in turn (`square_bands`).
    let mut side_by_side = false;
    if strips.streaming() && (along_rows, (tr, tc)) == (false, square_tile::<T>()) {
        // Both sides' streams far apart (a large square matrix): streamed destination lines
        // are whole and never wait in the cache, so the tile need not keep them; the source's
        // runs are swept [`SWEEP_BYTES`] long instead, `square_bands` bands of strips at a time.
        let bands = square_bands(strips);
        (along_rows, tr, tc) = (true, SWEEP_BYTES / T::SIZE, bands * strips.cols());
        side_by_side = bands > 1;
    }
    // A streamed plane reading few source runs at once (NC/32HW32's 32 channels, NDHWC with
    // C = 32) goes in the same whole-row bands: its streamed lines then go out in address order,
    // and the hardware prefetcher still follows every run (the bench's races, against the
    // strongest copy: f32 NC/32HW32 at 16 MiB 0.69–0.75 → 0.83–0.91, NCDHW→NDHWC 0.74–0.75 →
    // 0.91–0.94; at 256 MiB 1.17–1.18 → 1.26–1.30). With more runs it loses them (Intel's L2
    // streamer follows 32 streams): f32 NCHW→NHWC with C = 64 at 256 MiB fell from 1.04 of the
    // strongest copy to 0.57 in whole-row bands, so wider planes keep the sweeps; AVX2's
    // strips, measured on AMD's Zen 3, lose them past 16 runs ([`Strips::streamed_runs`]). A
    // source in the last-level cache needs no prefetcher: there 64 runs gain too (16 MiB, two
    // threads, back to back, old and new alternating: f32 NCHW→NHWC with C = 64 41–42 →
    // 47–48 GB/s, f16 39–40 → 45; measured before: at 32 MiB mixed, at 64 MiB no gain, at
    // 128 MiB 44 → 34 and 30 → 22).
    let few_runs = strips.streaming() && whole_lines && few_streamed_runs(strips, cols.extent);
    if (strips.in_cache() || few_runs) && n_rows >= WIDE_PLANE {
        // In cache, a plane of many destination rows (a matrix, NCHW→NHWC's pixels) goes in
        // bands of whole destination rows, up to 32 strips wide: the caches hold every line, so
        // the tiles that keep partly written lines near are not needed, and long bands run the
        // strips back to back (one thread, best of 3 s beside a copy of the same bytes: f32
        // 512 × 512 0.95 → 1.66 of the copy, f16 512 × 1024 1.05 → 1.44, u8 1024 × 1024
        // 0.77–0.86 → 1.04–1.08). Rows of one to four strips (64 channels) gain too, once a
        // tile's bands go in one call (1 MiB, two threads, back to back: f32 NCHW→NHWC 112 →
        // 126 GB/s, NC/32HW32 117 → 126, NCDHW→NDHWC 117 → 126, f16 NCHW→NHWC 113 → 120);
        // planes of few long rows (NHWC→NCHW's 32 channels a task) keep their tiles, 2 %
        // faster there; with 256 channels a task and more whole rows win again (f32 NHWC→NCHW
        // [1, 512, 32, 16]: tiles 85 GB/s, whole rows 108).
        (along_rows, tr, tc) = (false, n_rows, 32 * strips.cols());
    }
    let mut tile = (tr.next_multiple_of(strips.rows()), tc.next_multiple_of(strips.cols()));
    let few_long_rows = strips.in_cache() && !along_rows && n_rows < WIDE_PLANE;
    if let Some(most) = strips.in_cache_band_strips().filter(|_| few_long_rows) {
        // Bands along a few long rows (NHWC→NCHW), a tile's source kept near L1's size.
        tile.1 = tile.1.min(most * strips.cols());
    }
    // Prefetch the next tile's near side only for a streamed (large) plane whose near side is
    // the source (so `src` is the near side below): streamed destination lines never enter the
    // cache (prefetching them would only evict), and an unstreamed plane is under the streaming
    // threshold, in the caches already, where walking its lines cost more than it saved (f32
    // NCHW→NHWC at 1 MiB on one thread: 13–15 GB/s with the walk, 26–28 without, beside a
    // 47–52 GB/s copy). And only for tiles of more than two bands: with one or two, the walk
    // lost at 256 MiB on two threads (NHWC→NCHW, best of 4, walk and none alternating, two
    // runs: f16 C = 32, one band, 27.6–28.0 GB/s with it, 33.2–34.1 without; f16 C = 64, two
    // bands, 25.6–25.8 against 27.7–27.8; f32 C = 32, two bands, 28.4–29.3 against 29.7–30.3),
    // while with four and more it gains (f32 C = 64 27.8–28.6 against 27.1–27.2, C = 128
    // 27.6–27.9 against 26.9–27.2; f16 C = 128 25.6–25.8 against 24.4).
    // (And only where the strips' level gains by it: `Strips::walks_next_tile`.) Nor where the
    // source comes from the last-level cache when called back to back ([`Strips::cached_source`]):
    // on an AMD EPYC (Zen 4, AVX-512), two threads, NHWC→NCHW at 16 MiB, a scratch loop of
    // `convert` alternating three times, walked → not: f32 C = 64 41.3–41.6 → 46.7–48.0 GB/s,
    // C = 128 40.7–42.6 → 46.2–47.5; f16 C = 64 39.7–47.7 → 44.5–48.0, C = 128 37.7–38.2 →
    // 38.6–46.3.
    let walk_near = strips.walks_next_tile()
        && strips.streaming()
        && !strips.cached_source()
        && !along_rows
        && tile.0.min(n_rows) / strips.rows() > 2;
    if walk_near {
        // Such tiles sweep [`WALKED_SWEEP_BYTES`] of each destination row, not [`SWEEP_BYTES`].
        tile.1 = tile.1.min(WALKED_SWEEP_BYTES / T::SIZE).next_multiple_of(strips.cols());
    }
    let mut tiles = tiles(n_rows, n_cols, tile).peekable();
    while let Some((r_tile, c_tile)) = tiles.next() {
        let bands = match along_rows {
            true => c_tile.clone().step_by(strips.cols()),
            false => r_tile.clone().step_by(strips.rows()),
        };
        let mut next = tiles
            .peek()
            .filter(|_| walk_near)
            .map(|(r, c)| near_lines(along_rows, (s0, src_stride), (d0, dst_stride), r, c))
            .map(|lines| LineWalk::new::<T>(lines, bands.len(), src.as_ptr() as usize));
        // Strips step along the band, bands step across it: one is the other's step, swapped.
        let (down, across) =
            ((strips.rows(), strips.rows() * dst_stride), (strips.cols() * src_stride, strips.cols()));
        let ((src_step, dst_step), (src_next, dst_next), count) = match along_rows {
            true => (down, across, r_tile.len() / strips.rows()),
            false => (across, down, c_tile.len() / strips.cols()),
        };
        let band = |band: usize, repeat: usize| {
            let (r, c) = if along_rows { (r_tile.start, band) } else { (band, c_tile.start) };
            let (from, to) = (s0 + r + c * src_stride, d0 + r * dst_stride + c);
            Band { from, src_stride, src_step, to, dst_stride, dst_step, count, repeat, src_next, dst_next }
        };
        match &mut next {
            // The next tile's lines are walked a step a band.
            Some(walk) => {
                for b in bands {
                    strips.band(src, dst.rb(), band(b, 1));
                    walk.step(src);
                }
            }
            // Side by side: one call, whose "bands" are the steps along the rows and whose
            // strips are one of each of the tile's bands.
            None if side_by_side => {
                let (src_step, dst_step, src_next, dst_next) = (src_next, dst_next, src_step, dst_step);
                let (count, repeat) = (bands.len(), count);
                let b =
                    Band { src_step, dst_step, count, src_next, dst_next, repeat, ..band(c_tile.start, 1) };
                strips.band(src, dst.rb(), b);
            }
            // Otherwise the tile's bands go in one call.
            None => {
                let first = bands.clone().next().unwrap_or_default();
                strips.band(src, dst.rb(), band(first, bands.len()));
            }
        }
    }
    // The edges: columns before the first whole line and after the last whole strip, then the
    // rows below the last whole strip.
    let mut part = |r: Range<usize>, c: Range<usize>| {
        let (sub_rows, sub_cols) =
            (LoopAxis { extent: r.len(), ..rows }, LoopAxis { extent: c.len(), ..cols });
        let (from, to) = (s + r.start + c.start * src_stride, d + r.start * dst_stride + c.start);
        if !r.is_empty() && !c.is_empty() {
            plane(src, from as isize, dst.rb(), to as isize, sub_rows, sub_cols);
        }
    };
    match seams {
        0 => part(0..rows.extent, 0..head),
        q => {
            part(0..1, 0..head);
            part(q + 1..rows.extent, 0..head);
        }
    }
    part(seams..rows.extent, head + n_cols..cols.extent);
    part(n_rows..rows.extent, head..head + n_cols);
    true
}

/// Bands of strips (each a destination line's source runs) that [`by_strips`] sweeps side by
/// side along a streamed large square matrix's rows (a strip of each band in turn, so that each
/// destination row takes that many lines back to back): 2 at AVX2, 1 at other levels. Streamed
/// lines one a destination row in turn, each in another DRAM page, are what holds these matrices
/// (the bench's limit probes: a streamed copy in that order moves about half what one of four
/// lines a row does). On an AMD EPYC (Zen 3), two threads, a scratch loop of `convert` (best of
/// 0.3 s, in turn twice), 1 → 2 bands, GB/s: 16 matrices at 256 MiB, f32 2048 × 2048 21.5–22.2 →
/// 28.0–31.2 (one thread 12.3–12.6 → 15.5–17.4), f16 19.0–19.7 → 21.2–23.6, u8 even (18.0–21.1
/// against 19.5–20.1); 4 matrices at 16 MiB, f32 23.6–26.0 → 38.2–41.4, f16 20.3–20.9 →
/// 25.0–26.0, u8 19.4–19.6 → 24.2–24.8. Four bands were no better than two (f32 at 256 MiB
/// 29.6–29.9, u8 17.4–18.2); AVX-512's strips were not measured.
fn square_bands(strips: Strips) -> usize {
    match strips.level() {
        Level::Avx2 => 2,
        _ => 1,
    }
}

/// Whether a streamed plane of `runs` source runs reads few enough at once for [`by_strips`] to
/// sweep it in whole-row bands: [`MAX_CACHED_RUNS`] where its source comes from the last-level
/// cache, [`Strips::streamed_runs`] from memory.
pub(super) fn few_streamed_runs(strips: Strips, runs: usize) -> bool {
    let most = match strips.cached_source() {
        true => MAX_CACHED_RUNS,
        false => strips.streamed_runs(),
    };
    runs <= most
}
