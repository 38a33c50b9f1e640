//! A validated runtime shape: logical dims and the placement derived from them.

use core::marker::PhantomData;

use super::{DimsOf, Layout, PerDimStrides, StridesOf};
use crate::dtype::DataType;
use crate::error::LayoutError;
use crate::family::DimArray;
use crate::placement::{self, Placement};

/// A validated shape in layout `L`: logical dims and the storage derived from them.
///
/// ```
/// use typed_layout::{Nhwc, Shape, LayoutError};
/// let s = Shape::<Nhwc>::new([1, 4, 2, 3])?; // N, C, H, W
/// assert_eq!(s.strides(), [24, 1, 12, 4]);
/// assert_eq!(s.len(), 24);
/// assert_eq!(s.offset([0, 3, 1, 2])?, 12 + 8 + 3);
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Shape<L: Layout> {
    placement: Placement,
    layout: PhantomData<L>,
}

// By hand: a derive would ask the layout type itself to be comparable.
impl<L: Layout> PartialEq for Shape<L> {
    fn eq(&self, other: &Self) -> bool {
        self.placement == other.placement
    }
}
impl<L: Layout> Eq for Shape<L> {}
impl<L: Layout> core::hash::Hash for Shape<L> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.placement.hash(state)
    }
}

impl<L: Layout> Shape<L> {
    /// Validates `dims` (logical order) for layout `L`, with packed strides (no padding, also
    /// for a partially packed layout; see [`Shape::with_strides`]).
    ///
    /// Fails on a zero dim, a C that is not a multiple of NC/xHWx's x, or more than
    /// `isize::MAX` elements.
    pub fn new(dims: DimsOf<L>) -> Result<Self, LayoutError> {
        Self::from_slice(dims.as_ref())
    }

    /// Validates dims given in the layout's own letter order (its memory order, outermost
    /// first: `[n, h, w, c]` for NHWC), the order a buffer's producer usually writes them in.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Shape};
    /// let s = Shape::<Nhwc>::from_physical([1, 224, 224, 3])?; // N, H, W, C
    /// assert_eq!(s.dims(), [1, 3, 224, 224]); // n, c, h, w
    /// assert_eq!(s.physical_dims(), [1, 224, 224, 3]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_physical(dims: DimsOf<L>) -> Result<Self, LayoutError> {
        let order = L::FORMAT.order();
        let mut logical = dims;
        for (k, &d) in order.iter().enumerate() {
            logical.as_mut()[d] = dims.as_ref()[k];
        }
        Self::new(logical)
    }

    /// The dims in the layout's own letter order (memory order, outermost first).
    pub fn physical_dims(&self) -> DimsOf<L> {
        let order = L::FORMAT.order();
        DimsOf::<L>::from_fn(|k| self.placement.dims()[order[k]])
    }

    /// A shape with the given logical strides, checked against the layout's packing.
    ///
    /// For a partially packed layout (`"NHWC, WC-packed"`, declared with `layout!`), letters
    /// outside the `-packed` suffix may be padded: their stride is at least the next dimension
    /// times the next stride. Letters in the suffix need exactly that. A fully packed layout
    /// accepts only the strides [`Shape::new`] derives.
    ///
    /// ```
    /// use typed_layout::{layout, LayoutError, Shape};
    /// layout! {
    ///     /// NHWC images whose rows (H) and images (N) may be padded.
    ///     pub struct NhwcRows = "NHWC, WC-packed";
    /// }
    /// // n, c, h, w = 2, 3, 4, 5: rows of W·C = 15 elements padded to 16.
    /// let s = Shape::<NhwcRows>::with_strides([2, 3, 4, 5], [64, 1, 16, 3])?;
    /// assert_eq!(s.len(), 64 + 3 * 16 + 4 * 3 + 2 + 1);
    /// // W is packed: its stride must be C = 3.
    /// let e = Shape::<NhwcRows>::with_strides([2, 3, 4, 5], [64, 1, 16, 4]).unwrap_err();
    /// assert!(matches!(e, LayoutError::NotPacked { required: 3, .. }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn with_strides(dims: DimsOf<L>, strides: DimsOf<L>) -> Result<Self, LayoutError> {
        let letters = L::LETTERS.as_bytes();
        let placement = placement::derive_strided(&L::FORMAT, dims.as_ref(), strides.as_ref(), letters)?;
        Ok(Shape { placement, layout: PhantomData })
    }

    /// Like [`Shape::new`] from a slice; also fails when the slice's length is not the rank.
    pub const fn from_slice(dims: &[usize]) -> Result<Self, LayoutError> {
        match placement::derive(&L::FORMAT, dims, L::LETTERS.as_bytes()) {
            Ok(placement) => Ok(Shape { placement, layout: PhantomData }),
            Err(e) => Err(e),
        }
    }

    /// Logical dims.
    pub fn dims(&self) -> DimsOf<L> {
        let d = self.placement.dims();
        DimsOf::<L>::from_fn(|i| d[i])
    }

    /// Logical strides, signed like every stride of the crate: for a layout in which every
    /// dimension has one ([`PerDimStrides`]; NC/xHWx has not, see
    /// [`group_strides`](Shape::group_strides)).
    pub fn strides(&self) -> StridesOf<L>
    where
        L: PerDimStrides,
    {
        const {
            assert!(L::FORMAT.vector().is_none(), "a vectorized layout implements PerDimStrides");
        }
        self.group_strides()
    }

    /// Logical strides, except that a vectorized dimension (NC/xHWx's C) gives the distance
    /// between its vector groups: the stride of `c / x`, while `c % x` steps by 1 inside a
    /// group. Equal to [`strides`](Shape::strides) for every other layout.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Shape};
    /// let s = Shape::<NcxHwx<4>>::new([1, 8, 2, 2])?;
    /// assert_eq!(s.group_strides(), [32, 16, 8, 4]);
    /// // c = 5 is lane 1 of group 1: 1 · 16 + 1 · 8 + 1 · 4 + 1.
    /// assert_eq!(s.offset([0, 5, 1, 1])?, 29);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn group_strides(&self) -> StridesOf<L> {
        let s = self.placement.strides();
        StridesOf::<L>::from_fn(|i| s[i] as isize) // below isize::MAX: the placement checked
    }

    /// `BufferLength` unless a buffer of `len` elements holds exactly this shape's storage
    /// (the twin of `StridedShape::check_buffer`).
    pub(crate) fn check_buffer(&self, len: usize) -> Result<(), LayoutError> {
        match self.len() {
            expected if expected == len => Ok(()),
            expected => Err(LayoutError::BufferLength { expected, found: len }),
        }
    }

    /// Number of elements of storage.
    pub const fn len(&self) -> usize {
        self.placement.len()
    }

    /// Always false: every dimension is at least 1.
    pub const fn is_empty(&self) -> bool {
        self.placement.is_empty()
    }

    /// Bytes of storage for elements of `elem_size` bytes, or [`LayoutError::SizeOverflow`]
    /// naming the dimension (innermost first) at which they pass `isize::MAX`, the most one
    /// allocation can hold. Host and device allocations both ask this first.
    ///
    /// ```
    /// use typed_layout::{LayoutError, Nhwc, Shape};
    /// let s = Shape::<Nhwc>::new([2, 3, 4, 5])?;
    /// assert_eq!(s.bytes(4)?, 480);
    /// // 2^61 elements fit in isize; 2^61 eight-byte elements do not. N is the outermost letter.
    /// let big = Shape::<Nhwc>::new([1 << 58, 2, 2, 2])?;
    /// let e = big.bytes(8).unwrap_err();
    /// assert!(e.to_string().starts_with("the size or stride product overflows at dimension N"));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn bytes(&self, elem_size: usize) -> Result<usize, LayoutError> {
        self.placement.bytes(elem_size, L::LETTERS.as_bytes())
    }

    /// The Tensor Core rules a tensor of `data_type` in this shape breaks (see
    /// [`crate::tensor_core`]; [`Tensor::tensor_core`](crate::Tensor::tensor_core) adds the
    /// buffer's alignment).
    pub const fn tensor_core(&self, data_type: DataType) -> crate::tensor_core::TensorCoreCheck {
        let letters = L::LETTERS;
        crate::tensor_core::TensorCoreCheck::of_shape(&L::FORMAT, letters, self.placement.dims(), data_type)
    }

    /// Storage offset of a logical index.
    pub fn offset(&self, index: DimsOf<L>) -> Result<usize, LayoutError> {
        self.placement.offset(index.as_ref()).map_err(|d| LayoutError::IndexOutOfBounds {
            dim: crate::error::DimName::new(d, L::LETTERS.as_bytes()),
            index: index.as_ref()[d],
            size: self.placement.dims()[d],
        })
    }

    /// The derived storage: physical axes and strides.
    pub const fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The shape whose storage is `placement`, which the caller derived for `L`'s format and
    /// letters (a runtime tensor whose layout equals `L`'s).
    pub(crate) const fn of_placement(placement: Placement) -> Self {
        Shape { placement, layout: PhantomData }
    }
}
