//! Casts defined for every pair of element types ([`Unscaled`], [`Scale`], [`PerChannel`]): the
//! ones a pass whose types are known only at run time can take ([`DynTensor`]'s fused pass).
//!
//! [`DynTensor`]: crate::DynTensor

use super::{Cast, CastNest, PerChannel, Scale, Unscaled};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::tensor::Owned;

mod sealed {
    pub trait Sealed {}
}

/// A cast from every element type to every element type, so that a runtime tensor's pass can
/// pick the pair at run time (each pair is still its own monomorphized loop): [`Unscaled`],
/// [`Scale`], [`PerChannel`]. Sealed: a cast of one's own is a [`Cast`] for the typed pass.
pub trait EveryCast: sealed::Sealed + Copy + Send + Sync {
    /// Runs `plan` from `src` into new storage with this cast, after checking its channel
    /// count (`bytes`: the storage's, checked by the caller to fit in `isize`).
    #[doc(hidden)]
    fn run_fresh<T: Element, U: Element>(
        self,
        plan: &CastNest,
        src: &[T],
        bytes: usize,
    ) -> Result<Owned<U>, LayoutError>;
}

macro_rules! every_cast {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl EveryCast for $t {
            fn run_fresh<T: Element, U: Element>(self, plan: &CastNest, src: &[T], bytes: usize) -> Result<Owned<U>, LayoutError> {
                <Self as Cast<T, U>>::check_channels(&self, plan.channels())?;
                // The pass writes its whole destination, padding included: no zero fill first.
                Owned::written(plan.len(), bytes, |out| {
                    plan.run(src, out, self);
                    Ok(())
                })
            }
        }
    )*};
}

every_cast!(Unscaled, Scale, PerChannel<'_>);
