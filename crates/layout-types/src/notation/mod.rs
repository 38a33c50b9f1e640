//! cuDNN's layout notation (`"NHWC"`, `"NC/32HW32"`) as a typed value, with one `const` parser.
//!
//! A [`Format`] lists a family's letters in decreasing-stride order (the guide's WXYZ order) and,
//! for NC/xHWx, which letter is grouped into vectors of `x`. The parser is a `const fn`, so the
//! named layouts are *defined* by parsing their notation at compile time, and runtime callers
//! (descriptors, user input) get the very same verdicts as error values.
//!
//! Grammar (the `layout!` macro and [`DynLayout`](crate::DynLayout) parse exactly this):
//!
//! ```text
//! notation := format [ ',' ' '* packed '-packed' ]   NHWC, WC-packed
//! format   := letter+                                 NHWC, CHWN, NCDHW, BMN
//!           | letter* C '/' x letter* x               NC/32HW32, NC/4HW4, NC/32DHW32
//! packed   := letter+                                 letters of the format, in its order
//! letter   := one of the family's uppercase letters, each exactly once
//! x        := decimal integer >= 1, the same number both times
//! ```
//!
//! Without a packing clause a format is fully packed. With one, the guide's three rules of a
//! partially packed tensor apply (see the crate's `predicates`): letters in the clause have
//! exactly the packed stride, the others may be padded (`stride >= next_dim * next_stride`).
//!
//! ```
//! use typed_layout::{Format, Image, Family};
//! let f = Format::parse("NC/32HW32", Image::LETTERS).unwrap();
//! assert_eq!(f.vector().map(|v| v.width), Some(32));
//! assert_eq!(f.notation(Image::LETTERS).as_str(), "NC/32HW32");
//!
//! let err = Format::parse("NC/32HW4", Image::LETTERS).unwrap_err();
//! assert_eq!(err.position(), 7);
//! ```

mod buf;
mod error;
mod letters;
#[cfg(test)]
mod tests;

pub use buf::NotationBuf;
pub use error::{NotationError, NotationErrorKind};
pub use letters::{check_family_letters, MAX_RANK, MIN_RANK};

/// A vectorized dimension: the logical dimension `dim` is split into groups of `width`.
///
/// ```
/// use typed_layout::{Format, Vector};
/// let f = Format::parse("NC/32HW32", "NCHW")?;
/// assert_eq!(f.vector(), Some(Vector { dim: 1, width: 32 }));
/// # Ok::<(), typed_layout::NotationError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vector {
    /// Logical index of the vectorized dimension (C is 1 in images and volumes).
    pub dim: usize,
    /// The vector width x.
    pub width: usize,
}

/// A parsed format: a family's letters in decreasing-stride order, optionally with C vectorized.
///
/// Grammar (the `layout!` macro and [`DynLayout`](crate::DynLayout) parse exactly this):
///
/// ```text
/// notation := format [ ',' ' '* packed '-packed' ]   NHWC, WC-packed
/// format   := letter+                                 NHWC, CHWN, NCDHW, BMN
///           | letter* C '/' x letter* x               NC/32HW32, NC/4HW4, NC/32DHW32
/// packed   := letter+                                 letters of the format, in its order
/// letter   := one of the family's uppercase letters, each exactly once
/// x        := decimal integer >= 1, the same number both times
/// ```
///
/// Without a packing clause a format is fully packed. With one, the guide's three rules of a
/// partially packed tensor apply (see [`predicates`](crate::predicates)): letters in the clause have
/// exactly the packed stride, the others may be padded (`stride >= next_dim * next_stride`).
///
///
/// Only legal formats can be built: every constructor validates, so holding a `Format` means the
/// letters are a permutation of the family's and any vector width is at least 1.
///
/// ```
/// use typed_layout::Format;
/// let f = Format::parse("NHWC", "NCHW")?;
/// assert_eq!(f.order(), &[0, 2, 3, 1]); // N, H, W, C as logical indices
/// assert!(f.is_fully_packed());
/// assert_eq!(f.with_packed("WC", "NCHW")?.notation("NCHW").as_str(), "NHWC, WC-packed");
/// # Ok::<(), typed_layout::NotationError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    rank: usize,
    order: [usize; MAX_RANK],
    vector: Option<Vector>,
    /// Per logical dimension: in the `-packed` suffix. All `rank` entries for a fully packed
    /// format, none past `rank`, so equal formats compare equal.
    packed: [bool; MAX_RANK],
}

/// The word that ends a packing clause (`"NHWC, WC-packed"`).
const PACKED_SUFFIX: &str = "-packed";

/// The first position of `b` in `s` at or after `from`.
pub(crate) const fn find_byte(s: &[u8], from: usize, b: u8) -> Option<usize> {
    let mut i = from;
    while i < s.len() {
        if s[i] == b {
            return Some(i);
        }
        i += 1;
    }
    None
}

const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
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

/// Reads a decimal number at `i`, before `end`; returns (value, end of number) or an overflow
/// error.
const fn read_number(s: &[u8], mut i: usize, end: usize) -> Result<(usize, usize), NotationError> {
    let start = i;
    let mut v: usize = 0;
    while i < end && s[i].is_ascii_digit() {
        v = match v.checked_mul(10) {
            Some(x) => match x.checked_add((s[i] - b'0') as usize) {
                Some(y) => y,
                None => return Err(NotationError::new(NotationErrorKind::VectorWidthOverflow, start, i + 1)),
            },
            None => return Err(NotationError::new(NotationErrorKind::VectorWidthOverflow, start, i + 1)),
        };
        i += 1;
    }
    Ok((v, i))
}

impl Format {
    /// Parses `spec` as a format of the family whose logical letters are `letters`.
    ///
    /// `spec` is a format (`"NC/32HW32"`), optionally followed by a packing clause
    /// (`"NHWC, WC-packed"`); see [`Format`] for the grammar.
    ///
    /// ```
    /// use typed_layout::{Format, NotationErrorKind, Volume, Family};
    /// assert!(Format::parse("NDHWC", Volume::LETTERS).is_ok());
    /// let e = Format::parse("NDHWc", Volume::LETTERS).unwrap_err();
    /// assert_eq!(e.kind(), NotationErrorKind::LowercaseLetter);
    /// let rows = Format::parse("NDHWC, HWC-packed", Volume::LETTERS)?;
    /// assert!(!rows.is_fully_packed());
    /// # Ok::<(), typed_layout::NotationError>(())
    /// ```
    pub const fn parse(spec: &str, letters: &str) -> Result<Format, NotationError> {
        let s = spec.as_bytes();
        let fam = letters.as_bytes();
        if check_family_letters(letters).is_err() {
            return Err(NotationError::new(NotationErrorKind::FamilyLetters, 0, s.len()));
        }
        let comma = match find_byte(s, 0, b',') {
            Some(i) => i,
            None => s.len(),
        };
        let format = match Self::parse_format(s, comma, fam) {
            Ok(f) => f,
            Err(e) => return Err(e),
        };
        if comma == s.len() {
            return Ok(format);
        }
        let mut start = comma + 1;
        while start < s.len() && s[start] == b' ' {
            start += 1;
        }
        let dash = match find_byte(s, start, b'-') {
            Some(d) => d,
            None => return Err(NotationError::new(NotationErrorKind::PackedSuffixMissing, s.len(), s.len())),
        };
        if !bytes_eq(s.split_at(dash).1, PACKED_SUFFIX.as_bytes()) {
            return Err(NotationError::new(NotationErrorKind::PackedSuffixMissing, dash, s.len()));
        }
        format.apply_packed(s, start, dash, fam)
    }

    /// The format part of `s[..end]`: letters and an optional vectorized C.
    const fn parse_format(s: &[u8], end: usize, fam: &[u8]) -> Result<Format, NotationError> {
        use NotationErrorKind as K;
        if end == 0 {
            return Err(NotationError::new(K::Empty, 0, 0));
        }
        let mut order = [0usize; MAX_RANK];
        let mut seen = [false; MAX_RANK];
        let mut rank = 0usize;
        let mut vector: Option<Vector> = None;
        let mut i = 0;
        while i < end {
            let b = s[i];
            if b.is_ascii_uppercase() {
                let dim = match find_byte(fam, 0, b) {
                    Some(d) => d,
                    None => return Err(NotationError::new(K::UnknownLetter, i, i + 1)),
                };
                if dim >= MAX_RANK || seen[dim] {
                    return Err(NotationError::new(K::RepeatedLetter, i, i + 1));
                }
                if rank == MAX_RANK {
                    return Err(NotationError::new(K::RankOutOfRange, i, i + 1));
                }
                seen[dim] = true;
                order[rank] = dim;
                rank += 1;
                i += 1;
            } else if b.is_ascii_lowercase() {
                return Err(NotationError::new(K::LowercaseLetter, i, i + 1));
            } else if b == b'/' {
                if i == 0 || !s[i - 1].is_ascii_uppercase() {
                    return Err(NotationError::new(K::SlashWithoutLetter, i, i + 1));
                }
                if vector.is_some() {
                    return Err(NotationError::new(K::SecondVector, i, i + 1));
                }
                let grouped = order[rank - 1];
                if s[i - 1] != b'C' {
                    return Err(NotationError::new(K::GroupedNotChannel, i - 1, i));
                }
                let (width, number_end) = match read_number(s, i + 1, end) {
                    Ok(r) => r,
                    Err(e) => return Err(e),
                };
                if number_end == i + 1 {
                    return Err(NotationError::new(K::VectorWidthMissing, i, i + 1));
                }
                if width == 0 {
                    return Err(NotationError::new(K::VectorWidthZero, i + 1, number_end));
                }
                vector = Some(Vector { dim: grouped, width });
                i = number_end;
            } else if b.is_ascii_digit() {
                let (value, number_end) = match read_number(s, i, end) {
                    Ok(r) => r,
                    Err(e) => return Err(e),
                };
                match vector {
                    None => return Err(NotationError::new(K::UnexpectedNumber, i, number_end)),
                    Some(v) => {
                        if value != v.width {
                            return Err(NotationError::new(K::VectorSuffixMismatch, i, number_end));
                        }
                        if number_end != end {
                            return Err(NotationError::new(K::TrailingCharacters, number_end, end));
                        }
                        return Self::finish(order, rank, seen, fam.len(), Some(v), end);
                    }
                }
            } else {
                return Err(NotationError::new(K::UnexpectedChar, i, i + 1));
            }
        }
        if vector.is_some() {
            return Err(NotationError::new(K::VectorSuffixMissing, end, end));
        }
        Self::finish(order, rank, seen, fam.len(), None, end)
    }

    const fn finish(
        order: [usize; MAX_RANK],
        rank: usize,
        seen: [bool; MAX_RANK],
        family_rank: usize,
        vector: Option<Vector>,
        end: usize,
    ) -> Result<Format, NotationError> {
        if family_rank < MIN_RANK || family_rank > MAX_RANK {
            return Err(NotationError::new(NotationErrorKind::RankOutOfRange, 0, end));
        }
        let mut d = 0;
        while d < family_rank {
            if !seen[d] {
                return Err(NotationError::new(NotationErrorKind::MissingLetter, end, end));
            }
            d += 1;
        }
        let mut packed = [false; MAX_RANK];
        let mut d = 0;
        while d < rank {
            packed[d] = true;
            d += 1;
        }
        Ok(Format { rank, order, vector, packed })
    }

    /// This format, partially packed in the letters of `s[start..end]` (positions in errors are
    /// byte offsets into `s`).
    const fn apply_packed(
        self,
        s: &[u8],
        start: usize,
        end: usize,
        fam: &[u8],
    ) -> Result<Format, NotationError> {
        use NotationErrorKind as K;
        if start == end {
            return Err(NotationError::new(K::PackedEmpty, start, end));
        }
        let mut packed = [false; MAX_RANK];
        let mut last: Option<usize> = None;
        let mut i = start;
        while i < end {
            let b = s[i];
            if b.is_ascii_lowercase() {
                return Err(NotationError::new(K::LowercaseLetter, i, i + 1));
            }
            if !b.is_ascii_uppercase() {
                return Err(NotationError::new(K::UnexpectedChar, i, i + 1));
            }
            let position = match find_byte(fam, 0, b) {
                Some(dim) => self.position_of(dim),
                None => None,
            };
            let (dim, position) = match position {
                Some(p) => (self.order[p], p),
                None => return Err(NotationError::new(K::PackedLetterNotInFormat, i, i + 1)),
            };
            if packed[dim] {
                return Err(NotationError::new(K::PackedRepeated, i, i + 1));
            }
            if let Some(l) = last {
                if position < l {
                    return Err(NotationError::new(K::PackedOutOfOrder, i, i + 1));
                }
            }
            packed[dim] = true;
            last = Some(position);
            i += 1;
        }
        Ok(Format { packed, ..self })
    }

    /// This format, partially packed in the letters of `packed` (`"WC"`): the guide's
    /// `-packed` suffix. Listing every letter gives the fully packed format back.
    ///
    /// ```
    /// use typed_layout::{Format, Image, Family, NotationErrorKind};
    /// let nhwc = Format::parse("NHWC", Image::LETTERS)?;
    /// assert_eq!(nhwc.with_packed("WC", Image::LETTERS)?, Format::parse("NHWC, WC-packed", Image::LETTERS)?);
    /// assert_eq!(nhwc.with_packed("NHWC", Image::LETTERS)?, nhwc);
    /// let e = nhwc.with_packed("CW", Image::LETTERS).unwrap_err();
    /// assert_eq!(e.kind(), NotationErrorKind::PackedOutOfOrder);
    /// # Ok::<(), typed_layout::NotationError>(())
    /// ```
    pub const fn with_packed(self, packed: &str, letters: &str) -> Result<Format, NotationError> {
        self.apply_packed(packed.as_bytes(), 0, packed.len(), letters.as_bytes())
    }

    /// Position of logical dimension `dim` in the format's order.
    const fn position_of(&self, dim: usize) -> Option<usize> {
        let mut p = 0;
        while p < self.rank {
            if self.order[p] == dim {
                return Some(p);
            }
            p += 1;
        }
        None
    }

    /// A plain format from its order (logical indices, outermost first; a permutation) and the
    /// packed flag of each logical dimension.
    pub(crate) fn from_order(order: &[usize], packed: &[bool]) -> Format {
        let rank = order.len().min(MAX_RANK);
        let mut f = Format { rank, order: [0; MAX_RANK], vector: None, packed: [false; MAX_RANK] };
        f.order[..rank].copy_from_slice(&order[..rank]);
        for d in 0..rank {
            f.packed[d] = packed.get(d).copied().unwrap_or(false);
        }
        f
    }

    /// Like [`Format::parse`], but panics with the rule's message: for `const` items, where the
    /// panic is a compile error.
    pub const fn parse_const(spec: &str, letters: &str) -> Format {
        match Format::parse(spec, letters) {
            Ok(f) => f,
            Err(e) => panic!("{}", e.message()),
        }
    }

    /// This format with logical dimension `dim` grouped into vectors of `width`, as NC/xHWx
    /// groups C. Fails for width 0, when a dimension is already vectorized, and when `dim` is the
    /// innermost letter (whose notation, `NHWC/44`, could not be read back).
    ///
    /// ```
    /// use typed_layout::{Format, NotationErrorKind};
    /// let nchw = Format::parse("NCHW", "NCHW")?;
    /// assert_eq!(nchw.with_vector(1, 32)?, Format::parse("NC/32HW32", "NCHW")?);
    /// let nhwc = Format::parse("NHWC", "NCHW")?;
    /// assert_eq!(nhwc.with_vector(1, 4).unwrap_err().kind(), NotationErrorKind::VectorInnermost);
    /// # Ok::<(), typed_layout::NotationError>(())
    /// ```
    pub const fn with_vector(self, dim: usize, width: usize) -> Result<Format, NotationError> {
        if width == 0 {
            return Err(NotationError::new(NotationErrorKind::VectorWidthZero, 0, 0));
        }
        if self.vector.is_some() {
            return Err(NotationError::new(NotationErrorKind::SecondVector, 0, 0));
        }
        if dim >= self.rank {
            return Err(NotationError::new(NotationErrorKind::UnknownLetter, 0, 0));
        }
        if self.order[self.rank - 1] == dim {
            return Err(NotationError::new(NotationErrorKind::VectorInnermost, 0, 0));
        }
        Ok(Format { vector: Some(Vector { dim, width }), ..self })
    }

    /// Number of logical dimensions.
    pub const fn rank(&self) -> usize {
        self.rank
    }

    /// Logical indices in physical order, outermost (largest stride) first.
    pub const fn order(&self) -> &[usize] {
        self.order.split_at(self.rank).0
    }

    /// The vectorized dimension, if any.
    pub const fn vector(&self) -> Option<Vector> {
        self.vector
    }

    /// Per logical dimension: is it in the `-packed` suffix (its stride exactly the packed one)?
    /// All true for a fully packed format.
    pub const fn packed(&self) -> &[bool] {
        self.packed.split_at(self.rank).0
    }

    /// True when every letter is packed: strides follow from the dims alone.
    pub const fn is_fully_packed(&self) -> bool {
        let mut d = 0;
        while d < self.rank {
            if !self.packed[d] {
                return false;
            }
            d += 1;
        }
        true
    }

    /// The notation of this format with the family's `letters` (`"NC/32HW32"`).
    pub const fn notation(&self, letters: &str) -> NotationBuf {
        let fam = letters.as_bytes();
        let mut buf = NotationBuf::empty();
        let mut i = 0;
        while i < self.rank {
            let d = self.order[i];
            buf = buf.push(fam[d]);
            if let Some(v) = self.vector {
                if v.dim == d {
                    buf = buf.push(b'/').push_number(v.width);
                }
            }
            i += 1;
        }
        if let Some(v) = self.vector {
            buf = buf.push_number(v.width);
        }
        if !self.is_fully_packed() {
            buf = buf.push(b',').push(b' ');
            let mut i = 0;
            while i < self.rank {
                if self.packed[self.order[i]] {
                    buf = buf.push(fam[self.order[i]]);
                }
                i += 1;
            }
            let suffix = PACKED_SUFFIX.as_bytes();
            let mut k = 0;
            while k < suffix.len() {
                buf = buf.push(suffix[k]);
                k += 1;
            }
        }
        buf
    }
}
