//! What the integration tests share: every pair of named layouts of a family, on shapes chosen to
//! hit each GPU kernel shape (tile, packed tile, gather rows, narrow gather, copy, two-pass), and
//! element values made from bits (compared bit for bit, so NaN payloads count too).

#![allow(dead_code)] // each test file uses part of it

pub(crate) mod emulator;
#[cfg(feature = "gpu")]
pub(crate) mod images;
pub(crate) mod model;
pub(crate) mod samples;
pub(crate) mod tracer;

use half::f16;
use typed_layout::{
    Bmn, Cdhwn, Chwn, ColMajor, Element, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout, Ncdhw, Nchw, NcxHwx,
    Ndhwc, Nhwc, RowMajor, SameFamily,
};

/// Receives each (source layout, destination layout, logical dims) in turn.
pub(crate) trait Visit {
    fn pair<S: Layout, D: Layout>(&mut self, dims: &[usize])
    where
        D::Family: SameFamily<S::Family>;
}

macro_rules! every_pair {
    ($v:ident, $shapes:expr, [$($s:ty),*]) => { every_pair!(@src $v, $shapes, [$($s),*], [$($s),*]) };
    (@src $v:ident, $shapes:expr, [$($s:ty),*], $all:tt) => { $( every_pair!(@dst $v, $shapes, $s, $all); )* };
    (@dst $v:ident, $shapes:expr, $s:ty, [$($d:ty),*]) => {
        $( for dims in $shapes { $v.pair::<$s, $d>(dims); } )*
    };
}

/// Image shapes (N, C, H, W): a big-C transpose, C = 3, C = 4 with W = 4, C = 33, C = 1,
/// W = H = 1, C = 8, and C = 12 (which NC/32HW32 rejects; visitors skip invalid shapes).
pub(crate) const IMAGE: &[&[usize]] = &[
    &[2, 64, 17, 19],
    &[1, 3, 31, 33],
    &[3, 4, 9, 4],
    &[2, 33, 5, 7],
    &[2, 1, 16, 17],
    &[1, 32, 1, 1],
    &[5, 8, 1, 40],
    &[2, 12, 6, 7],
];
/// Volume shapes (N, C, D, H, W).
pub(crate) const VOLUME: &[&[usize]] = &[&[2, 32, 5, 6, 7], &[1, 3, 4, 5, 6], &[2, 33, 3, 1, 5]];
/// Filter shapes (K, C, R, S): 3×3 with C = 64, a 7×7 stem (C = 3), 1×1 with C = 32, and a
/// depthwise 5×5 (C = 1).
pub(crate) const FILTER: &[&[usize]] = &[&[16, 64, 3, 3], &[8, 3, 7, 7], &[24, 32, 1, 1], &[32, 1, 5, 5]];
/// Volume filter shapes (K, C, D, R, S).
pub(crate) const VOLUME_FILTER: &[&[usize]] = &[&[8, 32, 3, 3, 3], &[4, 3, 1, 5, 5]];
/// Matmul shapes (B, M, N).
pub(crate) const MATMUL: &[&[usize]] = &[&[3, 40, 70], &[1, 1, 300], &[2, 130, 3], &[4, 64, 64]];

/// Visits every ordered pair (identity included) of the named layouts within each family (the
/// filter families included), and
/// NC/3HW3 ↔ NC/4HW4, whose vector widths do not nest.
pub(crate) fn every_pair(v: &mut impl Visit) {
    every_pair!(v, IMAGE, [Nchw, Nhwc, Chwn, NcxHwx<4>, NcxHwx<32>]);
    every_pair!(v, VOLUME, [Ncdhw, Ndhwc, Cdhwn]);
    every_pair!(v, MATMUL, [Bmn<RowMajor>, Bmn<ColMajor>]);
    every_pair!(v, FILTER, [Kcrs, Krsc, KcxRsx<4>, KcxRsx<32>]);
    every_pair!(v, VOLUME_FILTER, [Kcdrs, Kdrsc]);
    for dims in [&[2usize, 12, 3, 5][..], &[1, 24, 1, 7]] {
        v.pair::<NcxHwx<3>, NcxHwx<4>>(dims);
        v.pair::<NcxHwx<4>, NcxHwx<3>>(dims);
    }
}

/// Visits cuDNN's INT8x32 filter and bias reorders, conversions between split layouts: a
/// filter of K = 64, C = 32, 3×3 and one of K = 32, C = 64, 1×1, and biases of 32 and 96.
pub(crate) fn reorder_pairs(v: &mut impl Visit) {
    use typed_layout::conv::reorder::{
        filter_split, SplitBias, SplitBiasReordered, SplitKcxRsx32, SplitReordered,
    };
    for dims in [[64, 32, 3, 3], [32, 64, 1, 1]] {
        v.pair::<SplitKcxRsx32, SplitReordered>(&filter_split(dims).unwrap());
    }
    for k in [32, 96] {
        v.pair::<SplitBias, SplitBiasReordered>(&[k / 32, 4, 2, 4]);
    }
}

/// A scrambled 64-bit value of a position and a seed.
pub(crate) fn mix(seed: u64, i: usize) -> u64 {
    let mut x = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^ (x >> 29)
}

/// Element types built from bits, so every bit of every element is checked.
pub(crate) trait Bits: Element {
    fn from_bits64(b: u64) -> Self;
    fn push_bytes(&self, out: &mut Vec<u8>);
    /// Whether the value is a NaN (of the types whose `from_bits64` can make one).
    fn is_nan(&self) -> bool {
        false
    }
}
impl Bits for u8 {
    fn from_bits64(b: u64) -> Self {
        b as u8
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.push(*self)
    }
}
impl Bits for i8 {
    fn from_bits64(b: u64) -> Self {
        b as i8
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes())
    }
}
impl Bits for f16 {
    fn is_nan(&self) -> bool {
        f16::is_nan(*self)
    }
    fn from_bits64(b: u64) -> Self {
        f16::from_bits(b as u16)
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes())
    }
}
impl Bits for half::bf16 {
    fn is_nan(&self) -> bool {
        half::bf16::is_nan(*self)
    }
    fn from_bits64(b: u64) -> Self {
        half::bf16::from_bits(b as u16)
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes())
    }
}
impl Bits for i32 {
    fn from_bits64(b: u64) -> Self {
        b as i32
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes())
    }
}
impl Bits for f32 {
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32 & 0x7f7f_ffff) // finite: equality is bit equality
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes())
    }
}
impl Bits for i64 {
    fn from_bits64(b: u64) -> Self {
        b as i64
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_ne_bytes())
    }
}
impl Bits for f64 {
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b & 0x7fef_ffff_ffff_ffff)
    }
    fn push_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_ne_bytes())
    }
}

/// The bytes of a slice of elements.
pub(crate) fn bytes_of<T: Bits>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(core::mem::size_of_val(v));
    for x in v {
        x.push_bytes(&mut out);
    }
    out
}

/// The handle of device 0, or `None` after printing `SKIPPED: <test>: <why>` where there is no
/// device; a failure instead when `TL_REQUIRE_GPU` is set (as the GPU kit's runner does).
#[cfg(feature = "gpu")]
pub(crate) fn gpu_or_skip(test: &str) -> Option<layout_gpu::Gpu> {
    match layout_gpu::Gpu::new(0) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            assert!(std::env::var_os("TL_REQUIRE_GPU").is_none(), "TL_REQUIRE_GPU is set but {e}");
            println!("SKIPPED: {test}: {e}");
            None
        }
    }
}

#[cfg(feature = "gpu")]
/// `Err(why)` when NVRTC cannot be loaded (the caller prints SKIPPED); a failure instead when
/// `TL_REQUIRE_NVRTC` is set (as `.ci/run` does, after installing NVRTC).
pub(crate) fn nvrtc_present() -> Result<(), String> {
    if layout_gpu::kernels::nvrtc_available() {
        return Ok(());
    }
    let reason =
        "NVRTC (libnvrtc.so) not found; `pip install nvidia-cuda-nvrtc` and put its nvidia/cu13/lib \
                  on LD_LIBRARY_PATH, as .ci/run does (bench/cuda-libs.sh)";
    assert!(std::env::var_os("TL_REQUIRE_NVRTC").is_none(), "TL_REQUIRE_NVRTC is set but {reason}");
    Err(reason.into())
}

/// Values that sit on the conversions' edges.
pub(crate) const SPECIALS: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    127.5,
    -128.5,
    255.5,
    65504.0,
    65519.0,
    65520.0,
    1e-8,
    -3e-8,
    6e-5,
    1e300,
    -1e300,
    2147483647.5,
    -2147483648.5,
    9.3e18,
    -9.3e18,
    3.4e38,
    1e-40,
];

/// A value for cast tests: arbitrary bits, a moderate value, an exact half, or a special.
pub(crate) fn sample<S: Bits>(seed: u64, i: usize) -> S
where
    typed_layout::cast::Unscaled: typed_layout::cast::Cast<f64, S>,
{
    use typed_layout::cast::Cast as _;
    let r = mix(seed, i);
    match i % 4 {
        0 if S::DATA_TYPE == typed_layout::DataType::Float => {
            typed_layout::cast::Unscaled.cast(f32::from_bits(r as u32) as f64) // any f32 bits, NaN and infinities too
        }
        0 => S::from_bits64(r),
        1 => typed_layout::cast::Unscaled.cast(((r % 200_001) as f64 - 100_000.0) / 37.0),
        2 => typed_layout::cast::Unscaled.cast(((r % 601) as f64 - 300.0) / 2.0),
        _ => typed_layout::cast::Unscaled.cast(SPECIALS[r as usize % SPECIALS.len()]),
    }
}
