//! The kernel cache: one device context, its architecture, and the kernels compiled for it,
//! each compiled with NVRTC on first use and kept by (source layout, destination layout, spec).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction};

use crate::error::GpuError;
use crate::kernels::{self, CastSpec, KernelSpec};

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
    arch: String,
    functions: Mutex<HashMap<KernelKey, CudaFunction>>,
    compiles: AtomicUsize,
}

impl core::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelCache")
            .field("arch", &self.arch)
            .field("compiled", &self.compiled())
            .finish_non_exhaustive()
    }
}

impl KernelCache {
    /// An empty cache for `ctx`, whose compute capability names the architecture.
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Result<KernelCache, GpuError> {
        let (major, minor) =
            ctx.compute_capability().map_err(|e| GpuError::driver("reading the compute capability", 0, e))?;
        Ok(KernelCache {
            ctx,
            arch: format!("sm_{major}{minor}"),
            functions: Mutex::new(HashMap::new()),
            compiles: AtomicUsize::new(0),
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

    /// How many kernels were compiled so far (each once; the rest were hits).
    pub(crate) fn compiled(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
    }

    /// The kernel of `key`, compiled and loaded on first use.
    pub(crate) fn function(&self, key: &KernelKey) -> Result<CudaFunction, GpuError> {
        let mut functions = self.functions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(f) = functions.get(key) {
            return Ok(f.clone());
        }
        let name = key.name();
        let ptx = kernels::compile(&key.source(), &name, &self.arch)?;
        let load = |e| GpuError::Load { kernel: name.clone(), error: format!("{e:?}") };
        let module = self.ctx.load_module(ptx).map_err(load)?;
        let function = module.load_function(&name).map_err(load)?;
        self.compiles.fetch_add(1, Ordering::Relaxed);
        functions.insert(*key, function.clone());
        Ok(function)
    }
}
