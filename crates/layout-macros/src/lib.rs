//! The `layout!` proc macro of typed-layout (not yet implemented).
//!
//! `layout!` will declare layouts in cuDNN notation (`"NC/4HW4"`, `"NHWC"` with `"WC"` packed,
//! a 6-D layout with a `T` axis) and reject illegal specs at compile time with errors that point
//! at the offending letter. Parsing and validation will call the `const` parser in
//! `layout_types::notation`, so the macro and the runtime share one rule set. Until then this
//! crate exports nothing.

#![forbid(unsafe_code)]
