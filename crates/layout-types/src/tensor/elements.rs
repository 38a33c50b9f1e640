//! Element-wise access, written once for every tensor kind: indexing by logical index, iteration
//! in memory order (with or without each element's logical index), `map`, `zip_mut_with`,
//! `fill`.
//!
//! Everything walks storage in memory order (the walk of `loops`), monomorphized per element
//! type and arrangement: a packed tensor is one run over a plain slice, and a walk with indices
//! runs its innermost loop over a slice too, setting one index entry per element.

use core::ops::{Index, IndexMut};

use super::access::geometry;
use super::iter::{visit, visit_mut, visit_values_mut, IndexedIter, Iter, IterMut};
use super::{Lettered, Owned, Storage, StorageMut, Tensor, TensorBase};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{Family, SameFamily};
use crate::layout::{Arrangement, DimsOf, InLayout, Layout, Shape};
use crate::loops::{for_each_offset, same_dims, LoopNest, Walk};
use crate::notation::MAX_RANK;

/// The message of an index outside the tensor (`Index` panics, like a slice's).
#[cold]
#[track_caller]
fn out_of_bounds(letters: &str, index: &[usize], dims: &[usize]) -> ! {
    panic!("index {:?} is outside the tensor's dims {:?}", Lettered(letters, index), Lettered(letters, dims))
}

/// The element at a logical index; panics outside the tensor ([`get`](TensorBase::get) does not).
///
/// ```
/// use typed_layout::{NcxHwx, Tensor};
/// let mut t = Tensor::<i32, NcxHwx<4>>::zeros([1, 8, 2, 2])?;
/// t[[0, 5, 1, 1]] = 7;
/// assert_eq!(t.as_slice()[29], 7); // group 1, (h, w) = (1, 1), lane 1
/// assert_eq!(t[[0, 5, 1, 1]], 7);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
impl<S: Storage, A: Arrangement> Index<DimsOf<A>> for TensorBase<S, A> {
    type Output = S::Elem;
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: DimsOf<A>) -> &S::Elem {
        match A::offset(self.shape(), &index) {
            Some(offset) => &self.as_slice()[offset],
            None => out_of_bounds(<A::Family as Family>::LETTERS, index.as_ref(), self.dims().as_ref()),
        }
    }
}

/// The element at a logical index, mutably; panics outside the tensor.
impl<S: StorageMut, A: Arrangement> IndexMut<DimsOf<A>> for TensorBase<S, A> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: DimsOf<A>) -> &mut S::Elem {
        match A::offset(self.shape(), &index) {
            Some(offset) => &mut self.as_mut_slice()[offset],
            None => out_of_bounds(<A::Family as Family>::LETTERS, index.as_ref(), self.dims().as_ref()),
        }
    }
}

/// Iteration and element-wise reads, for every kind.
impl<S: Storage, A: Arrangement> TensorBase<S, A> {
    fn walk(&self) -> Walk {
        Walk::new(&geometry::<A>(self.shape()))
    }

    /// The elements in memory order (padding and anything else outside the tensor skipped).
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let t = Tensor::<i32, Nhwc>::from_fn([1, 2, 1, 3], |[_, c, _, w]| (10 * w + c) as i32)?;
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), [0, 1, 10, 11, 20, 21]); // pixel by pixel
    /// assert_eq!(t.iter().sum::<i32>(), 63);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn iter(&self) -> Iter<'_, S::Elem> {
        Iter::new(self.as_slice(), self.walk())
    }

    /// The elements in memory order with their logical indices.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let t = Tensor::<u8, Nhwc>::from_vec([1, 2, 1, 2], vec![1, 2, 3, 4])?;
    /// let seen: Vec<([usize; 4], u8)> = t.indexed_iter().map(|(i, &v)| (i, v)).collect();
    /// assert_eq!(seen, [([0, 0, 0, 0], 1), ([0, 1, 0, 0], 2), ([0, 0, 0, 1], 3), ([0, 1, 0, 1], 4)]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn indexed_iter(&self) -> IndexedIter<'_, S::Elem, DimsOf<A>> {
        IndexedIter::new(self.as_slice(), self.walk())
    }

    /// Calls `f(index, element)` for every element, in memory order: the fastest way to visit
    /// every element with its logical index.
    ///
    /// ```
    /// use typed_layout::{Chwn, Tensor};
    /// let t = Tensor::<f32, Chwn>::from_fn([2, 3, 2, 2], |[n, c, h, w]| (n + c + h + w) as f32)?;
    /// let mut mismatches = 0;
    /// t.for_each_indexed(|[n, c, h, w], &v| mismatches += (v != (n + c + h + w) as f32) as usize);
    /// assert_eq!(mismatches, 0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn for_each_indexed(&self, f: impl FnMut(DimsOf<A>, &S::Elem)) {
        visit(&self.walk(), self.as_slice(), f)
    }
}

/// Element-wise writes, for kinds with mutable storage.
impl<S: StorageMut, A: Arrangement> TensorBase<S, A> {
    /// Calls `f(index, element)` for every element, mutably, in memory order.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Tensor};
    /// let mut t = Tensor::<i32, NcxHwx<4>>::zeros([1, 8, 1, 2])?;
    /// t.for_each_indexed_mut(|[_, c, _, w], v| *v = (10 * c + w) as i32);
    /// assert_eq!(&t.as_slice()[..8], &[0, 10, 20, 30, 1, 11, 21, 31]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn for_each_indexed_mut(&mut self, f: impl FnMut(DimsOf<A>, &mut S::Elem)) {
        let walk = self.walk();
        visit_mut(&walk, self.as_mut_slice(), f)
    }

    /// Replaces every element `v` with `f(&mut v)`'s effect, in memory order.
    pub fn map_inplace(&mut self, f: impl FnMut(&mut S::Elem)) {
        let walk = self.walk();
        visit_values_mut(&walk, self.as_mut_slice(), f)
    }

    /// Replaces every element `v` with `f(v)`.
    ///
    /// ```
    /// use typed_layout::{Nchw, Tensor};
    /// let mut t = Tensor::<f32, Nchw>::filled([1, 2, 2, 2], 3.0)?;
    /// t.mapv_inplace(|v| v * v);
    /// assert!(t.iter().all(|&v| v == 9.0));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn mapv_inplace(&mut self, mut f: impl FnMut(S::Elem) -> S::Elem) {
        self.map_inplace(|v| *v = f(*v))
    }

    /// Sets every element to `value` (the tensor's elements only: padding is left alone).
    pub fn fill(&mut self, value: S::Elem) {
        self.map_inplace(|v| *v = value)
    }

    /// Calls `f(mine, theirs)` for every logical index, with this tensor's element mutably and
    /// `other`'s at the same index: a two-tensor apply over any arrangements of one family,
    /// walking both in this tensor's storage order.
    ///
    /// Fails with [`LayoutError::ShapeMismatch`] when the dims differ.
    ///
    /// ```
    /// use typed_layout::{Nchw, Nhwc, Tensor};
    /// let x = Tensor::<f32, Nchw>::from_fn([1, 3, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as f32)?;
    /// let mut y = Tensor::<f32, Nhwc>::filled([1, 3, 2, 2], 1.0)?;
    /// y.zip_mut_with(&x, |y, &x| *y += 2.0 * x)?; // y += 2x, across layouts
    /// assert_eq!(y[[0, 2, 1, 0]], 1.0 + 2.0 * 10.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn zip_mut_with<R, B>(
        &mut self,
        other: &TensorBase<R, B>,
        mut f: impl FnMut(&mut S::Elem, &R::Elem),
    ) -> Result<(), LayoutError>
    where
        R: Storage,
        B: Arrangement,
        A::Family: SameFamily<B::Family>,
    {
        let (sg, dg) = (geometry::<B>(other.shape()), geometry::<A>(self.shape()));
        same_dims(&sg, &dg, <A::Family as Family>::LETTERS.as_bytes())?;
        let (src, dst) = (other.as_slice(), self.as_mut_slice());
        let Some(nest) = LoopNest::new(&sg, &dg) else {
            // Vector widths that do not nest: element by element, in this tensor's order.
            let walk = Walk::new(&dg);
            visit_mut(&walk, dst, |index: [usize; MAX_RANK], mine| {
                f(mine, &src[sg.offset(&index[..sg.dims().len()]) as usize])
            });
            return Ok(());
        };
        let (src_base, dst_base) = nest.bases();
        let Some((&inner, outer)) = nest.axes().split_last() else {
            f(&mut dst[dst_base as usize], &src[src_base as usize]);
            return Ok(());
        };
        for_each_offset(outer, src_base, dst_base, |s, d| {
            let n = inner.extent;
            if inner.src == 1 && inner.dst == 1 {
                let (s, d) = (s as usize, d as usize);
                dst[d..d + n].iter_mut().zip(&src[s..s + n]).for_each(|(a, b)| f(a, b));
            } else if inner.src > 0 && inner.dst > 0 {
                // Strided runs forward: iterators, no bounds check per element.
                let (s, d) = (s as usize, d as usize);
                let mine = dst[d..].iter_mut().step_by(inner.dst as usize).take(n);
                let theirs = src[s..].iter().step_by(inner.src as usize);
                mine.zip(theirs).for_each(|(a, b)| f(a, b));
            } else {
                for j in 0..n as isize {
                    f(&mut dst[(d + j * inner.dst) as usize], &src[(s + j * inner.src) as usize]);
                }
            }
        });
        Ok(())
    }
}

/// Element-wise maps into a new tensor of the same layout (of a tensor in a layout, or of a
/// sub-tensor of one).
impl<S: Storage, A: InLayout> TensorBase<S, A> {
    /// A new (packed) tensor of the same layout and dims whose elements are `f(&v)`.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let bytes = Tensor::<u8, Nhwc>::from_vec([1, 3, 1, 2], vec![0, 51, 255, 102, 153, 204])?;
    /// let x: Tensor<f32, Nhwc> = bytes.map(|&b| b as f32 / 255.0)?;
    /// assert_eq!(x[[0, 1, 0, 0]], 0.2);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    ///
    /// Fails only when the allocation does ([`LayoutError::AllocationFailed`]).
    pub fn map<U: Element>(&self, f: impl FnMut(&S::Elem) -> U) -> Result<Tensor<U, A::Layout>, LayoutError> {
        // The elements in memory order are the packed tensor's in storage order: same layout.
        let shape = Shape::<A::Layout>::from_slice(A::sub_shape(self.shape()).placement().dims())?;
        let values = self.iter();
        match values.as_slice() {
            Some(run) => Tensor::from_iter_in(shape, run.iter().map(f)),
            None => Tensor::from_iter_in(shape, values.map(f)),
        }
    }

    /// [`map`](TensorBase::map) by value.
    pub fn mapv<U: Element>(
        &self,
        mut f: impl FnMut(S::Elem) -> U,
    ) -> Result<Tensor<U, A::Layout>, LayoutError> {
        self.map(|&v| f(v))
    }
}

impl<'a, S: Storage, A: Arrangement> IntoIterator for &'a TensorBase<S, A> {
    type Item = &'a S::Elem;
    type IntoIter = Iter<'a, S::Elem>;
    fn into_iter(self) -> Iter<'a, S::Elem> {
        self.iter()
    }
}

// Owned construction from an iterator lives with the other constructors.
impl<T: Element, L: Layout> Tensor<T, L> {
    /// A tensor of `shape` from `values` in storage order (exactly the shape's length), on an
    /// aligned allocation, without writing anything first.
    pub(super) fn from_iter_in(
        shape: Shape<L>,
        values: impl Iterator<Item = T>,
    ) -> Result<Self, LayoutError> {
        let (mut data, offset) = super::owned::allocate_empty::<T, L>(&shape)?;
        data.extend(values.take(shape.len()));
        let len = shape.len();
        if data.len() != offset + len {
            return Err(LayoutError::BufferLength { expected: len, found: data.len() - offset });
        }
        Ok(TensorBase::from_parts(shape, Owned { data, offset, len }))
    }
}

/// Mutable iteration, for tensors in a layout and their sub-tensors (whose storage order is
/// also offset order, so the elements come out of one slice split as it goes).
impl<S: StorageMut, A: InLayout> TensorBase<S, A> {
    /// The elements in memory order, mutably.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Tensor};
    /// let mut t = Tensor::<i32, NcxHwx<4>>::zeros([1, 8, 2, 2])?;
    /// for (k, v) in t.narrow_mut('C', 4..8)?.iter_mut().enumerate() {
    ///     *v = k as i32 + 1; // the second vector group only
    /// }
    /// assert_eq!((t[[0, 3, 1, 1]], t[[0, 4, 0, 0]], t[[0, 7, 1, 1]]), (0, 1, 16));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, S::Elem> {
        let walk = self.walk();
        IterMut::new(self.as_mut_slice(), walk)
    }
}
