//! cuDNN's INT8x32 filter reorder on the device: [`Gpu::reorder_int8x32`], the conversion
//! between the split layouts of [`layout_types::conv::reorder`], run by the same kernels as
//! every other conversion (so the CPU and the device give the same bytes).

use cudarc::driver::CudaSlice;
use layout_types::conv::reorder::{
    bias_split, filter_split, SplitBias, SplitBiasReordered, SplitKcxRsx32, SplitReordered,
};
use layout_types::{KcxRsx, Shape};

use crate::error::GpuError;
use crate::handle::Gpu;
use crate::tensor::{DeviceElement, DeviceTensor};

/// A filter reordered on the device as cuDNN's INT8x32 convolutions want it: the device twin
/// of [`ReorderedFilter`](layout_types::conv::reorder::ReorderedFilter), its own type for the
/// same reasons (made only from a KC/32RS32 filter, never reordered twice). Not yet verified
/// against cuDNN's own reorder (see [`layout_types::conv::reorder`]).
#[derive(Debug)]
pub struct DeviceReorderedFilter<T: DeviceElement> {
    tensor: DeviceTensor<T, SplitReordered>,
    dims: [usize; 4],
}

impl<T: DeviceElement> DeviceReorderedFilter<T> {
    pub(crate) fn new(tensor: DeviceTensor<T, SplitReordered>, dims: [usize; 4]) -> Self {
        DeviceReorderedFilter { tensor, dims }
    }

    /// The filter's dims `[k, c, r, s]`.
    pub const fn dims(&self) -> [usize; 4] {
        self.dims
    }

    /// The reordered elements as a device tensor of the split layout (download it to read
    /// them: its memory is what cuDNN reads).
    pub fn tensor(&self) -> &DeviceTensor<T, SplitReordered> {
        &self.tensor
    }

    /// The filter descriptor cuDNN takes for it: the INT8x32 one of its KC/32RS32 source.
    pub fn cudnn_filter(&self) -> Result<layout_types::cudnn::FormatArgs, GpuError> {
        Ok(Shape::<KcxRsx<32>>::new(self.dims)?.cudnn_filter(T::DATA_TYPE)?)
    }
}

/// A bias reordered on the device as cuDNN's INT8x32 convolutions want it: the device twin of
/// [`ReorderedBias`](layout_types::conv::reorder::ReorderedBias).
#[derive(Debug)]
pub struct DeviceReorderedBias<T: DeviceElement> {
    tensor: DeviceTensor<T, SplitBiasReordered>,
}

impl<T: DeviceElement> DeviceReorderedBias<T> {
    pub(crate) fn new(tensor: DeviceTensor<T, SplitBiasReordered>) -> Self {
        DeviceReorderedBias { tensor }
    }

    /// The reordered values as a device tensor of the split layout (its memory is what cuDNN
    /// reads).
    pub fn tensor(&self) -> &DeviceTensor<T, SplitBiasReordered> {
        &self.tensor
    }
}

impl Gpu {
    /// A bias of K values (a device buffer of this `Gpu`) reordered as
    /// `cudnnReorderFilterAndBias` reorders it, on the device: the twin of
    /// [`reorder_bias_int8x32`](layout_types::conv::reorder::reorder_bias_int8x32). K must be
    /// a multiple of 32.
    pub fn reorder_bias_int8x32<T: DeviceElement>(
        &self,
        bias: &CudaSlice<T>,
    ) -> Result<DeviceReorderedBias<T>, GpuError> {
        self.check_device(bias)?;
        let split = bias_split(bias.len())?;
        let (source, target) = (Shape::<SplitBias>::new(split)?, Shape::<SplitBiasReordered>::new(split)?);
        let mut out = self.zeros(target)?;
        self.convert_buffers(bias, &source, out.data_mut(), &target)?;
        Ok(DeviceReorderedBias::new(out))
    }

    /// `filter` reordered as `cudnnReorderFilterAndBias` reorders INT8x32 filters, on the
    /// device: the twin of [`reorder_int8x32`](layout_types::conv::reorder::reorder_int8x32),
    /// giving the same bytes. K and C must be multiples of 32.
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::Gpu;
    /// use typed_layout::{conv::reorder::reorder_int8x32, KcxRsx, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let w = Tensor::<i8, KcxRsx<32>>::from_fn([64, 32, 3, 3], |[k, c, r, s]| (k + c + r + s) as i8)?;
    /// let on_device = gpu.reorder_int8x32(&gpu.upload(&w)?)?;
    /// assert_eq!(gpu.download(on_device.tensor())?.as_slice(), reorder_int8x32(&w)?.as_slice());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reorder_int8x32<T: DeviceElement>(
        &self,
        filter: &DeviceTensor<T, KcxRsx<32>>,
    ) -> Result<DeviceReorderedFilter<T>, GpuError> {
        self.check_device(filter.data())?;
        let dims = filter.dims();
        let split = filter_split(dims)?;
        let (source, target) = (Shape::<SplitKcxRsx32>::new(split)?, Shape::<SplitReordered>::new(split)?);
        let mut out = self.zeros(target)?;
        self.convert_buffers(filter.data(), &source, out.data_mut(), &target)?;
        Ok(DeviceReorderedFilter::new(out, dims))
    }
}
