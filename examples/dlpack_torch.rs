//! A shared library for PyTorch's DLPack exchange of CUDA tensors (`bench/gpu-kit/torch_dlpack.py`
//! loads it with ctypes; the GPU kit runs it): a device tensor of ours read by
//! `torch.from_dlpack`, and a `channels_last` CUDA tensor of PyTorch's imported by us, each
//! checked against the same formula on both sides.
//!
//! ```sh
//! cargo build --release --example dlpack_torch --features dlpack
//! python bench/gpu-kit/torch_dlpack.py target/release/examples/libdlpack_torch.so
//! ```
//!
//! The element of the NHWC image at logical (n, c, h, w) is `((n·C + c)·H + h)·W + w` (as f32).
//! Each call makes its own `Gpu` (a test does two calls); a library keeps one handle, whose
//! stream and kernel cache every call then shares.

use dlpark::ffi::DLManagedTensorVersioned;
use typed_layout::gpu::dlpack::{self, DeviceDlpackRef, Dlpack};
use typed_layout::gpu::{DeviceTensor, Gpu};
use typed_layout::{Nchw, Nhwc, Tensor};

fn formula(dims: [usize; 4]) -> Result<Tensor<f32, Nhwc>, typed_layout::LayoutError> {
    let [_, cs, hs, ws] = dims;
    Tensor::from_fn(dims, |[n, c, h, w]| (((n * cs + c) * hs + h) * ws + w) as f32)
}

/// The NHWC f32 image of dims (logical order), uploaded to device 0 and exported as a DLPack
/// tensor the caller owns (PyTorch takes it through a `dltensor_versioned` capsule); null on
/// failure (the reason on stderr).
#[unsafe(no_mangle)]
pub extern "C" fn tl_export_device_nhwc_f32(
    n: usize,
    c: usize,
    h: usize,
    w: usize,
) -> *mut DLManagedTensorVersioned {
    let exported = (|| -> Result<Dlpack, Box<dyn std::error::Error>> {
        let gpu = Gpu::new(0)?;
        Ok(dlpack::export(gpu.upload(&formula([n, c, h, w])?)?)?)
    })();
    match exported {
        Ok(tensor) => tensor.into_raw(),
        Err(e) => {
            eprintln!("tl_export_device_nhwc_f32: {e}");
            core::ptr::null_mut()
        }
    }
}

/// Takes a CUDA DLPack tensor from PyTorch (ownership passes: its deleter runs here), imports
/// it as an NHWC f32 device tensor of the given dims, downloads it and checks every element
/// against the formula. Returns 0 when every element is right, 1 otherwise (the reason on
/// stderr).
///
/// # Safety
///
/// `tensor` is a live `DLManagedTensorVersioned` handed over by its producer, on device 0,
/// complete (the producer synchronized), and nothing writes its memory until the deleter runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tl_check_device_nhwc_f32(
    tensor: *mut DLManagedTensorVersioned,
    n: usize,
    c: usize,
    h: usize,
    w: usize,
) -> i32 {
    // SAFETY: the caller's contract: a live managed tensor, now ours.
    let tensor = match unsafe { Dlpack::from_raw(tensor) } {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tl_check_device_nhwc_f32: {e}");
            return 1;
        }
    };
    let checked = (|| -> Result<(), Box<dyn std::error::Error>> {
        let gpu = Gpu::new(0)?;
        // SAFETY: the caller's contract: device memory, complete, unwritten while we copy it.
        let r = unsafe { DeviceDlpackRef::new(&tensor)? };
        let x: DeviceTensor<f32, Nhwc> = dlpack::import(&gpu, &r)?;
        let host = gpu.download(&x)?;
        if host.to_layout::<Nchw>()? != formula([n, c, h, w])?.to_layout::<Nchw>()? {
            return Err("the elements differ from the formula".into());
        }
        Ok(())
    })();
    match checked {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tl_check_device_nhwc_f32: {e}");
            1
        }
    }
}
