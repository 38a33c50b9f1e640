//! The layouts the guide names, as zero-sized types, and as a runtime value ([`NamedLayout`]).

use core::fmt::Debug;
use core::marker::PhantomData;

use super::filter::{Kcdrs, Kcrs, Kdrsc, Krsc};
use super::{Layout, PerDimStrides};
use crate::family::{Family, Filter, Image, Matmul, Volume, VolumeFilter};
use crate::notation::Format;

named_layout! {
    /// NCHW: images stored channel by channel; each channel's H×W plane row-major, then the
    /// next channel, then the next image. Strides `[C·H·W, H·W, W, 1]`.
    ///
    /// ```
    /// use typed_layout::{Nchw, Shape};
    /// assert_eq!(Shape::<Nchw>::new([1, 64, 5, 4])?.strides(), [1280, 20, 4, 1]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Nchw: Image = "NCHW"
}
named_layout! {
    /// NHWC ("channels last"): all C channels of a pixel together, pixels row-major, then the
    /// next image. Strides `[H·W·C, 1, W·C, C]`.
    ///
    /// ```
    /// use typed_layout::{Nhwc, Shape};
    /// assert_eq!(Shape::<Nhwc>::new([1, 64, 5, 4])?.strides(), [1280, 1, 256, 64]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Nhwc: Image = "NHWC"
}
named_layout! {
    /// CHWN: the batch is innermost; all N images of one (c, h, w) position together.
    /// Strides `[1, H·W·N, W·N, N]`.
    ///
    /// ```
    /// use typed_layout::{Chwn, Shape};
    /// assert_eq!(Shape::<Chwn>::new([2, 3, 4, 5])?.strides(), [1, 40, 10, 2]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Chwn: Image = "CHWN"
}
named_layout! {
    /// NCDHW: volumes stored channel by channel, each D×H×W block row-major.
    /// Strides `[C·D·H·W, D·H·W, H·W, W, 1]`.
    ///
    /// ```
    /// use typed_layout::{Ncdhw, Shape};
    /// assert_eq!(Shape::<Ncdhw>::new([1, 2, 3, 4, 5])?.strides(), [120, 60, 20, 5, 1]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Ncdhw: Volume = "NCDHW"
}
named_layout! {
    /// NDHWC: volumes channels-last. Strides `[D·H·W·C, 1, H·W·C, W·C, C]`.
    ///
    /// ```
    /// use typed_layout::{Ndhwc, Shape};
    /// assert_eq!(Shape::<Ndhwc>::new([1, 2, 3, 4, 5])?.strides(), [120, 1, 40, 10, 2]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Ndhwc: Volume = "NDHWC"
}
named_layout! {
    /// CDHWN: volumes with the batch innermost. Strides `[1, D·H·W·N, H·W·N, W·N, N]`.
    ///
    /// ```
    /// use typed_layout::{Cdhwn, Shape};
    /// assert_eq!(Shape::<Cdhwn>::new([2, 3, 4, 5, 6])?.strides(), [1, 240, 60, 12, 2]);
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    Cdhwn: Volume = "CDHWN"
}

/// NC/xHWx: C is split into groups of `X` channels; each group is stored like NHWC (the `X`
/// channels of a pixel together), then the next group. `NcxHwx<4>` and `NcxHwx<32>` are cuDNN's
/// `CUDNN_TENSOR_NCHW_VECT_C` with INT8x4 and INT8x32 data.
///
/// Physical axes, outermost first: `N, C/X, H, W, X`. With `X = 1` it is NCHW; with `X = C`,
/// NHWC. C must be a multiple of `X` ([`LayoutError::NotMultipleOfVector`](crate::LayoutError::NotMultipleOfVector) otherwise), and
/// `X = 0` is rejected when the layout is used (see [`Layout`]'s "Compile-time errors").
///
/// ```
/// use typed_layout::{Layout, NcxHwx, Shape};
/// let s = Shape::<NcxHwx<32>>::new([1, 64, 5, 4])?;
/// // The second group of 32 channels starts at element 640, as in the guide.
/// assert_eq!(s.offset([0, 32, 0, 0])?, 640);
/// assert_eq!(NcxHwx::<4>::NOTATION, "NC/4HW4");
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NcxHwx<const X: usize>;

impl<const X: usize> Layout for NcxHwx<X> {
    type Family = Image;
    const FORMAT: Format = match Format::parse_const("NCHW", Image::LETTERS).with_vector(1, X) {
        Ok(f) => f,
        Err(e) => panic!("{}", e.message()),
    };
}

mod sealed {
    pub trait Sealed {}
}

/// Row- or column-major order of the matrices in a [`Bmn`] layout.
///
/// ```
/// use typed_layout::{Bmn, ColMajor, Layout, MatrixOrder, RowMajor};
/// fn notation<O: MatrixOrder>() -> &'static str { <Bmn<O> as Layout>::NOTATION }
/// assert_eq!((notation::<RowMajor>(), notation::<ColMajor>()), ("BMN", "BNM"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a matrix order",
    label = "expected `RowMajor` or `ColMajor`",
    note = "the guide's matmul layouts are packed row-major `Bmn<RowMajor>` and column-major `Bmn<ColMajor>`"
)]
pub trait MatrixOrder: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The format of `Bmn<Self>`.
    const SPEC: &'static str;
}

/// Packed row-major matrices: dims `[B, M, N]`, strides `[M·N, N, 1]`.
///
/// ```
/// use typed_layout::{Bmn, RowMajor, Shape};
/// assert_eq!(Shape::<Bmn<RowMajor>>::new([2, 3, 4])?.strides(), [12, 4, 1]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RowMajor;
/// Packed column-major matrices: dims `[B, M, N]`, strides `[M·N, 1, M]`.
///
/// ```
/// use typed_layout::{Bmn, ColMajor, Shape};
/// assert_eq!(Shape::<Bmn<ColMajor>>::new([2, 3, 4])?.strides(), [12, 1, 3]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ColMajor;
impl sealed::Sealed for RowMajor {}
impl sealed::Sealed for ColMajor {}
impl MatrixOrder for RowMajor {
    const SPEC: &'static str = "BMN";
}
impl MatrixOrder for ColMajor {
    const SPEC: &'static str = "BNM";
}

/// Batched matrices for matmul, packed row-major (`Bmn<RowMajor>`) or column-major
/// (`Bmn<ColMajor>`). Dims are always `[b, m, n]`.
///
/// ```
/// use typed_layout::{Bmn, ColMajor, RowMajor, Shape};
/// assert_eq!(Shape::<Bmn<RowMajor>>::new([2, 3, 4])?.strides(), [12, 4, 1]);
/// assert_eq!(Shape::<Bmn<ColMajor>>::new([2, 3, 4])?.strides(), [12, 1, 3]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bmn<O: MatrixOrder>(PhantomData<O>);

impl<O: MatrixOrder> Layout for Bmn<O> {
    type Family = Matmul;
    const FORMAT: Format = Format::parse_const(O::SPEC, Matmul::LETTERS);
}

impl<O: MatrixOrder> PerDimStrides for Bmn<O> {}

/// The named layouts as a runtime value, for asking which of them a descriptor matches.
///
/// NC/xHWx and KC/xRSx are absent: their C is split in two axes, which plain per-dimension
/// strides cannot express. A filter layout matches only a descriptor named with a filter
/// family's letters ([`TensorDesc::with_letters`](crate::TensorDesc::with_letters)`("KCRS")`).
///
/// ```
/// use typed_layout::{DataType, NamedLayout, TensorDesc};
/// let d = TensorDesc::new(DataType::Half, &[8, 64, 5, 4], &[1280, 1, 256, 64])?;
/// assert!(d.matches(NamedLayout::Nhwc));
/// assert_eq!(d.named_layouts(), [NamedLayout::Nhwc]);
/// assert_eq!(NamedLayout::Nhwc.notation(), "NHWC");
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NamedLayout {
    /// [`Nchw`]
    Nchw,
    /// [`Nhwc`]
    Nhwc,
    /// [`Chwn`]
    Chwn,
    /// [`Ncdhw`]
    Ncdhw,
    /// [`Ndhwc`]
    Ndhwc,
    /// [`Cdhwn`]
    Cdhwn,
    /// [`Bmn<RowMajor>`]
    BmnRowMajor,
    /// [`Bmn<ColMajor>`]
    BmnColMajor,
    /// [`Kcrs`]
    Kcrs,
    /// [`Krsc`]
    Krsc,
    /// [`Kcdrs`]
    Kcdrs,
    /// [`Kdrsc`]
    Kdrsc,
}

impl NamedLayout {
    /// Every named layout with per-dimension strides: the guide's, then the filters'.
    pub const ALL: [NamedLayout; 12] = [
        NamedLayout::Nchw,
        NamedLayout::Nhwc,
        NamedLayout::Chwn,
        NamedLayout::Ncdhw,
        NamedLayout::Ndhwc,
        NamedLayout::Cdhwn,
        NamedLayout::BmnRowMajor,
        NamedLayout::BmnColMajor,
        NamedLayout::Kcrs,
        NamedLayout::Krsc,
        NamedLayout::Kcdrs,
        NamedLayout::Kdrsc,
    ];

    /// The layout type's format and its family's letters.
    pub const fn format(self) -> (Format, &'static str) {
        match self {
            NamedLayout::Nchw => (Nchw::FORMAT, Image::LETTERS),
            NamedLayout::Nhwc => (Nhwc::FORMAT, Image::LETTERS),
            NamedLayout::Chwn => (Chwn::FORMAT, Image::LETTERS),
            NamedLayout::Ncdhw => (Ncdhw::FORMAT, Volume::LETTERS),
            NamedLayout::Ndhwc => (Ndhwc::FORMAT, Volume::LETTERS),
            NamedLayout::Cdhwn => (Cdhwn::FORMAT, Volume::LETTERS),
            NamedLayout::BmnRowMajor => (Bmn::<RowMajor>::FORMAT, Matmul::LETTERS),
            NamedLayout::BmnColMajor => (Bmn::<ColMajor>::FORMAT, Matmul::LETTERS),
            NamedLayout::Kcrs => (Kcrs::FORMAT, Filter::LETTERS),
            NamedLayout::Krsc => (Krsc::FORMAT, Filter::LETTERS),
            NamedLayout::Kcdrs => (Kcdrs::FORMAT, VolumeFilter::LETTERS),
            NamedLayout::Kdrsc => (Kdrsc::FORMAT, VolumeFilter::LETTERS),
        }
    }

    /// cuDNN's notation of the layout.
    pub const fn notation(self) -> &'static str {
        match self {
            NamedLayout::Nchw => Nchw::NOTATION,
            NamedLayout::Nhwc => Nhwc::NOTATION,
            NamedLayout::Chwn => Chwn::NOTATION,
            NamedLayout::Ncdhw => Ncdhw::NOTATION,
            NamedLayout::Ndhwc => Ndhwc::NOTATION,
            NamedLayout::Cdhwn => Cdhwn::NOTATION,
            NamedLayout::BmnRowMajor => Bmn::<RowMajor>::NOTATION,
            NamedLayout::BmnColMajor => Bmn::<ColMajor>::NOTATION,
            NamedLayout::Kcrs => Kcrs::NOTATION,
            NamedLayout::Krsc => Krsc::NOTATION,
            NamedLayout::Kcdrs => Kcdrs::NOTATION,
            NamedLayout::Kdrsc => Kdrsc::NOTATION,
        }
    }
}
