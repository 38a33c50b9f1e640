//! cuDNN's own `cudnnTransformTensor` on typed device tensors: the reference the GPU tests
//! cross-check against and the peer the GPU benchmark times (feature `cudnn`).
//!
//! cuDNN is loaded dynamically like the rest of CUDA; without it [`Cudnn::new`] returns
//! [`GpuError::Cudnn`] saying so. NC/xHWx has no N-d descriptor (cuDNN spells it
//! `CUDNN_TENSOR_NCHW_VECT_C` with vector data types), so it is refused here.

use std::ffi::CStr;
use std::sync::OnceLock;

use cudarc::cudnn::sys::{self, cudnnDataType_t, cudnnStatus_t};
use cudarc::driver::DevicePtr;
use layout_types::plan::Part;
use layout_types::{DataType, Element, Family, Layout, SameFamily, Shape};

use crate::{DeviceElement, DeviceTensor, Gpu, GpuError};

/// Whether the cuDNN library can be loaded (looked up once per process).
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

fn check(call: &'static str, status: cudnnStatus_t) -> Result<(), GpuError> {
    if status == cudnnStatus_t::CUDNN_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: cuDNN returns a static NUL-terminated string for every status.
    let text = unsafe { CStr::from_ptr(sys::cudnnGetErrorString(status)) };
    Err(GpuError::Cudnn { call, status: text.to_string_lossy().into_owned() })
}

/// A cuDNN handle on a [`Gpu`]'s device and stream.
#[derive(Debug)]
pub struct Cudnn {
    handle: sys::cudnnHandle_t,
}

// SAFETY: a cuDNN handle may be used from any thread, one call at a time; `transform` takes
// `&self` but cuDNN orders its work on the handle's stream, as the guide describes.
unsafe impl Send for Cudnn {}

impl Cudnn {
    /// Creates a cuDNN handle bound to `gpu`'s stream.
    pub fn new(gpu: &Gpu) -> Result<Cudnn, GpuError> {
        if !available() {
            return Err(GpuError::Cudnn {
                call: "loading libcudnn",
                status: "cuDNN (libcudnn.so.9) not found: `pip install nvidia-cudnn-cu13` and add its \
                         nvidia/cudnn/lib folder to LD_LIBRARY_PATH"
                    .into(),
            });
        }
        gpu.bind()?;
        let mut handle = core::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer; the device's context is current (bind).
        check("cudnnCreate", unsafe { sys::cudnnCreate(&mut handle) })?;
        let this = Cudnn { handle };
        // SAFETY: `handle` was just created; the stream outlives this call and belongs to the
        // same context.
        check("cudnnSetStream", unsafe { sys::cudnnSetStream(this.handle, gpu.stream().cu_stream() as _) })?;
        Ok(this)
    }

    /// `y = x` in `dst`'s layout, by `cudnnTransformTensor` (alpha 1, beta 0).
    pub fn transform<T, S, D>(
        &self,
        gpu: &Gpu,
        src: &DeviceTensor<T, S>,
        dst: &mut DeviceTensor<T, D>,
    ) -> Result<(), GpuError>
    where
        T: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        let (x, y) = (Descriptor::new::<T, S>(src.shape())?, Descriptor::new::<T, D>(dst.shape())?);
        let stream = gpu.stream();
        let (xp, _read) = src.data().device_ptr(stream);
        let (yp, _write) = dst.data_mut().device_ptr(stream);
        let (one_f, zero_f, one_d, zero_d) = (1f32, 0f32, 1f64, 0f64);
        let (alpha, beta): (*const core::ffi::c_void, *const core::ffi::c_void) = match T::DATA_TYPE {
            DataType::Double => ((&one_d as *const f64).cast(), (&zero_d as *const f64).cast()),
            _ => ((&one_f as *const f32).cast(), (&zero_f as *const f32).cast()),
        };
        // SAFETY: both descriptors describe exactly the shapes of these buffers (same dims,
        // the layouts' strides, T's data type); alpha and beta point at scalars of the type
        // cuDNN reads for this data type; the pointers are the tensors' device allocations.
        check("cudnnTransformTensor", unsafe {
            sys::cudnnTransformTensor(self.handle, alpha, x.0, xp as _, beta, y.0, yp as _)
        })
    }
}

impl Drop for Cudnn {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `cudnnCreate` and is destroyed once.
        unsafe { sys::cudnnDestroy(self.handle) };
    }
}

/// A `cudnnTensorDescriptor_t` set from a shape: logical dims and strides, as i32.
struct Descriptor(sys::cudnnTensorDescriptor_t);

impl Descriptor {
    fn new<T: Element, L: Layout>(shape: &Shape<L>) -> Result<Descriptor, GpuError> {
        let refuse = |status: String| GpuError::Cudnn { call: "cudnnSetTensorNdDescriptor", status };
        if shape.packing().axes().iter().any(|a| matches!(a.part, Part::Lane { .. })) {
            return Err(refuse(format!("{} is vectorized: cuDNN has no N-d descriptor for it", L::NOTATION)));
        }
        let to_i32 =
            |v: usize| i32::try_from(v).map_err(|_| refuse(format!("{v} exceeds cuDNN's i32 limit")));
        let dims = shape.packing().dims().iter().map(|&d| to_i32(d)).collect::<Result<Vec<_>, _>>()?;
        let strides = shape.packing().strides().iter().map(|&s| to_i32(s)).collect::<Result<Vec<_>, _>>()?;
        let letters = <L::Family as Family>::LETTERS;
        debug_assert_eq!(letters.len(), dims.len());
        let mut desc = core::ptr::null_mut();
        // SAFETY: `desc` is a valid out-pointer.
        check("cudnnCreateTensorDescriptor", unsafe { sys::cudnnCreateTensorDescriptor(&mut desc) })?;
        let this = Descriptor(desc);
        // SAFETY: `dims` and `strides` hold `dims.len()` (3..=8) i32 each.
        check("cudnnSetTensorNdDescriptor", unsafe {
            sys::cudnnSetTensorNdDescriptor(
                this.0,
                data_type(T::DATA_TYPE),
                dims.len() as i32,
                dims.as_ptr(),
                strides.as_ptr(),
            )
        })?;
        Ok(this)
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreateTensorDescriptor`, destroyed once.
        unsafe { sys::cudnnDestroyTensorDescriptor(self.0) };
    }
}

fn data_type(t: DataType) -> cudnnDataType_t {
    match t {
        DataType::Float => cudnnDataType_t::CUDNN_DATA_FLOAT,
        DataType::Double => cudnnDataType_t::CUDNN_DATA_DOUBLE,
        DataType::Half => cudnnDataType_t::CUDNN_DATA_HALF,
        DataType::Int8 => cudnnDataType_t::CUDNN_DATA_INT8,
        DataType::Int32 => cudnnDataType_t::CUDNN_DATA_INT32,
        DataType::Uint8 => cudnnDataType_t::CUDNN_DATA_UINT8,
        DataType::BFloat16 => cudnnDataType_t::CUDNN_DATA_BFLOAT16,
        DataType::Int64 => cudnnDataType_t::CUDNN_DATA_INT64,
    }
}
