//! Zero-sized layout types, their validated runtime [`Shape`], and the compile-time
//! [`StaticShape`].
//!
//! A layout is a type with no data: it names a [`Family`] (which letters, in which logical
//! order) and a [`Format`] (the letters in decreasing-stride order, possibly with C vectorized).
//! Everything else, strides included, is derived from those two by [`plan::derive`], once, in
//! one place.
//!
//! # Compile-time errors
//!
//! * Giving an image layout matmul dims, or converting between families, is a type error that
//!   `cargo check` reports.
//! * A [`StaticShape`] whose dims break a rule (C = 48 in NC/32HW32, a zero dim) and a layout
//!   `NcxHwx<0>` fail in `const` evaluation with the rule's message. `cargo check` reports it
//!   when the constant is used in a `const` or `static` item; when it is only used inside a
//!   function body, the error appears at `cargo build` (post-monomorphization), not at check.
//!
//! ```
//! use typed_layout::{ImageDims, Nhwc, Shape, StaticShape};
//! const STRIDES: [usize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES; // at compile time
//! assert_eq!(Shape::<Nhwc>::new([1, 64, 5, 4])?.strides(), STRIDES); // the same code at run time
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use core::fmt::Debug;
use core::marker::PhantomData;

use crate::error::LayoutError;
use crate::family::{DimArray, Family, Image, Matmul, Volume};
use crate::notation::{Format, NotationBuf};
use crate::plan::{self, Packing};

/// A tensor layout as a zero-sized type.
///
/// Implemented by the named layouts ([`Nchw`], [`Nhwc`], [`NcxHwx`], [`Bmn`], …) and by types
/// that `layout!` declares. Implementors give [`Layout::Family`] and [`Layout::FORMAT`] only;
/// the provided constants derive from them and are not meant to be overridden.
///
/// ```
/// use typed_layout::{Layout, Nhwc, NcxHwx};
/// assert_eq!(Nhwc::NOTATION, "NHWC");
/// assert_eq!(NcxHwx::<32>::NOTATION, "NC/32HW32");
/// assert_eq!(core::mem::size_of::<Nhwc>(), 0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout",
    label = "not a layout",
    note = "use a named layout (Nchw, Nhwc, NcxHwx<32>, Bmn<RowMajor>, …) or declare one with `layout!`"
)]
pub trait Layout: Copy + Default + Debug + Send + Sync + 'static {
    /// The family: which letters, in which logical order.
    type Family: Family;
    /// The format: the family's letters in decreasing-stride order.
    const FORMAT: Format;
    /// The notation buffer behind [`Layout::NOTATION`]. Derived; do not override.
    #[doc(hidden)]
    const NOTATION_BUF: &'static NotationBuf = &Self::FORMAT.notation(<Self::Family as Family>::LETTERS);
    /// cuDNN's notation for this layout (`"NHWC"`, `"NC/32HW32"`). Derived; do not override.
    const NOTATION: &'static str = Self::NOTATION_BUF.as_str();
}

/// The logical dims of layout `L`: `[usize; 4]` for image layouts.
///
/// ```
/// use typed_layout::{DimsOf, Nhwc, Shape};
/// let dims: DimsOf<Nhwc> = [1, 64, 5, 4]; // [usize; 4], always n, c, h, w
/// assert_eq!(Shape::<Nhwc>::new(dims)?.dims(), dims);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub type DimsOf<L> = <<L as Layout>::Family as Family>::Dims;

macro_rules! named_layout {
    ($(#[$doc:meta])* $name:ident : $family:ty = $spec:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Layout for $name {
            type Family = $family;
            const FORMAT: Format = Format::parse_const($spec, <$family as Family>::LETTERS);
        }
    };
}

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
/// NHWC. C must be a multiple of `X` ([`LayoutError::NotMultipleOfVector`] otherwise), and
/// `X = 0` is rejected when the layout is used (see the [module docs](self)).
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

/// The named layouts as a runtime value, for asking which of them a descriptor matches.
///
/// NC/xHWx is absent: its C is split in two axes, which plain per-dimension strides cannot
/// express.
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
}

impl NamedLayout {
    /// Every named layout with per-dimension strides.
    pub const ALL: [NamedLayout; 8] = [
        NamedLayout::Nchw,
        NamedLayout::Nhwc,
        NamedLayout::Chwn,
        NamedLayout::Ncdhw,
        NamedLayout::Ndhwc,
        NamedLayout::Cdhwn,
        NamedLayout::BmnRowMajor,
        NamedLayout::BmnColMajor,
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
        }
    }
}

/// A validated shape in layout `L`: logical dims and the storage derived from them.
///
/// ```
/// use typed_layout::{Nhwc, Shape, LayoutError};
/// let s = Shape::<Nhwc>::new([1, 4, 2, 3])?; // N, C, H, W
/// assert_eq!(s.strides(), [24, 1, 12, 4]);
/// assert_eq!(s.len(), 24);
/// assert_eq!(s.offset([0, 3, 1, 2])?, 12 + 8 + 3);
/// # Ok::<(), LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape<L: Layout> {
    packing: Packing,
    layout: PhantomData<L>,
}

impl<L: Layout> Shape<L> {
    /// Validates `dims` (logical order) for layout `L`, with packed strides (no padding, also
    /// for a partially packed layout; see [`Shape::with_strides`]).
    ///
    /// Fails on a zero dim, a C that is not a multiple of NC/xHWx's x, or more than
    /// `isize::MAX` elements.
    pub fn new(dims: DimsOf<L>) -> Result<Self, LayoutError> {
        Self::from_slice(dims.as_ref())
    }

    /// A shape with the given logical strides, checked against the layout's packing.
    ///
    /// For a partially packed layout (`"NHWC, WC-packed"`, declared with `layout!`), letters
    /// outside the `-packed` suffix may be padded: their stride is at least the next dimension
    /// times the next stride. Letters in the suffix need exactly that. A fully packed layout
    /// accepts only the strides [`Shape::new`] derives.
    ///
    /// ```
    /// use typed_layout::{layout, LayoutError, Shape};
    /// layout! {
    ///     /// NHWC images whose rows (H) and images (N) may be padded.
    ///     pub struct NhwcRows = "NHWC, WC-packed";
    /// }
    /// // n, c, h, w = 2, 3, 4, 5: rows of W·C = 15 elements padded to 16.
    /// let s = Shape::<NhwcRows>::with_strides([2, 3, 4, 5], [64, 1, 16, 3])?;
    /// assert_eq!(s.len(), 64 + 3 * 16 + 4 * 3 + 2 + 1);
    /// // W is packed: its stride must be C = 3.
    /// let e = Shape::<NhwcRows>::with_strides([2, 3, 4, 5], [64, 1, 16, 4]).unwrap_err();
    /// assert!(matches!(e, LayoutError::NotPacked { required: 3, .. }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn with_strides(dims: DimsOf<L>, strides: DimsOf<L>) -> Result<Self, LayoutError> {
        let letters = <L::Family as Family>::LETTERS.as_bytes();
        let packing = plan::derive_strided(&L::FORMAT, dims.as_ref(), strides.as_ref(), letters)?;
        Ok(Shape { packing, layout: PhantomData })
    }

    /// Like [`Shape::new`] from a slice; also fails when the slice's length is not the rank.
    pub const fn from_slice(dims: &[usize]) -> Result<Self, LayoutError> {
        match plan::derive(&L::FORMAT, dims, <L::Family as Family>::LETTERS.as_bytes()) {
            Ok(packing) => Ok(Shape { packing, layout: PhantomData }),
            Err(e) => Err(e),
        }
    }

    /// Logical dims.
    pub fn dims(&self) -> DimsOf<L> {
        let d = self.packing.dims();
        DimsOf::<L>::from_fn(|i| d[i])
    }

    /// Logical strides (for NC/xHWx's C: the distance between vector groups).
    pub fn strides(&self) -> DimsOf<L> {
        let s = self.packing.strides();
        DimsOf::<L>::from_fn(|i| s[i])
    }

    /// Number of elements of storage.
    pub const fn len(&self) -> usize {
        self.packing.len()
    }

    /// Always false: every dimension is at least 1.
    pub const fn is_empty(&self) -> bool {
        self.packing.is_empty()
    }

    /// Bytes of storage for elements of `elem_size` bytes, or [`LayoutError::SizeOverflow`]
    /// naming the dimension (innermost first) at which they pass `isize::MAX`, the most one
    /// allocation can hold. Host and device allocations both ask this first.
    ///
    /// ```
    /// use typed_layout::{LayoutError, Nhwc, Shape};
    /// let s = Shape::<Nhwc>::new([2, 3, 4, 5])?;
    /// assert_eq!(s.bytes(4)?, 480);
    /// // 2^61 elements fit in isize; 2^61 eight-byte elements do not. N is the outermost letter.
    /// let big = Shape::<Nhwc>::new([1 << 58, 2, 2, 2])?;
    /// let e = big.bytes(8).unwrap_err();
    /// assert!(e.to_string().starts_with("the size or stride product overflows at dimension N"));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn bytes(&self, elem_size: usize) -> Result<usize, LayoutError> {
        let letters = <L::Family as Family>::LETTERS.as_bytes();
        let mut last = 0; // the highest offset reached by the axes so far
        for a in self.packing.axes().iter().rev() {
            let overflow = LayoutError::SizeOverflow { dim: crate::error::DimName::new(a.dim, letters) };
            last += (a.extent - 1) * a.stride; // below len, which fits in isize
            let bytes = (last + 1).checked_mul(elem_size).filter(|&b| b <= isize::MAX as usize);
            bytes.ok_or(overflow)?;
        }
        Ok(self.len() * elem_size)
    }

    /// The Tensor Core rules a tensor of `data_type` in this shape breaks (see
    /// [`crate::tensor_core`]; [`Tensor::tensor_core`](crate::Tensor::tensor_core) adds the
    /// buffer's alignment).
    pub const fn tensor_core(&self, data_type: crate::DataType) -> crate::tensor_core::TensorCoreCheck {
        let letters = <L::Family as Family>::LETTERS;
        crate::tensor_core::TensorCoreCheck::of_shape(&L::FORMAT, letters, self.packing.dims(), data_type)
    }

    /// Storage offset of a logical index.
    pub fn offset(&self, index: DimsOf<L>) -> Result<usize, LayoutError> {
        self.packing.offset(index.as_ref()).map_err(|d| LayoutError::IndexOutOfBounds {
            dim: crate::error::DimName::new(d, <L::Family as Family>::LETTERS.as_bytes()),
            index: index.as_ref()[d],
            size: self.packing.dims()[d],
        })
    }

    /// The derived storage: physical axes and strides.
    pub const fn packing(&self) -> &Packing {
        &self.packing
    }
}

/// A compile-time shape: layout `L` with dims fixed by the type `D` ([`ImageDims`],
/// [`VolumeDims`], [`MatmulDims`], or `DimsR<Family, …>` for other families).
///
/// Its constants are evaluated by the compiler with the same [`plan::derive`] that
/// [`Shape::new`] runs at run time.
///
/// ```
/// use typed_layout::{ImageDims, Nhwc, StaticShape};
/// const S: [usize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
/// assert_eq!(S, [1280, 1, 256, 64]);
/// const LEN: usize = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::LEN;
/// assert_eq!(LEN, 1280);
/// ```
///
/// An impossible shape does not compile:
///
/// ```compile_fail,E0080
/// use typed_layout::{ImageDims, NcxHwx, StaticShape};
/// // error: NC/xHWx groups C into vectors of x channels, so C must be a multiple of x
/// const S: [usize; 4] = StaticShape::<NcxHwx<32>, ImageDims<1, 48, 5, 4>>::STRIDES;
/// ```
///
/// Nor does a shape of another family:
///
/// ```compile_fail,E0599
/// use typed_layout::{MatmulDims, Nhwc, StaticShape};
/// const S: [usize; 3] = StaticShape::<Nhwc, MatmulDims<2, 3, 4>>::STRIDES;
/// ```
pub struct StaticShape<L, D>(PhantomData<(L, D)>);

macro_rules! static_dims {
    ($($name:ident [$r:literal] <$($d:ident),*>;)*) => {$(
        #[doc = concat!("Dims of a rank-", stringify!($r), " family `F` fixed at compile time, in logical order.")]
        ///
        /// The families' aliases ([`ImageDims`], [`VolumeDims`], [`MatmulDims`]) name these:
        ///
        /// ```
        /// use typed_layout::{Dims4, Image, ImageDims, Nhwc, StaticShape};
        /// assert_eq!(
        ///     StaticShape::<Nhwc, Dims4<Image, 1, 64, 5, 4>>::STRIDES,
        ///     StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES,
        /// );
        /// ```
        pub struct $name<F, $(const $d: usize),*>(PhantomData<F>);

        impl<F: Family<Dims = [usize; $r]>, L: Layout<Family = F>, $(const $d: usize),*>
            StaticShape<L, $name<F, $($d),*>>
        {
            /// The dims, in logical order.
            pub const DIMS: [usize; $r] = [$($d),*];
            /// The validated shape; a broken rule is a compile error naming it.
            pub const SHAPE: Shape<L> = match Shape::<L>::from_slice(&Self::DIMS) {
                Ok(s) => s,
                Err(e) => panic!("{}", e.rule()),
            };
            /// Logical strides, in logical order.
            pub const STRIDES: [usize; $r] = {
                let s = Self::SHAPE.packing.strides();
                let mut out = [0; $r];
                let mut i = 0;
                while i < $r {
                    out[i] = s[i];
                    i += 1;
                }
                out
            };
            /// Number of elements of storage.
            pub const LEN: usize = Self::SHAPE.packing.len();

            /// The Tensor Core rules a tensor of `data_type` in this shape breaks, as a
            /// constant (see [`crate::tensor_core`]).
            pub const fn tensor_core(data_type: crate::DataType) -> crate::tensor_core::TensorCoreCheck {
                crate::tensor_core::TensorCoreCheck::of_shape(&L::FORMAT, F::LETTERS, &Self::DIMS, data_type)
            }
        }

        impl<T: crate::Element, F: Family<Dims = [usize; $r]>, L: Layout<Family = F>, $(const $d: usize),*>
            crate::tensor_core::TensorCoreShape<T, L, $name<F, $($d),*>>
        {
            /// The shape, which qualifies for Tensor Cores; naming it when it does not is a
            /// compile error that names the first rule broken.
            pub const SHAPE: Shape<L> =
                match StaticShape::<L, $name<F, $($d),*>>::tensor_core(T::DATA_TYPE).first() {
                    None => StaticShape::<L, $name<F, $($d),*>>::SHAPE,
                    Some(rule) => panic!("{}", rule.message()),
                };
        }
    )*};
}

static_dims! {
    Dims3 [3] <D0, D1, D2>;
    Dims4 [4] <D0, D1, D2, D3>;
    Dims5 [5] <D0, D1, D2, D3, D4>;
    Dims6 [6] <D0, D1, D2, D3, D4, D5>;
    Dims7 [7] <D0, D1, D2, D3, D4, D5, D6>;
    Dims8 [8] <D0, D1, D2, D3, D4, D5, D6, D7>;
}

/// Static image dims `[n, c, h, w]`.
///
/// ```
/// use typed_layout::{ImageDims, Nchw, StaticShape};
/// type Rgb = StaticShape<Nchw, ImageDims<1, 3, 224, 224>>;
/// const LEN: usize = Rgb::LEN;
/// assert_eq!((Rgb::DIMS, LEN), ([1, 3, 224, 224], 3 * 224 * 224));
/// ```
pub type ImageDims<const N: usize, const C: usize, const H: usize, const W: usize> = Dims4<Image, N, C, H, W>;
/// Static volume dims `[n, c, d, h, w]`.
///
/// ```
/// use typed_layout::{Ndhwc, StaticShape, VolumeDims};
/// const STRIDES: [usize; 5] = StaticShape::<Ndhwc, VolumeDims<1, 8, 2, 3, 4>>::STRIDES;
/// assert_eq!(STRIDES, [192, 1, 96, 32, 8]); // n, c, d, h, w
/// ```
pub type VolumeDims<const N: usize, const C: usize, const D: usize, const H: usize, const W: usize> =
    Dims5<Volume, N, C, D, H, W>;
/// Static matmul dims `[b, m, n]`.
///
/// ```
/// use typed_layout::{Bmn, ColMajor, MatmulDims, StaticShape};
/// const STRIDES: [usize; 3] = StaticShape::<Bmn<ColMajor>, MatmulDims<2, 3, 4>>::STRIDES;
/// assert_eq!(STRIDES, [12, 1, 3]); // b, m, n: M is contiguous
/// ```
pub type MatmulDims<const B: usize, const M: usize, const N: usize> = Dims3<Matmul, B, M, N>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notations() {
        assert_eq!(Nchw::NOTATION, "NCHW");
        assert_eq!(Cdhwn::NOTATION, "CDHWN");
        assert_eq!(NcxHwx::<32>::NOTATION, "NC/32HW32");
        assert_eq!(Bmn::<ColMajor>::NOTATION, "BNM");
        for n in NamedLayout::ALL {
            let (f, letters) = n.format();
            assert_eq!(f.notation(letters).as_str(), n.notation());
        }
    }

    #[test]
    fn static_equals_runtime() {
        const S: [usize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
        assert_eq!(S, [1280, 1, 256, 64]);
        assert_eq!(S, Shape::<Nhwc>::new([1, 64, 5, 4]).unwrap().strides());
        const V: [usize; 4] = StaticShape::<NcxHwx<32>, ImageDims<2, 64, 5, 4>>::STRIDES;
        assert_eq!(V, Shape::<NcxHwx<32>>::new([2, 64, 5, 4]).unwrap().strides());
        assert_eq!(StaticShape::<Bmn<ColMajor>, MatmulDims<2, 3, 4>>::STRIDES, [12, 1, 3]);
        assert_eq!(StaticShape::<Ndhwc, VolumeDims<1, 2, 3, 4, 5>>::LEN, 120);
    }

    #[test]
    fn layouts_are_zero_sized() {
        assert_eq!(core::mem::size_of::<Nchw>(), 0);
        assert_eq!(core::mem::size_of::<NcxHwx<32>>(), 0);
        assert_eq!(core::mem::size_of::<Bmn<RowMajor>>(), 0);
    }
}
