//! The 256 MiB rows of BENCHMARKS.md, timed through the public API: one line per row, the best
//! GB/s (bytes read + written) of `REPS` conversions. Built twice by `bench/ab.sh`, against two
//! commits, and run in alternating rounds. `ROW=f32/c3` runs the rows whose name contains it
//! (15 repetitions each).
use std::time::Instant;
use typed_layout::{convert, Bmn, ColMajor, Element, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Tensor, DimsOf};
fn row<T: Element, S: Layout, D: Layout>(name: &str, dims: DimsOf<S>, reps: usize) where D::Family: SameFamily<S::Family> {
    if let Ok(f) = std::env::var("ROW") { if !name.contains(&f) { return; } }
    let reps = if std::env::var("ROW").is_ok() { 15 } else { reps };
    // Best of `reps`: the machine is shared, the fastest run is the one least disturbed.
    // A written source: a zeroed one would be fresh pages that all read as the one zero page,
    // from the cache, and the rows would time the writes alone.
    let a = Tensor::<T, S>::filled(dims, T::from_f64(1.0)).unwrap();
    let mut b = Tensor::<T, D>::zeros(D::Family::same_dims(dims)).unwrap();
    let bytes = 2 * a.as_slice().len() * core::mem::size_of::<T>();
    let mut best = f64::MAX;
    for _ in 0..reps { let t = Instant::now(); convert(&a, &mut b).unwrap(); best = best.min(t.elapsed().as_secs_f64()); }
    println!("{name} {:.2}", bytes as f64 / best / 1e9);
}
fn all<T: Element>(t: &str, e: usize) {
    let n = (256 << 20) / e; // elements for 256 MiB
    let r = 5;
    row::<T, Nchw, Nhwc>(&format!("{t}/nchw-nhwc"), [4, 256, 256, n / (4 * 256 * 256)], r);
    row::<T, Nhwc, Nchw>(&format!("{t}/nhwc-nchw"), [4, 256, 256, n / (4 * 256 * 256)], r);
    row::<T, Nchw, NcxHwx<32>>(&format!("{t}/nchw-nc32"), [4, 256, 256, n / (4 * 256 * 256)], r);
    row::<T, Ncdhw, Ndhwc>(&format!("{t}/ncdhw-ndhwc"), [4, 64, 16, 64, n / (4 * 64 * 16 * 64)], r);
    row::<T, Bmn<RowMajor>, Bmn<ColMajor>>(&format!("{t}/bmn"), [4, 4096, n / (4 * 4096)], r);
    row::<T, Nchw, Nhwc>(&format!("{t}/c3"), [n / (3 * 512 * 512), 3, 512, 512], r);
}
fn main() { all::<f32>("f32", 4); all::<half::f16>("f16", 2); all::<u8>("u8", 1); }
