//! How a pass on all threads is dispatched, from a thread outside rayon's pool (as a program's
//! main thread calls) and from a pool's worker (inside one `install`): 1 MiB conversions,
//! `to_layout_into`, the best and the median of 4000 calls, as `row GB/s` lines (bytes read +
//! written). The median shows what the best hides: calls whose caller waited asleep for its
//! helper. Built against two trees and raced by `AB_PROGRAM=bench/dispatch/main.rs bash
//! bench/ab.sh OLD [NEW]`.
use half::f16;
use std::time::Instant;
use typed_layout::{Element, Nchw, Nhwc, Tensor};

/// The best and the median time of `calls` calls of `f`, in seconds.
fn times(mut f: impl FnMut(), calls: usize) -> (f64, f64) {
    let mut t: Vec<f64> = (0..calls)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[calls / 2])
}

/// NCHW → NHWC of 1 MiB with C = 64, from outside the pool and from a worker of `pool`.
fn row<T: Element + From<u8>>(name: &str, pool: &rayon::ThreadPool) {
    let w = (1 << 20) / T::SIZE / 64 / 64;
    let a = Tensor::<T, Nchw>::from_fn([1, 64, 64, w], |[_, c, h, w]| T::from(((c + h + w) % 100) as u8))
        .unwrap();
    let mut b = Tensor::<T, Nhwc>::zeros([1, 64, 64, w]).unwrap();
    let gb = |t: f64| (2 << 20) as f64 / t / 1e9;
    let (best, median) = times(|| a.to_layout_into(&mut b).unwrap(), 4000);
    println!("{name}/outside/best {:.1}\n{name}/outside/median {:.1}", gb(best), gb(median));
    let (best, median) = pool.install(|| times(|| a.to_layout_into(&mut b).unwrap(), 4000));
    println!("{name}/worker/best {:.1}\n{name}/worker/median {:.1}", gb(best), gb(median));
}

fn main() {
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    row::<f32>("f32", &pool);
    row::<f16>("f16", &pool);
    row::<u8>("u8", &pool);
}
