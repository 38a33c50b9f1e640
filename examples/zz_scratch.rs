//! scratch
use std::hint::black_box;
use std::time::{Duration, Instant};
use typed_layout::{convert, Element, Nchw, Nhwc, Tensor};
fn run<T: Element + From<u8>>(junk: &mut [u8], junk_src: &[u8]) {
    let (h, w) = (128usize, (1usize << 20) / T::SIZE / 384 / 8 * 8 + 8);
    let src =
        Tensor::<T, Nchw>::from_fn([1, 3, h, w], |[_, c, y, x]| T::from((c * 7 + y * 3 + x) as u8)).unwrap();
    let mut dst = Tensor::<T, Nhwc>::zeros([1, 3, h, w]).unwrap();
    let g = |d: Duration| 2.0 * (3 * h * w * T::SIZE) as f64 / d.as_secs_f64() / 1e9;
    let mut line = String::new();
    for mode in 0..4 {
        let mut best = Duration::MAX;
        for _ in 0..300 {
            if mode >= 2 {
                junk.copy_from_slice(junk_src);
            }
            if mode == 1 || mode == 3 {
                rayon::broadcast(|_| ());
            }
            let t = Instant::now();
            convert(black_box(&src), &mut dst).unwrap();
            best = best.min(t.elapsed());
        }
        line += &format!(" {}: {:.1}", ["hot", "hot+wake", "evict", "evict+wake"][mode], g(best));
    }
    println!("{}:{line}", core::any::type_name::<T>());
}
fn main() {
    let mut junk = vec![0u8; 8 << 20];
    let junk_src = vec![1u8; 8 << 20];
    for _ in 0..2 {
        run::<u8>(&mut junk, &junk_src);
        run::<half::f16>(&mut junk, &junk_src);
        run::<f32>(&mut junk, &junk_src);
    }
}
