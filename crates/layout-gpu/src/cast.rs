//! The fused cast on the device: [`Gpu::relayout_cast_pad`], relayout + cast + channel
//! padding in one kernel running the host's [`CastNest`].

use layout_types::cast::{padded_shape, CastNest};
use layout_types::{Layout, SameFamily};

use crate::cache::KernelKey;
use crate::error::GpuError;
use crate::handle::Gpu;
use crate::kernels::{cast_launch, DeviceCast};
use crate::tensor::{DeviceChannelPadded, DeviceElement, DeviceTensor};

impl Gpu {
    /// `src` in layout `D` as `U`, cast with `cast` ([`Unscaled`](layout_types::cast::Unscaled)
    /// or [`Scale`](layout_types::cast::Scale)) and C padded with zeros up to a multiple of
    /// `multiple` and of `D`'s vector width, in one kernel: the device twin of
    /// [`relayout_cast_pad`](layout_types::cast::relayout_cast_pad), giving the same bits
    /// (NaN payloads aside). The kernel is made for (source layout, destination layout, source
    /// type, destination type); see the [`kernels`](crate::kernels) module.
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::{DeviceChannelPadded, Gpu};
    /// use typed_layout::{cast::Unscaled, Nchw, Nhwc, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let rgb = gpu.upload(&Tensor::<f32, Nchw>::filled([8, 3, 224, 224], 0.5)?)?;
    /// let x: DeviceChannelPadded<half::f16, Nhwc> = gpu.relayout_cast_pad(&rgb, 8, Unscaled)?;
    /// assert_eq!((x.channels(), x.padded_channels()), (3, 8)); // ready for Tensor Cores
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn relayout_cast_pad<T, U, S, D, C>(
        &self,
        src: &DeviceTensor<T, S>,
        multiple: usize,
        cast: C,
    ) -> Result<DeviceChannelPadded<U, D>, GpuError>
    where
        T: DeviceElement,
        U: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
        C: DeviceCast,
    {
        self.check_device(src.data())?;
        let shape = padded_shape::<S, D>(src.shape(), multiple)?;
        let plan = CastNest::new(src.shape(), &shape)?;
        shape.bytes(U::SIZE)?;
        let mut dst = DeviceTensor::new(self.alloc_zeros::<U>(shape.len())?, shape);
        let launch = cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, src.len(), cast.scale());
        // The launch contract: the kernel of this spec takes (const src_t*, dst_t*, CastParams)
        // with src_t and dst_t of T's and U's data types; `cast_launch` derived the params from
        // the plan of these two shapes, so every offset it forms lies inside the buffers
        // (source reads only for data channels).
        let key = KernelKey::cast((S::NOTATION, D::NOTATION), launch.spec);
        self.launch(key, launch.grid, launch.spec.block(), src.data(), dst.data_mut(), &launch.params)?;
        Ok(DeviceChannelPadded::new(dst, plan.channels()))
    }
}
