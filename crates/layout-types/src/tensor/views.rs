//! Views of packed storage someone else owns, in a layout.

use crate::dtype::Element;
use crate::error::LayoutError;
use crate::layout::{DimsOf, Layout, Shape};

/// A shared view of packed storage in layout `L`.
///
/// ```
/// use typed_layout::{Nhwc, TensorView};
/// let data: Vec<f32> = (0..24).map(|v| v as f32).collect(); // someone else's NHWC buffer
/// let v = TensorView::<f32, Nhwc>::new([1, 2, 3, 4], &data)?;
/// assert_eq!(v.get([0, 1, 0, 0]), Some(&1.0)); // c = 1 is the second element
/// let mut nchw = typed_layout::Tensor::<f32, typed_layout::Nchw>::zeros([1, 2, 3, 4])?;
/// typed_layout::convert(&v, &mut nchw)?; // views convert like tensors
/// assert_eq!(nchw.as_slice()[12], 1.0); // c = 1 starts the second plane
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TensorView<'a, T: Element, L: Layout> {
    pub(super) shape: Shape<L>,
    pub(super) data: &'a [T],
}

impl<'a, T: Element, L: Layout> TensorView<'a, T, L> {
    /// A view of `data` (physical order), which must have exactly the shape's length.
    pub fn new(dims: DimsOf<L>, data: &'a [T]) -> Result<Self, LayoutError> {
        let shape = Shape::new(dims)?;
        if data.len() != shape.len() {
            return Err(LayoutError::BufferLength { expected: shape.len(), found: data.len() });
        }
        Ok(TensorView { shape, data })
    }
    /// The validated shape.
    pub fn shape(&self) -> &Shape<L> {
        &self.shape
    }
    /// Storage in physical memory order.
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }
    /// The element at a logical index.
    pub fn get(&self, index: DimsOf<L>) -> Option<&'a T> {
        self.data.get(self.shape.offset(index).ok()?)
    }
}

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
#[derive(Debug)]
pub struct TensorViewMut<'a, T: Element, L: Layout> {
    pub(super) shape: Shape<L>,
    pub(super) data: &'a mut [T],
}

impl<'a, T: Element, L: Layout> TensorViewMut<'a, T, L> {
    /// A view of `data` (physical order), which must have exactly the shape's length.
    pub fn new(dims: DimsOf<L>, data: &'a mut [T]) -> Result<Self, LayoutError> {
        let shape = Shape::new(dims)?;
        if data.len() != shape.len() {
            return Err(LayoutError::BufferLength { expected: shape.len(), found: data.len() });
        }
        Ok(TensorViewMut { shape, data })
    }
    /// The validated shape.
    pub fn shape(&self) -> &Shape<L> {
        &self.shape
    }
    /// Storage in physical memory order.
    pub fn as_slice(&self) -> &[T] {
        self.data
    }
    /// Mutable storage in physical memory order.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }
    /// The element at a logical index.
    pub fn get_mut(&mut self, index: DimsOf<L>) -> Option<&mut T> {
        let offset = self.shape.offset(index).ok()?;
        self.data.get_mut(offset)
    }
}
