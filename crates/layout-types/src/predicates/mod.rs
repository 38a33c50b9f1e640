//! The guide's questions about a strided tensor, on plain `(dims, strides)`: is it valid, fully,
//! partially or spatially packed, and do its dimensions overlap?
//!
//! [`TensorDesc`](crate::TensorDesc) asks them as methods; strided views ask them when built.
//! The overlap analysis itself sits at the bottom of the crate (its verdict, [`Overlap`](crate::Overlap),
//! is part of [`crate::LayoutError`]); this namespace is where users find it.
//!
//! # Packed
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
//! # Overlapping
//!
//! "Iterating over a full range of dimensions produces the same address more than once."
//! Deciding this for arbitrary strides is a bounded subset-sum question, so [`overlap`] answers
//! in three steps, each exact where it answers: cheap tests (strides each beyond the reach of
//! the smaller ones, two axes colliding on their own, more elements than addresses in the span),
//! an exact search of at most [`SEARCH_BUDGET`] steps, and, for tensors of at most
//! [`ENUMERATION_LIMIT`] elements that exhaust it, enumerating every address. Anything else is
//! [`Overlap::CannotTell`](crate::Overlap::CannotTell), which callers must treat as overlapping
//! (outputs are refused).
//!
//! ```
//! use typed_layout::predicates::{fully_packed, overlap, spatially_packed};
//! // The guide's example tensor in NCHW.
//! assert!(fully_packed(&[1, 64, 5, 4], &[1280, 20, 4, 1], "NCHW", "NCHW")?);
//! assert!(spatially_packed(&[1, 64, 5, 4], &[1280, 20, 4, 1], "NCHW")?);
//! assert!(!overlap(&[1, 64, 5, 4], &[1280, 20, 4, 1]).may_overlap());
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```

use crate::error::{DimName, LayoutError};
use crate::notation::{MAX_RANK, MIN_RANK};

mod packing;

pub use crate::overlap::{overlap, ENUMERATION_LIMIT, SEARCH_BUDGET};
pub(crate) use packing::packed_by_rules;
pub use packing::{fully_packed, partially_packed, spatially_packed};

/// Checks dims and strides: rank 3..=8, one stride per dim, no zero dim, and every offset and
/// the element count within `isize`. Returns the offset range `(lowest, highest)` reached.
pub(crate) fn validate(
    dims: &[usize],
    strides: &[isize],
    letters: &[u8],
) -> Result<(isize, isize), LayoutError> {
    let rank = dims.len();
    if !(MIN_RANK..=MAX_RANK).contains(&rank) {
        return Err(LayoutError::RankOutOfRange { rank });
    }
    if strides.len() != rank {
        return Err(LayoutError::StrideCount { dims: rank, strides: strides.len() });
    }
    let mut count: usize = 1;
    let (mut low, mut high): (isize, isize) = (0, 0);
    for (d, (&dim, &stride)) in dims.iter().zip(strides).enumerate() {
        let name = DimName::new(d, letters);
        if dim == 0 {
            return Err(LayoutError::ZeroDim { dim: name });
        }
        let overflow = LayoutError::SizeOverflow { dim: name };
        count = count.checked_mul(dim).filter(|&c| c <= isize::MAX as usize).ok_or(overflow)?;
        let reach = isize::try_from(dim - 1).ok().and_then(|n| n.checked_mul(stride)).ok_or(overflow)?;
        if reach < 0 {
            low = low.checked_add(reach).ok_or(overflow)?;
        } else {
            high = high.checked_add(reach).ok_or(overflow)?;
        }
    }
    Ok((low, high))
}
