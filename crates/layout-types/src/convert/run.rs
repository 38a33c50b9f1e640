//! Running a loop nest on host memory: on the calling thread, or cut into tasks that each write
//! their own part of the destination (a contiguous range of its outermost axis, or, for a plane
//! with short source runs, the same columns of every row), run by `crate::tasks` on rayon's
//! workers and the calling thread.

use super::kernels;
use crate::dtype::Element;
use crate::loops::{for_each_offset, LoopAxis, LoopNest, MAX_LOOPS};
use crate::platform::out::Out;
use crate::platform::simd::strips::Strips;
use crate::platform::simd::{self, Level};
#[cfg(feature = "parallel")]
use crate::tasks;

/// The strips a conversion of `bytes` destination bytes transposes with: this CPU's level,
/// streaming or not by [`simd::stores_for`], its source cached or not by its size.
pub(super) fn strips_for<T: Element>(bytes: usize) -> Option<Strips> {
    Strips::new(Level::detected(), simd::stores_for(bytes), T::SIZE).map(|s| s.with_cached_source(bytes))
}

/// Runs on rayon's pool when the `parallel` feature is on, the conversion moves at least
/// [`PARALLEL_THRESHOLD_BYTES`](super::PARALLEL_THRESHOLD_BYTES), and the destination splits
/// into disjoint column parts ([`column_cuts`]) or contiguous ranges ([`parallel_rows`]).
pub(super) fn run_maybe_parallel<T: Element>(nest: &LoopNest, src: &[T], dst: Out<'_, T>) {
    let bytes = nest.axes().iter().map(|a| a.extent).product::<usize>().saturating_mul(T::SIZE);
    let strips = strips_for::<T>(bytes);
    #[cfg(feature = "parallel")]
    if let Some(cuts) = column_cuts::<T>(nest, strips) {
        return run_columns(nest, src, dst, cuts.get(), strips);
    }
    #[cfg(feature = "parallel")]
    if let Some(rows) = parallel_rows::<T>(nest) {
        return run_parallel(nest, src, dst, rows, strips);
    }
    run(nest, src, dst, strips)
}

/// The threads a pass moving `bytes` runs on: rayon's, from
/// [`PARALLEL_THRESHOLD_BYTES`](super::PARALLEL_THRESHOLD_BYTES) on, else 1. The size is asked
/// first: asking rayon for its threads starts its pool (allocations, threads).
#[cfg(feature = "parallel")]
pub(crate) fn threads_for(bytes: usize) -> usize {
    match bytes >= super::PARALLEL_THRESHOLD_BYTES {
        true => rayon::current_num_threads(),
        false => 1,
    }
}

/// Positions of the outermost axis per task, when the destination can be cut there: the axis's
/// positions own disjoint contiguous ranges (every inner destination stride is positive and the
/// inner span fits in the outer stride).
#[cfg(feature = "parallel")]
fn parallel_rows<T>(nest: &LoopNest) -> Option<usize> {
    let axes = nest.axes();
    let (outer, inner) = axes.split_first()?;
    let elements: usize = axes.iter().map(|a| a.extent).product();
    let threads = threads_for(elements.saturating_mul(core::mem::size_of::<T>()));
    if threads < 2 {
        return None;
    }
    let mut span: isize = 1;
    for a in inner {
        if a.dst <= 0 {
            return None;
        }
        span += (a.extent as isize - 1) * a.dst;
    }
    if nest.bases().1 < 0 || outer.dst < span || outer.extent < 2 {
        return None;
    }
    // Where the outer axis is the one the source walks fastest, it is the transposed plane's
    // rows: tasks of fewer than a strip's rows would fall to the narrow scalar loop (measured,
    // f32 NHWC→NCHW at 1 MiB: 8 channels a task ran at 9.7 GB/s, one thread at 26.7), so they
    // get at least 32, as long as every thread still gets a task.
    let least = match outer.src == 1 {
        true => 32.min(outer.extent.div_ceil(threads)),
        false => 1,
    };
    // A pass in the caches (ordinary stores) takes one task per thread: smaller tasks cut its
    // planes into parts too short for the in-cache sweep of whole destination rows in
    // `kernels` (f32 512 × 512 row → column at 1 MiB, two threads, calls back to back: 8 tasks
    // of 64 rows 68 GB/s, 2 of 256 rows 96; the other 1 MiB rows within 3 %). A pass through
    // memory takes four a thread, so that a thread slowed by a neighbour leaves its share to
    // the others.
    let tasks = match simd::stores_for(elements.saturating_mul(core::mem::size_of::<T>())) {
        simd::Stores::Ordinary => threads,
        simd::Stores::Streaming => 4 * threads,
    };
    Some(outer.extent.div_ceil(tasks).max(least))
}

/// Where a plane in the caches has short source runs and long destination rows (NHWC→NCHW: a
/// pixel's channels are a run, a channel's pixels a row), the columns each task writes of every
/// row: tasks of whole source runs. Cut along its rows, as [`parallel_rows`] cuts, the tasks
/// would read parts of the same runs, and of the same cache lines where a run is short (64
/// channels of int8 are one line). Measured at 1 MiB NHWC→NCHW with C = 64, two threads, back
/// to back, rows and columns alternating three times: f32 82–90 → 92–98 GB/s, f16 77–84 →
/// 78–80, u8 67–69 → 68–70.
#[cfg(feature = "parallel")]
fn column_cuts<T>(nest: &LoopNest, strips: Option<Strips>) -> Option<Cuts> {
    let &[rows, cols] = nest.axes() else { return None };
    let size = core::mem::size_of::<T>();
    let bytes = rows.extent.saturating_mul(cols.extent).saturating_mul(size);
    let line = kernels::CACHE_LINE / size.max(1);
    // A plane (source runs down its rows, destination rows along its columns) of rows that do
    // not overlap, in the caches, with shorter source runs than destination rows.
    let plane = rows.src == 1 && cols.dst == 1 && cols.src >= rows.extent as isize;
    let grid = rows.dst >= cols.extent as isize && nest.bases().1 >= 0;
    let short_runs = rows.extent < cols.extent;
    if !plane || !grid || !short_runs || !strips.is_some_and(|s| s.in_cache()) {
        return None;
    }
    // Every task about a thread's share of the columns, a line at least.
    let threads = threads_for(bytes).min(Cuts::MOST);
    if threads < 2 || cols.extent < threads * line {
        return None;
    }
    // Cuts on the nearest line of an aligned destination (the parts' rows then start on lines).
    let mut at = [cols.extent; Cuts::MOST + 1];
    for (k, cut) in at[..threads].iter_mut().enumerate() {
        *cut = ((k * cols.extent / threads + line / 2) / line * line).min(cols.extent);
    }
    Some(Cuts { at, parts: threads })
}

/// The cuts of [`column_cuts`], kept on the stack: a conversion into a caller's buffer allocates
/// nothing for them.
#[cfg(feature = "parallel")]
struct Cuts {
    at: [usize; Cuts::MOST + 1],
    parts: usize,
}

#[cfg(feature = "parallel")]
impl Cuts {
    /// The most parts a plane is cut into: a plane in the caches shared by more threads than
    /// this would give each a few lines.
    const MOST: usize = 32;

    /// Part `k` writes columns `cuts[k]..cuts[k + 1]`.
    fn get(&self) -> &[usize] {
        &self.at[..=self.parts]
    }
}

/// The plane of `nest` ([`column_cuts`]) in tasks of columns `cuts[k]..cuts[k + 1]`, each
/// writing those columns of every destination row.
#[cfg(feature = "parallel")]
fn run_columns<T: Element>(
    nest: &LoopNest,
    src: &[T],
    dst: Out<'_, T>,
    cuts: &[usize],
    strips: Option<Strips>,
) {
    let (rows, cols) = (nest.axes()[0], nest.axes()[1]);
    let (s, d) = nest.bases();
    let span = (rows.extent - 1) * rows.dst as usize + cols.extent;
    let parts = dst.into_at(d as usize..d as usize + span).column_parts(rows.dst as usize, cuts);
    tasks::for_each(parts.enumerate(), |(k, part)| {
        let part_cols = LoopAxis { extent: cuts[k + 1] - cuts[k], ..cols };
        kernels::transpose(src, s + cuts[k] as isize * cols.src, part, 0, rows, part_cols, strips);
    });
}

/// Cuts the outermost axis into tasks of `rows` positions, each writing its own chunk.
#[cfg(feature = "parallel")]
fn run_parallel<T: Element>(
    nest: &LoopNest,
    src: &[T],
    dst: Out<'_, T>,
    rows: usize,
    strips: Option<Strips>,
) {
    let outer = nest.axes()[0];
    let region = dst.into_at(nest.bases().1 as usize..);
    tasks::for_each(region.chunks(rows * outer.dst as usize).enumerate(), |(task, chunk)| {
        let start = task * rows;
        if start >= outer.extent {
            return; // trailing storage past the last position (padding)
        }
        run(&nest.outer_part(start, rows, 0), src, chunk, strips);
    });
}

fn run<T: Element>(nest: &LoopNest, src: &[T], mut dst: Out<'_, T>, strips: Option<Strips>) {
    let axes = nest.axes();
    let (src_base, dst_base) = nest.bases();
    let Some((&inner, outer)) = axes.split_last() else {
        dst.set(dst_base as usize, src[src_base as usize]);
        return;
    };
    // The axis the source walks fastest; if it is not the destination's innermost, tile the two.
    if let Some(src_inner_pos) = nest.tile_axis() {
        let src_inner = axes[src_inner_pos];
        let mut rest = [LoopAxis::default(); MAX_LOOPS];
        let mut m = 0;
        for (i, a) in outer.iter().enumerate() {
            if i != src_inner_pos {
                rest[m] = *a;
                m += 1;
            }
        }
        for_each_offset(&rest[..m], src_base, dst_base, |s, d| {
            kernels::transpose(src, s, dst.rb(), d, src_inner, inner, strips)
        });
    } else {
        for_each_offset(outer, src_base, dst_base, |s, d| kernels::copy_run(src, s, dst.rb(), d, inner));
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::{column_cuts, parallel_rows, run_maybe_parallel, strips_for};
    use crate::dtype::Element;
    use crate::layout::{Bmn, ColMajor, Nchw, Nhwc, RowMajor, Shape};
    use crate::loops::LoopNest;
    use crate::platform::out::Out;

    /// Tasks per thread: one for a pass in the caches, four for a pass through memory, at
    /// several thread counts (a matrix's plane keeps its whole-row bands in cache only with
    /// parts of at least 256 rows).
    #[test]
    fn in_cache_passes_take_one_task_a_thread_streamed_ones_four() {
        let nest = |n: usize| {
            let (a, b) = (
                Shape::<Bmn<RowMajor>>::new([1, n, n]).unwrap(),
                Shape::<Bmn<ColMajor>>::new([1, n, n]).unwrap(),
            );
            LoopNest::between(&a, &b).unwrap().unwrap()
        };
        let (in_cache, streamed) = (nest(512), nest(2048)); // 1 MiB and 16 MiB of f32
        for threads in [2, 3, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let rows = pool.install(|| (parallel_rows::<f32>(&in_cache), parallel_rows::<f32>(&streamed)));
            assert_eq!(
                rows,
                (Some(512usize.div_ceil(threads)), Some(2048usize.div_ceil(4 * threads))),
                "{threads} threads"
            );
        }
    }

    /// NHWC→NCHW planes cut into column parts (each task its pixels of every channel's row) give
    /// the definition's bytes: two and three threads, whole and ragged planes, channels that are
    /// not a strip's multiple, a destination off its cache lines (the parts' edges then go
    /// through the narrow loops, inside their columns), and the elements around the plane
    /// untouched.
    #[test]
    fn column_parts_transpose_like_the_definition() {
        fn check<T: Element + PartialEq + core::fmt::Debug>(
            threads: usize,
            [c, h, w]: [usize; 3],
            offset: usize,
        ) {
            let value = |i: usize| T::from_f64((i % 97) as f64);
            let shapes =
                (Shape::<Nhwc>::new([1, c, h, w]).unwrap(), Shape::<Nchw>::new([1, c, h, w]).unwrap());
            let nest = LoopNest::between(&shapes.0, &shapes.1).unwrap().unwrap();
            let (p, n) = (h * w, c * h * w);
            let src: Vec<T> = (0..n).map(value).collect();
            let fence = T::from_f64(99.0);
            let mut dst = vec![fence; n + offset + 3];
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let cut = pool.install(|| {
                let cut = column_cuts::<T>(&nest, strips_for::<T>(n * T::SIZE)).is_some();
                run_maybe_parallel(&nest, &src, Out::new(&mut dst[offset..offset + n]));
                cut
            });
            if !cut {
                println!("SKIPPED: no column parts for {}-byte elements at this CPU's level", T::SIZE);
                return;
            }
            for ch in 0..c {
                for px in 0..p {
                    assert_eq!(
                        dst[offset + ch * p + px],
                        src[px * c + ch],
                        "{threads} threads, {c}×{h}×{w}, +{offset}: channel {ch} pixel {px}"
                    );
                }
            }
            assert!(dst[..offset].iter().chain(&dst[offset + n..]).all(|v| *v == fence), "outside the plane");
        }
        for threads in [2, 3] {
            check::<f32>(threads, [64, 64, 64], 0);
            check::<f32>(threads, [24, 101, 113], 1);
            check::<half::f16>(threads, [40, 115, 117], 3);
            check::<u8>(threads, [64, 128, 128], 0);
            check::<u8>(threads, [13, 300, 301], 5);
        }
    }
}
