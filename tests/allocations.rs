//! What a conversion into the caller's buffer allocates, counted on every thread of the process
//! (the helpers' allocations included): nothing below `PARALLEL_THRESHOLD_BYTES`, nothing above
//! it on a rayon worker, and from any other thread at most rayon's boxed job per helper.
//!
//! This binary holds one test, so no other test allocates while it counts; every pool's
//! workers have started before anything is counted and live to the end (a worker starting or
//! exiting allocates for its queue's bookkeeping).

use half::f16;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use typed_layout::cast::{relayout_cast_pad_into, PerChannel, Unscaled};
use typed_layout::{Nchw, Nhwc, Tensor, PARALLEL_THRESHOLD_BYTES};

#[global_allocator]
static COUNTED: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The per-channel scale and shift of the fused casts.
const SCALE: [f64; 3] = [0.5, 0.25, 2.0];
const SHIFT: [f64; 3] = [1.0, -1.0, 0.0];

/// Where slot `k` of the batch is cropped from the image.
const CORNERS: [[usize; 4]; 4] = [[0, 0, 0, 0], [0, 0, 8, 40], [0, 0, 288, 96], [0, 0, 3, 5]];

/// A call of each pass into a buffer: every path through the threads (rows, column parts of a
/// plane in the caches, the fused cast's rows), below and above the threshold.
struct Calls {
    small: Tensor<f32, Nchw>, // [1, 64, 32, 63]: 504 KiB, just below the threshold
    image: Tensor<f32, Nchw>, // [1, 64, 64, 64]: 1 MiB
    large: Tensor<f32, Nchw>, // [1, 64, 128, 128]: 4 MiB
    small_pixels: Tensor<f32, Nhwc>,
    pixels: Tensor<f32, Nhwc>, // then back into planes: column parts
    large_pixels: Tensor<f32, Nhwc>,
    planes: Tensor<f32, Nchw>,
    rgb: Tensor<u8, Nhwc>,     // [1, 3, 512, 512]: 768 KiB read, 4 MiB written
    scaled: Tensor<f16, Nhwc>, // C = 8, normalized per channel
    plain: Tensor<f16, Nhwc>,  // C = 8, values as they are
    batch: Tensor<f16, Nhwc>,  // [4, 8, 224, 224]: README's pipeline, a crop into each 784 KiB slot
}

impl Calls {
    fn new() -> Self {
        let value = |[n, c, h, w]: [usize; 4]| ((n + 3 * c + 5 * h + 7 * w) % 113) as f32;
        let small = Tensor::from_fn([1, 64, 32, 63], value).unwrap();
        assert!(small.as_slice().len() * 4 < PARALLEL_THRESHOLD_BYTES);
        Calls {
            small,
            image: Tensor::from_fn([1, 64, 64, 64], value).unwrap(),
            large: Tensor::from_fn([1, 64, 128, 128], value).unwrap(),
            small_pixels: Tensor::zeros([1, 64, 32, 63]).unwrap(),
            pixels: Tensor::zeros([1, 64, 64, 64]).unwrap(),
            large_pixels: Tensor::zeros([1, 64, 128, 128]).unwrap(),
            planes: Tensor::zeros([1, 64, 64, 64]).unwrap(),
            rgb: Tensor::from_fn([1, 3, 512, 512], |[_, c, h, w]| ((c + h * 3 + w) % 256) as u8).unwrap(),
            scaled: Tensor::zeros([1, 8, 512, 512]).unwrap(),
            plain: Tensor::zeros([1, 8, 512, 512]).unwrap(),
            batch: Tensor::zeros([4, 8, 224, 224]).unwrap(),
        }
    }

    /// Every destination filled with NaN, which no pass writes: a place a pass skipped fails
    /// [`Calls::check`].
    fn mark(&mut self) {
        for t in [&mut self.small_pixels, &mut self.pixels, &mut self.large_pixels] {
            t.fill(f32::NAN);
        }
        self.planes.fill(f32::NAN);
        for t in [&mut self.scaled, &mut self.plain, &mut self.batch] {
            t.fill(f16::NAN);
        }
    }

    /// Every call once; what each wrote is checked by [`Calls::check`].
    fn run(&mut self) {
        self.small.to_layout_into(&mut self.small_pixels).unwrap(); // the calling thread alone
        self.image.to_layout_into(&mut self.pixels).unwrap(); // rows of an image in the caches
        self.large.to_layout_into(&mut self.large_pixels).unwrap(); // rows through memory
        self.pixels.to_layout_into(&mut self.planes).unwrap(); // column parts of a plane
        let per_channel = PerChannel { scale: &SCALE, shift: &SHIFT };
        relayout_cast_pad_into(&self.rgb, &mut self.scaled, per_channel).unwrap();
        relayout_cast_pad_into(&self.rgb, &mut self.plain, Unscaled).unwrap();
        for (k, corner) in CORNERS.into_iter().enumerate() {
            let crop = self.rgb.crop(corner, [1, 3, 224, 224]).unwrap(); // a view: no copy
            relayout_cast_pad_into(&crop, &mut self.batch.batch_mut(k).unwrap(), per_channel).unwrap();
        }
    }

    /// Each destination holds what its source said, read through indexing on both sides.
    fn check(&self) {
        let sources = [
            (&self.small, &self.small_pixels),
            (&self.image, &self.pixels),
            (&self.large, &self.large_pixels),
        ];
        for (src, dst) in sources {
            let [_, c, h, w] = src.dims();
            for ch in 0..c {
                for y in (0..h).step_by(3) {
                    for x in 0..w {
                        assert_eq!(dst[[0, ch, y, x]], src[[0, ch, y, x]], "(c, h, w) = ({ch}, {y}, {x})");
                    }
                }
            }
        }
        for ch in 0..64 {
            for y in 0..64 {
                for x in 0..64 {
                    assert_eq!(self.planes[[0, ch, y, x]], self.image[[0, ch, y, x]], "({ch}, {y}, {x})");
                }
            }
        }
        let fused = |v: u8, c: usize, scaled: bool| match (c, scaled) {
            (0..3, true) => f16::from_f64(v as f64 * SCALE[c] + SHIFT[c]),
            (0..3, false) => f16::from_f64(v as f64),
            _ => f16::ZERO, // the padding
        };
        for y in (0..512).step_by(3) {
            for x in 0..512 {
                for c in 0..8 {
                    let v = self.rgb[[0, c.min(2), y, x]];
                    assert_eq!(
                        self.scaled[[0, c, y, x]],
                        fused(v, c, true),
                        "scaled (c, h, w) = ({c}, {y}, {x})"
                    );
                    assert_eq!(
                        self.plain[[0, c, y, x]],
                        fused(v, c, false),
                        "plain (c, h, w) = ({c}, {y}, {x})"
                    );
                }
            }
        }
        for (k, [_, _, top, left]) in CORNERS.into_iter().enumerate() {
            for y in 0..224 {
                for x in 0..224 {
                    for c in 0..8 {
                        let want = fused(self.rgb[[0, c.min(2), top + y, left + x]], c, true);
                        assert_eq!(self.batch[[k, c, y, x]], want, "slot {k} (c, h, w) = ({c}, {y}, {x})");
                    }
                }
            }
        }
    }
}

/// The allocations and reallocations of `rounds` rounds of [`Calls::run`], on every thread.
fn count(calls: &mut Calls, rounds: usize) -> usize {
    let region = Region::new(COUNTED);
    for _ in 0..rounds {
        calls.run();
    }
    let change = region.change();
    change.allocations + change.reallocations
}

#[test]
fn conversions_into_buffers_allocate_nothing_on_a_worker_and_a_job_per_helper_elsewhere() {
    let mut calls = Calls::new();
    let pools: Vec<rayon::ThreadPool> =
        [1, 2, 3].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap()).into();
    for pool in &pools {
        pool.broadcast(|_| ()); // every worker has started
    }
    rayon::broadcast(|_| ()); // the global pool's too

    for pool in &pools {
        let threads = pool.current_num_threads();
        pool.install(|| calls.run()); // each worker's first passes
        calls.mark();
        let found = pool.install(|| count(&mut calls, 8));
        assert_eq!(found, 0, "{threads} threads: allocations in 8 rounds on a worker");
        calls.check();
    }

    // From outside any pool, each parallel call boxes a job per helper thread (rayon's
    // `scope.spawn`), and rayon's queue takes a new block every 63 jobs.
    calls.run();
    calls.mark();
    let helpers = rayon::current_num_threads() - 1;
    let (rounds, parallel_calls) = (8, 9); // all of `run` but the small conversion
    let jobs = rounds * parallel_calls * helpers;
    let found = count(&mut calls, rounds);
    assert!(found <= jobs + jobs.div_ceil(63), "{found} allocations for {jobs} helper jobs");
    calls.check();
}
