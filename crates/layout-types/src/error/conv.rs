//! What makes the tensors of a convolution not fit together.

use core::fmt;

use super::DimName;

/// The tensors and parameters of a convolution that do not fit together: the reasons behind
/// [`LayoutError::Conv`](crate::LayoutError::Conv). Each names the numbers that disagree.
///
/// ```
/// use typed_layout::{conv::{Conv, ConvError}, Kcrs, LayoutError, Nchw, Shape};
/// let x = Shape::<Nchw>::new([1, 6, 8, 8])?;
/// let w = Shape::<Kcrs>::new([4, 4, 3, 3])?; // 4 input channels per group
/// match Conv::builder(&x, &w).groups(2).build() {
///     Err(LayoutError::Conv(ConvError::Groups { input, groups, per_group })) => {
///         assert_eq!((input, groups, per_group), (6, 2, 4)); // 6 ≠ 2 × 4
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConvError {
    /// The input's channels are not the group count times the filter's channels per group.
    Groups {
        /// The input's C.
        input: usize,
        /// The group count G.
        groups: usize,
        /// The filter's C (channels per group).
        per_group: usize,
    },
    /// A group count of 0.
    NoGroups,
    /// The filter's output channels K are not a multiple of the group count.
    OutputChannels {
        /// The filter's K.
        k: usize,
        /// The group count G.
        groups: usize,
    },
    /// A stride or a dilation of 0.
    ZeroStep {
        /// The spatial dimension, in the input's letters.
        dim: DimName,
        /// `"stride"` or `"dilation"`.
        what: &'static str,
    },
    /// The dilated filter is larger than the padded input: no output position.
    Window {
        /// The spatial dimension, in the input's letters.
        dim: DimName,
        /// The input's size there plus the padding on both sides.
        padded: usize,
        /// The filter's size there, dilated: `dilation · (size − 1) + 1`.
        extent: usize,
    },
    /// cuDNN's INT8x32 reorder interleaves channels in groups of 32: a count that is not a
    /// multiple of 32.
    ReorderChannels {
        /// Which count (`"output channels K"`, `"input channels C"`, bias values).
        what: &'static str,
        /// The count given.
        count: usize,
    },
    /// A parameter above what cuDNN's C `int` holds.
    Limit {
        /// The spatial dimension it is for (none for the group count).
        dim: Option<DimName>,
        /// `"padding"`, `"stride"`, `"dilation"` or `"group count"`.
        what: &'static str,
        /// The value given.
        value: usize,
    },
    /// A parameter given for a number of spatial dims the convolution does not have.
    SpatialCount {
        /// How many were given.
        given: usize,
        /// The convolution's spatial dims.
        spatial: usize,
    },
}

impl fmt::Display for ConvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvError::Groups { input, groups, per_group } => write!(
                f,
                "the input has C = {input} channels but G × (C/G) = {groups} × {per_group} = {}: {}",
                groups * per_group,
                self.rule()
            ),
            ConvError::NoGroups => f.write_str(self.rule()),
            ConvError::OutputChannels { k, groups } => {
                write!(f, "the filter's K = {k} is not a multiple of G = {groups}: {}", self.rule())
            }
            ConvError::ZeroStep { dim, what } => write!(f, "{dim} has {what} 0: {}", self.rule()),
            ConvError::Window { dim, padded, extent } => write!(
                f,
                "along {dim} the padded input is {padded} wide and the dilated filter {extent}: {}",
                self.rule()
            ),
            ConvError::Limit { dim: Some(dim), what, value } => {
                write!(f, "{dim} has {what} {value}: {}", self.rule())
            }
            ConvError::Limit { dim: None, what, value } => write!(f, "{what} {value}: {}", self.rule()),
            ConvError::ReorderChannels { what, count } => {
                write!(f, "{count} {what}: {}", self.rule())
            }
            ConvError::SpatialCount { given, spatial } => {
                write!(f, "{given} values given for {spatial} spatial dims: {}", self.rule())
            }
        }
    }
}

impl std::error::Error for ConvError {}

impl ConvError {
    /// The rule this error enforces.
    pub const fn rule(&self) -> &'static str {
        match self {
            ConvError::Groups { .. } => {
                "a convolution of G groups reads C = G × (C/G) input channels, where C/G is the filter's C"
            }
            ConvError::NoGroups => "a convolution has at least one group",
            ConvError::OutputChannels { .. } => {
                "each of the G groups writes K/G output channels: K is a multiple of G"
            }
            ConvError::ZeroStep { .. } => "strides and dilations are at least 1",
            ConvError::Window { .. } => {
                "the dilated filter fits in the padded input (at least one output position)"
            }
            ConvError::Limit { .. } => "cuDNN's convolution parameters are C ints: at most 2^31 − 1",
            ConvError::ReorderChannels { .. } => {
                "cuDNN's INT8x32 filter and bias reorder takes K and C multiples of 32"
            }
            ConvError::SpatialCount { .. } => "padding, stride and dilation have one value per spatial dim",
        }
    }
}
