//! Overlapping tensors: "iterating over a full range of dimensions produces the same address
//! more than once".
//!
//! Deciding this for arbitrary strides is a subset-sum question, so [`overlap`] answers in three
//! steps, each exact where it answers: a sufficient condition for disjointness (sorted strides
//! each beyond the reach of the smaller ones), a pigeonhole test (more elements than addresses
//! in the span), and, for tensors of at most [`ENUMERATION_LIMIT`] elements, enumerating every
//! address. Anything else is [`Overlap::CannotTell`], which callers must treat as overlapping
//! (outputs are refused).

/// Tensors up to this many elements are checked by enumerating their addresses.
///
/// ```
/// use typed_layout::{predicates::{overlap, ENUMERATION_LIMIT}, Overlap};
/// // Small tensors are settled by listing their addresses; larger ones by reasoning on the strides.
/// assert!(2 * 3 * 4 <= ENUMERATION_LIMIT);
/// assert_eq!(overlap(&[2, 3, 4], &[12, 4, 1]), Overlap::Disjoint);
/// assert_eq!(overlap(&[4096, 4096, 2], &[8192, 2, 1]), Overlap::Disjoint);
/// ```
pub const ENUMERATION_LIMIT: usize = 1 << 20;

/// Whether a tensor's dimensions overlap.
///
/// ```
/// use typed_layout::{DataType, Overlap, TensorDesc};
/// // H and W both step by 1: (h, w) = (0, 1) and (1, 0) share an address.
/// let d = TensorDesc::new(DataType::Float, &[1, 1, 3, 4], &[12, 12, 1, 1])?;
/// assert_eq!(d.overlap(), Overlap::Overlapping);
/// assert!(d.overlap().may_overlap());
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Overlap {
    /// Every index has its own address.
    Disjoint,
    /// Two indices share an address.
    Overlapping,
    /// Neither could be proven within the analysis budget; treat as overlapping.
    CannotTell,
}

impl Overlap {
    /// True unless the tensor is proven [`Overlap::Disjoint`]: the answer to "may two indices
    /// share an address?".
    pub const fn may_overlap(self) -> bool {
        !matches!(self, Overlap::Disjoint)
    }
}

/// Decides whether `dims` with `strides` (same length, dims at least 1) reach an address twice.
///
/// ```
/// use typed_layout::{predicates::overlap, Overlap};
/// assert_eq!(overlap(&[2, 3, 4], &[12, 4, 1]), Overlap::Disjoint);
/// assert_eq!(overlap(&[2, 3, 4], &[12, 1, 1]), Overlap::Overlapping); // h and w collide
/// assert_eq!(overlap(&[2, 3, 4], &[0, 4, 1]), Overlap::Overlapping); // broadcast N
/// assert_eq!(overlap(&[2, 3, 4], &[-12, 4, 1]), Overlap::Disjoint); // mirrored N
/// ```
pub fn overlap(dims: &[usize], strides: &[isize]) -> Overlap {
    // Size-1 dimensions never move the address: leave them out.
    let mut axes: Vec<(u128, u128)> = dims
        .iter()
        .zip(strides)
        .filter(|(d, _)| **d > 1)
        .map(|(d, s)| (*d as u128, s.unsigned_abs() as u128))
        .collect();
    if axes.iter().any(|&(_, s)| s == 0) {
        return Overlap::Overlapping;
    }
    axes.sort_by_key(|&(_, s)| s);
    // An axis whose stride exceeds every offset the smaller axes reach cannot collide with them:
    // the tensor overlaps exactly when the rest does. Peel such axes off the top.
    while let Some(&(_, top)) = axes.last() {
        if top > reach(&axes[..axes.len() - 1]) {
            axes.pop();
        } else {
            break;
        }
    }
    if axes.is_empty() {
        return Overlap::Disjoint;
    }
    // Two axes collide iff some 0 < a < d1, 0 < b < d2 have a*s1 == b*s2: the smallest such
    // pair is lcm/s1, lcm/s2. A colliding pair is a witness for any number of axes.
    for (i, &(d1, s1)) in axes.iter().enumerate() {
        for &(d2, s2) in &axes[i + 1..] {
            let lcm = s1 / gcd(s1, s2) * s2;
            if lcm / s1 < d1 && lcm / s2 < d2 {
                return Overlap::Overlapping;
            }
        }
    }
    if axes.len() <= 2 {
        return Overlap::Disjoint;
    }
    // Pigeonhole: more elements than addresses between the lowest and highest.
    let count = axes.iter().fold(1u128, |n, &(d, _)| n.saturating_mul(d));
    if count > reach(&axes).saturating_add(1) {
        return Overlap::Overlapping;
    }
    if count <= ENUMERATION_LIMIT as u128 {
        return enumerate(&axes);
    }
    Overlap::CannotTell
}

/// Largest offset reachable from the lowest address along `axes`.
fn reach(axes: &[(u128, u128)]) -> u128 {
    axes.iter().fold(0u128, |r, &(d, s)| r.saturating_add((d - 1).saturating_mul(s)))
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn enumerate(axes: &[(u128, u128)]) -> Overlap {
    let mut addresses: Vec<u128> = vec![0];
    for &(d, s) in axes {
        let prev = addresses.len();
        for i in 1..d {
            for k in 0..prev {
                addresses.push(addresses[k] + i * s);
            }
        }
    }
    addresses.sort_unstable();
    if addresses.windows(2).any(|w| w[0] == w[1]) {
        Overlap::Overlapping
    } else {
        Overlap::Disjoint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separable_by_pigeonhole_and_by_enumeration() {
        // Strides 3 and 2 over dims 3 and 3: offsets {0,2,4}+{0,3,6} = 0,2,4,3,5,7,6,8,10: distinct,
        // but not separable, so this goes through enumeration.
        assert_eq!(overlap(&[3, 3, 1], &[2, 3, 1]), Overlap::Disjoint);
        // Strides 2 and 3 over dims 4 and 3: 0+3 == 3+0? (i=0,j=1)=3, (i=... ) 2*3=6 == 3*2: overlap.
        assert_eq!(overlap(&[4, 3, 1], &[2, 3, 1]), Overlap::Overlapping);
        // 8 elements in a span of 4 addresses: pigeonhole.
        assert_eq!(overlap(&[2, 2, 2], &[1, 1, 1]), Overlap::Overlapping);
    }

    #[test]
    fn peeling_and_pairs_are_exact_on_large_tensors() {
        // A colliding triple under a huge separable batch axis: peeled, then enumerated.
        assert_eq!(overlap(&[2, 2, 2, 1 << 20], &[7, 10, 17, 1 << 30]), Overlap::Overlapping);
        // Two coprime strides: a collision needs a step of 1024 along an axis of 1024.
        assert_eq!(overlap(&[1024, 1025, 1], &[1025, 1024, 1]), Overlap::Disjoint);
        // 1024 steps of 1025 == 1025 steps of 1024: needs dims above 1024 and 1025.
        assert_eq!(overlap(&[1025, 1025, 1], &[1025, 1024, 1]), Overlap::Disjoint);
        assert_eq!(overlap(&[1025, 1026, 1], &[1025, 1024, 1]), Overlap::Overlapping);
    }

    #[test]
    fn cannot_tell_is_named_and_counts_as_overlapping() {
        // Three interleaved axes, no colliding pair, 2^21 elements: over the enumeration budget.
        let v = overlap(&[128, 128, 128], &[10000, 10001, 10003]);
        assert_eq!(v, Overlap::CannotTell);
        assert!(v.may_overlap());
    }
}
