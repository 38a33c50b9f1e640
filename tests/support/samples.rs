//! Element values of every data type and the named layouts each interop test runs through: one
//! formula, one list, so that every way in and out is checked on the same tensors.

use half::{bf16, f16};
use typed_layout::{DimArray, DimsOf, Element, Layout, Tensor};

/// The element at logical row-major position `p`: `(p * 7 + 3) % 251` (i8: minus 125), the
/// formula of the Python fixtures too (`tests/fixtures/*.py`).
pub(crate) trait Sample: Element {
    fn at(p: usize) -> Self;
    /// Another data type, to ask for by mistake.
    type Other: Element;
}

macro_rules! sample {
    ($($t:ty => |$v:ident| $e:expr, $other:ty;)*) => {$(
        impl Sample for $t {
            fn at(p: usize) -> Self {
                let $v = ((p * 7 + 3) % 251) as i64;
                $e
            }
            type Other = $other;
        }
    )*};
}
sample! {
    f32 => |v| v as f32, i32;
    f64 => |v| v as f64, i64;
    f16 => |v| f16::from_f32(v as f32), bf16;
    bf16 => |v| bf16::from_f32(v as f32), f16;
    i8 => |v| (v - 125) as i8, u8;
    u8 => |v| v as u8, i8;
    i32 => |v| v as i32, f32;
    i64 => |v| v, f64;
}

/// A tensor of `dims` (logical order) whose element at each index is [`Sample::at`] of its
/// logical row-major position.
pub(crate) fn logical<T: Sample, L: Layout>(dims: &[usize]) -> Tensor<T, L> {
    let d: DimsOf<L> = DimsOf::<L>::from_fn(|k| dims[k]);
    Tensor::from_fn(d, |i| T::at(i.as_ref().iter().zip(dims).fold(0, |a, (&k, &n)| a * n + k))).unwrap()
}

/// Calls `$f::<T, L>(dims)` for every data type `T` and every named layout `L` (vectorized ones
/// included), each with its own dims.
#[allow(unused_macros)] // each test file uses part of the support
macro_rules! every_named_layout_and_type {
    ($f:ident) => {{
        use half::{bf16, f16};
        use typed_layout::*;
        every_named_layout_and_type!(@layouts $f, f32, f64, f16, bf16, i8, u8, i32, i64);
    }};
    (@layouts $f:ident, $($t:ty),*) => {$(
        $f::<$t, Nchw>(&[2, 3, 4, 5]);
        $f::<$t, Nhwc>(&[2, 3, 4, 5]);
        $f::<$t, Chwn>(&[2, 3, 4, 5]);
        $f::<$t, NcxHwx<4>>(&[2, 8, 3, 5]);
        $f::<$t, NcxHwx<32>>(&[1, 64, 3, 2]);
        $f::<$t, Ncdhw>(&[2, 3, 2, 4, 5]);
        $f::<$t, Ndhwc>(&[2, 3, 2, 4, 5]);
        $f::<$t, Cdhwn>(&[2, 3, 2, 4, 5]);
        $f::<$t, Bmn<RowMajor>>(&[2, 3, 7]);
        $f::<$t, Bmn<ColMajor>>(&[2, 3, 7]);
        $f::<$t, Kcrs>(&[4, 3, 3, 5]);
        $f::<$t, Krsc>(&[4, 3, 3, 5]);
        $f::<$t, KcxRsx<4>>(&[4, 8, 3, 3]);
        $f::<$t, Kcdrs>(&[4, 3, 2, 3, 3]);
        $f::<$t, Kdrsc>(&[4, 3, 2, 3, 3]);
    )*};
}
#[allow(unused_imports)] // each test file uses part of the support
pub(crate) use every_named_layout_and_type;
