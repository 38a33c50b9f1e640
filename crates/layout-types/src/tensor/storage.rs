//! What a tensor's elements live in: an allocation it owns, or a slice it borrows.

use crate::dtype::Element;

mod sealed {
    pub trait Sealed {}
}

/// The storage of a [`TensorBase`](crate::TensorBase): [`Owned`], [`View`] or [`ViewMut`].
///
/// Sealed: a tensor's invariants (a strided output never overlaps, a packed tensor's slice is
/// exactly its shape's length) hold because only typed-layout builds tensors over storage.
pub trait Storage: sealed::Sealed {
    /// The element type.
    type Elem: Element;
    /// The name of the tensor kind over this storage (for `Debug`).
    #[doc(hidden)]
    const KIND: &'static str;
    /// The elements, in memory order.
    #[doc(hidden)]
    fn slice(&self) -> &[Self::Elem];
}

/// Storage whose elements can be written.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is read-only storage: it cannot be written, nor be the output of a conversion",
    label = "read-only",
    note = "outputs cannot overlap: write into a `Tensor`, a `TensorViewMut`, or a `StridedViewMut` (which proves its dimensions disjoint); a `TensorView` or `StridedView` is input-only"
)]
pub trait StorageMut: Storage {
    /// The elements, in memory order, mutably.
    #[doc(hidden)]
    fn slice_mut(&mut self) -> &mut [Self::Elem];
}

/// An allocation the tensor owns: a `Vec`, and where in it the tensor starts (typed-layout
/// starts the storage it allocates on a [`STORAGE_ALIGN`](crate::STORAGE_ALIGN) boundary).
#[derive(Debug, Clone)]
pub struct Owned<T> {
    pub(super) data: Vec<T>,
    pub(super) offset: usize,
    pub(super) len: usize,
}

/// A shared borrow of someone else's elements.
#[derive(Debug, Clone, Copy)]
pub struct View<'a, T>(pub(super) &'a [T]);

/// A mutable borrow of someone else's elements.
#[derive(Debug)]
pub struct ViewMut<'a, T>(pub(super) &'a mut [T]);

impl<T> sealed::Sealed for Owned<T> {}
impl<T> sealed::Sealed for View<'_, T> {}
impl<T> sealed::Sealed for ViewMut<'_, T> {}

impl<T: Element> Storage for Owned<T> {
    type Elem = T;
    const KIND: &'static str = "Tensor";
    #[inline]
    fn slice(&self) -> &[T] {
        &self.data[self.offset..self.offset + self.len]
    }
}

impl<T: Element> StorageMut for Owned<T> {
    #[inline]
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.data[self.offset..self.offset + self.len]
    }
}

impl<T: Element> Storage for View<'_, T> {
    type Elem = T;
    const KIND: &'static str = "TensorView";
    #[inline]
    fn slice(&self) -> &[T] {
        self.0
    }
}

impl<T: Element> Storage for ViewMut<'_, T> {
    type Elem = T;
    const KIND: &'static str = "TensorViewMut";
    #[inline]
    fn slice(&self) -> &[T] {
        self.0
    }
}

impl<T: Element> StorageMut for ViewMut<'_, T> {
    #[inline]
    fn slice_mut(&mut self) -> &mut [T] {
        self.0
    }
}
