//! DLPack's managed tensors of device memory (feature `dlpack`, through dlpark). Safety
//! argument, in three parts:
//!
//! * [`DeviceDlpackRef::new`] is an `unsafe fn`: nothing can check a foreign device pointer,
//!   so its caller vouches for the memory (its contract); it reads the metadata only.
//! * [`export`] hands out a device tensor's allocation: the managed tensor's context owns the
//!   tensor (boxed), so the allocation lives until the consumer's deleter drops it, and the
//!   shape and strides its caller passes address elements of that allocation only.
//! * [`copy_from`] copies bytes from a foreign device address into a buffer of ours, on our
//!   stream, and waits for the copy: its caller passes the span a checked
//!   [`DlpackInfo`] reached, under the contract of [`DeviceDlpackRef::new`] (memory of that
//!   device, ready, not written until the call returns).

use core::ffi::c_void;
use core::marker::PhantomData;

use cudarc::driver::{sys::CUdeviceptr, CudaSlice, CudaStream, DevicePtrMut, DriverError};
use dlpark::ffi::DLDevice;
use dlpark::metadata::Dynamic;
use layout_types::interop::dlpack::{dl_data_type, placement, Dlpack, DlpackError, DlpackInfo};
use layout_types::{DataType, DynLayout, Element, Layout, LayoutError, Shape};

/// DLPack's device type of CUDA device memory (`kDLCUDA`).
const KDL_CUDA: u32 = 2;

/// A managed tensor of the CUDA device `ordinal` over the allocation starting at `address`,
/// which `owner` owns and keeps while it lives; `shape` and `strides` in elements. The owner is
/// dropped by the tensor's deleter.
///
/// # Contract
///
/// `address` is the start of a device allocation `owner` owns (moving the box does not free or
/// move it), and `shape` and `strides` address elements of `data_type` inside it only.
pub(crate) fn export<O: Send + 'static>(
    owner: Box<O>,
    address: CUdeviceptr,
    ordinal: i32,
    data_type: DataType,
    shape: Vec<i64>,
    strides: Vec<i64>,
) -> Result<Dlpack, String> {
    let mut tensor = Dynamic::new(shape, strides).initialize(owner).map_err(|e| e.to_string())?;
    let pointer = address as usize as *mut c_void;
    tensor.set_data(pointer).set_device(DLDevice::cuda(ordinal)).set_dtype(dl_data_type(data_type));
    // SAFETY: the contract above: the data pointer is the owner's device allocation, which the
    // tensor's context now owns and drops only in the deleter; shape and strides (copied into
    // the tensor's own allocation) stay inside it. No flags are set, which claims nothing: the
    // memory is writable and not a copy made for the consumer.
    Ok(unsafe { tensor.finish() })
}

/// Copies `bytes` bytes from the device address `from` into the start of `to` on `stream` (its
/// context made current on this thread), and waits until the copy is done.
///
/// # Contract
///
/// `bytes` is at most `to`'s size in bytes, and the `bytes` bytes from `from` are memory of
/// `to`'s device (or memory it can address), whose contents are complete before this call
/// and which nothing writes until it returns.
pub(crate) fn copy_from<T>(
    stream: &CudaStream,
    from: CUdeviceptr,
    bytes: usize,
    to: &mut CudaSlice<T>,
) -> Result<(), DriverError> {
    debug_assert!(bytes <= to.len() * core::mem::size_of::<T>());
    stream.context().bind_to_thread()?;
    let (dst, record) = to.device_ptr_mut(stream);
    // SAFETY: the contract above: `dst` is a live allocation of ours of at least `bytes` bytes
    // (the guard orders the copy after earlier work on it), and the source is readable device
    // memory of `bytes` bytes that nothing writes while the copy runs: we wait for it below.
    unsafe { cudarc::driver::result::memcpy_dtod_async(dst, from, bytes, stream.cu_stream()) }?;
    drop(record);
    stream.synchronize()
}

/// A foreign CUDA tensor, checked: what [`import`](crate::dlpack::import) copies from.
#[derive(Debug)]
pub struct DeviceDlpackRef<'a> {
    info: DlpackInfo,
    ordinal: usize,
    tensor: PhantomData<&'a Dlpack>,
}

impl<'a> DeviceDlpackRef<'a> {
    /// Reads `tensor`'s metadata ([`DlpackInfo::read`], then: on a CUDA device, `kDLCUDA`).
    /// Nothing is read from the device here.
    ///
    /// # Safety
    ///
    /// For as long as the borrow `'a` lasts, every byte from the byte-offset data pointer of
    /// `tensor` to the end of the last element its shape and strides address must be memory
    /// of that CUDA device (an allocation the current process can address). Whenever an
    /// [`import`](crate::dlpack::import) reads it, its contents must be complete (the producer's
    /// writes finished, not merely queued on a stream) and nothing may write them until that
    /// import returns.
    pub unsafe fn new(tensor: &'a Dlpack) -> Result<DeviceDlpackRef<'a>, DlpackError> {
        let info = DlpackInfo::read(tensor)?;
        info.expect_device(KDL_CUDA, "CUDA device memory (kDLCUDA, 2)")?;
        let ordinal = usize::try_from(info.device_id()).map_err(|_| DlpackError::Device {
            device_type: info.device_type(),
            device_id: info.device_id(),
            expected: "a CUDA device of ordinal 0 or more",
        })?;
        Ok(DeviceDlpackRef { info, ordinal, tensor: PhantomData })
    }

    /// What the tensor says about itself.
    pub fn info(&self) -> &DlpackInfo {
        &self.info
    }

    /// The ordinal of the device holding it.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The tensor's shape in layout `L`, if it holds `T`s ([`LayoutError::DataTypeMismatch`]
    /// otherwise) and its dims and strides are `L`'s (see
    /// [`interop::dlpack::placement`](layout_types::interop::dlpack::placement)).
    pub fn shape_as<T: Element, L: Layout>(&self) -> Result<Shape<L>, LayoutError> {
        if self.info.data_type() != T::DATA_TYPE {
            return Err(LayoutError::DataTypeMismatch {
                expected: T::DATA_TYPE,
                found: self.info.data_type(),
            });
        }
        let placed = placement(&DynLayout::of::<L>(), self.info.shape(), self.info.strides())?;
        Shape::<L>::from_slice(placed.dims())
    }
}
