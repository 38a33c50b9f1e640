//! Views with arbitrary signed strides, typed by family: inputs may overlap, outputs may not.

use crate::convert::{self, Source};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::layout::Layout;
use crate::loops::Geometry;
use crate::overlap::{overlap, Overlap};
use crate::predicates;

use super::Tensor;

/// Checks a strided view: valid dims and strides, and every address inside `len` elements from
/// `base`. Returns the lowest and highest addresses.
fn check_strided(
    dims: &[usize],
    strides: &[isize],
    base: usize,
    len: usize,
    letters: &str,
) -> Result<(), LayoutError> {
    let (low, high) = predicates::validate(dims, strides, letters.as_bytes())?;
    let lowest = base as i128 + low as i128;
    let highest = base as i128 + high as i128;
    if lowest < 0 || highest >= len as i128 {
        return Err(LayoutError::OutOfBounds { lowest, highest, len });
    }
    Ok(())
}

/// A read-only view with arbitrary signed strides (in elements, logical order) from element
/// `base` of a slice: the guide's general tensor, overlapping dimensions allowed. It can only be
/// a conversion *input*.
///
/// ```
/// use typed_layout::{Image, Nchw, StridedView, Tensor};
/// // A 2×2 window at (h, w) = (1, 1) of a 1×1×4×4 image, read with NCHW strides.
/// let data: Vec<u8> = (0..16).collect();
/// let window = StridedView::<u8, Image>::new(&data, [1, 1, 2, 2], [16, 16, 4, 1], 5)?;
/// let packed: Tensor<u8, Nchw> = window.to_layout()?;
/// assert_eq!(packed.as_slice(), &[5, 6, 9, 10]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct StridedView<'a, T: Element, F: Family> {
    pub(super) dims: F::Dims,
    pub(super) strides: F::Strides,
    pub(super) base: usize,
    pub(super) data: &'a [T],
}

impl<'a, T: Element, F: Family> StridedView<'a, T, F> {
    /// A view of `data` with `dims` and `strides` from element `base`; every address must lie
    /// inside `data`.
    pub fn new(data: &'a [T], dims: F::Dims, strides: F::Strides, base: usize) -> Result<Self, LayoutError> {
        check_strided(dims.as_ref(), strides.as_ref(), base, data.len(), F::LETTERS)?;
        Ok(StridedView { dims, strides, base, data })
    }
    /// Logical dims.
    pub fn dims(&self) -> F::Dims {
        self.dims
    }
    /// Strides in logical order.
    pub fn strides(&self) -> F::Strides {
        self.strides
    }
    /// Whether two indices share an address (allowed for inputs).
    pub fn overlap(&self) -> Overlap {
        overlap(self.dims.as_ref(), self.strides.as_ref())
    }
    /// The element at a logical index.
    pub fn get(&self, index: F::Dims) -> Option<&'a T> {
        self.data.get(strided_offset(self.dims.as_ref(), self.strides.as_ref(), self.base, index.as_ref())?)
    }
    /// The same logical tensor packed in layout `D`.
    pub fn to_layout<D: Layout>(&self) -> Result<Tensor<T, D>, LayoutError>
    where
        D::Family: SameFamily<F>,
    {
        let mut out = Tensor::<T, D>::zeros(D::Family::same_dims(self.dims))?;
        convert::convert(self, &mut out.view_mut())?;
        Ok(out)
    }
}

/// Storage offset of a logical index of a strided view, or `None` outside its dims.
fn strided_offset(dims: &[usize], strides: &[isize], base: usize, index: &[usize]) -> Option<usize> {
    if index.iter().zip(dims).any(|(i, d)| i >= d) {
        return None;
    }
    usize::try_from(Geometry::strided(dims, strides, base).offset(index)).ok()
}

/// A mutable view with arbitrary signed strides: a conversion output into a padded or otherwise
/// strided buffer. Refused when its dimensions overlap or may overlap (cuDNN: "dimensions of
/// the output tensors cannot overlap").
///
/// ```
/// use typed_layout::{Image, Nhwc, StridedViewMut, Tensor, LayoutError};
/// let mut buf = vec![0u8; 64];
/// // Overlapping strides are refused for outputs.
/// let e = StridedViewMut::<u8, Image>::new(&mut buf, [1, 2, 2, 2], [8, 1, 1, 2], 0).unwrap_err();
/// assert!(matches!(e, LayoutError::OverlappingOutput { .. }));
/// // NHWC rows padded to 8 elements: W·C = 4 of every 8 used.
/// let mut out = StridedViewMut::<u8, Image>::new(&mut buf, [1, 2, 2, 2], [16, 1, 8, 2], 0)?;
/// let t = Tensor::<u8, Nhwc>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (100 * h + 10 * w + c) as u8)?;
/// out.copy_from(&t.view())?;
/// assert_eq!(&buf[8..12], &[100, 101, 110, 111]);
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug)]
pub struct StridedViewMut<'a, T: Element, F: Family> {
    pub(super) dims: F::Dims,
    pub(super) strides: F::Strides,
    pub(super) base: usize,
    pub(super) data: &'a mut [T],
}

impl<'a, T: Element, F: Family> StridedViewMut<'a, T, F> {
    /// A mutable view of `data` with `dims` and `strides` from element `base`; every address
    /// must lie inside `data`, and no two indices may share one.
    pub fn new(
        data: &'a mut [T],
        dims: F::Dims,
        strides: F::Strides,
        base: usize,
    ) -> Result<Self, LayoutError> {
        check_strided(dims.as_ref(), strides.as_ref(), base, data.len(), F::LETTERS)?;
        match overlap(dims.as_ref(), strides.as_ref()) {
            Overlap::Disjoint => Ok(StridedViewMut { dims, strides, base, data }),
            verdict => Err(LayoutError::OverlappingOutput { verdict }),
        }
    }
    /// Logical dims.
    pub fn dims(&self) -> F::Dims {
        self.dims
    }
    /// The element at a logical index, mutably.
    pub fn get_mut(&mut self, index: F::Dims) -> Option<&mut T> {
        let offset = strided_offset(self.dims.as_ref(), self.strides.as_ref(), self.base, index.as_ref())?;
        self.data.get_mut(offset)
    }
    /// Writes the logical tensor `src` into this view.
    pub fn copy_from<S: Source<T>>(&mut self, src: &S) -> Result<(), LayoutError>
    where
        F: SameFamily<S::Family>,
    {
        convert::convert(src, self)
    }
}
