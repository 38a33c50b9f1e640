//! The one error type for rejected shapes, strides, buffers and formats.
//!
//! ```
//! use typed_layout::{LayoutError, NcxHwx, Tensor};
//! let e = Tensor::<i8, NcxHwx<32>>::zeros([1, 48, 5, 4]).unwrap_err();
//! assert!(matches!(e, LayoutError::NotMultipleOfVector { size: 48, width: 32, .. }));
//! assert!(e.to_string().contains("not a multiple of the vector width 32"));
//! ```

use crate::dtype::DataType;
use crate::notation::{NotationBuf, NotationError};
use crate::overlap::Overlap;

mod conv;
mod cudnn;
#[cfg(feature = "dlpack")]
mod dlpack;
mod messages;
mod names;

pub use conv::ConvError;
pub use cudnn::CudnnError;
#[cfg(feature = "dlpack")]
pub use dlpack::DlpackError;
pub use names::{DimName, Letters};

/// A shape, stride set, buffer or format that breaks one of the guide's rules.
///
/// Every variant names the rule it enforces; [`Display`](core::fmt::Display) words it for a user.
///
/// ```
/// use typed_layout::{Nhwc, Shape, LayoutError};
/// let err = Shape::<Nhwc>::new([1, 0, 5, 4]).unwrap_err();
/// assert!(matches!(err, LayoutError::ZeroDim { .. }));
/// assert_eq!(
///     err.to_string(),
///     "dimension C (logical index 1) is 0: every dimension of a tensor must be at least 1"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// The guide's tensor descriptor has "a number of dimensions from 3 to 8".
    RankOutOfRange {
        /// The rank that was given.
        rank: usize,
    },
    /// Dims given for a layout of another rank (an array of rank 3 for NCHW).
    DimCount {
        /// The layout's number of dimensions.
        expected: usize,
        /// The number of dims given.
        found: usize,
    },
    /// Two arrays that must have one entry per dimension have different lengths.
    StrideCount {
        /// Number of dimensions.
        dims: usize,
        /// Number of strides.
        strides: usize,
    },
    /// A dimension of size 0.
    ZeroDim {
        /// The offending dimension.
        dim: DimName,
    },
    /// A sub-tensor's range along a dimension is empty or reaches past it.
    RangeOutOfBounds {
        /// The dimension.
        dim: DimName,
        /// The range's first index.
        start: usize,
        /// One past its last index.
        end: usize,
        /// The dimension's size.
        size: usize,
    },
    /// A sub-tensor of a vectorized layout cuts a vector: NC/xHWx's C narrows only at whole
    /// groups of x, so that the sub-tensor stays vectorized.
    NotWholeVectors {
        /// The vectorized dimension.
        dim: DimName,
        /// The range's first index.
        start: usize,
        /// One past its last index.
        end: usize,
        /// The vector width x.
        width: usize,
    },
    /// Halves of a tensor along an axis whose storage interleaves (the axis is not outside every
    /// other), so they cannot be two disjoint mutable slices: split along the outermost axis.
    SplitInterleaves {
        /// The axis asked for.
        dim: DimName,
    },
    /// An axis index past the tensor's rank.
    NoSuchAxis {
        /// The index asked for.
        index: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An axis letter outside the tensor's family.
    NoSuchLetter {
        /// The letter asked for.
        letter: char,
        /// The family's letters.
        letters: &'static str,
    },
    /// The element count or a stride product does not fit in the address space (`isize`).
    SizeOverflow {
        /// The dimension at which the product overflowed.
        dim: DimName,
    },
    /// A vectorized dimension (NC/xHWx's C) whose size is not a multiple of the vector width.
    NotMultipleOfVector {
        /// The vectorized dimension.
        dim: DimName,
        /// Its size.
        size: usize,
        /// The vector width x.
        width: usize,
    },
    /// A letter in the layout's `-packed` suffix whose stride is not exactly the packed stride
    /// (the next dimension times the next stride, or 1 for the innermost).
    NotPacked {
        /// The dimension.
        dim: DimName,
        /// The stride given.
        stride: usize,
        /// The stride the packing rule requires.
        required: usize,
    },
    /// A letter outside the `-packed` suffix whose stride is below the packed stride, so that its
    /// elements would collide with the next dimension's.
    StrideTooSmall {
        /// The dimension.
        dim: DimName,
        /// The stride given.
        stride: usize,
        /// The smallest stride allowed (the next dimension times the next stride).
        minimum: usize,
    },
    /// A buffer whose length differs from what the shape needs.
    BufferLength {
        /// Elements the shape needs.
        expected: usize,
        /// Elements the buffer has.
        found: usize,
    },
    /// A strided view that reaches outside its buffer.
    OutOfBounds {
        /// The lowest element offset the view addresses, relative to the buffer start.
        lowest: i128,
        /// The highest element offset the view addresses, relative to the buffer start.
        highest: i128,
        /// Buffer length.
        len: usize,
    },
    /// An output whose dimensions overlap (or may overlap): cuDNN's "dimensions of the output
    /// tensors cannot overlap".
    OverlappingOutput {
        /// What the overlap analysis found: [`Overlap::Overlapping`] or [`Overlap::CannotTell`].
        verdict: Overlap,
    },
    /// Source and destination of a conversion have different logical dims.
    ShapeMismatch {
        /// The first dimension whose sizes differ (or, for different ranks, the first missing).
        dim: DimName,
        /// Its size in the source.
        source: usize,
        /// Its size in the destination.
        destination: usize,
    },
    /// A zero-copy view from another crate's array whose strides are not its layout's.
    StrideMismatch {
        /// The first dimension whose strides differ.
        dim: DimName,
        /// The layout's stride there, in elements.
        expected: isize,
        /// The array's.
        found: isize,
    },
    /// A logical index outside the tensor.
    IndexOutOfBounds {
        /// The offending dimension.
        dim: DimName,
        /// The index given.
        index: usize,
        /// The size of that dimension.
        size: usize,
    },
    /// A format string that does not name the tensor's dimensions.
    Format(NotationError),
    /// The host could not allocate the tensor's storage.
    AllocationFailed {
        /// Bytes requested.
        bytes: usize,
    },
    /// cuDNN's arrays or limits refuse the tensor: see [`CudnnError`](crate::cudnn::CudnnError).
    Cudnn(CudnnError),
    /// The tensors of a convolution do not fit together: see [`ConvError`](crate::conv::ConvError).
    Conv(ConvError),
    /// A quantization scale that is not a positive, finite number.
    Scale {
        /// Its position among the scales.
        index: usize,
    },
    /// Per-output-channel quantization scales in a number other than the output channels.
    ScaleCount {
        /// Scales given.
        given: usize,
        /// Output channels K.
        expected: usize,
    },
    /// Per-channel parameters (a scale and a shift per channel) in a number other than the
    /// channel count.
    ChannelParameters {
        /// Scales given.
        scales: usize,
        /// Shifts given.
        shifts: usize,
        /// The source's channels.
        channels: usize,
    },
    /// A runtime tensor's elements asked for as another data type.
    DataTypeMismatch {
        /// The data type asked for.
        expected: DataType,
        /// The tensor's.
        found: DataType,
    },
    /// A runtime tensor asked for as a typed tensor of another layout.
    LayoutMismatch {
        /// The typed layout asked for, in cuDNN notation.
        expected: &'static str,
        /// The tensor's.
        found: NotationBuf,
    },
    /// A conversion between runtime layouts of different families (other dimension letters).
    FamilyMismatch {
        /// The source's family.
        source: Letters,
        /// The destination's.
        destination: Letters,
    },
    /// Letters for a descriptor of another rank: a family names each dimension once.
    LetterCount {
        /// The descriptor's number of dimensions.
        expected: usize,
        /// The number of letters given.
        found: usize,
    },
    /// An array of physical axes (a dense array's shape) of another count than the layout's:
    /// NC/xHWx is exchanged as N, C/x, H, W and the lanes of x.
    AxisCount {
        /// The layout's physical axes.
        expected: usize,
        /// The array's axes.
        found: usize,
    },
    /// A vectorized dimension's lane axis, given as an array's extent, that is not the layout's
    /// vector width.
    LaneCount {
        /// The vectorized dimension.
        dim: DimName,
        /// The lane axis's extent.
        found: usize,
        /// The layout's vector width x.
        width: usize,
    },
    /// Bytes whose count differs from what the shape and data type need.
    ByteLength {
        /// Bytes the shape needs.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// A question that the guide only defines for some tensors (spatial packing without spatial
    /// dimensions, letters asked of a descriptor that has none).
    NotApplicable {
        /// Why the question has no answer for this tensor.
        reason: &'static str,
    },
}

impl std::error::Error for LayoutError {}

impl From<NotationError> for LayoutError {
    fn from(e: NotationError) -> Self {
        LayoutError::Format(e)
    }
}

impl From<CudnnError> for LayoutError {
    fn from(e: CudnnError) -> Self {
        LayoutError::Cudnn(e)
    }
}

impl From<ConvError> for LayoutError {
    fn from(e: ConvError) -> Self {
        LayoutError::Conv(e)
    }
}
