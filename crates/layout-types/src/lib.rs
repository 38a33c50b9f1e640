//! The core of typed-layout: notation → family → placement → layouts → loop plan → CPU
//! conversions → tensors → cast → descriptors → runtime tensors.
//!
//! Use it through the `typed-layout` facade, whose crate docs map each concept of the cuDNN
//! guide to the type that implements it. Every public item has exactly one path: the vocabulary
//! of every program (layouts, shapes, tensors, descriptors, errors) at the crate root, and the
//! vocabularies of specialists in namespaces:
//!
//! * [`cast`]: relayout, cast and channel padding in one pass;
//! * [`conv`]: the tensors of a convolution together: which filter layout goes with which input,
//!   groups, padding, stride, the output's dims;
//! * [`cudnn`]: a descriptor as cuDNN's own arguments, within cuDNN's limits;
//! * [`tensor_core`]: the guide's Tensor Core rules as run-time and compile-time checks;
//! * [`predicates`]: the guide's questions (packed? overlapping?) on plain dims and strides;
//! * [`placement`]: where each element lives: the one stride derivation, at compile time and at
//!   run time;
//! * [`loops`]: the loop plan of a conversion, which every backend runs;
//! * [`narrow`]: f64 to the 16-bit floats, correctly rounded;
//! * [`simd`]: the CPU's SIMD level, detected at run time, and copies with streaming stores.
//!
//! The rooms behind them and the one-way arrows between the rooms are drawn in the repository's
//! `ARCHITECTURE.md`.
//!
//! ```
//! use layout_types::{Nhwc, Shape};
//! assert_eq!(Shape::<Nhwc>::new([1, 64, 5, 4])?.strides(), [1280, 1, 256, 64]);
//! # Ok::<(), layout_types::LayoutError>(())
//! ```

// `unsafe` lives in one room, `platform`, with its safety argument; everywhere else it is an error.
#![deny(unsafe_code)]

// The rooms; their layering (lowest first) is the `layers` block of ARCHITECTURE.md, which
// tests/architecture.rs checks.
pub mod cast;
pub mod conv;
mod convert;
mod desc;
mod dtype;
mod dynamic;
mod error;
mod family;
pub mod interop;
mod layout;
pub mod loops;
mod notation;
mod overlap;
pub mod placement;
#[allow(unsafe_code)]
mod platform;
pub mod predicates;
#[cfg(feature = "parallel")]
mod tasks;
mod tensor;
pub mod tensor_core;

pub use convert::{convert, Destination, Source, PARALLEL_THRESHOLD_BYTES};
pub use desc::{DynLayout, TensorDesc};
pub use dtype::{narrow, DataType, Element};
pub use dynamic::{DynTensor, IntoTensorError};
pub use error::{DimName, LayoutError, Letters};
pub use family::{
    BuiltinFamily, ConvFilter, ConvInput, DimArray, Droppable, Dropped, Family, Filter, Image, IntoAxis,
    Matmul, SameFamily, Volume, VolumeFilter,
};
pub use layout::{
    Arrangement, Bmn, Cdhwn, Chwn, ColMajor, Dims3, Dims4, Dims5, Dims6, Dims7, Dims8, DimsOf, FilterDims,
    ImageDims, InLayout, Kcdrs, Kcrs, KcxRsx, Kdrsc, Krsc, Layout, MatmulDims, MatrixOrder, NamedLayout,
    Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, PerDimStrides, RowMajor, Shape, StaticShape, Strided, StridedShape,
    StridesOf, Sub, SubShape, VolumeDims, VolumeFilterDims,
};
pub use notation::{
    check_family_letters, Format, NotationBuf, NotationError, NotationErrorKind, Vector, MAX_RANK, MIN_RANK,
};
pub use overlap::Overlap;
pub use platform::simd;
pub use tensor::{
    AxisChunksMut, IndexedIter, Iter, IterMut, Owned, Storage, StorageMut, StridedView, StridedViewMut,
    SubView, SubViewMut, Tensor, TensorBase, TensorView, TensorViewMut, View, ViewMut, STORAGE_ALIGN,
};

/// cuDNN's descriptor arguments as plain values, checked against cuDNN's limits: the
/// `(dataType, nbDims, dimA, strideA)` that `cudnnSetTensorNdDescriptor` takes, the bytes
/// `cudnnGetTensorSizeInBytes` reports, and the legacy `cudnnTensorFormat_t`.
///
/// Nothing here calls cuDNN, so every value can be built and checked on any machine; the GPU
/// crate's `cudnn` feature hands them to the library (and its tests compare them with what
/// libcudnn itself computes).
///
/// ```
/// use typed_layout::{cudnn::TensorFormat, DataType, DynLayout, Nhwc, Shape, TensorDesc};
/// let shape = Shape::<Nhwc>::new([1, 64, 5, 4])?;
/// let nd = shape.cudnn(DataType::Half)?;
/// assert_eq!((nd.data_type() as i32, nd.nb_dims()), (2, 4)); // CUDNN_DATA_HALF, 4 dims
/// assert_eq!(nd.dims(), &[1, 64, 5, 4]);
/// assert_eq!(nd.strides(), &[1280, 1, 256, 64]);
/// assert_eq!(nd.size_in_bytes(), 1280 * 2);
/// // And back: cuDNN's arrays into a checked descriptor.
/// let desc = TensorDesc::from_cudnn(2, nd.dims(), nd.strides())?;
/// assert_eq!(desc.cudnn()?, nd);
/// assert_eq!(TensorFormat::of(&DynLayout::of::<Nhwc>()), Some(TensorFormat::Nhwc));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
pub mod cudnn {
    pub use crate::desc::{
        DescriptorKind, DescriptorType, FormatArgs, NdArgs, TensorFormat, MAX_ELEMENTS, MAX_INT,
    };
    pub use crate::error::CudnnError;
}
