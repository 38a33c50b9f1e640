//! cuDNN itself (feature `cudnn`): real tensor descriptors built from typed-layout's checked
//! arguments ([`TensorDescriptor`]), and `cudnnTransformTensor` on typed device tensors, the
//! reference the GPU tests cross-check against and the peer the GPU benchmark times.
//!
//! cuDNN is loaded dynamically like the rest of CUDA; without it every constructor returns
//! [`GpuError::Cudnn`] saying how to install it. NC/xHWx has no N-d descriptor (cuDNN spells it
//! `CUDNN_TENSOR_NCHW_VECT_C` with vector data types: [`TensorDescriptor::with_format`]), so
//! `transform` refuses it.
//!
//! ```
//! use layout_gpu::cudnn::{available, TensorDescriptor};
//! use typed_layout::{DataType, Nhwc, Shape};
//! let nd = Shape::<Nhwc>::new([1, 64, 5, 4])?.cudnn(DataType::Half)?;
//! if available() {
//!     // Runs without a GPU: cuDNN's descriptor calls are host code.
//!     let desc = TensorDescriptor::new(&nd)?;
//!     assert_eq!(desc.get()?, nd);
//!     assert_eq!(desc.size_in_bytes()?, 2 * 1280);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::CStr;
use std::sync::OnceLock;

use cudarc::cudnn::sys::{self, cudnnDataType_t, cudnnStatus_t};
use cudarc::driver::DevicePtr;
use layout_types::cudnn::{CudnnError, NdDescriptor, TensorFormat};
use layout_types::{DataType, Layout, LayoutError, SameFamily, TensorDesc, MAX_RANK};

use crate::{DeviceElement, DeviceTensor, Gpu, GpuError};

/// Whether the cuDNN library can be loaded (looked up once per process).
///
/// ```
/// use layout_gpu::cudnn::available;
/// if !available() {
///     println!("no libcudnn.so.9 here: the cuDNN interop calls return GpuError::Cudnn");
/// }
/// ```
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
///
/// ```no_run
/// // Needs a CUDA device and cuDNN.
/// use layout_gpu::{cudnn::Cudnn, Gpu};
/// use typed_layout::{Nchw, Nhwc, Shape, Tensor};
/// let gpu = Gpu::new(0)?;
/// let dnn = Cudnn::new(&gpu)?;
/// let x = gpu.upload(&Tensor::<f32, Nchw>::filled([8, 64, 56, 56], 1.0)?)?;
/// let mut y = gpu.zeros::<f32, Nhwc>(Shape::new([8, 64, 56, 56])?)?;
/// dnn.transform(&gpu, &x, &mut y)?; // cudnnTransformTensor, the reference for Gpu::convert
/// assert_eq!(gpu.download(&y)?, gpu.download(&gpu.to_layout::<Nhwc, _, _>(&x)?)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
            return Err(missing());
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
        let x = TensorDescriptor::new(&src.shape().cudnn(T::DATA_TYPE)?)?;
        let y = TensorDescriptor::new(&dst.shape().cudnn(T::DATA_TYPE)?)?;
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

/// A cuDNN tensor descriptor (`cudnnTensorDescriptor_t`). Creating, setting and reading one
/// needs libcudnn but no GPU, so these calls also run where no device is.
///
/// ```no_run
/// use typed_layout::{gpu::cudnn::TensorDescriptor, DataType, Nhwc, Shape};
/// let nd = Shape::<Nhwc>::new([1, 64, 5, 4])?.cudnn(DataType::Float)?;
/// let desc = TensorDescriptor::new(&nd)?;
/// assert_eq!(desc.get()?, nd);
/// assert_eq!(desc.size_in_bytes()?, nd.size_in_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TensorDescriptor(sys::cudnnTensorDescriptor_t);

// SAFETY: a descriptor is plain host memory owned by this value; cuDNN reads it on any thread.
unsafe impl Send for TensorDescriptor {}

impl TensorDescriptor {
    fn create() -> Result<TensorDescriptor, GpuError> {
        if !available() {
            return Err(missing());
        }
        let mut desc = core::ptr::null_mut();
        // SAFETY: `desc` is a valid out-pointer.
        check("cudnnCreateTensorDescriptor", unsafe { sys::cudnnCreateTensorDescriptor(&mut desc) })?;
        Ok(TensorDescriptor(desc))
    }

    /// A descriptor set by `cudnnSetTensorNdDescriptor` from checked arguments.
    pub fn new(nd: &NdDescriptor) -> Result<TensorDescriptor, GpuError> {
        Self::set_nd(nd.data_type() as i32, nd.dims(), nd.strides())
    }

    /// A descriptor set by `cudnnSetTensorNdDescriptor` from arrays typed-layout has not
    /// checked: cuDNN's own verdict, to compare with [`TensorDesc::cudnn`]'s. Prefer
    /// [`TensorDescriptor::new`].
    pub fn set_nd(data_type: i32, dims: &[i32], strides: &[i32]) -> Result<TensorDescriptor, GpuError> {
        if dims.len() != strides.len() {
            return Err(LayoutError::StrideCount { dims: dims.len(), strides: strides.len() }.into());
        }
        let data_type = raw_data_type(data_type)?;
        let this = Self::create()?;
        // SAFETY: `dims` and `strides` hold `dims.len()` ints each; cuDNN checks the count and
        // the values.
        check("cudnnSetTensorNdDescriptor", unsafe {
            sys::cudnnSetTensorNdDescriptor(
                this.0,
                data_type,
                dims.len() as i32,
                dims.as_ptr(),
                strides.as_ptr(),
            )
        })?;
        Ok(this)
    }

    /// A descriptor set by `cudnnSetTensorNdDescriptorEx`: cuDNN derives the strides of
    /// `format` itself. `dims` are in logical order (`[n, c, h, w]`), `data_type` a
    /// `cudnnDataType_t` value (the vector types `CUDNN_DATA_INT8x4` = 5 and `INT8x32` = 8
    /// included, for [`TensorFormat::NchwVectC`]).
    pub fn with_format(
        format: TensorFormat,
        data_type: i32,
        dims: &[i32],
    ) -> Result<TensorDescriptor, GpuError> {
        let format = match format {
            TensorFormat::Nchw => sys::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
            TensorFormat::Nhwc => sys::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
            TensorFormat::NchwVectC => sys::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW_VECT_C,
        };
        let data_type = raw_data_type(data_type)?;
        let this = Self::create()?;
        // SAFETY: `dims` holds `dims.len()` ints; cuDNN checks the count and the values.
        check("cudnnSetTensorNdDescriptorEx", unsafe {
            sys::cudnnSetTensorNdDescriptorEx(this.0, format, data_type, dims.len() as i32, dims.as_ptr())
        })?;
        Ok(this)
    }

    /// `cudnnGetTensorNdDescriptor`'s raw answer: the data type value, dims and strides.
    pub fn get_raw(&self) -> Result<(i32, Vec<i32>, Vec<i32>), GpuError> {
        let (mut data_type, mut nb) = (0i32, 0i32);
        let (mut dims, mut strides) = ([0i32; MAX_RANK], [0i32; MAX_RANK]);
        // SAFETY: the arrays hold MAX_RANK ints, the count requested; the data type is written
        // as the C enum's int into an i32 (never read as the Rust enum).
        check("cudnnGetTensorNdDescriptor", unsafe {
            sys::cudnnGetTensorNdDescriptor(
                self.0,
                MAX_RANK as i32,
                (&mut data_type as *mut i32).cast(),
                &mut nb,
                dims.as_mut_ptr(),
                strides.as_mut_ptr(),
            )
        })?;
        let n = (nb.max(0) as usize).min(MAX_RANK);
        Ok((data_type, dims[..n].to_vec(), strides[..n].to_vec()))
    }

    /// The descriptor read back by `cudnnGetTensorNdDescriptor`, checked like any cuDNN input.
    pub fn get(&self) -> Result<NdDescriptor, GpuError> {
        let (data_type, dims, strides) = self.get_raw()?;
        Ok(TensorDesc::from_cudnn(data_type, &dims, &strides)?.cudnn()?)
    }

    /// `cudnnGetTensorSizeInBytes`.
    pub fn size_in_bytes(&self) -> Result<usize, GpuError> {
        let mut bytes = 0usize;
        // SAFETY: `bytes` is a valid out-pointer.
        check("cudnnGetTensorSizeInBytes", unsafe { sys::cudnnGetTensorSizeInBytes(self.0, &mut bytes) })?;
        Ok(bytes)
    }
}

impl Drop for TensorDescriptor {
    fn drop(&mut self) {
        // SAFETY: created by `cudnnCreateTensorDescriptor`, destroyed once.
        unsafe { sys::cudnnDestroyTensorDescriptor(self.0) };
    }
}

/// A `cudnnDataType_t` from its value, for the values typed-layout names (the element types
/// and the int8 vector types).
fn raw_data_type(id: i32) -> Result<cudnnDataType_t, GpuError> {
    match (DataType::from_cudnn(id), id) {
        (Some(t), _) => Ok(data_type(t)),
        (None, 5) => Ok(cudnnDataType_t::CUDNN_DATA_INT8x4),
        (None, 8) => Ok(cudnnDataType_t::CUDNN_DATA_INT8x32),
        _ => Err(LayoutError::Cudnn(CudnnError::UnknownDataType { id }).into()),
    }
}

fn missing() -> GpuError {
    GpuError::Cudnn {
        call: "loading libcudnn",
        status:
            "cuDNN (libcudnn.so.9) not found: `bash bench/cuda-libs.sh cudnn` (pip's nvidia-cudnn-cu13) and \
                 `eval \"$(bash bench/cuda-libs.sh --env)\"` put it on LD_LIBRARY_PATH"
                .into(),
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
