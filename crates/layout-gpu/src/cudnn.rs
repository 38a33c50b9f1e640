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

use cudarc::cudnn::sys::{cudnnDataType_t, cudnnTensorFormat_t};
use layout_types::cudnn::{CudnnError, NdArgs, TensorFormat};
use layout_types::{DataType, Layout, LayoutError, SameFamily, TensorDesc};

use crate::error::GpuError;
use crate::ffi::cudnn::{Descriptor, Handle};
use crate::handle::Gpu;
use crate::tensor::{DeviceElement, DeviceTensor};

/// Whether the cuDNN library can be loaded (looked up once per process).
///
/// ```
/// use layout_gpu::cudnn::available;
/// if !available() {
///     println!("no libcudnn.so.9 here: the cuDNN interop calls return GpuError::Cudnn");
/// }
/// ```
pub fn available() -> bool {
    crate::ffi::cudnn::present()
}

/// A cuDNN handle on a [`Gpu`]'s device and stream.
///
/// ```no_run
/// // Needs a CUDA device and cuDNN.
/// use layout_gpu::{cudnn::Cudnn, DeviceTensor, Gpu};
/// use typed_layout::{Nchw, Nhwc, Shape, Tensor};
/// let gpu = Gpu::new(0)?;
/// let dnn = Cudnn::new(&gpu)?;
/// let x = gpu.upload(&Tensor::<f32, Nchw>::filled([8, 64, 56, 56], 1.0)?)?;
/// let mut y: DeviceTensor<f32, Nhwc> = gpu.zeros(Shape::new([8, 64, 56, 56])?)?;
/// dnn.transform(&gpu, &x, &mut y)?; // cudnnTransformTensor, the reference for Gpu::convert
/// let ours: DeviceTensor<f32, Nhwc> = gpu.to_layout(&x)?;
/// assert_eq!(gpu.download(&y)?, gpu.download(&ours)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Cudnn {
    handle: Handle,
    /// The device of the `Gpu` the handle was made for; its stream is the handle's.
    ordinal: usize,
}

impl Cudnn {
    /// Creates a cuDNN handle bound to `gpu`'s stream.
    pub fn new(gpu: &Gpu) -> Result<Cudnn, GpuError> {
        if !available() {
            return Err(missing());
        }
        gpu.bind()?;
        Ok(Cudnn { handle: Handle::new(gpu.stream())?, ordinal: gpu.ordinal() })
    }

    /// `y = x` in `dst`'s layout, by `cudnnTransformTensor` (alpha 1, beta 0), on the stream of
    /// the `Gpu` this handle was made for. `GpuError::WrongDevice` when `gpu` or a tensor is on
    /// another device.
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
        if gpu.ordinal() != self.ordinal {
            return Err(GpuError::WrongDevice { handle: self.ordinal, tensor: gpu.ordinal() });
        }
        gpu.check_device(src.data())?;
        gpu.check_device(dst.data())?;
        gpu.bind()?;
        let x = TensorDescriptor::new(&src.shape().cudnn(T::DATA_TYPE)?)?;
        let y = TensorDescriptor::new(&dst.shape().cudnn(T::DATA_TYPE)?)?;
        // The wrapper's contract: the descriptors describe exactly these tensors (their shapes,
        // T's data type), both live on the handle's device (checked), its context is current.
        self.handle.transform(&x.0, src.data(), &y.0, dst.data_mut())
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
pub struct TensorDescriptor(Descriptor);

impl TensorDescriptor {
    fn create() -> Result<TensorDescriptor, GpuError> {
        if !available() {
            return Err(missing());
        }
        Ok(TensorDescriptor(Descriptor::new()?))
    }

    /// A descriptor set by `cudnnSetTensorNdDescriptor` from checked arguments.
    pub fn new(nd: &NdArgs) -> Result<TensorDescriptor, GpuError> {
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
        let mut this = Self::create()?;
        this.0.set_nd(data_type, dims, strides)?;
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
            TensorFormat::Nchw => cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
            TensorFormat::Nhwc => cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
            TensorFormat::NchwVectC => cudnnTensorFormat_t::CUDNN_TENSOR_NCHW_VECT_C,
        };
        let data_type = raw_data_type(data_type)?;
        let mut this = Self::create()?;
        this.0.set_nd_ex(format, data_type, dims)?;
        Ok(this)
    }

    /// `cudnnGetTensorNdDescriptor`'s raw answer: the data type value, dims and strides.
    pub fn get_raw(&self) -> Result<(i32, Vec<i32>, Vec<i32>), GpuError> {
        self.0.get_nd()
    }

    /// The descriptor read back by `cudnnGetTensorNdDescriptor`, checked like any cuDNN input.
    pub fn get(&self) -> Result<NdArgs, GpuError> {
        let (data_type, dims, strides) = self.get_raw()?;
        Ok(TensorDesc::from_cudnn(data_type, &dims, &strides)?.cudnn()?)
    }

    /// `cudnnGetTensorSizeInBytes`.
    pub fn size_in_bytes(&self) -> Result<usize, GpuError> {
        self.0.size_in_bytes()
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
