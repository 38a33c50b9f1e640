//! cuDNN's descriptors named by a format instead of strides: `cudnnSetFilterNdDescriptor` (the
//! only way cuDNN describes a filter) and `cudnnSetTensorNdDescriptorEx` (NCHW, NHWC and the
//! vectorized NC/xHWx, whose int8 vectors are data types of their own: `CUDNN_DATA_INT8x4`,
//! `CUDNN_DATA_UINT8x4`, `CUDNN_DATA_INT8x32`).
//!
//! Both take `(dataType, format, nbDims, dimA)` with the dims in logical order and C counting
//! channels, not vectors; [`FormatArgs`] holds them. cuDNN accepts some combinations the guide's
//! rules forbid (a float tensor "in NCHW_VECT_C", an INT8x32 filter whose C is 8, which it then
//! reports as C = 0): we follow the guide and refuse them, naming the combination that works.
//! `tests/cudnn_descriptors.rs` compares every verdict and every argument with libcudnn's.

use super::cudnn::{TensorFormat, MAX_ELEMENTS, MAX_INT};
use super::DynLayout;
use crate::dtype::{DataType, Element};
use crate::error::{CudnnError, DimName, LayoutError};
use crate::family::{BuiltinFamily, ConvFilter, ConvInput};
use crate::layout::{InLayout, Layout, Shape};
use crate::notation::MAX_RANK;
use crate::placement::Placement;
use crate::tensor::{Storage, TensorBase};

/// A `cudnnDataType_t` as a descriptor by format names it: one element type, or cuDNN's int8
/// vectors, which `CUDNN_TENSOR_NCHW_VECT_C` requires (a vector of x channels is one element to
/// cuDNN).
///
/// ```
/// use typed_layout::{cudnn::DescriptorType, DataType};
/// assert_eq!(DescriptorType::for_layout(DataType::Int8, 32)?, DescriptorType::Int8x32);
/// assert_eq!(DescriptorType::Int8x32.value(), 8); // CUDNN_DATA_INT8x32
/// assert_eq!(DescriptorType::for_layout(DataType::Half, 1)?, DescriptorType::Element(DataType::Half));
/// assert!(DescriptorType::for_layout(DataType::Float, 4).is_err()); // no float vectors
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// One element of this type per position (every format but `NCHW_VECT_C`).
    Element(DataType),
    /// `CUDNN_DATA_INT8x4`: four `i8` channels.
    Int8x4,
    /// `CUDNN_DATA_UINT8x4`: four `u8` channels.
    Uint8x4,
    /// `CUDNN_DATA_INT8x32`: thirty-two `i8` channels.
    Int8x32,
}

impl DescriptorType {
    /// The data type of a layout whose elements are `element`, in vectors of `width` channels
    /// (1 for a layout that is not vectorized). Refuses `CUDNN_DATA_INT64`
    /// ([`CudnnError::DataType`]) and vectors cuDNN has no type for ([`CudnnError::VectorType`]).
    pub const fn for_layout(element: DataType, width: usize) -> Result<DescriptorType, LayoutError> {
        match (element, width) {
            (DataType::Int64, _) => Err(LayoutError::Cudnn(CudnnError::DataType { data_type: element })),
            (_, 1) => Ok(DescriptorType::Element(element)),
            (DataType::Int8, 4) => Ok(DescriptorType::Int8x4),
            (DataType::Uint8, 4) => Ok(DescriptorType::Uint8x4),
            (DataType::Int8, 32) => Ok(DescriptorType::Int8x32),
            _ => Err(LayoutError::Cudnn(CudnnError::VectorType { data_type: element, width })),
        }
    }

    /// The `cudnnDataType_t` value.
    pub const fn value(self) -> i32 {
        match self {
            DescriptorType::Element(t) => t as i32,
            DescriptorType::Int8x4 => 5,
            DescriptorType::Uint8x4 => 7,
            DescriptorType::Int8x32 => 8,
        }
    }

    /// The data type with cuDNN's value `value`, if typed-layout names it.
    ///
    /// ```
    /// use typed_layout::{cudnn::DescriptorType, DataType};
    /// assert_eq!(DescriptorType::from_cudnn(7), Some(DescriptorType::Uint8x4));
    /// assert_eq!(DescriptorType::from_cudnn(2), Some(DescriptorType::Element(DataType::Half)));
    /// assert_eq!(DescriptorType::from_cudnn(11), None);
    /// ```
    pub const fn from_cudnn(value: i32) -> Option<DescriptorType> {
        match (value, DataType::from_cudnn(value)) {
            (_, Some(t)) => Some(DescriptorType::Element(t)),
            (5, None) => Some(DescriptorType::Int8x4),
            (7, None) => Some(DescriptorType::Uint8x4),
            (8, None) => Some(DescriptorType::Int8x32),
            _ => None,
        }
    }

    /// The enumerator's name (`"CUDNN_DATA_INT8x32"`).
    pub const fn cudnn_name(self) -> &'static str {
        match self {
            DescriptorType::Element(t) => t.cudnn_name(),
            DescriptorType::Int8x4 => "CUDNN_DATA_INT8x4",
            DescriptorType::Uint8x4 => "CUDNN_DATA_UINT8x4",
            DescriptorType::Int8x32 => "CUDNN_DATA_INT8x32",
        }
    }

    /// Channels per cuDNN element: 1, 4 or 32.
    pub const fn vector_width(self) -> usize {
        match self {
            DescriptorType::Element(_) => 1,
            DescriptorType::Int8x4 | DescriptorType::Uint8x4 => 4,
            DescriptorType::Int8x32 => 32,
        }
    }

    /// Bytes per channel (an int8 vector is one byte per channel).
    pub const fn channel_size(self) -> usize {
        match self {
            DescriptorType::Element(t) => t.size(),
            _ => 1,
        }
    }
}

/// What a descriptor by format describes: a tensor (`cudnnSetTensorNdDescriptorEx`) or a
/// filter (`cudnnSetFilterNdDescriptor`). Told by the layout's family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// An image or a volume: a `cudnnTensorDescriptor_t`.
    Tensor,
    /// A filter: a `cudnnFilterDescriptor_t`.
    Filter,
}

/// The arguments of `cudnnSetFilterNdDescriptor(dataType, format, nbDims, filterDimA)` or
/// `cudnnSetTensorNdDescriptorEx(format, dataType, nbDims, dimA)`: data type, format and dims
/// in logical order (C in channels). Built only through the checks of
/// [`DynLayout::cudnn_format`] (and the typed `cudnn_filter` / `cudnn_format` on shapes and
/// tensors).
///
/// ```
/// use typed_layout::{cudnn::{DescriptorKind, DescriptorType, TensorFormat}, KcxRsx, Krsc, Shape, DataType};
/// let f = Shape::<Krsc>::new([64, 32, 3, 3])?.cudnn_filter(DataType::Half)?;
/// assert_eq!((f.kind(), f.format(), f.dims()), (DescriptorKind::Filter, TensorFormat::Nhwc, &[64, 32, 3, 3][..]));
/// let q = Shape::<KcxRsx<32>>::new([64, 32, 3, 3])?.cudnn_filter(DataType::Int8)?;
/// assert_eq!((q.data_type(), q.format()), (DescriptorType::Int8x32, TensorFormat::NchwVectC));
/// assert_eq!(q.size_in_bytes(), 64 * 32 * 9);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FormatArgs {
    kind: DescriptorKind,
    data_type: DescriptorType,
    format: TensorFormat,
    nb_dims: usize,
    dims: [i32; MAX_RANK],
    strides: [i32; MAX_RANK],
}

impl FormatArgs {
    /// A tensor's or a filter's descriptor.
    pub const fn kind(&self) -> DescriptorKind {
        self.kind
    }
    /// `dataType`.
    pub const fn data_type(&self) -> DescriptorType {
        self.data_type
    }
    /// `format`.
    pub const fn format(&self) -> TensorFormat {
        self.format
    }
    /// `nbDims`.
    pub const fn nb_dims(&self) -> i32 {
        self.nb_dims as i32
    }
    /// `dimA` / `filterDimA`, in logical order, C in channels.
    pub fn dims(&self) -> &[i32] {
        &self.dims[..self.nb_dims]
    }
    /// The strides cuDNN derives for a tensor descriptor (what `cudnnGetTensorNdDescriptor`
    /// reports), in its elements: for `NCHW_VECT_C` a vector of x channels is one element and C
    /// steps from one group of x to the next. A filter descriptor has no strides; these are the
    /// same numbers for the same packed layout (`i32::MAX` where a filter's pass `int`).
    pub fn strides(&self) -> &[i32] {
        &self.strides[..self.nb_dims]
    }
    /// What `cudnnGetTensorSizeInBytes` / `cudnnGetFilterSizeInBytes` report: every channel of
    /// every position, packed.
    pub fn size_in_bytes(&self) -> usize {
        self.dims().iter().map(|&d| d as usize).product::<usize>() * self.data_type.channel_size()
    }
}

impl DynLayout {
    /// The arguments of the descriptor cuDNN names this layout by, for `dims` (logical order)
    /// of `data_type`: a filter descriptor for a filter family ([`Filter`](crate::Filter),
    /// [`VolumeFilter`](crate::VolumeFilter)), a tensor descriptor by format for images and
    /// volumes. Refuses a layout no format names ([`CudnnError::NoFormat`]: CHWN, partially
    /// packed ones, matrices), a vectorized layout with no vector data type
    /// ([`CudnnError::VectorType`]), `CUDNN_DATA_INT64`, `INT32` filters
    /// ([`CudnnError::FilterDataType`]), and dims past cuDNN's limits (`int` dims; for a tensor
    /// fewer than 2^31 of its elements, a vector counting as one; cuDNN sets no count limit on
    /// filters).
    ///
    /// ```
    /// use typed_layout::{cudnn::{CudnnError, DescriptorType}, DataType, DynLayout, LayoutError};
    /// let l = DynLayout::parse("NC/4HW4")?;
    /// let args = l.cudnn_format(DataType::Uint8, &[2, 64, 5, 4])?;
    /// assert_eq!((args.data_type(), args.strides()), (DescriptorType::Uint8x4, &[320, 20, 4, 1][..]));
    /// let chwn = DynLayout::parse("CHWN")?.cudnn_format(DataType::Float, &[2, 64, 5, 4]);
    /// assert!(matches!(chwn, Err(LayoutError::Cudnn(CudnnError::NoFormat { .. }))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cudnn_format(&self, data_type: DataType, dims: &[usize]) -> Result<FormatArgs, LayoutError> {
        let letters = self.letters();
        let kind = match BuiltinFamily::of_letters(letters) {
            Some(BuiltinFamily::Image | BuiltinFamily::Volume) => DescriptorKind::Tensor,
            Some(BuiltinFamily::Filter | BuiltinFamily::VolumeFilter) => DescriptorKind::Filter,
            _ => return Err(CudnnError::NoFormat { layout: self.notation() }.into()),
        };
        let format = TensorFormat::of(self).ok_or(CudnnError::NoFormat { layout: self.notation() })?;
        if kind == DescriptorKind::Filter && matches!(data_type, DataType::Int32 | DataType::Int64) {
            return Err(CudnnError::FilterDataType { data_type }.into());
        }
        let width = self.format().vector().map_or(1, |v| v.width);
        let data_type = DescriptorType::for_layout(data_type, width)?;
        let placement = self.shape(dims)?;
        args(kind, data_type, format, &placement, letters)
    }
}

impl<L: Layout> Shape<L>
where
    L::Family: ConvFilter,
{
    /// The shape's `cudnnSetFilterNdDescriptor` arguments for elements of `data_type` (see
    /// [`DynLayout::cudnn_format`]).
    ///
    /// ```
    /// use typed_layout::{cudnn::TensorFormat, DataType, Kcrs, Shape};
    /// let f = Shape::<Kcrs>::new([64, 3, 7, 7])?.cudnn_filter(DataType::Float)?;
    /// assert_eq!((f.format(), f.dims(), f.size_in_bytes()), (TensorFormat::Nchw, &[64, 3, 7, 7][..], 64 * 3 * 49 * 4));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn cudnn_filter(&self, data_type: DataType) -> Result<FormatArgs, LayoutError> {
        DynLayout::of::<L>().cudnn_format(data_type, self.dims().as_ref())
    }
}

impl<L: Layout> Shape<L>
where
    L::Family: ConvInput,
{
    /// The shape's `cudnnSetTensorNdDescriptorEx` arguments for elements of `data_type` (see
    /// [`DynLayout::cudnn_format`]): the way cuDNN describes NC/xHWx, with an int8 vector type.
    ///
    /// ```
    /// use typed_layout::{cudnn::{DescriptorType, TensorFormat}, DataType, NcxHwx, Shape};
    /// let x = Shape::<NcxHwx<32>>::new([8, 64, 28, 28])?.cudnn_format(DataType::Int8)?;
    /// assert_eq!((x.format(), x.data_type()), (TensorFormat::NchwVectC, DescriptorType::Int8x32));
    /// assert_eq!(x.dims(), &[8, 64, 28, 28]); // C in channels
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn cudnn_format(&self, data_type: DataType) -> Result<FormatArgs, LayoutError> {
        DynLayout::of::<L>().cudnn_format(data_type, self.dims().as_ref())
    }
}

/// The packed tensor a descriptor by format describes: the tensor itself, or the whole packed
/// part a sub-tensor is (a batch).
fn packed<A: InLayout>(shape: &A::Shape) -> Result<Shape<A::Layout>, LayoutError> {
    A::sub_shape(shape).packed().ok_or(LayoutError::NotApplicable {
        reason: "cuDNN describes a filter or a tensor by format only when it is packed: this sub-tensor is not (use cudnn(), with strides, or copy it)",
    })
}

impl<S: Storage, A: InLayout> TensorBase<S, A>
where
    <A::Layout as Layout>::Family: ConvFilter,
{
    /// The filter's `cudnnSetFilterNdDescriptor` arguments, its data type from the element
    /// type; a sub-tensor has them when it is packed (a range of output channels K).
    ///
    /// ```
    /// use typed_layout::{cudnn::DescriptorType, KcxRsx, Tensor};
    /// let w = Tensor::<i8, KcxRsx<4>>::zeros([16, 8, 3, 3])?;
    /// assert_eq!(w.cudnn_filter()?.data_type(), DescriptorType::Int8x4);
    /// assert_eq!(w.narrow('K', 0..8)?.cudnn_filter()?.dims(), &[8, 8, 3, 3]);
    /// assert!(w.narrow('C', 0..4)?.cudnn_filter().is_err()); // not packed
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn cudnn_filter(&self) -> Result<FormatArgs, LayoutError> {
        packed::<A>(self.shape())?.cudnn_filter(<S::Elem as Element>::DATA_TYPE)
    }
}

impl<S: Storage, A: InLayout> TensorBase<S, A>
where
    <A::Layout as Layout>::Family: ConvInput,
{
    /// The tensor's `cudnnSetTensorNdDescriptorEx` arguments, its data type from the element
    /// type (an int8 vector type for NC/4HW4 and NC/32HW32); a sub-tensor has them when it is
    /// packed (a batch).
    ///
    /// ```
    /// use typed_layout::{cudnn::{CudnnError, DescriptorType}, LayoutError, NcxHwx, Tensor};
    /// let x = Tensor::<i8, NcxHwx<32>>::zeros([2, 64, 5, 4])?;
    /// assert_eq!(x.cudnn_format()?.data_type(), DescriptorType::Int8x32);
    /// assert_eq!(x.batch(1)?.cudnn_format()?.dims(), &[1, 64, 5, 4]);
    /// let f = Tensor::<f32, NcxHwx<32>>::zeros([2, 64, 5, 4])?; // cuDNN has no float vectors
    /// assert!(matches!(f.cudnn_format(), Err(LayoutError::Cudnn(CudnnError::VectorType { width: 32, .. }))));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn cudnn_format(&self) -> Result<FormatArgs, LayoutError> {
        packed::<A>(self.shape())?.cudnn_format(<S::Elem as Element>::DATA_TYPE)
    }
}

/// The checked arguments: int dims, and for a tensor fewer than 2^31 of cuDNN's elements (a
/// vector of x channels is one). A filter descriptor has no such limit in cuDNN (it takes
/// `int` dims and describes any count), so none is applied to filters.
fn args(
    kind: DescriptorKind,
    data_type: DescriptorType,
    format: TensorFormat,
    placement: &Placement,
    letters: &str,
) -> Result<FormatArgs, LayoutError> {
    let dims = placement.dims();
    let name = |d: usize| DimName::new(d, letters.as_bytes());
    let limit = |d: usize, value: u128, limit: u64| CudnnError::Limit { dim: name(d), value, limit };
    let x = data_type.vector_width();
    let mut out = FormatArgs {
        kind,
        data_type,
        format,
        nb_dims: dims.len(),
        dims: [0; MAX_RANK],
        strides: [0; MAX_RANK],
    };
    let mut count: u128 = 1;
    for (d, &dim) in dims.iter().enumerate() {
        out.dims[d] = i32::try_from(dim).map_err(|_| limit(d, dim as u128, MAX_INT))?;
        count *= dim as u128;
        if kind == DescriptorKind::Tensor && count / x as u128 > MAX_ELEMENTS as u128 {
            return Err(limit(d, count / x as u128, MAX_ELEMENTS).into());
        }
    }
    // Packed strides in cuDNN's elements (vectors of x for NCHW_VECT_C); a filter's may pass
    // `int` (cuDNN reports none for filters), so they saturate there.
    for (d, &stride) in placement.strides().iter().enumerate() {
        out.strides[d] = i32::try_from(stride / x).unwrap_or(i32::MAX);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family letter string names its kind: images and volumes are tensors, filters
    /// filters, anything else has no format.
    #[test]
    fn kinds_follow_the_family() {
        let kind = |spec: &str| DynLayout::parse(spec).unwrap().cudnn_format(DataType::Float, &[2, 8, 3, 3]);
        assert_eq!(kind("NHWC").unwrap().kind(), DescriptorKind::Tensor);
        assert_eq!(kind("KRSC").unwrap().kind(), DescriptorKind::Filter);
        let matrix = DynLayout::parse("BMN").unwrap().cudnn_format(DataType::Float, &[2, 3, 4]);
        assert!(matches!(matrix, Err(LayoutError::Cudnn(CudnnError::NoFormat { .. }))));
    }
}
