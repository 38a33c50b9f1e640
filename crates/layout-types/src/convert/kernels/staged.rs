//! Ways that stage a plane in a cache-resident buffer: the source runs the caches cannot hold
//! together ([`by_staged_source`]), and for streamed planes panels of whole narrow rows
//! ([`by_panels`]) and tiles of long rows ([`by_staged_tiles`]), streamed out from there.

use super::line_walk::prefetch;
use super::next_tile::NextTile;
use super::strip_sweep::{by_strips, MAX_CACHED_RUNS, WIDE_PLANE};
use super::{square_tile, tiling, transpose, Staging, CACHE_LINE, PANEL_BYTES};
use crate::dtype::Element;
use crate::loops::LoopAxis;
use crate::platform::out::Out;
use crate::platform::simd::strips::{Strips, L1_SET_PERIOD, L1_WAYS};
use crate::platform::simd::{self, Level, Stores};

/// Destination rows of at most this many bytes that are not whole lines starting on one are
/// staged in panels (a panel holds at least 64 of them). Streamed from the strips instead, such
/// rows end and start inside lines, which then take ordinary stores: at 128 bytes, as this was,
/// 256 MiB NCHW→NHWC with rows of 160 to 800 bytes (f32 C = 40, 72, 100, 200; f16 C = 80, 100)
/// ran at 0.33–0.47 of a streaming copy, through panels at 0.53–0.81 (same process).
const PANEL_ROW_BYTES: usize = 1024;

/// A streamed plane whose destination rows are dense, narrow, and share cache lines (NHWC with
/// C = 3: a line holds parts of several rows, or of two where the rows are not whole lines or
/// the buffer does not start on one): panels of whole rows, each transposed into a
/// cache-line-aligned staging buffer with ordinary stores, then streamed out as one contiguous
/// run (whose unaligned ends take ordinary stores); one fence at the end. Returns `false`,
/// having written nothing, for any other plane.
///
/// Rows of two or more whole lines that do not start on one go to the strips too, where the
/// strips stream directly ([`Strips::streams_directly`]): they stream every line but the seams
/// across two rows, which `seams::stream_seams` assembles and streams (256 MiB NCHW→NHWC into a
/// destination 16 bytes past a line, two threads, AVX-512 on an AMD EPYC, a scratch loop of
/// `convert` alternating three times, panels → strips and seams: f32 C = 64 23.7–26.7 →
/// 26.4–36.7 GB/s, C = 256 16.9–18.5 → 34.0–46.1, f64 C = 32 25.1–31.4 → 31.3–34.6; at
/// 16 MiB f32 C = 64 30.0–43.5 → 40.4–48.7; f32 C = 32 and f16 C = 64 even; with the level
/// forced to AVX2 on the same machine, 256 MiB f32 C = 64 27.4–28.4 → 38.4–40.3, C = 256
/// 23.4–24.5 → 33.6–38.5, f64 C = 32 32.4–33.5 → 33.8–39.5; Zen 3 was not measured). Rows of
/// one line keep the panels (f32 C = 16: 26.6–31.4 against seams' 22.8–24.5).
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
    // Rows of whole lines go to the strips where they start on a line, and where they do not
    // but are two lines at least and the strips stream them directly, writing the lines across
    // two rows whole (`seams::stream_seams`).
    let seamed = row_bytes >= 2 * CACHE_LINE && strips.streams_directly(rows.extent);
    let whole_lines = row_bytes.is_multiple_of(CACHE_LINE) && ((on_line && strips.has_blocks()) || seamed);
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
/// together: panels of [`PANEL_BYTES`] ([`FAR_PANEL_BYTES`] of far runs from memory, where the
/// strips take them) are first copied run by run into a staging buffer, each
/// run an odd number of lines after the last (so the runs fall in different cache sets), and
/// the strips then read from there. Returns `false`, having written nothing, for any other
/// plane. Two kinds of plane are staged ([`staged_runs`] decides):
///
/// - **Streamed, runs far apart in memory** (NCHW→NHWC's channel planes of u8 with C = 64),
///   where a strip reads more of them than the prefetchers follow ([`Strips::streamed_runs`]:
///   bytes, a destination line's worth; at AVX2 halves too, and bytes into dense rows of half a
///   line, whose tall strips read 32) and the strips gain by it ([`Strips::stages_far_runs`]:
///   measured on an Intel Xeon, and for AVX2's on an AMD EPYC, Zen 3, but for runs that start
///   on lines). Read in place, the runs of such a plane lie a multiple of the L2's set period
///   apart when transparent huge pages back the source (256 KiB on the machine measured):
///   each strip's 64 lines then compete for one set of 16
///   ways, and what the prefetcher brings is evicted before use (u8 NCHW→NHWC at 256 MiB, two
///   threads: 14.7 GB/s with huge pages, 25.1 with small ones). Staged, the bench's races, in
///   place and staged alternating twice: with huge pages 21.1–22.2 → 28.7–29.0 GB/s (0.63–0.65
///   → 0.82–0.86 of the strongest copy), with small pages 21.9–26.3 → 25.3–26.0. The copy
///   prefetches [`RUNS_AHEAD`].
/// - **All runs in one L1 set, more of them than it has ways** (AVX2's strips, but on AMD's cores,
///   which read such runs through tiles of four lines instead: in cache without coming here, and
///   from the last-level cache through [`by_strips`] from here where not tall; AVX-512's tall byte
///   ones on AMD's cores: [`Strips::stages_aliased_runs`]): runs a multiple of [`L1_SET_PERIOD`]
///   apart (NCHW's and NCDHW's channel planes of a multiple of 4 KiB into NHWC, NDHWC or
///   NC/32HW32), at least a strip's columns of them into a destination starting on a line,
///   [`WIDE_PLANE`] rows at least; in cache, or streamed from the last-level cache
///   ([`Strips::cached_source`]) with at most [`MAX_CACHED_RUNS`] runs into rows of whole lines. A
///   strip reads one register of each of its 16–64 runs and the next strip the rest of the same
///   lines: read in place, the runs evict each other in between and every line comes twice from L2
///   or L3 (`perf`: the loads of the runs took most of the time). On an AMD EPYC (Zen 3, 8-way L1),
///   a scratch loop of `convert`, in place → staged, one thread: 1 MiB NCHW→NHWC with C = 64 u8
///   13.9–15.8 → 18.2–21.4 GB/s, f16 13.8–15.8 → 25.2–30.4, f32 12.1–12.6 → 25.2–28.4; 16 MiB u8
///   4.2–5.2 → 8.0–8.7, f16 4.7–6.2 → 10.3–16.3 (BENCHMARKS.md, issue 23 step 18, has every row).
///   Measured slower staged, and so read in place: runs that share a few sets only (1 or 2 KiB
///   planes, a 1024-wide u8 matrix: 10–20 % lost); from the last-level cache, half-line rows (u8
///   NC/32HW32's tall strips, two threads: a third lost) and more than 64 runs (f32 C = 1024, 256 ×
///   4096 and 1024 × 1024 f32 matrices: a third lost).
pub(super) fn by_staged_source<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    let from = src.as_ptr().wrapping_add(s) as usize;
    let Some(why) = staged_runs::<T>([from, dst.address(d)], rows, cols, strips) else { return false };
    // Streamed from the last-level cache, AVX2's bytes, halves and words on AMD's cores read such
    // runs through tiles instead (`Strips::tiling_cached_source` has the figures), where the
    // strips are not tall.
    let tiles = why == StagedRuns::OneL1Set && cols.extent >= strips.cols();
    if let Some(tiled) = strips.tiling_cached_source().filter(|_| tiles) {
        return by_strips(src, s, dst, d, rows, cols, tiled);
    }
    let plane = (src, s, dst.rb(), d, rows, cols);
    match why {
        StagedRuns::FarInMemory if strips.long_far_panels() => {
            with_far_panel(|buf| stage_panels(plane, strips, why, buf))
        }
        _ => stage_panels(plane, strips, why, &mut Staging([0; PANEL_BYTES]).0),
    }
    true
}

/// Bytes of a panel of far runs from memory ([`by_staged_source`]) where the strips take long
/// ones ([`Strips::long_far_panels`]): four times [`PANEL_BYTES`], so that each run's copy is one
/// long read (about 4 KiB of each of 64 runs, 8 KiB of each of 32). On an AMD
/// EPYC (Zen 3), two threads, at 256 MiB, the bench's races (`-- "256MiB/NC"`), 64 and 256 KiB
/// in turn twice: f16 NCHW→NHWC 15.3, 17.0 → 17.9, 18.5 GB/s, NC/32HW32 15.1, 15.4 → 20.0, 19.7,
/// NCDHW→NDHWC 17.4, 16.4 → 18.0, 18.1; u8 even (NCHW→NHWC 16.9, 16.6 → 18.1, 16.5,
/// NC/32HW32 16.1, 15.0 → 16.9, 13.9, NCDHW→NDHWC 14.7, 15.8 → 15.2, 15.3).
pub(super) const FAR_PANEL_BYTES: usize = 4 * PANEL_BYTES;

/// Runs `f` on a line-aligned buffer of [`FAR_PANEL_BYTES`]: this thread's own, kept from call to
/// call (too large for every caller's stack, and allocated once, not a plane at a time), or a
/// new one where this thread's is in use.
pub(super) fn with_far_panel(f: impl FnOnce(&mut [u8])) {
    std::thread_local! {
        static PANEL: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
    }
    fn lend(buf: &mut Vec<u8>, f: impl FnOnce(&mut [u8])) {
        buf.resize(FAR_PANEL_BYTES + CACHE_LINE, 0);
        let at = buf.as_ptr().align_offset(CACHE_LINE).min(CACHE_LINE);
        f(&mut buf[at..at + FAR_PANEL_BYTES]);
    }
    let mut f = Some(f);
    // This thread's buffer where it has one to lend (not while a destructor of its thread-locals
    // runs, nor while it is lent already), else a new one.
    let _ = PANEL.try_with(|panel| {
        if let Ok(mut held) = panel.try_borrow_mut() {
            // Taken only once the buffer is lent: otherwise the new one below runs it.
            if let Some(f) = f.take() {
                lend(&mut held, f);
            }
        }
    });
    if let Some(f) = f {
        lend(&mut Vec::new(), f);
    }
}

/// [`by_staged_source`]'s panels through `bytes` (line-aligned, a multiple of a line).
fn stage_panels<T: Element>(
    (src, s, mut dst, d, rows, cols): (&[T], usize, Out<'_, T>, usize, LoopAxis, LoopAxis),
    strips: Strips,
    why: StagedRuns,
    bytes: &mut [u8],
) {
    let (runs, src_stride, dst_stride) = (cols.extent, cols.src as usize, rows.dst as usize);
    let line = CACHE_LINE / T::SIZE;
    // The runs a strip reads go together; of each, a panel holds whole lines, four at least
    // (`staged_runs` checked), and the runs lie an odd number of lines apart.
    let group = strips.cols().min(runs);
    let pitch = staging_pitch::<T>(group, bytes.len());
    let staged = pitch - line;
    let buf: &mut [T] = bytemuck::cast_slice_mut(bytes);
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
}

/// Why [`by_staged_source`] stages a plane's source runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StagedRuns {
    /// Streamed, many runs far apart in memory (bytes; at AVX2 halves too).
    FarInMemory,
    /// In cache, or streamed from the last-level cache, all runs in one L1 set.
    OneL1Set,
}

/// Whether, and why, [`by_staged_source`] stages the source runs of the plane `rows` × `cols`
/// whose source starts at address `from` and destination at `to` (the conditions its doc gives).
pub(super) fn staged_runs<T: Element>(
    [from, to]: [usize; 2],
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
    if runs == 0 || staging_pitch::<T>(group, PANEL_BYTES) < 5 * (CACHE_LINE / T::SIZE) {
        return None;
    }
    // The runs a strip reads at once: a line of destination columns, or a tall strip's half
    // line (destination rows of half a line on one, NC/32HW32's of int8, which tall strips
    // stream two by two).
    let tall_rows =
        strips.tall().filter(|t| runs >= t.cols() && on_line && dst_stride * T::SIZE == CACHE_LINE / 2);
    let half_lines = tall_rows.is_some();
    let strip_runs = tall_rows.map_or(strips.cols(), |t| t.cols());
    let runs_on_lines = from.is_multiple_of(CACHE_LINE) && (src_stride * T::SIZE).is_multiple_of(CACHE_LINE);
    let far_in_memory = strips.stages_far_runs(runs_on_lines)
        && strips.streaming()
        && !strips.cached_source()
        && strip_runs > strips.streamed_runs()
        && src_stride * T::SIZE >= FAR_RUN_BYTES
        && (whole_lines || half_lines);
    if far_in_memory {
        return Some(StagedRuns::FarInMemory);
    }
    // Whole strips to read the staged runs: a strip's columns (a tall one's, the fewest), on a
    // destination line, and enough rows for the in-cache sweep.
    let strip_cols = strips.tall().map_or(strips.cols(), |t| t.cols());
    let strips_fit = runs >= strip_cols && on_line && rows.extent >= WIDE_PLANE;
    let from_l3 = strips.streaming() && strips.cached_source() && whole_lines && runs <= MAX_CACHED_RUNS;
    // The strips `by_strips` takes for these runs: tall ones where the rows are short.
    let tall = strips.tall().is_some() && runs < strips.cols();
    let one_set = strips.stages_aliased_runs(tall)
        && (strips.in_cache() || from_l3)
        && strips_fit
        && group > L1_WAYS
        && (src_stride * T::SIZE).is_multiple_of(L1_SET_PERIOD);
    one_set.then_some(StagedRuns::OneL1Set)
}

/// Elements from one staged run's start to the next in a panel of `group` runs: an odd number
/// of lines (so the runs fall in different cache sets), as many as a panel of `bytes` allows.
fn staging_pitch<T: Element>(group: usize, bytes: usize) -> usize {
    let line = CACHE_LINE / T::SIZE;
    ((bytes / T::SIZE / group.max(1) / line).saturating_sub(1) | 1) * line
}

/// Runs ahead of the one it copies that [`by_staged_source`] prefetches where the source comes
/// from memory: the copy's 32 or 64 streams are more than the hardware prefetchers follow. u8
/// NCHW→NHWC at 256 MiB, a scratch loop of `convert` (best of 5 × 2 calls), none and 8 runs
/// ahead alternating six times, one thread: 6.7–10.2 → 8.3–12.1 GB/s (4 and 16 runs ahead
/// gained less); two threads, four times, 14.3–20.6 → 15.3–21.5. In cache and from L3 it cost
/// (1 MiB f32 NCHW→NHWC, one thread: 24.4–32.3 → 20.3–22.1), so those copy without it.
const RUNS_AHEAD: usize = 8;

/// Bytes apart from which source runs count as far for [`by_staged_source`]: half the L2's set
/// period (128 KiB here), past which huge pages put many runs in one set. Runs a page apart
/// spread over the sets and read faster in place (a 4096-wide u8 matrix's rows into columns at
/// 256 MiB, two threads, alternating twice: 25.5–25.6 GB/s in place, 22.4–22.9 staged).
const FAR_RUN_BYTES: usize = 64 << 10;

/// Destination rows of a staged tile.
const STAGED_ROWS: usize = 64;

/// Bytes apart from which a plane's source runs are too far for [`by_staged_tiles`]
/// ([`staged_tiles`] has the figures): a page.
const TILE_FAR_RUN_BYTES: usize = 4 << 10;

/// Bytes apart from which AVX2's halves' source runs are too far for [`by_staged_tiles`]: two
/// pages, their tiles prefetching every next run ([`staged_tiles`]). On an AMD EPYC (Zen 3), f16
/// NCHW→NHWC at 256 MiB, a scratch loop of `to_layout_into` (best of 0.5 s), the two builds in
/// turn twice, strips → staged tiles, one thread (two), GB/s: C = 128 56 × 56 images (runs 6272
/// bytes apart) 12.6–12.9 → 14.3 (23.6–24.6 → 28.5–28.7), 48 × 48 11.8–12.2 → 14.0 (18.9–23.8 →
/// 27.7–28.1); C = 64 56 × 56 and C = 256 50 × 50 even; 64 × 64 (two pages) kept the strips.
const HALVES_TILE_FAR_RUN_BYTES: usize = 8 << 10;

/// Bytes apart that a staged tile's source runs lie at most for the next tile's to be prefetched
/// run by run at every level that prefetches ([`staged_tiles`]; AVX2's halves, all): the
/// farthest measured (f16 NHWC→NCHW with C = 128). (The strips' own `NEAR_RUN_BYTES`, in
/// `platform::simd`, has the same value and another use.)
const PREFETCHED_RUN_BYTES: usize = 256;

/// A streamed plane whose destination rows are long (NHWC→NCHW's planes, a matrix's columns),
/// whose source runs lie within [`TILE_FAR_RUN_BYTES`] (AVX2's halves:
/// [`HALVES_TILE_FAR_RUN_BYTES`]) where strips take them, and whose
/// strips do not stream directly ([`Strips::streams_directly`]: bytes but AVX-512's on
/// AMD's cores with a strip's rows, AVX2's halves, and bytes below AVX2, which have no strips),
/// or whose tiles' sources are contiguous blocks that the tiles prefetch
/// ([`Strips::stages_contiguous_sources`]: at AVX2, 4- and 8-byte elements too): tiles of
/// [`STAGED_ROWS`] destination rows by the most whole destination lines, an odd number of them,
/// that fit in [`PANEL_BYTES`] are transposed into a staging buffer (ordinary stores), then each
/// tile row is streamed out, and where the strips prefetch and the source runs are contiguous
/// or near ([`PREFETCHED_RUN_BYTES`]; AVX2's halves, any), the next tile's runs are asked for
/// meanwhile ([`staged_tiles`] decides). Returns `false`, having written nothing, for any other
/// plane.
pub(super) fn by_staged_tiles<T: Element>(
    src: &[T],
    s: usize,
    mut dst: Out<'_, T>,
    d: usize,
    rows: LoopAxis,
    cols: LoopAxis,
    strips: Strips,
) -> bool {
    let Some(prefetched) = staged_tiles::<T>(rows, cols, strips) else { return false };
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let line = CACHE_LINE / T::SIZE;
    let tile_rows = STAGED_ROWS.min(rows.extent);
    // An odd number of lines a tile row, so that the staging buffer's rows fall in different
    // cache sets: at 1 KiB apart, 16 lines, the 32 rows a strip stores shared 4 of the L1's 64
    // sets. On an AMD EPYC (Zen 3), a scratch loop of `convert` (best of 5 calls), u8
    // NHWC→NCHW with C = 64 at 256 MiB, with the prefetching (into a copy, as it was then),
    // 16 → 15 lines alternating four times: two threads 18.3–19.3 → 20.3–24.3 GB/s, one
    // 10.1–11.9 → 10.6–13.3; f16 even (21.8–23.6 → 21.5–22.4).
    let tile_cols = (((PANEL_BYTES / T::SIZE / tile_rows / line).saturating_sub(1) | 1) * line).max(line);
    let mut staging = Staging([0; PANEL_BYTES]);
    let buf: &mut [T] = bytemuck::cast_slice_mut(&mut staging.0[..]);
    let ordinary = strips.with_stores(Stores::Ordinary);
    for r0 in (0..rows.extent).step_by(tile_rows) {
        let n_rows = tile_rows.min(rows.extent - r0);
        for c0 in (0..cols.extent).step_by(tile_cols) {
            let n_cols = tile_cols.min(cols.extent - c0);
            let staged = &mut buf[..n_rows * n_cols];
            let part_rows = LoopAxis { extent: n_rows, src: 1, dst: n_cols as isize };
            let part_cols = LoopAxis { extent: n_cols, ..cols };
            let from = s + r0 + c0 * src_stride;
            transpose(src, from as isize, Out::new(staged), 0, part_rows, part_cols, Some(ordinary));
            // The next tile's source runs, a row's share of them with each row (after the last
            // tile of the plane, none: the next plane is another task's, or this task's next
            // call).
            let (r_next, c_next) = match c0 + tile_cols < cols.extent {
                true => (r0, c0 + tile_cols),
                false => (r0 + tile_rows, 0),
            };
            let next_rows = tile_rows.min(rows.extent.saturating_sub(r_next));
            let next_runs = if prefetched && next_rows > 0 { tile_cols.min(cols.extent - c_next) } else { 0 };
            let next = NextTile::new(
                s + r_next + c_next * src_stride,
                [next_runs, next_rows, src_stride],
                n_rows,
                line,
            );
            for (r, row) in staged.chunks_exact(n_cols).enumerate() {
                next.prefetch_share(src, r);
                let to = d + (r0 + r) * dst_stride + c0;
                simd::stream_unfenced(dst.at(to..to + n_cols), row);
            }
        }
    }
    simd::fence();
    true
}

/// Whether [`by_staged_tiles`] takes the plane `rows` × `cols` (the conditions its doc gives),
/// and if so, whether it prefetches each next tile's contiguous source.
pub(super) fn staged_tiles<T: Element>(rows: LoopAxis, cols: LoopAxis, strips: Strips) -> Option<bool> {
    let (src_stride, dst_stride) = (cols.src as usize, rows.dst as usize);
    let line = CACHE_LINE / T::SIZE;
    // A large square matrix with strips sweeps the source instead (`by_strips`): measured
    // better than these tiles, whose 1024 source runs are one line each.
    let square = tiling::<T>(src_stride, dst_stride) == (false, square_tile::<T>());
    // Where a tile's source is one contiguous block (its runs all of a source column's rows,
    // back to back: NHWC→NCHW with at most [`STAGED_ROWS`] channels), the next tile's block is
    // prefetched while this tile's rows stream out, a row's share with each row, so that the
    // strips find it in the cache: read in place unprefetched, their half lines of 32 (f16) or
    // 64 (u8) runs waited on memory with nothing to overlap. Before, each tile's block was
    // copied whole into a second buffer (one sequential stream that the hardware prefetcher
    // follows), which overlapped nothing either. On an AMD EPYC (Zen 3), a scratch loop of
    // `convert` (best of 5 calls), C = 64, alternating three or four times:
    //
    // - at 256 MiB, copied (16 lines a tile row), prefetched and copied (15 lines), prefetched
    //   and read in place (15 lines): u8 two threads 16.2–18.2 → 19.3–21.4 → 22.7–27.5 GB/s,
    //   one 8.5–9.7 → 9.9–12.5 → 11.4–12.9; f16 two threads 18.2–20.3 → 15.8–23.5 →
    //   18.9–26.4, one 12.5–13.2 → 11.3–14.3 → 12.5–16.5;
    // - from the last-level cache as much, two threads, unprefetched → prefetched: u8 at 6 MiB
    //   16.2–23.6 → 20.4–25.3, at 16 MiB 14.9–15.6 → 21.6–24.8, at 24 MiB 14.1–15.1 →
    //   21.3–23.7; f16 at 16 MiB 14.5–16.3 → 22.1–29.3;
    // - so staged, AVX2's f32 and f64 planes of that kind gain too, where its strips otherwise
    //   stream directly (two threads, streamed strips → staged tiles): f32 at 256 MiB
    //   17.9–19.7 → 22.4–28.1, one thread 9.2–12.9 → 13.7–17.6; at 16 MiB 14.3–19.3 →
    //   20.9–26.5; at 6 MiB 18.8–20.0 → 20.7–27.2, one thread 10.4–11.9 → 14.4–20.4; f64 at
    //   256 MiB 21.1–22.5 → 24.6–26.0, one thread 11.8–12.1 → 13.6–14.7; at 16 MiB 22.8–24.1 →
    //   22.7–32.2, one thread 12.4–14.0 → 14.5–17.2. Staged without the prefetching f32 lost
    //   (C = 128 at 256 MiB 19.2–21.0 → 16.2–17.2, a 4096 × 1024 matrix into columns
    //   20.7–23.4 → 20.5–21.0).
    let contiguous = src_stride == STAGED_ROWS.min(rows.extent) && rows.extent <= STAGED_ROWS;
    let prefetches = strips.prefetches_staged_source();
    let staged_contiguous = contiguous && prefetches && strips.stages_contiguous_sources();
    // Nor source runs a page or more apart (NCHW's channel planes into NHWC with C of four lines
    // or more): a tile would read 128 or more of them a line or two each, more pages and streams
    // than the TLB and the prefetchers follow; strips sweep them in columns instead (or
    // `by_staged_source` stages them). AMD EPYC (Zen 3), 256 MiB, a scratch loop of
    // `to_layout_into` (best of 1 s), tiles → strips, one thread (two), GB/s: f16 NCHW→NHWC,
    // C = 128, 64² to 256 × 512 images, 5.9–8.5 → 21.3–22.6 (11.5–16.5 → 32–41), C = 256
    // 7.8–8.1 → 14.2; u8 C = 256 5.2–7.3 → 18.6–19.8; 256 × 16384 u8 matrices into columns
    // 7.9 → 19.5; f16 C = 128 at 16 MiB 9.2–10.2 → 26.1–26.3 (`BENCHMARKS.md`, step 49).
    // AVX2's halves, whose staged tiles prefetch every next run (below), take runs up to two
    // pages apart ([`HALVES_TILE_FAR_RUN_BYTES`]).
    let halves = strips.level() == Level::Avx2 && T::SIZE == 2;
    let far_runs = if halves { HALVES_TILE_FAR_RUN_BYTES } else { TILE_FAR_RUN_BYTES };
    let far = src_stride * T::SIZE >= far_runs;
    let direct = (strips.streams_directly(rows.extent) && !staged_contiguous)
        || ((square || far) && strips.has_blocks());
    // Runs apart are prefetched too, run by run: near ones ([`PREFETCHED_RUN_BYTES`]: NHWC→NCHW
    // with C = 128) at every level that prefetches (at 256 MiB, alternating three and four
    // times, u8 two threads 7.9–10.4 → 10.7–16.4 GB/s, one thread 6.6–8.1 → 9.7–9.8; f16 two
    // threads 10.7–13.9 → 12.5–14.6), and AVX2's halves all they take (runs under a page apart:
    // NCHW→NHWC's planes of small images). On an AMD EPYC (Zen 3), 256 MiB, a scratch loop of
    // `to_layout_into` (best of 0.5 s), one binary each way in turn, f16 one thread (two), GB/s:
    // C = 128 28 × 28 images 7.1–8.3 → 10.9–11.3 (14.5–15.7 → 21.2–21.6), 40 × 40 9.0–9.5 →
    // 14.3–14.6 (17.3–18.7 → 27.8–28.3), C = 256 14 × 14 9.1–9.5 → 9.9–10.3, C = 64 28 × 28
    // even. Bytes were even or slower (u8 C = 256 28 × 28 6.3–7.5 → 6.6–7.3, two threads
    // 12.2–13.7 → 11.1–13.7; C = 128 40 × 40 even), so they keep the near runs alone. f32's,
    // staged so, were even with its direct strips (C = 128 17.3–20.1 against 18.5–21.4, C = 256
    // 15.5–21.8 against 21.3–22.2), so they keep them; a large square matrix's runs, prefetched
    // so, lost (BENCHMARKS.md, step 22).
    let near = src_stride * T::SIZE <= PREFETCHED_RUN_BYTES || halves;
    let prefetched = (contiguous || near) && prefetches;
    (strips.streaming() && !direct && cols.extent >= 4 * line).then_some(prefetched)
}
