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
use cudarc::driver::CudaSlice;
use layout_types::conv::reorder::{bias_split, filter_split, SplitBiasReordered, SplitReordered};
use layout_types::conv::{Conv, FilterOf};
use layout_types::cudnn::{CudnnError, DescriptorKind, DescriptorType, FormatArgs, NdArgs, TensorFormat};
use layout_types::{
    ConvInput, DataType, DynLayout, KcxRsx, Layout, LayoutError, SameFamily, Shape, TensorDesc,
};

use crate::error::GpuError;
use crate::ffi::cudnn::{ConvDesc, Descriptor, FilterDesc, Handle};
use crate::handle::Gpu;
use crate::reorder::{DeviceReorderedBias, DeviceReorderedFilter};
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

impl Cudnn {
    /// cuDNN's own `cudnnReorderFilterAndBias` of an INT8x32 filter and, when given, its f32
    /// bias of K values, on the stream of the `Gpu` this handle was made for: the reference
    /// [`Gpu::reorder_int8x32`](crate::Gpu::reorder_int8x32) and
    /// [`Gpu::reorder_bias_int8x32`](crate::Gpu::reorder_bias_int8x32) are checked against on
    /// a device (`tests/gpu_device.rs`).
    #[allow(clippy::type_complexity)]
    pub fn reorder_int8x32(
        &self,
        gpu: &Gpu,
        filter: &DeviceTensor<i8, KcxRsx<32>>,
        bias: Option<&CudaSlice<f32>>,
    ) -> Result<(DeviceReorderedFilter<i8>, Option<DeviceReorderedBias<f32>>), GpuError> {
        if gpu.ordinal() != self.ordinal {
            return Err(GpuError::WrongDevice { handle: self.ordinal, tensor: gpu.ordinal() });
        }
        gpu.check_device(filter.data())?;
        if let Some(b) = bias {
            gpu.check_device(b)?;
        }
        gpu.bind()?;
        let dims = filter.dims();
        let split = filter_split(dims)?;
        let desc = FilterDescriptor::new(&filter.shape().cudnn_filter(DataType::Int8)?)?;
        let mut out = gpu.zeros(Shape::<SplitReordered>::new(split)?)?;
        let mut out_bias: Option<DeviceTensor<f32, SplitBiasReordered>> = match bias {
            Some(b) => Some(gpu.zeros(Shape::new(bias_split(b.len())?)?)?),
            None => None,
        };
        let pair = bias.zip(out_bias.as_mut().map(|t| t.data_mut()));
        // The wrapper's contract: the descriptor is the filter's own (its shape, INT8x32), the
        // outputs have the inputs' lengths, all on the handle's device (checked), context bound.
        self.handle.reorder_filter(&desc.0, filter.data(), out.data_mut(), pair)?;
        Ok((DeviceReorderedFilter::new(out, dims), out_bias.map(DeviceReorderedBias::new)))
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

    /// A descriptor set by `cudnnSetTensorNdDescriptorEx` from checked arguments (NC/xHWx with
    /// its int8 vector type included). Refuses a filter's arguments.
    ///
    /// ```no_run
    /// use typed_layout::{gpu::cudnn::TensorDescriptor, DataType, NcxHwx, Shape};
    /// let args = Shape::<NcxHwx<32>>::new([8, 64, 28, 28])?.cudnn_format(DataType::Int8)?;
    /// let desc = TensorDescriptor::from_format(&args)?;
    /// assert_eq!(desc.size_in_bytes()?, args.size_in_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_format(args: &FormatArgs) -> Result<TensorDescriptor, GpuError> {
        if args.kind() != DescriptorKind::Tensor {
            return Err(LayoutError::NotApplicable {
                reason: "a filter's arguments go to a FilterDescriptor (cudnnSetFilterNdDescriptor)",
            }
            .into());
        }
        Self::with_format(args.format(), args.data_type().value(), args.dims())
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
        let data_type = raw_data_type(data_type)?;
        let mut this = Self::create()?;
        this.0.set_nd_ex(raw_format(format), data_type, dims)?;
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

/// A cuDNN filter descriptor (`cudnnFilterDescriptor_t`), host code like
/// [`TensorDescriptor`]: the only way cuDNN describes a convolution's weights.
///
/// ```no_run
/// use typed_layout::{gpu::cudnn::FilterDescriptor, DataType, Krsc, Shape};
/// let args = Shape::<Krsc>::new([64, 32, 3, 3])?.cudnn_filter(DataType::Half)?;
/// let desc = FilterDescriptor::new(&args)?;
/// assert_eq!(desc.get_raw()?, (2, 1, vec![64, 32, 3, 3])); // HALF, NHWC, dims
/// assert_eq!(desc.size_in_bytes()?, args.size_in_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FilterDescriptor(FilterDesc);

impl FilterDescriptor {
    /// A descriptor set by `cudnnSetFilterNdDescriptor` from checked arguments. Refuses a
    /// tensor's arguments.
    pub fn new(args: &FormatArgs) -> Result<FilterDescriptor, GpuError> {
        if args.kind() != DescriptorKind::Filter {
            return Err(LayoutError::NotApplicable {
                reason: "a tensor's arguments go to a TensorDescriptor (cudnnSetTensorNdDescriptorEx)",
            }
            .into());
        }
        Self::set_nd(args.data_type().value(), args.format(), args.dims())
    }

    /// A descriptor set by `cudnnSetFilterNdDescriptor` from values typed-layout has not
    /// checked: cuDNN's own verdict, to compare with [`FormatArgs`]'. Prefer
    /// [`FilterDescriptor::new`].
    pub fn set_nd(data_type: i32, format: TensorFormat, dims: &[i32]) -> Result<FilterDescriptor, GpuError> {
        if !available() {
            return Err(missing());
        }
        let data_type = raw_data_type(data_type)?;
        let mut this = FilterDescriptor(FilterDesc::new()?);
        this.0.set_nd(data_type, raw_format(format), dims)?;
        Ok(this)
    }

    /// `cudnnGetFilterNdDescriptor`'s raw answer: the data type and format values, the dims.
    pub fn get_raw(&self) -> Result<(i32, i32, Vec<i32>), GpuError> {
        self.0.get_nd()
    }

    /// `cudnnGetFilterSizeInBytes`.
    pub fn size_in_bytes(&self) -> Result<usize, GpuError> {
        self.0.size_in_bytes()
    }
}

/// cuDNN's own output dims for a [`Conv`] (`cudnnGetConvolutionNdForwardOutputDim`, host code):
/// the reference `Conv::output_dims` is checked against. The input is described by its format
/// (cuDNN's vector type for NC/xHWx), the filter by `cudnnSetFilterNdDescriptor`, the
/// convolution as cross-correlation with `conv`'s padding, stride, dilation and group count.
///
/// ```no_run
/// use typed_layout::{conv::Conv, gpu::cudnn::forward_output_dims, DataType, Krsc, Nhwc, Shape};
/// let (x, w) = (Shape::<Nhwc>::new([8, 64, 56, 56])?, Shape::<Krsc>::new([128, 64, 3, 3])?);
/// let conv = Conv::builder(&x, &w).stride(&[2, 2]).build()?;
/// assert_eq!(forward_output_dims(&conv, DataType::Half)?, [8, 128, 27, 27]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn forward_output_dims<I, F>(conv: &Conv<I, F>, data_type: DataType) -> Result<Vec<i32>, GpuError>
where
    I: Layout,
    I::Family: ConvInput,
    F: FilterOf<I>,
{
    let (x, w) = (conv.input().dims(), conv.filter().dims());
    let (padding, stride, dilation) = (conv.padding(), conv.stride(), conv.dilation());
    forward_output_dims_unchecked::<I, F>(
        x.as_ref(),
        w.as_ref(),
        conv.groups(),
        padding,
        stride,
        dilation,
        data_type,
    )
}

/// [`forward_output_dims`] for parameters [`Conv`] has not checked: cuDNN's own verdict on
/// them (its descriptors refuse some; `cudnnGetConvolutionNdForwardOutputDim` others), to
/// compare with `Conv`'s. Prefer [`forward_output_dims`].
pub fn forward_output_dims_unchecked<I, F>(
    input: &[usize],
    filter: &[usize],
    groups: usize,
    padding: &[usize],
    stride: &[usize],
    dilation: &[usize],
    data_type: DataType,
) -> Result<Vec<i32>, GpuError>
where
    I: Layout,
    I::Family: ConvInput,
    F: FilterOf<I>,
{
    let ints = |v: &[usize]| -> Result<Vec<i32>, GpuError> {
        let big = || {
            GpuError::from(LayoutError::NotApplicable { reason: "a convolution parameter above i32::MAX" })
        };
        v.iter().map(|&x| i32::try_from(x).map_err(|_| big())).collect()
    };
    let format = |l: DynLayout| TensorFormat::of(&l).ok_or(CudnnError::NoFormat { layout: l.notation() });
    let (xl, wl) = (DynLayout::of::<I>(), DynLayout::of::<F>());
    let vector = |l: &DynLayout| l.format().vector().map_or(1, |v| v.width);
    let x_type = DescriptorType::for_layout(data_type, vector(&xl))?.value();
    let w_type = DescriptorType::for_layout(data_type, vector(&wl))?.value();
    let x = TensorDescriptor::with_format(format(xl).map_err(LayoutError::from)?, x_type, &ints(input)?)?;
    let w = FilterDescriptor::set_nd(w_type, format(wl).map_err(LayoutError::from)?, &ints(filter)?)?;
    let desc = ConvDesc::new(&ints(padding)?, &ints(stride)?, &ints(dilation)?, ints(&[groups])?[0])?;
    desc.forward_output_dims(&x.0, &w.0, input.len())
}

/// The `cudnnTensorFormat_t` of a format.
fn raw_format(format: TensorFormat) -> cudnnTensorFormat_t {
    match format {
        TensorFormat::Nchw => cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
        TensorFormat::Nhwc => cudnnTensorFormat_t::CUDNN_TENSOR_NHWC,
        TensorFormat::NchwVectC => cudnnTensorFormat_t::CUDNN_TENSOR_NCHW_VECT_C,
    }
}

/// A `cudnnDataType_t` from its value, for the values typed-layout names (the element types
/// and the int8 vector types).
fn raw_data_type(id: i32) -> Result<cudnnDataType_t, GpuError> {
    match DescriptorType::from_cudnn(id) {
        Some(DescriptorType::Element(t)) => Ok(data_type(t)),
        Some(DescriptorType::Int8x4) => Ok(cudnnDataType_t::CUDNN_DATA_INT8x4),
        Some(DescriptorType::Uint8x4) => Ok(cudnnDataType_t::CUDNN_DATA_UINT8x4),
        Some(DescriptorType::Int8x32) => Ok(cudnnDataType_t::CUDNN_DATA_INT8x32),
        None => Err(LayoutError::Cudnn(CudnnError::UnknownDataType { id }).into()),
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
