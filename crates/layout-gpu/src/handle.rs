//! [`Gpu`]: the guide's handle. One device, one stream, one kernel cache; device memory in and
//! out. Conversions and the fused cast are its methods too, each in its own room (`convert`,
//! `cast`).

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};
use layout_types::loops::LoopNest;
use layout_types::{Layout, Shape, Tensor};

use crate::cache::{KernelCache, KernelKey};
use crate::error::GpuError;
use crate::ffi;
use crate::kernels::ImageKind;
use crate::tensor::{DeviceElement, DeviceTensor};

/// Whether the CUDA driver library can be loaded (looked up once per process).
///
/// ```
/// use layout_gpu::{driver_available, Gpu, GpuError};
/// if !driver_available() {
///     assert_eq!(Gpu::new(0).unwrap_err(), GpuError::NoDriver); // an error value, not a panic
/// }
/// ```
pub fn driver_available() -> bool {
    ffi::driver::present()
}

/// A handle bound to one CUDA device for its lifetime (the guide's cuDNN handle).
///
/// It owns a stream, on which all its work is ordered, and a cache of compiled kernels: the
/// first conversion between two layouts for an element size compiles its kernel with NVRTC
/// for this device's architecture; later ones reuse it. For several GPUs, make one handle per
/// device. `Gpu` is `Send + Sync`; calls from several threads are ordered on its stream.
///
/// ```no_run
/// // Needs a CUDA device and NVRTC.
/// use layout_gpu::{DeviceTensor, Gpu};
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// let gpu = Gpu::new(0)?;
/// let host = Tensor::<f32, Nchw>::from_fn([8, 3, 224, 224], |[n, c, h, w]| (n + c + h + w) as f32)?;
/// let x = gpu.upload(&host)?;
/// let y: DeviceTensor<f32, Nhwc> = gpu.to_layout(&x)?; // compiles the NCHW→NHWC f32 kernel once
/// assert_eq!(gpu.download(&y)?, host.to_layout::<Nhwc>()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Gpu {
    stream: Arc<CudaStream>,
    kernels: KernelCache,
}

impl core::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.ordinal())
            .field("arch", &self.arch())
            .field("driver_version", &self.driver_version())
            .finish_non_exhaustive()
    }
}

impl Gpu {
    /// Binds a handle to device `ordinal`.
    ///
    /// Fails with [`GpuError::NoDriver`] when the CUDA driver library is absent and
    /// [`GpuError::NoDevice`] when the driver has no such device. NVRTC is needed only when a
    /// kernel is first compiled.
    pub fn new(ordinal: usize) -> Result<Gpu, GpuError> {
        if !driver_available() {
            return Err(GpuError::NoDriver);
        }
        let no_device = |count| GpuError::NoDevice { ordinal, count };
        let count = match CudaContext::device_count() {
            Ok(n) => n.max(0) as usize,
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NO_DEVICE => 0,
            Err(e) => return Err(GpuError::driver("counting devices", 0, e)),
        };
        if ordinal >= count {
            return Err(no_device(count));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| GpuError::driver("creating the context", 0, e))?;
        let stream = ctx.new_stream().map_err(|e| GpuError::driver("creating the stream", 0, e))?;
        Ok(Gpu { stream, kernels: KernelCache::new(ctx)? })
    }

    /// The device ordinal this handle is bound to.
    pub fn ordinal(&self) -> usize {
        self.kernels.context().ordinal()
    }

    /// The device's name (`"NVIDIA H100 80GB HBM3"`).
    pub fn name(&self) -> Result<String, GpuError> {
        self.kernels.context().name().map_err(|e| GpuError::driver("reading the device name", 0, e))
    }

    /// The architecture kernels are compiled for (`"sm_90"`).
    pub fn arch(&self) -> &str {
        self.kernels.arch()
    }

    /// The CUDA version the driver supports, `(major, minor)`: `(13, 0)` for driver 580. A
    /// kernel's PTX is loaded only from an NVRTC no newer than this
    /// ([`kernels::ptx_fallback_allowed`](crate::kernels::ptx_fallback_allowed)).
    ///
    /// ```no_run
    /// // Needs a CUDA device.
    /// use layout_gpu::{kernels, Gpu};
    /// let gpu = Gpu::new(0)?;
    /// let (driver, nvrtc) = (gpu.driver_version(), kernels::nvrtc_version()?);
    /// println!("driver: CUDA {}.{}; NVRTC {}.{} from {:?}", driver.0, driver.1, nvrtc.0, nvrtc.1, kernels::nvrtc_library());
    /// # Ok::<(), layout_gpu::GpuError>(())
    /// ```
    pub fn driver_version(&self) -> (u32, u32) {
        self.kernels.driver_version()
    }

    /// How many kernels this handle has loaded from an image of `kind`: a CUBIN, or PTX (the
    /// fallback, compiled by the driver).
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::{kernels::ImageKind, DeviceTensor, Gpu};
    /// use typed_layout::{Nchw, Nhwc, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let x = gpu.upload(&Tensor::<f32, Nchw>::filled([2, 8, 4, 4], 1.0)?)?;
    /// let _: DeviceTensor<f32, Nhwc> = gpu.to_layout(&x)?;
    /// assert_eq!(gpu.loaded_images(ImageKind::Cubin) + gpu.loaded_images(ImageKind::Ptx), gpu.compiled_kernels());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn loaded_images(&self, kind: ImageKind) -> usize {
        self.kernels.loaded(kind)
    }

    /// The handle's stream (for interop: timing events, cuDNN calls on the same stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize), GpuError> {
        self.kernels.context().mem_get_info().map_err(|e| GpuError::driver("reading free memory", 0, e))
    }

    /// How many kernels this handle has compiled so far (each once; the rest are cache hits).
    pub fn compiled_kernels(&self) -> usize {
        self.kernels.compiled()
    }

    /// Waits until all work queued on the handle's stream is done.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.stream.synchronize().map_err(|e| GpuError::driver("synchronizing the stream", 0, e))
    }

    /// Copies a host tensor to the device.
    pub fn upload<T: DeviceElement, L: Layout>(
        &self,
        host: &Tensor<T, L>,
    ) -> Result<DeviceTensor<T, L>, GpuError> {
        let bytes = core::mem::size_of_val(host.as_slice());
        let data =
            self.stream.clone_htod(host.as_slice()).map_err(|e| GpuError::driver("uploading", bytes, e))?;
        Ok(DeviceTensor::new(data, *host.shape()))
    }

    /// A device tensor of zeros. A size whose bytes pass `isize::MAX` is refused before the
    /// driver sees it ([`Shape::bytes`] names the dimension).
    pub fn zeros<T: DeviceElement, L: Layout>(
        &self,
        shape: Shape<L>,
    ) -> Result<DeviceTensor<T, L>, GpuError> {
        shape.bytes(core::mem::size_of::<T>())?;
        let data = self.alloc_zeros::<T>(shape.len())?;
        Ok(DeviceTensor::new(data, shape))
    }

    /// Copies a device tensor back to the host.
    pub fn download<T: DeviceElement, L: Layout>(
        &self,
        dev: &DeviceTensor<T, L>,
    ) -> Result<Tensor<T, L>, GpuError> {
        self.check_device(dev.data())?;
        let bytes = dev.len() * core::mem::size_of::<T>();
        let data =
            self.stream.clone_dtoh(dev.data()).map_err(|e| GpuError::driver("downloading", bytes, e))?;
        Ok(Tensor::from_vec_in(*dev.shape(), data)?)
    }

    /// Copies `src` into `dst` of the same layout with the driver's device-to-device memcpy.
    pub fn copy<T: DeviceElement, L: Layout>(
        &self,
        src: &DeviceTensor<T, L>,
        dst: &mut DeviceTensor<T, L>,
    ) -> Result<(), GpuError> {
        self.check_device(src.data())?;
        self.check_device(dst.data())?;
        if src.shape().placement() != dst.shape().placement() {
            LoopNest::between(src.shape(), dst.shape())?; // names the dimension that differs
            let error = "the two tensors' strides differ (padding): use convert".into();
            return Err(GpuError::Driver { during: "copying", error });
        }
        let bytes = src.len() * core::mem::size_of::<T>();
        self.stream.memcpy_dtod(src.data(), dst.data_mut()).map_err(|e| GpuError::driver("copying", bytes, e))
    }

    /// Makes this handle's context current on the calling thread (for raw CUDA library calls).
    #[cfg(feature = "cudnn")]
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        self.kernels.context().bind_to_thread().map_err(|e| GpuError::driver("binding the context", 0, e))
    }

    /// `len` zeroed elements on the device.
    pub(crate) fn alloc_zeros<T: DeviceElement>(&self, len: usize) -> Result<CudaSlice<T>, GpuError> {
        let bytes = len.saturating_mul(core::mem::size_of::<T>());
        self.stream.alloc_zeros::<T>(len).map_err(|e| GpuError::driver("allocating", bytes, e))
    }

    /// `len` elements on the device, not initialized, for a destination the next launch on
    /// this handle's stream writes whole (`ffi::driver::alloc_for_overwrite`'s contract).
    pub(crate) fn alloc_for_overwrite<T: DeviceElement>(&self, len: usize) -> Result<CudaSlice<T>, GpuError> {
        let bytes = len.saturating_mul(core::mem::size_of::<T>());
        ffi::driver::alloc_for_overwrite::<T>(&self.stream, len)
            .map_err(|e| GpuError::driver("allocating", bytes, e))
    }

    /// `WrongDevice` unless `data` lives on this handle's device.
    pub(crate) fn check_device<T>(&self, data: &CudaSlice<T>) -> Result<(), GpuError> {
        let tensor = data.context().ordinal();
        if tensor == self.ordinal() {
            Ok(())
        } else {
            Err(GpuError::WrongDevice { handle: self.ordinal(), tensor })
        }
    }

    /// Launches the kernel of `key` (compiled on first use) on `(src, dst, params)` with a 1-D
    /// grid of `grid` blocks of `block` threads, on the handle's stream.
    ///
    /// The callers keep `ffi::driver::launch`'s contract: `key` names the kernel generated for
    /// these element types, and `params` were derived from the shapes of `src` and `dst`.
    pub(crate) fn launch<S: DeviceRepr, D: DeviceRepr, P: DeviceRepr>(
        &self,
        key: KernelKey,
        grid: u32,
        block: (u32, u32, u32),
        src: &CudaSlice<S>,
        dst: &mut CudaSlice<D>,
        params: &P,
    ) -> Result<(), GpuError> {
        let function = self.kernels.function(&key)?;
        ffi::driver::launch(&self.stream, &function, grid, block, src, dst, params)
            .map_err(|e| GpuError::Launch { kernel: key.name(), error: format!("{e:?}") })
    }
}
