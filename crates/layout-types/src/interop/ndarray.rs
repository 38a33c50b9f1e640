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

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn, ShapeBuilder};

use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{DimArray, Family};
use crate::layout::{DimsOf, Layout, PerDimStrides, Shape};
use crate::tensor::{Storage, StorageMut, Tensor, TensorBase, TensorView, TensorViewMut};

/// An ndarray view of `t` in logical axis order, sharing its memory: for layouts with one stride
/// per dimension (not NC/xHWx's vectors), which is every tensor or view in a layout.
pub fn array_view<S, L>(t: &TensorBase<S, L>) -> Result<ArrayViewD<'_, S::Elem>, LayoutError>
where
    S: Storage,
    L: Layout + PerDimStrides,
{
    // Packed layouts have positive strides; the storage holds exactly the shape's elements.
    let (dims, strides) = view_shape(t);
    ArrayViewD::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), t.as_slice())
        .map_err(|_| LayoutError::NotApplicable { reason: "ndarray refuses this tensor's strides as a view" })
}

/// [`array_view`], mutable: writes through the array land in the tensor.
///
/// ```
/// use typed_layout::interop::ndarray::array_view_mut;
/// use typed_layout::{Nhwc, Tensor};
/// let mut t = Tensor::<u8, Nhwc>::zeros([1, 3, 2, 2])?;
/// array_view_mut(&mut t)?[[0, 2, 1, 0]] = 7; // logical [n, c, h, w]
/// assert_eq!(t[[0, 2, 1, 0]], 7);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn array_view_mut<S, L>(t: &mut TensorBase<S, L>) -> Result<ArrayViewMutD<'_, S::Elem>, LayoutError>
where
    S: StorageMut,
    L: Layout + PerDimStrides,
{
    let (dims, strides) = view_shape(t);
    ArrayViewMutD::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), t.as_mut_slice())
        .map_err(|_| LayoutError::NotApplicable { reason: "ndarray refuses this tensor's strides as a view" })
}

/// Logical dims and (non-negative: the tensor is in a layout) strides of `t`.
fn view_shape<S: Storage, L: Layout + PerDimStrides>(t: &TensorBase<S, L>) -> (Vec<usize>, Vec<usize>) {
    let dims = t.shape().placement().dims().to_vec();
    let strides = t.strides().as_ref().iter().map(|&s| s as usize).collect();
    (dims, strides)
}

/// The shape of layout `L` that `shape` and `strides` (an array's) describe, or the error naming
/// the first dimension whose stride is not `L`'s.
fn layout_shape<L: Layout + PerDimStrides>(
    shape: &[usize],
    strides: &[isize],
) -> Result<Shape<L>, LayoutError> {
    let layout = Shape::<L>::from_slice(shape)?;
    super::same_strides(shape, strides, layout.strides().as_ref(), L::Family::LETTERS.as_bytes())?;
    Ok(layout)
}

/// The error of an array whose elements are not one run of memory.
const NOT_CONTIGUOUS: LayoutError =
    LayoutError::NotApplicable { reason: "the array's elements are not one contiguous run of memory" };

/// A typed view of `a`, sharing its memory: its strides must be layout `L`'s for its dims
/// ([`LayoutError::StrideMismatch`] names the first that is not; [`tensor`] copies instead).
pub fn tensor_view<'a, T: Element, L: Layout + PerDimStrides>(
    a: ArrayViewD<'a, T>,
) -> Result<TensorView<'a, T, L>, LayoutError> {
    let shape = layout_shape::<L>(a.shape(), a.strides())?;
    let data = a.to_slice_memory_order().ok_or(NOT_CONTIGUOUS)?;
    TensorView::<'a, T, L>::new_in(shape, data)
}

/// [`tensor_view`], mutable: writes through the typed view land in the array.
pub fn tensor_view_mut<'a, T: Element, L: Layout + PerDimStrides>(
    a: ArrayViewMutD<'a, T>,
) -> Result<TensorViewMut<'a, T, L>, LayoutError> {
    let shape = layout_shape::<L>(a.shape(), a.strides())?;
    let data = a.into_slice_memory_order().ok_or(NOT_CONTIGUOUS)?;
    TensorViewMut::<'a, T, L>::new_in(shape, data)
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
