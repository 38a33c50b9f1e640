//! The passes around `PARALLEL_THRESHOLD_BYTES`, timed through the public API from outside
//! rayon's pool (as a program calls them): prints `row GB/s` (bytes read + written, best of
//! 3000 calls) per size and pass. `bench/threshold.sh` builds it twice, with every pass on the
//! calling thread and with every pass on all threads, and compares the two.
use half::f16;
use std::time::Instant;
use typed_layout::cast::{relayout_cast_pad_into, Unscaled};
use typed_layout::{Element, Nchw, Nhwc, Tensor};

fn best(mut f: impl FnMut(), calls: usize) -> f64 {
    (0..calls)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// NCHW → NHWC and back with C = 64, `kib` KiB a tensor, 16 rows of H.
fn planes<T: Element + From<u8>>(name: &str, kib: usize, calls: usize) {
    let w = kib * 1024 / T::SIZE / 64 / 16;
    let value = |[_, c, h, w]: [usize; 4]| T::from(((c + h + w) % 100) as u8);
    let a = Tensor::<T, Nchw>::from_fn([1, 64, 16, w], value).unwrap();
    let mut b = Tensor::<T, Nhwc>::zeros([1, 64, 16, w]).unwrap();
    let mut c = Tensor::<T, Nchw>::zeros([1, 64, 16, w]).unwrap();
    let bytes = (2 * a.as_slice().len() * T::SIZE) as f64;
    let t = best(|| a.to_layout_into(&mut b).unwrap(), calls);
    println!("{kib}KiB/{name}/NCHW->NHWC {:.1}", bytes / t / 1e9);
    let t = best(|| b.to_layout_into(&mut c).unwrap(), calls);
    println!("{kib}KiB/{name}/NHWC->NCHW {:.1}", bytes / t / 1e9);
    assert!(c.as_slice() == a.as_slice());
}

/// The fused u8 NCHW C = 3 → f16 NHWC C = 4, `kib` KiB of destination.
fn fused(kib: usize, calls: usize) {
    let w = kib * 1024 / 8 / 8;
    let a = Tensor::<u8, Nchw>::from_fn([1, 3, 8, w], |[_, c, h, w]| (c + h + w) as u8).unwrap();
    let mut d = Tensor::<f16, Nhwc>::zeros([1, 4, 8, w]).unwrap();
    let t = best(|| _ = relayout_cast_pad_into(&a, &mut d, Unscaled).unwrap(), calls);
    println!(
        "{kib}KiB/u8->f16/C=3->C=4 {:.1}",
        (a.as_slice().len() + d.as_slice().len() * 2) as f64 / t / 1e9
    );
}

fn main() {
    for kib in [128, 256, 384, 512, 768, 1024] {
        planes::<f32>("f32", kib, 3000);
        planes::<u8>("u8", kib, 3000);
        fused(kib, 3000);
    }
}
