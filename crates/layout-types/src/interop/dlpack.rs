//! DLPack (feature `dlpack`): host tensors out without a copy, and foreign host tensors in, the
//! layout carried in the strides.
//!
//! DLPack is the exchange format of PyTorch, JAX, CuPy and NumPy: a data pointer, a shape and
//! strides in elements. Only versioned DLPack (1.x, `dltensor_versioned` capsules) is exchanged:
//! ask a producer for it (`x.__dlpack__(max_version=(1, 0))`). typed-layout's tensors go out as
//! [`Dlpack`], the managed tensor of dlpark 0.10, which typed-layout does not re-export: add
//! `dlpark = "0.10"` to call its `into_raw` / `from_raw`, or its `pyo3` feature to hand a tensor
//! to Python as a capsule. Tensors go out as:
//!
//! * a layout with one stride per dimension (NCHW, NHWC, CHWN, the volumes, BMN, the filters) as
//!   its **logical** dims with the layout's strides: an NHWC image is shape `[N, C, H, W]` with
//!   strides `[H·W·C, 1, W·C, C]`, exactly how PyTorch describes a `channels_last` tensor and
//!   NumPy a transposed array;
//! * a vectorized layout (NC/xHWx, KC/xRSx), whose split C no stride can express, as its
//!   **physical** array: `[N, C/x, H, W, x]` with its axes' strides, compact unless the tensor
//!   is padded (what cuDNN's int8x32 users hand around). The exchange carries no layout name:
//!   such an array reads back as itself only through [`tensor_view`] naming the layout.
//!
//! Device tensors (CUDA) go out and come in through the GPU backend's `typed_layout::gpu::dlpack`
//! (features `gpu` and `dlpack`), with the same [`geometry`] and [`placement`].
//!
//! Coming in, a foreign tensor's metadata is checked ([`DlpackInfo`], safe), then its memory is
//! borrowed as a [`DlpackRef`] (an `unsafe` step: nothing can check a raw pointer), then read as
//! the layout asked for ([`tensor_view`]), as any strides ([`strided_view`]) or as a copy in the
//! layout its strides show, row-major when they show none ([`dyn_tensor`]).
//!
//! **Size-1 dims.** A dimension of extent 1 never steps, so producers give it any stride
//! (PyTorch's `channels_last` of a one-pixel image has C's stride 1 and W's stride C, or not): a
//! stride there says nothing about the layout. [`tensor_view`] compares the strides of the other
//! dims only, so the layout asked for wins; [`dyn_tensor`] takes the first layout of the family,
//! in the order row-major first (NCHW, NHWC, CHWN; NCDHW, NDHWC, CDHWN; BMN row-, then
//! column-major), whose strides agree on every dim longer than 1: all of those store the same
//! elements at the same offsets, and row-major is what every DLPack consumer assumes of a
//! tensor that gives no strides.
//!
//! ```
//! use typed_layout::interop::dlpack::{self, DlpackRef};
//! use typed_layout::{Nchw, Nhwc, Tensor};
//! let x = Tensor::<f32, Nhwc>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
//! let expected = x.clone();
//! let exported = dlpack::export(x)?;
//! // SAFETY: the tensor is ours, alive while `r` borrows it, and nothing writes it.
//! let r = unsafe { DlpackRef::new(&exported)? };
//! assert_eq!((r.shape(), r.strides()), (&[1, 3, 2, 2][..], &[12, 1, 6, 3][..]));
//! let view = dlpack::tensor_view::<f32, Nhwc>(&r)?;
//! assert_eq!(view.to_layout::<Nhwc>()?, expected);
//! // The same memory is no NCHW tensor: its strides name the dimension that differs.
//! let e = dlpack::tensor_view::<f32, Nchw>(&r).unwrap_err();
//! assert!(e.to_string().starts_with("dimension C (logical index 1) has stride 1 in the array but 4 in the layout"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::desc::DynLayout;
use crate::dtype::Element;
use crate::dynamic::DynTensor;
use crate::error::LayoutError;
use crate::family::{DimArray, Family};
use crate::layout::{Layout, Shape};
use crate::placement::Placement;
use crate::tensor::{StridedView, Tensor, TensorView};

pub use crate::error::DlpackError;
pub use crate::platform::dlpack::{dl_data_type, Dlpack, DlpackInfo, DlpackRef};

/// Exports `tensor` without a copy: the managed tensor owns its storage until the consumer's
/// deleter drops it.
pub fn export<T: Element, L: Layout>(tensor: Tensor<T, L>) -> Result<Dlpack, DlpackError> {
    export_dyn(DynTensor::from(tensor))
}

/// Exports a runtime tensor without a copy (as [`export`]).
pub fn export_dyn(tensor: DynTensor) -> Result<Dlpack, DlpackError> {
    let (shape, strides) = geometry(&tensor.layout(), tensor.placement());
    let data_type = tensor.data_type();
    crate::platform::dlpack::export(
        Box::new(tensor),
        |t| t.as_bytes_mut().as_mut_ptr(),
        data_type,
        &shape,
        &strides,
    )
}

/// The shape and strides a tensor of `layout` and `placement` is exchanged with: logical dims
/// and strides, or for a vectorized layout its physical axes and their strides (compact for a
/// packed tensor; a padded one's padding stays in them). The export of every tensor, here and
/// in the GPU backend.
///
/// ```
/// use typed_layout::interop::dlpack;
/// use typed_layout::{DynLayout, NcxHwx, Shape};
/// let shape = Shape::<NcxHwx<32>>::new([1, 64, 2, 3])?;
/// let (dims, strides) = dlpack::geometry(&DynLayout::of::<NcxHwx<32>>(), shape.placement());
/// assert_eq!((dims, strides), (vec![1, 2, 2, 3, 32], vec![384, 192, 96, 32, 1]));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn geometry(layout: &DynLayout, placement: &Placement) -> (Vec<usize>, Vec<usize>) {
    match layout.format().vector() {
        None => (placement.dims().to_vec(), placement.strides().to_vec()),
        Some(_) => placement.axes().iter().map(|a| (a.extent, a.stride)).unzip(),
    }
}

/// `StrideMismatch` at the first dim longer than 1 whose stride differs from the layout's
/// (the ndarray reader's check, on DLPack's unsigned strides; `found` from a [`DlpackInfo`] or
/// [`DlpackRef`], below `isize::MAX`).
fn same_strides(
    shape: &[usize],
    found: &[usize],
    expected: &[usize],
    letters: &[u8],
) -> Result<(), LayoutError> {
    // A stride past isize::MAX is no placement's: it reads as isize::MAX, which differs.
    let signed =
        |v: &[usize]| v.iter().map(|&s| isize::try_from(s).unwrap_or(isize::MAX)).collect::<Vec<_>>();
    super::same_strides(shape, &signed(found), &signed(expected), letters)
}

/// The placement in `layout` of an exchanged tensor of `shape` and `strides` (in elements), if
/// they are that layout's [`geometry`] (strides of size-1 dims aside; see the module's rule),
/// else the error naming the first dim that differs. The import of every tensor, here and in
/// the GPU backend.
///
/// ```
/// use typed_layout::interop::dlpack;
/// use typed_layout::{DynLayout, LayoutError};
/// let nhwc = DynLayout::parse("NHWC")?;
/// let p = dlpack::placement(&nhwc, &[2, 3, 4, 5], &[60, 1, 15, 3])?;
/// assert_eq!(p.strides(), &[60, 1, 15, 3]);
/// // One pixel: W's stride says nothing, NHWC wins.
/// assert!(dlpack::placement(&nhwc, &[2, 3, 4, 1], &[12, 1, 3, 99]).is_ok());
/// let e = dlpack::placement(&nhwc, &[2, 3, 4, 5], &[60, 20, 5, 1]).unwrap_err();
/// assert!(matches!(e, LayoutError::StrideMismatch { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn placement(layout: &DynLayout, shape: &[usize], strides: &[usize]) -> Result<Placement, LayoutError> {
    if strides.len() != shape.len() {
        return Err(LayoutError::StrideCount { dims: shape.len(), strides: strides.len() });
    }
    let letters = layout.letters().as_bytes();
    match layout.format().vector() {
        None => {
            let placement = layout.shape(shape)?;
            same_strides(shape, strides, placement.strides(), letters)?;
            Ok(placement)
        }
        Some(_) => {
            let placement = layout.from_physical(shape)?;
            let expected: Vec<usize> = placement.axes().iter().map(|a| a.stride).collect();
            // Physical axes carry no letters: name them by position.
            same_strides(shape, strides, &expected, b"")?;
            Ok(placement)
        }
    }
}

/// `DataTypeMismatch` unless `r` holds `T`s.
fn check_data_type<T: Element>(r: &DlpackRef<'_>) -> Result<(), LayoutError> {
    match r.data_type() == T::DATA_TYPE {
        true => Ok(()),
        false => Err(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found: r.data_type() }),
    }
}

/// The first `len` elements of `r` as `T`s.
fn elements<'a, T: Element>(r: &DlpackRef<'a>, len: usize) -> Result<&'a [T], DlpackError> {
    let bytes = r.bytes().get(..len * T::SIZE).ok_or(DlpackError::Strides {
        reason: "the tensor's strides reach fewer elements than its layout holds",
    })?;
    bytemuck::try_cast_slice(bytes).map_err(|_| DlpackError::Misaligned { align: core::mem::align_of::<T>() })
}

/// `r` as a view of layout `L`, without a copy: its data type must be `T`, its dims `L`'s
/// rank (a vectorized layout: its physical axes) and its strides `L`'s wherever a dim is longer
/// than 1 (otherwise [`LayoutError::StrideMismatch`] names the first that differs).
pub fn tensor_view<'a, T: Element, L: Layout>(
    r: &DlpackRef<'a>,
) -> Result<TensorView<'a, T, L>, DlpackError> {
    check_data_type::<T>(r)?;
    let placement = placement(&DynLayout::of::<L>(), r.shape(), r.strides())?;
    let shape = Shape::<L>::from_slice(placement.dims())?;
    Ok(TensorView::<T, L>::new_in(shape, elements(r, placement.len())?)?)
}

/// `r` as a strided view of family `F` (any non-negative strides, overlapping ones included:
/// an input only), without a copy; convert it into any layout from there.
pub fn strided_view<'a, T: Element, F: Family>(
    r: &DlpackRef<'a>,
) -> Result<StridedView<'a, T, F>, DlpackError> {
    check_data_type::<T>(r)?;
    let (shape, strides) = (r.shape(), r.strides());
    let wrong_rank = LayoutError::DimCount { expected: F::LETTERS.len(), found: shape.len() };
    let dims = F::Dims::try_from_slice(shape).ok_or(wrong_rank)?;
    let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect(); // below isize::MAX: checked span
    let strides = F::Strides::try_from_slice(&strides).ok_or(wrong_rank)?;
    let len = r.bytes().len() / T::SIZE;
    Ok(StridedView::<T, F>::new(dims, strides, 0, elements(r, len)?)?)
}

/// The layouts [`dyn_tensor`] tries for a rank, in order.
const CANDIDATES: [(usize, &[&str]); 3] =
    [(3, &["BMN", "BNM"]), (4, &["NCHW", "NHWC", "CHWN"]), (5, &["NCDHW", "NDHWC", "CDHWN"])];

/// `r` copied into a [`DynTensor`]: in the first layout of its rank's family whose strides it
/// has (see the module's size-1 rule; BMN for rank 3, images for 4, volumes for 5), or, when
/// its strides are no layout's (gaps, overlaps, a slice), into the family's row-major layout
/// element by element. A tensor of a vectorized layout exchanges its physical array, which
/// reads as another rank's; read it with [`tensor_view`] naming the layout.
pub fn dyn_tensor(r: &DlpackRef<'_>) -> Result<DynTensor, DlpackError> {
    let rank = r.shape().len();
    let Some((_, candidates)) = CANDIDATES.iter().find(|(n, _)| *n == rank) else {
        return Err(LayoutError::NotApplicable {
            reason: "dyn_tensor reads ranks 3 (BMN), 4 (images) and 5 (volumes): read other ranks with tensor_view or strided_view, which name the layout",
        }
        .into());
    };
    let layouts = candidates.iter().map(|n| DynLayout::parse(n).map_err(LayoutError::from));
    let layouts = layouts.collect::<Result<Vec<_>, _>>()?;
    for layout in &layouts {
        if let Ok(placement) = placement(layout, r.shape(), r.strides()) {
            let bytes = placement.len() * r.data_type().size();
            let data = r.bytes().get(..bytes).ok_or(DlpackError::Strides {
                reason: "the tensor's strides reach fewer elements than its layout holds",
            })?;
            return Ok(DynTensor::from_bytes(r.data_type(), *layout, placement.dims(), data)?);
        }
    }
    // Strides of no layout: element by element into the row-major one.
    Ok(DynTensor::from_strided_bytes(r.data_type(), layouts[0], r.shape(), r.strides(), r.bytes())?)
}
