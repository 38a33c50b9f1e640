//! A shared library for NumPy's DLPack exchange (`tests/fixtures/numpy_dlpack.py` loads it
//! with ctypes): typed-layout's export read by `numpy.from_dlpack`, and NumPy's `__dlpack__`
//! read by typed-layout, each checked against the same formula on both sides.
//!
//! ```sh
//! cargo build --example dlpack_numpy --features dlpack
//! python tests/fixtures/numpy_dlpack.py target/debug/examples/libdlpack_numpy.so
//! ```
//!
//! The element of the NHWC image at logical (n, c, h, w) is `((n·C + c)·H + h)·W + w` (as f32).

use dlpark::ffi::DLManagedTensorVersioned;
use typed_layout::interop::dlpack::{self, Dlpack, DlpackRef};
use typed_layout::{Nchw, Nhwc, Tensor};

fn value([n, c, h, w]: [usize; 4], [_, cs, hs, ws]: [usize; 4]) -> f32 {
    (((n * cs + c) * hs + h) * ws + w) as f32
}

/// An NHWC f32 image of dims (logical order) exported as a DLPack tensor the caller owns
/// (NumPy takes it through a `dltensor_versioned` capsule); null on failure.
#[unsafe(no_mangle)]
pub extern "C" fn tl_export_nhwc_f32(
    n: usize,
    c: usize,
    h: usize,
    w: usize,
) -> *mut DLManagedTensorVersioned {
    let dims = [n, c, h, w];
    let exported = Tensor::<f32, Nhwc>::from_fn(dims, |i| value(i, dims))
        .map_err(|e| e.to_string())
        .and_then(|t| dlpack::export(t).map_err(|e| e.to_string()));
    match exported {
        Ok(tensor) => tensor.into_raw(),
        Err(e) => {
            eprintln!("tl_export_nhwc_f32: {e}");
            core::ptr::null_mut()
        }
    }
}

/// Takes a DLPack tensor from NumPy (ownership passes: its deleter runs here), reads it as an
/// NHWC f32 view of the given dims without a copy, and checks every element against the formula.
/// Returns 0 when every element is right, 1 otherwise (the reason on stderr).
///
/// # Safety
///
/// `tensor` is a live `DLManagedTensorVersioned` handed over by its producer, whose memory
/// nothing writes until the deleter runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tl_check_nhwc_f32(
    tensor: *mut DLManagedTensorVersioned,
    n: usize,
    c: usize,
    h: usize,
    w: usize,
) -> i32 {
    // SAFETY: the caller's contract: a live managed tensor, now ours.
    let tensor: Dlpack = match unsafe { Dlpack::from_raw(tensor) } {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tl_check_nhwc_f32: {e}");
            return 1;
        }
    };
    let dims = [n, c, h, w];
    let checked = (|| -> Result<(), Box<dyn std::error::Error>> {
        // SAFETY: the caller's contract: the memory is live and unwritten while we read it.
        let r = unsafe { DlpackRef::new(&tensor)? };
        let view = dlpack::tensor_view::<f32, Nhwc>(&r)?;
        let expected = Tensor::<f32, Nchw>::from_fn(dims, |i| value(i, dims))?;
        if view.to_layout::<Nchw>()? != expected {
            return Err("the elements differ from the formula".into());
        }
        // And through the strides alone.
        let strided = dlpack::strided_view::<f32, typed_layout::Image>(&r)?;
        if strided.to_layout::<Nchw>()? != expected {
            return Err("the strided view differs from the formula".into());
        }
        Ok(())
    })();
    match checked {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tl_check_nhwc_f32: {e}");
            1
        }
    }
}
