//! Casts defined for every pair of element types ([`Unscaled`], [`Scale`], [`PerChannel`]): the
//! ones a pass whose types are known only at run time can take ([`DynTensor`]'s fused pass).
//!
//! [`DynTensor`]: crate::DynTensor

use super::{Cast, CastNest, PerChannel, Scale, Unscaled};
use crate::dtype::Element;
use crate::error::LayoutError;
use crate::platform::out::Out;

mod sealed {
    pub trait Sealed {}
}

/// A cast from every element type to every element type, so that a runtime tensor's pass can
/// pick the pair at run time (each pair is still its own monomorphized loop): [`Unscaled`],
/// [`Scale`], [`PerChannel`]. Sealed: a cast of one's own is a [`Cast`] for the typed pass.
pub trait EveryCast: sealed::Sealed + Copy + Send + Sync {
    /// Runs `plan` from `src` into `dst` with this cast, after checking its channel count.
    #[doc(hidden)]
    fn run_plan<T: Element, U: Element>(
        self,
        plan: &CastNest,
        src: &[T],
        dst: &mut [U],
    ) -> Result<(), LayoutError>;
}

macro_rules! every_cast {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl EveryCast for $t {
            fn run_plan<T: Element, U: Element>(self, plan: &CastNest, src: &[T], dst: &mut [U]) -> Result<(), LayoutError> {
                <Self as Cast<T, U>>::check_channels(&self, plan.channels())?;
                plan.run(src, Out::new(dst), self);
                Ok(())
            }
        }
    )*};
}

every_cast!(Unscaled, Scale, PerChannel<'_>);
