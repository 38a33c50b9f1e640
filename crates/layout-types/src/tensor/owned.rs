//! Tensors that own their storage: allocation (aligned, fallible) and construction.

use super::{Owned, Tensor, TensorBase};
use crate::convert::{self, Source};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::family::{DimArray, Family, SameFamily};
use crate::layout::{DimsOf, Layout, Shape};
use crate::loops::{Geometry, Walk};
use crate::placement::Placement;
use crate::platform::out::{extend_written, Out};

/// The alignment of storage typed-layout allocates: 1024 bits.
///
/// ```
/// use typed_layout::{STORAGE_ALIGN, Nchw, Tensor};
/// let t = Tensor::<u8, Nchw>::zeros([1, 3, 5, 7])?;
/// assert_eq!(t.as_slice().as_ptr() as usize % STORAGE_ALIGN, 0);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const STORAGE_ALIGN: usize = 128;

/// Reserves the storage of `shape`, failing (instead of aborting) when the bytes do not fit
/// ([`Shape::bytes`] names the dimension) or the allocator refuses them, and fills it up to the
/// first [`STORAGE_ALIGN`] boundary. Returns the allocation (with capacity for the tensor, which
/// the caller pushes) and the offset of the tensor's first element in it.
pub(super) fn allocate_empty<T: Element, L: Layout>(
    shape: &Shape<L>,
) -> Result<(Vec<T>, usize), LayoutError> {
    let (bytes, total) = reservation::<T, L>(shape)?;
    reserve(bytes, total)
}

/// [`allocate_empty`] of `total` elements (`bytes` of them named in the error).
fn reserve<T: Element>(bytes: usize, total: usize) -> Result<(Vec<T>, usize), LayoutError> {
    let mut data = Vec::new();
    data.try_reserve_exact(total).map_err(|_| LayoutError::AllocationFailed { bytes })?;
    // Not yet written: a large tensor asks for huge pages before its first write.
    crate::platform::pages::advise_huge(data.spare_capacity_mut());
    let offset = aligned_start(&data);
    data.resize(offset, T::default()); // within the capacity: the allocation does not move
    Ok((data, offset))
}

/// The tensor's bytes, and the elements to reserve for it: room to start it on a
/// [`STORAGE_ALIGN`] boundary inside the allocation (safe code: the allocation is over-sized and
/// the tensor begins at an offset).
fn reservation<T: Element, L: Layout>(shape: &Shape<L>) -> Result<(usize, usize), LayoutError> {
    let bytes = shape.bytes(T::SIZE)?;
    Ok((bytes, with_slack::<T>(shape.len(), bytes)?))
}

/// `len` elements and room to start them on a [`STORAGE_ALIGN`] boundary.
fn with_slack<T: Element>(len: usize, bytes: usize) -> Result<usize, LayoutError> {
    let slack = STORAGE_ALIGN.div_ceil(T::SIZE);
    len.checked_add(slack).ok_or(LayoutError::AllocationFailed { bytes })
}

/// Elements from the start of `data`'s allocation to its first [`STORAGE_ALIGN`] boundary.
fn aligned_start<T: Element>(data: &[T]) -> usize {
    let misalignment = data.as_ptr() as usize % STORAGE_ALIGN;
    ((STORAGE_ALIGN - misalignment) % STORAGE_ALIGN) / T::SIZE
}

/// The storage of `shape` filled with `value`: [`allocate_empty`], then the tensor. Zeros (every
/// element type's default) come from a zeroed allocation instead: the allocator hands out fresh
/// zero pages for large sizes, so no pass writes them (a conversion into a new tensor then writes
/// each byte once).
fn allocate<T: Element, L: Layout>(shape: &Shape<L>, value: T) -> Result<(Vec<T>, usize), LayoutError> {
    if bytemuck::bytes_of(&value).iter().all(|&b| b == 0) {
        let Owned { data, offset, .. } = Owned::zeroed(shape.len(), shape.bytes(T::SIZE)?)?;
        return Ok((data, offset));
    }
    let (mut data, offset) = allocate_empty(shape)?;
    data.resize(offset + shape.len(), value);
    Ok((data, offset))
}

impl<T: Element> Owned<T> {
    /// New storage of `dst` (no padding) holding `src`'s elements (placed by `sg`) at the same
    /// logical indices, each written once by the conversion. `letters` name the dimensions in
    /// errors.
    pub(crate) fn converted(
        sg: &Geometry,
        src: &[T],
        dst: &Placement,
        letters: &[u8],
    ) -> Result<Self, LayoutError> {
        let bytes = dst.bytes(T::SIZE, letters)?;
        Owned::written(dst.len(), bytes, |out| convert::convert_all(sg, src, dst, out, letters))
    }

    /// New storage holding `bytes` (elements in the machine's byte order, at any alignment;
    /// their count is `bytes.len() / T::SIZE`, which the caller checked to divide), copied once.
    pub(crate) fn copied(bytes: &[u8]) -> Result<Self, LayoutError> {
        // A copy of exactly the storage's bytes (`copy_from` refuses another length before it
        // writes) writes every element.
        Owned::written(bytes.len() / T::SIZE, bytes.len(), |out| {
            out.bytes().copy_from(bytes);
            Ok(())
        })
    }

    /// New storage of `len` elements (`bytes` of them, checked by the caller to fit in `isize`)
    /// on a [`STORAGE_ALIGN`] boundary, each written once by `fill`: no value is stored first
    /// (a zeroed allocation would be a second pass over it wherever the allocator reuses
    /// memory).
    ///
    /// `fill` keeps `platform::out::extend_written`'s contract (every element written on `Ok`).
    /// The fillers: `convert::convert_all`, `cast::CastNest`'s run (each checks what it relies
    /// on before writing; `cast::quantize` runs one a part, the parts tiling the storage), and
    /// [`Owned::copied`]'s copy of exactly the storage's bytes.
    pub(crate) fn written(
        len: usize,
        bytes: usize,
        fill: impl FnOnce(Out<'_, T>) -> Result<(), LayoutError>,
    ) -> Result<Self, LayoutError> {
        let (mut data, offset) = reserve(bytes, with_slack::<T>(len, bytes)?)?;
        extend_written(&mut data, len, fill)?;
        Ok(Owned { data, offset, len })
    }

    /// `len` zeros (`bytes` of them, checked by the caller to fit in `isize`) on a
    /// [`STORAGE_ALIGN`] boundary, from a zeroed allocation: the allocator hands out fresh zero
    /// pages for large sizes, so no pass writes them.
    pub(crate) fn zeroed(len: usize, bytes: usize) -> Result<Self, LayoutError> {
        let total = with_slack::<T>(len, bytes)?;
        let mut data: Vec<T> = bytemuck::allocation::try_zeroed_vec(total)
            .map_err(|()| LayoutError::AllocationFailed { bytes })?;
        let offset = aligned_start(&data);
        // No reallocation: the capacity stays.
        data.truncate(offset + len);
        // Fresh pages, untouched: a large tensor asks for huge ones before its first write.
        crate::platform::pages::advise_huge(&mut data);
        Ok(Owned { data, offset, len })
    }
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

    /// A tensor over `data` (in memory order, exactly the shape's length), with `dims` in the
    /// family's **logical** order: `[n, c, h, w]` for every image layout, NHWC included.
    ///
    /// The trap: an NHWC image of 224 × 224 pixels with 3 channels is `[1, 3, 224, 224]` here,
    /// not `[1, 224, 224, 3]`, which is a valid shape too (C = 224, W = 3) and silently means
    /// another tensor. For dims in the layout's own order, use
    /// [`from_vec_physical`](Tensor::from_vec_physical).
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let hwc = vec![0u8; 224 * 224 * 3]; // an RGB image, pixel after pixel
    /// let t = Tensor::<u8, Nhwc>::from_vec([1, 3, 224, 224], hwc)?; // n, c, h, w
    /// assert_eq!(format!("{:?}", t.dims()), "[1, 3, 224, 224]");
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_vec(dims: DimsOf<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        Self::from_vec_in(Shape::new(dims)?, data)
    }

    /// A tensor over `data` (in memory order), with `dims` in the layout's own letter order:
    /// `[n, h, w, c]` for NHWC, `[c, h, w, n]` for CHWN; the order a buffer's producer
    /// writes them in.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Tensor};
    /// let hwc: Vec<u8> = (0..4 * 6 * 3).map(|v| v as u8).collect(); // 4 rows, 6 columns, RGB
    /// let t = Tensor::<u8, Nhwc>::from_vec_physical([1, 4, 6, 3], hwc)?; // N, H, W, C
    /// assert_eq!(t.dims(), [1, 3, 4, 6]); // always n, c, h, w afterwards
    /// assert_eq!(t[[0, 2, 0, 1]], 5); // blue of the second pixel
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_vec_physical(dims: DimsOf<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        Self::from_vec_in(Shape::from_physical(dims)?, data)
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

    /// A new tensor of `shape` (no padding) holding `src`'s elements at the same logical
    /// indices, each written once by the conversion: no value is stored first (a zeroed
    /// allocation would be a second pass wherever the allocator reuses memory).
    pub(crate) fn converted_from<S: Source<T> + ?Sized>(shape: Shape<L>, src: &S) -> Result<Self, LayoutError>
    where
        L::Family: SameFamily<S::Family>,
    {
        let letters = S::Family::LETTERS.as_bytes();
        let storage = Owned::converted(&src.geometry(), src.data(), shape.placement(), letters)?;
        Ok(TensorBase::from_parts(shape, storage))
    }

    /// A tensor of storage `shape` over `data` (physical memory order, exactly the shape's
    /// length).
    pub fn from_vec_in(shape: Shape<L>, data: Vec<T>) -> Result<Self, LayoutError> {
        shape.check_buffer(data.len())?;
        let len = data.len();
        Ok(TensorBase::from_parts(shape, Owned { data, offset: 0, len }))
    }

    /// A tensor whose element at each logical index is `f(index)`, computed in storage order
    /// (each element written once).
    ///
    /// The closure's index is an array as long as `dims`, so its pattern (`|[n, c, h, w]|`)
    /// needs no annotation, also where the tensor's type comes from elsewhere.
    ///
    /// ```
    /// use typed_layout::{NcxHwx, Nchw, Tensor};
    /// let t = Tensor::<i32, NcxHwx<4>>::from_fn([1, 8, 1, 2], |[_, c, _, w]| (10 * c + w) as i32)?;
    /// // Group 0 holds channels 0..4 of pixel w = 0, then of w = 1.
    /// assert_eq!(&t.as_slice()[..8], &[0, 10, 20, 30, 1, 11, 21, 31]);
    /// // The layout from the binding's type:
    /// let x: Tensor<f32, Nchw> = Tensor::from_fn([1, 3, 2, 2], |[n, c, h, w]| (n + c + h + w) as f32)?;
    /// assert_eq!(x[[0, 2, 1, 1]], 4.0);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn from_fn<I>(dims: I, mut f: impl FnMut(I) -> T) -> Result<Self, LayoutError>
    where
        I: DimArray<usize>,
        L::Family: Family<Dims = I>,
    {
        let shape = Shape::<L>::new(dims)?;
        let (mut data, offset) = allocate_empty(&shape)?;
        // A packed shape's walk visits offsets 0, 1, 2, …: push in that order.
        let walk = Walk::new(&Geometry::packed(shape.placement()));
        let inner = walk.inner();
        walk.for_each_run(|_, first| {
            let mut index = I::from_fn(|k| first[k]);
            let i0 = first[inner.dim];
            for j in 0..inner.extent {
                index.as_mut()[inner.dim] = i0 + j * inner.step;
                data.push(f(index));
            }
        });
        let len = shape.len();
        Ok(TensorBase::from_parts(shape, Owned { data, offset, len }))
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
