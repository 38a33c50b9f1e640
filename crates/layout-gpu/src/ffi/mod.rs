//! Every `unsafe` of this crate, one file per CUDA library; the rest of the crate denies
//! `unsafe_code` and calls what is here.
//!
//! cudarc does the FFI, and its `result` and `safe` layers are called wherever they have the
//! call. What they lack is wrapped here once: behind an owning type whose invariants make each
//! call sound, or a function whose contract is written beside it. Each file opens with its
//! safety argument. Wrappers only: what to call, and when, is decided by the rooms above.

pub(crate) mod driver;
pub(crate) mod nvrtc;

#[cfg(feature = "cudnn")]
pub(crate) mod cudnn;

#[cfg(feature = "dlpack")]
pub(crate) mod dlpack;
