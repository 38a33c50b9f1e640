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
pub mod safetensors;

// Safetensors files are little-endian and read in place.
#[cfg(all(feature = "safetensors", target_endian = "big"))]
compile_error!(
    "the `safetensors` feature reads little-endian files in place: big-endian targets are not supported"
);
#[cfg(feature = "serde")]
pub mod serde;
