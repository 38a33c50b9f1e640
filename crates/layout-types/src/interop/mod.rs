//! The ways in and out through the crates engines already use, each behind its own feature:
//! `serde` (feature `serde`) for layouts, shapes, descriptors and data types.

#[cfg(feature = "serde")]
pub mod serde;
