//! The CPU conversion's inner loops, one by one: narrow planes (C = 2..7, interleaved or
//! deinterleaved), 8×8 transpose blocks for every element size (SSE2 shuffles for 1, 2 and 4
//! bytes on x86-64, words elsewhere), ragged block and tile edges. Every element is checked at
//! its logical index, against values that differ between neighbours in every direction.

use half::f16;
use typed_layout::{Bmn, ColMajor, Element, Image, Layout, Nchw, NcxHwx, Nhwc, RowMajor, Tensor};

/// A scrambled value of a position, so that a misplaced element shows even in 8 bits.
fn mix(i: &[usize]) -> u64 {
    i.iter()
        .fold(0x9e37_79b9_7f4a_7c15u64, |h, &k| (h ^ k as u64).wrapping_mul(0x0100_0000_01b3).rotate_left(29))
}

trait Value: Element {
    fn of(i: &[usize]) -> Self;
}
impl Value for u8 {
    fn of(i: &[usize]) -> Self {
        mix(i) as u8
    }
}
impl Value for f16 {
    fn of(i: &[usize]) -> Self {
        f16::from_bits(mix(i) as u16 & 0x7bff) // finite, so equality is bit equality
    }
}
impl Value for f32 {
    fn of(i: &[usize]) -> Self {
        (mix(i) % (1 << 24)) as f32
    }
}
impl Value for f64 {
    fn of(i: &[usize]) -> Self {
        (mix(i) % (1 << 52)) as f64
    }
}

fn image<T: Value, S: Layout<Family = Image>, D: Layout<Family = Image>>(dims: [usize; 4]) {
    let x = Tensor::<T, S>::from_fn(dims, |i| T::of(&i)).unwrap();
    let y: Tensor<T, D> = x.to_layout().unwrap();
    let [n, c, h, w] = dims;
    for i in (0..n)
        .flat_map(|a| (0..c).flat_map(move |b| (0..h).flat_map(move |e| (0..w).map(move |f| [a, b, e, f]))))
    {
        assert_eq!(y.get(i), Some(&T::of(&i)), "{} -> {} {dims:?} at {i:?}", S::NOTATION, D::NOTATION);
    }
}

fn matrix<T: Value>(dims: [usize; 3]) {
    let x = Tensor::<T, Bmn<RowMajor>>::from_fn(dims, |i| T::of(&i)).unwrap();
    let y: Tensor<T, Bmn<ColMajor>> = x.to_layout().unwrap();
    let z: Tensor<T, Bmn<RowMajor>> = y.to_layout().unwrap();
    let [b, m, n] = dims;
    for i in (0..b).flat_map(|a| (0..m).flat_map(move |e| (0..n).map(move |f| [a, e, f]))) {
        assert_eq!(y.get(i), Some(&T::of(&i)), "Bmn row -> col {dims:?} at {i:?}");
    }
    assert!(z.as_slice() == x.as_slice(), "Bmn round trip {dims:?}");
}

fn every_path<T: Value>() {
    // H·W = 1073 crosses block edges.
    for c in (1..=9).chain([15, 16, 17, 33]) {
        let dims = [2, c, 29, 37];
        image::<T, Nchw, Nhwc>(dims);
        image::<T, Nhwc, Nchw>(dims);
    }
    // Tiles: H·W = 4199 runs past a 4 KiB sweep for every element size, C = 70 past the 64
    // streams across one, both with ragged blocks at the ends.
    image::<T, Nchw, Nhwc>([1, 70, 19, 221]);
    image::<T, Nhwc, Nchw>([1, 70, 19, 221]);
    image::<T, Nchw, NcxHwx<32>>([1, 64, 9, 13]);
    image::<T, NcxHwx<32>, Nhwc>([2, 32, 3, 11]);
    for dims in [[1, 8, 8], [2, 9, 17], [1, 3, 300], [1, 300, 5], [1, 130, 70]] {
        matrix::<T>(dims);
    }
}

#[test]
fn one_byte_elements() {
    every_path::<u8>();
}

#[test]
fn two_byte_elements() {
    every_path::<f16>();
}

#[test]
fn four_byte_elements() {
    every_path::<f32>();
}

#[test]
fn eight_byte_elements() {
    every_path::<f64>();
}
