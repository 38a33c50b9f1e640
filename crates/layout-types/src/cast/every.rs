//! Casts defined for every pair of element types ([`Unscaled`], [`Scale`], [`PerChannel`]): the
//! ones a pass whose types are known only at run time can take ([`DynTensor`]'s fused pass).
//!
//! [`DynTensor`]: crate::DynTensor

use super::{Cast, CastNest, PerChannel, Scale, Unscaled};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::tensor::Owned;

/// The pass each cast of [`EveryCast`] runs, out of reach outside typed-layout (a public trait
/// in a private module: it cannot be named there, nor implemented).
pub(crate) mod sealed {
    use crate::cast::CastNest;
    use crate::dtype::Element;
    use crate::error::LayoutError;
    use crate::tensor::Owned;

    pub trait Sealed {
        /// Runs `plan` from `src` into new storage of `bytes` bytes (checked by the caller to fit
        /// in `isize`) with this cast, after checking its channel count.
        fn run_fresh<T: Element, U: Element>(
            self,
            plan: &CastNest,
            src: &[T],
            bytes: usize,
        ) -> Result<Owned<U>, LayoutError>;
    }
}

/// A cast from every element type to every element type, so that a runtime tensor's pass can
/// pick the pair at run time (each pair is still its own monomorphized loop): [`Unscaled`],
/// [`Scale`], [`PerChannel`]. Sealed: a cast of one's own is a [`Cast`] for the typed pass.
pub trait EveryCast: sealed::Sealed + Copy + Send + Sync {}

macro_rules! every_cast {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            fn run_fresh<T: Element, U: Element>(self, plan: &CastNest, src: &[T], bytes: usize) -> Result<Owned<U>, LayoutError> {
                <Self as Cast<T, U>>::check_channels(&self, plan.channels())?;
                // The pass writes every element of its destination, padding included (its plan
                // is packed, and its run checks the length): no zero fill first.
                Owned::written(plan.len(), bytes, |out| {
                    plan.run(src, out, self);
                    Ok(())
                })
            }
        }
        impl EveryCast for $t {}
    )*};
}

every_cast!(Unscaled, Scale, PerChannel<'_>);
