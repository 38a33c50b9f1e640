//! Typed host tensors: an owning [`Tensor`], packed views [`TensorView`] / [`TensorViewMut`],
//! and strided views for arbitrary strides ([`StridedView`] for inputs, which may overlap;
//! [`StridedViewMut`] for outputs, which may not).
//!
//! Packed tensors are indexed by logical index (`[n, c, h, w]` whatever the layout) and expose
//! their storage in physical memory order through `as_slice()`.
//!
//! ```
//! use typed_layout::{Nhwc, Tensor};
//! let mut t = Tensor::<u8, Nhwc>::zeros([1, 3, 2, 2])?;
//! *t.get_mut([0, 2, 1, 0]).unwrap() = 7; // n, c, h, w
//! assert_eq!(t.as_slice()[1 * 6 + 0 * 3 + 2], 7); // h · W·C + w · C + c
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use core::fmt;

use crate::convert;
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{DimArray, SameFamily};
use crate::layout::{DimsOf, Layout, Shape};

mod access;
mod strided;
mod views;

pub use strided::{StridedView, StridedViewMut};
pub use views::{TensorView, TensorViewMut};

/// An owning tensor of `T` in layout `L`.
///
/// ```
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// // The guide's example tensor: values 0, 1, 2, … in NCHW order.
/// let nchw = Tensor::<f32, Nchw>::from_vec([1, 64, 5, 4], (0..1280).map(|v| v as f32).collect())?;
/// let nhwc: Tensor<f32, Nhwc> = nchw.to_layout()?;
/// assert_eq!(&nhwc.as_slice()[..3], &[0.0, 20.0, 40.0]);
/// assert_eq!(nhwc.get([0, 1, 0, 0]), Some(&20.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
///
/// Storage allocated by typed-layout starts on a 1024-bit (128-byte) boundary, the alignment
/// the guide's Tensor Core rules prefer (they require 128 bits); a tensor built
/// [`from_vec`](Tensor::from_vec) keeps the caller's buffer, and
/// [`tensor_core`](Tensor::tensor_core) reports its alignment.
#[derive(Clone)]
pub struct Tensor<T: Element, L: Layout> {
    shape: Shape<L>,
    /// The allocation; the tensor is `data[offset..offset + shape.len()]`.
    data: Vec<T>,
    offset: usize,
}

impl<T: Element, L: Layout> PartialEq for Tensor<T, L> {
    fn eq(&self, other: &Self) -> bool {
        self.shape.placement() == other.shape.placement() && self.as_slice() == other.as_slice()
    }
}

/// The alignment of storage typed-layout allocates: 1024 bits.
///
/// ```
/// use typed_layout::{STORAGE_ALIGN, Nchw, Tensor};
/// let t = Tensor::<u8, Nchw>::zeros([1, 3, 5, 7])?;
/// assert_eq!(t.as_slice().as_ptr() as usize % STORAGE_ALIGN, 0);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const STORAGE_ALIGN: usize = 128;

impl<T: Element, L: Layout> fmt::Debug for Tensor<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("layout", &L::NOTATION)
            .field("dims", &self.shape.dims())
            .field("data_type", &T::DATA_TYPE)
            .finish()
    }
}

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
        Ok(Tensor { shape, data, offset })
    }

    /// A tensor of storage `shape` over `data` (physical memory order, exactly the shape's
    /// length).
    pub fn from_vec_in(shape: Shape<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        if data.len() != shape.len() {
            return Err(LayoutError::BufferLength { expected: shape.len(), found: data.len() });
        }
        Ok(Tensor { shape, data, offset: 0 })
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
        let packing = *t.shape.placement();
        let mut index = DimsOf::<L>::from_fn(|_| 0);
        for (offset, slot) in t.as_mut_slice().iter_mut().enumerate() {
            packing.index_at(offset, index.as_mut());
            *slot = f(index);
        }
        Ok(t)
    }

    /// The validated shape.
    pub fn shape(&self) -> &Shape<L> {
        &self.shape
    }
    /// Logical dims.
    pub fn dims(&self) -> DimsOf<L> {
        self.shape.dims()
    }
    /// Storage in physical memory order.
    pub fn as_slice(&self) -> &[T] {
        &self.data[self.offset..self.offset + self.shape.len()]
    }
    /// Mutable storage in physical memory order.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        let len = self.shape.len();
        &mut self.data[self.offset..self.offset + len]
    }
    /// The storage, in physical memory order (moved to the front of its allocation when the
    /// tensor started at an aligned offset inside it).
    pub fn into_vec(mut self) -> Vec<T> {
        self.data.drain(..self.offset);
        self.data.truncate(self.shape.len());
        self.data
    }
    /// The Tensor Core rules this tensor breaks: its shape's, its data type's, and its buffer's
    /// alignment (met by storage typed-layout allocates).
    ///
    /// ```
    /// use typed_layout::{tensor_core::TensorCoreRule, Nhwc, Tensor};
    /// let x = Tensor::<half::f16, Nhwc>::zeros([8, 16, 7, 7])?;
    /// assert!(x.tensor_core().is_ready());
    /// let y = Tensor::<i8, Nhwc>::zeros([8, 3, 7, 7])?;
    /// assert_eq!(y.tensor_core().to_string(),
    ///     "Tensor Cores want the channel count C padded to a multiple of 8; Tensor Cores accelerate FP16, FP32 and INT32 data");
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn tensor_core(&self) -> crate::tensor_core::TensorCoreCheck {
        self.shape.tensor_core(T::DATA_TYPE).with_address(self.as_slice().as_ptr() as usize)
    }

    /// The element at a logical index, or `None` outside the tensor.
    pub fn get(&self, index: DimsOf<L>) -> Option<&T> {
        self.as_slice().get(self.shape.offset(index).ok()?)
    }
    /// The element at a logical index, mutably.
    pub fn get_mut(&mut self, index: DimsOf<L>) -> Option<&mut T> {
        let offset = self.shape.offset(index).ok()?;
        self.as_mut_slice().get_mut(offset)
    }
    /// A shared view.
    pub fn view(&self) -> TensorView<'_, T, L> {
        TensorView { shape: self.shape, data: self.as_slice() }
    }
    /// A mutable view.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, T, L> {
        let shape = self.shape;
        TensorViewMut { shape, data: self.as_mut_slice() }
    }

    /// The same logical tensor in layout `D` (same family), converted on the CPU.
    ///
    /// Fails when `D` rejects the dims (C not a multiple of NC/xHWx's x).
    pub fn to_layout<D: Layout>(&self) -> Result<Tensor<T, D>, LayoutError>
    where
        D::Family: SameFamily<L::Family>,
    {
        let mut out = Tensor::<T, D>::zeros(D::Family::same_dims(self.dims()))?;
        convert::convert(&self.view(), &mut out.view_mut())?;
        Ok(out)
    }
}
