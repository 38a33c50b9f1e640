//! Zero-sized layout types, their validated runtime [`Shape`], and the compile-time
//! [`StaticShape`].
//!
//! A layout is a type with no data: it names a [`Family`] (which letters, in which logical
//! order) and a [`Format`] (the letters in decreasing-stride order, possibly with C vectorized).
//! Everything else, strides included, is derived from those two by
//! [`placement::derive`](crate::placement::derive), once, in one place.
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
//! const STRIDES: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES; // at compile time
//! assert_eq!(Shape::<Nhwc>::new([1, 64, 5, 4])?.strides(), STRIDES); // the same code at run time
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use core::fmt::Debug;

use crate::family::Family;
use crate::notation::{Format, NotationBuf};

/// A named layout with per-dimension strides: the zero-sized type, its `Layout` impl from a
/// notation of `$family`, and `PerDimStrides`.
macro_rules! named_layout {
    ($(#[$doc:meta])* $name:ident : $family:ty = $spec:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::layout::Layout for $name {
            type Family = $family;
            const FORMAT: $crate::notation::Format =
                $crate::notation::Format::parse_const($spec, <$family as $crate::family::Family>::LETTERS);
        }

        impl $crate::layout::PerDimStrides for $name {}
    };
}
pub(crate) use named_layout;

mod arrangement;
mod filter;
mod named;
mod shape;
mod static_shape;
mod strides;
mod sub;
#[cfg(test)]
mod tests;

pub(crate) use arrangement::Maps;
pub use arrangement::{Arrangement, DimsOf, InLayout, Strided, StridedShape, StridesOf};
pub use filter::{Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc};
pub use named::{
    Bmn, Cdhwn, Chwn, ColMajor, MatrixOrder, NamedLayout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor,
};
pub use shape::Shape;
pub use static_shape::{
    Dims3, Dims4, Dims5, Dims6, Dims7, Dims8, FilterDims, ImageDims, MatmulDims, StaticShape, VolumeDims,
    VolumeFilterDims,
};
pub use strides::PerDimStrides;
pub use sub::{Sub, SubShape};

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
///
/// # Compile-time errors
///
/// * Giving an image layout matmul dims, or converting between families, is a type error that
///   `cargo check` reports.
/// * A [`StaticShape`] whose dims break a rule (C = 48 in NC/32HW32, a zero dim) and a layout
///   `NcxHwx<0>` fail in `const` evaluation with the rule's message. `cargo check` reports it
///   when the constant is used in a `const` or `static` item; when it is only used inside a
///   function body, the error appears at `cargo build` (post-monomorphization), not at check.
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
    /// The family's letters in logical order (`"NCHW"` for every image layout): the order of
    /// dims, strides and indices. Derived; do not override.
    ///
    /// ```
    /// use typed_layout::{Layout, Nhwc};
    /// assert_eq!(Nhwc::LETTERS, "NCHW"); // dims are n, c, h, w; NHWC is the memory order
    /// ```
    const LETTERS: &'static str = <Self::Family as Family>::LETTERS;
    /// The notation buffer behind [`Layout::NOTATION`]. Derived; do not override.
    #[doc(hidden)]
    const NOTATION_BUF: &'static NotationBuf = &Self::FORMAT.notation(Self::LETTERS);
    /// cuDNN's notation for this layout (`"NHWC"`, `"NC/32HW32"`). Derived; do not override.
    const NOTATION: &'static str = Self::NOTATION_BUF.as_str();
}
