//! [`DeviceTensor`]: a packed tensor of layout `L` in device memory.

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use layout_types::{DimsOf, Element, Layout, PerDimStrides, Shape, StridesOf};

/// An element type the GPU backend moves: every [`Element`] (f32, f64, f16, bf16, i8, u8, i32,
/// i64). Kernels see only its size.
///
/// ```
/// use layout_gpu::DeviceElement;
/// fn device_bytes<T: DeviceElement>(len: usize) -> usize { len * T::SIZE }
/// assert_eq!(device_bytes::<half::bf16>(1280), 2560);
/// ```
pub trait DeviceElement: Element + DeviceRepr + ValidAsZeroBits {}

impl<T: Element + DeviceRepr + ValidAsZeroBits> DeviceElement for T {}

/// A packed tensor of layout `L` in the memory of one device, made by a [`Gpu`](crate::Gpu)
/// (`upload`, `zeros`, `to_layout`) and read back with `download`.
///
/// ```no_run
/// // Needs a CUDA device.
/// use layout_gpu::{DeviceTensor, Gpu};
/// use typed_layout::{Nhwc, Shape};
/// let gpu = Gpu::new(0)?;
/// let x: DeviceTensor<half::f16, Nhwc> = gpu.zeros(Shape::new([1, 64, 5, 4])?)?;
/// assert_eq!(x.dims(), [1, 64, 5, 4]); // logical order, as on the host
/// assert_eq!(x.strides(), [1280, 1, 256, 64]); // the guide's example, on the device
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DeviceTensor<T: DeviceElement, L: Layout> {
    data: CudaSlice<T>,
    shape: Shape<L>,
}

impl<T: DeviceElement, L: Layout> DeviceTensor<T, L> {
    pub(crate) fn new(data: CudaSlice<T>, shape: Shape<L>) -> Self {
        debug_assert_eq!(data.len(), shape.len());
        DeviceTensor { data, shape }
    }

    /// The validated shape.
    pub fn shape(&self) -> &Shape<L> {
        &self.shape
    }

    /// Logical dims.
    pub fn dims(&self) -> DimsOf<L> {
        self.shape.dims()
    }

    /// Logical strides, in elements, signed (as on the host): for layouts in which every
    /// dimension has one ([`PerDimStrides`]).
    pub fn strides(&self) -> StridesOf<L>
    where
        L: PerDimStrides,
    {
        self.shape.strides()
    }

    /// Logical strides, NC/xHWx's C giving the distance between vector groups (as on the host).
    pub fn group_strides(&self) -> StridesOf<L> {
        self.shape.group_strides()
    }

    /// Number of elements of storage.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Always false: every dimension is at least 1.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The ordinal of the device holding the data.
    pub fn ordinal(&self) -> usize {
        self.data.context().ordinal()
    }

    /// The device buffer (for interop: pass it to other CUDA libraries).
    pub fn data(&self) -> &CudaSlice<T> {
        &self.data
    }

    pub(crate) fn data_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.data
    }
}

/// A device tensor whose C holds `channels` channels of data followed by zeros: what
/// [`Gpu::relayout_cast_pad`](crate::Gpu::relayout_cast_pad) returns (the device twin of
/// [`ChannelPadded`](layout_types::cast::ChannelPadded)).
///
/// ```no_run
/// // Needs a CUDA device and NVRTC.
/// use layout_gpu::{DeviceChannelPadded, Gpu};
/// use typed_layout::{cast::Scale, Nchw, NcxHwx, Tensor};
/// let gpu = Gpu::new(0)?;
/// let x = gpu.upload(&Tensor::<f32, Nchw>::filled([1, 40, 7, 7], 0.5)?)?;
/// let q: DeviceChannelPadded<i8, NcxHwx<32>> = gpu.relayout_cast_pad(&x, 1, Scale(100.0))?;
/// assert_eq!((q.channels(), q.padded_channels()), (40, 64));
/// let host = gpu.download(q.tensor())?;
/// assert_eq!((host.get([0, 0, 0, 0]), host.get([0, 63, 0, 0])), (Some(&50), Some(&0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DeviceChannelPadded<T: DeviceElement, L: Layout> {
    tensor: DeviceTensor<T, L>,
    channels: usize,
}

impl<T: DeviceElement, L: Layout> DeviceChannelPadded<T, L> {
    pub(crate) fn new(tensor: DeviceTensor<T, L>, channels: usize) -> Self {
        DeviceChannelPadded { tensor, channels }
    }

    /// The padded tensor (its dims carry the padded C).
    pub fn tensor(&self) -> &DeviceTensor<T, L> {
        &self.tensor
    }

    /// The padded tensor, owned.
    pub fn into_tensor(self) -> DeviceTensor<T, L> {
        self.tensor
    }

    /// Channels of data.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Channels stored, data and padding.
    pub fn padded_channels(&self) -> usize {
        let c = L::LETTERS.find('C').unwrap_or(0);
        self.tensor.shape().placement().dims()[c]
    }
}
