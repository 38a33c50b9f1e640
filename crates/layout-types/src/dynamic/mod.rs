//! A tensor whose data type and layout are known only at run time: what an engine holds after
//! reading a model file or a config, before it knows which typed tensor each buffer is.
//!
//! [`DynTensor`] is a [`DataType`], a [`DynLayout`], the storage placement of its dims and its
//! elements. Typed tensors move in and out of it without a copy ([`DynTensor::from`],
//! [`DynTensor::try_into_tensor`], [`DynTensor::view`]), checked: asking for another data type
//! or layout is an error that names both. Conversions between runtime layouts run the loop plan
//! every typed conversion runs, monomorphized per element type, whatever the layouts are
//! (`NC/xHWx` with x read from a file, user families); so does the fused relayout, cast and
//! channel padding ([`DynTensor::relayout_cast_pad`]), per pair of types.
//!
//! ```
//! use typed_layout::{DataType, DynLayout, DynTensor, Nhwc, Tensor};
//! // Learned at run time: f32 images in NCHW, 1 × 2 × 2 × 2.
//! let (data_type, layout) = (DataType::Float, DynLayout::parse("NCHW")?);
//! let bytes: Vec<u8> = (0..8u8).flat_map(|v| f32::from(v).to_ne_bytes()).collect();
//! let x = DynTensor::from_bytes(data_type, layout, &[1, 2, 2, 2], &bytes)?;
//! // Relaid out at run time, then typed where the engine knows what it wants.
//! let y = x.to_layout(DynLayout::parse("NHWC")?)?;
//! let y: Tensor<f32, Nhwc> = y.try_into_tensor()?;
//! assert_eq!(y.as_slice(), &[0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;

use crate::desc::DynLayout;
use crate::dtype::{DataType, Element};
use crate::error::{DimName, LayoutError, Letters};
use crate::layout::{Layout, Shape};
use crate::loops::Geometry;
use crate::placement::Placement;
use crate::predicates;
use crate::tensor::{Tensor, TensorBase, TensorView, TensorViewMut};

mod cast;
mod data;

use data::Data;

/// A tensor of a data type and a layout known at run time, owning its elements.
///
/// Built from a typed tensor (`DynTensor::from(tensor)`, no copy), from bytes
/// ([`DynTensor::from_bytes`]) or as zeros ([`DynTensor::zeros`]); read back typed with
/// [`try_into_tensor`](DynTensor::try_into_tensor) (no copy) or [`view`](DynTensor::view).
///
/// ```
/// use typed_layout::{DataType, DynLayout, DynTensor, LayoutError, Nchw, NcxHwx, Tensor};
/// let t = Tensor::<i8, NcxHwx<32>>::zeros([1, 64, 2, 2])?;
/// let d = DynTensor::from(t);
/// assert_eq!((d.data_type(), d.layout().to_string()), (DataType::Int8, "NC/32HW32".to_string()));
/// assert_eq!(d.dims(), &[1, 64, 2, 2]);
/// // Asked for as another layout, it says which it is (and is not lost).
/// let e = d.try_into_tensor::<i8, Nchw>().unwrap_err();
/// assert!(matches!(e.error(), LayoutError::LayoutMismatch { .. }));
/// assert_eq!(e.to_string(), "the tensor is in layout NC/32HW32 but NCHW was asked for: \
///     a typed tensor keeps the layout its bytes are in (convert it instead)");
/// let back: Tensor<i8, NcxHwx<32>> = e.into_inner().try_into_tensor()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct DynTensor {
    layout: DynLayout,
    placement: Placement,
    data: Data,
}

impl DynTensor {
    /// A tensor of zeros of `dims` (logical order, as the layout's family names them: `[n, c, h,
    /// w]` for every image layout), packed in `layout`.
    ///
    /// ```
    /// use typed_layout::{DataType, DynLayout, DynTensor, LayoutError};
    /// let t = DynTensor::zeros(DataType::Half, DynLayout::parse("NC/4HW4")?, &[1, 8, 3, 3])?;
    /// assert_eq!((t.len(), t.as_bytes().len()), (72, 144));
    /// let e = DynTensor::zeros(DataType::Half, DynLayout::parse("NC/4HW4")?, &[1, 6, 3, 3]).unwrap_err();
    /// assert!(matches!(e, LayoutError::NotMultipleOfVector { size: 6, width: 4, .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zeros(data_type: DataType, layout: DynLayout, dims: &[usize]) -> Result<Self, LayoutError> {
        let placement = layout.shape(dims)?;
        let bytes = placement.bytes(data_type.size(), layout.letters().as_bytes())?;
        let data = Data::zeroed(data_type, placement.len(), bytes)?;
        Ok(DynTensor { layout, placement, data })
    }

    /// A tensor of `dims` packed in `layout`, its elements copied from `bytes`: each element's
    /// bytes in the machine's byte order, in memory order (as [`as_bytes`](DynTensor::as_bytes)
    /// gives them). Fails with [`LayoutError::ByteLength`] unless `bytes` holds exactly the
    /// tensor's elements.
    ///
    /// ```
    /// use typed_layout::{DataType, DynLayout, DynTensor, LayoutError};
    /// let l = DynLayout::parse("NHWC")?;
    /// let e = DynTensor::from_bytes(DataType::Float, l, &[1, 3, 2, 2], &[0; 47]).unwrap_err();
    /// assert_eq!(e, LayoutError::ByteLength { expected: 48, found: 47 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(
        data_type: DataType,
        layout: DynLayout,
        dims: &[usize],
        bytes: &[u8],
    ) -> Result<Self, LayoutError> {
        let placement = layout.shape(dims)?;
        let expected = placement.bytes(data_type.size(), layout.letters().as_bytes())?;
        if bytes.len() != expected {
            return Err(LayoutError::ByteLength { expected, found: bytes.len() });
        }
        // Elements in memory order: one copy, at any alignment.
        let data = Data::copied(data_type, bytes)?;
        Ok(DynTensor { layout, placement, data })
    }

    /// A tensor of `dims` packed in `layout`, its elements copied from `bytes`, where the
    /// element at logical `index` lies `Σ index[k]·strides[k]` elements from the start: any
    /// non-negative strides, gaps and overlaps included (what a foreign array's strides
    /// describe), at any address. Fails with [`LayoutError::StrideCount`] for a stride count
    /// other than the rank, [`LayoutError::OutOfBounds`] when `bytes` ends before the last
    /// element the strides reach, and [`LayoutError::SizeOverflow`] when that element lies past
    /// `isize::MAX` bytes.
    ///
    /// ```
    /// use typed_layout::{DataType, DynLayout, DynTensor};
    /// // Every other column of a 1 × 1 × 2 × 4 image of u8: strides 8, 8, 4, 2 over 7 bytes.
    /// let bytes = [10, 0, 11, 0, 12, 0, 13];
    /// let t = DynTensor::from_strided_bytes(DataType::Uint8, DynLayout::parse("NCHW")?, &[1, 1, 2, 2], &[8, 8, 4, 2], &bytes)?;
    /// assert_eq!(t.as_bytes(), &[10, 11, 12, 13]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_strided_bytes(
        data_type: DataType,
        layout: DynLayout,
        dims: &[usize],
        strides: &[usize],
        bytes: &[u8],
    ) -> Result<Self, LayoutError> {
        // The layout's rules on the dims, the offsets the strides reach (the strided views'
        // check), the buffer, and only then the allocation.
        let placement = layout.shape(dims)?;
        if strides.len() != dims.len() {
            return Err(LayoutError::StrideCount { dims: dims.len(), strides: strides.len() });
        }
        let letters = layout.letters().as_bytes();
        // A dim of 1 never steps: its stride, any value, becomes 0.
        let strides = dims
            .iter()
            .zip(strides)
            .enumerate()
            .map(|(k, (&d, &s))| match d {
                1 => Ok(0),
                _ => isize::try_from(s)
                    .map_err(|_| LayoutError::SizeOverflow { dim: DimName::new(k, letters) }),
            })
            .collect::<Result<Vec<isize>, _>>()?;
        let (_, highest) = predicates::validate(dims, &strides, letters)?;
        let (span, elements) = (highest as usize + 1, bytes.len() / data_type.size());
        if span > elements {
            return Err(LayoutError::OutOfBounds { lowest: 0, highest: highest as i128, len: elements });
        }
        let bytes = &bytes[..span * data_type.size()];
        DynTensor::converted_from_bytes(
            data_type,
            layout,
            placement,
            &Geometry::strided(dims, &strides, 0),
            bytes,
        )
    }

    /// A new tensor of `placement` (packed in `layout`) whose elements are those `bytes` holds
    /// (of `data_type`, in the machine's byte order) placed by `sg`, each written once. Bytes off
    /// the element's alignment are first copied to aligned storage.
    fn converted_from_bytes(
        data_type: DataType,
        layout: DynLayout,
        placement: Placement,
        sg: &Geometry,
        bytes: &[u8],
    ) -> Result<Self, LayoutError> {
        let staged;
        let bytes = match (bytes.as_ptr() as usize).is_multiple_of(data_type.size()) {
            true => bytes,
            false => {
                staged = Data::copied(data_type, bytes)?;
                staged.bytes()
            }
        };
        let data = Data::converted_from_bytes(data_type, sg, bytes, &placement, layout.letters().as_bytes())?;
        Ok(DynTensor { layout, placement, data })
    }

    /// The elements' data type.
    pub fn data_type(&self) -> DataType {
        self.data.data_type()
    }

    /// The layout.
    pub fn layout(&self) -> DynLayout {
        self.layout
    }

    /// Logical dims, in the family's order.
    pub fn dims(&self) -> &[usize] {
        self.placement.dims()
    }

    /// Logical strides, in elements (for a vectorized dimension, between vector groups).
    pub fn strides(&self) -> &[usize] {
        self.placement.strides()
    }

    /// The storage placement: physical axes and strides.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Number of elements of storage.
    pub fn len(&self) -> usize {
        self.placement.len()
    }

    /// Always false: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        self.placement.is_empty()
    }

    /// The elements' bytes in memory order (each element in the machine's byte order).
    pub fn as_bytes(&self) -> &[u8] {
        self.data.bytes()
    }

    /// The elements' bytes in memory order, mutably.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.data.bytes_mut()
    }

    /// The elements, if they are `T`s ([`LayoutError::DataTypeMismatch`] otherwise).
    pub fn as_slice<T: Element>(&self) -> Result<&[T], LayoutError> {
        let found = self.data_type();
        self.data.slice().ok_or(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found })
    }

    /// The elements mutably, if they are `T`s ([`LayoutError::DataTypeMismatch`] otherwise).
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T], LayoutError> {
        let found = self.data_type();
        self.data.slice_mut().ok_or(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found })
    }

    /// The same elements in `layout` (of the same family), in a new tensor.
    ///
    /// ```
    /// use typed_layout::{DataType, DynLayout, DynTensor, LayoutError};
    /// let x = DynTensor::zeros(DataType::Uint8, DynLayout::parse("NCHW")?, &[1, 3, 4, 4])?;
    /// assert_eq!(x.to_layout(DynLayout::parse("CHWN")?)?.strides(), &[1, 16, 4, 1]);
    /// let e = x.to_layout(DynLayout::parse("NCDHW")?).unwrap_err();
    /// assert!(e.to_string().starts_with("cannot convert a tensor of the family NCHW into one of NCDHW"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_layout(&self, layout: DynLayout) -> Result<DynTensor, LayoutError> {
        self.same_family(&layout)?;
        let placement = layout.shape(self.dims())?;
        let sg = Geometry::packed(&self.placement);
        let data = self.data.converted(&sg, &placement, layout.letters().as_bytes())?;
        Ok(DynTensor { layout, placement, data })
    }

    /// Copies every element into the same logical index of `dst`: same data type
    /// ([`LayoutError::DataTypeMismatch`]), family ([`LayoutError::FamilyMismatch`]) and dims
    /// ([`LayoutError::ShapeMismatch`]), any layouts.
    pub fn convert_into(&self, dst: &mut DynTensor) -> Result<(), LayoutError> {
        self.same_family(&dst.layout)?;
        let (sg, dg) = (Geometry::packed(&self.placement), Geometry::packed(&dst.placement));
        self.data.convert_into(&sg, &mut dst.data, &dg, self.layout.letters().as_bytes())
    }

    /// [`LayoutError::FamilyMismatch`] unless `layout` has this tensor's letters.
    fn same_family(&self, layout: &DynLayout) -> Result<(), LayoutError> {
        match self.layout.letters() == layout.letters() {
            true => Ok(()),
            false => Err(LayoutError::FamilyMismatch {
                source: Letters::new(self.layout.letters()),
                destination: Letters::new(layout.letters()),
            }),
        }
    }

    /// `Ok` when the tensor holds `T`s in layout `L`; otherwise the error naming what differs.
    fn check<T: Element, L: Layout>(&self) -> Result<Shape<L>, LayoutError> {
        if T::DATA_TYPE != self.data_type() {
            return Err(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found: self.data_type() });
        }
        if L::LETTERS != self.layout.letters() {
            let (source, destination) = (Letters::new(self.layout.letters()), Letters::new(L::LETTERS));
            return Err(LayoutError::FamilyMismatch { source, destination });
        }
        if DynLayout::of::<L>() != self.layout {
            return Err(LayoutError::LayoutMismatch { expected: L::NOTATION, found: self.layout.notation() });
        }
        // The placement was derived for this format and letters: it is a shape of `L`.
        Ok(Shape::of_placement(self.placement))
    }

    /// The typed tensor, without a copy, if the tensor holds `T`s in layout `L`; otherwise an
    /// error naming what differs, which gives the tensor back.
    pub fn try_into_tensor<T: Element, L: Layout>(self) -> Result<Tensor<T, L>, IntoTensorError> {
        let shape = match self.check::<T, L>() {
            Ok(shape) => shape,
            Err(error) => return Err(IntoTensorError { inner: Box::new((error, self)) }),
        };
        let DynTensor { layout, placement, data } = self;
        match data.unwrap::<T>() {
            Ok(owned) => Ok(TensorBase::from_parts(shape, owned)),
            Err(data) => {
                let error = LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found: data.data_type() };
                Err(IntoTensorError { inner: Box::new((error, DynTensor { layout, placement, data })) })
            }
        }
    }

    /// The elements as a new `Tensor<T, L>` in layout `L` of the same family, whatever layout
    /// they are in (a copy, converted): what an engine asks of a weight it computes on in one
    /// layout. The data type must be `T`'s (nothing is cast).
    ///
    /// ```
    /// use typed_layout::{DynLayout, DynTensor, Nchw, NcxHwx, Tensor};
    /// let w = DynTensor::from(Tensor::<i8, NcxHwx<4>>::from_fn([1, 8, 2, 2], |[_, c, h, w]| (c * 4 + h * 2 + w) as i8)?);
    /// let x: Tensor<i8, Nchw> = w.to_tensor()?;
    /// assert_eq!(x[[0, 5, 1, 0]], 22);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn to_tensor<T: Element, L: Layout>(&self) -> Result<Tensor<T, L>, LayoutError> {
        if T::DATA_TYPE != self.data_type() {
            return Err(LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found: self.data_type() });
        }
        let converted = self.to_layout(DynLayout::of::<L>())?;
        converted.try_into_tensor().map_err(|e| e.error())
    }

    /// A typed view of the elements, if the tensor holds `T`s in layout `L`.
    ///
    /// ```
    /// use typed_layout::{DynLayout, DynTensor, Nhwc, Tensor};
    /// let d = DynTensor::from(Tensor::<f32, Nhwc>::from_fn([1, 2, 1, 1], |[_, c, _, _]| c as f32)?);
    /// assert_eq!(d.view::<f32, Nhwc>()?[[0, 1, 0, 0]], 1.0);
    /// assert!(d.view::<half::f16, Nhwc>().unwrap_err().to_string().starts_with(
    ///     "the tensor holds CUDNN_DATA_FLOAT but CUDNN_DATA_HALF was asked for"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<T: Element, L: Layout>(&self) -> Result<TensorView<'_, T, L>, LayoutError> {
        let shape = self.check::<T, L>()?;
        TensorView::<T, L>::new_in(shape, self.as_slice()?)
    }

    /// A typed mutable view of the elements, if the tensor holds `T`s in layout `L`.
    pub fn view_mut<T: Element, L: Layout>(&mut self) -> Result<TensorViewMut<'_, T, L>, LayoutError> {
        let shape = self.check::<T, L>()?;
        TensorViewMut::<T, L>::new_in(shape, self.as_mut_slice()?)
    }
}

impl<T: Element, L: Layout> From<Tensor<T, L>> for DynTensor {
    /// The tensor, type-erased, without a copy.
    fn from(tensor: Tensor<T, L>) -> Self {
        let (shape, owned) = tensor.into_parts();
        DynTensor { layout: DynLayout::of::<L>(), placement: *shape.placement(), data: Data::wrap(owned) }
    }
}

impl PartialEq for DynTensor {
    /// Same data type, layout and storage placement, and equal elements (by the element type's
    /// `==`, as typed tensors compare: NaN differs from itself).
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.placement == other.placement
            && self.data.same_elements(&other.data)
    }
}

impl fmt::Display for DynTensor {
    /// The values in logical order, as a typed tensor of the same layout prints them.
    ///
    /// ```
    /// use typed_layout::{DynTensor, Nhwc, Tensor};
    /// let t = Tensor::<u8, Nhwc>::from_fn([1, 2, 1, 3], |[_, c, _, w]| (10 * c + w) as u8)?;
    /// let text = t.to_string();
    /// assert_eq!(DynTensor::from(t).to_string(), text);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.data.fmt_values(f, &self.placement)
    }
}

impl fmt::Debug for DynTensor {
    /// Data type, layout and dims, not the elements.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynTensor")
            .field("data_type", &self.data_type())
            .field("layout", &self.layout.notation().as_str())
            .field("dims", &self.dims())
            .finish_non_exhaustive()
    }
}

/// [`DynTensor::try_into_tensor`]'s error: why the tensor is not the one asked for, and the
/// tensor itself, given back.
#[derive(Debug)]
pub struct IntoTensorError {
    // Boxed: a `Result` of it stays small however large the tensor's placement is.
    inner: Box<(LayoutError, DynTensor)>,
}

impl IntoTensorError {
    /// What differs.
    pub fn error(&self) -> LayoutError {
        self.inner.0
    }

    /// The tensor, unchanged.
    pub fn into_inner(self) -> DynTensor {
        self.inner.1
    }
}

impl fmt::Display for IntoTensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.0.fmt(f)
    }
}

impl std::error::Error for IntoTensorError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.inner.0)
    }
}
