//! The guide's packing predicates: fully packed, partially packed, spatially packed.
//!
//! A format lists a tensor's letters in decreasing-stride order; "the next dimension" of a letter
//! is the letter after it in the format. Partially packed (the guide's three rules):
//!
//! 1. every letter *not* in the `-packed` suffix has `stride >= next_dim * next_stride`;
//! 2. every letter in the suffix has `stride == next_dim * next_stride`;
//! 3. if the format's last letter is in the suffix, its stride is 1.
//!
//! The WXYZ notation also implies that all strides are strictly positive. Fully packed is
//! partially packed with every letter in the suffix and as many letters as dimensions; spatially
//! packed is partially packed in the spatial letters, in format `NC<spatial>` or `CN<spatial>`.
//!
//! The rules are applied literally, to size-1 dimensions too: NCHW with N = 1 and an arbitrary
//! N stride is not NCHW-fully-packed, although it addresses the same elements. Asking which
//! layout a descriptor's elements are stored in, ignoring size-1 strides, is
//! [`TensorDesc::matches`](crate::TensorDesc::matches).
//!
//! These functions work on plain `(dims, strides, letters)`; [`TensorDesc`](crate::TensorDesc)
//! offers them as methods.
//!
//! ```
//! use typed_layout::predicates::{fully_packed, spatially_packed};
//! // The guide's example tensor in NCHW.
//! assert!(fully_packed(&[1, 64, 5, 4], &[1280, 20, 4, 1], "NCHW", "NCHW")?);
//! assert!(spatially_packed(&[1, 64, 5, 4], &[1280, 20, 4, 1], "NCHW")?);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::error::LayoutError;

use crate::notation::{Format, NotationError, NotationErrorKind, MAX_RANK};
use crate::placement;

/// The three rules, for descriptor strides: `order` is the format (logical indices, outermost
/// first), `packed[d]` says whether logical dimension `d` is in the suffix. The rules themselves
/// are [`placement::derive_strided`]'s, the check every partially packed layout's shape passes; here
/// any broken rule (or a non-positive stride) is a `false`.
pub(crate) fn packed_by_rules(dims: &[usize], strides: &[isize], order: &[usize], packed: &[bool]) -> bool {
    let mut unsigned = [0usize; MAX_RANK];
    for (u, &s) in unsigned.iter_mut().zip(strides) {
        match usize::try_from(s) {
            Ok(s) => *u = s,
            Err(_) => return false,
        }
    }
    let format = Format::from_order(order, packed);
    placement::derive_strided(&format, dims, &unsigned[..strides.len().min(MAX_RANK)], &[]).is_ok()
}

fn parse_format(format: &str, letters: &str) -> Result<Format, LayoutError> {
    let f = Format::parse(format, letters)?;
    if f.vector().is_some() {
        return Err(NotationError::new(NotationErrorKind::VectorizedFormat, 0, format.len()).into());
    }
    Ok(f)
}

/// Is the tensor, read in `format`, partially packed in the letters of `packed`?
///
/// ```
/// use typed_layout::predicates::partially_packed;
/// // NHWC with padded rows: W and C packed, H's stride larger than W * C.
/// let (dims, strides) = ([2, 3, 4, 5], [100, 1, 20, 3]); // n, c, h, w
/// assert!(partially_packed(&dims, &strides, "NCHW", "NHWC", "WC")?);
/// assert!(!partially_packed(&dims, &strides, "NCHW", "NHWC", "HWC")?);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn partially_packed(
    dims: &[usize],
    strides: &[isize],
    letters: &str,
    format: &str,
    packed: &str,
) -> Result<bool, LayoutError> {
    let f = parse_format(format, letters)?.with_packed(packed, letters)?;
    Ok(packed_by_rules(dims, strides, f.order(), f.packed()))
}

/// Is the tensor `format`-fully-packed? False when the format does not have one letter per
/// dimension.
///
/// ```
/// use typed_layout::predicates::fully_packed;
/// assert!(fully_packed(&[1, 64, 5, 4], &[1280, 1, 256, 64], "NCHW", "NHWC")?);
/// assert!(!fully_packed(&[1, 64, 5, 4], &[1280, 1, 256, 64], "NCHW", "NCHW")?);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn fully_packed(
    dims: &[usize],
    strides: &[isize],
    letters: &str,
    format: &str,
) -> Result<bool, LayoutError> {
    let f = match parse_format(format, letters) {
        Ok(f) => f,
        Err(LayoutError::Format(e)) if e.kind() == NotationErrorKind::MissingLetter => return Ok(false),
        Err(e) => return Err(e),
    };
    Ok(packed_by_rules(dims, strides, f.order(), f.packed()))
}

/// Is the tensor spatially packed: partially packed in its spatial letters (all but N and C),
/// in format `NC<spatial>` or `CN<spatial>`?
///
/// ```
/// use typed_layout::predicates::spatially_packed;
/// // NCHW with a padded channel stride: HW-packed.
/// assert!(spatially_packed(&[2, 3, 4, 5], &[100, 30, 5, 1], "NCHW")?);
/// // NHWC is not.
/// assert!(!spatially_packed(&[2, 3, 4, 5], &[60, 1, 15, 3], "NCHW")?);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub fn spatially_packed(dims: &[usize], strides: &[isize], letters: &str) -> Result<bool, LayoutError> {
    let n = letters.find('N');
    let c = letters.find('C');
    let (Some(n), Some(c)) = (n, c) else {
        return Err(LayoutError::NotApplicable {
            reason: "spatially packed is defined for tensors with N, C and spatial dimensions",
        });
    };
    let spatial: Vec<usize> = (0..letters.len()).filter(|&d| d != n && d != c).collect();
    let mut packed = [false; MAX_RANK];
    for &d in &spatial {
        packed[d] = true;
    }
    let candidates = [[n, c], [c, n]];
    Ok(candidates.iter().any(|head| {
        let order: Vec<usize> = head.iter().chain(&spatial).copied().collect();
        packed_by_rules(dims, strides, &order, &packed)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guide_examples() {
        // NHWC fully packed with N, H, W, C = 1, 2, 3, 4: strides C 1, W 4, H 12, N 24.
        let dims = [1, 4, 2, 3];
        let strides = [24, 1, 12, 4];
        assert!(fully_packed(&dims, &strides, "NCHW", "NHWC").unwrap());
        assert!(partially_packed(&dims, &strides, "NCHW", "NHWC", "WC").unwrap());
        // NCHW that is only N-packed: c_stride padded.
        let (d, s) = ([2, 3, 4, 5], [3 * 32, 32, 5, 1]);
        assert!(partially_packed(&d, &s, "NCHW", "NCHW", "N").unwrap());
        assert!(!fully_packed(&d, &s, "NCHW", "NCHW").unwrap());
        assert!(spatially_packed(&d, &s, "NCHW").unwrap());
        // CNHW HW-packed is spatially packed too.
        let (d, s) = ([2, 3, 4, 5], [20, 40, 5, 1]);
        assert!(spatially_packed(&d, &s, "NCHW").unwrap());
    }

    #[test]
    fn fewer_letters_is_not_fully_packed() {
        assert!(!fully_packed(&[2, 3, 4, 5], &[60, 20, 5, 1], "NCHW", "CHW").unwrap());
    }

    #[test]
    fn bad_formats_are_errors() {
        let err = |r: Result<bool, LayoutError>| match r {
            Err(LayoutError::Format(e)) => e.kind(),
            other => panic!("expected a format error, got {other:?}"),
        };
        let (d, s) = ([2, 3, 4, 5], [60, 1, 15, 3]);
        assert_eq!(err(partially_packed(&d, &s, "NCHW", "NHWC", "CW")), NotationErrorKind::PackedOutOfOrder);
        assert_eq!(
            err(partially_packed(&d, &s, "NCHW", "NHWC", "D")),
            NotationErrorKind::PackedLetterNotInFormat
        );
        assert_eq!(err(partially_packed(&d, &s, "NCHW", "NHC", "C")), NotationErrorKind::MissingLetter);
        assert_eq!(err(fully_packed(&d, &s, "NCHW", "NC/4HW4")), NotationErrorKind::VectorizedFormat);
        assert!(matches!(
            spatially_packed(&[2, 3, 4], &[12, 4, 1], "BMN"),
            Err(LayoutError::NotApplicable { .. })
        ));
    }
}
