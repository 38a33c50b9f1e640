//! The letters a family may have: how many (the descriptor's rank limits) and which.

use super::{NotationError, NotationErrorKind};

/// Largest rank of a tensor descriptor ("a number of dimensions from 3 to 8").
///
/// ```
/// use typed_layout::{DataType, LayoutError, TensorDesc, MAX_RANK};
/// let e = TensorDesc::new(DataType::Float, &[1; MAX_RANK + 1], &[1; MAX_RANK + 1]).unwrap_err();
/// assert_eq!(e, LayoutError::RankOutOfRange { rank: 9 });
/// ```
pub const MAX_RANK: usize = 8;
/// Smallest rank of a tensor descriptor.
///
/// ```
/// use typed_layout::{DataType, LayoutError, TensorDesc, MIN_RANK};
/// assert_eq!(MIN_RANK, 3); // a matmul tensor (B, M, N) is the smallest
/// let e = TensorDesc::new(DataType::Float, &[4, 4], &[4, 1]).unwrap_err();
/// assert_eq!(e, LayoutError::RankOutOfRange { rank: 2 });
/// ```
pub const MIN_RANK: usize = 3;

/// Checks that `letters` can name a family: 3 to 8 distinct uppercase ASCII letters.
/// Errors point into `letters`.
///
/// ```
/// use typed_layout::check_family_letters;
/// assert!(check_family_letters("NTCDHW").is_ok());
/// assert!(check_family_letters("NCHN").is_err());
/// ```
pub const fn check_family_letters(letters: &str) -> Result<(), NotationError> {
    let s = letters.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b.is_ascii_lowercase() {
            return Err(NotationError::new(NotationErrorKind::LowercaseLetter, i, i + 1));
        }
        if !b.is_ascii_uppercase() {
            return Err(NotationError::new(NotationErrorKind::FamilyLetters, i, i + 1));
        }
        let mut j = 0;
        while j < i {
            if s[j] == b {
                return Err(NotationError::new(NotationErrorKind::RepeatedLetter, i, i + 1));
            }
            j += 1;
        }
        i += 1;
    }
    if s.len() < MIN_RANK || s.len() > MAX_RANK {
        return Err(NotationError::new(NotationErrorKind::RankOutOfRange, 0, s.len()));
    }
    Ok(())
}
