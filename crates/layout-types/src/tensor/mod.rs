//! Typed host tensors: one type, [`TensorBase`], over its storage (owned, borrowed, borrowed
//! mutably) and its arrangement (a layout, or strides given at run time), with every accessor
//! written once. The names users write are aliases: [`Tensor`], [`TensorView`],
//! [`TensorViewMut`], [`StridedView`], [`StridedViewMut`].

use core::fmt;

use crate::convert::{self, Destination, Source};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::layout::{Arrangement, DimsOf, InLayout, Layout, PerDimStrides, Strided, StridesOf};
use crate::overlap::Overlap;

mod access;
mod display;
mod elements;
mod iter;
mod owned;
mod split;
mod storage;
mod sub;
mod views;
mod zip;

pub(crate) use display::nested;
pub use iter::{IndexedIter, Iter, IterMut};
pub use owned::STORAGE_ALIGN;
pub use split::AxisChunksMut;
pub use storage::{Owned, Storage, StorageMut, View, ViewMut};
pub use sub::{SubView, SubViewMut};

/// A tensor: elements in storage `S`, arranged by `A` (a layout, or [`Strided<F>`](Strided)).
///
/// Written as one of its aliases:
///
/// | alias | storage | arranged by | made by |
/// |---|---|---|---|
/// | [`Tensor<T, L>`](Tensor) | owned ([`Owned`]) | layout `L` | [`zeros`](Tensor::zeros), [`from_vec`](Tensor::from_vec), [`from_fn`](Tensor::from_fn), [`to_layout`](TensorBase::to_layout), … |
/// | [`TensorView<'a, T, L>`](TensorView) | borrowed ([`View`]) | layout `L` | [`TensorView::new`], [`view`](TensorBase::view) |
/// | [`TensorViewMut<'a, T, L>`](TensorViewMut) | borrowed mutably ([`ViewMut`]) | layout `L` | [`TensorViewMut::new`], [`view_mut`](TensorBase::view_mut) |
/// | [`StridedView<'a, T, F>`](StridedView) | borrowed | strides, family `F`; may overlap | [`StridedView::new`] |
/// | [`StridedViewMut<'a, T, F>`](StridedViewMut) | borrowed mutably | strides, family `F`; proven disjoint | [`StridedViewMut::new`] |
///
/// Every kind has the same accessors; the mutable ones need mutable storage:
///
/// | accessor | `Tensor` | `TensorView` | `TensorViewMut` | `StridedView` | `StridedViewMut` |
/// |---|:-:|:-:|:-:|:-:|:-:|
/// | [`shape`](TensorBase::shape), [`dims`](TensorBase::dims), [`strides`](TensorBase::strides), [`overlap`](TensorBase::overlap) | ✓ | ✓ | ✓ | ✓ | ✓ |
/// | [`get`](TensorBase::get), [`as_slice`](TensorBase::as_slice), [`view`](TensorBase::view) | ✓ | ✓ | ✓ | ✓ | ✓ |
/// | [`to_layout`](TensorBase::to_layout), [`cudnn`](TensorBase::cudnn); an input of [`convert`](crate::convert()) | ✓ | ✓ | ✓ | ✓ | ✓ |
/// | [`get_mut`](TensorBase::get_mut), [`as_mut_slice`](TensorBase::as_mut_slice), [`view_mut`](TensorBase::view_mut), [`copy_from`](TensorBase::copy_from); an output of `convert` | ✓ | | ✓ | | ✓ |
/// | [`tensor_core`](TensorBase::tensor_core) (the guide's rules name a layout) | ✓ | ✓ | ✓ | | |
/// | [`new`](TensorView::new), [`new_in`](TensorView::new_in) (over a slice) | | ✓ | ✓ | ✓ | ✓ |
/// | [`into_slice`](TensorView::into_slice), [`into_get`](TensorView::into_get) (for the data's lifetime) | | ✓ | | ✓ | |
/// | [`into_vec`](Tensor::into_vec), [`zeros`](Tensor::zeros), [`from_vec`](Tensor::from_vec), [`from_fn`](Tensor::from_fn), … | ✓ | | | | |
///
/// Dims, indices and strides are in the family's logical order (`[n, c, h, w]` whatever the
/// layout); strides are signed ([`StridesOf`]); `as_slice` is the storage in memory order.
///
/// ```
/// use typed_layout::{Image, Nhwc, StridedView, Tensor, TensorView};
/// let mut t = Tensor::<u8, Nhwc>::zeros([1, 3, 2, 2])?;
/// *t.get_mut([0, 2, 1, 0]).unwrap() = 7; // n, c, h, w
/// assert_eq!(t.as_slice()[1 * 6 + 0 * 3 + 2], 7); // h · W·C + w · C + c
/// // The same element through each kind of view, with the same accessor.
/// let packed = TensorView::<u8, Nhwc>::new([1, 3, 2, 2], t.as_slice())?;
/// let strided = StridedView::<u8, Image>::new([1, 3, 2, 2], t.strides(), 0, t.as_slice())?;
/// assert_eq!((packed.get([0, 2, 1, 0]), strided.get([0, 2, 1, 0])), (Some(&7), Some(&7)));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub struct TensorBase<S: Storage, A: Arrangement> {
    shape: A::Shape,
    storage: S,
}

/// An owning tensor of `T` in layout `L`.
///
/// ```
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// // The guide's example tensor: values 0, 1, 2, … in NCHW order.
/// let nchw = Tensor::<f32, Nchw>::from_vec([1, 64, 5, 4], (0..1280).map(|v| v as f32).collect())?;
/// let nhwc: Tensor<f32, Nhwc> = nchw.to_layout()?;
/// assert_eq!(&nhwc.as_slice()[..3], &[0.0, 20.0, 40.0]);
/// assert_eq!(nhwc.get([0, 1, 0, 0]), Some(&20.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// Storage allocated by typed-layout starts on a 1024-bit (128-byte) boundary, the alignment
/// the guide's Tensor Core rules prefer (they require 128 bits); a tensor built
/// [`from_vec`](Tensor::from_vec) keeps the caller's buffer, and
/// [`tensor_core`](TensorBase::tensor_core) reports its alignment.
pub type Tensor<T, L> = TensorBase<Owned<T>, L>;

/// A shared view of packed storage in layout `L`.
///
/// ```
/// use typed_layout::{convert, Nchw, Nhwc, Tensor, TensorView};
/// let data: Vec<f32> = (0..24).map(|v| v as f32).collect(); // someone else's NHWC buffer
/// let v = TensorView::<f32, Nhwc>::new([1, 2, 3, 4], &data)?;
/// assert_eq!(v.get([0, 1, 0, 0]), Some(&1.0)); // c = 1 is the second element
/// let mut nchw = Tensor::<f32, Nchw>::zeros([1, 2, 3, 4])?;
/// convert(&v, &mut nchw)?; // views convert like tensors
/// assert_eq!(nchw.as_slice()[12], 1.0); // c = 1 starts the second plane
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type TensorView<'a, T, L> = TensorBase<View<'a, T>, L>;

/// A mutable view of packed storage in layout `L`: a possible conversion output (a packed
/// layout never overlaps).
///
/// ```
/// use typed_layout::{convert, Nchw, Nhwc, Tensor, TensorViewMut};
/// let src = Tensor::<f32, Nchw>::filled([1, 2, 3, 4], 5.0)?;
/// let mut buffer = vec![0.0f32; 24]; // a buffer owned elsewhere, filled in NHWC
/// convert(&src, &mut TensorViewMut::<f32, Nhwc>::new([1, 2, 3, 4], &mut buffer)?)?;
/// assert!(buffer.iter().all(|&v| v == 5.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type TensorViewMut<'a, T, L> = TensorBase<ViewMut<'a, T>, L>;

/// A read-only view with arbitrary signed strides (in elements, logical order) from element
/// `base` of a slice: the guide's general tensor, overlapping dimensions allowed. It can only be
/// a conversion *input*.
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
pub type StridedView<'a, T, F> = TensorBase<View<'a, T>, Strided<F>>;

/// A mutable view with arbitrary signed strides: a conversion output into a padded or otherwise
/// strided buffer. Refused when its dimensions overlap or may overlap (cuDNN: "dimensions of
/// the output tensors cannot overlap").
///
/// ```
/// use typed_layout::{Image, Nhwc, StridedViewMut, Tensor, LayoutError};
/// let mut buf = vec![0u8; 64];
/// // Overlapping strides are refused for outputs.
/// let e = StridedViewMut::<u8, Image>::new([1, 2, 2, 2], [8, 1, 1, 2], 0, &mut buf).unwrap_err();
/// assert!(matches!(e, LayoutError::OverlappingOutput { .. }));
/// // NHWC rows padded to 8 elements: W·C = 4 of every 8 used.
/// let mut out = StridedViewMut::<u8, Image>::new([1, 2, 2, 2], [16, 1, 8, 2], 0, &mut buf)?;
/// let t = Tensor::<u8, Nhwc>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (100 * h + 10 * w + c) as u8)?;
/// out.copy_from(&t)?;
/// assert_eq!(&buf[8..12], &[100, 101, 110, 111]);
/// # Ok::<(), LayoutError>(())
/// ```
pub type StridedViewMut<'a, T, F> = TensorBase<ViewMut<'a, T>, Strided<F>>;

impl<S: Storage + Clone, A: Arrangement> Clone for TensorBase<S, A> {
    fn clone(&self) -> Self {
        TensorBase { shape: self.shape, storage: self.storage.clone() }
    }
}

impl<S: Storage + Copy, A: Arrangement> Copy for TensorBase<S, A> {}

/// Equal when the shapes are and the storage holds the same elements (for a strided view: the
/// same buffer contents, not only the elements the view reaches).
impl<S: Storage, R: Storage<Elem = S::Elem>, A: Arrangement> PartialEq<TensorBase<R, A>>
    for TensorBase<S, A>
{
    fn eq(&self, other: &TensorBase<R, A>) -> bool {
        self.shape == other.shape && self.as_slice() == other.as_slice()
    }
}

/// The kind, the layout, and dims and strides with their letters (logical order), not the
/// elements:
///
/// ```
/// use typed_layout::{Nhwc, Tensor};
/// let t = Tensor::<u8, Nhwc>::zeros([1, 3, 224, 224])?;
/// assert_eq!(
///     format!("{t:?}"),
///     "Tensor { layout: \"NHWC\", dims: N=1 C=3 H=224 W=224, strides: N=150528 C=1 H=672 W=3, data_type: Uint8 }"
/// );
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
impl<S: Storage, A: Arrangement> fmt::Debug for TensorBase<S, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letters = <A::Family as Family>::LETTERS;
        let kind = match (S::KIND, A::NAME) {
            ("TensorView", "strided") => "StridedView",
            ("TensorViewMut", "strided") => "StridedViewMut",
            (kind, _) => kind,
        };
        f.debug_struct(kind)
            .field("layout", &A::NAME)
            .field("dims", &Lettered(letters, self.dims().as_ref()))
            .field("strides", &Lettered(letters, self.group_strides().as_ref()))
            .field("data_type", &<S::Elem as Element>::DATA_TYPE)
            .finish()
    }
}

/// Values with their dimension letters: `N=1 C=3 H=224 W=224`.
pub(crate) struct Lettered<'a, V>(pub(crate) &'a str, pub(crate) &'a [V]);

impl<V: fmt::Display> fmt::Debug for Lettered<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (letter, v)) in self.0.chars().zip(self.1).enumerate() {
            let sep = if k == 0 { "" } else { " " };
            write!(f, "{sep}{letter}={v}")?;
        }
        Ok(())
    }
}

/// Read access, for every kind.
impl<S: Storage, A: Arrangement> TensorBase<S, A> {
    /// Over `storage`, whose slice the shape's offsets must lie in (checked by the callers).
    pub(crate) fn from_parts(shape: A::Shape, storage: S) -> Self {
        TensorBase { shape, storage }
    }

    /// The shape and the storage, apart.
    pub(crate) fn into_parts(self) -> (A::Shape, S) {
        (self.shape, self.storage)
    }

    /// The validated shape: a [`Shape<L>`](crate::Shape) for a layout, a
    /// [`StridedShape<F>`](crate::StridedShape) for a strided view.
    pub fn shape(&self) -> &A::Shape {
        &self.shape
    }
    /// Logical dims.
    pub fn dims(&self) -> DimsOf<A> {
        A::dims(&self.shape)
    }
    /// Strides in logical order, in elements, signed: for arrangements in which every dimension
    /// has one ([`PerDimStrides`]: not NC/xHWx, see [`group_strides`](TensorBase::group_strides)).
    pub fn strides(&self) -> StridesOf<A>
    where
        A: PerDimStrides,
    {
        A::group_strides(&self.shape)
    }
    /// Strides in logical order, except that NC/xHWx's vectorized C gives the distance between
    /// vector groups (the lanes are contiguous): equal to [`strides`](TensorBase::strides)
    /// wherever that exists.
    pub fn group_strides(&self) -> StridesOf<A> {
        A::group_strides(&self.shape)
    }
    /// Whether two indices share an address: [`Overlap::Disjoint`] for every layout; a strided
    /// view of an input may overlap.
    pub fn overlap(&self) -> Overlap {
        A::overlap(&self.shape)
    }
    /// The storage in memory order: for a layout, exactly the tensor's elements (padding
    /// included); for a strided view, the whole slice it was built over.
    pub fn as_slice(&self) -> &[S::Elem] {
        self.storage.slice()
    }
    /// The element at a logical index, or `None` outside the tensor.
    pub fn get(&self, index: DimsOf<A>) -> Option<&S::Elem> {
        self.as_slice().get(A::offset(&self.shape, &index)?)
    }
    /// A shared view of the same elements, with the same arrangement.
    pub fn view(&self) -> TensorBase<View<'_, S::Elem>, A> {
        TensorBase { shape: self.shape, storage: View(self.storage.slice()) }
    }
    /// The same logical tensor in layout `D` (same family), converted on the CPU into a new
    /// tensor. The conversion writes each byte of the new storage once: it is not zeroed first.
    ///
    /// Fails when `D` rejects the dims (C not a multiple of NC/xHWx's x).
    pub fn to_layout<D: Layout>(&self) -> Result<Tensor<S::Elem, D>, LayoutError>
    where
        D::Family: SameFamily<A::Family>,
    {
        Tensor::converted_from(crate::layout::Shape::new(D::Family::same_dims(self.dims()))?, self)
    }

    /// The same logical tensor written into `dst`, a tensor or mutable view the caller owns, in
    /// any arrangement of the family (a sub-tensor of a larger buffer, say): no allocation below
    /// [`PARALLEL_THRESHOLD_BYTES`](crate::PARALLEL_THRESHOLD_BYTES) or on a rayon worker (that
    /// constant's doc says what a larger call from another thread costs).
    /// Fails with [`LayoutError::ShapeMismatch`] naming the dimension when the dims differ.
    ///
    /// ```
    /// use typed_layout::{Nchw, Nhwc, Tensor};
    /// let x = Tensor::<f32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
    /// let mut batch = Tensor::<f32, Nhwc>::zeros([4, 2, 2, 2])?; // the engine's batch buffer
    /// x.to_layout_into(&mut batch.batch_mut(3)?)?; // into image 3, converted on the way
    /// assert_eq!(batch[[3, 1, 1, 0]], 6.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn to_layout_into<D>(&self, dst: &mut D) -> Result<(), LayoutError>
    where
        D: Destination<S::Elem> + ?Sized,
        D::Family: SameFamily<A::Family>,
    {
        convert::convert(self, dst)
    }
}

/// Borrowed views: the elements as long as the borrowed data lives, not only the view.
impl<'a, T: Element, A: Arrangement> TensorBase<View<'a, T>, A> {
    /// The borrowed slice (what [`as_slice`](TensorBase::as_slice) gives), for the lifetime of
    /// the data.
    ///
    /// ```
    /// use typed_layout::{Nhwc, TensorView};
    /// fn first_pixel<'a>(v: TensorView<'a, u8, Nhwc>) -> &'a [u8] {
    ///     &v.into_slice()[..3]
    /// }
    /// let data = [1, 2, 3, 4, 5, 6];
    /// assert_eq!(first_pixel(TensorView::<u8, Nhwc>::new([1, 3, 1, 2], &data)?), &[1, 2, 3]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn into_slice(self) -> &'a [T] {
        self.storage.0
    }
    /// The element at a logical index, for the lifetime of the data.
    pub fn into_get(self, index: DimsOf<A>) -> Option<&'a T> {
        let offset = A::offset(&self.shape, &index)?;
        self.storage.0.get(offset)
    }
}

/// Write access, for kinds with mutable storage.
impl<S: StorageMut, A: Arrangement> TensorBase<S, A> {
    /// Mutable storage in memory order (for a strided view: the whole slice it was built over).
    pub fn as_mut_slice(&mut self) -> &mut [S::Elem] {
        self.storage.slice_mut()
    }
    /// The element at a logical index, mutably, or `None` outside the tensor.
    pub fn get_mut(&mut self, index: DimsOf<A>) -> Option<&mut S::Elem> {
        let offset = A::offset(&self.shape, &index)?;
        self.as_mut_slice().get_mut(offset)
    }
    /// A mutable view of the same elements, with the same arrangement.
    pub fn view_mut(&mut self) -> TensorBase<ViewMut<'_, S::Elem>, A> {
        TensorBase { shape: self.shape, storage: ViewMut(self.storage.slice_mut()) }
    }
    /// Writes the logical tensor `src` (any kind, any arrangement of the same family) into this
    /// one: [`convert`](crate::convert())`(src, self)`.
    pub fn copy_from<R: Source<S::Elem>>(&mut self, src: &R) -> Result<(), LayoutError>
    where
        Self: Destination<S::Elem, Family = A::Family>,
        A::Family: SameFamily<R::Family>,
    {
        convert::convert(src, self)
    }
}

/// What the guide's layout rules need: a layout (of the tensor, or of the tensor it is part of).
impl<S: Storage, A: InLayout> TensorBase<S, A> {
    /// The Tensor Core rules this tensor breaks: its shape's, its data type's, and its buffer's
    /// alignment (met by storage typed-layout allocates; a sub-tensor's is where it starts).
    ///
    /// ```
    /// use typed_layout::{tensor_core::TensorCoreRule, Nhwc, Tensor};
    /// let x = Tensor::<half::f16, Nhwc>::zeros([8, 16, 7, 7])?;
    /// assert!(x.tensor_core().is_ready());
    /// assert!(!x.narrow('C', 0..3)?.tensor_core().is_ready()); // C = 3
    /// let y = Tensor::<i8, Nhwc>::zeros([8, 3, 7, 7])?;
    /// assert_eq!(y.tensor_core().to_string(),
    ///     "Tensor Cores want the channel count C padded to a multiple of 8; Tensor Cores accelerate FP16, FP32 and INT32 data; \
    ///      extension (NVIDIA Deep Learning Performance Guide): INT8 Tensor Cores want channel counts padded to multiples of 16");
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn tensor_core(&self) -> crate::tensor_core::TensorCoreCheck {
        let data_type = <S::Elem as Element>::DATA_TYPE;
        let format = &<A::Layout as Layout>::FORMAT;
        let letters = <A::Layout as Layout>::LETTERS;
        let dims = A::sub_shape(&self.shape);
        crate::tensor_core::TensorCoreCheck::of_shape(format, letters, dims.placement().dims(), data_type)
            .with_address(self.as_slice().as_ptr() as usize)
    }
}
