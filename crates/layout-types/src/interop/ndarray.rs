//! ndarray (feature `ndarray`): a tensor seen as an ndarray view and an ndarray view seen as a
//! typed tensor view, without copying, wherever the memory allows it; owned conversions both ways
//! otherwise. Axes are always in the family's logical order (`[n, c, h, w]` for NHWC too), so
//! `a[[n, c, h, w]]` and `t[[n, c, h, w]]` are one element.
//!
//! ```
//! use typed_layout::interop::ndarray::{array_view, tensor_view, to_array};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! let t = Tensor::<f32, Nhwc>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as f32)?;
//! let a = array_view(&t)?; // no copy: NHWC's strides, axes in logical order
//! assert_eq!((a.shape(), a.strides()), (&[1, 3, 2, 2][..], &[12, 1, 6, 3][..]));
//! assert_eq!(a[[0, 2, 1, 0]], 210.0);
//! let back = tensor_view::<f32, Nhwc>(a.view())?; // the same memory, typed again
//! assert_eq!(back.as_slice().as_ptr(), t.as_slice().as_ptr());
//! // An NHWC array is not an NCHW view: the error names the first stride that differs.
//! let err = tensor_view::<f32, Nchw>(a.view()).unwrap_err();
//! assert!(err.to_string().contains("stride"), "{err}");
//! assert_eq!(to_array(&t)?.as_slice().map(|s| s.len()), Some(12));
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder};

use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{DimArray, Family};
use crate::layout::{DimsOf, Layout, PerDimStrides, Shape};
use crate::tensor::{Storage, Tensor, TensorBase, TensorView};

/// An ndarray view of `t` in logical axis order, sharing its memory: for layouts with one stride
/// per dimension (not NC/xHWx's vectors), which is every tensor or view in a layout.
pub fn array_view<S, L>(t: &TensorBase<S, L>) -> Result<ArrayViewD<'_, S::Elem>, LayoutError>
where
    S: Storage,
    L: Layout + PerDimStrides,
{
    let shape = t.shape();
    let dims: Vec<usize> = shape.placement().dims().to_vec();
    let strides: Vec<usize> = t.strides().as_ref().iter().map(|&s| s as usize).collect();
    // Packed layouts have positive strides; the storage holds exactly the shape's elements.
    ArrayViewD::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), t.as_slice())
        .map_err(|_| LayoutError::NotApplicable { reason: "ndarray refuses this tensor's strides as a view" })
}

/// A typed view of `a`, sharing its memory: its strides must be layout `L`'s for its dims
/// ([`LayoutError::StrideMismatch`] names the first that is not; [`tensor`] copies instead).
pub fn tensor_view<'a, T: Element, L: Layout + PerDimStrides>(
    a: ArrayViewD<'a, T>,
) -> Result<TensorView<'a, T, L>, LayoutError> {
    let shape = Shape::<L>::from_slice(a.shape())?;
    let expected = shape.strides();
    let letters = L::Family::LETTERS.as_bytes();
    for (d, (&want, &got)) in expected.as_ref().iter().zip(a.strides()).enumerate() {
        // A dim of size 1 has no stride to keep: any value addresses the same elements.
        if want != got && a.shape()[d] > 1 {
            return Err(LayoutError::StrideMismatch {
                dim: DimName::new(d, letters),
                expected: want,
                found: got,
            });
        }
    }
    let data = a.to_slice_memory_order().ok_or(LayoutError::NotApplicable {
        reason: "the array's elements are not one contiguous run of memory",
    })?;
    TensorView::<'a, T, L>::new_in(shape, data)
}

/// `t` copied into an owned array in logical axis order, standard (row-major) memory order.
pub fn to_array<S, L>(t: &TensorBase<S, L>) -> Result<ArrayD<S::Elem>, LayoutError>
where
    S: Storage,
    L: Layout + PerDimStrides,
{
    Ok(array_view(t)?.as_standard_layout().into_owned())
}

/// `a` (any strides, axes in logical order) copied into a new tensor of layout `L`.
pub fn tensor<T: Element, L: Layout>(a: ArrayViewD<'_, T>) -> Result<Tensor<T, L>, LayoutError> {
    let shape = Shape::<L>::from_slice(a.shape())?;
    let dims: DimsOf<L> = DimsOf::<L>::from_fn(|k| shape.placement().dims()[k]);
    Tensor::from_fn(dims, |i| a[IxDyn(i.as_ref())])
}
