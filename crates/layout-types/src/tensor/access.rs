//! What conversions read and write: every tensor kind's storage and geometry, written once.

use super::{Owned, Storage, StorageMut, TensorBase, ViewMut};
use crate::convert::{sealed, Destination, Source};
use crate::dtype::Element;
use crate::layout::{Arrangement, Maps};
use crate::loops::Geometry;

pub(super) fn geometry<A: Arrangement>(shape: &A::Shape) -> Geometry {
    match A::maps(shape) {
        Maps::Placement(p) => Geometry::packed(p),
        Maps::Strided { dims, strides, base } => Geometry::strided(dims, strides, base),
    }
}

impl<S: Storage, A: Arrangement> Source<S::Elem> for TensorBase<S, A> {
    type Family = A::Family;
}

impl<S: Storage, A: Arrangement> sealed::Readable<S::Elem> for TensorBase<S, A> {
    fn geometry(&self) -> Geometry {
        geometry::<A>(self.shape())
    }
    fn data(&self) -> &[S::Elem] {
        self.as_slice()
    }
}

// Mutable storage is only ever built over a shape that does not overlap: a layout, or a
// strided shape `StridedViewMut::new_in` proved disjoint. One impl per writable storage (not one
// over `StorageMut`), so that writing into a read-only view fails on `Destination` itself, whose
// message names the tensor and says what to write into instead.
impl<T: Element, A: Arrangement> Destination<T> for TensorBase<Owned<T>, A> {
    type Family = A::Family;
}
impl<T: Element, A: Arrangement> Destination<T> for TensorBase<ViewMut<'_, T>, A> {
    type Family = A::Family;
}

impl<S: StorageMut, A: Arrangement> sealed::Writable<S::Elem> for TensorBase<S, A> {
    fn geometry(&self) -> Geometry {
        geometry::<A>(self.shape())
    }
    fn data_mut(&mut self) -> &mut [S::Elem] {
        self.as_mut_slice()
    }
}
