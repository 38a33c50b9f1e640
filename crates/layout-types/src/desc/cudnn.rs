//! cuDNN's descriptor arguments as plain values, checked against cuDNN's limits: the
//! `(dataType, nbDims, dimA, strideA)` that `cudnnSetTensorNdDescriptor` takes, the bytes
//! `cudnnGetTensorSizeInBytes` reports, and the legacy `cudnnTensorFormat_t`.
//!
//! Nothing here calls cuDNN, so every value can be built and checked on any machine; the GPU
//! crate's `cudnn` feature hands them to the library (and its tests compare them with what
//! libcudnn itself computes).
//!
//! ```
//! use typed_layout::{cudnn::TensorFormat, DataType, Nhwc, Shape, TensorDesc};
//! let shape = Shape::<Nhwc>::new([1, 64, 5, 4])?;
//! let nd = shape.cudnn(DataType::Half)?;
//! assert_eq!((nd.data_type() as i32, nd.nb_dims()), (2, 4)); // CUDNN_DATA_HALF, 4 dims
//! assert_eq!(nd.dims(), &[1, 64, 5, 4]);
//! assert_eq!(nd.strides(), &[1280, 1, 256, 64]);
//! assert_eq!(nd.size_in_bytes(), 1280 * 2);
//! // And back: cuDNN's arrays into a checked descriptor.
//! let desc = TensorDesc::from_cudnn(2, nd.dims(), nd.strides())?;
//! assert_eq!(desc.cudnn()?, nd);
//! assert_eq!(TensorFormat::of(&typed_layout::DynLayout::of::<Nhwc>()), Some(TensorFormat::Nhwc));
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use super::{DynLayout, TensorDesc};
use crate::dtype::{DataType, Element};
use crate::error::{CudnnError, DimName, LayoutError};
use crate::family::{BuiltinFamily, Family};
use crate::layout::{Layout, Shape, Strided, Sub};
use crate::notation::MAX_RANK;
use crate::tensor::{Storage, TensorBase};

/// The most elements a cuDNN descriptor may span, padding included: the guide's "2
/// Giga-elements" read as libcudnn 9 applies it, fewer than 2^31 (it refuses exactly 2^31 with
/// `CUDNN_STATUS_NOT_SUPPORTED`; `tests/cudnn_descriptors.rs` checks the boundary).
///
/// ```
/// use typed_layout::{cudnn::{CudnnError, MAX_ELEMENTS}, DataType, LayoutError, Nchw, Shape};
/// let fits = Shape::<Nchw>::new([1, 1, 1, MAX_ELEMENTS as usize])?;
/// assert!(fits.cudnn(DataType::Int8).is_ok());
/// let over = Shape::<Nchw>::new([2, 1, 1, 1 << 30])?; // 2^31 elements: cuDNN refuses it
/// assert!(matches!(over.cudnn(DataType::Int8), Err(LayoutError::Cudnn(CudnnError::Limit { .. }))));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const MAX_ELEMENTS: u64 = (1 << 31) - 1;

/// The largest dim or stride a descriptor holds (C `int`).
///
/// ```
/// use typed_layout::{cudnn::MAX_INT, DataType, TensorDesc};
/// // A stride that does not fit cuDNN's int: refused, naming the dimension.
/// let d = TensorDesc::new(DataType::Int8, &[2, 1, 1, 1], &[MAX_INT as isize + 1, 1, 1, 1])?;
/// assert!(d.cudnn().is_err());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub const MAX_INT: u64 = i32::MAX as u64;

/// cuDNN's legacy `cudnnTensorFormat_t`, which names three layouts of images (and, for 5-D
/// descriptors, of volumes). The discriminant is cuDNN's value.
///
/// ```
/// use typed_layout::{cudnn::TensorFormat, DynLayout, NcxHwx, Nhwc};
/// assert_eq!(TensorFormat::of(&DynLayout::of::<Nhwc>()), Some(TensorFormat::Nhwc));
/// assert_eq!(TensorFormat::of(&DynLayout::of::<NcxHwx<32>>()), Some(TensorFormat::NchwVectC));
/// assert_eq!(TensorFormat::Nhwc as i32, 1); // CUDNN_TENSOR_NHWC
/// assert_eq!(TensorFormat::from_cudnn(0), Some(TensorFormat::Nchw));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum TensorFormat {
    /// `CUDNN_TENSOR_NCHW` (`NCDHW` for volumes).
    Nchw = 0,
    /// `CUDNN_TENSOR_NHWC` (`NDHWC` for volumes).
    Nhwc = 1,
    /// `CUDNN_TENSOR_NCHW_VECT_C`: NC/xHWx, with x given by the vector data type
    /// (`CUDNN_DATA_INT8x4`: 4, `CUDNN_DATA_INT8x32`: 32).
    NchwVectC = 2,
}

impl TensorFormat {
    /// The three formats, in cuDNN's order.
    pub const ALL: [TensorFormat; 3] = [TensorFormat::Nchw, TensorFormat::Nhwc, TensorFormat::NchwVectC];

    /// The format with cuDNN's value `value`.
    ///
    /// ```
    /// use typed_layout::cudnn::TensorFormat;
    /// assert_eq!(TensorFormat::from_cudnn(1), Some(TensorFormat::Nhwc));
    /// assert_eq!(TensorFormat::from_cudnn(3), None);
    /// ```
    pub const fn from_cudnn(value: i32) -> Option<TensorFormat> {
        match value {
            0 => Some(TensorFormat::Nchw),
            1 => Some(TensorFormat::Nhwc),
            2 => Some(TensorFormat::NchwVectC),
            _ => None,
        }
    }

    /// The enumerator's name (`"CUDNN_TENSOR_NHWC"`).
    pub const fn cudnn_name(self) -> &'static str {
        match self {
            TensorFormat::Nchw => "CUDNN_TENSOR_NCHW",
            TensorFormat::Nhwc => "CUDNN_TENSOR_NHWC",
            TensorFormat::NchwVectC => "CUDNN_TENSOR_NCHW_VECT_C",
        }
    }

    /// The format cuDNN would name `layout` with: NCHW or NCDHW, NHWC or NDHWC, and NC/xHWx or
    /// NC/xDHWx (fully packed), and for filters KCRS or KCDRS, KRSC or KDRSC, and KC/xRSx or
    /// KC/xDRSx; `None` for every other layout.
    ///
    /// ```
    /// use typed_layout::{cudnn::TensorFormat, DynLayout, Layout, NcxHwx, Chwn, Krsc};
    /// assert_eq!(TensorFormat::of(&DynLayout::of::<NcxHwx<32>>()), Some(TensorFormat::NchwVectC));
    /// assert_eq!(TensorFormat::of(&DynLayout::of::<Krsc>()), Some(TensorFormat::Nhwc));
    /// assert_eq!(TensorFormat::of(&DynLayout::of::<Chwn>()), None);
    /// ```
    pub fn of(layout: &DynLayout) -> Option<TensorFormat> {
        let width = layout.format().vector().map(|v| v.width);
        let filter = matches!(
            BuiltinFamily::of_letters(layout.letters()),
            Some(BuiltinFamily::Filter | BuiltinFamily::VolumeFilter)
        );
        TensorFormat::ALL.into_iter().find(|f| {
            let named = match filter {
                false => f.layout(layout.rank(), width),
                true => f.filter_layout(layout.rank(), width),
            };
            named.as_ref() == Some(layout)
        })
    }

    /// The layout this format names for a tensor descriptor of `rank` dims (4: image, 5:
    /// volume), with `vector_width` x for [`TensorFormat::NchwVectC`] (and `None` for the
    /// others).
    ///
    /// ```
    /// use typed_layout::{cudnn::TensorFormat, DynLayout, Ndhwc};
    /// assert_eq!(TensorFormat::Nhwc.layout(5, None), Some(DynLayout::of::<Ndhwc>()));
    /// assert_eq!(TensorFormat::NchwVectC.layout(4, Some(4)).unwrap().to_string(), "NC/4HW4");
    /// assert_eq!(TensorFormat::Nchw.layout(3, None), None);
    /// ```
    pub fn layout(self, rank: usize, vector_width: Option<usize>) -> Option<DynLayout> {
        let spatial = match rank {
            4 => "HW",
            5 => "DHW",
            _ => return None,
        };
        self.spelled('N', spatial, vector_width)
    }

    /// The layout this format names for a filter descriptor of `rank` dims (4: KCRS, 5: KCDRS).
    ///
    /// ```
    /// use typed_layout::{cudnn::TensorFormat, DynLayout, KcxRsx, Kdrsc};
    /// assert_eq!(TensorFormat::Nhwc.filter_layout(5, None), Some(DynLayout::of::<Kdrsc>()));
    /// assert_eq!(TensorFormat::NchwVectC.filter_layout(4, Some(32)), Some(DynLayout::of::<KcxRsx<32>>()));
    /// ```
    pub fn filter_layout(self, rank: usize, vector_width: Option<usize>) -> Option<DynLayout> {
        let spatial = match rank {
            4 => "RS",
            5 => "DRS",
            _ => return None,
        };
        self.spelled('K', spatial, vector_width)
    }

    /// This format's layout with outer letter `outer`, C, and the spatial letters `spatial`.
    fn spelled(self, outer: char, spatial: &str, vector_width: Option<usize>) -> Option<DynLayout> {
        let spec = match (self, vector_width) {
            (TensorFormat::Nchw, None) => format!("{outer}C{spatial}"),
            (TensorFormat::Nhwc, None) => format!("{outer}{spatial}C"),
            (TensorFormat::NchwVectC, Some(x)) => format!("{outer}C/{x}{spatial}{x}"),
            _ => return None,
        };
        DynLayout::parse(&spec).ok()
    }
}

/// The arguments of `cudnnSetTensorNdDescriptor`: data type, number of dims, and the dims and
/// strides as C `int`s, in logical order; built only through the checks of
/// [`TensorDesc::cudnn`].
///
/// ```
/// use typed_layout::{DataType, Nhwc, Shape};
/// let nd = Shape::<Nhwc>::new([1, 64, 5, 4])?.cudnn(DataType::Half)?;
/// assert_eq!((nd.data_type() as i32, nd.nb_dims()), (2, 4)); // CUDNN_DATA_HALF, 4 dims
/// assert_eq!((nd.dims(), nd.strides()), (&[1, 64, 5, 4][..], &[1280, 1, 256, 64][..]));
/// assert_eq!(nd.size_in_bytes(), 2560);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NdArgs {
    data_type: DataType,
    nb_dims: usize,
    dims: [i32; MAX_RANK],
    strides: [i32; MAX_RANK],
}

impl NdArgs {
    /// `dataType` (its `cudnnDataType_t` value is `data_type() as i32`).
    pub const fn data_type(&self) -> DataType {
        self.data_type
    }

    /// `nbDims`.
    pub const fn nb_dims(&self) -> i32 {
        self.nb_dims as i32
    }

    /// `dimA`.
    pub fn dims(&self) -> &[i32] {
        &self.dims[..self.nb_dims]
    }

    /// `strideA`.
    pub fn strides(&self) -> &[i32] {
        &self.strides[..self.nb_dims]
    }

    /// What `cudnnGetTensorSizeInBytes` reports: the bytes from the first element to the end of
    /// the last, padding included.
    pub fn size_in_bytes(&self) -> usize {
        let reach = |(&d, &s): (&i32, &i32)| (d as usize - 1) * s.max(0) as usize;
        let last: usize = self.dims().iter().zip(self.strides()).map(reach).sum();
        (last + 1) * self.data_type.size()
    }
}

impl TensorDesc {
    /// The descriptor as `cudnnSetTensorNdDescriptor`'s arguments, or the first of cuDNN's
    /// limits it breaks: a data type it does not take (`CUDNN_DATA_INT64`:
    /// [`CudnnError::DataType`]), a stride below 1 on a dimension above 1
    /// ([`CudnnError::Stride`]), a dim or stride
    /// above `i32::MAX`, or 2^31 or more elements spanned ([`CudnnError::Limit`], at
    /// the dimension, innermost first, where the span passes it).
    ///
    /// ```
    /// use typed_layout::{cudnn::CudnnError, DataType, LayoutError, TensorDesc};
    /// let big = TensorDesc::new(DataType::Int8, &[2, 1 << 16, 1 << 15, 1], &[1 << 31, 1 << 15, 1, 1])?;
    /// let e = big.cudnn().unwrap_err();
    /// assert!(matches!(e, LayoutError::Cudnn(CudnnError::Limit { limit: 2147483647, .. })));
    /// let mirrored = TensorDesc::new(DataType::Float, &[2, 3, 4], &[-12, 4, 1])?;
    /// assert!(matches!(mirrored.cudnn(), Err(LayoutError::Cudnn(CudnnError::Stride { stride: -12, .. }))));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn cudnn(&self) -> Result<NdArgs, LayoutError> {
        if self.data_type() == DataType::Int64 {
            return Err(LayoutError::Cudnn(CudnnError::DataType { data_type: DataType::Int64 }));
        }
        let letters = self.letters().unwrap_or("").as_bytes();
        let name = |d: usize| DimName::new(d, letters);
        let limit = |d: usize, value: u128, limit: u64| {
            LayoutError::Cudnn(CudnnError::Limit { dim: name(d), value, limit })
        };
        let mut out = NdArgs {
            data_type: self.data_type(),
            nb_dims: self.rank(),
            dims: [0; MAX_RANK],
            strides: [0; MAX_RANK],
        };
        for (d, (&dim, &stride)) in self.dims().iter().zip(self.strides()).enumerate() {
            if dim > 1 && stride < 1 {
                return Err(LayoutError::Cudnn(CudnnError::Stride { dim: name(d), stride }));
            }
            out.dims[d] = i32::try_from(dim).map_err(|_| limit(d, dim as u128, MAX_INT))?;
            out.strides[d] =
                i32::try_from(stride).map_err(|_| limit(d, stride.unsigned_abs() as u128, MAX_INT))?;
        }
        // Elements spanned, adding dimensions from the smallest stride out.
        let mut order: Vec<usize> = (0..self.rank()).collect();
        order.sort_by_key(|&d| self.strides()[d]);
        let mut span: u128 = 1;
        for d in order {
            // A stride below 1 is only left on a dimension of size 1, which adds nothing.
            span += (self.dims()[d] as u128 - 1) * self.strides()[d].max(0) as u128;
            if span > MAX_ELEMENTS as u128 {
                return Err(limit(d, span, MAX_ELEMENTS));
            }
        }
        Ok(out)
    }

    /// A descriptor from cuDNN's arguments (`cudnnGetTensorNdDescriptor`'s results): a
    /// `cudnnDataType_t` value, `dimA` and `strideA`. Besides [`TensorDesc::new`]'s checks,
    /// refuses an unknown data type, a negative dim, and what [`TensorDesc::cudnn`] refuses, so
    /// the result converts back exactly.
    ///
    /// ```
    /// use typed_layout::{cudnn::CudnnError, DataType, LayoutError, TensorDesc};
    /// let d = TensorDesc::from_cudnn(0, &[1, 64, 5, 4], &[1280, 1, 256, 64])?;
    /// assert_eq!(d.data_type(), DataType::Float);
    /// assert!(d.fully_packed("NHWC")?);
    /// let e = TensorDesc::from_cudnn(0, &[1, -64, 5, 4], &[1280, 1, 256, 64]).unwrap_err();
    /// assert_eq!(e.to_string(), "dimension C (logical index 1) is -64: every dimension of a tensor must be at least 1");
    /// assert_eq!(TensorDesc::from_cudnn(5, &[1, 4, 1, 1], &[4, 1, 1, 1]), Err(LayoutError::Cudnn(CudnnError::UnknownDataType { id: 5 })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn from_cudnn(data_type: i32, dims: &[i32], strides: &[i32]) -> Result<TensorDesc, LayoutError> {
        let data_type = DataType::from_cudnn(data_type)
            .ok_or(LayoutError::Cudnn(CudnnError::UnknownDataType { id: data_type }))?;
        let letters = crate::family::BuiltinFamily::of_rank(dims.len())
            .map_or("", crate::family::BuiltinFamily::letters)
            .as_bytes();
        if let Some(d) = dims.iter().position(|&d| d < 0) {
            return Err(LayoutError::Cudnn(CudnnError::NegativeDim {
                dim: DimName::new(d, letters),
                size: dims[d] as i64,
            }));
        }
        let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
        let desc = TensorDesc::new(data_type, &dims, &strides)?;
        desc.cudnn()?;
        Ok(desc)
    }
}

impl<L: Layout> Shape<L> {
    /// The shape's `cudnnSetTensorNdDescriptor` arguments for elements of `data_type` (see
    /// [`TensorDesc::cudnn`]). NC/xHWx has none: cuDNN names it with
    /// [`TensorFormat::NchwVectC`] and a vector data type instead.
    pub fn cudnn(&self, data_type: DataType) -> Result<NdArgs, LayoutError> {
        TensorDesc::from_shape(data_type, self)?.cudnn()
    }
}

impl<S: Storage, L: Layout> TensorBase<S, L> {
    /// The tensor's `cudnnSetTensorNdDescriptor` arguments, its data type from the element type.
    ///
    /// ```
    /// use typed_layout::{Ncdhw, Tensor};
    /// let t = Tensor::<i8, Ncdhw>::zeros([1, 2, 3, 4, 5])?;
    /// let nd = t.cudnn()?;
    /// assert_eq!((nd.data_type() as i32, nd.strides()), (3, &[120, 60, 20, 5, 1][..]));
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn cudnn(&self) -> Result<NdArgs, LayoutError> {
        self.shape().cudnn(<S::Elem as Element>::DATA_TYPE)
    }
}

impl<S: Storage, L: Layout> TensorBase<S, Sub<L>> {
    /// The sub-tensor's `cudnnSetTensorNdDescriptor` arguments: its dims and the strides of
    /// the tensor it is part of (the pointer handed to cuDNN is where it starts). A sub-tensor of
    /// NC/xHWx has arguments only when it is packed (a batch, say): cuDNN describes vectorized
    /// layouts by format, packed.
    ///
    /// ```
    /// use typed_layout::{LayoutError, NcxHwx, Nhwc, Tensor};
    /// let t = Tensor::<f32, Nhwc>::zeros([2, 8, 4, 4])?;
    /// let crop = t.crop([0, 0, 1, 1], [2, 8, 2, 2])?;
    /// let nd = crop.cudnn()?;
    /// assert_eq!((nd.dims(), nd.strides()), (&[2, 8, 2, 2][..], &[128, 1, 32, 8][..]));
    /// let v = Tensor::<i8, NcxHwx<4>>::zeros([2, 8, 4, 4])?;
    /// assert!(v.batch(1)?.cudnn().is_err()); // NC/xHWx: no Nd arguments, like the whole tensor
    /// assert!(matches!(v.narrow('C', 0..4)?.cudnn(), Err(LayoutError::NotApplicable { .. })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn cudnn(&self) -> Result<NdArgs, LayoutError> {
        let data_type = <S::Elem as Element>::DATA_TYPE;
        if let Some(whole) = self.shape().packed() {
            return whole.cudnn(data_type);
        }
        if L::FORMAT.vector().is_some() {
            return Err(LayoutError::NotApplicable {
                reason: "cuDNN describes a vectorized layout (NC/xHWx) by its format, packed: a sub-tensor that is not packed has no descriptor",
            });
        }
        let (dims, strides) = (self.dims(), self.group_strides());
        let desc = TensorDesc::new(data_type, dims.as_ref(), strides.as_ref())?;
        desc.with_letters(L::LETTERS)?.cudnn()
    }
}

impl<S: Storage, F: Family> TensorBase<S, Strided<F>> {
    /// The strided view's `cudnnSetTensorNdDescriptor` arguments: its dims and strides (the
    /// base offset is where the pointer handed to cuDNN starts), its data type from the element
    /// type.
    ///
    /// ```
    /// use typed_layout::{cudnn::CudnnError, Image, LayoutError, StridedView};
    /// let data = [0.0f32; 64];
    /// // A 4×4 window of an 8×8 image: rows 8 apart.
    /// let window = StridedView::<f32, Image>::new([1, 1, 4, 4], [64, 64, 8, 1], 18, &data)?;
    /// assert_eq!(window.cudnn()?.strides(), &[64, 64, 8, 1]);
    /// // cuDNN takes no negative strides.
    /// let mirrored = StridedView::<f32, Image>::new([1, 1, 4, 4], [64, 64, 8, -1], 3, &data)?;
    /// assert!(matches!(mirrored.cudnn(), Err(LayoutError::Cudnn(CudnnError::Stride { stride: -1, .. }))));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn cudnn(&self) -> Result<NdArgs, LayoutError> {
        let data_type = <S::Elem as Element>::DATA_TYPE;
        let desc = TensorDesc::new(data_type, self.dims().as_ref(), self.strides().as_ref())?;
        desc.with_letters(F::LETTERS)?.cudnn()
    }
}
