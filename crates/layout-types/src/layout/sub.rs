//! The arrangement of a sub-tensor of a layout: the layout's physical axes and strides, with
//! fewer positions along some of them. A sub-tensor keeps its layout (NC/xHWx stays vectorized,
//! the Tensor Core rules still name it) but is no longer packed: its storage reaches the
//! parent's elements between its own.

use core::marker::PhantomData;

use super::strides::PerDimStrides;
use super::{Layout, Shape};
use crate::error::LayoutError;
use crate::family::{DimArray, Family};
use crate::placement::Placement;

/// The arrangement of a sub-tensor of layout `L` (a batch, a channel range, a crop): what
/// [`narrow`](crate::TensorBase::narrow) and [`crop`](crate::TensorBase::crop) return for a
/// tensor in a layout, with a [`SubShape<L>`] as its shape.
///
/// ```
/// use typed_layout::{Nhwc, Sub, SubView, Tensor};
/// let t = Tensor::<u8, Nhwc>::from_fn([1, 3, 4, 4], |[_, c, h, w]| (16 * h + 4 * w + c) as u8)?;
/// let crop: SubView<'_, u8, Nhwc> = t.crop([0, 0, 1, 1], [1, 3, 2, 2])?;
/// assert_eq!(crop[[0, 2, 0, 0]], 16 + 4 + 2);
/// assert_eq!(crop.strides(), t.strides()); // same storage, fewer positions
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Sub<L: Layout>(PhantomData<L>);

/// The shape of a sub-tensor of layout `L`: the parent's placement with fewer positions, offsets
/// counted from the sub-tensor's first element.
///
/// ```
/// use typed_layout::{NcxHwx, Shape, SubShape};
/// let whole = SubShape::from(Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?);
/// assert!(whole.is_packed());
/// let second = whole.narrowed(1, 4..8)?; // channels 4..8: the second vector group
/// assert_eq!((second.dims(), second.group_strides()), ([1, 4, 2, 2], [32, 16, 8, 4]));
/// assert!(!second.is_packed()); // N still steps over both groups
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SubShape<L: Layout> {
    placement: Placement,
    layout: PhantomData<L>,
}

// By hand: a derive would ask the layout type itself to be comparable.
impl<L: Layout> PartialEq for SubShape<L> {
    fn eq(&self, other: &Self) -> bool {
        self.placement == other.placement
    }
}
impl<L: Layout> Eq for SubShape<L> {}

impl<L: Layout> From<Shape<L>> for SubShape<L> {
    fn from(shape: Shape<L>) -> Self {
        SubShape { placement: *shape.placement(), layout: PhantomData }
    }
}

impl<L: Layout> SubShape<L> {
    /// Logical dims.
    pub fn dims(&self) -> <L::Family as Family>::Dims {
        <L::Family as Family>::Dims::from_fn(|i| self.placement.dims()[i])
    }
    /// Logical strides: for layouts in which every dimension has one ([`PerDimStrides`]).
    pub fn strides(&self) -> <L::Family as Family>::Strides
    where
        L: PerDimStrides,
    {
        self.group_strides()
    }
    /// Logical strides, NC/xHWx's C giving the distance between vector groups
    /// ([`Shape::group_strides`]).
    pub fn group_strides(&self) -> <L::Family as Family>::Strides {
        <L::Family as Family>::Strides::from_fn(|i| self.placement.strides()[i] as isize)
    }
    /// Elements from the first to one past the last the sub-tensor reaches.
    pub fn len(&self) -> usize {
        self.placement.len()
    }
    /// Always false: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        self.placement.is_empty()
    }
    /// Whether the sub-tensor is packed in `L` (a batch of NCHW, say): its strides are those
    /// of a whole tensor of its dims.
    pub fn is_packed(&self) -> bool {
        self.packed().is_some()
    }
    /// The whole tensor of these dims, when the sub-tensor is packed.
    pub fn packed(&self) -> Option<Shape<L>> {
        let shape = Shape::<L>::from_slice(self.placement.dims()).ok()?;
        (shape.placement().strides() == self.placement.strides()).then_some(shape)
    }
    /// The placement: physical axes with the parent's strides and the sub-tensor's extents.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }
    /// The positions `range` of logical dimension `dim`, and how far their first element is
    /// from this shape's.
    pub(crate) fn narrowed_at(
        &self,
        dim: usize,
        start: usize,
        len: usize,
    ) -> Result<(Self, usize), LayoutError> {
        let letters = L::LETTERS.as_bytes();
        let (placement, offset) = self.placement.narrowed(dim, start, len, letters)?;
        Ok((SubShape { placement, layout: PhantomData }, offset))
    }
    /// The positions `range` of logical dimension `dim` (a vectorized one at whole vectors).
    pub fn narrowed(&self, dim: usize, range: core::ops::Range<usize>) -> Result<Self, LayoutError> {
        let len = range.end.saturating_sub(range.start);
        Ok(self.narrowed_at(dim, range.start, len)?.0)
    }
}
