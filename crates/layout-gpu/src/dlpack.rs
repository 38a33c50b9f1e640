//! DLPack for device tensors (feature `dlpack`): a [`DeviceTensor`] out without a copy, and a
//! foreign CUDA tensor in by a device-to-device copy, the layout carried in the strides exactly
//! as for host tensors ([`typed_layout::interop::dlpack`](layout_types::interop::dlpack): its
//! geometry, its size-1 rule, its physical axes for NC/xHWx).
//!
//! **Streams.** DLPack's C exchange names no stream, so both directions settle the order
//! themselves. [`export`] waits for the work queued on the tensor's stream before it hands the
//! tensor out: the consumer may read it on any stream. [`import`] copies on the handle's stream
//! and waits for the copy, so the foreign memory is only borrowed for the call: its producer
//! must have finished writing it ([`DeviceDlpackRef::new`]'s contract), as PyTorch has after
//! `torch.cuda.synchronize()` or on the stream it was asked to export for.
//!
//! **Lifetime.** The exported tensor owns the [`DeviceTensor`]; the consumer's deleter drops it,
//! which frees the allocation in order on its stream. A consumer must have finished its own
//! work on the memory when it calls the deleter (PyTorch: when the tensor is collected).
//!
//! ```no_run
//! // Needs a CUDA device.
//! use layout_gpu::dlpack::{self, DeviceDlpackRef};
//! use layout_gpu::{DeviceTensor, Gpu};
//! use typed_layout::{Nhwc, Tensor};
//! let gpu = Gpu::new(0)?;
//! let x = gpu.upload(&Tensor::<f32, Nhwc>::filled([1, 3, 2, 2], 0.5)?)?;
//! let exported = dlpack::export(x)?;
//! // SAFETY: our own export: device memory, ready (export waited), and nothing writes it.
//! let r = unsafe { DeviceDlpackRef::new(&exported)? };
//! assert_eq!((r.info().device_type(), r.info().strides()), (2, &[12, 1, 6, 3][..]));
//! let back: DeviceTensor<f32, Nhwc> = dlpack::import(&gpu, &r)?;
//! assert_eq!(gpu.download(&back)?, Tensor::<f32, Nhwc>::filled([1, 3, 2, 2], 0.5)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cudarc::driver::DevicePtr;
use layout_types::interop::dlpack::geometry;
use layout_types::{DynLayout, Layout};

use crate::error::GpuError;
use crate::ffi;
use crate::handle::Gpu;
use crate::tensor::{DeviceElement, DeviceTensor};

pub use crate::ffi::dlpack::DeviceDlpackRef;
pub use layout_types::interop::dlpack::{Dlpack, DlpackError, DlpackInfo};

/// Exports `tensor` without a copy, once the work queued on its stream is done: a DLPack
/// tensor of `kDLCUDA` and the tensor's ordinal, with the geometry of
/// [`interop::dlpack::geometry`](layout_types::interop::dlpack::geometry) (logical dims and
/// the layout's strides; NC/xHWx's physical axes). The managed tensor owns the device tensor
/// until the consumer's deleter drops it.
pub fn export<T: DeviceElement, L: Layout>(tensor: DeviceTensor<T, L>) -> Result<Dlpack, GpuError> {
    let (dims, strides) = geometry(&DynLayout::of::<L>(), tensor.shape().placement());
    let as_i64 = |v: Vec<usize>| -> Result<Vec<i64>, GpuError> {
        let reason = || GpuError::Exchange { reason: "a dim or stride past i64".into() };
        v.into_iter().map(|x| i64::try_from(x).map_err(|_| reason())).collect()
    };
    let (dims, strides) = (as_i64(dims)?, as_i64(strides)?);
    let ordinal = i32::try_from(tensor.ordinal())
        .map_err(|_| GpuError::Exchange { reason: "a device ordinal past i32".into() })?;
    let stream = tensor.data().stream().clone();
    stream.synchronize().map_err(|e| GpuError::driver("synchronizing before a DLPack export", 0, e))?;
    let (address, record) = tensor.data().device_ptr(&stream);
    drop(record);
    let tensor = Box::new(tensor);
    // The contract: `address` starts the allocation the boxed tensor owns, and the geometry
    // is its placement's, so it addresses that allocation only.
    ffi::dlpack::export(tensor, address, ordinal, T::DATA_TYPE, dims, strides)
        .map_err(|reason| GpuError::Exchange { reason })
}

/// Copies the tensor `r` checked into a new [`DeviceTensor`] of layout `L` on `gpu`'s device
/// (device to device, on the handle's stream, waited for): its data type must be `T`, its
/// dims and strides `L`'s ([`DeviceDlpackRef::shape_as`]) and its device the handle's
/// ([`GpuError::WrongDevice`]).
pub fn import<T: DeviceElement, L: Layout>(
    gpu: &Gpu,
    r: &DeviceDlpackRef<'_>,
) -> Result<DeviceTensor<T, L>, GpuError> {
    if r.ordinal() != gpu.ordinal() {
        return Err(GpuError::WrongDevice { handle: gpu.ordinal(), tensor: r.ordinal() });
    }
    let shape = r.shape_as::<T, L>()?;
    let bytes = shape.len() * T::SIZE;
    if bytes > r.info().byte_len() {
        // Unreachable for strides that are L's; an error rather than a read past the span.
        return Err(GpuError::Exchange {
            reason: "the tensor's strides reach fewer bytes than its layout holds".into(),
        });
    }
    gpu.bind()?;
    let mut data = gpu.alloc_zeros::<T>(shape.len())?;
    // The contract: `bytes` fit `data` (its length is the shape's), and the source is the span
    // `r` checked on this device, ready and unwritten by DeviceDlpackRef::new's contract.
    ffi::dlpack::copy_from(gpu.stream(), r.info().address() as u64, bytes, &mut data)
        .map_err(|e| GpuError::driver("copying a DLPack tensor in", bytes, e))?;
    Ok(DeviceTensor::new(data, shape))
}
