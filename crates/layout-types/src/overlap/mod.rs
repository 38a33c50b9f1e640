//! Overlapping tensors: "iterating over a full range of dimensions produces the same address
//! more than once".
//!
//! Two indices share an address exactly when their difference `x`, a nonzero integer vector with
//! `|x_i| < d_i`, has `Σ x_i·s_i = 0`: a bounded subset-sum question. [`overlap`] answers it in
//! steps, each exact where it answers:
//!
//! 1. Cheap tests: a zero stride; axes whose stride is beyond the reach of all smaller ones are
//!    peeled off (no `x` can use them); two axes that collide on their own; more elements than
//!    addresses in the span (pigeonhole).
//! 2. A search for `x` of at most [`SEARCH_BUDGET`] steps, for spans below 2^62. It walks the
//!    axes depth first, one coefficient at a time, keeping only values whose remainder the later
//!    axes can still cancel: within their reach, and a multiple of their strides' gcd. As `x`
//!    and `-x` are both solutions, it takes the first nonzero coefficient positive. The last
//!    axes are settled at once: two of them in closed form (extended Euclid), or more from a
//!    sorted table of every sum they reach (meet in the middle). The order of the axes and the
//!    size of that tail are chosen by estimating the work of each candidate. `Overlapping` comes
//!    with an `x` found, `Disjoint` only from a search that ran to the end.
//! 3. If the search runs out of steps, tensors of at most [`ENUMERATION_LIMIT`] elements have
//!    every address listed (their search gets a quarter of the budget).
//!
//! Anything else is [`Overlap::CannotTell`], which callers must treat as overlapping (outputs are
//! refused).

mod search;

use search::{search, Spent};

/// Tensors up to this many elements always get an exact answer: when the search runs out of
/// steps, their addresses are enumerated.
///
/// ```
/// use typed_layout::{predicates::{overlap, ENUMERATION_LIMIT}, Overlap};
/// assert!(2 * 3 * 4 <= ENUMERATION_LIMIT);
/// assert_eq!(overlap(&[2, 3, 4], &[12, 4, 1]), Overlap::Disjoint);
/// assert_eq!(overlap(&[4096, 4096, 2], &[8192, 2, 1]), Overlap::Disjoint);
/// ```
pub const ENUMERATION_LIMIT: usize = 1 << 20;

/// The most steps the exact search of [`overlap`] takes before answering
/// [`Overlap::CannotTell`] (for tensors of more than [`ENUMERATION_LIMIT`] elements).
///
/// A step is one node of the search (a coefficient tried for one axis, an entry of its table)
/// or one axis of a candidate plan, each a few dozen operations at most. On one core of a 2020s
/// x86-64 machine, in release builds, a search that spends the whole budget takes 15 to 30 ms
/// (the most, with a table of 2^18 sums to sort and look up); the cheap tests take microseconds.
/// Tensors of up to [`ENUMERATION_LIMIT`] elements give the search a quarter of the budget (of
/// 20 000 random interleaved ones between 2^14 and 2^20 elements, none needed 20 000 steps),
/// then are enumerated, about 30 ms at the limit: one call stays under 45 ms.
///
/// ```
/// use typed_layout::{predicates::{overlap, ENUMERATION_LIMIT, SEARCH_BUDGET}, Overlap};
/// assert_eq!(SEARCH_BUDGET, 1 << 20);
/// // 2^21 elements, beyond enumeration, and no cheap test applies. The search finds the
/// // collision 2·10000 - 3·10001 + 1·10003 = 0.
/// assert!(128 * 128 * 128 > ENUMERATION_LIMIT);
/// assert_eq!(overlap(&[128, 128, 128], &[10000, 10001, 10003]), Overlap::Overlapping);
/// // Modulo 2^21 = 128^3 these strides are 3·(16384, 128, 1), packed strides times a number
/// // prime to 2^21: two indices at one address would have one packed offset (below 2^21).
/// let m = 1 << 21;
/// assert_eq!(
///     overlap(&[128, 128, 128], &[3 * 16384 + m, 3 * 128 + 2 * m, 3 + 3 * m]),
///     Overlap::Disjoint
/// );
/// // Four axes of 1024 with unrelated strides near 2^31: more than the budget can settle.
/// let strides = [2_112_439_348, 1_638_862_003, 1_105_505_697, 1_102_832_311];
/// assert_eq!(overlap(&[1024; 4], &strides), Overlap::CannotTell);
/// ```
pub const SEARCH_BUDGET: usize = 1 << 20;

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
    // Tensors that can be enumerated give the search a quarter of its budget (far more than any
    // has needed), so that search and enumeration together stay within the stated time.
    let enumerable = count <= ENUMERATION_LIMIT as u128;
    match search(&axes, if enumerable { SEARCH_BUDGET / 4 } else { SEARCH_BUDGET }) {
        Ok(true) => Overlap::Overlapping,
        Ok(false) => Overlap::Disjoint,
        Err(Spent) if enumerable => enumerate(&axes),
        Err(Spent) => Overlap::CannotTell,
    }
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
    fn settled_by_the_cheap_tests() {
        // Strides 3 and 2 over dims 3 and 3: offsets {0,2,4}+{0,3,6} = 0,2,4,3,5,7,6,8,10: distinct,
        // though neither stride is beyond the reach of the other.
        assert_eq!(overlap(&[3, 3, 1], &[2, 3, 1]), Overlap::Disjoint);
        // Strides 2 and 3 over dims 4 and 3: 3 steps of 2 == 2 steps of 3.
        assert_eq!(overlap(&[4, 3, 1], &[2, 3, 1]), Overlap::Overlapping);
        // 64 elements in a span of 55 addresses, though no two axes collide: pigeonhole.
        assert_eq!(overlap(&[4, 4, 4], &[5, 6, 7]), Overlap::Overlapping);
    }

    #[test]
    fn peeling_and_pairs_are_exact_on_large_tensors() {
        // A colliding triple (7 + 10 == 17) under a huge separable batch axis: peeled, then
        // searched.
        assert_eq!(overlap(&[2, 2, 2, 1 << 20], &[7, 10, 17, 1 << 30]), Overlap::Overlapping);
        // Two coprime strides: a collision needs a step of 1024 along an axis of 1024.
        assert_eq!(overlap(&[1024, 1025, 1], &[1025, 1024, 1]), Overlap::Disjoint);
        // 1024 steps of 1025 == 1025 steps of 1024: needs dims above 1024 and 1025.
        assert_eq!(overlap(&[1025, 1025, 1], &[1025, 1024, 1]), Overlap::Disjoint);
        assert_eq!(overlap(&[1025, 1026, 1], &[1025, 1024, 1]), Overlap::Overlapping);
    }

    #[test]
    fn cannot_tell_is_named_and_counts_as_overlapping() {
        // Four interleaved axes of 1024: no cheap test applies, and the search would need about
        // 1024 * 2047 / 2 coefficient pairs for two of the axes to settle the other two.
        let v = overlap(&[1024; 4], &[2_112_439_348, 1_638_862_003, 1_105_505_697, 1_102_832_311]);
        assert_eq!(v, Overlap::CannotTell);
        assert!(v.may_overlap());
        // Offsets spanning more than the search handles: not searched, and no overflow.
        let (n, s) = (1 << 21, 1 << 41);
        assert_eq!(overlap(&[n, n, n], &[s + 1, s + 7, s + 19]), Overlap::CannotTell);
        let (n, s) = (1 << 30, isize::MAX);
        assert_eq!(overlap(&[n, n, n], &[s, s - 2, s - 6]), Overlap::CannotTell);
    }

    #[test]
    fn enumeration_is_exact() {
        assert_eq!(enumerate(&[(3, 2), (3, 3)]), Overlap::Disjoint);
        assert_eq!(enumerate(&[(4, 2), (3, 3)]), Overlap::Overlapping);
        assert_eq!(enumerate(&[(2, 7), (2, 10), (2, 17)]), Overlap::Overlapping);
    }
}
