//! The fused relayout + cast + pad rows: into an existing buffer (all threads, one thread)
//! and allocating, raced against the copies of the same number of bytes.

use super::{fill_streamed, fresh_copy, on_all_threads, wake_pool, Bench, Steal, IN_CACHE_RACE};
use super::{RESULTS, STOLEN, WRITES};

use std::hint::black_box;
use std::time::{Duration, Instant};

use half::{bf16, f16};
use typed_layout::cast::{
    relayout_cast_pad, relayout_cast_pad_into, Cast, ChannelPadded, PerChannel, Quantize, Unscaled,
};
use typed_layout::simd::{copy, copy_parallel, Stores};
use typed_layout::{Bmn, Element, Nchw, Nhwc, RowMajor, Tensor};

impl Bench {
    /// A fused row: `src` (NCHW, C = 3) into `U` NHWC with C padded to `padded`, into an
    /// existing buffer (all threads, one thread) and allocating, raced against the copies of a
    /// buffer of half the bytes read + written (so a copy moves as many bytes as the pass). The
    /// ndarray column stays empty: it has no fused cast.
    fn fused<S: Element, U: Element>(
        &mut self,
        row: &str,
        src: &Tensor<S, Nchw>,
        padded: usize,
        cast: impl Cast<S, U>,
    ) {
        let row = format!("fused/{row}");
        if self.skips(&row) {
            return;
        }
        let [n, _, h, w] = src.dims();
        let mut dst = Tensor::<U, Nhwc>::zeros([n, padded, h, w]).unwrap();
        let bytes = (src.as_slice().len() * S::SIZE + dst.as_slice().len() * U::SIZE) as u64;
        // Each contender writes its own buffer, as in the rows' races.
        let from = vec![1u8; bytes as usize / 2];
        let [mut to, mut to_all, mut streamed, mut streamed_all] =
            core::array::from_fn(|_| vec![0u8; from.len()]);
        let mut dst_one = Tensor::<U, Nhwc>::zeros([n, padded, h, w]).unwrap();
        let dst_bytes = dst.as_slice().len() * U::SIZE;
        let (cached, mut filled, mut fill) = (vec![3u8; 64 << 10], vec![0u8; dst_bytes], Duration::MAX);
        let mut fresh_fill = Duration::MAX;
        let threads = rayon::current_num_threads();
        let mut best = [Duration::MAX; 9];
        let steal = Steal::now();
        // In-cache rows race longer, as the conversions' rows do.
        let (race, in_cache) = (Instant::now(), bytes <= 4 << 20);
        let mut round = 0;
        while round < 6 || (in_cache && (round < 41 || race.elapsed() < IN_CACHE_RACE)) {
            round += 1;
            for (k, slot) in best.iter_mut().enumerate().filter(|(k, _)| *k != 7) {
                if on_all_threads(k, round, dst_bytes) {
                    wake_pool();
                }
                if k == 5 {
                    let pass =
                        || _ = black_box(relayout_cast_pad_into(black_box(src), &mut dst_one, cast).unwrap());
                    *slot = (*slot).min(self.on_one_thread(pass));
                    continue;
                }
                let start = Instant::now();
                match k {
                    0 => to.copy_from_slice(black_box(&from)),
                    1 => copy_parallel(&mut to_all, black_box(&from), Stores::Ordinary, threads).unwrap(),
                    2 => copy(&mut streamed, black_box(&from), Stores::Streaming).unwrap(),
                    3 => copy_parallel(&mut streamed_all, black_box(&from), Stores::Streaming, threads)
                        .unwrap(),
                    4 => _ = black_box(relayout_cast_pad_into(black_box(src), &mut dst, cast).unwrap()),
                    8 => drop(black_box(fresh_copy(&from, threads, round))),
                    _ => {
                        let padded: ChannelPadded<U, Nhwc> =
                            relayout_cast_pad(black_box(src), padded, cast).unwrap();
                        drop(black_box(padded));
                    }
                }
                *slot = (*slot).min(start.elapsed());
            }
            let start = Instant::now();
            fill_streamed(&mut filled, black_box(&cached), threads);
            fill = fill.min(start.elapsed());
            // The allocating pass's write limit: a fresh destination of its bytes (the library's
            // allocation, huge pages asked for) filled as it is, streamed, and dropped.
            let start = Instant::now();
            let mut fresh = Tensor::<u8, Bmn<RowMajor>>::zeros([1, 1, dst_bytes]).unwrap();
            fill_streamed(fresh.as_mut_slice(), black_box(&cached), threads);
            drop(black_box(fresh));
            fresh_fill = fresh_fill.min(start.elapsed());
        }
        black_box((&to, &to_all, &streamed, &streamed_all, &dst_one));
        eprintln!("{row}: done");
        WRITES.lock().unwrap().push((row.clone(), dst_bytes as u64, [best[4], fill, best[6], fresh_fill]));
        STOLEN.lock().unwrap().push((row.clone(), steal.share_since()));
        RESULTS.lock().unwrap().push((row, bytes, best));
    }

    /// The fused rows: the f32 RGB batch [64, 3, 512, 512] into f16 and bf16 NHWC with
    /// C = 8 and quantized into i8 NHWC with C = 4 (one scale), one 224 × 224 image into f16 (from f32 and from bytes), and image bytes of the
    /// batch's shape into f16 NHWC with C = 4 and into f32 NHWC with C = 4, normalized per
    /// channel (ImageNet's mean and deviation: `(v / 255 - mean) / std`).
    pub(super) fn fused_rows(&mut self) {
        let dims = [64, 3, 512, 512];
        let floats =
            Tensor::<f32, Nchw>::from_fn(dims, |[n, c, h, w]| (n + c * 3 + h * 5 + w * 7) as f32 / 9.0)
                .expect("a valid shape");
        self.fused::<f32, f16>("448MiB/f32 NCHW C=3 -> f16 NHWC C=8", &floats, 8, Unscaled);
        self.fused::<f32, bf16>("448MiB/f32 NCHW C=3 -> bf16 NHWC C=8", &floats, 8, Unscaled);
        self.fused::<f32, i8>("256MiB/f32 NCHW C=3 -> i8 NHWC C=4 quantized", &floats, 4, Quantize(0.05));
        drop(floats);
        // One image of a classifier's input, whose result the cache holds.
        let image = Tensor::<f32, Nchw>::from_fn([1, 3, 224, 224], |[_, c, h, w]| {
            (c * 3 + h * 5 + w * 7) as f32 / 9.0
        })
        .expect("a valid shape");
        self.fused::<f32, f16>("1.3MiB/f32 NCHW C=3 224x224 -> f16 NHWC C=8", &image, 8, Unscaled);
        let image = Tensor::<u8, Nchw>::from_fn([1, 3, 224, 224], |[_, c, h, w]| {
            ((c * 3 + h * 5 + w * 7) % 256) as u8
        })
        .expect("a valid shape");
        self.fused::<u8, f16>("0.5MiB/u8 NCHW C=3 224x224 -> f16 NHWC C=4", &image, 4, Unscaled);
        let bytes =
            Tensor::<u8, Nchw>::from_fn(dims, |[n, c, h, w]| ((n + c * 3 + h * 5 + w * 7) % 256) as u8)
                .expect("a valid shape");
        self.fused::<u8, f16>("176MiB/u8 NCHW C=3 -> f16 NHWC C=4", &bytes, 4, Unscaled);
        let (mean, std) = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
        let scale: Vec<f64> = std.iter().map(|s| 1.0 / (255.0 * s)).collect();
        let shift: Vec<f64> = mean.iter().zip(&std).map(|(m, s)| -m / s).collect();
        let normalize = PerChannel { scale: &scale, shift: &shift };
        self.fused::<u8, f32>("304MiB/u8 NCHW C=3 -> f32 NHWC C=4 normalized", &bytes, 4, normalize);
    }
}
