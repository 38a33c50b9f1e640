//! What errors name: a dimension (by position and letter), a family (by its letters).

use core::fmt;

use crate::notation::MAX_RANK;

/// Which dimension an error is about: its position in logical order and, where the family names
/// it, its letter.
///
/// ```
/// use typed_layout::{LayoutError, Nchw, Tensor};
/// match Tensor::<f32, Nchw>::zeros([1, 0, 2, 2]) {
///     Err(LayoutError::ZeroDim { dim }) => {
///         assert_eq!((dim.index, dim.letter), (1, Some('C')));
///         assert_eq!(dim.to_string(), "dimension C (logical index 1)");
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DimName {
    /// Position in the family's logical order (`[n, c, h, w]` → `c` is 1).
    pub index: usize,
    /// The guide's letter for the dimension (`'C'`), if the tensor has letters.
    pub letter: Option<char>,
}

impl DimName {
    pub(crate) const fn new(index: usize, letters: &[u8]) -> Self {
        let letter = if index < letters.len() { Some(letters[index] as char) } else { None };
        DimName { index, letter }
    }
}

impl fmt::Display for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.letter {
            Some(l) => write!(f, "dimension {l} (logical index {})", self.index),
            None => write!(f, "dimension {}", self.index),
        }
    }
}

/// A family's dimension letters in logical order (`NCHW`), as an error names them.
///
/// ```
/// use typed_layout::{DataType, DynLayout, DynTensor, LayoutError};
/// let x = DynTensor::zeros(DataType::Float, DynLayout::parse("NHWC")?, &[1, 2, 2, 2])?;
/// match x.to_layout(DynLayout::parse("BMN")?) {
///     Err(LayoutError::FamilyMismatch { source, destination }) => {
///         assert_eq!((source.as_str(), destination.as_str()), ("NCHW", "BMN"));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Letters {
    bytes: [u8; MAX_RANK],
    len: u8,
}

impl Letters {
    /// The first [`MAX_RANK`] of `letters` (a family has no more).
    pub(crate) fn new(letters: &str) -> Self {
        let mut bytes = [0; MAX_RANK];
        let len = letters.len().min(MAX_RANK);
        bytes[..len].copy_from_slice(&letters.as_bytes()[..len]);
        Letters { bytes, len: len as u8 }
    }

    /// The letters.
    pub fn as_str(&self) -> &str {
        // A prefix of a `&str`'s bytes that are ASCII letters, as families' letters are.
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("?")
    }
}

impl fmt::Display for Letters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Letters {
    /// The letters, quoted: `"NCHW"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}
