//! Tensors that own their storage: allocation (aligned, fallible) and construction.

use super::{Owned, Tensor, TensorBase};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::DimArray;
use crate::layout::{DimsOf, Layout, Shape};

/// The alignment of storage typed-layout allocates: 1024 bits.
///
/// ```
/// use typed_layout::{STORAGE_ALIGN, Nchw, Tensor};
/// let t = Tensor::<u8, Nchw>::zeros([1, 3, 5, 7])?;
/// assert_eq!(t.as_slice().as_ptr() as usize % STORAGE_ALIGN, 0);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const STORAGE_ALIGN: usize = 128;

/// Allocates the storage of `shape` filled with `value`, failing (instead of aborting) when the
/// bytes do not fit ([`Shape::bytes`] names the dimension) or the allocator refuses them.
/// Returns the allocation and the offset of the tensor's first element in it.
fn allocate<T: Element, L: Layout>(shape: &Shape<L>, value: T) -> Result<(Vec<T>, usize), LayoutError> {
    let bytes = shape.bytes(T::SIZE)?;
    let len = shape.len();
    // Room to start the tensor on a STORAGE_ALIGN boundary inside the allocation (safe code:
    // the allocation is over-sized and the tensor begins at an offset).
    let slack = STORAGE_ALIGN.div_ceil(T::SIZE);
    let total = len.checked_add(slack).ok_or(LayoutError::AllocationFailed { bytes })?;
    let mut data = Vec::new();
    data.try_reserve_exact(total).map_err(|_| LayoutError::AllocationFailed { bytes })?;
    data.resize(total, value);
    let misalignment = data.as_ptr() as usize % STORAGE_ALIGN;
    let offset = ((STORAGE_ALIGN - misalignment) % STORAGE_ALIGN) / T::SIZE;
    Ok((data, offset))
}

/// Construction, for owned tensors.
impl<T: Element, L: Layout> Tensor<T, L> {
    /// A tensor of `T::default()` (zero).
    pub fn zeros(dims: DimsOf<L>) -> Result<Self, LayoutError> {
        Self::filled(dims, T::default())
    }

    /// A tensor with every element `value`.
    pub fn filled(dims: DimsOf<L>, value: T) -> Result<Self, LayoutError> {
        Self::filled_in(Shape::new(dims)?, value)
    }

    /// A tensor over `data`, which is in physical memory order and must have exactly the
    /// shape's length.
    pub fn from_vec(dims: DimsOf<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        Self::from_vec_in(Shape::new(dims)?, data)
    }

    /// A tensor of storage `shape` (padded, for a partially packed layout; see
    /// [`Shape::with_strides`]) with every element, padding included, `value`.
    ///
    /// ```
    /// use typed_layout::{layout, convert, Nchw, Shape, Tensor};
    /// layout! { pub struct NhwcRows = "NHWC, WC-packed"; }
    /// // n, c, h, w = 1, 2, 2, 2: each row of W·C = 4 elements padded to 5.
    /// let shape = Shape::<NhwcRows>::with_strides([1, 2, 2, 2], [10, 1, 5, 2])?;
    /// let mut rows = Tensor::<i32, NhwcRows>::filled_in(shape, -1)?;
    /// let x = Tensor::<i32, Nchw>::from_fn([1, 2, 2, 2], |[_, c, h, w]| (100 * c + 10 * h + w) as i32)?;
    /// convert(&x, &mut rows)?;
    /// assert_eq!(rows.as_slice(), &[0, 100, 1, 101, -1, 10, 110, 11, 111]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn filled_in(shape: Shape<L>, value: T) -> Result<Self, LayoutError> {
        let (data, offset) = allocate(&shape, value)?;
        let len = shape.len();
        Ok(TensorBase::from_parts(shape, Owned { data, offset, len }))
    }

    /// A tensor of storage `shape` over `data` (physical memory order, exactly the shape's
    /// length).
    pub fn from_vec_in(shape: Shape<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        let len = data.len();
        Ok(TensorBase::from_parts(shape, Owned { data, offset: 0, len }))
    }

    /// A tensor whose element at each logical index is `f(index)`.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Tensor};
    /// let t = Tensor::<i32, NcxHwx<4>>::from_fn([1, 8, 1, 2], |[_, c, _, w]| (10 * c + w) as i32)?;
    /// // Group 0 holds channels 0..4 of pixel w = 0, then of w = 1.
    /// assert_eq!(&t.as_slice()[..8], &[0, 10, 20, 30, 1, 11, 21, 31]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_fn(dims: DimsOf<L>, mut f: impl FnMut(DimsOf<L>) -> T) -> Result<Self, LayoutError> {
        let mut t = Self::zeros(dims)?;
        let placement = *t.shape().placement();
        let mut index = DimsOf::<L>::from_fn(|_| 0);
        for (offset, slot) in t.as_mut_slice().iter_mut().enumerate() {
            placement.index_at(offset, index.as_mut());
            *slot = f(index);
        }
        Ok(t)
    }

    /// The storage, in physical memory order (moved to the front of its allocation when the
    /// tensor started at an aligned offset inside it).
    pub fn into_vec(self) -> Vec<T> {
        let Owned { mut data, offset, len } = self.storage;
        data.drain(..offset);
        data.truncate(len);
        data
    }
}
