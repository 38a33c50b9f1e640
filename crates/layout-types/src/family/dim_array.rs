//! Arrays with one entry per dimension, whose length is the family's rank.

use core::fmt::Debug;
use core::hash::Hash;

mod sealed {
    pub trait Sealed {}
}

/// A fixed-size array with one entry per dimension, `[E; R]` for `R` in 3..=8.
///
/// This is what lets [`Family::Dims`](crate::Family::Dims) be `[usize; 4]` for images and `[usize; 3]` for matmul,
/// so passing the wrong number of dims is a type error.
///
/// ```
/// use typed_layout::DimArray;
/// let dims = <[usize; 4]>::from_fn(|i| i + 1);
/// assert_eq!(dims, [1, 2, 3, 4]);
/// assert_eq!(<[usize; 3]>::try_from_slice(&[1, 2]), None); // wrong rank
/// ```
pub trait DimArray<E: Copy + Default>:
    sealed::Sealed + Copy + Debug + Eq + Hash + Send + Sync + AsRef<[E]> + AsMut<[E]> + 'static
{
    /// Number of dimensions.
    const RANK: usize;

    /// Builds the array from a function of the position.
    fn from_fn(f: impl FnMut(usize) -> E) -> Self;

    /// The array from a slice of exactly `RANK` entries.
    fn try_from_slice(s: &[E]) -> Option<Self> {
        if s.len() != Self::RANK {
            return None;
        }
        Some(Self::from_fn(|i| s[i]))
    }
}

macro_rules! dim_array {
    ($($r:literal),*) => {$(
        impl<E: Copy + Default + Debug + Eq + Hash + Send + Sync + 'static> sealed::Sealed for [E; $r] {}
        impl<E: Copy + Default + Debug + Eq + Hash + Send + Sync + 'static> DimArray<E> for [E; $r] {
            const RANK: usize = $r;
            fn from_fn(f: impl FnMut(usize) -> E) -> Self {
                core::array::from_fn(f)
            }
        }
    )*};
}
dim_array!(3, 4, 5, 6, 7, 8);

/// An array of rank 4 to 8, which one position can be taken out of: what indexing one axis of
/// a tensor leaves ([`Dropped`](crate::Dropped)). Rank 3 is the guide's least.
pub trait Droppable<E: Copy + Default>: DimArray<E> {
    /// The array one shorter.
    type Lower: DimArray<E>;
    /// The array without position `k` (`k` below the rank).
    fn without(self, k: usize) -> Self::Lower;
}

macro_rules! droppable {
    ($($r:literal => $l:literal),*) => {$(
        impl<E: Copy + Default + Debug + Eq + Hash + Send + Sync + 'static> Droppable<E> for [E; $r] {
            type Lower = [E; $l];
            fn without(self, k: usize) -> [E; $l] {
                core::array::from_fn(|i| self[if i < k { i } else { i + 1 }])
            }
        }
    )*};
}
droppable!(4 => 3, 5 => 4, 6 => 5, 7 => 6, 8 => 7);
