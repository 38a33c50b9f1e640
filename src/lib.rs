//! typed-layout: facade
#![forbid(unsafe_code)]
pub use layout_types::*;
