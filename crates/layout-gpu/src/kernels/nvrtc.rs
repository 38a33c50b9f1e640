//! Compiling generated kernels to PTX with NVRTC, through cudarc's safe layer; no device needed.

use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};

use crate::error::GpuError;
use crate::ffi;

/// Whether the NVRTC library can be loaded (looked up once per process).
///
/// cudarc panics when it first calls into a library that is absent; [`compile`] asks this first.
///
/// ```
/// use layout_gpu::{kernels, GpuError};
/// if !kernels::nvrtc_available() {
///     assert_eq!(kernels::compile("", "k", "sm_90").unwrap_err(), GpuError::NoNvrtc);
/// }
/// ```
pub fn nvrtc_available() -> bool {
    ffi::nvrtc::present()
}

/// Compiles `source` (which defines `kernel`) to PTX for `arch` (`"sm_90"`).
///
/// ```
/// use layout_gpu::{kernels::{self, Kernel, KernelSpec}, GpuError};
/// let spec = KernelSpec { kernel: Kernel::Copy, elem_bytes: 4, vec: 4, wide: false };
/// let (name, source) = (spec.name("NCHW", "NCHW"), spec.source("NCHW", "NCHW"));
/// match kernels::compile(&source, &name, "sm_90") {
///     Ok(ptx) => assert!(ptx.to_src().contains(&format!(".entry {name}"))),
///     Err(e) => assert_eq!(e, GpuError::NoNvrtc), // no libnvrtc on this machine
/// }
/// ```
pub fn compile(source: &str, kernel: &str, arch: &str) -> Result<Ptx, GpuError> {
    if !nvrtc_available() {
        return Err(GpuError::NoNvrtc);
    }
    if source.contains('\0') {
        return Err(GpuError::Compile {
            kernel: kernel.into(),
            arch: arch.into(),
            log: "the source contains a NUL byte".into(),
        });
    }
    let opts = CompileOptions {
        options: vec![format!("--gpu-architecture={arch}"), "--std=c++17".into()],
        name: Some(format!("{kernel}.cu")),
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source, opts).map_err(|e| GpuError::Compile {
        kernel: kernel.into(),
        arch: arch.into(),
        log: match e {
            CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
            other => format!("{other:?}"),
        },
    })
}
