//! tmp
#![forbid(unsafe_code)]
pub mod convert;
pub mod desc;
pub mod dtype;
pub mod error;
pub mod family;
pub mod layout;
pub mod notation;
pub mod overlap;
pub mod packing;
pub mod plan;
pub mod tensor;
pub use convert::convert;
pub use desc::TensorDesc;
pub use dtype::*; pub use error::*; pub use family::*; pub use layout::*; pub use notation::*; pub use tensor::*;
