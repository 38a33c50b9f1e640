//! Families of layouts: which letters a tensor has, in which logical order.
//!
//! The guide names three: 3-D matmul tensors (B, M, N), 4-D images (N, C, H, W) and 5-D volumes
//! (N, C, D, H, W). cuDNN adds the filters of convolutions over them: [`Filter`] (K, C, R, S)
//! and [`VolumeFilter`] (K, C, D, R, S). Dimensions are always passed in the family's logical
//! order, whatever the layout, and strides come back in that order. A layout belongs to exactly
//! one family, so an image layout cannot be given matmul dims, a filter is not an image, and
//! conversions only exist within a family.
//!
//! ```
//! use typed_layout::{Family, Filter, Image, Matmul, Volume, VolumeFilter};
//! assert_eq!((Image::LETTERS, Volume::LETTERS, Matmul::LETTERS), ("NCHW", "NCDHW", "BMN"));
//! assert_eq!((Filter::LETTERS, VolumeFilter::LETTERS), ("KCRS", "KCDRS"));
//! assert_eq!(Volume::RANK, 5);
//! ```

use core::fmt::Debug;

use crate::error::LayoutError;

mod dim_array;
mod dropped;

pub use dim_array::{DimArray, Droppable};
pub use dropped::Dropped;

/// A family of layouts: the letters of its dimensions in logical order.
///
/// Implemented by [`Image`], [`Volume`], [`Matmul`], [`Filter`] and [`VolumeFilter`]; `layout!`
/// (in the macros crate) can declare further families with letters of their own.
///
/// ```
/// use typed_layout::{Family, Image, Volume};
/// fn spatial_letters<F: Family>() -> String { F::LETTERS.chars().filter(|c| !"NC".contains(*c)).collect() }
/// assert_eq!((spatial_letters::<Image>(), spatial_letters::<Volume>()), ("HW".into(), "DHW".into()));
/// ```
pub trait Family: Copy + Default + Debug + Send + Sync + 'static {
    /// The letters in logical order (`"NCHW"` for images). Uppercase ASCII, no repeats.
    const LETTERS: &'static str;
    /// Logical dims, `[usize; RANK]`.
    type Dims: DimArray<usize>;
    /// Signed strides, `[isize; RANK]`, for strided views.
    type Strides: DimArray<isize>;
    /// Number of dimensions. Derived from [`Family::LETTERS`]; do not override.
    ///
    /// ```
    /// use typed_layout::{Family, Image, Matmul, Volume};
    /// assert_eq!((Matmul::RANK, Image::RANK, Volume::RANK), (3, 4, 5));
    /// ```
    const RANK: usize = Self::LETTERS.len();
}

/// "`Self` is the family `F`": the bound conversions put on their two sides, so converting
/// between families is a compile error that says so.
///
/// Implemented only for `F` itself.
///
/// ```compile_fail,E0277
/// use typed_layout::{convert, Bmn, Nchw, RowMajor, Tensor};
/// let a = Tensor::<f32, Nchw>::zeros([1, 2, 3, 4])?;
/// let mut b = Tensor::<f32, Bmn<RowMajor>>::zeros([2, 3, 4])?;
/// convert(&a, &mut b)?; // error: cannot convert between layout families
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot convert between layout families: the source is `{F}`, the destination `{Self}`",
    label = "the destination's family is `{Self}`, not `{F}`",
    note = "a conversion keeps the logical dims, so its source and destination are layouts of one family"
)]
pub trait SameFamily<F: Family>: Family {
    /// `dims` as this family's dims (they are the same type).
    fn same_dims(dims: F::Dims) -> Self::Dims;
}

impl<F: Family> SameFamily<F> for F {
    fn same_dims(dims: F::Dims) -> F::Dims {
        dims
    }
}

/// Batches of 2-D images: dims `[n, c, h, w]`.
///
/// ```
/// use typed_layout::{Family, StridedView, Image};
/// assert_eq!(Image::LETTERS, "NCHW");
/// // A strided view over a plain buffer is typed by its family alone.
/// let data: Vec<f32> = (0..24).map(|v| v as f32).collect();
/// let v = StridedView::<f32, Image>::new([1, 2, 3, 4], [24, 12, 4, 1], 0, &data)?;
/// assert_eq!(v.get([1, 2, 3, 4].map(|d: usize| d - 1)), Some(&23.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Image;
impl Family for Image {
    const LETTERS: &'static str = "NCHW";
    type Dims = [usize; 4];
    type Strides = [isize; 4];
}

/// Batches of 3-D images: dims `[n, c, d, h, w]`.
///
/// ```
/// use typed_layout::{Family, StridedView, Volume};
/// assert_eq!(Volume::LETTERS, "NCDHW");
/// // A strided view over a plain buffer is typed by its family alone.
/// let data: Vec<f32> = (0..24).map(|v| v as f32).collect();
/// let v = StridedView::<f32, Volume>::new([1, 2, 1, 3, 4], [24, 12, 12, 4, 1], 0, &data)?;
/// assert_eq!(v.get([1, 2, 1, 3, 4].map(|d: usize| d - 1)), Some(&23.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Volume;
impl Family for Volume {
    const LETTERS: &'static str = "NCDHW";
    type Dims = [usize; 5];
    type Strides = [isize; 5];
}

/// Batched matrices for matmul: dims `[b, m, n]` (batch, rows, columns).
///
/// ```
/// use typed_layout::{Family, StridedView, Matmul};
/// assert_eq!(Matmul::LETTERS, "BMN");
/// // A strided view over a plain buffer is typed by its family alone.
/// let data: Vec<f32> = (0..24).map(|v| v as f32).collect();
/// let v = StridedView::<f32, Matmul>::new([2, 3, 4], [12, 4, 1], 0, &data)?;
/// assert_eq!(v.get([2, 3, 4].map(|d: usize| d - 1)), Some(&23.0));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Matmul;
impl Family for Matmul {
    const LETTERS: &'static str = "BMN";
    type Dims = [usize; 3];
    type Strides = [isize; 3];
}

/// The filters of 2-D convolutions, as cuDNN describes them: dims `[k, c, r, s]` (output
/// channels, input channels, filter height, filter width). A grouped convolution's filter has
/// C/G input channels per group (see [`conv::Conv`](crate::conv::Conv)).
///
/// ```
/// use typed_layout::{Family, Filter, StridedView};
/// assert_eq!(Filter::LETTERS, "KCRS");
/// let data = [0.0f32; 2 * 3 * 3 * 3];
/// let f = StridedView::<f32, Filter>::new([2, 3, 3, 3], [27, 9, 3, 1], 0, &data)?;
/// assert_eq!(f.dims(), [2, 3, 3, 3]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Filter;
impl Family for Filter {
    const LETTERS: &'static str = "KCRS";
    type Dims = [usize; 4];
    type Strides = [isize; 4];
}

/// The filters of 3-D convolutions: dims `[k, c, d, r, s]` (output channels, input channels,
/// filter depth, height, width).
///
/// ```
/// use typed_layout::{Family, VolumeFilter};
/// assert_eq!((VolumeFilter::LETTERS, VolumeFilter::RANK), ("KCDRS", 5));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct VolumeFilter;
impl Family for VolumeFilter {
    const LETTERS: &'static str = "KCDRS";
    type Dims = [usize; 5];
    type Strides = [isize; 5];
}

mod sealed {
    pub trait Sealed {}
}
impl sealed::Sealed for Image {}
impl sealed::Sealed for Volume {}
impl sealed::Sealed for Filter {}
impl sealed::Sealed for VolumeFilter {}

/// A family cuDNN convolves ([`Image`], [`Volume`]), and the family of its filters.
///
/// ```
/// use typed_layout::{ConvInput, Family, Image};
/// assert_eq!(<<Image as ConvInput>::Filter as Family>::LETTERS, "KCRS");
/// ```
pub trait ConvInput: Family + sealed::Sealed {
    /// The filters of a convolution over this family.
    type Filter: ConvFilter;
    /// The letters of the spatial dims, in logical order (`"HW"`).
    const SPATIAL: &'static str;
}

/// A family of convolution filters ([`Filter`], [`VolumeFilter`]), and the family it convolves.
///
/// ```
/// use typed_layout::{ConvFilter, Family, VolumeFilter};
/// assert_eq!(<<VolumeFilter as ConvFilter>::Input as Family>::LETTERS, "NCDHW");
/// ```
pub trait ConvFilter: Family + sealed::Sealed {
    /// The family a convolution with these filters reads.
    type Input: ConvInput;
    /// The letters of the filter's spatial dims, in logical order (`"RS"`).
    const SPATIAL: &'static str;
}

impl ConvInput for Image {
    type Filter = Filter;
    const SPATIAL: &'static str = "HW";
}
impl ConvInput for Volume {
    type Filter = VolumeFilter;
    const SPATIAL: &'static str = "DHW";
}
impl ConvFilter for Filter {
    type Input = Image;
    const SPATIAL: &'static str = "RS";
}
impl ConvFilter for VolumeFilter {
    type Input = Volume;
    const SPATIAL: &'static str = "DRS";
}

/// The families typed-layout names, as a runtime value.
///
/// ```
/// use typed_layout::BuiltinFamily;
/// assert_eq!(BuiltinFamily::Volume.letters(), "NCDHW");
/// assert_eq!(BuiltinFamily::for_spec("NDHWC").name(), "Volume");
/// assert_eq!(BuiltinFamily::for_spec("KRSC").name(), "Filter");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BuiltinFamily {
    /// [`Matmul`]: `BMN`.
    Matmul,
    /// [`Image`]: `NCHW`.
    Image,
    /// [`Filter`]: `KCRS`.
    Filter,
    /// [`Volume`]: `NCDHW`.
    Volume,
    /// [`VolumeFilter`]: `KCDRS`.
    VolumeFilter,
}

impl BuiltinFamily {
    /// All five, by rank (images before their filters).
    pub const ALL: [BuiltinFamily; 5] = [
        BuiltinFamily::Matmul,
        BuiltinFamily::Image,
        BuiltinFamily::Filter,
        BuiltinFamily::Volume,
        BuiltinFamily::VolumeFilter,
    ];

    /// The family's letters in logical order.
    pub const fn letters(self) -> &'static str {
        match self {
            BuiltinFamily::Matmul => Matmul::LETTERS,
            BuiltinFamily::Image => Image::LETTERS,
            BuiltinFamily::Filter => Filter::LETTERS,
            BuiltinFamily::Volume => Volume::LETTERS,
            BuiltinFamily::VolumeFilter => VolumeFilter::LETTERS,
        }
    }

    /// The built-in family whose letters (in logical order) are exactly `letters`, if any:
    /// what tells a filter from an image at run time.
    ///
    /// ```
    /// use typed_layout::BuiltinFamily;
    /// assert_eq!(BuiltinFamily::of_letters("KCRS"), Some(BuiltinFamily::Filter));
    /// assert_eq!(BuiltinFamily::of_letters("NTCDHW"), None);
    /// ```
    pub const fn of_letters(letters: &str) -> Option<BuiltinFamily> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if same_bytes(Self::ALL[i].letters().as_bytes(), letters.as_bytes()) {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// The family a descriptor of rank `rank` has by default: `BMN`, `NCHW`, `NCDHW`, or none
    /// above rank 5 (the guide names no letters there). A descriptor is a tensor's, so a filter
    /// family is never the default.
    ///
    /// ```
    /// use typed_layout::BuiltinFamily;
    /// assert_eq!(BuiltinFamily::of_rank(4), Some(BuiltinFamily::Image));
    /// assert_eq!(BuiltinFamily::of_rank(6), None);
    /// ```
    pub const fn of_rank(rank: usize) -> Option<BuiltinFamily> {
        match rank {
            3 => Some(BuiltinFamily::Matmul),
            4 => Some(BuiltinFamily::Image),
            5 => Some(BuiltinFamily::Volume),
            _ => None,
        }
    }

    /// The type's name (`"Image"`).
    pub const fn name(self) -> &'static str {
        match self {
            BuiltinFamily::Matmul => "Matmul",
            BuiltinFamily::Image => "Image",
            BuiltinFamily::Filter => "Filter",
            BuiltinFamily::Volume => "Volume",
            BuiltinFamily::VolumeFilter => "VolumeFilter",
        }
    }

    /// The built-in family a notation is written for: the one sharing the most letters with the
    /// spec's format part, and among those the one whose rank is closest to the number of
    /// letters. `"NHWC"` is an image layout; `"NCHX"` too (so the error names `X`), `"NTHWC"`
    /// a volume layout (so the error names `T`), and `"KRSC"` a filter layout.
    ///
    /// ```
    /// use typed_layout::BuiltinFamily;
    /// assert_eq!(BuiltinFamily::for_spec("NC/32DHW32"), BuiltinFamily::Volume);
    /// assert_eq!(BuiltinFamily::for_spec("BNM"), BuiltinFamily::Matmul);
    /// assert_eq!(BuiltinFamily::for_spec("NHWC, WC-packed"), BuiltinFamily::Image);
    /// assert_eq!(BuiltinFamily::for_spec("KC/32RS32"), BuiltinFamily::Filter);
    /// assert_eq!(BuiltinFamily::for_spec("KDRSC"), BuiltinFamily::VolumeFilter);
    /// ```
    pub fn for_spec(spec: &str) -> BuiltinFamily {
        let format = spec.split(',').next().unwrap_or("");
        let letters: Vec<u8> = format.bytes().filter(u8::is_ascii_alphabetic).collect();
        let score = |f: BuiltinFamily| {
            let shared = f.letters().bytes().filter(|b| letters.contains(&b.to_ascii_uppercase())).count()
                + f.letters().bytes().filter(|b| letters.contains(&b.to_ascii_lowercase())).count();
            (shared, core::cmp::Reverse(f.letters().len().abs_diff(letters.len())))
        };
        let mut best = BuiltinFamily::Image;
        for f in BuiltinFamily::ALL {
            if score(f) > score(best) {
                best = f;
            }
        }
        best
    }
}

/// Are `a` and `b` the same bytes? (`const`.)
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A logical axis, named by its index or its letter (`2` or `'H'` in an image).
pub trait IntoAxis: Copy {
    /// The axis's index in the family `F`'s logical order.
    fn index_in<F: Family>(self) -> Result<usize, LayoutError>;
}

impl IntoAxis for usize {
    fn index_in<F: Family>(self) -> Result<usize, LayoutError> {
        match self < F::RANK {
            true => Ok(self),
            false => Err(LayoutError::NoSuchAxis { index: self, rank: F::RANK }),
        }
    }
}

impl IntoAxis for char {
    fn index_in<F: Family>(self) -> Result<usize, LayoutError> {
        F::LETTERS.find(self).ok_or(LayoutError::NoSuchLetter { letter: self, letters: F::LETTERS })
    }
}
