//! A layout known only at run time: family letters and a [`Format`], parsed from cuDNN notation
//! by the same code that checks `layout!` declarations at compile time.
//!
//! ```
//! use typed_layout::{DynLayout, Layout, Nhwc};
//! let l = DynLayout::parse("NHWC")?;
//! assert_eq!(l, DynLayout::of::<Nhwc>());
//! assert_eq!(l.letters(), "NCHW");
//! assert_eq!(DynLayout::parse("NHWC, WC-packed")?.to_string(), "NHWC, WC-packed");
//! # Ok::<(), typed_layout::NotationError>(())
//! ```

use core::fmt;

use crate::error::{DimName, LayoutError};
use crate::family::BuiltinFamily;
use crate::layout::Layout;
use crate::notation::{check_family_letters, Format, NotationBuf, NotationError, MAX_RANK};
use crate::placement::{self, Part, Placement};

/// A runtime layout: which letters in which logical order (the family), and the format.
///
/// ```
/// use typed_layout::{DynLayout, NcxHwx};
/// let l = DynLayout::parse("NC/32HW32")?;
/// assert_eq!(l, DynLayout::of::<NcxHwx<32>>());
/// assert_eq!(l.shape(&[1, 64, 5, 4])?.strides(), &[1280, 640, 128, 32]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DynLayout {
    letters: [u8; MAX_RANK],
    rank: usize,
    format: Format,
}

impl DynLayout {
    /// Parses `spec` for the built-in family it is written in ([`BuiltinFamily::for_spec`]):
    /// `"NHWC"`, `"NC/32DHW32"`, `"BNM"`, `"NCHW, N-packed"`.
    ///
    /// The verdict is the `layout!` macro's for a declaration without a stated family.
    ///
    /// ```
    /// use typed_layout::{DynLayout, NotationErrorKind};
    /// let e = DynLayout::parse("NC/32HW4").unwrap_err();
    /// assert_eq!(e.kind(), NotationErrorKind::VectorSuffixMismatch);
    /// assert_eq!(e.span(), (7, 8));
    /// ```
    pub fn parse(spec: &str) -> Result<Self, NotationError> {
        Self::parse_in(spec, BuiltinFamily::for_spec(spec).letters())
    }

    /// Parses `spec` for the family whose letters, in logical order, are `letters`
    /// (`"NTCDHW"` for clips of volumes with a time axis). Errors in `letters` themselves
    /// ([`check_family_letters`](crate::check_family_letters)) point into `letters`; all others into `spec`.
    ///
    /// ```
    /// use typed_layout::DynLayout;
    /// let l = DynLayout::parse_in("NTDHWC", "NTCDHW")?;
    /// assert_eq!(l.format().order(), &[0, 1, 3, 4, 5, 2]);
    /// # Ok::<(), typed_layout::NotationError>(())
    /// ```
    pub fn parse_in(spec: &str, letters: &str) -> Result<Self, NotationError> {
        check_family_letters(letters)?;
        let format = Format::parse(spec, letters)?;
        let mut buf = [0; MAX_RANK];
        buf[..letters.len()].copy_from_slice(letters.as_bytes());
        Ok(DynLayout { letters: buf, rank: letters.len(), format })
    }

    /// The runtime value of the layout type `L`.
    pub fn of<L: Layout>() -> Self {
        let letters = L::LETTERS;
        let mut buf = [0; MAX_RANK];
        buf[..letters.len()].copy_from_slice(letters.as_bytes());
        DynLayout { letters: buf, rank: letters.len(), format: L::FORMAT }
    }

    /// The family's letters in logical order.
    pub fn letters(&self) -> &str {
        core::str::from_utf8(&self.letters[..self.rank]).unwrap_or_default()
    }

    /// The format.
    pub const fn format(&self) -> Format {
        self.format
    }

    /// Number of dimensions.
    pub const fn rank(&self) -> usize {
        self.rank
    }

    /// cuDNN's notation (`"NC/32HW32"`, `"NHWC, WC-packed"`).
    pub fn notation(&self) -> NotationBuf {
        self.format.notation(self.letters())
    }

    /// The packed storage of `dims` (logical order) in this layout.
    pub fn shape(&self, dims: &[usize]) -> Result<Placement, LayoutError> {
        placement::derive(&self.format, dims, &self.letters[..self.rank])
    }

    /// The packed storage whose physical axes, outermost first, have `extents`: what a dense
    /// array of the tensor's bytes has as its shape (`[N, H, W, C]` for NHWC, `[N, C/32, H, W,
    /// 32]` for NC/32HW32), as other libraries store and exchange it.
    ///
    /// ```
    /// use typed_layout::{DynLayout, LayoutError};
    /// let l = DynLayout::parse("NC/32HW32")?;
    /// assert_eq!(l.from_physical(&[1, 2, 5, 4, 32])?.dims(), &[1, 64, 5, 4]);
    /// let e = l.from_physical(&[1, 2, 5, 4, 16]).unwrap_err();
    /// assert!(matches!(e, LayoutError::LaneCount { found: 16, width: 32, .. }));
    /// // Four logical dims are five physical axes: N, C/32, H, W and the lanes.
    /// let e = l.from_physical(&[1, 64, 5, 4]).unwrap_err();
    /// assert_eq!(e, LayoutError::AxisCount { expected: 5, found: 4 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_physical(&self, extents: &[usize]) -> Result<Placement, LayoutError> {
        // The axes' structure depends on the format alone: learn it from the smallest valid dims
        // (every one 1, the vectorized one a single vector).
        let vector = self.format.vector();
        let width = vector.map_or(1, |v| v.width);
        let mut probe = [1usize; MAX_RANK];
        if let Some(v) = vector {
            probe[v.dim] = v.width;
        }
        let probe = self.shape(&probe[..self.rank])?;
        let axes = probe.axes();
        if axes.len() != extents.len() {
            return Err(LayoutError::AxisCount { expected: axes.len(), found: extents.len() });
        }
        let mut dims = [1usize; MAX_RANK];
        for (axis, &extent) in axes.iter().zip(extents) {
            let dim = DimName::new(axis.dim, self.letters().as_bytes());
            dims[axis.dim] = match axis.part {
                Part::Whole => extent,
                Part::Lane { .. } if extent != width => {
                    return Err(LayoutError::LaneCount { dim, found: extent, width });
                }
                // Groups times lanes.
                _ => dims[axis.dim].checked_mul(extent).ok_or(LayoutError::SizeOverflow { dim })?,
            };
        }
        self.shape(&dims[..self.rank])
    }

    /// The storage of `dims` with logical `strides`, checked against this layout's packing
    /// (see [`Shape::with_strides`](crate::Shape::with_strides)).
    pub fn shape_with_strides(&self, dims: &[usize], strides: &[usize]) -> Result<Placement, LayoutError> {
        placement::derive_strided(&self.format, dims, strides, &self.letters[..self.rank])
    }

    /// A text picture of the memory order of `dims` in this layout, in the guide's way: the
    /// tensor's elements hold 0, 1, 2, … in logical order (row-major over the family's letters,
    /// NCHW for images), and the picture lists them as memory stores them, one line per run of
    /// the innermost storage axis (of at most 16 elements), each line headed by its offset.
    ///
    /// ```
    /// use typed_layout::{DynLayout, Nhwc};
    /// let picture = DynLayout::of::<Nhwc>().picture(&[1, 3, 2, 2])?;
    /// assert_eq!(picture, "\
    /// NHWC, [N, C, H, W] = [1, 3, 2, 2]
    ///  0 |  0  4  8
    ///  3 |  1  5  9
    ///  6 |  2  6 10
    ///  9 |  3  7 11
    /// ");
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub fn picture(&self, dims: &[usize]) -> Result<String, LayoutError> {
        use core::fmt::Write;
        let packing = self.shape(dims)?;
        let len = packing.len();
        // The logical (row-major) value stored at each offset.
        let mut index = vec![0usize; dims.len()];
        let values: Vec<usize> = (0..len)
            .map(|offset| {
                packing.index_at(offset, &mut index);
                index.iter().zip(dims).fold(0, |value, (&i, &d)| value * d + i)
            })
            .collect();
        let row = packing.axes().last().map_or(1, |a| a.extent).clamp(1, 16);
        let width = (len - 1).to_string().len(); // of offsets and values alike
        let letters: Vec<String> = self.letters().chars().map(String::from).collect();
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{}, [{}] = {:?}", self.notation(), letters.join(", "), dims);
        for (k, chunk) in values.chunks(row).enumerate() {
            let _ = write!(out, "{:>width$} |", k * row);
            for v in chunk {
                let _ = write!(out, " {v:>width$}");
            }
            out.push('\n');
        }
        Ok(out)
    }
}

impl fmt::Debug for DynLayout {
    /// The notation and the family's letters: `DynLayout { notation: "NHWC", letters: "NCHW" }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynLayout")
            .field("notation", &self.notation().as_str())
            .field("letters", &self.letters())
            .finish()
    }
}

impl fmt::Display for DynLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.notation().as_str())
    }
}
