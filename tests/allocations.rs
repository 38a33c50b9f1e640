//! What a conversion into the caller's buffer allocates, counted on every thread of the process
//! (the helpers' allocations included): nothing below `PARALLEL_THRESHOLD_BYTES`, nothing above
//! it on a rayon worker, and from any other thread at most rayon's boxed job per helper.
//!
//! This binary holds one test, so no other test allocates while it counts.

use half::f16;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use typed_layout::cast::{relayout_cast_pad_into, PerChannel, Unscaled};
use typed_layout::{Nchw, Nhwc, Tensor, PARALLEL_THRESHOLD_BYTES};

#[global_allocator]
static COUNTED: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A call of each pass into a buffer: every path through the threads (rows, column parts of a
/// plane in the caches, the fused cast's rows), below and above the threshold.
struct Calls {
    image: Tensor<f32, Nchw>, // [1, 64, 64, 64]: 1 MiB
    small: Tensor<f32, Nchw>, // [1, 64, 32, 63]: 504 KiB, just below the threshold
    large: Tensor<f32, Nchw>, // [1, 64, 128, 128]: 4 MiB
    pixels: Tensor<f32, Nhwc>,
    small_pixels: Tensor<f32, Nhwc>,
    large_pixels: Tensor<f32, Nhwc>,
    planes: Tensor<f32, Nchw>,
    rgb: Tensor<u8, Nhwc>,     // [1, 3, 512, 512]: 768 KiB read, 4 MiB written
    padded: Tensor<f16, Nhwc>, // C = 8
    batch: Tensor<f16, Nhwc>,  // [4, 8, 224, 224]: README's pipeline, a crop into each 784 KiB slot
}

/// The per-channel scale and shift of the fused casts.
const SCALE: [f64; 3] = [0.5, 0.25, 2.0];
const SHIFT: [f64; 3] = [1.0, -1.0, 0.0];

/// Where slot `k` of the batch is cropped from the image.
const CORNERS: [[usize; 4]; 4] = [[0, 0, 0, 0], [0, 0, 8, 40], [0, 0, 288, 96], [0, 0, 3, 5]];

impl Calls {
    fn new() -> Self {
        let value = |[n, c, h, w]: [usize; 4]| ((n + 3 * c + 5 * h + 7 * w) % 113) as f32;
        let image = Tensor::from_fn([1, 64, 64, 64], value).unwrap();
        let small = Tensor::from_fn([1, 64, 32, 63], value).unwrap();
        let large = Tensor::from_fn([1, 64, 128, 128], value).unwrap();
        assert!(small.as_slice().len() * 4 < PARALLEL_THRESHOLD_BYTES);
        assert!(image.as_slice().len() * 4 >= PARALLEL_THRESHOLD_BYTES);
        Calls {
            pixels: image.to_layout().unwrap(),
            small_pixels: Tensor::zeros([1, 64, 32, 63]).unwrap(),
            large_pixels: Tensor::zeros([1, 64, 128, 128]).unwrap(),
            planes: Tensor::zeros([1, 64, 64, 64]).unwrap(),
            rgb: Tensor::from_fn([1, 3, 512, 512], |[_, c, h, w]| ((c + h * 3 + w) % 256) as u8).unwrap(),
            padded: Tensor::zeros([1, 8, 512, 512]).unwrap(),
            batch: Tensor::zeros([4, 8, 224, 224]).unwrap(),
            image,
            small,
            large,
        }
    }

    /// Every call once; what each wrote is checked by [`Calls::check`].
    fn run(&mut self) {
        self.small.to_layout_into(&mut self.small_pixels).unwrap(); // the calling thread alone
        self.image.to_layout_into(&mut self.pixels).unwrap(); // rows of an image in the caches
        self.large.to_layout_into(&mut self.large_pixels).unwrap(); // rows through memory
        self.pixels.to_layout_into(&mut self.planes).unwrap(); // column parts of a plane
        relayout_cast_pad_into(&self.rgb, &mut self.padded, PerChannel { scale: &SCALE, shift: &SHIFT })
            .unwrap();
        relayout_cast_pad_into(&self.rgb, &mut self.padded, Unscaled).unwrap();
        for (k, corner) in CORNERS.into_iter().enumerate() {
            let crop = self.rgb.crop(corner, [1, 3, 224, 224]).unwrap(); // a view: no copy
            let cast = PerChannel { scale: &SCALE, shift: &SHIFT };
            relayout_cast_pad_into(&crop, &mut self.batch.batch_mut(k).unwrap(), cast).unwrap();
        }
    }

    /// Each destination holds what its source said, read through indexing.
    fn check(&self) {
        for (src, dst) in [(&self.small, &self.small_pixels), (&self.large, &self.large_pixels)] {
            let [_, c, h, w] = src.dims();
            for ch in 0..c {
                for y in (0..h).step_by(7) {
                    for x in 0..w {
                        assert_eq!(dst[[0, ch, y, x]], src[[0, ch, y, x]], "(c, h, w) = ({ch}, {y}, {x})");
                    }
                }
            }
        }
        for ch in 0..64 {
            for y in 0..64 {
                for x in (0..64).step_by(5) {
                    assert_eq!(self.planes[[0, ch, y, x]], self.image[[0, ch, y, x]], "({ch}, {y}, {x})");
                }
            }
        }
        for y in (0..512).step_by(3) {
            for x in 0..512 {
                for c in 0..8 {
                    let want = if c < 3 { f16::from_f64(self.rgb[[0, c, y, x]] as f64) } else { f16::ZERO };
                    assert_eq!(self.padded[[0, c, y, x]], want, "(c, h, w) = ({c}, {y}, {x})");
                }
            }
        }
        for (k, [_, _, top, left]) in CORNERS.into_iter().enumerate() {
            for y in 0..224 {
                for x in (0..224).step_by(3) {
                    for c in 0..8 {
                        let want = match c {
                            0..3 => f16::from_f64(
                                self.rgb[[0, c, top + y, left + x]] as f64 * SCALE[c] + SHIFT[c],
                            ),
                            _ => f16::ZERO,
                        };
                        assert_eq!(self.batch[[k, c, y, x]], want, "slot {k} (c, h, w) = ({c}, {y}, {x})");
                    }
                }
            }
        }
    }
}

/// The allocations of `calls` rounds of [`Calls::run`], on every thread.
fn count(calls: &mut Calls, rounds: usize) -> usize {
    let region = Region::new(COUNTED);
    for _ in 0..rounds {
        calls.run();
    }
    region.change().allocations
}

#[test]
fn conversions_into_buffers_allocate_nothing_on_a_worker_and_a_job_per_helper_elsewhere() {
    let mut calls = Calls::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (warm, then) = pool.install(|| (count(&mut calls, 1), count(&mut calls, 8)));
        assert_eq!(then, 0, "{threads} threads: 8 rounds on a worker, after one ({warm}) to start");
        calls.check();
    }

    // From outside any pool, each parallel call boxes a job per helper thread (rayon's
    // `scope.spawn`), and rayon's queue takes a new block every 63 jobs.
    count(&mut calls, 1); // starts the global pool
    let helpers = rayon::current_num_threads() - 1;
    let (rounds, parallel_calls) = (8, 9); // all of `run` but the small conversion
    let jobs = rounds * parallel_calls * helpers;
    let found = count(&mut calls, rounds);
    assert!(found <= jobs + jobs.div_ceil(63), "{found} allocations for {jobs} helper jobs");
    calls.check();
}
