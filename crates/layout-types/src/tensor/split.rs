//! Splitting a tensor for threads: disjoint mutable parts along an axis outside every other
//! ([`split_at_mut`](TensorBase::split_at_mut)), chunks along an axis, shared or mutable, and
//! (feature `parallel`) mutable chunks as a rayon parallel iterator. Every part is a sub-tensor
//! view owning its own slice of the storage, so handing parts to threads needs no `unsafe`.

use super::{Storage, StorageMut, TensorBase, View, ViewMut};
use crate::dtype::Element;
use crate::error::{DimName, LayoutError};
use crate::family::{DimArray, Family, IntoAxis};
use crate::layout::{Arrangement, DimsOf};

/// The boxes `0..mid` and `mid..` of axis `d` of `dims`: (start, dims) of each.
fn halves<A: Arrangement>(dims: DimsOf<A>, d: usize, mid: usize) -> [(DimsOf<A>, DimsOf<A>); 2] {
    let zero = DimsOf::<A>::from_fn(|_| 0);
    let (mut first, mut start, mut second) = (dims, zero, dims);
    first.as_mut()[d] = mid;
    start.as_mut()[d] = mid;
    second.as_mut()[d] = dims.as_ref()[d] - mid;
    [(zero, first), (start, second)]
}

/// The shapes of the halves of `shape` along `d` at `mid`, and where their storage lies, when
/// it does not interleave: `(first, second, second's offset, lengths)`.
#[allow(clippy::type_complexity)]
fn split_shapes<A: Arrangement>(
    shape: &A::Shape,
    d: usize,
    mid: usize,
) -> Result<(<A::Sub as Arrangement>::Shape, <A::Sub as Arrangement>::Shape, usize, [usize; 2]), LayoutError>
{
    let letters = <A::Family as Family>::LETTERS.as_bytes();
    let dims = A::dims(shape);
    let size = dims.as_ref()[d];
    if mid == 0 || mid >= size {
        let dim = DimName::new(d, letters);
        return Err(LayoutError::RangeOutOfBounds { dim, start: mid, end: size, size });
    }
    let [(s1, d1), (s2, d2)] = halves::<A>(dims, d, mid);
    let (first, p1) = A::sub(shape, s1.as_ref(), d1.as_ref())?;
    let (second, p2) = A::sub(shape, s2.as_ref(), d2.as_ref())?;
    match (p1, p2) {
        (Some((0, l1)), Some((o2, l2))) if l1 <= o2 => Ok((first, second, o2, [l1, l2])),
        _ => Err(LayoutError::SplitInterleaves { dim: DimName::new(d, letters) }),
    }
}

/// A mutable sub-tensor of arrangement `A` for the lifetime `'a`.
type PartMut<'a, T, A> = TensorBase<ViewMut<'a, T>, <A as Arrangement>::Sub>;

/// Two mutable parts of a tensor, in order along their axis.
type Halves<'a, T, A> = (PartMut<'a, T, A>, PartMut<'a, T, A>);

/// Splitting, for mutable views (the parts live as long as the view's data).
impl<'a, T: Element, A: Arrangement> TensorBase<ViewMut<'a, T>, A> {
    /// The parts `0..mid` and `mid..` of `axis`, each a mutable view of its own slice. Fails
    /// with [`LayoutError::SplitInterleaves`] unless the axis lies outside every other in
    /// storage (N of NCHW, or H of an NCHW image with N = C = 1), and with
    /// [`LayoutError::RangeOutOfBounds`] unless both parts have positions.
    pub fn split_at(self, axis: impl IntoAxis, mid: usize) -> Result<Halves<'a, T, A>, LayoutError> {
        let d = axis.index_in::<A::Family>()?;
        let (first, second, offset, [l1, l2]) = split_shapes::<A>(self.shape(), d, mid)?;
        let (a, b) = self.storage.0.split_at_mut(offset);
        Ok((
            TensorBase::from_parts(first, ViewMut(&mut a[..l1])),
            TensorBase::from_parts(second, ViewMut(&mut b[..l2])),
        ))
    }
}

/// Splitting and chunking, for kinds with mutable storage.
impl<S: StorageMut, A: Arrangement> TensorBase<S, A> {
    /// [`split_at`](TensorBase::split_at) of a mutable view of this tensor: two disjoint
    /// mutable parts along an axis outside every other.
    ///
    /// ```
    /// use typed_layout::{LayoutError, Nchw, Tensor};
    /// let mut t = Tensor::<f32, Nchw>::zeros([4, 3, 2, 2])?;
    /// let (mut a, mut b) = t.split_at_mut('N', 1)?;
    /// std::thread::scope(|s| {
    ///     s.spawn(move || a.fill(1.0)); // image 0
    ///     s.spawn(move || b.fill(2.0)); // images 1..4
    /// });
    /// assert_eq!((t[[0, 2, 1, 1]], t[[3, 0, 0, 0]]), (1.0, 2.0));
    /// // C is inside N: its halves interleave image by image.
    /// assert!(matches!(t.split_at_mut('C', 1), Err(LayoutError::SplitInterleaves { .. })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn split_at_mut(
        &mut self,
        axis: impl IntoAxis,
        mid: usize,
    ) -> Result<Halves<'_, S::Elem, A>, LayoutError> {
        self.view_mut().split_at(axis, mid)
    }

    /// The tensor in mutable chunks of `size` positions along `axis` (the last one shorter),
    /// each owning its slice: for an axis outside every other, as
    /// [`split_at_mut`](TensorBase::split_at_mut) requires.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let mut t = Tensor::<u8, Nhwc>::zeros([5, 2, 2, 2])?;
    /// for (k, mut chunk) in t.axis_chunks_mut('N', 2)?.enumerate() {
    ///     chunk.fill(k as u8); // images 0-1, 2-3, 4
    /// }
    /// assert_eq!((t[[1, 0, 0, 0]], t[[2, 0, 0, 0]], t[[4, 1, 1, 1]]), (0, 1, 2));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn axis_chunks_mut(
        &mut self,
        axis: impl IntoAxis,
        size: usize,
    ) -> Result<AxisChunksMut<'_, S::Elem, A::Sub>, LayoutError> {
        let d = axis.index_in::<A::Family>()?;
        let dims = self.dims();
        let whole = self.crop_mut(DimsOf::<A>::from_fn(|_| 0), dims)?;
        if size == 0 {
            let dim = DimName::new(d, <A::Family as Family>::LETTERS.as_bytes());
            return Err(LayoutError::RangeOutOfBounds { dim, start: 0, end: 0, size: dims.as_ref()[d] });
        }
        if size < dims.as_ref()[d] {
            split_shapes::<A::Sub>(whole.shape(), d, size)?; // refused here, not while iterating
        }
        Ok(AxisChunksMut { rest: Some(whole), axis: d, size })
    }

    /// [`axis_chunks_mut`](TensorBase::axis_chunks_mut) as a rayon parallel iterator (feature
    /// `parallel`): each chunk on its own task.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use typed_layout::{Nchw, Tensor};
    /// let mut t = Tensor::<f32, Nchw>::zeros([8, 3, 4, 4])?;
    /// t.par_axis_chunks_mut('N', 1)?.enumerate().for_each(|(n, mut image)| {
    ///     image.for_each_indexed_mut(|[_, c, _, _], v| *v = (10 * n + c) as f32);
    /// });
    /// assert_eq!(t[[7, 2, 3, 3]], 72.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    #[cfg(feature = "parallel")]
    pub fn par_axis_chunks_mut(
        &mut self,
        axis: impl IntoAxis,
        size: usize,
    ) -> Result<impl rayon::iter::IndexedParallelIterator<Item = PartMut<'_, S::Elem, A>>, LayoutError> {
        use rayon::prelude::*;
        let chunks: Vec<_> = self.axis_chunks_mut(axis, size)?.collect();
        Ok(chunks.into_par_iter())
    }
}

/// Shared chunks, for every kind.
impl<S: Storage, A: Arrangement> TensorBase<S, A> {
    /// The tensor in chunks of `size` positions along any axis (the last one shorter), as
    /// shared sub-tensor views.
    ///
    /// ```
    /// use typed_layout::{Nchw, Tensor};
    /// let t = Tensor::<f32, Nchw>::from_fn([1, 5, 2, 2], |[_, c, _, _]| c as f32)?;
    /// let sums: Vec<f32> = t.axis_chunks('C', 2)?.map(|ch| ch.iter().sum()).collect();
    /// assert_eq!(sums, [4.0, 20.0, 16.0]); // channels 0-1, 2-3, 4
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn axis_chunks(
        &self,
        axis: impl IntoAxis,
        size: usize,
    ) -> Result<impl ExactSizeIterator<Item = TensorBase<View<'_, S::Elem>, A::Sub>>, LayoutError> {
        let d = axis.index_in::<A::Family>()?;
        let dims = self.dims();
        let extent = dims.as_ref()[d];
        if size == 0 {
            let dim = DimName::new(d, <A::Family as Family>::LETTERS.as_bytes());
            return Err(LayoutError::RangeOutOfBounds { dim, start: 0, end: 0, size: extent });
        }
        // Every chunk is checked here (a vectorized axis cut inside a vector fails), so the
        // iterator yields views, not results.
        let chunks: Result<Vec<_>, LayoutError> = (0..extent)
            .step_by(size)
            .map(|start| {
                let mut at = DimsOf::<A>::from_fn(|_| 0);
                let mut len = dims;
                at.as_mut()[d] = start;
                len.as_mut()[d] = size.min(extent - start);
                self.crop(at, len)
            })
            .collect();
        Ok(chunks?.into_iter())
    }
}

/// Mutable chunks of a tensor along one axis: [`TensorBase::axis_chunks_mut`].
#[derive(Debug)]
pub struct AxisChunksMut<'a, T: Element, B: Arrangement<Sub = B>> {
    rest: Option<TensorBase<ViewMut<'a, T>, B>>,
    axis: usize,
    size: usize,
}

impl<'a, T: Element, B: Arrangement<Sub = B>> Iterator for AxisChunksMut<'a, T, B> {
    type Item = TensorBase<ViewMut<'a, T>, B>;
    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.rest.take()?;
        if rest.dims().as_ref()[self.axis] <= self.size {
            return Some(rest);
        }
        match split_shapes::<B>(rest.shape(), self.axis, self.size) {
            Ok(_) => {
                let (head, tail) = rest.split_at(self.axis, self.size).ok()?;
                self.rest = Some(tail);
                Some(head)
            }
            // Checked when the iterator was made; the rest whole, should it ever fail.
            Err(_) => Some(rest),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rest.as_ref().map_or(0, |r| r.dims().as_ref()[self.axis].div_ceil(self.size));
        (n, Some(n))
    }
}

impl<T: Element, B: Arrangement<Sub = B>> ExactSizeIterator for AxisChunksMut<'_, T, B> {}
