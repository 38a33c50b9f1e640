//! The second parameter of every tensor type: a layout (the storage order follows from the dims),
//! or `Strided<F>` (strides given at run time, typed by family alone).

use core::fmt::Debug;
use core::marker::PhantomData;

use super::strides::PerDimStrides;
use super::sub::{Sub, SubShape};
use super::{Layout, Shape};
use crate::error::{DimName, LayoutError};
use crate::family::{DimArray, Family};
use crate::overlap::{overlap, Overlap};
use crate::placement::Placement;
use crate::predicates;

pub(super) mod sealed {
    pub trait Sealed {}
}

/// How a tensor's elements are arranged in its storage: by a [`Layout`] (every named layout and
/// every type `layout!` declares), or by strides given at run time ([`Strided<F>`](Strided)),
/// where no layout describes the storage order (a window of a larger image, a mirrored axis, a
/// broadcast).
///
/// This is the second parameter of [`TensorBase`](crate::TensorBase): `Tensor<T, Nhwc>`,
/// `TensorView<'_, T, Nhwc>` and `StridedView<'_, T, Image>` are one type over different storage
/// and arrangements, with one set of accessors. It is implemented for every layout and for
/// `Strided<F>`; nothing else can implement it.
///
/// ```
/// use typed_layout::{Arrangement, Image, Nhwc, Strided};
/// fn family_letters<A: Arrangement>() -> &'static str { <A::Family as typed_layout::Family>::LETTERS }
/// assert_eq!(family_letters::<Nhwc>(), "NCHW");
/// assert_eq!(family_letters::<Strided<Image>>(), "NCHW");
/// ```
pub trait Arrangement: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The family of the logical dims.
    type Family: Family;
    /// The validated shape a tensor carries: [`Shape<L>`](Shape) for a layout,
    /// [`StridedShape<F>`](StridedShape) for `Strided<F>`.
    type Shape: Copy + Debug + PartialEq + Send + Sync + 'static;
    /// What `Debug` prints for the arrangement: the layout's notation, or `"strided"`.
    #[doc(hidden)]
    const NAME: &'static str;

    /// Logical dims.
    #[doc(hidden)]
    fn dims(shape: &Self::Shape) -> DimsOf<Self>;
    /// Logical strides, signed; for a vectorized dimension, the stride between vector groups.
    #[doc(hidden)]
    fn group_strides(shape: &Self::Shape) -> StridesOf<Self>;
    /// Storage offset of a logical index, or `None` outside the dims: the hot path of element
    /// access, monomorphized per arrangement.
    #[doc(hidden)]
    fn offset(shape: &Self::Shape, index: &DimsOf<Self>) -> Option<usize>;
    /// Whether two indices share an address.
    #[doc(hidden)]
    fn overlap(shape: &Self::Shape) -> Overlap;
    /// How logical indices reach storage, for the loop plan.
    #[doc(hidden)]
    fn maps(shape: &Self::Shape) -> Maps<'_>;
    /// The arrangement of a sub-tensor ([`crop`](crate::TensorBase::crop),
    /// [`narrow`](crate::TensorBase::narrow), [`batch`](crate::TensorBase::batch), the parts of
    /// [`split_at_mut`](crate::TensorBase::split_at_mut)): [`Sub<L>`](Sub) of a layout `L` and
    /// of a `Sub<L>` (a crop of a crop), [`Strided<F>`](Strided) of a strided view. A shared
    /// sub-tensor of a layout is a [`SubView`](crate::SubView), a mutable one a
    /// [`SubViewMut`](crate::SubViewMut).
    type Sub: Arrangement<Family = Self::Family, Sub = Self::Sub>;
    /// The sub-tensor of positions `start[d]..start[d] + dims[d]` along every dimension: its
    /// shape, and the part `(offset, len)` of the storage it lies in (`None`: all of it).
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    fn sub(
        shape: &Self::Shape,
        start: &[usize],
        dims: &[usize],
    ) -> Result<(<Self::Sub as Arrangement>::Shape, Option<(usize, usize)>), LayoutError>;
}

/// [`Arrangement::sub`] of a layout or a sub-tensor: narrowed dimension by dimension.
#[allow(clippy::type_complexity)]
pub(super) fn sub_of<L: Layout>(
    mut shape: SubShape<L>,
    start: &[usize],
    dims: &[usize],
) -> Result<(SubShape<L>, Option<(usize, usize)>), LayoutError> {
    let mut offset = 0;
    for (d, (&s, &n)) in start.iter().zip(dims).enumerate() {
        if (s, n) != (0, shape.placement().dims()[d]) {
            let (narrowed, o) = shape.narrowed_at(d, s, n)?;
            (shape, offset) = (narrowed, offset + o);
        }
    }
    Ok((shape, Some((offset, shape.len()))))
}

/// How a shape's logical indices reach storage: through a derived [`Placement`], or through
/// per-dimension strides from a base offset. The loop plan builds its geometry from this.
// Public only because the sealed `Arrangement` names it in a hidden method; unnameable outside.
#[allow(unreachable_pub)]
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Maps<'a> {
    /// A layout's derived placement.
    Placement(&'a Placement),
    /// Dims, signed strides and the base offset of a strided shape.
    Strided {
        /// Logical dims.
        dims: &'a [usize],
        /// Signed strides, logical order.
        strides: &'a [isize],
        /// Offset of index 0.
        base: usize,
    },
}

/// The logical dims of arrangement `A` (a layout, or `Strided<F>`): `[usize; 4]` for images.
///
/// ```
/// use typed_layout::{DimsOf, Nhwc, Shape};
/// let dims: DimsOf<Nhwc> = [1, 64, 5, 4]; // [usize; 4], always n, c, h, w
/// assert_eq!(Shape::<Nhwc>::new(dims)?.dims(), dims);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type DimsOf<A> = <<A as Arrangement>::Family as Family>::Dims;

/// The logical strides of arrangement `A`, signed: `[isize; 4]` for images.
///
/// ```
/// use typed_layout::{Image, Nhwc, StridedView, StridesOf, Tensor};
/// let t = Tensor::<u8, Nhwc>::zeros([1, 4, 2, 3])?;
/// let strides: StridesOf<Nhwc> = t.strides(); // n, c, h, w of a packed NHWC [1, 4, 2, 3]
/// assert_eq!(strides, [24, 1, 12, 4]);
/// assert!(StridedView::<u8, Image>::new([1, 4, 2, 3], strides, 0, t.as_slice()).is_ok());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type StridesOf<A> = <<A as Arrangement>::Family as Family>::Strides;

impl<F: Family> PerDimStrides for Strided<F> {}

impl<L: Layout> sealed::Sealed for L {}

impl<L: Layout> Arrangement for L {
    type Family = L::Family;
    type Shape = Shape<L>;
    const NAME: &'static str = L::NOTATION;

    fn dims(shape: &Shape<L>) -> DimsOf<L> {
        shape.dims()
    }
    fn group_strides(shape: &Shape<L>) -> StridesOf<L> {
        shape.group_strides()
    }
    #[inline(always)]
    fn offset(shape: &Shape<L>, index: &DimsOf<L>) -> Option<usize> {
        shape.placement().locate(index.as_ref(), const { L::FORMAT.vector() })
    }
    fn overlap(_: &Shape<L>) -> Overlap {
        Overlap::Disjoint // a layout's strides nest (placement::derive_strided checks it)
    }
    fn maps(shape: &Shape<L>) -> Maps<'_> {
        Maps::Placement(shape.placement())
    }
    type Sub = Sub<L>;
    fn sub(
        shape: &Shape<L>,
        start: &[usize],
        dims: &[usize],
    ) -> Result<(SubShape<L>, Option<(usize, usize)>), LayoutError> {
        sub_of(SubShape::from(*shape), start, dims)
    }
}

/// The arrangement of a strided view: strides given at run time, in logical order of the
/// family `F`, signed (a negative stride mirrors an axis, a zero stride broadcasts it).
///
/// ```
/// use typed_layout::{Image, Nchw, StridedView, Tensor};
/// // A 2×2 window at (h, w) = (1, 1) of a 1×1×4×4 image, read with NCHW strides.
/// let data: Vec<u8> = (0..16).collect();
/// let window = StridedView::<u8, Image>::new([1, 1, 2, 2], [16, 16, 4, 1], 5, &data)?;
/// let packed: Tensor<u8, Nchw> = window.to_layout()?;
/// assert_eq!(packed.as_slice(), &[5, 6, 9, 10]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Strided<F: Family>(PhantomData<F>);

impl<F: Family> sealed::Sealed for Strided<F> {}

impl<F: Family> Arrangement for Strided<F> {
    type Family = F;
    type Shape = StridedShape<F>;
    const NAME: &'static str = "strided";

    fn dims(shape: &StridedShape<F>) -> F::Dims {
        shape.dims
    }
    fn group_strides(shape: &StridedShape<F>) -> F::Strides {
        shape.strides
    }
    #[inline(always)]
    fn offset(shape: &StridedShape<F>, index: &F::Dims) -> Option<usize> {
        let (dims, strides) = (shape.dims.as_ref(), shape.strides.as_ref());
        let mut offset = shape.base as isize;
        for (k, &i) in index.as_ref().iter().enumerate() {
            if i >= dims[k] {
                return None;
            }
            offset += i as isize * strides[k];
        }
        // In range: the view checked every address against its buffer.
        Some(offset as usize)
    }
    fn overlap(shape: &StridedShape<F>) -> Overlap {
        overlap(shape.dims.as_ref(), shape.strides.as_ref())
    }
    fn maps(shape: &StridedShape<F>) -> Maps<'_> {
        Maps::Strided { dims: shape.dims.as_ref(), strides: shape.strides.as_ref(), base: shape.base }
    }
    type Sub = Strided<F>;
    fn sub(
        shape: &StridedShape<F>,
        start: &[usize],
        dims: &[usize],
    ) -> Result<(StridedShape<F>, Option<(usize, usize)>), LayoutError> {
        let letters = F::LETTERS.as_bytes();
        let mut base = shape.base as isize;
        for (d, ((&s, &n), &stride)) in start.iter().zip(dims).zip(shape.strides.as_ref()).enumerate() {
            let size = shape.dims.as_ref()[d];
            if n == 0 || s.checked_add(n).is_none_or(|end| end > size) {
                let dim = DimName::new(d, letters);
                return Err(LayoutError::RangeOutOfBounds { dim, start: s, end: s.saturating_add(n), size });
            }
            base += s as isize * stride; // inside the view's reach, which fits in isize
        }
        let sub_dims = F::Dims::from_fn(|d| dims[d]);
        // The first element is one of the view's, so `base` is an offset into its buffer.
        Ok((StridedShape::new(sub_dims, shape.strides, base as usize)?, None))
    }
}

/// The validated shape of a strided view: dims, signed strides and the offset of index 0.
///
/// ```
/// use typed_layout::{Image, StridedShape};
/// let s = StridedShape::<Image>::new([1, 1, 2, 3], [6, 6, 3, -1], 2)?; // W mirrored
/// assert_eq!((s.dims(), s.strides(), s.base()), ([1, 1, 2, 3], [6, 6, 3, -1], 2));
/// assert_eq!(s.offsets(), (0, 5)); // lowest and highest offset reached
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct StridedShape<F: Family> {
    dims: F::Dims,
    strides: F::Strides,
    base: usize,
    lowest: i128,
    highest: i128,
}

// By hand: a derive would ask the family type itself to be comparable.
impl<F: Family> PartialEq for StridedShape<F> {
    fn eq(&self, other: &Self) -> bool {
        (self.dims, self.strides, self.base) == (other.dims, other.strides, other.base)
    }
}
impl<F: Family> Eq for StridedShape<F> {}

impl<F: Family> StridedShape<F> {
    /// Validates `dims` and `strides`: rank 3..=8, no zero dim, every offset from `base` within
    /// `isize`. Whether the offsets fall inside a buffer is checked when a view is built on one.
    pub fn new(dims: F::Dims, strides: F::Strides, base: usize) -> Result<Self, LayoutError> {
        let (low, high) = predicates::validate(dims.as_ref(), strides.as_ref(), F::LETTERS.as_bytes())?;
        // In i128: base + reach cannot overflow there; a buffer check refuses what is out of range.
        let (lowest, highest) = (base as i128 + low as i128, base as i128 + high as i128);
        Ok(StridedShape { dims, strides, base, lowest, highest })
    }

    /// Logical dims.
    pub fn dims(&self) -> F::Dims {
        self.dims
    }
    /// Signed strides, logical order.
    pub fn strides(&self) -> F::Strides {
        self.strides
    }
    /// Offset of index 0.
    pub fn base(&self) -> usize {
        self.base
    }
    /// The lowest and highest offsets any index reaches (the lowest is negative when a
    /// negative stride reaches below `base` further than `base` is from 0; a view refuses that).
    pub fn offsets(&self) -> (i128, i128) {
        (self.lowest, self.highest)
    }
    /// Checks that every offset lies in a buffer of `len` elements.
    pub(crate) fn check_buffer(&self, len: usize) -> Result<(), LayoutError> {
        if self.lowest < 0 || self.highest >= len as i128 {
            return Err(LayoutError::OutOfBounds { lowest: self.lowest, highest: self.highest, len });
        }
        Ok(())
    }
}

impl<L: Layout> sealed::Sealed for Sub<L> {}

impl<L: Layout> Arrangement for Sub<L> {
    type Family = L::Family;
    type Shape = SubShape<L>;
    const NAME: &'static str = L::NOTATION;

    fn dims(shape: &SubShape<L>) -> DimsOf<L> {
        shape.dims()
    }
    fn group_strides(shape: &SubShape<L>) -> StridesOf<L> {
        shape.group_strides()
    }
    #[inline(always)]
    fn offset(shape: &SubShape<L>, index: &DimsOf<L>) -> Option<usize> {
        shape.placement().locate(index.as_ref(), const { L::FORMAT.vector() })
    }
    fn overlap(_: &SubShape<L>) -> Overlap {
        Overlap::Disjoint // part of a layout, whose strides nest
    }
    fn maps(shape: &SubShape<L>) -> Maps<'_> {
        Maps::Placement(shape.placement())
    }
    type Sub = Sub<L>;
    fn sub(
        shape: &SubShape<L>,
        start: &[usize],
        dims: &[usize],
    ) -> Result<(SubShape<L>, Option<(usize, usize)>), LayoutError> {
        sub_of(*shape, start, dims)
    }
}

impl<L: Layout + PerDimStrides> PerDimStrides for Sub<L> {}

/// Arrangements with a layout: a layout itself and its sub-tensors. What the guide's layout
/// rules need (the Tensor Core checks, NC/xHWx's cuDNN descriptor) and what a new tensor of the
/// same layout needs ([`map`](crate::TensorBase::map)) is written once over this.
pub trait InLayout: Arrangement<Family = <Self::Layout as Layout>::Family> {
    /// The layout.
    type Layout: Layout;
    /// The shape as a sub-tensor's (a whole tensor is its own sub-tensor).
    #[doc(hidden)]
    fn sub_shape(shape: &Self::Shape) -> SubShape<Self::Layout>;
}

impl<L: Layout> InLayout for L {
    type Layout = L;
    fn sub_shape(shape: &Shape<L>) -> SubShape<L> {
        SubShape::from(*shape)
    }
}

impl<L: Layout> InLayout for Sub<L> {
    type Layout = L;
    fn sub_shape(shape: &SubShape<L>) -> SubShape<L> {
        *shape
    }
}
