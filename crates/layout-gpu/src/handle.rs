//! [`Gpu`]: the guide's handle. One device, one stream, one cache of compiled kernels.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg,
};
use layout_types::loops::LoopNest;
use layout_types::{Layout, SameFamily, Shape, Tensor};

use crate::codegen::{KernelSpec, Params};
use crate::fused::{cast_launch, CastParams, DeviceCast};
use crate::schedule::{route, Pass, Route};
use crate::tensor::{DeviceChannelPadded, DeviceElement, DeviceTensor};
use crate::{nvrtc, GpuError};

// SAFETY: `Params` is `#[repr(C)]` plain data (three i64 arrays and a u64, no padding, no
// pointers), and the generated kernels declare the same struct (codegen writes both).
unsafe impl DeviceRepr for Params {}

// SAFETY: as `Params`: `#[repr(C)]` plain data (three i64 arrays, a u64, four i64 and an f64, no
// padding, no pointers), declared identically by the kernels `fused` writes.
unsafe impl DeviceRepr for CastParams {}

/// Whether the CUDA driver library can be loaded (looked up once per process).
///
/// ```
/// use layout_gpu::{driver_available, Gpu, GpuError};
/// if !driver_available() {
///     assert_eq!(Gpu::new(0).unwrap_err(), GpuError::NoDriver); // an error value, not a panic
/// }
/// ```
pub fn driver_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// A compiled kernel is found by the notations of its two sides and its spec (which holds the
/// element size); the architecture is the handle's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct KernelKey {
    notations: (&'static str, &'static str),
    spec: Spec,
}

/// The two kinds of generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Spec {
    /// A conversion moving elements ([`codegen`](crate::codegen)).
    Move(KernelSpec),
    /// A fused relayout + cast + pad ([`fused`](crate::fused)).
    Cast(crate::fused::CastSpec),
}

impl KernelKey {
    fn name(&self) -> String {
        let (src, dst) = self.notations;
        match self.spec {
            Spec::Move(k) => k.name(src, dst),
            Spec::Cast(k) => k.name(src, dst),
        }
    }

    fn source(&self) -> String {
        let (src, dst) = self.notations;
        match self.spec {
            Spec::Move(k) => k.source(src, dst),
            Spec::Cast(k) => k.source(src, dst),
        }
    }
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
/// use layout_gpu::Gpu;
/// use typed_layout::{Nchw, Nhwc, Tensor};
/// let gpu = Gpu::new(0)?;
/// let host = Tensor::<f32, Nchw>::from_fn([8, 3, 224, 224], |[n, c, h, w]| (n + c + h + w) as f32)?;
/// let x = gpu.upload(&host)?;
/// let y = gpu.to_layout::<Nhwc, _, _>(&x)?; // compiles the NCHW→NHWC f32 kernel once
/// assert_eq!(gpu.download(&y)?, host.to_layout::<Nhwc>()?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: String,
    kernels: Mutex<HashMap<KernelKey, CudaFunction>>,
    compiles: AtomicUsize,
}

impl core::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.ordinal())
            .field("arch", &self.arch)
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
        let (major, minor) =
            ctx.compute_capability().map_err(|e| GpuError::driver("reading the compute capability", 0, e))?;
        Ok(Gpu {
            ctx,
            stream,
            arch: format!("sm_{major}{minor}"),
            kernels: Mutex::new(HashMap::new()),
            compiles: AtomicUsize::new(0),
        })
    }

    /// The device ordinal this handle is bound to.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// The device's name (`"NVIDIA H100 80GB HBM3"`).
    pub fn name(&self) -> Result<String, GpuError> {
        self.ctx.name().map_err(|e| GpuError::driver("reading the device name", 0, e))
    }

    /// The architecture kernels are compiled for (`"sm_90"`).
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// The handle's stream (for interop: timing events, cuDNN calls on the same stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize), GpuError> {
        self.ctx.mem_get_info().map_err(|e| GpuError::driver("reading free memory", 0, e))
    }

    /// Makes this handle's context current on the calling thread (for raw CUDA library calls).
    #[cfg(feature = "cudnn")]
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        self.ctx.bind_to_thread().map_err(|e| GpuError::driver("binding the context", 0, e))
    }

    /// How many kernels this handle has compiled so far (each once; the rest are cache hits).
    pub fn compiled_kernels(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
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

    /// Copies `src` into `dst` at the same logical indices, on the device.
    ///
    /// The kernel is made for exactly this (source layout, destination layout, element size)
    /// and the plan's shape; see the [`codegen`](crate::codegen) module. Vector widths that do
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
        match route(src.shape(), dst.shape(), core::mem::size_of::<T>())? {
            Route::Direct(pass) => self.run(&pass, src.data(), dst.data_mut())?,
            Route::ViaLogical { passes: [first, second], len } => {
                let mut logical = self.alloc_zeros::<T>(len)?;
                self.run(&first, src.data(), &mut logical)?;
                self.run(&second, &logical, dst.data_mut())?;
            }
        }
        Ok(())
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

    /// A new device tensor holding `src` in layout `D`.
    pub fn to_layout<D, T, S>(&self, src: &DeviceTensor<T, S>) -> Result<DeviceTensor<T, D>, GpuError>
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

    /// `src` in layout `LD` as `D`, cast with `cast` ([`Unscaled`](layout_types::cast::Unscaled)
    /// or [`Scale`](layout_types::cast::Scale)) and C padded with zeros up to a multiple of
    /// `multiple` and of `LD`'s vector width, in one kernel: the device twin of
    /// [`relayout_cast_pad`](layout_types::cast::relayout_cast_pad), giving the same bits
    /// (NaN payloads aside). The kernel is made for (source layout, destination layout, source
    /// type, destination type); see the [`fused`](crate::fused) module.
    ///
    /// ```no_run
    /// // Needs a CUDA device and NVRTC.
    /// use layout_gpu::Gpu;
    /// use typed_layout::{cast::Unscaled, Nchw, Nhwc, Tensor};
    /// let gpu = Gpu::new(0)?;
    /// let rgb = gpu.upload(&Tensor::<f32, Nchw>::filled([8, 3, 224, 224], 0.5)?)?;
    /// let x = gpu.relayout_cast_pad::<f32, half::f16, Nchw, Nhwc, _>(&rgb, 8, Unscaled)?;
    /// assert_eq!((x.channels(), x.padded_channels()), (3, 8)); // ready for Tensor Cores
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn relayout_cast_pad<S, D, LS, LD, C>(
        &self,
        src: &DeviceTensor<S, LS>,
        multiple: usize,
        cast: C,
    ) -> Result<DeviceChannelPadded<D, LD>, GpuError>
    where
        S: DeviceElement,
        D: DeviceElement,
        LS: Layout,
        LD: Layout,
        LD::Family: SameFamily<LS::Family>,
        C: DeviceCast,
    {
        self.check_device(src.data())?;
        let shape = layout_types::cast::padded_shape::<LS, LD>(src.shape(), multiple)?;
        let plan = layout_types::cast::CastNest::new(src.shape(), &shape)?;
        shape.bytes(D::SIZE)?;
        let mut dst = DeviceTensor::new(self.alloc_zeros::<D>(shape.len())?, shape);
        let launch = cast_launch(&plan, S::DATA_TYPE, D::DATA_TYPE, src.len(), cast.scale());
        let key = KernelKey { notations: (LS::NOTATION, LD::NOTATION), spec: Spec::Cast(launch.spec) };
        // SAFETY: the kernel's signature is (const src_t*, dst_t*, CastParams) with src_t and
        // dst_t of S's and D's data types, as `fused` wrote it for this spec; `cast_launch`
        // derived the params from the plan of these two shapes, so every offset it forms lies
        // inside the buffers (source reads only for data channels); the buffers are distinct.
        unsafe {
            self.launch(key, launch.grid, launch.spec.block(), src.data(), dst.data_mut(), &launch.params)?
        };
        Ok(DeviceChannelPadded::new(dst, plan.channels()))
    }

    fn alloc_zeros<T: DeviceElement>(&self, len: usize) -> Result<CudaSlice<T>, GpuError> {
        let bytes = len.saturating_mul(core::mem::size_of::<T>());
        self.stream.alloc_zeros::<T>(len).map_err(|e| GpuError::driver("allocating", bytes, e))
    }

    fn check_device<T>(&self, data: &CudaSlice<T>) -> Result<(), GpuError> {
        let tensor = data.context().ordinal();
        if tensor == self.ordinal() {
            Ok(())
        } else {
            Err(GpuError::WrongDevice { handle: self.ordinal(), tensor })
        }
    }

    fn run<T: DeviceElement>(
        &self,
        pass: &Pass,
        src: &CudaSlice<T>,
        dst: &mut CudaSlice<T>,
    ) -> Result<(), GpuError> {
        let launch = pass.launch;
        let key = KernelKey { notations: pass.notations, spec: Spec::Move(launch.spec) };
        // SAFETY: the kernel's signature is (const elem_t*, elem_t*, Params) with elem_t of
        // T's size, as codegen wrote it for this spec; `schedule` derived `params` from the two
        // shapes whose buffers these are, so every offset the kernel forms lies inside them;
        // the source and destination are distinct allocations (one is borrowed mutably).
        unsafe { self.launch(key, launch.grid, launch.spec.block(), src, dst, &launch.params) }
    }

    /// Launches the kernel of `key` (compiling it on first use) on `(src, dst, params)` with a
    /// 1-D grid of `grid` blocks of `block` threads.
    ///
    /// # Safety
    ///
    /// The kernel must take exactly `(const S*, D*, P)`, and every offset it forms from `params`
    /// must lie inside `src` and `dst`.
    unsafe fn launch<S: DeviceRepr, D: DeviceRepr, P: DeviceRepr>(
        &self,
        key: KernelKey,
        grid: u32,
        block: (u32, u32, u32),
        src: &CudaSlice<S>,
        dst: &mut CudaSlice<D>,
        params: &P,
    ) -> Result<(), GpuError> {
        let function = self.kernel(key)?;
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: block, shared_mem_bytes: 0 };
        let mut args = self.stream.launch_builder(&function);
        args.arg(src).arg(dst).arg(params);
        // SAFETY: the caller's contract: the arguments match the kernel and stay in bounds.
        unsafe { args.launch(cfg) }
            .map(|_| ())
            .map_err(|e| GpuError::Launch { kernel: key.name(), error: format!("{e:?}") })
    }

    /// The compiled kernel for `key`, compiling and caching it on first use.
    fn kernel(&self, key: KernelKey) -> Result<CudaFunction, GpuError> {
        let mut cache = self.kernels.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(f) = cache.get(&key) {
            return Ok(f.clone());
        }
        let name = key.name();
        let ptx = nvrtc::compile(&key.source(), &name, &self.arch)?;
        let load = |e| GpuError::Load { kernel: name.clone(), error: format!("{e:?}") };
        let module = self.ctx.load_module(ptx).map_err(load)?;
        let function = module.load_function(&name).map_err(load)?;
        self.compiles.fetch_add(1, Ordering::Relaxed);
        cache.insert(key, function.clone());
        Ok(function)
    }
}
