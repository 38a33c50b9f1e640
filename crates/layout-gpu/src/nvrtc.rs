//! NVRTC: compiling generated kernels to PTX, with no device needed.
//!
//! ```
//! use layout_gpu::{codegen::{Kernel, KernelSpec}, nvrtc, GpuError};
//! let spec = KernelSpec { kernel: Kernel::Copy, elem_bytes: 4, vec: 4, wide: false };
//! let (name, source) = (spec.name("NCHW", "NCHW"), spec.source("NCHW", "NCHW"));
//! match nvrtc::compile(&source, &name, "sm_90") {
//!     Ok(ptx) => assert!(ptx.to_src().contains(&format!(".entry {name}"))),
//!     Err(e) => assert_eq!(e, GpuError::NoNvrtc), // no libnvrtc on this machine
//! }
//! ```

use std::sync::OnceLock;

use cudarc::nvrtc::{CompileError, CompileOptions, Ptx};

use crate::GpuError;

/// Whether the NVRTC library can be loaded (looked up once per process).
///
/// cudarc panics when it first calls into a library that is absent; every NVRTC call in this
/// crate asks this first.
///
/// ```
/// use layout_gpu::{nvrtc, GpuError};
/// if !nvrtc::available() {
///     assert_eq!(nvrtc::compile("", "k", "sm_90").unwrap_err(), GpuError::NoNvrtc);
/// }
/// ```
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to open the library by its candidate names; it calls
    // no symbol from it.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// Compiles `source` (which defines `kernel`) to PTX for `arch` (`"sm_90"`).
///
/// ```no_run
/// // Needs libnvrtc on the library path; no GPU.
/// let src = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }";
/// let ptx = layout_gpu::nvrtc::compile(src, "k", "sm_90")?;
/// assert!(ptx.to_src().contains(".entry k"));
/// # Ok::<(), layout_gpu::GpuError>(())
/// ```
pub fn compile(source: &str, kernel: &str, arch: &str) -> Result<Ptx, GpuError> {
    if !available() {
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
