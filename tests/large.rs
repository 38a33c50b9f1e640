//! Conversions above the parallel threshold (multi-threaded with the default `parallel`
//! feature): every element lands at its logical index, padding is left alone.

use typed_layout::PARALLEL_THRESHOLD_BYTES;
use typed_layout::{convert, layout, Layout, Nchw, NcxHwx, Nhwc, Shape, Tensor};

layout! {
    /// NHWC with padded rows and images.
    pub struct NhwcRows = "NHWC, WC-packed";
}

fn value([n, c, h, w]: [usize; 4]) -> i32 {
    (n << 24 | c << 14 | h << 7 | w) as i32
}

fn check<D: Layout<Family = typed_layout::Image>>(x: &Tensor<i32, Nchw>, y: &Tensor<i32, D>) {
    let [n, c, h, w] = x.dims();
    for i in (0..n)
        .flat_map(|a| (0..c).flat_map(move |b| (0..h).flat_map(move |e| (0..w).map(move |f| [a, b, e, f]))))
    {
        assert_eq!(y.get(i), Some(&value(i)), "{} at {i:?}", D::NOTATION);
    }
}

#[test]
fn large_conversions_put_every_element_in_place() {
    // 3 × 64 × 37 × 41 i32 = 1.1 MiB: above the threshold, with ragged tiles.
    let dims = [3, 64, 37, 41];
    assert!(dims.iter().product::<usize>() * 4 >= PARALLEL_THRESHOLD_BYTES);
    let x = Tensor::<i32, Nchw>::from_fn(dims, value).unwrap();
    let nhwc: Tensor<i32, Nhwc> = x.to_layout().unwrap();
    check(&x, &nhwc);
    let vect: Tensor<i32, NcxHwx<32>> = nhwc.to_layout().unwrap();
    check(&x, &vect);
    let back: Tensor<i32, Nchw> = vect.to_layout().unwrap();
    assert_eq!(back.as_slice(), x.as_slice());

    // N = 1: the split falls on the fused H·W axis instead of the batch.
    let one = Tensor::<i32, Nchw>::from_fn([1, 64, 97, 61], value).unwrap();
    let one_nhwc: Tensor<i32, Nhwc> = one.to_layout().unwrap();
    check(&one, &one_nhwc);
}

#[test]
fn large_padded_destination_keeps_its_padding() {
    let dims = [2, 48, 40, 50];
    let strides = [40 * 2500 + 7, 1, 2500, 48];
    let x = Tensor::<i32, Nchw>::from_fn(dims, value).unwrap();
    let shape = Shape::<NhwcRows>::with_strides(dims, strides).unwrap();
    let mut rows = Tensor::<i32, NhwcRows>::filled_in(shape, i32::MIN).unwrap();
    convert(&x, &mut rows).unwrap();
    check(&x, &rows);
    let written = dims.iter().product::<usize>();
    let untouched = rows.as_slice().iter().filter(|&&v| v == i32::MIN).count();
    assert_eq!(untouched, rows.as_slice().len() - written);
}

/// Fresh storage past the huge-page threshold (8 MiB) is faulted in ahead of its first write
/// and must still read as zeros, and a large `to_layout` writes every element of it.
#[test]
fn large_fresh_tensors_are_zero_and_fully_written() {
    let zeros = Tensor::<i32, Nhwc>::zeros([2, 64, 128, 136]).unwrap();
    assert!(zeros.as_slice().len() * 4 > 8 << 20);
    assert!(zeros.as_slice().iter().all(|&v| v == 0));
    let x = Tensor::<i32, Nchw>::from_fn([2, 64, 128, 136], value).unwrap();
    let y = x.to_layout::<Nhwc>().unwrap();
    check(&x, &y);
}
