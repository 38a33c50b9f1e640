//! Conversions on the device: [`Gpu::convert`] and [`Gpu::to_layout`], a kernel per (source
//! layout, destination layout, element size) that the `kernels` room plans and writes.

use cudarc::driver::CudaSlice;
use layout_types::{Layout, LayoutError, SameFamily, Shape};

use crate::cache::KernelKey;
use crate::error::GpuError;
use crate::handle::Gpu;
use crate::kernels::{route, Pass, Route};
use crate::tensor::{DeviceElement, DeviceTensor};

impl Gpu {
    /// Copies `src` into `dst` at the same logical indices, on the device.
    ///
    /// The kernel is made for exactly this (source layout, destination layout, element size)
    /// and the plan's shape; see the [`kernels`](crate::kernels) module. Vector widths that do
    /// not nest (NC/3HW3 into NC/4HW4) convert in two passes through a row-major buffer.
    /// Fails on different dims ([`GpuError::Layout`]), a tensor of another device, or a
    /// compile, load or launch error. The call returns when the work is queued.
    pub fn convert<T, S, D>(
        &self,
        src: &DeviceTensor<T, S>,
        dst: &mut DeviceTensor<T, D>,
    ) -> Result<(), GpuError>
    where
        T: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        self.check_device(src.data())?;
        self.check_device(dst.data())?;
        let (src_shape, dst_shape) = (*src.shape(), *dst.shape());
        self.convert_buffers(src.data(), &src_shape, dst.data_mut(), &dst_shape)
    }

    /// [`convert`](Gpu::convert) between two buffers of this device read as `src_shape` and
    /// `dst_shape` (the caller has checked the device; each buffer holds its shape, as every
    /// `DeviceTensor` of that shape does: a tensor's buffer read as another layout of the same
    /// length, for the INT8x32 reorder).
    pub(crate) fn convert_buffers<T, S, D>(
        &self,
        src: &CudaSlice<T>,
        src_shape: &Shape<S>,
        dst: &mut CudaSlice<T>,
        dst_shape: &Shape<D>,
    ) -> Result<(), GpuError>
    where
        T: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        for (found, expected) in [(src.len(), src_shape.len()), (dst.len(), dst_shape.len())] {
            if found != expected {
                return Err(LayoutError::BufferLength { expected, found }.into());
            }
        }
        match route(src_shape, dst_shape, core::mem::size_of::<T>())? {
            Route::Direct(pass) => self.run(&pass, src, dst)?,
            Route::ViaLogical { passes: [first, second], len } => {
                let mut logical = self.alloc_zeros::<T>(len)?;
                self.run(&first, src, &mut logical)?;
                self.run(&second, &logical, dst)?;
            }
        }
        Ok(())
    }

    /// A new device tensor holding `src` in layout `D` (the device twin of
    /// [`Tensor::to_layout`](layout_types::Tensor::to_layout)).
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::{DeviceTensor, Gpu};
    /// use typed_layout::{Nchw, NcxHwx, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let x = gpu.upload(&Tensor::<i8, Nchw>::filled([1, 64, 5, 4], 1)?)?;
    /// let y: DeviceTensor<i8, NcxHwx<32>> = gpu.to_layout(&x)?;
    /// assert_eq!(y.dims(), x.dims());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_layout<T, S, D>(&self, src: &DeviceTensor<T, S>) -> Result<DeviceTensor<T, D>, GpuError>
    where
        T: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        let shape = Shape::<D>::from_slice(src.shape().placement().dims())?;
        let mut dst = self.zeros(shape)?;
        self.convert(src, &mut dst)?;
        Ok(dst)
    }

    /// Runs one pass of a conversion from `src` into `dst`.
    fn run<T: DeviceElement>(
        &self,
        pass: &Pass,
        src: &CudaSlice<T>,
        dst: &mut CudaSlice<T>,
    ) -> Result<(), GpuError> {
        let launch = pass.launch;
        // The launch contract: the kernel of this spec takes (const elem_t*, elem_t*, Params)
        // with elem_t of T's size; `route` derived the params from the two shapes whose buffers
        // these are (or from the row-major intermediate of `len` elements), so every offset
        // the kernel forms lies inside them.
        let key = KernelKey::moving(pass.notations, launch.spec);
        self.launch(key, launch.grid, launch.spec.block(), src, dst, &launch.params)
    }
}
