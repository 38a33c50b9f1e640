//! cuDNN's layout notation (`"NHWC"`, `"NC/32HW32"`) as a typed value, with one `const` parser.
//!
//! A [`Format`] lists a family's letters in decreasing-stride order (the guide's WXYZ order) and,
//! for NC/xHWx, which letter is grouped into vectors of `x`. The parser is a `const fn`, so the
//! named layouts are *defined* by parsing their notation at compile time, and runtime callers
//! (descriptors, user input) get the very same verdicts as error values.
//!
//! Grammar accepted here (the `layout!` macro extends it with packing clauses):
//!
//! ```text
//! format  := letter+                      NHWC, CHWN, NCDHW, BMN
//!          | letter* C '/' x letter* x    NC/32HW32, NC/4HW4, NC/32DHW32
//! letter  := one of the family's uppercase letters, each exactly once
//! x       := decimal integer >= 1, the same number both times
//! ```
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

use core::fmt;

use crate::family::{MAX_RANK, MIN_RANK};

/// Why a notation string was rejected. Each kind names one rule of the guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotationErrorKind {
    /// The string is empty.
    Empty,
    /// A character that is neither a letter, a digit nor `/`.
    UnexpectedChar,
    /// A lowercase letter: the guide's letters are uppercase.
    LowercaseLetter,
    /// A letter that is not a dimension of the family.
    UnknownLetter,
    /// A letter given twice: each dimension appears exactly once.
    RepeatedLetter,
    /// A dimension of the family is missing from the format.
    MissingLetter,
    /// Fewer than 3 or more than 8 letters.
    RankOutOfRange,
    /// A `/` that does not follow a letter.
    SlashWithoutLetter,
    /// A `/` not followed by a vector width.
    VectorWidthMissing,
    /// A vector width of 0.
    VectorWidthZero,
    /// A vector width too large to represent.
    VectorWidthOverflow,
    /// A second `/`: only one dimension can be vectorized.
    SecondVector,
    /// A letter other than C grouped into vectors: NC/xHWx groups only the channel dimension.
    GroupedNotChannel,
    /// A vectorized format that does not end with its vector width (`"NC/32HW"`).
    VectorSuffixMissing,
    /// A vector suffix that differs from the width after `/` (`"NC/32HW4"`).
    VectorSuffixMismatch,
    /// A number that is neither a vector width nor its suffix.
    UnexpectedNumber,
    /// Characters after the vector suffix.
    TrailingCharacters,
    /// A packed letter that is not in the format ("packed letter 'D' is not in format NHWC").
    PackedLetterNotInFormat,
    /// Packed letters listed out of the format's order, or repeated.
    PackedOutOfOrder,
    /// A vectorized format where only plain per-dimension strides make sense.
    VectorizedFormat,
}

impl NotationErrorKind {
    /// The rule this kind enforces, in the guide's terms.
    pub const fn rule(self) -> &'static str {
        match self {
            NotationErrorKind::Empty => "a format names each dimension with one letter",
            NotationErrorKind::UnexpectedChar => {
                "a format is made of dimension letters, and `/x ... x` for a vectorized C"
            }
            NotationErrorKind::LowercaseLetter => "dimension letters are uppercase",
            NotationErrorKind::UnknownLetter => "every letter must be a dimension of the layout's family",
            NotationErrorKind::RepeatedLetter => "each dimension appears exactly once in a format",
            NotationErrorKind::MissingLetter => "a format lists every dimension of its family",
            NotationErrorKind::RankOutOfRange => "a tensor has from 3 to 8 dimensions",
            NotationErrorKind::SlashWithoutLetter => "`/x` follows the letter it groups (NC/32HW32)",
            NotationErrorKind::VectorWidthMissing => "`/` is followed by the vector width x (NC/32HW32)",
            NotationErrorKind::VectorWidthZero => "the vector width x of NC/xHWx is at least 1",
            NotationErrorKind::VectorWidthOverflow => "the vector width must fit in a usize",
            NotationErrorKind::SecondVector => "only one dimension, C, is grouped into vectors",
            NotationErrorKind::GroupedNotChannel => {
                "only the channel dimension C is grouped into x channels each (NC/xHWx)"
            }
            NotationErrorKind::VectorSuffixMissing => {
                "a vectorized format ends with its vector width (NC/32HW32)"
            }
            NotationErrorKind::VectorSuffixMismatch => {
                "the vector suffix repeats the width after `/` (NC/32HW32, not NC/32HW4)"
            }
            NotationErrorKind::UnexpectedNumber => {
                "numbers appear only as the vector width after `/` and as its suffix"
            }
            NotationErrorKind::TrailingCharacters => "nothing follows the vector suffix",
            NotationErrorKind::PackedLetterNotInFormat => {
                "the letters of a -packed suffix are letters of the format"
            }
            NotationErrorKind::PackedOutOfOrder => {
                "the letters of a -packed suffix appear once each, in the format's order"
            }
            NotationErrorKind::VectorizedFormat => {
                "per-dimension strides describe plain formats; NC/xHWx splits C across two axes"
            }
        }
    }
}

/// A rejected notation string: what rule it broke and where (byte offsets into the string).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NotationError {
    kind: NotationErrorKind,
    start: usize,
    end: usize,
}

impl NotationError {
    pub(crate) const fn new(kind: NotationErrorKind, start: usize, end: usize) -> Self {
        NotationError { kind, start, end }
    }
    /// The rule that was broken.
    pub const fn kind(&self) -> NotationErrorKind {
        self.kind
    }
    /// Byte offset of the offending token.
    pub const fn position(&self) -> usize {
        self.start
    }
    /// Byte range of the offending token (empty at the end of the string for missing tokens).
    pub const fn span(&self) -> (usize, usize) {
        (self.start, self.end)
    }
    /// A `'static` message naming the rule, usable in `const` panics.
    pub const fn message(&self) -> &'static str {
        self.kind.rule()
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid layout notation at byte {}: {}", self.start, self.kind.rule())
    }
}

impl std::error::Error for NotationError {}

/// A vectorized dimension: the logical dimension `dim` is split into groups of `width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vector {
    /// Logical index of the vectorized dimension (C is 1 in images and volumes).
    pub dim: usize,
    /// The vector width x.
    pub width: usize,
}

/// A parsed format: a family's letters in decreasing-stride order, optionally with C vectorized.
///
/// Only legal formats can be built: every constructor validates, so holding a `Format` means the
/// letters are a permutation of the family's and any vector width is at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    rank: usize,
    order: [usize; MAX_RANK],
    vector: Option<Vector>,
}

const fn find_letter(letters: &[u8], b: u8) -> Option<usize> {
    let mut i = 0;
    while i < letters.len() {
        if letters[i] == b {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Reads a decimal number at `i`; returns (value, end) or an overflow error.
const fn read_number(s: &[u8], mut i: usize) -> Result<(usize, usize), NotationError> {
    let start = i;
    let mut v: usize = 0;
    while i < s.len() && s[i].is_ascii_digit() {
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
    /// ```
    /// use typed_layout::{Format, NotationErrorKind, Volume, Family};
    /// assert!(Format::parse("NDHWC", Volume::LETTERS).is_ok());
    /// let e = Format::parse("NDHWc", Volume::LETTERS).unwrap_err();
    /// assert_eq!(e.kind(), NotationErrorKind::LowercaseLetter);
    /// ```
    pub const fn parse(spec: &str, letters: &str) -> Result<Format, NotationError> {
        use NotationErrorKind as K;
        let s = spec.as_bytes();
        let fam = letters.as_bytes();
        if s.is_empty() {
            return Err(NotationError::new(K::Empty, 0, 0));
        }
        let mut order = [0usize; MAX_RANK];
        let mut seen = [false; MAX_RANK];
        let mut rank = 0usize;
        let mut vector: Option<Vector> = None;
        let mut i = 0;
        while i < s.len() {
            let b = s[i];
            if b.is_ascii_uppercase() {
                let dim = match find_letter(fam, b) {
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
                let (width, end) = match read_number(s, i + 1) {
                    Ok(r) => r,
                    Err(e) => return Err(e),
                };
                if end == i + 1 {
                    return Err(NotationError::new(K::VectorWidthMissing, i, i + 1));
                }
                if width == 0 {
                    return Err(NotationError::new(K::VectorWidthZero, i + 1, end));
                }
                vector = Some(Vector { dim: grouped, width });
                i = end;
            } else if b.is_ascii_digit() {
                let (value, end) = match read_number(s, i) {
                    Ok(r) => r,
                    Err(e) => return Err(e),
                };
                match vector {
                    None => return Err(NotationError::new(K::UnexpectedNumber, i, end)),
                    Some(v) => {
                        if value != v.width {
                            return Err(NotationError::new(K::VectorSuffixMismatch, i, end));
                        }
                        if end != s.len() {
                            return Err(NotationError::new(K::TrailingCharacters, end, s.len()));
                        }
                        return Self::finish(order, rank, seen, fam.len(), Some(v), s.len());
                    }
                }
            } else {
                return Err(NotationError::new(K::UnexpectedChar, i, i + 1));
            }
        }
        if vector.is_some() {
            return Err(NotationError::new(K::VectorSuffixMissing, s.len(), s.len()));
        }
        Self::finish(order, rank, seen, fam.len(), None, s.len())
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
        Ok(Format { rank, order, vector })
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
    /// groups C. Fails for width 0 or when a dimension is already vectorized.
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

    /// The notation of this format with the family's `letters` (`"NC/32HW32"`).
    pub const fn notation(&self, letters: &str) -> NotationBuf {
        let fam = letters.as_bytes();
        let mut buf = NotationBuf { bytes: [0; NOTATION_CAP], len: 0 };
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
        buf
    }
}

const NOTATION_CAP: usize = MAX_RANK + 1 + 2 * 20;

/// A notation string built at compile time: a fixed buffer, read with [`NotationBuf::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NotationBuf {
    bytes: [u8; NOTATION_CAP],
    len: usize,
}

impl NotationBuf {
    const fn push(mut self, b: u8) -> Self {
        self.bytes[self.len] = b;
        self.len += 1;
        self
    }

    const fn push_number(mut self, mut n: usize) -> Self {
        let mut digits = [0u8; 20];
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            self = self.push(digits[k]);
        }
        self
    }

    /// The notation as a string slice.
    pub const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(s) => s,
            // Only ASCII letters, digits and '/' are ever pushed.
            Err(_) => "",
        }
    }
}

impl fmt::Display for NotationBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NotationErrorKind as K;

    const NCHW: &str = "NCHW";

    fn kind(spec: &str) -> NotationErrorKind {
        Format::parse(spec, NCHW).unwrap_err().kind()
    }

    #[test]
    fn accepts_and_prints_back() {
        for spec in ["NCHW", "NHWC", "CHWN", "CNHW", "NC/32HW32", "NC/4HW4", "NC/1HW1", "NHWC/8"] {
            match Format::parse(spec, NCHW) {
                Ok(f) => assert_eq!(f.notation(NCHW).as_str(), spec),
                Err(e) => assert_eq!(spec, "NHWC/8", "{spec}: {e}"),
            }
        }
        assert_eq!(Format::parse("NC/32DHW32", "NCDHW").unwrap().notation("NCDHW").as_str(), "NC/32DHW32");
    }

    #[test]
    fn order_is_logical_indices_outer_first() {
        assert_eq!(Format::parse("NHWC", NCHW).unwrap().order(), &[0, 2, 3, 1]);
        assert_eq!(Format::parse("CHWN", NCHW).unwrap().order(), &[1, 2, 3, 0]);
    }

    #[test]
    fn each_rule_has_its_error() {
        assert_eq!(kind(""), K::Empty);
        assert_eq!(kind("NC-HW"), K::UnexpectedChar);
        assert_eq!(kind("NcHW"), K::LowercaseLetter);
        assert_eq!(kind("NCHX"), K::UnknownLetter);
        assert_eq!(kind("NCHWW"), K::RepeatedLetter);
        assert_eq!(kind("NCH"), K::MissingLetter);
        assert_eq!(kind("/32NCHW32"), K::SlashWithoutLetter);
        assert_eq!(kind("NC/HW"), K::VectorWidthMissing);
        assert_eq!(kind("NC/0HW0"), K::VectorWidthZero);
        assert_eq!(kind("NC/99999999999999999999999HW1"), K::VectorWidthOverflow);
        assert_eq!(kind("NC/4H/4W4"), K::SecondVector);
        assert_eq!(kind("NCH/4W4"), K::GroupedNotChannel);
        assert_eq!(kind("NC/32HW"), K::VectorSuffixMissing);
        assert_eq!(kind("NC/32HW4"), K::VectorSuffixMismatch);
        assert_eq!(kind("N4CHW"), K::UnexpectedNumber);
        assert_eq!(kind("NC/4HW4x"), K::TrailingCharacters);
        assert_eq!(Format::parse("AB", "AB").unwrap_err().kind(), K::RankOutOfRange);
    }

    #[test]
    fn error_positions_point_at_the_token() {
        assert_eq!(Format::parse("NC/32HW4", NCHW).unwrap_err().span(), (7, 8));
        assert_eq!(Format::parse("NCHWW", NCHW).unwrap_err().span(), (4, 5));
    }

    #[test]
    fn with_vector_matches_parsing() {
        let built = Format::parse("NCHW", NCHW).unwrap().with_vector(1, 32).unwrap();
        assert_eq!(built, Format::parse("NC/32HW32", NCHW).unwrap());
        assert_eq!(
            Format::parse("NCHW", NCHW).unwrap().with_vector(1, 0).unwrap_err().kind(),
            K::VectorWidthZero
        );
    }
}
