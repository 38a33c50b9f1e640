//! What cuDNN's descriptors refuse beyond the guide's rules.

use core::fmt;

use super::DimName;
use crate::dtype::DataType;
use crate::notation::NotationBuf;

/// What cuDNN's descriptor arrays and limits refuse, beyond the guide's own rules: the reasons
/// behind [`LayoutError::Cudnn`](crate::LayoutError::Cudnn).
///
/// ```
/// use typed_layout::{cudnn::CudnnError, DataType, LayoutError, TensorDesc};
/// let mirrored = TensorDesc::new(DataType::Float, &[1, 1, 2, 3], &[6, 6, 3, -1])?;
/// match mirrored.cudnn() {
///     Err(LayoutError::Cudnn(CudnnError::Stride { stride, .. })) => assert_eq!(stride, -1),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CudnnError {
    /// A negative size, from an integer array that can hold one (cuDNN's `dimA`).
    NegativeDim {
        /// The offending dimension.
        dim: DimName,
        /// The size given.
        size: i64,
    },
    /// A stride below 1 on a dimension above 1, handed to cuDNN: its routines "do not support
    /// tensors with negative strides unless specified otherwise", and
    /// `cudnnSetTensorNdDescriptor` refuses 0 (`CUDNN_STATUS_BAD_PARAM`).
    Stride {
        /// The offending dimension.
        dim: DimName,
        /// The stride given.
        stride: isize,
    },
    /// A size, stride or span above what a cuDNN descriptor holds: `int` dims and strides, and
    /// fewer than 2^31 elements spanned, padding included.
    Limit {
        /// The dimension at which the limit is passed.
        dim: DimName,
        /// The value (dim, stride, or elements spanned so far).
        value: u128,
        /// The limit.
        limit: u64,
    },
    /// A data type that cuDNN's (legacy) tensor descriptor does not take: `CUDNN_DATA_INT64`,
    /// which `cudnnSetTensorNdDescriptor` answers with `CUDNN_STATUS_BAD_PARAM`.
    DataType {
        /// The data type.
        data_type: DataType,
    },
    /// A data type cuDNN's filter descriptor does not take: `cudnnSetFilterNdDescriptor` answers
    /// `CUDNN_DATA_INT32` and `CUDNN_DATA_INT64` with `CUDNN_STATUS_BAD_PARAM`.
    FilterDataType {
        /// The data type.
        data_type: DataType,
    },
    /// A `cudnnDataType_t` value that is not one of typed-layout's element types.
    UnknownDataType {
        /// The value given.
        id: i32,
    },
    /// A layout that no `cudnnTensorFormat_t` names, asked for a descriptor by format
    /// (`cudnnSetTensorNdDescriptorEx`, `cudnnSetFilterNdDescriptor`).
    NoFormat {
        /// The layout's notation.
        layout: NotationBuf,
    },
    /// A vectorized layout (`CUDNN_TENSOR_NCHW_VECT_C`) whose element type and vector width
    /// make none of cuDNN's vector data types.
    VectorType {
        /// The element type.
        data_type: DataType,
        /// The vector width x.
        width: usize,
    },
}

impl fmt::Display for CudnnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudnnError::NegativeDim { dim, size } => write!(
                f,
                "{dim} is {size}: every dimension of a tensor must be at least 1"
            ),
            CudnnError::Stride { dim, stride } => write!(
                f,
                "{dim} has stride {stride}: cuDNN takes strides of at least 1 (its routines do not support negative strides; descriptors refuse 0)"
            ),
            CudnnError::Limit { dim, value, limit } => write!(
                f,
                "{value} at {dim} is above {limit}: cuDNN descriptors hold int dims and strides and span fewer than 2^31 elements"
            ),
            CudnnError::DataType { data_type } => write!(
                f,
                "{data_type} has no legacy cuDNN tensor or filter descriptor: cuDNN's descriptors take the other element types"
            ),
            CudnnError::UnknownDataType { id } => write!(
                f,
                "cudnnDataType_t {id} is not an element type of typed-layout (f32, f64, f16, bf16, i8, u8, i32, i64)"
            ),
            CudnnError::FilterDataType { data_type } => write!(f, "{data_type} filters: {}", self.rule()),
            CudnnError::NoFormat { layout } => write!(
                f,
                "{} has no cudnnTensorFormat_t: {}",
                layout.as_str(),
                self.rule()
            ),
            CudnnError::VectorType { data_type, width } => write!(
                f,
                "{data_type} in vectors of {width} has no cuDNN vector data type: {}",
                self.rule()
            ),
        }
    }
}

impl std::error::Error for CudnnError {}

impl CudnnError {
    /// The rule this error enforces.
    pub const fn rule(&self) -> &'static str {
        match self {
            CudnnError::NegativeDim { .. } => "every dimension of a tensor must be at least 1",
            CudnnError::Stride { .. } => {
                "cuDNN takes strides of at least 1 (its routines do not support negative strides; descriptors refuse 0)"
            }
            CudnnError::Limit { .. } => {
                "cuDNN descriptors hold int dims and strides and span fewer than 2^31 elements"
            }
            CudnnError::DataType { .. } => "cuDNN's tensor and filter descriptors do not take CUDNN_DATA_INT64",
            CudnnError::UnknownDataType { .. } => "a data type is one of the element types typed-layout supports",
            CudnnError::FilterDataType { .. } => {
                "cudnnSetFilterNdDescriptor takes no CUDNN_DATA_INT32 or CUDNN_DATA_INT64 filters"
            }
            CudnnError::NoFormat { .. } => {
                "cuDNN's formats name fully packed NCHW, NHWC and NC/xHWx tensors (NCDHW, NDHWC, NC/xDHWx) and KCRS, KRSC and KC/xRSx filters (KCDRS, KDRSC, KC/xDRSx); use the strided descriptor (cudnn()) or convert"
            }
            CudnnError::VectorType { .. } => {
                "CUDNN_TENSOR_NCHW_VECT_C takes i8 in vectors of 4 (CUDNN_DATA_INT8x4) or 32 (CUDNN_DATA_INT8x32) and u8 in vectors of 4 (CUDNN_DATA_UINT8x4)"
            }
        }
    }
}
