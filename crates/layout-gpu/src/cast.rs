//! The fused cast on the device: [`Gpu::relayout_cast_pad`], relayout + cast + channel
//! padding in one kernel running the host's [`CastNest`], and [`Gpu::quantize`].

use layout_types::cast::{padded_shape, CastNest, Quantize, Scales};
use layout_types::{Layout, SameFamily, Shape};

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
        shape.bytes(U::SIZE)?;
        // Not zeroed: `relayout_cast_pad_into` launches the kernel that writes every element,
        // the padding channels' zeros too (or fails first, and the buffer is dropped unread).
        let mut dst = DeviceTensor::new(self.alloc_for_overwrite::<U>(shape.len())?, shape);
        let channels = self.relayout_cast_pad_into(src, &mut dst, cast)?;
        Ok(DeviceChannelPadded::new(dst, channels))
    }

    /// [`relayout_cast_pad`](Gpu::relayout_cast_pad) into `dst`, a device tensor the caller
    /// owns (no allocation: an engine's buffer reused call after call). Its dims are the
    /// source's but C, which may be larger (the padding, written as zeros); every element of it
    /// is written. Returns the channels of data. Fails, leaving `dst` as it was, with
    /// [`LayoutError::ShapeMismatch`](layout_types::LayoutError::ShapeMismatch) naming the
    /// dimension when the dims do not fit, with
    /// [`LayoutError::NotApplicable`](layout_types::LayoutError::NotApplicable) for a family
    /// without C, with [`GpuError::WrongDevice`] for a tensor of another device, and with the
    /// compile or launch error of the kernel. The device twin of
    /// [`relayout_cast_pad_into`](layout_types::cast::relayout_cast_pad_into).
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::Gpu;
    /// use typed_layout::{cast::Unscaled, Nchw, Nhwc, Shape, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let mut input = gpu.zeros::<half::f16, Nhwc>(Shape::new([8, 8, 224, 224])?)?; // once
    /// for _ in 0..3 {
    ///     let rgb = gpu.upload(&Tensor::<f32, Nchw>::filled([8, 3, 224, 224], 0.5)?)?;
    ///     assert_eq!(gpu.relayout_cast_pad_into(&rgb, &mut input, Unscaled)?, 3);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn relayout_cast_pad_into<T, U, S, D, C>(
        &self,
        src: &DeviceTensor<T, S>,
        dst: &mut DeviceTensor<U, D>,
        cast: C,
    ) -> Result<usize, GpuError>
    where
        T: DeviceElement,
        U: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
        C: DeviceCast,
    {
        self.check_device(src.data())?;
        self.check_device(dst.data())?;
        let plan = CastNest::new(src.shape(), dst.shape())?;
        let launch = cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, src.len(), cast);
        // The launch contract: the kernel of this spec takes (const src_t*, dst_t*, CastParams)
        // with src_t and dst_t of T's and U's data types; `cast_launch` derived the params from
        // the plan of these two shapes, so every offset it forms lies inside the buffers (source
        // reads only for data channels); `dst` is a whole allocation of ours (device tensors
        // own theirs from its start), so it starts aligned for the kernel's vector stores.
        let key = KernelKey::cast((S::NOTATION, D::NOTATION), launch.spec);
        self.launch(key, launch.grid, launch.spec.block(), src.data(), dst.data_mut(), &launch.params)?;
        Ok(plan.channels())
    }

    /// `src` quantized into layout `D` as `U` (divided by the scale in `f32`, rounded half to
    /// even, saturated; C padded as [`relayout_cast_pad`](Gpu::relayout_cast_pad) pads): the
    /// device twin of [`quantize`](layout_types::cast::quantize), giving the same bits. A
    /// per-tensor scale is one kernel; per-output-channel scales are one launch per output
    /// channel (K is the destination's outermost axis; weights are prepared once).
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::Gpu;
    /// use typed_layout::{cast::{quantize, Scales}, Kcrs, KcxRsx, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let w = Tensor::<f32, Kcrs>::from_fn([64, 40, 3, 3], |[k, c, r, s]| (k + c + r + s) as f32 / 100.0)?;
    /// let scales: Vec<f32> = (0..64).map(|k| 0.01 + k as f32 / 1000.0).collect();
    /// let on_device = gpu.quantize::<_, i8, _, KcxRsx<32>>(&gpu.upload(&w)?, 1, Scales::PerOutputChannel(&scales))?;
    /// let on_host = quantize::<_, _, i8, KcxRsx<32>>(&w, 1, Scales::PerOutputChannel(&scales))?;
    /// assert_eq!(gpu.download(on_device.padded().tensor())?.as_slice(), on_host.tensor().as_slice());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn quantize<T, U, S, D>(
        &self,
        src: &DeviceTensor<T, S>,
        multiple: usize,
        scales: Scales<'_>,
    ) -> Result<DeviceQuantized<U, D>, GpuError>
    where
        T: DeviceElement,
        U: DeviceElement,
        S: Layout,
        D: Layout,
        D::Family: SameFamily<S::Family>,
    {
        self.check_device(src.data())?;
        let dims = src.shape().placement().dims().to_vec();
        let (list, per_k) = scales.checked::<D>(dims[0])?;
        let shape = padded_shape::<S, D>(src.shape(), multiple)?;
        shape.bytes(U::SIZE)?;
        if per_k && S::FORMAT.order()[0] != 0 {
            return Err(layout_types::LayoutError::NotApplicable {
                reason: "on the device, per-output-channel quantization reads a source whose K is the outermost axis (every named filter layout): convert the source first",
            }
            .into());
        }
        // Not zeroed: the launches below write every element (one per slab of K, or one whole).
        let mut dst = DeviceTensor::new(self.alloc_for_overwrite::<U>(shape.len())?, shape);
        let channels;
        if per_k {
            // One output channel: the source's and the destination's slabs of K = 1, each
            // packed and contiguous (K outermost), `k` slabs into each buffer.
            let mut one = dims.clone();
            one[0] = 1;
            let mut one_out = shape.placement().dims().to_vec();
            one_out[0] = 1;
            let (a, b) = (Shape::<S>::from_slice(&one)?, Shape::<D>::from_slice(&one_out)?);
            let plan = CastNest::new(&a, &b)?;
            channels = plan.channels();
            let k_src = src.shape().placement().strides()[0];
            // One launch for every slab (64-bit offsets when either whole buffer needs them: the
            // bases reach across it); each slab sets its scale and bases.
            let span = src.len().max(shape.len());
            let mut launch = cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, span, Quantize(list[0]));
            for (k, &scale) in list.iter().enumerate() {
                launch.params.scale = f64::from(scale);
                launch.params.src_base = (k * k_src) as i64;
                launch.params.dst_base = (k * b.len()) as i64;
                // The launch contract as below; the bases move the plan of one slab to slab k
                // of both buffers (K outermost in `D`, checked; `k_src` is the source's K stride,
                // so slab k of the source starts there and spans the plan's offsets).
                let key = KernelKey::cast((S::NOTATION, D::NOTATION), launch.spec);
                self.launch(
                    key,
                    launch.grid,
                    launch.spec.block(),
                    src.data(),
                    dst.data_mut(),
                    &launch.params,
                )?;
            }
        } else {
            let plan = CastNest::new(src.shape(), &shape)?;
            channels = plan.channels();
            let launch = cast_launch(&plan, T::DATA_TYPE, U::DATA_TYPE, src.len(), Quantize(list[0]));
            // The launch contract: as in `relayout_cast_pad`.
            let key = KernelKey::cast((S::NOTATION, D::NOTATION), launch.spec);
            self.launch(key, launch.grid, launch.spec.block(), src.data(), dst.data_mut(), &launch.params)?;
        }
        Ok(DeviceQuantized {
            padded: DeviceChannelPadded::new(dst, channels),
            scales: list,
            per_output_channel: per_k,
        })
    }
}

/// A quantized device tensor with the scales it was made with: the device twin of
/// [`Quantized`](layout_types::cast::Quantized).
#[derive(Debug)]
pub struct DeviceQuantized<U: DeviceElement, L: Layout> {
    padded: DeviceChannelPadded<U, L>,
    scales: Vec<f32>,
    per_output_channel: bool,
}

impl<U: DeviceElement, L: Layout> DeviceQuantized<U, L> {
    /// The quantized values, C padded.
    pub fn padded(&self) -> &DeviceChannelPadded<U, L> {
        &self.padded
    }
    /// The quantized tensor (its dims carry the padded C).
    pub fn tensor(&self) -> &DeviceTensor<U, L> {
        self.padded.tensor()
    }
    /// The scale of output channel `k` (the tensor's, for a per-tensor scale).
    pub fn scale_of(&self, k: usize) -> Option<f32> {
        match self.per_output_channel {
            true => self.scales.get(k).copied(),
            false => self.scales.first().copied(),
        }
    }
    /// The parts: the padded tensor and the scales.
    pub fn into_parts(self) -> (DeviceChannelPadded<U, L>, Vec<f32>) {
        (self.padded, self.scales)
    }
    /// The scales: one, or one per output channel.
    pub fn scales(&self) -> &[f32] {
        &self.scales
    }
    /// One scale per output channel (else one for the tensor)?
    pub fn per_output_channel(&self) -> bool {
        self.per_output_channel
    }
}
