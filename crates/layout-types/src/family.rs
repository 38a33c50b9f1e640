//! Families of layouts: which letters a tensor has, in which logical order.
//!
//! The guide names three: 3-D matmul tensors (B, M, N), 4-D images (N, C, H, W) and 5-D volumes
//! (N, C, D, H, W). Dimensions are always passed in the family's logical order, whatever the
//! layout, and strides come back in that order. A layout belongs to exactly one family, so an
//! image layout cannot be given matmul dims, and conversions only exist within a family.

use core::fmt::Debug;
use core::hash::Hash;

/// Largest rank of a tensor descriptor ("a number of dimensions from 3 to 8").
pub const MAX_RANK: usize = 8;
/// Smallest rank of a tensor descriptor.
pub const MIN_RANK: usize = 3;

mod sealed {
    pub trait Sealed {}
}

/// A fixed-size array with one entry per dimension, `[E; R]` for `R` in 3..=8.
///
/// This is what lets [`Family::Dims`] be `[usize; 4]` for images and `[usize; 3]` for matmul,
/// so passing the wrong number of dims is a type error.
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

/// A family of layouts: the letters of its dimensions in logical order.
///
/// Implemented by [`Image`], [`Volume`] and [`Matmul`]; `layout!` (in the macros crate) can
/// declare further families with letters of their own.
pub trait Family: Copy + Default + Debug + Send + Sync + 'static {
    /// The letters in logical order (`"NCHW"` for images). Uppercase ASCII, no repeats.
    const LETTERS: &'static str;
    /// Logical dims, `[usize; RANK]`.
    type Dims: DimArray<usize>;
    /// Signed strides, `[isize; RANK]`, for strided views.
    type Strides: DimArray<isize>;
}

/// Number of dimensions of family `F`.
pub const fn rank<F: Family>() -> usize {
    F::LETTERS.len()
}

/// Batches of 2-D images: dims `[n, c, h, w]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Image;
impl Family for Image {
    const LETTERS: &'static str = "NCHW";
    type Dims = [usize; 4];
    type Strides = [isize; 4];
}

/// Batches of 3-D images: dims `[n, c, d, h, w]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Volume;
impl Family for Volume {
    const LETTERS: &'static str = "NCDHW";
    type Dims = [usize; 5];
    type Strides = [isize; 5];
}

/// Batched matrices for matmul: dims `[b, m, n]` (batch, rows, columns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Matmul;
impl Family for Matmul {
    const LETTERS: &'static str = "BMN";
    type Dims = [usize; 3];
    type Strides = [isize; 3];
}

/// The default letters of a descriptor of rank `rank`: `"BMN"`, `"NCHW"`, `"NCDHW"`, or none
/// above rank 5 (the guide names no letters there).
pub const fn default_letters(rank: usize) -> Option<&'static str> {
    match rank {
        3 => Some(Matmul::LETTERS),
        4 => Some(Image::LETTERS),
        5 => Some(Volume::LETTERS),
        _ => None,
    }
}
