//! The kernel cache: one device context, its architecture, and the kernels compiled for it,
//! each compiled with NVRTC on first use and kept by (source layout, destination layout, spec).
//!
//! A kernel is compiled for the device's real architecture (`sm_90`) and its CUBIN loaded; only
//! if the driver refuses that, and the loaded NVRTC is not newer than the driver, is it
//! compiled again for the virtual architecture (`compute_90`) and its PTX loaded (JIT).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::Ptx;

use crate::error::GpuError;
use crate::ffi;
use crate::kernels::{self, CastSpec, ImageKind, KernelSpec};

/// A compiled kernel is found by the notations of its two sides and its spec (which holds the
/// element size or types); the architecture is the cache's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KernelKey {
    notations: (&'static str, &'static str),
    spec: Spec,
}

/// The two classes of generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Spec {
    /// A conversion moving elements.
    Move(KernelSpec),
    /// A fused relayout + cast + pad.
    Cast(CastSpec),
}

impl KernelKey {
    /// The moving kernel of `spec` from `notations.0` into `notations.1`.
    pub(crate) fn moving(notations: (&'static str, &'static str), spec: KernelSpec) -> Self {
        KernelKey { notations, spec: Spec::Move(spec) }
    }

    /// The cast kernel of `spec` from `notations.0` into `notations.1`.
    pub(crate) fn cast(notations: (&'static str, &'static str), spec: CastSpec) -> Self {
        KernelKey { notations, spec: Spec::Cast(spec) }
    }

    /// The kernel's symbol.
    pub(crate) fn name(&self) -> String {
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

/// The kernels compiled for one device context, each once.
pub(crate) struct KernelCache {
    ctx: Arc<CudaContext>,
    /// The real architecture (`sm_90`) and the virtual one (`compute_90`).
    arch: String,
    virtual_arch: String,
    /// The CUDA version the driver supports, `(major, minor)`.
    driver: (u32, u32),
    functions: Mutex<HashMap<KernelKey, CudaFunction>>,
    compiles: AtomicUsize,
    /// Kernels loaded from a CUBIN, and from PTX.
    cubins: AtomicUsize,
    ptxs: AtomicUsize,
}

impl core::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelCache")
            .field("arch", &self.arch)
            .field("compiled", &self.compiled())
            .field("cubins", &self.loaded(ImageKind::Cubin))
            .field("ptxs", &self.loaded(ImageKind::Ptx))
            .finish_non_exhaustive()
    }
}

impl KernelCache {
    /// An empty cache for `ctx`, whose compute capability names the architecture.
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Result<KernelCache, GpuError> {
        let (major, minor) =
            ctx.compute_capability().map_err(|e| GpuError::driver("reading the compute capability", 0, e))?;
        let driver =
            ffi::driver::version().map_err(|e| GpuError::driver("reading the driver's version", 0, e))?;
        Ok(KernelCache {
            ctx,
            arch: format!("sm_{major}{minor}"),
            virtual_arch: format!("compute_{major}{minor}"),
            driver,
            functions: Mutex::new(HashMap::new()),
            compiles: AtomicUsize::new(0),
            cubins: AtomicUsize::new(0),
            ptxs: AtomicUsize::new(0),
        })
    }

    /// The device context the kernels are loaded into.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The architecture kernels are compiled for (`"sm_90"`).
    pub(crate) fn arch(&self) -> &str {
        &self.arch
    }

    /// The CUDA version the driver supports, `(major, minor)`.
    pub(crate) fn driver_version(&self) -> (u32, u32) {
        self.driver
    }

    /// How many kernels were compiled so far (each once; the rest were hits).
    pub(crate) fn compiled(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
    }

    /// How many kernels were loaded from an image of `kind`.
    pub(crate) fn loaded(&self, kind: ImageKind) -> usize {
        match kind {
            ImageKind::Cubin => &self.cubins,
            ImageKind::Ptx => &self.ptxs,
        }
        .load(Ordering::Relaxed)
    }

    /// The kernel of `key`, compiled and loaded on first use.
    pub(crate) fn function(&self, key: &KernelKey) -> Result<CudaFunction, GpuError> {
        let mut functions = self.functions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(f) = functions.get(key) {
            return Ok(f.clone());
        }
        let name = key.name();
        let (function, kind) = self.compile_and_load(&key.source(), &name)?;
        self.compiles.fetch_add(1, Ordering::Relaxed);
        match kind {
            ImageKind::Cubin => &self.cubins,
            ImageKind::Ptx => &self.ptxs,
        }
        .fetch_add(1, Ordering::Relaxed);
        functions.insert(*key, function.clone());
        Ok(function)
    }

    /// Compiles `source` and loads its kernel `name`: the CUBIN, else (when the NVRTC is not
    /// newer than the driver) PTX; when neither loads, an error naming both versions.
    fn compile_and_load(&self, source: &str, name: &str) -> Result<(CudaFunction, ImageKind), GpuError> {
        let compiled = kernels::compile(source, name, &self.arch)?;
        let cubin = match compiled.cubin() {
            Some(image) => match self.load(Ptx::from_binary(image.to_vec()), name) {
                Ok(function) => return Ok((function, ImageKind::Cubin)),
                Err(e) => format!("{e:?}"),
            },
            None => "NVRTC gave none".into(),
        };
        let nvrtc = kernels::nvrtc_version()?;
        let ptx = if kernels::ptx_fallback_allowed(nvrtc, self.driver) {
            let compiled = kernels::compile(source, name, &self.virtual_arch)?;
            match self.load(Ptx::from_src(compiled.ptx()), name) {
                Ok(function) => return Ok((function, ImageKind::Ptx)),
                Err(e) => format!("{e:?}"),
            }
        } else {
            "not tried, as NVRTC is newer than the driver".into()
        };
        Err(GpuError::Load {
            kernel: name.into(),
            arch: self.arch.clone(),
            nvrtc,
            driver: self.driver,
            error: format!("CUBIN: {cubin}; PTX ({}): {ptx}", self.virtual_arch),
        })
    }

    /// Loads `image` into the context and finds its kernel `name`.
    fn load(&self, image: Ptx, name: &str) -> Result<CudaFunction, DriverError> {
        self.ctx.load_module(image)?.load_function(name)
    }
}
