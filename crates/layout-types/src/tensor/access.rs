//! What conversions read and write: the storage and its geometry, for every tensor and view.

use super::*;
use crate::convert::{self, sealed};
use crate::family::Family;
use crate::loops::Geometry;

impl<T: Element, L: Layout> convert::Source<T> for TensorView<'_, T, L> {
    type Family = L::Family;
}
impl<T: Element, L: Layout> sealed::Readable<T> for TensorView<'_, T, L> {
    fn geometry(&self) -> Geometry {
        Geometry::packed(self.shape.placement())
    }
    fn data(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, L: Layout> convert::Source<T> for Tensor<T, L> {
    type Family = L::Family;
}
impl<T: Element, L: Layout> sealed::Readable<T> for Tensor<T, L> {
    fn geometry(&self) -> Geometry {
        Geometry::packed(self.shape.placement())
    }
    fn data(&self) -> &[T] {
        self.as_slice()
    }
}
impl<T: Element, F: Family> convert::Source<T> for StridedView<'_, T, F> {
    type Family = F;
}
impl<T: Element, F: Family> sealed::Readable<T> for StridedView<'_, T, F> {
    fn geometry(&self) -> Geometry {
        Geometry::strided(self.dims.as_ref(), self.strides.as_ref(), self.base)
    }
    fn data(&self) -> &[T] {
        self.data
    }
}
impl<T: Element, L: Layout> convert::Destination<T> for TensorViewMut<'_, T, L> {
    type Family = L::Family;
}
impl<T: Element, L: Layout> sealed::Writable<T> for TensorViewMut<'_, T, L> {
    fn geometry(&self) -> Geometry {
        Geometry::packed(self.shape.placement())
    }
    fn data_mut(&mut self) -> &mut [T] {
        self.data
    }
}
impl<T: Element, L: Layout> convert::Destination<T> for Tensor<T, L> {
    type Family = L::Family;
}
impl<T: Element, L: Layout> sealed::Writable<T> for Tensor<T, L> {
    fn geometry(&self) -> Geometry {
        Geometry::packed(self.shape.placement())
    }
    fn data_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}
impl<T: Element, F: Family> convert::Destination<T> for StridedViewMut<'_, T, F> {
    type Family = F;
}
impl<T: Element, F: Family> sealed::Writable<T> for StridedViewMut<'_, T, F> {
    fn geometry(&self) -> Geometry {
        Geometry::strided(self.dims.as_ref(), self.strides.as_ref(), self.base)
    }
    fn data_mut(&mut self) -> &mut [T] {
        self.data
    }
}
