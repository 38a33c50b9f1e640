//! The one error type for rejected shapes, strides, buffers and formats.
//!
//! ```
//! use typed_layout::{LayoutError, NcxHwx, Tensor};
//! let e = Tensor::<i8, NcxHwx<32>>::zeros([1, 48, 5, 4]).unwrap_err();
//! assert!(matches!(e, LayoutError::NotMultipleOfVector { size: 48, width: 32, .. }));
//! assert!(e.to_string().contains("not a multiple of the vector width 32"));
//! ```

use core::fmt;

use crate::dtype::DataType;
use crate::notation::{NotationBuf, NotationError};
use crate::overlap::Overlap;

mod conv;
mod cudnn;
#[cfg(feature = "dlpack")]
mod dlpack;
mod names;

pub use conv::ConvError;
pub use cudnn::CudnnError;
#[cfg(feature = "dlpack")]
pub use dlpack::DlpackError;
pub use names::{DimName, Letters};

/// A shape, stride set, buffer or format that breaks one of the guide's rules.
///
/// Every variant names the rule it enforces; [`fmt::Display`] words it for a user.
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

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::RankOutOfRange { rank } => write!(
                f,
                "rank {rank} is out of range: a tensor descriptor has from 3 to 8 dimensions"
            ),
            LayoutError::StrideCount { dims, strides } => write!(
                f,
                "{strides} strides given for {dims} dimensions: a descriptor has one stride per dimension"
            ),
            LayoutError::ZeroDim { dim } => write!(
                f,
                "{dim} is 0: every dimension of a tensor must be at least 1"
            ),
            LayoutError::SizeOverflow { dim } => write!(
                f,
                "the size or stride product overflows at {dim}: element offsets must fit in isize"
            ),
            LayoutError::NotMultipleOfVector { dim, size, width } => write!(
                f,
                "{dim} is {size}, not a multiple of the vector width {width}: NC/xHWx groups C into vectors of x channels, so C must be a multiple of x"
            ),
            LayoutError::NotPacked { dim, stride, required } => write!(
                f,
                "{dim} has stride {stride} but must have {required}: a letter of the -packed suffix has stride next_dim * next_stride (1 for the last letter)"
            ),
            LayoutError::StrideTooSmall { dim, stride, minimum } => write!(
                f,
                "{dim} has stride {stride}, below {minimum}: a letter outside the -packed suffix has stride >= next_dim * next_stride"
            ),
            LayoutError::BufferLength { expected, found } => write!(
                f,
                "buffer has {found} elements but the shape needs {expected}"
            ),
            LayoutError::OutOfBounds { lowest, highest, len } => write!(
                f,
                "the view addresses element offsets {lowest}..={highest}, outside the buffer of {len} elements"
            ),
            LayoutError::OverlappingOutput { verdict } => match verdict {
                Overlap::CannotTell => write!(
                    f,
                    "cannot prove the output's dimensions do not overlap, so it is refused: dimensions of an output tensor cannot overlap"
                ),
                _ => write!(
                    f,
                    "the output's dimensions overlap (an address is reached twice): dimensions of an output tensor cannot overlap"
                ),
            },
            LayoutError::DimCount { expected, found } => write!(
                f,
                "{found} dims given for a layout of {expected} dimensions: a shape gives one size per dimension of its layout"
            ),
            LayoutError::StrideMismatch { dim, expected, found } => write!(
                f,
                "{dim} has stride {found} in the array but {expected} in the layout: a zero-copy view keeps its layout's strides (copy it instead)"
            ),
            LayoutError::ShapeMismatch { dim, source, destination } => write!(
                f,
                "{dim} is {source} in the source but {destination} in the destination: a conversion keeps the logical shape"
            ),
            LayoutError::IndexOutOfBounds { dim, index, size } => write!(
                f,
                "index {index} is out of bounds for {dim} of size {size}"
            ),
            LayoutError::RangeOutOfBounds { dim, start, end, size } => write!(
                f,
                "the range {start}..{end} of {dim} is empty or not inside its size {size}: a sub-tensor lies inside its tensor"
            ),
            LayoutError::NotWholeVectors { dim, start, end, width } => write!(
                f,
                "the range {start}..{end} of {dim} cuts its vectors of {width}: a vectorized dimension narrows only at whole vectors (multiples of x = {width})"
            ),
            LayoutError::SplitInterleaves { dim } => write!(
                f,
                "the halves along {dim} interleave in memory: a tensor splits into disjoint mutable parts only along an axis outside every other (the outermost of its storage order)"
            ),
            LayoutError::NoSuchAxis { index, rank } => {
                write!(f, "there is no axis {index} in a tensor of rank {rank}")
            }
            LayoutError::NoSuchLetter { letter, letters } => {
                write!(f, "there is no axis {letter} in a tensor of the family {letters}")
            }
            LayoutError::AllocationFailed { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the tensor's storage")
            }
            LayoutError::Scale { index } => write!(f, "the scale at index {index}: {}", self.rule()),
            LayoutError::ScaleCount { given, expected } => {
                write!(f, "{given} scales for {expected} output channels: {}", self.rule())
            }
            LayoutError::ChannelParameters { scales, shifts, channels } => write!(
                f,
                "{scales} scales and {shifts} shifts for {channels} channels: {}",
                self.rule()
            ),
            LayoutError::DataTypeMismatch { expected, found } => write!(
                f,
                "the tensor holds {found} but {expected} was asked for: {}",
                self.rule()
            ),
            LayoutError::LayoutMismatch { expected, found } => write!(
                f,
                "the tensor is in layout {found} but {expected} was asked for: {}",
                self.rule()
            ),
            LayoutError::FamilyMismatch { source, destination } => write!(
                f,
                "cannot convert a tensor of the family {source} into one of {destination}: {}",
                self.rule()
            ),
            LayoutError::LetterCount { expected, found } => write!(
                f,
                "{found} letters given for a descriptor of {expected} dimensions: {}",
                self.rule()
            ),
            LayoutError::AxisCount { expected, found } => write!(
                f,
                "the array has {found} axes, but the layout stores {expected} physical axes: {}",
                self.rule()
            ),
            LayoutError::LaneCount { dim, found, width } => write!(
                f,
                "the lane axis of {dim} holds {found}, but the layout's vectors hold {width}: {}",
                self.rule()
            ),
            LayoutError::ByteLength { expected, found } => {
                write!(f, "{found} bytes given but the shape needs {expected}: {}", self.rule())
            }
            LayoutError::Cudnn(e) => write!(f, "{e}"),
            LayoutError::Conv(e) => write!(f, "{e}"),
            LayoutError::Format(e) => write!(f, "{e}"),
            LayoutError::NotApplicable { reason } => write!(f, "{reason}"),
        }
    }
}

impl std::error::Error for LayoutError {}

impl LayoutError {
    /// The rule this error enforces, as a `'static` string (what `const` evaluation prints when a
    /// static shape breaks it).
    pub const fn rule(&self) -> &'static str {
        match self {
            LayoutError::RankOutOfRange { .. } => "a tensor descriptor has from 3 to 8 dimensions",
            LayoutError::StrideCount { .. } => "a descriptor has one stride per dimension",
            LayoutError::ZeroDim { .. } => "every dimension of a tensor must be at least 1",
            LayoutError::SizeOverflow { .. } => "element offsets must fit in isize",
            LayoutError::NotMultipleOfVector { .. } => {
                "NC/xHWx groups C into vectors of x channels, so C must be a multiple of x"
            }
            LayoutError::NotPacked { .. } => {
                "a letter of the -packed suffix has stride next_dim * next_stride (1 for the last letter)"
            }
            LayoutError::StrideTooSmall { .. } => {
                "a letter outside the -packed suffix has stride >= next_dim * next_stride"
            }
            LayoutError::BufferLength { .. } => "a buffer holds exactly the elements its shape needs",
            LayoutError::OutOfBounds { .. } => "a view addresses only elements inside its buffer",
            LayoutError::OverlappingOutput { .. } => "dimensions of an output tensor cannot overlap",
            LayoutError::ShapeMismatch { .. } => "a conversion keeps the logical shape",
            LayoutError::StrideMismatch { .. } => "a zero-copy view keeps its layout's strides",
            LayoutError::DimCount { .. } => "a shape gives one size per dimension of its layout",
            LayoutError::IndexOutOfBounds { .. } => "a logical index is below its dimension's size",
            LayoutError::RangeOutOfBounds { .. } => "a sub-tensor lies inside its tensor",
            LayoutError::NotWholeVectors { .. } => "a vectorized dimension narrows only at whole vectors",
            LayoutError::SplitInterleaves { .. } => {
                "mutable parts of a tensor are disjoint slices of its storage"
            }
            LayoutError::NoSuchAxis { .. } | LayoutError::NoSuchLetter { .. } => {
                "an axis is one of the tensor's letters, or an index below its rank"
            }
            LayoutError::AllocationFailed { .. } => "a tensor's storage must be allocatable",
            LayoutError::Scale { .. } => "a quantization scale is a positive, finite number",
            LayoutError::ScaleCount { .. } => {
                "per-output-channel quantization has one scale per output channel K"
            }
            LayoutError::ChannelParameters { .. } => {
                "a per-channel cast has one scale and one shift for each channel of the source"
            }
            LayoutError::DataTypeMismatch { .. } => {
                "a typed tensor reads its bytes as the data type they were stored in (cast it instead)"
            }
            LayoutError::LayoutMismatch { .. } => {
                "a typed tensor keeps the layout its bytes are in (convert it instead)"
            }
            LayoutError::FamilyMismatch { .. } => {
                "a conversion stays within one family: the same dimension letters"
            }
            LayoutError::LetterCount { .. } => "a family names each of its dimensions with one letter",
            LayoutError::AxisCount { .. } => {
                "a dense array of a layout's storage has one axis per physical axis (a vectorized C is two: its groups, and its lanes innermost)"
            }
            LayoutError::LaneCount { .. } => "NC/xHWx stores C as groups of x lanes, the lanes innermost",
            LayoutError::ByteLength { .. } => {
                "a buffer of bytes holds exactly the elements of its shape, each of its data type's size"
            }
            LayoutError::Cudnn(e) => e.rule(),
            LayoutError::Conv(e) => e.rule(),
            LayoutError::Format(e) => e.message(),
            LayoutError::NotApplicable { reason } => reason,
        }
    }
}

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
