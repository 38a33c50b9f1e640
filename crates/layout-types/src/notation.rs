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
//! partially packed tensor apply (see [`packing`](crate::packing)): letters in the clause have
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

use core::fmt;

use crate::family::{MAX_RANK, MIN_RANK};

/// Why a notation string was rejected. Each kind names one rule of the guide.
///
/// ```
/// use typed_layout::{DynLayout, NotationErrorKind};
/// let kind = |spec: &str| DynLayout::parse(spec).unwrap_err().kind();
/// assert_eq!(kind("NC/32HW4"), NotationErrorKind::VectorSuffixMismatch);
/// assert_eq!(kind("NCHC"), NotationErrorKind::RepeatedLetter);
/// assert_eq!(kind("nchw"), NotationErrorKind::LowercaseLetter);
/// ```
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
    /// Packed letters listed out of the format's order.
    PackedOutOfOrder,
    /// A packed letter listed twice.
    PackedRepeated,
    /// A packing clause with no letters (`"NHWC, -packed"`).
    PackedEmpty,
    /// A packing clause that does not read `, XY-packed`.
    PackedSuffixMissing,
    /// Family letters (a `layout!` family, [`DynLayout::parse_in`](crate::DynLayout::parse_in))
    /// that are not 3 to 8 distinct uppercase letters.
    FamilyLetters,
    /// A vectorized format where only plain per-dimension strides make sense.
    VectorizedFormat,
    /// A vectorized dimension that is the innermost letter ([`Format::with_vector`]): its groups
    /// and lanes would be the plain format, and its notation (`NHWC/44`) cannot be read back.
    VectorInnermost,
}

impl NotationErrorKind {
    /// The section of the guide ("Core Concepts") that states the rule.
    ///
    /// ```
    /// use typed_layout::{DynLayout, NotationErrorKind};
    /// let e = DynLayout::parse("NHWC, DC-packed").unwrap_err();
    /// assert_eq!(e.kind(), NotationErrorKind::PackedLetterNotInFormat);
    /// assert_eq!(e.kind().term(), "Partially-Packed Tensors");
    /// ```
    pub const fn term(self) -> &'static str {
        use NotationErrorKind as K;
        match self {
            K::RankOutOfRange | K::FamilyLetters => "Tensor Descriptor",
            K::SlashWithoutLetter
            | K::VectorWidthMissing
            | K::VectorWidthZero
            | K::VectorWidthOverflow
            | K::SecondVector
            | K::GroupedNotChannel
            | K::VectorSuffixMissing
            | K::VectorSuffixMismatch
            | K::UnexpectedNumber
            | K::TrailingCharacters
            | K::VectorizedFormat
            | K::VectorInnermost => "NC/32HW32 Memory Layout",
            K::PackedLetterNotInFormat
            | K::PackedOutOfOrder
            | K::PackedRepeated
            | K::PackedEmpty
            | K::PackedSuffixMissing => "Partially-Packed Tensors",
            K::Empty
            | K::UnexpectedChar
            | K::LowercaseLetter
            | K::UnknownLetter
            | K::RepeatedLetter
            | K::MissingLetter => "WXYZ Tensor Descriptor",
        }
    }

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
                "the letters of a -packed suffix follow the format's order"
            }
            NotationErrorKind::PackedRepeated => "each letter appears once in a -packed suffix",
            NotationErrorKind::PackedEmpty => "a -packed suffix names at least one letter (NHWC, WC-packed)",
            NotationErrorKind::PackedSuffixMissing => {
                "a packing clause follows the format as `, XY-packed` (NHWC, WC-packed)"
            }
            NotationErrorKind::FamilyLetters => {
                "a family names its dimensions with 3 to 8 distinct uppercase letters, in logical order"
            }
            NotationErrorKind::VectorizedFormat => {
                "per-dimension strides describe plain formats; NC/xHWx splits C across two axes"
            }
            NotationErrorKind::VectorInnermost => {
                "the vectorized dimension is not the innermost letter: the x lanes follow the letters after C/x"
            }
        }
    }
}

/// A rejected notation string: what rule it broke and where (byte offsets into the string).
///
/// ```
/// use typed_layout::{DynLayout, NotationErrorKind};
/// let e = DynLayout::parse("NCHX").unwrap_err();
/// assert_eq!((e.kind(), e.span()), (NotationErrorKind::UnknownLetter, (3, 4)));
/// assert!(e.to_string().starts_with("invalid layout notation at byte 3"));
/// ```
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

impl NotationError {
    /// A multi-line explanation for a user: the rule, the spec with the offending bytes marked,
    /// and the guide's section. The `layout!` macro reports exactly this.
    ///
    /// ```
    /// use typed_layout::DynLayout;
    /// let spec = "NC/32HW4";
    /// let e = DynLayout::parse(spec).unwrap_err();
    /// assert_eq!(
    ///     e.explain(spec),
    ///     "the vector suffix repeats the width after `/` (NC/32HW32, not NC/32HW4)\n\
    ///      \x20 | NC/32HW4\n\
    ///      \x20 |        ^ here\n\
    ///      \x20 = guide: NC/32HW32 Memory Layout"
    /// );
    /// ```
    pub fn explain(&self, spec: &str) -> String {
        let start = self.start.min(spec.len());
        let end = self.end.clamp(start, spec.len());
        let marks = "^".repeat((end - start).max(1));
        format!(
            "{}\n  | {spec}\n  | {:start$}{marks} here\n  = guide: {}",
            self.kind.rule(),
            "",
            self.kind.term()
        )
    }
}

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
    /// (`"NHWC, WC-packed"`); see the [module docs](self) for the grammar.
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
        if crate::family::check_letters(letters).is_err() {
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

/// Letters, `/`, two vector widths of up to 20 digits, and `, <letters>-packed`.
const NOTATION_CAP: usize = MAX_RANK + 1 + 2 * 20 + 2 + MAX_RANK + PACKED_SUFFIX.len();

/// A notation string built at compile time: a fixed buffer, read with [`NotationBuf::as_str`].
///
/// ```
/// use typed_layout::{DynLayout, NcxHwx};
/// let buf = DynLayout::of::<NcxHwx<4>>().notation(); // built without allocating
/// assert_eq!(buf.as_str(), "NC/4HW4");
/// ```
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
        assert_eq!(Format::parse("AB", "AB").unwrap_err().kind(), K::FamilyLetters);
        assert_eq!(kind("NHWC, -packed"), K::PackedEmpty);
        assert_eq!(kind("NHWC, WC"), K::PackedSuffixMissing);
        assert_eq!(kind("NHWC, WC-pack"), K::PackedSuffixMissing);
        assert_eq!(kind("NHWC, DC-packed"), K::PackedLetterNotInFormat);
        assert_eq!(kind("NHWC, CW-packed"), K::PackedOutOfOrder);
        assert_eq!(kind("NHWC, WWC-packed"), K::PackedRepeated);
        assert_eq!(kind("NHWC, wC-packed"), K::LowercaseLetter);
        assert_eq!(kind("NHWC, W C-packed"), K::UnexpectedChar);
    }

    #[test]
    fn packing_clause() {
        let rows = Format::parse("NHWC, WC-packed", NCHW).unwrap();
        assert_eq!(rows.packed(), &[false, true, false, true]);
        assert!(!rows.is_fully_packed());
        assert_eq!(rows.notation(NCHW).as_str(), "NHWC, WC-packed");
        // Spaces after the comma are optional; every letter packed is the fully packed format.
        assert_eq!(Format::parse("NHWC,WC-packed", NCHW), Ok(rows));
        assert_eq!(Format::parse("NHWC, NHWC-packed", NCHW), Format::parse("NHWC", NCHW));
        let n_only = Format::parse("NC/4HW4, N-packed", NCHW).unwrap();
        assert_eq!(n_only.notation(NCHW).as_str(), "NC/4HW4, N-packed");
        assert_eq!(Format::parse("NHWC, DC-packed", NCHW).unwrap_err().span(), (6, 7));
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
