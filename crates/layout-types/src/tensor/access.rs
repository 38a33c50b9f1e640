//! What conversions read and write: every tensor kind's storage and geometry, written once.

use super::{Storage, StorageMut, TensorBase};
use crate::convert::{sealed, Destination, Source};
use crate::layout::{Arrangement, Maps};
use crate::loops::Geometry;

fn geometry<A: Arrangement>(shape: &A::Shape) -> Geometry {
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
// strided shape `StridedViewMut::new_in` proved disjoint.
impl<S: StorageMut, A: Arrangement> Destination<S::Elem> for TensorBase<S, A> {
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
