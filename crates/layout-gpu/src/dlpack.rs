//! DLPack for device tensors (feature `dlpack`; through the facade `typed_layout::gpu::dlpack`):
//! a [`DeviceTensor`] out without a copy, and a foreign CUDA tensor in by a device-to-device copy,
//! the layout carried in the strides exactly as for host tensors
//! ([`typed_layout::interop::dlpack`](layout_types::interop::dlpack): its geometry, its size-1
//! rule, its physical axes for NC/xHWx). Only versioned DLPack (1.x, `dltensor_versioned`
//! capsules) is exchanged: from PyTorch, `t.__dlpack__(max_version=(1, 0))`
//! (`torch.utils.dlpack.to_dlpack` and older builds give legacy capsules, which this cannot
//! read). [`Dlpack`] is dlpark 0.10's managed tensor, which a caller turns into a Python capsule
//! with dlpark's own bindings (its `pyo3` feature, on the caller's `dlpark` dependency).
//!
//! **Layouts in.** [`import`] reads a tensor whose strides are exactly the layout's (size-1 dims
//! aside); there is no strided or any-layout import on the device. A PyTorch tensor of shape
//! `(N, C, H, W)` in `channels_last` memory is NHWC here; a contiguous `(N, H, W, C)` tensor is
//! the same memory seen as `t.permute(0, 3, 1, 2)` (a view, no copy). Anything else: make it
//! contiguous in one of the layout's memory formats first.
//!
//! **Streams.** DLPack's C exchange names no stream, so both directions settle the order
//! themselves.
//! * [`export`] blocks the calling thread until every write of the tensor (on whichever handle's
//!   stream it was queued) is done, then hands it out: the consumer may read it on any stream.
//! * [`import`] copies on the handle's stream and blocks until the copy is done: the foreign
//!   memory is only read during the call. The producer's writes must be complete before the call
//!   ([`DeviceDlpackRef::new`]'s contract). The handle's stream is a non-blocking stream, not
//!   ordered after any of PyTorch's: call `torch.cuda.synchronize()` (or synchronize the
//!   producing stream) before `__dlpack__`.
//!
//! **Lifetime.** The exported tensor owns the [`DeviceTensor`]; the consumer's deleter drops it.
//! A consumer may call the deleter while its own kernels still read the memory (PyTorch does,
//! when the tensor's last reference goes), so the drop first blocks the dropping thread until all
//! work queued on the device's primary context is done (the context [`Gpu`] uses, and PyTorch:
//! all of PyTorch's queued kernels), then frees the allocation. Do not let an exported tensor go
//! inside a CUDA graph capture (a context synchronize breaks it) or a latency-critical loop: keep
//! it alive, or copy it into memory the consumer owns.
//!
//! ```no_run
//! // Needs a CUDA device.
//! use typed_layout::gpu::dlpack::{self, DeviceDlpackRef};
//! use typed_layout::gpu::{DeviceTensor, Gpu};
//! use typed_layout::{Nhwc, Tensor};
//! let gpu = Gpu::new(0)?; // one handle for the program: each has its stream and kernel cache
//! let x = gpu.upload(&Tensor::<f32, Nhwc>::filled([1, 3, 2, 2], 0.5)?)?;
//! let exported = dlpack::export(x)?;
//! // SAFETY: our own export: device memory, complete (export waited), and nothing writes it.
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

/// Exports `tensor` without a copy, blocking until the writes queued for it are done: a DLPack
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
    // The pointer first: taking it orders this stream after the tensor's last write, whichever
    // stream that was on; then the host waits for this stream.
    let (address, record) = tensor.data().device_ptr(&stream);
    drop(record);
    stream.synchronize().map_err(|e| GpuError::driver("synchronizing before a DLPack export", 0, e))?;
    let tensor = Box::new(Handed(tensor));
    // The contract: `address` starts the allocation the boxed tensor owns, and the geometry
    // is its placement's, so it addresses that allocation only.
    ffi::dlpack::export(tensor, address, ordinal, T::DATA_TYPE, dims, strides)
        .map_err(|reason| GpuError::Exchange { reason })
}

/// A device tensor handed out through DLPack: dropped by the consumer's deleter, once every
/// stream of its context is done (the consumer's kernels may still be reading it).
struct Handed<T: DeviceElement, L: Layout>(DeviceTensor<T, L>);

impl<T: DeviceElement, L: Layout> Drop for Handed<T, L> {
    fn drop(&mut self) {
        // A failed wait (a context already broken by an earlier fault) leaves nothing better
        // to do than free as cudarc does: on the tensor's stream, after its own events.
        let _ = self.0.data().context().synchronize();
    }
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
    let mut data = gpu.alloc_zeros::<T>(shape.len())?;
    // The contract: `bytes` fit `data` (its length is the shape's), and the source is the span
    // `r` checked on this device, complete and unwritten by DeviceDlpackRef::new's contract.
    ffi::dlpack::copy_from(gpu.stream(), r.info().address() as u64, bytes, &mut data)
        .map_err(|e| GpuError::driver("copying a DLPack tensor in", bytes, e))?;
    Ok(DeviceTensor::new(data, shape))
}
