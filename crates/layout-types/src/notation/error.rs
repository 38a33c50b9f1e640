//! Why a notation string was rejected, and where: the error the parser, `DynLayout` and the
//! `layout!` macro report.

use core::fmt;

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
    /// A vectorized dimension that is the innermost letter ([`Format::with_vector`](crate::Format::with_vector)): its groups
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
