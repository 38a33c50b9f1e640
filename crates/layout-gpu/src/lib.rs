//! The GPU backend of typed-layout: device tensors and conversion kernels generated per
//! (source layout, destination layout, element size), compiled with NVRTC through cudarc.
//!
//! | The guide (cuDNN)                         | typed-layout                                   |
//! |-------------------------------------------|------------------------------------------------|
//! | `cudnnHandle_t`: one device, one stream   | [`Gpu`]: bound to one device, owns a stream and the kernel cache |
//! | device memory described by a tensor descriptor | [`DeviceTensor<T, L>`]: a packed buffer typed by its layout |
//! | `cudnnTransformTensor` between layouts    | [`Gpu::convert`], [`Gpu::to_layout`]           |
//! | input preparation (cast, pad C for Tensor Cores / INT8x32) | [`Gpu::relayout_cast_pad`], or [`Gpu::relayout_cast_pad_into`] a buffer of yours: one kernel ([`kernels::CastSpec`]) |
//! | `cudnnReorderFilterAndBias` (INT8x32 filters) | [`Gpu::reorder_int8x32`] into a [`DeviceReorderedFilter`]; cuDNN's own: `cudnn::Cudnn::reorder_int8x32` (feature `cudnn`) |
//! | `cudnnStatus_t`                           | [`GpuError`]: one variant per cause, with what to do |
//! | device memory handed to or taken from PyTorch, JAX, CuPy | `dlpack` (feature `dlpack`): a [`DeviceTensor`] out through DLPack without a copy, a CUDA tensor in by a copy, the layout in the strides |
//!
//! How a conversion becomes a kernel:
//!
//! 1. the host's [`LoopNest`](layout_types::loops::LoopNest) refines both layouts and fuses
//!    the axes contiguous on both sides (NCHW→NHWC becomes a batched 2-D transpose);
//! 2. [`kernels::route`] picks the kernel's shape (a vectorized copy, a gather for rows and
//!    narrow planes, a shared-memory tile for transposes) and its run-time [`kernels::Params`];
//! 3. [`kernels::KernelSpec::source`] writes the CUDA source with the shape, element size, loop
//!    count, access width and index width baked in;
//! 4. [`kernels::compile`] compiles it with NVRTC to a CUBIN for the device's architecture,
//!    once (PTX is the fallback): the handle's kernel cache keeps it by (source layout,
//!    destination layout, kernel spec);
//! 5. the handle launches it on its stream, through the crate's FFI module, the one place with
//!    `unsafe`.
//!
//! CUDA is loaded dynamically: this crate builds, documents and runs its CPU-side tests on a
//! machine with no CUDA at all. Without a driver, [`Gpu::new`] returns [`GpuError::NoDriver`];
//! without NVRTC, the first conversion returns [`GpuError::NoNvrtc`]. Nothing panics.
//!
//! ```no_run
//! // Needs a CUDA device and NVRTC.
//! use layout_gpu::{DeviceTensor, Gpu};
//! use typed_layout::{NcxHwx, Nchw, Tensor};
//! let gpu = Gpu::new(0)?;
//! let x = gpu.upload(&Tensor::<i8, Nchw>::filled([1, 64, 5, 4], 1)?)?;
//! let y: DeviceTensor<i8, NcxHwx<32>> = gpu.to_layout(&x)?;
//! println!("{} on {}: {} kernel(s) compiled", gpu.name()?, gpu.arch(), gpu.compiled_kernels());
//! # drop(y);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(unsafe_code)]

// The rooms, lowest first: error, tensor, ffi, kernels, cache, handle, convert, cast, reorder,
// dlpack, cudnn; each imports only rooms before it in that order (`ffi` holds every `unsafe`).
mod cache;
mod cast;
mod convert;
#[cfg(feature = "cudnn")]
pub mod cudnn;
#[cfg(feature = "dlpack")]
pub mod dlpack;
mod error;
#[allow(unsafe_code)]
mod ffi;
mod handle;
pub mod kernels;
mod reorder;
mod tensor;

pub use cast::DeviceQuantized;
/// The cudarc this crate is built on, for interop (events, raw pointers, other CUDA libraries).
pub use cudarc;
pub use error::GpuError;
pub use handle::{driver_available, Gpu};
pub use reorder::{DeviceReorderedBias, DeviceReorderedFilter};
pub use tensor::{DeviceChannelPadded, DeviceElement, DeviceTensor};
