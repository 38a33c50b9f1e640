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

/// Calls `$f::<T, L>(dims)` (or `$f::<T, L>(arg, dims)`) for every data type `T` and every
/// named layout `L` (vectorized ones included), each with its own dims.
#[allow(unused_macros)] // each test file uses part of the support
macro_rules! every_named_layout_and_type {
    ($f:ident $(, $arg:expr)?) => {{
        use half::{bf16, f16};
        use typed_layout::*;
        every_named_layout_and_type!(@layouts $f ($($arg)?), f32, f64, f16, bf16, i8, u8, i32, i64);
    }};
    (@call $f:ident, $t:ty, $l:ty, ($($arg:expr)?), $dims:expr) => {
        $f::<$t, $l>($($arg,)? $dims)
    };
    (@layouts $f:ident $args:tt, $($t:ty),*) => {$(
        every_named_layout_and_type!(@call $f, $t, Nchw, $args, &[2, 3, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, Nhwc, $args, &[2, 3, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, Chwn, $args, &[2, 3, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, NcxHwx<4>, $args, &[2, 8, 3, 5]);
        every_named_layout_and_type!(@call $f, $t, NcxHwx<32>, $args, &[1, 64, 3, 2]);
        every_named_layout_and_type!(@call $f, $t, Ncdhw, $args, &[2, 3, 2, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, Ndhwc, $args, &[2, 3, 2, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, Cdhwn, $args, &[2, 3, 2, 4, 5]);
        every_named_layout_and_type!(@call $f, $t, Bmn<RowMajor>, $args, &[2, 3, 7]);
        every_named_layout_and_type!(@call $f, $t, Bmn<ColMajor>, $args, &[2, 3, 7]);
        every_named_layout_and_type!(@call $f, $t, Kcrs, $args, &[4, 3, 3, 5]);
        every_named_layout_and_type!(@call $f, $t, Krsc, $args, &[4, 3, 3, 5]);
        every_named_layout_and_type!(@call $f, $t, KcxRsx<4>, $args, &[4, 8, 3, 3]);
        every_named_layout_and_type!(@call $f, $t, Kcdrs, $args, &[4, 3, 2, 3, 3]);
        every_named_layout_and_type!(@call $f, $t, Kdrsc, $args, &[4, 3, 2, 3, 3]);
    )*};
}
#[allow(unused_imports)] // each test file uses part of the support
pub(crate) use every_named_layout_and_type;
