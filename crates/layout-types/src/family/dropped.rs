//! The family a tensor has after one of its axes is indexed away: an image of a batch is a
//! `Dropped<Image, 'N'>` (letters `CHW`), a channel of a volume a `Dropped<Volume, 'C'>`.

use core::fmt;
use core::marker::PhantomData;

use super::dim_array::Droppable;
use super::Family;
use crate::notation::NotationBuf;

/// The family `F` without its axis `AXIS` (a letter of `F`; another letter is a compile error):
/// the family of [`index_axis`](crate::TensorBase::index_axis)'s result. Defined for families
/// of rank 4 to 8 (rank 3 is the guide's least).
///
/// ```
/// use typed_layout::{Dropped, Family, Image, Volume};
/// assert_eq!(Dropped::<Image, 'N'>::LETTERS, "CHW");
/// assert_eq!(Dropped::<Volume, 'C'>::LETTERS, "NDHW");
/// assert_eq!(Dropped::<Image, 'N'>::AXIS_INDEX, 0);
/// ```
pub struct Dropped<F, const AXIS: char>(PhantomData<F>);

impl<F: Family, const AXIS: char> Dropped<F, AXIS> {
    /// The position of `AXIS` in `F`'s letters; naming a letter `F` has not fails to compile.
    pub const AXIS_INDEX: usize = {
        let letters = F::LETTERS.as_bytes();
        let mut k = 0;
        while k < letters.len() && letters[k] as char != AXIS {
            k += 1;
        }
        assert!(k < letters.len(), "the family has no axis of this letter");
        k
    };
    /// The letters, `F`'s without `AXIS`.
    const LETTERS_BUF: &'static NotationBuf = &NotationBuf::letters_without(F::LETTERS, Self::AXIS_INDEX);
}

// By hand: derives would ask `F` for what its marker never needs.
impl<F, const AXIS: char> Clone for Dropped<F, AXIS> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F, const AXIS: char> Copy for Dropped<F, AXIS> {}
impl<F, const AXIS: char> Default for Dropped<F, AXIS> {
    fn default() -> Self {
        Dropped(PhantomData)
    }
}
impl<F: Family, const AXIS: char> fmt::Debug for Dropped<F, AXIS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dropped<{:?}, {AXIS:?}>", F::default())
    }
}

impl<F: Family, const AXIS: char> Family for Dropped<F, AXIS>
where
    F::Dims: Droppable<usize>,
    F::Strides: Droppable<isize>,
{
    const LETTERS: &'static str = Self::LETTERS_BUF.as_str();
    type Dims = <F::Dims as Droppable<usize>>::Lower;
    type Strides = <F::Strides as Droppable<isize>>::Lower;
}
