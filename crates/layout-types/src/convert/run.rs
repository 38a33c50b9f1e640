//! Running a loop nest on host memory: on the calling thread, or cut along its outermost axis
//! into rayon tasks that each write their own contiguous part of the destination.

use super::kernels;
use crate::dtype::Element;
use crate::loops::{for_each_offset, LoopAxis, LoopNest, MAX_LOOPS};
use crate::platform::out::Out;
use crate::platform::simd::strips::Strips;
use crate::platform::simd::{self, Level};

/// The strips a conversion of `bytes` destination bytes transposes with: this CPU's level,
/// streaming or not by [`simd::stores_for`], its source cached or not by its size.
pub(super) fn strips_for<T: Element>(bytes: usize) -> Option<Strips> {
    Strips::new(Level::detected(), simd::stores_for(bytes), T::SIZE).map(|s| s.with_cached_source(bytes))
}

/// Runs on rayon's pool when the `parallel` feature is on, the conversion moves at least
/// [`PARALLEL_THRESHOLD_BYTES`](super::PARALLEL_THRESHOLD_BYTES), and the destination splits
/// into disjoint contiguous ranges.
pub(super) fn run_maybe_parallel<T: Element>(nest: &LoopNest, src: &[T], dst: Out<'_, T>) {
    let bytes = nest.axes().iter().map(|a| a.extent).product::<usize>().saturating_mul(T::SIZE);
    let strips = strips_for::<T>(bytes);
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

/// Cuts the outermost axis into tasks of `rows` positions, each writing its own chunk.
#[cfg(feature = "parallel")]
fn run_parallel<T: Element>(
    nest: &LoopNest,
    src: &[T],
    dst: Out<'_, T>,
    rows: usize,
    strips: Option<Strips>,
) {
    use rayon::prelude::*;
    let outer = nest.axes()[0];
    let region = dst.into_at(nest.bases().1 as usize..);
    region.par_chunks(rows * outer.dst as usize).enumerate().for_each(|(task, chunk)| {
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
    use super::parallel_rows;
    use crate::layout::{Bmn, ColMajor, RowMajor, Shape};
    use crate::loops::LoopNest;

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
}
