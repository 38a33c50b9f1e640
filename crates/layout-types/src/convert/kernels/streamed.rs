//! The ways out above the SSE2 blocks: strips that write whole destination lines
//! ([`by_strips`]); for streamed planes the cache-resident staging of panels of whole rows
//! ([`by_panels`]) and of tiles ([`by_staged_tiles`]); and the staging of source runs that the
//! caches cannot hold together ([`by_staged_source`]).

use super::line_walk::{prefetch, LineWalk};
use super::{line_offset, near_lines, plane, square_tile, tiles, tiling, transpose, CACHE_LINE, SWEEP_BYTES};
use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd::strips::{Band, Strips};
use crate::platform::simd::{self, Stores};
use core::ops::Range;

/// Bytes of destination a panel stages in the cache before streaming it out.
const PANEL_BYTES: usize = 64 << 10;

/// Destination rows of at most this many bytes that are not whole lines starting on one are
/// staged in panels (a panel holds at least 64 of them). Streamed from the strips instead, such rows end and start inside
/// lines, which then take ordinary stores: at 128 bytes, as this was, 256 MiB NCHW→NHWC with
/// rows of 160 to 800 bytes (f32 C = 40, 72, 100, 200; f16 C = 80, 100) ran at 0.33–0.47 of a
/// streaming copy, through panels at 0.53–0.81 (same process).
const PANEL_ROW_BYTES: usize = 1024;

/// A panel's staging buffer, on cache-line boundaries.
#[repr(C, align(64))]
struct Staging([u8; PANEL_BYTES]);

/// A streamed plane whose destination rows are dense, narrow, and share cache lines (NHWC with
/// C = 3: a line holds parts of several rows, or of two where the rows are not whole lines or
/// the buffer does not start on one): panels of whole rows, each transposed into a
/// cache-line-aligned staging buffer with ordinary stores, then streamed out as one contiguous
/// run (whose unaligned ends take ordinary stores); one fence at the end. Returns `false`,
/// having written nothing, for any other plane.
///
/// Rows of whole lines that start on one go to the strips instead, which stream each line
/// straight from a register (256 MiB NCHW→NHWC, same process, panels → strips: rows of 64
/// bytes f32 C = 16 0.95 → 1.34 of a streaming copy per thread, f16 C = 32 0.86–0.90 →
/// 1.25–1.28, u8 C = 64 0.59–0.69 → 0.89–0.93; rows of 128 bytes f16 C = 64 0.72–0.75 →
/// 0.93–0.98, u8 C = 128 0.45 → 0.78). So do rows of half a line starting on one, where tall
/// strips stream them two by two (two threads, back to back, best of three alternations,
/// panels → tall strips: at 256 MiB u8 NCDHW→NDHWC with C = 32 28.8 → 35.3 GB/s,
/// NCHW→NC/32HW32 26.4 → 29.7, f32 NCHW→NHWC with C = 8 34.2 → 50.4, f16 with C = 16 33.6 →
/// 45.2; at 16 MiB 37.0 → 42.2, 38.1 → 44.6, 50.7 → 57.1, 48.4 → 54.0).
pub(super) fn by_panels<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    let width = cols.extent;
    let row_bytes = width * T::SIZE;
    let on_line = dst.address(d).is_multiple_of(CACHE_LINE);
    let whole_lines = row_bytes.is_multiple_of(CACHE_LINE) && on_line && strips.has_blocks();
    let half_lines = row_bytes == CACHE_LINE / 2 && on_line && strips.tall().is_some();
    let dense = rows.dst as usize == width;
    if !strips.streaming() || !dense || row_bytes > PANEL_ROW_BYTES || whole_lines || half_lines {
        return false;
    }
    let mut staging = Staging([0; PANEL_BYTES]);
    let buf: &mut [T] = bytemuck::cast_slice_mut(&mut staging.0[..]);
    let panel = PANEL_BYTES / row_bytes;
    let ordinary = strips.with_stores(Stores::Ordinary);
    for r in (0..rows.extent).step_by(panel) {
        let n = panel.min(rows.extent - r);
        let part = LoopAxis { extent: n, ..rows };
        let staged = &mut buf[..n * width];
        transpose(src, (s + r) as isize, Out::new(staged), 0, part, cols, Some(ordinary));
        simd::stream_unfenced(dst.at(d + r * width..d + (r + n) * width), staged);
    }
    simd::fence();
    true
}

/// A plane whose strips read many source runs at once from where the caches cannot hold them
/// together: panels of [`PANEL_BYTES`] are first copied run by run into a staging buffer, each
/// run an odd number of lines after the last (so the runs fall in different cache sets), and
/// the strips then read from there. Returns `false`, having written nothing, for any other
/// plane. Two kinds of plane are staged ([`staged_runs`] decides):
///
/// - **Streamed, runs far apart in memory** (NCHW→NHWC's channel planes of u8 with C = 64;
///   bytes: more runs than the L2 streamer follows, a destination line's worth). Read in place,
///   the runs of such a plane lie a multiple of the L2's set period apart when transparent huge
///   pages back the source (256 KiB here): each strip's 64 lines then compete for one set of 16
///   ways, and what the prefetcher brings is evicted before use (u8 NCHW→NHWC at 256 MiB, two
///   threads: 14.7 GB/s with huge pages, 25.1 with small ones). Staged, the bench's races, in
///   place and staged alternating twice: with huge pages 21.1–22.2 → 28.7–29.0 GB/s (0.63–0.65
///   → 0.82–0.86 of the strongest copy), with small pages 21.9–26.3 → 25.3–26.0. The copy
///   prefetches [`RUNS_AHEAD`].
/// - **All runs in one L1 set, more of them than it has ways** (AVX2's strips:
///   [`Strips::stages_aliased_runs`]): runs a multiple of [`L1_SET_PERIOD`] apart (NCHW's and
///   NCDHW's channel planes of a multiple of 4 KiB into NHWC, NDHWC or NC/32HW32), at least a
///   strip's columns of them into a destination starting on a line, [`WIDE_PLANE`] rows at
///   least; in cache, or streamed from the last-level cache ([`Strips::cached_source`]) with at
///   most [`MAX_CACHED_RUNS`] runs into rows of whole lines. A strip reads one register of each
///   of its 16–64 runs and the next strip the rest of the same lines: read in place, the runs
///   evict each other in between and every line comes twice from L2 or L3 (`perf`: the loads of
///   the runs took most of the time). On an AMD EPYC (Zen 3, 8-way L1), a scratch loop of
///   `convert`, in place → staged, one thread: 1 MiB NCHW→NHWC with C = 64 u8 13.9–15.8 →
///   18.2–21.4 GB/s, f16 13.8–15.8 → 25.2–30.4, f32 12.1–12.6 → 25.2–28.4; 16 MiB u8 4.2–5.2 →
///   8.0–8.7, f16 4.7–6.2 → 10.3–16.3 (BENCHMARKS.md, issue 23 step 18, has every row). Measured
///   slower staged, and so read in place: runs that share a few sets only (1 or 2 KiB planes,
///   a 1024-wide u8 matrix: 10–20 % lost); from the last-level cache, half-line rows (u8
///   NC/32HW32's tall strips, two threads: a third lost) and more than 64 runs (f32 C = 1024,
///   256 × 4096 and 1024 × 1024 f32 matrices: a third lost).
pub(super) fn by_staged_source<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    let Some(why) = staged_runs::<T>(dst.address(d), rows, cols, strips) else { return false };
    let (runs, src_stride, dst_stride) = (cols.extent, cols.src as usize, rows.dst as usize);
    let line = CACHE_LINE / T::SIZE;
    // The runs a strip reads go together; of each, a panel holds whole lines, four at least
    // (`staged_runs` checked), and the runs lie an odd number of lines apart.
    let group = strips.cols().min(runs);
    let pitch = staging_pitch::<T>(group);
    let staged = pitch - line;
    let mut staging = Staging([0; PANEL_BYTES]);
    let buf: &mut [T] = bytemuck::cast_slice_mut(&mut staging.0[..]);
    // The staged panel's source is in the cache: its strips take the in-place ways.
    let cached = strips.with_cached_source(0);
    for c0 in (0..runs).step_by(group) {
        let k = group.min(runs - c0);
        for r in (0..rows.extent).step_by(staged) {
            let n = staged.min(rows.extent - r);
            for c in 0..k {
                let from = s + r + (c0 + c) * src_stride;
                // From memory, the run `RUNS_AHEAD` on is asked for while this one is copied.
                if why == StagedRuns::FarInMemory && c + RUNS_AHEAD < k {
                    let next = from + RUNS_AHEAD * src_stride;
                    (next..next + n).step_by(line).filter_map(|at| src.get(at)).for_each(prefetch);
                }
                buf[c * pitch..c * pitch + n].copy_from_slice(&src[from..from + n]);
            }
            let part_rows = LoopAxis { extent: n, src: 1, ..rows };
            let part_cols = LoopAxis { extent: k, src: pitch as isize, ..cols };
            let to = (d + r * dst_stride + c0) as isize;
            // The staged runs lie an odd number of lines apart (never a multiple of 4 KiB) in a
            // cached buffer, so this does not stage them again.
            transpose(buf, 0, dst.rb(), to, part_rows, part_cols, Some(cached));
        }
    }
    true
}

/// Why [`by_staged_source`] stages a plane's source runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StagedRuns {
    /// Streamed, many runs far apart in memory (bytes).
    FarInMemory,
    /// In cache, or streamed from the last-level cache, all runs in one L1 set.
    OneL1Set,
}

/// Whether, and why, [`by_staged_source`] stages the source runs of the plane `rows` × `cols`
/// whose destination starts at address `to` (the conditions its doc gives).
pub(super) fn staged_runs<T: Element>(
    to: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> Option<StagedRuns> {
    let (runs, dst_stride) = (cols.extent, rows.dst as usize);
    let src_stride = usize::try_from(cols.src).ok().filter(|&s| s > 0)?;
    let on_line = to.is_multiple_of(CACHE_LINE);
    let whole_lines = (dst_stride * T::SIZE).is_multiple_of(CACHE_LINE) && on_line;
    let group = strips.cols().min(runs);
    // Each run's share of a panel must hold four lines past the one that sets runs apart.
    if runs == 0 || staging_pitch::<T>(group) < 5 * (CACHE_LINE / T::SIZE) {
        return None;
    }
    let far_in_memory = strips.streaming()
        && !strips.cached_source()
        && strips.cols() > MAX_STREAMED_RUNS
        && src_stride * T::SIZE >= FAR_RUN_BYTES
        && whole_lines;
    if far_in_memory {
        return Some(StagedRuns::FarInMemory);
    }
    // Whole strips to read the staged runs: a strip's columns (a tall one's, the fewest), on a
    // destination line, and enough rows for the in-cache sweep.
    let strip_cols = strips.tall().map_or(strips.cols(), |t| t.cols());
    let strips_fit = runs >= strip_cols && on_line && rows.extent >= WIDE_PLANE;
    let from_l3 = strips.streaming() && strips.cached_source() && whole_lines && runs <= MAX_CACHED_RUNS;
    let one_set = strips.stages_aliased_runs()
        && (strips.in_cache() || from_l3)
        && strips_fit
        && group > L1_WAYS
        && (src_stride * T::SIZE).is_multiple_of(L1_SET_PERIOD);
    one_set.then_some(StagedRuns::OneL1Set)
}

/// Elements from one staged run's start to the next in a panel of `group` runs: an odd number
/// of lines (so the runs fall in different cache sets), as many as [`PANEL_BYTES`] allows.
fn staging_pitch<T: Element>(group: usize) -> usize {
    let line = CACHE_LINE / T::SIZE;
    ((PANEL_BYTES / T::SIZE / group.max(1) / line).saturating_sub(1) | 1) * line
}

/// Runs ahead of the one it copies that [`by_staged_source`] prefetches where the source comes
/// from memory: the copy's 64 streams are more than the hardware prefetchers follow. u8
/// NCHW→NHWC at 256 MiB, a scratch loop of `convert` (best of 5 × 2 calls), none and 8 runs
/// ahead alternating six times, one thread: 6.7–10.2 → 8.3–12.1 GB/s (4 and 16 runs ahead
/// gained less); two threads, four times, 14.3–20.6 → 15.3–21.5. In cache and from L3 it cost
/// (1 MiB f32 NCHW→NHWC, one thread: 24.4–32.3 → 20.3–22.1), so those copy without it.
const RUNS_AHEAD: usize = 8;

/// Ways of an L1 data cache set on this machine class: the fewer of AMD's Zen 3 (8) and recent
/// Intel cores (12), so that runs which overfill the smaller set are staged on both.
const L1_WAYS: usize = 8;

/// Bytes after which an L1 data cache's sets repeat (64 sets of 64-byte lines): runs a multiple
/// of it apart put their lines at one offset all in one set.
const L1_SET_PERIOD: usize = 4096;

/// Bytes apart from which source runs count as far for [`by_staged_source`]: half the L2's set
/// period (128 KiB here), past which huge pages put many runs in one set. Runs a page apart
/// spread over the sets and read faster in place (a 4096-wide u8 matrix's rows into columns at
/// 256 MiB, two threads, alternating twice: 25.5–25.6 GB/s in place, 22.4–22.9 staged).
const FAR_RUN_BYTES: usize = 64 << 10;

/// Destination rows a plane has at least, for [`by_strips`] to sweep it in whole-row bands
/// (in cache, or streamed with few source runs).
pub(super) const WIDE_PLANE: usize = 256;

/// Source runs a streamed plane reads at once at most, for [`by_strips`] to sweep it in
/// whole-row bands.
const MAX_STREAMED_RUNS: usize = 32;

/// [`MAX_STREAMED_RUNS`] where the source is in the last-level cache.
const MAX_CACHED_RUNS: usize = 64;

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

/// Destination rows of a staged tile.
const STAGED_ROWS: usize = 64;

/// A streamed plane whose destination rows are long (NHWC→NCHW's planes, a matrix's columns)
/// and whose strips do not stream directly (bytes: a strip of whole lines is two blocks of 32
/// registers; or no strips, bytes below AVX2): tiles of [`STAGED_ROWS`] destination rows by as many whole
/// destination lines as fill [`PANEL_BYTES`] are transposed into a staging buffer (ordinary
/// stores), then each tile row is streamed out. Returns `false`, having written nothing,
/// for any other plane.
pub(super) fn by_staged_tiles<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let line = CACHE_LINE / T::SIZE;
    // A large square matrix with strips sweeps the source instead (`by_strips`): measured
    // better than these tiles, whose 1024 source runs are one line each.
    let square = tiling::<T>(src_stride, dst_stride) == (false, square_tile::<T>());
    let direct = strips.streams_directly() || (square && strips.has_blocks());
    if !strips.streaming() || direct || cols.extent < 4 * line {
        return false;
    }
    let tile_rows = STAGED_ROWS.min(rows.extent);
    let tile_cols = (PANEL_BYTES / T::SIZE / tile_rows / line * line).max(line);
    let mut staging = Staging([0; PANEL_BYTES]);
    let buf: &mut [T] = bytemuck::cast_slice_mut(&mut staging.0[..]);
    for r0 in (0..rows.extent).step_by(tile_rows) {
        let n_rows = tile_rows.min(rows.extent - r0);
        for c0 in (0..cols.extent).step_by(tile_cols) {
            let n_cols = tile_cols.min(cols.extent - c0);
            let staged = &mut buf[..n_rows * n_cols];
            let part_rows = LoopAxis { extent: n_rows, src: 1, dst: n_cols as isize };
            let part_cols = LoopAxis { extent: n_cols, ..cols };
            let from = (s + r0 + c0 * src_stride) as isize;
            let ordinary = Some(strips.with_stores(Stores::Ordinary));
            transpose(src, from, Out::new(staged), 0, part_rows, part_cols, ordinary);
            for (r, row) in staged.chunks_exact(n_cols).enumerate() {
                let to = d + (r0 + r) * dst_stride + c0;
                simd::stream_unfenced(dst.at(to..to + n_cols), row);
            }
        }
    }
    simd::fence();
    true
}

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
    if strips.streaming() && (along_rows, (tr, tc)) == (false, square_tile::<T>()) {
        // Both sides' streams far apart (a large square matrix): streamed destination lines
        // are whole and never wait in the cache, so the tile need not keep them; the source's
        // runs are swept [`SWEEP_BYTES`] long instead, a band of strips at a time.
        (along_rows, tr, tc) = (true, SWEEP_BYTES / T::SIZE, strips.cols());
    }
    // A streamed plane reading few source runs at once (NC/32HW32's 32 channels, NDHWC with
    // C = 32) goes in the same whole-row bands: its streamed lines then go out in address order,
    // and the hardware prefetcher still follows every run (the bench's races, against the
    // strongest copy: f32 NC/32HW32 at 16 MiB 0.69–0.75 → 0.83–0.91, NCDHW→NDHWC 0.74–0.75 →
    // 0.91–0.94; at 256 MiB 1.17–1.18 → 1.26–1.30). With more runs it loses them (Intel's L2
    // streamer follows 32 streams): f32 NCHW→NHWC with C = 64 at 256 MiB fell from 1.04 of the
    // strongest copy to 0.57 in whole-row bands, so wider planes keep the sweeps. A source in
    // the last-level cache needs no prefetcher: there 64 runs gain too (16 MiB, two threads,
    // back to back, old and new alternating: f32 NCHW→NHWC with C = 64 41–42 → 47–48 GB/s, f16
    // 39–40 → 45; measured before: at 32 MiB mixed, at 64 MiB no gain, at 128 MiB 44 → 34 and
    // 30 → 22).
    let most_runs = match strips.cached_source() {
        true => MAX_CACHED_RUNS,
        false => MAX_STREAMED_RUNS,
    };
    let few_runs = strips.streaming() && whole_lines && cols.extent <= most_runs;
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
    // (And only where the strips' level gains by it: `Strips::walks_next_tile`.)
    let walk_near = strips.walks_next_tile()
        && strips.streaming()
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
    part(0..rows.extent, 0..head);
    part(0..rows.extent, head + n_cols..cols.extent);
    part(n_rows..rows.extent, head..head + n_cols);
    true
}
