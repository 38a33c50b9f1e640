//! The layouts of convolution filters, as cuDNN stores them: KCRS and KRSC (cuDNN's
//! `CUDNN_TENSOR_NCHW` and `CUDNN_TENSOR_NHWC` filter formats), KC/xRSx (`NCHW_VECT_C`), and
//! their 3-D forms KCDRS and KDRSC.
//!
//! A filter's dims are always `[k, c, r, s]` (`[k, c, d, r, s]` in 3-D): K output channels, C
//! input channels (per group), R × S taps. Which filter layout a convolution over which input
//! layout takes is [`conv::FilterOf`](crate::conv::FilterOf).

use super::Layout;
use crate::family::{Family, Filter, VolumeFilter};
use crate::notation::Format;

named_layout! {
    /// KCRS: each output channel's filter stored input channel by input channel, each R×S
    /// window row-major; cuDNN's `CUDNN_TENSOR_NCHW` filter format, the filter of an NCHW
    /// convolution. Strides `[C·R·S, R·S, S, 1]`.
    ///
    /// ```
    /// use typed_layout::{Kcrs, Shape};
    /// assert_eq!(Shape::<Kcrs>::new([2, 3, 3, 3])?.strides(), [27, 9, 3, 1]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Kcrs: Filter = "KCRS"
}
named_layout! {
    /// KRSC: each output channel's filter tap by tap, the C input channels of a tap together;
    /// cuDNN's `CUDNN_TENSOR_NHWC` filter format, the filter of an NHWC convolution (the one
    /// Tensor Cores want). Strides `[R·S·C, 1, S·C, C]`.
    ///
    /// ```
    /// use typed_layout::{Krsc, Shape};
    /// assert_eq!(Shape::<Krsc>::new([2, 3, 3, 3])?.strides(), [27, 1, 9, 3]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Krsc: Filter = "KRSC"
}
named_layout! {
    /// KCDRS: the filter of an NCDHW convolution (`CUDNN_TENSOR_NCHW` for 5-D filters).
    /// Strides `[C·D·R·S, D·R·S, R·S, S, 1]`.
    ///
    /// ```
    /// use typed_layout::{Kcdrs, Shape};
    /// assert_eq!(Shape::<Kcdrs>::new([2, 3, 2, 3, 3])?.strides(), [54, 18, 9, 3, 1]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Kcdrs: VolumeFilter = "KCDRS"
}
named_layout! {
    /// KDRSC: the filter of an NDHWC convolution (`CUDNN_TENSOR_NHWC` for 5-D filters), input
    /// channels innermost. Strides `[D·R·S·C, 1, R·S·C, S·C, C]`.
    ///
    /// ```
    /// use typed_layout::{Kdrsc, Shape};
    /// assert_eq!(Shape::<Kdrsc>::new([2, 3, 2, 3, 3])?.strides(), [54, 1, 27, 9, 3]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Kdrsc: VolumeFilter = "KDRSC"
}

/// KC/xRSx: the input channels in groups of `X`; each group stored like KRSC (the `X` channels
/// of a tap together), then the next group. `KcxRsx<4>` and `KcxRsx<32>` of `i8` are cuDNN's
/// `CUDNN_TENSOR_NCHW_VECT_C` filters with `CUDNN_DATA_INT8x4` and `INT8x32`: the filter of an
/// NC/xHWx convolution.
///
/// Physical axes, outermost first: `K, C/X, R, S, X`. C must be a multiple of `X`
/// ([`LayoutError::NotMultipleOfVector`](crate::LayoutError::NotMultipleOfVector) otherwise).
///
/// ```
/// use typed_layout::{KcxRsx, Layout, Shape};
/// let s = Shape::<KcxRsx<32>>::new([4, 64, 3, 3])?;
/// // Within a tap, channels 0–31 are neighbours; channel 32 starts the second group, 9 taps on.
/// assert_eq!((s.offset([0, 1, 0, 0])?, s.offset([0, 32, 0, 0])?), (1, 9 * 32));
/// assert_eq!(s.offset([1, 0, 0, 0])?, 64 * 9);
/// assert_eq!(KcxRsx::<4>::NOTATION, "KC/4RS4");
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct KcxRsx<const X: usize>;

impl<const X: usize> Layout for KcxRsx<X> {
    type Family = Filter;
    const FORMAT: Format = match Format::parse_const("KCRS", Filter::LETTERS).with_vector(1, X) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.message()),
    };
}
