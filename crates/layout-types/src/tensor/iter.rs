//! Iterators over a tensor's elements and the traversal loops behind them: memory order, a
//! slice iterator wherever the elements are one run, the walk of `loops` elsewhere.

use core::iter::FusedIterator;

use crate::family::DimArray;
use crate::loops::{Cursor, Walk};

/// Calls `f(index, element)` for every element, in memory order.
#[inline]
pub(super) fn visit<'a, T, D: DimArray<usize>>(walk: &Walk, data: &'a [T], mut f: impl FnMut(D, &'a T)) {
    let inner = walk.inner();
    walk.for_each_run(|start, first| {
        let mut index = D::from_fn(|k| first[k]);
        let i0 = first[inner.dim];
        if inner.stride == 1 {
            let start = start as usize;
            for (j, v) in data[start..start + inner.extent].iter().enumerate() {
                index.as_mut()[inner.dim] = i0 + j * inner.step;
                f(index, v);
            }
        } else {
            for j in 0..inner.extent {
                index.as_mut()[inner.dim] = i0 + j * inner.step;
                f(index, &data[(start + j as isize * inner.stride) as usize]);
            }
        }
    });
}

/// [`visit`] with mutable elements.
#[inline]
pub(super) fn visit_mut<T, D: DimArray<usize>>(walk: &Walk, data: &mut [T], mut f: impl FnMut(D, &mut T)) {
    let inner = walk.inner();
    walk.for_each_run(|start, first| {
        let mut index = D::from_fn(|k| first[k]);
        let i0 = first[inner.dim];
        if inner.stride == 1 {
            let start = start as usize;
            for (j, v) in data[start..start + inner.extent].iter_mut().enumerate() {
                index.as_mut()[inner.dim] = i0 + j * inner.step;
                f(index, v);
            }
        } else {
            for j in 0..inner.extent {
                index.as_mut()[inner.dim] = i0 + j * inner.step;
                f(index, &mut data[(start + j as isize * inner.stride) as usize]);
            }
        }
    });
}

/// Calls `f(element)` for every element, in memory order, over runs as long as storage allows.
#[inline]
pub(super) fn visit_values_mut<T>(walk: &Walk, data: &mut [T], mut f: impl FnMut(&mut T)) {
    let fused = walk.fused();
    let inner = fused.inner();
    fused.for_each_run(|start, _| {
        if inner.stride == 1 {
            let start = start as usize;
            data[start..start + inner.extent].iter_mut().for_each(&mut f);
        } else {
            for j in 0..inner.extent as isize {
                f(&mut data[(start + j * inner.stride) as usize]);
            }
        }
    });
}

/// The elements of a tensor in memory order: [`TensorBase::iter`](crate::TensorBase::iter).
#[derive(Debug, Clone)]
pub struct Iter<'a, T> {
    inner: IterKind<'a, T>,
}

#[derive(Debug, Clone)]
enum IterKind<'a, T> {
    /// One run of consecutive elements: a slice.
    Contiguous(core::slice::Iter<'a, T>),
    /// Anything else, element by element.
    Walking { data: &'a [T], cursor: Box<Cursor> },
}

impl<'a, T> Iter<'a, T> {
    pub(super) fn new(data: &'a [T], walk: Walk) -> Self {
        let fused = walk.fused();
        let inner = match fused.loops() {
            [run] if run.stride == 1 => {
                let start = fused.base() as usize;
                IterKind::Contiguous(data[start..start + run.extent].iter())
            }
            _ => IterKind::Walking { data, cursor: Box::new(Cursor::new(fused)) },
        };
        Iter { inner }
    }
}

impl<'a, T> Iter<'a, T> {
    /// The elements not yet visited, when they are one run of consecutive elements.
    pub(super) fn as_slice(&self) -> Option<&'a [T]> {
        match &self.inner {
            IterKind::Contiguous(it) => Some(it.as_slice()),
            IterKind::Walking { .. } => None,
        }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match &mut self.inner {
            IterKind::Contiguous(it) => it.next(),
            IterKind::Walking { data, cursor } => cursor.next().map(|(o, _)| &data[o as usize]),
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
    #[inline]
    fn fold<B, G: FnMut(B, &'a T) -> B>(self, init: B, mut g: G) -> B {
        match self.inner {
            IterKind::Contiguous(it) => it.fold(init, g),
            IterKind::Walking { data, cursor } if cursor.at_start() => {
                let walk = *cursor.walk();
                let inner = walk.inner();
                let mut acc = Some(init);
                walk.for_each_run(|start, _| {
                    let mut a = acc.take().expect("set after every run");
                    for j in 0..inner.extent as isize {
                        a = g(a, &data[(start + j * inner.stride) as usize]);
                    }
                    acc = Some(a);
                });
                acc.expect("set after every run")
            }
            IterKind::Walking { data, mut cursor } => {
                let mut acc = init;
                while let Some((o, _)) = cursor.next() {
                    acc = g(acc, &data[o as usize]);
                }
                acc
            }
        }
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {
    fn len(&self) -> usize {
        match &self.inner {
            IterKind::Contiguous(it) => it.len(),
            IterKind::Walking { cursor, .. } => cursor.left(),
        }
    }
}

impl<T> FusedIterator for Iter<'_, T> {}

/// The elements of a tensor in memory order with their logical indices:
/// [`TensorBase::indexed_iter`](crate::TensorBase::indexed_iter).
#[derive(Debug, Clone)]
pub struct IndexedIter<'a, T, D> {
    data: &'a [T],
    cursor: Cursor,
    dims: core::marker::PhantomData<D>,
}

impl<'a, T, D> IndexedIter<'a, T, D> {
    pub(super) fn new(data: &'a [T], walk: Walk) -> Self {
        IndexedIter { data, cursor: Cursor::new(walk), dims: core::marker::PhantomData }
    }
}

impl<'a, T, D: DimArray<usize>> Iterator for IndexedIter<'a, T, D> {
    type Item = (D, &'a T);
    #[inline]
    fn next(&mut self) -> Option<(D, &'a T)> {
        let (offset, index) = self.cursor.next()?;
        Some((D::from_fn(|k| index[k]), &self.data[offset as usize]))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.cursor.left(), Some(self.cursor.left()))
    }
    #[inline]
    fn fold<B, G: FnMut(B, (D, &'a T)) -> B>(self, init: B, mut g: G) -> B {
        if self.cursor.at_start() {
            let mut acc = Some(init);
            visit(self.cursor.walk(), self.data, |i: D, v| {
                acc = Some(g(acc.take().expect("set after every element"), (i, v)))
            });
            return acc.expect("set after every element");
        }
        let mut acc = init;
        for item in self {
            acc = g(acc, item);
        }
        acc
    }
}

impl<T, D: DimArray<usize>> ExactSizeIterator for IndexedIter<'_, T, D> {}
impl<T, D: DimArray<usize>> FusedIterator for IndexedIter<'_, T, D> {}

/// The elements of a tensor in memory order, mutably: [`TensorBase::iter_mut`](crate::TensorBase::iter_mut).
#[derive(Debug)]
pub struct IterMut<'a, T> {
    inner: IterMutKind<'a, T>,
}

#[derive(Debug)]
enum IterMutKind<'a, T> {
    /// One run of consecutive elements.
    Contiguous(core::slice::IterMut<'a, T>),
    /// Offsets that only grow: the storage not yet passed, and the offset of its first element.
    Walking { rest: &'a mut [T], at: usize, cursor: Box<Cursor> },
}

impl<'a, T> IterMut<'a, T> {
    pub(super) fn new(data: &'a mut [T], walk: Walk) -> Self {
        let fused = walk.fused();
        let inner = match fused.loops() {
            [run] if run.stride == 1 => {
                let start = fused.base() as usize;
                IterMutKind::Contiguous(data[start..start + run.extent].iter_mut())
            }
            _ => IterMutKind::Walking { rest: data, at: 0, cursor: Box::new(Cursor::new(fused)) },
        };
        IterMut { inner }
    }
}

impl<'a, T> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;
    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        match &mut self.inner {
            IterMutKind::Contiguous(it) => it.next(),
            IterMutKind::Walking { rest, at, cursor } => {
                let (offset, _) = cursor.next()?;
                let skip = offset as usize - *at; // offsets grow: a layout's strides are positive
                let (element, tail) = core::mem::take(rest).get_mut(skip..)?.split_first_mut()?;
                (*rest, *at) = (tail, offset as usize + 1);
                Some(element)
            }
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.inner {
            IterMutKind::Contiguous(it) => it.len(),
            IterMutKind::Walking { cursor, .. } => cursor.left(),
        };
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for IterMut<'_, T> {}
impl<T> FusedIterator for IterMut<'_, T> {}
