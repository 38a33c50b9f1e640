//! The core of typed-layout: notation → plan → layouts → descriptors → tensors → CPU conversions.
//!
//! Use it through the `typed-layout` facade, whose crate docs map each concept of the cuDNN
//! guide to the type that implements it. Modules, one per concept:
//!
//! * [`notation`]: cuDNN notation (`"NC/32HW32"`) as a typed [`Format`], parsed by a `const fn`;
//!   [`dyn_layout`]: the same notation as a runtime [`DynLayout`];
//! * [`plan`]: the one stride derivation, used at compile time and at run time;
//! * [`family`], [`layout`]: families of letters, zero-sized layouts, [`Shape`], [`StaticShape`];
//! * [`dtype`]: [`DataType`] and the sealed [`Element`];
//! * [`desc`], [`packing`], [`overlap`](mod@overlap): the runtime [`TensorDesc`] and the guide's predicates;
//!   [`cudnn`]: the descriptor as cuDNN's own arguments, within cuDNN's limits;
//! * [`tensor`]: host tensors and views; [`convert`](mod@convert): CPU conversions; [`cast`]: relayout,
//!   cast and channel padding in one pass;
//!   [`tensor_core`]: the guide's Tensor Core rules as run-time and compile-time checks;
//! * [`error`]: [`LayoutError`], which names the rule a bad input breaks.
//!
//! ```
//! use layout_types::{Nhwc, Shape};
//! assert_eq!(Shape::<Nhwc>::new([1, 64, 5, 4])?.strides(), [1280, 1, 256, 64]);
//! # Ok::<(), layout_types::LayoutError>(())
//! ```

#![forbid(unsafe_code)]

pub mod cast;
pub mod convert;
pub mod cudnn;
pub mod desc;
pub mod dtype;
pub mod dyn_layout;
pub mod error;
pub mod family;
pub mod layout;
pub mod notation;
pub mod overlap;
pub mod packing;
pub mod plan;
pub mod tensor;
pub mod tensor_core;

pub use convert::{convert, Destination, Source};
pub use desc::TensorDesc;
pub use dtype::{DataType, Element};
pub use dyn_layout::DynLayout;
pub use error::{DimName, LayoutError};
pub use family::{BuiltinFamily, DimArray, Family, Image, Matmul, SameFamily, Volume, MAX_RANK, MIN_RANK};
pub use layout::{
    Bmn, Cdhwn, Chwn, ColMajor, Dims3, Dims4, Dims5, Dims6, Dims7, Dims8, DimsOf, ImageDims, Layout,
    MatmulDims, MatrixOrder, NamedLayout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape, StaticShape,
    VolumeDims,
};
pub use notation::{Format, NotationBuf, NotationError, NotationErrorKind, Vector};
pub use overlap::Overlap;
pub use tensor::{StridedView, StridedViewMut, Tensor, TensorView, TensorViewMut};
