//! How each [`LayoutError`] is worded: its message ([`fmt::Display`]) and the rule it enforces
//! ([`LayoutError::rule`]).

use core::fmt;

use super::LayoutError;
use crate::overlap::Overlap;

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
                "{dim} has stride {found} in the array but {expected} in the layout: an array read as a layout has that layout's strides (read other strides as a strided view)"
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
            LayoutError::StrideMismatch { .. } => "an array read as a layout has that layout's strides",
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
