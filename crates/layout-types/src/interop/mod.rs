//! The ways in and out through the crates engines already use, each behind its own feature:
//! `serde` (feature `serde`) for layouts, shapes, descriptors and data types; `ndarray` (feature
//! `ndarray`): zero-copy views both ways and owned conversions; `safetensors` (feature
//! `safetensors`): tensors in and out of `.safetensors` files, their layouts recorded; `dlpack`
//! (feature `dlpack`): host tensors out and in through DLPack, the layout in the strides.

#[cfg(feature = "dlpack")]
pub mod dlpack;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "safetensors")]
#[cfg(target_endian = "little")]
pub mod safetensors;
#[cfg(feature = "serde")]
pub mod serde;
