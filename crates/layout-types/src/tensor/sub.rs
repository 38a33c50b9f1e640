//! Sub-tensors without copying: a range of one axis ([`narrow`](TensorBase::narrow)), a box of
//! every axis ([`crop`](TensorBase::crop)), one batch ([`batch`](TensorBase::batch)), on every
//! kind of tensor and view alike. The result is a view of the same storage: of a layout, a
//! [`Sub<L>`](crate::Sub) view (same layout, fewer positions); of a strided view, a strided view.

use core::ops::Range;

use super::{Storage, StorageMut, StridedView, TensorBase, TensorView, TensorViewMut, View, ViewMut};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{DimArray, Droppable, Dropped, Family, IntoAxis};
use crate::layout::{Arrangement, DimsOf, InLayout, Layout, PerDimStrides, Shape, StridesOf};

/// A sub-tensor of arrangement `A`, borrowed from storage `S`.
type SubOf<S, A> = TensorBase<S, <A as Arrangement>::Sub>;

/// A shared view of a sub-tensor of layout `L` (a batch, a channel range, a crop): what
/// [`narrow`](TensorBase::narrow) and [`crop`](TensorBase::crop) give for a tensor in a layout.
///
/// ```
/// use typed_layout::{Nchw, SubView, Tensor};
/// let t = Tensor::<f32, Nchw>::from_fn([4, 3, 2, 2], |[n, c, _, _]| (10 * n + c) as f32)?;
/// let second: SubView<'_, f32, Nchw> = t.batch(1)?;
/// assert_eq!(second.dims(), [1, 3, 2, 2]);
/// assert_eq!(second[[0, 2, 1, 1]], 12.0);
/// assert!(second.shape().is_packed()); // one image of NCHW is packed
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type SubView<'a, T, L> = TensorBase<View<'a, T>, crate::layout::Sub<L>>;

/// A mutable view of a sub-tensor of layout `L`.
///
/// ```
/// use typed_layout::{Nhwc, Tensor};
/// let mut t = Tensor::<u8, Nhwc>::zeros([1, 4, 3, 3])?;
/// t.crop_mut([0, 0, 1, 1], [1, 4, 2, 2])?.fill(9); // the lower-right 2×2 pixels
/// assert_eq!(t.iter().filter(|&&v| v == 9).count(), 16);
/// assert_eq!(t[[0, 3, 2, 2]], 9);
/// assert_eq!(t[[0, 3, 0, 2]], 0);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type SubViewMut<'a, T, L> = TensorBase<ViewMut<'a, T>, crate::layout::Sub<L>>;

/// The start and dims of the box that narrows axis `axis` of `dims` to `range`.
fn narrowing<A: Arrangement>(
    dims: DimsOf<A>,
    axis: impl IntoAxis,
    range: Range<usize>,
) -> Result<(DimsOf<A>, DimsOf<A>), LayoutError> {
    let d = axis.index_in::<A::Family>()?;
    let mut start = DimsOf::<A>::from_fn(|_| 0);
    let mut sub = dims;
    start.as_mut()[d] = range.start;
    sub.as_mut()[d] = range.end.saturating_sub(range.start);
    if range.end < range.start {
        let dim = crate::error::DimName::new(d, <A::Family as Family>::LETTERS.as_bytes());
        let size = dims.as_ref()[d];
        return Err(LayoutError::RangeOutOfBounds { dim, start: range.start, end: range.end, size });
    }
    Ok((start, sub))
}

/// The batch axis: B of a matmul family (whose N is the columns), else N.
fn batch_axis<F: Family>() -> Result<usize, LayoutError> {
    'B'.index_in::<F>().or_else(|_| 'N'.index_in::<F>())
}

/// Sub-tensors, shared, for every kind.
impl<S: Storage, A: Arrangement> TensorBase<S, A> {
    /// The positions `start[d]..start[d] + dims[d]` of every axis `d`, as a view of the same
    /// storage (a spatial crop, say). Fails when the box leaves the tensor, or (NC/xHWx) cuts a
    /// vector of C.
    ///
    /// ```
    /// use typed_layout::{LayoutError, NcxHwx, Tensor};
    /// let t = Tensor::<i8, NcxHwx<4>>::from_fn([1, 8, 4, 4], |[_, c, h, w]| (c + h + w) as i8)?;
    /// let v = t.crop([0, 4, 1, 2], [1, 4, 2, 2])?; // channels 4..8, a 2×2 window
    /// assert_eq!(v[[0, 1, 1, 1]], 5 + 2 + 3);
    /// let e = t.crop([0, 2, 0, 0], [1, 4, 4, 4]).unwrap_err();
    /// assert!(matches!(e, LayoutError::NotWholeVectors { width: 4, .. }));
    /// let e = t.crop([0, 0, 3, 0], [1, 8, 2, 4]).unwrap_err(); // rows 3..5 of 4
    /// assert!(matches!(e, LayoutError::RangeOutOfBounds { start: 3, end: 5, size: 4, .. }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn crop(
        &self,
        start: DimsOf<A>,
        dims: DimsOf<A>,
    ) -> Result<SubOf<View<'_, S::Elem>, A>, LayoutError> {
        let (shape, part) = A::sub(self.shape(), start.as_ref(), dims.as_ref())?;
        let data = self.as_slice();
        let data = match part {
            Some((offset, len)) => &data[offset..offset + len],
            None => data,
        };
        Ok(TensorBase::from_parts(shape, View(data)))
    }

    /// The positions `range` of one axis, named by its letter (`'C'`) or index, as a view of
    /// the same storage. NC/xHWx narrows C only at whole vectors.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let t = Tensor::<u8, Nhwc>::from_fn([1, 8, 2, 2], |[_, c, _, _]| c as u8)?;
    /// let rgb = t.narrow('C', 0..3)?; // the first three channels of each pixel
    /// assert_eq!(rgb.iter().copied().collect::<Vec<_>>(), [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
    /// assert_eq!(t.narrow(1, 0..3)?.dims(), rgb.dims()); // by index
    /// assert!(t.narrow('D', 0..1).is_err()); // no such axis in an image
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn narrow(
        &self,
        axis: impl IntoAxis,
        range: Range<usize>,
    ) -> Result<SubOf<View<'_, S::Elem>, A>, LayoutError> {
        let (start, dims) = narrowing::<A>(self.dims(), axis, range)?;
        self.crop(start, dims)
    }

    /// Batch `n` (the batch axis kept, of size 1: N, or B of a matmul family), as a view of the
    /// same storage.
    pub fn batch(&self, n: usize) -> Result<SubOf<View<'_, S::Elem>, A>, LayoutError> {
        self.narrow(batch_axis::<A::Family>()?, n..n.saturating_add(1))
    }
}

/// Sub-tensors, mutable, for kinds with mutable storage.
impl<S: StorageMut, A: Arrangement> TensorBase<S, A> {
    /// [`crop`](TensorBase::crop), mutably.
    pub fn crop_mut(
        &mut self,
        start: DimsOf<A>,
        dims: DimsOf<A>,
    ) -> Result<SubOf<ViewMut<'_, S::Elem>, A>, LayoutError> {
        let (shape, part) = A::sub(self.shape(), start.as_ref(), dims.as_ref())?;
        let data = self.as_mut_slice();
        let data = match part {
            Some((offset, len)) => &mut data[offset..offset + len],
            None => data,
        };
        // A part of a tensor that does not overlap does not overlap.
        Ok(TensorBase::from_parts(shape, ViewMut(data)))
    }

    /// [`narrow`](TensorBase::narrow), mutably.
    pub fn narrow_mut(
        &mut self,
        axis: impl IntoAxis,
        range: Range<usize>,
    ) -> Result<SubOf<ViewMut<'_, S::Elem>, A>, LayoutError> {
        let (start, dims) = narrowing::<A>(self.dims(), axis, range)?;
        self.crop_mut(start, dims)
    }

    /// [`batch`](TensorBase::batch), mutably.
    pub fn batch_mut(&mut self, n: usize) -> Result<SubOf<ViewMut<'_, S::Elem>, A>, LayoutError> {
        self.narrow_mut(batch_axis::<A::Family>()?, n..n.saturating_add(1))
    }
}

/// Sub-tensors of a shared view for as long as its data lives (not only while the view is
/// borrowed): a crop of a temporary view, or one returned from a function.
impl<'a, T: Element, A: Arrangement> TensorBase<View<'a, T>, A> {
    /// [`crop`](TensorBase::crop), consuming the view.
    ///
    /// ```
    /// use typed_layout::{Nhwc, SubView, TensorView};
    /// fn center<'a>(image: TensorView<'a, u8, Nhwc>) -> Result<SubView<'a, u8, Nhwc>, typed_layout::LayoutError> {
    ///     image.into_crop([0, 0, 1, 1], [1, 3, 2, 2])
    /// }
    /// let hwc: Vec<u8> = (0..48).collect();
    /// let c = center(TensorView::<u8, Nhwc>::new_physical([1, 4, 4, 3], &hwc)?)?;
    /// assert_eq!(c[[0, 0, 0, 0]], 15); // row 1, column 1, red
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn into_crop(self, start: DimsOf<A>, dims: DimsOf<A>) -> Result<SubOf<View<'a, T>, A>, LayoutError> {
        let (shape, part) = A::sub(self.shape(), start.as_ref(), dims.as_ref())?;
        let data = self.storage.0;
        let data = match part {
            Some((offset, len)) => &data[offset..offset + len],
            None => data,
        };
        Ok(TensorBase::from_parts(shape, View(data)))
    }
    /// [`narrow`](TensorBase::narrow), consuming the view.
    pub fn into_narrow(
        self,
        axis: impl IntoAxis,
        range: Range<usize>,
    ) -> Result<SubOf<View<'a, T>, A>, LayoutError> {
        let (start, dims) = narrowing::<A>(self.dims(), axis, range)?;
        self.into_crop(start, dims)
    }
    /// [`batch`](TensorBase::batch), consuming the view.
    pub fn into_batch(self, n: usize) -> Result<SubOf<View<'a, T>, A>, LayoutError> {
        self.into_narrow(batch_axis::<A::Family>()?, n..n.saturating_add(1))
    }
}

/// Sub-tensors of a mutable view for as long as its data lives.
impl<'a, T: Element, A: Arrangement> TensorBase<ViewMut<'a, T>, A> {
    /// [`crop_mut`](TensorBase::crop_mut), consuming the view.
    pub fn into_crop(
        self,
        start: DimsOf<A>,
        dims: DimsOf<A>,
    ) -> Result<SubOf<ViewMut<'a, T>, A>, LayoutError> {
        let (shape, part) = A::sub(self.shape(), start.as_ref(), dims.as_ref())?;
        let data = self.storage.0;
        let data = match part {
            Some((offset, len)) => &mut data[offset..offset + len],
            None => data,
        };
        Ok(TensorBase::from_parts(shape, ViewMut(data)))
    }
    /// [`narrow_mut`](TensorBase::narrow_mut), consuming the view.
    pub fn into_narrow(
        self,
        axis: impl IntoAxis,
        range: Range<usize>,
    ) -> Result<SubOf<ViewMut<'a, T>, A>, LayoutError> {
        let (start, dims) = narrowing::<A>(self.dims(), axis, range)?;
        self.into_crop(start, dims)
    }
    /// [`batch_mut`](TensorBase::batch_mut), consuming the view.
    pub fn into_batch(self, n: usize) -> Result<SubOf<ViewMut<'a, T>, A>, LayoutError> {
        self.into_narrow(batch_axis::<A::Family>()?, n..n.saturating_add(1))
    }
}

/// Broadcasts: an axis of size 1 repeated, as a strided view with stride 0 there (an input only:
/// its indices share addresses).
impl<S: Storage, A: Arrangement + PerDimStrides> TensorBase<S, A> {
    /// This tensor repeated `size` times along `axis`, whose size is 1; no copy.
    ///
    /// ```
    /// use typed_layout::{Nchw, Overlap, Tensor};
    /// let bias = Tensor::<f32, Nchw>::from_fn([1, 3, 1, 1], |[_, c, _, _]| c as f32)?;
    /// let wide = bias.broadcast('W', 4)?;
    /// assert_eq!((wide.dims(), wide[[0, 2, 0, 3]]), ([1, 3, 1, 4], 2.0));
    /// assert_eq!(wide.overlap(), Overlap::Overlapping);
    /// assert!(bias.broadcast('C', 2).is_err()); // C is 3, not 1
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn broadcast(
        &self,
        axis: impl IntoAxis,
        size: usize,
    ) -> Result<StridedView<'_, S::Elem, A::Family>, LayoutError> {
        let zero = DimsOf::<A>::from_fn(|_| 0);
        let base = A::offset(self.shape(), &zero).unwrap_or(0); // every dim is at least 1
        broadcast_view(self.dims(), A::group_strides(self.shape()), base, self.as_slice(), axis, size)
    }
}

impl<'a, T: Element, A: Arrangement + PerDimStrides> TensorBase<View<'a, T>, A> {
    /// [`broadcast`](TensorBase::broadcast), consuming the view: the result borrows the
    /// tensor the view borrows (to broadcast a second axis, or a crop returned from a function).
    pub fn into_broadcast(
        self,
        axis: impl IntoAxis,
        size: usize,
    ) -> Result<StridedView<'a, T, A::Family>, LayoutError> {
        let zero = DimsOf::<A>::from_fn(|_| 0);
        let base = A::offset(self.shape(), &zero).unwrap_or(0); // every dim is at least 1
        broadcast_view(self.dims(), A::group_strides(self.shape()), base, self.storage.0, axis, size)
    }
}

/// The view of `data` with `dims` and `strides` from `base`, axis `axis` (of size 1) repeated.
fn broadcast_view<'a, T: Element, F: Family>(
    mut dims: F::Dims,
    mut strides: F::Strides,
    base: usize,
    data: &'a [T],
    axis: impl IntoAxis,
    size: usize,
) -> Result<StridedView<'a, T, F>, LayoutError> {
    let d = axis.index_in::<F>()?;
    if dims.as_ref()[d] != 1 {
        return Err(LayoutError::NotApplicable { reason: "broadcasting repeats an axis of size 1" });
    }
    dims.as_mut()[d] = size;
    strides.as_mut()[d] = 0;
    StridedView::new(dims, strides, base, data)
}

/// Indexing an axis away: one position of an axis, as a view of one rank less.
impl<S: Storage, A: Arrangement + PerDimStrides> TensorBase<S, A>
where
    DimsOf<A>: Droppable<usize>,
    StridesOf<A>: Droppable<isize>,
{
    /// Position `i` of axis `AXIS` (a letter of the family), the axis dropped: a strided view
    /// of the family [`Dropped<F, AXIS>`](Dropped), one rank less (an image of a batch has
    /// letters `CHW`). Fails with [`LayoutError::RangeOutOfBounds`] past the axis; for a family
    /// of rank 3 (the guide's least) or a vectorized layout it does not compile.
    ///
    /// ```
    /// use typed_layout::{Family, Nhwc, Tensor};
    /// let t = Tensor::<u8, Nhwc>::from_fn([4, 3, 2, 2], |[n, c, h, w]| (n * 100 + c * 10 + h * 2 + w) as u8)?;
    /// let image = t.index_axis::<'N'>(2)?; // dims [c, h, w]
    /// assert_eq!((image.dims(), image[[1, 1, 0]]), ([3, 2, 2], 212));
    /// assert_eq!(image.strides(), [1, 6, 3]); // NHWC's, without N's
    /// assert!(t.index_axis::<'N'>(4).is_err());
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    ///
    /// A letter the family does not have fails to compile:
    ///
    /// ```compile_fail,E0080
    /// use typed_layout::{Nchw, Tensor};
    /// let t = Tensor::<u8, Nchw>::zeros([1, 3, 2, 2]).unwrap();
    /// let _ = t.index_axis::<'D'>(0); // images have no D
    /// ```
    pub fn index_axis<const AXIS: char>(
        &self,
        i: usize,
    ) -> Result<StridedView<'_, S::Elem, Dropped<A::Family, AXIS>>, LayoutError> {
        let d = Dropped::<A::Family, AXIS>::AXIS_INDEX;
        let dims = self.dims();
        let size = dims.as_ref()[d];
        if i >= size {
            let dim = crate::error::DimName::new(d, <A::Family as Family>::LETTERS.as_bytes());
            return Err(LayoutError::RangeOutOfBounds { dim, start: i, end: i.saturating_add(1), size });
        }
        let mut first = DimsOf::<A>::from_fn(|_| 0);
        first.as_mut()[d] = i;
        let base = A::offset(self.shape(), &first).unwrap_or(0); // inside: i < size
        let strides = A::group_strides(self.shape());
        StridedView::new(dims.without(d), strides.without(d), base, self.as_slice())
    }
}

/// Reshapes: the same memory read as another packed layout, for a tensor whose storage is
/// packed (a whole tensor, or a sub-tensor that happens to be: a batch of NCHW).
impl<S: Storage, A: InLayout> TensorBase<S, A> {
    /// The same elements, in the same memory order, as a packed tensor of layout `D` (of any
    /// family) with `dims`: flattening NCHW's H·W into a matmul's columns, say. Fails with
    /// [`LayoutError::BufferLength`] when the element counts differ, with `D`'s own rule when it
    /// rejects the dims, and with [`LayoutError::NotApplicable`] when this tensor is not packed
    /// (a crop: its elements are not one run of memory).
    ///
    /// ```
    /// use typed_layout::{Bmn, Nchw, RowMajor, Tensor};
    /// let x = Tensor::<f32, Nchw>::from_fn([2, 3, 4, 5], |[n, c, h, w]| (1000 * n + 100 * c + 10 * h + w) as f32)?;
    /// let m = x.reshape::<Bmn<RowMajor>>([2, 3, 20])?; // b = n, m = c, n = h·W + w
    /// assert_eq!(m[[1, 2, 13]], 1223.0);
    /// assert!(x.crop([0, 0, 0, 0], [2, 3, 4, 4])?.reshape::<Bmn<RowMajor>>([2, 3, 16]).is_err());
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn reshape<D: Layout>(&self, dims: DimsOf<D>) -> Result<TensorView<'_, S::Elem, D>, LayoutError> {
        let shape = reshaped::<A, D>(self.shape(), dims, self.as_slice().len())?;
        Ok(TensorBase::from_parts(shape, View(self.as_slice())))
    }
}

/// [`reshape`](TensorBase::reshape), mutably.
impl<S: StorageMut, A: InLayout> TensorBase<S, A> {
    /// The same elements as a mutable packed tensor of layout `D` with `dims`.
    pub fn reshape_mut<D: Layout>(
        &mut self,
        dims: DimsOf<D>,
    ) -> Result<TensorViewMut<'_, S::Elem, D>, LayoutError> {
        let shape = reshaped::<A, D>(self.shape(), dims, self.as_slice().len())?;
        Ok(TensorBase::from_parts(shape, ViewMut(self.as_mut_slice())))
    }
}

/// [`reshape`](TensorBase::reshape), consuming a view: the result borrows what the view
/// borrows (to return it from a function).
impl<'a, T: Element, A: InLayout> TensorBase<View<'a, T>, A> {
    /// [`reshape`](TensorBase::reshape) for the lifetime of the borrowed data.
    ///
    /// ```
    /// use typed_layout::{Bmn, Nchw, RowMajor, Tensor, TensorView};
    /// fn as_matrix(x: TensorView<'_, f32, Nchw>) -> TensorView<'_, f32, Bmn<RowMajor>> {
    ///     let [n, c, h, w] = x.dims();
    ///     x.into_reshape([n, c, h * w]).unwrap()
    /// }
    /// let x = Tensor::<f32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
    /// assert_eq!(as_matrix(x.view())[[0, 1, 3]], 7.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn into_reshape<D: Layout>(self, dims: DimsOf<D>) -> Result<TensorView<'a, T, D>, LayoutError> {
        let shape = reshaped::<A, D>(self.shape(), dims, self.storage.0.len())?;
        Ok(TensorBase::from_parts(shape, View(self.storage.0)))
    }
}

/// [`reshape_mut`](TensorBase::reshape_mut), consuming a mutable view.
impl<'a, T: Element, A: InLayout> TensorBase<ViewMut<'a, T>, A> {
    /// [`reshape_mut`](TensorBase::reshape_mut) for the lifetime of the borrowed data.
    pub fn into_reshape<D: Layout>(self, dims: DimsOf<D>) -> Result<TensorViewMut<'a, T, D>, LayoutError> {
        let shape = reshaped::<A, D>(self.shape(), dims, self.storage.0.len())?;
        Ok(TensorBase::from_parts(shape, ViewMut(self.storage.0)))
    }
}

/// The packed shape of layout `D` with `dims` that the `len` elements of a tensor of shape
/// `shape` are read as: the tensor must be packed, and the counts equal.
fn reshaped<A: InLayout, D: Layout>(
    shape: &A::Shape,
    dims: DimsOf<D>,
    len: usize,
) -> Result<Shape<D>, LayoutError> {
    if A::sub_shape(shape).packed().is_none() {
        return Err(LayoutError::NotApplicable {
            reason:
                "a reshape reads the same memory as another layout: the tensor must be packed (a crop is not)",
        });
    }
    let out = Shape::<D>::new(dims)?;
    out.check_buffer(len)?;
    Ok(out)
}
