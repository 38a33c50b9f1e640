//! Views of elements someone else owns: packed in a layout, or with strides given at run time.

use super::{StridedView, StridedViewMut, TensorBase, TensorView, TensorViewMut, View, ViewMut};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::Family;
use crate::layout::{Arrangement, DimsOf, Layout, Shape, Strided, StridedShape};
use crate::overlap::Overlap;

impl<'a, T: Element, L: Layout> TensorView<'a, T, L> {
    /// A view of `data` (memory order), which must hold exactly the shape's elements; `dims` in
    /// the family's **logical** order (`[n, c, h, w]`, whatever the layout).
    ///
    /// The trap: an NHWC buffer's own order is `[n, h, w, c]`, so
    /// `TensorView::<u8, Nhwc>::new([1, 224, 224, 3], &hwc)` is accepted as C = 224, W = 3. For
    /// dims in the buffer's order use [`new_physical`](TensorView::new_physical).
    pub fn new(dims: DimsOf<L>, data: &'a [T]) -> Result<Self, LayoutError> {
        Self::new_in(Shape::new(dims)?, data)
    }
    /// A view of `data` with `dims` in the layout's own letter order (`[n, h, w, c]` for NHWC).
    ///
    /// ```
    /// use typed_layout::{Nhwc, TensorView};
    /// let hwc = [10u8, 20, 30, 11, 21, 31]; // 1 row of 2 RGB pixels
    /// let v = TensorView::<u8, Nhwc>::new_physical([1, 1, 2, 3], &hwc)?;
    /// assert_eq!((v.dims(), v[[0, 1, 0, 1]]), ([1, 3, 1, 2], 21));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn new_physical(dims: DimsOf<L>, data: &'a [T]) -> Result<Self, LayoutError> {
        Self::new_in(Shape::from_physical(dims)?, data)
    }
    /// A view of `data` in storage `shape` (padded, for a partially packed layout).
    pub fn new_in(shape: Shape<L>, data: &'a [T]) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        Ok(TensorBase::from_parts(shape, View(data)))
    }
}

impl<'a, T: Element, L: Layout> TensorViewMut<'a, T, L> {
    /// A mutable view of `data` (memory order), which must hold exactly the shape's elements;
    /// `dims` in the family's **logical** order (`[n, c, h, w]`, whatever the layout; for dims in
    /// the buffer's own order, `[n, h, w, c]` for NHWC, use
    /// [`new_physical`](TensorViewMut::new_physical)).
    pub fn new(dims: DimsOf<L>, data: &'a mut [T]) -> Result<Self, LayoutError> {
        Self::new_in(Shape::new(dims)?, data)
    }
    /// A mutable view of `data` with `dims` in the layout's own letter order.
    pub fn new_physical(dims: DimsOf<L>, data: &'a mut [T]) -> Result<Self, LayoutError> {
        Self::new_in(Shape::from_physical(dims)?, data)
    }
    /// A mutable view of `data` in storage `shape` (padded, for a partially packed layout).
    pub fn new_in(shape: Shape<L>, data: &'a mut [T]) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        Ok(TensorBase::from_parts(shape, ViewMut(data)))
    }
}

impl<'a, T: Element, F: Family> StridedView<'a, T, F> {
    /// A view of `data` with `dims` and signed `strides` (logical order) from element `base`;
    /// every address must lie inside `data`. Dimensions may overlap: an input only.
    pub fn new(dims: F::Dims, strides: F::Strides, base: usize, data: &'a [T]) -> Result<Self, LayoutError> {
        Self::new_in(StridedShape::new(dims, strides, base)?, data)
    }
    /// A view of `data` in `shape`; every address must lie inside `data`.
    pub fn new_in(shape: StridedShape<F>, data: &'a [T]) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        Ok(TensorBase::from_parts(shape, View(data)))
    }
}

impl<'a, T: Element, F: Family> StridedViewMut<'a, T, F> {
    /// A mutable view of `data` with `dims` and signed `strides` (logical order) from element
    /// `base`; every address must lie inside `data`, and no two indices may share one
    /// ([`LayoutError::OverlappingOutput`] otherwise, also when the overlap analysis cannot
    /// tell).
    pub fn new(
        dims: F::Dims,
        strides: F::Strides,
        base: usize,
        data: &'a mut [T],
    ) -> Result<Self, LayoutError> {
        Self::new_in(StridedShape::new(dims, strides, base)?, data)
    }
    /// A mutable view of `data` in `shape`, checked as [`StridedViewMut::new`] checks.
    pub fn new_in(shape: StridedShape<F>, data: &'a mut [T]) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        match <Strided<F> as Arrangement>::overlap(&shape) {
            Overlap::Disjoint => Ok(TensorBase::from_parts(shape, ViewMut(data))),
            verdict => Err(LayoutError::OverlappingOutput { verdict }),
        }
    }
}
