//! Compiling generated kernels with NVRTC, and which NVRTC that is; no device needed.
//!
//! One compile for a real architecture (`sm_90`) gives both images the driver can load: the
//! CUBIN, machine code it loads as is, and the PTX it would compile itself. The kernel cache
//! loads the CUBIN; PTX is its fallback (see [`ptx_fallback_allowed`]).

use core::fmt;
use std::ffi::CString;
use std::path::PathBuf;

use crate::error::GpuError;
use crate::ffi;

/// Whether the NVRTC library can be loaded (looked up once per process).
///
/// cudarc panics when it first calls into a library that is absent; [`compile`],
/// [`nvrtc_version`] and [`nvrtc_library`] ask this first.
///
/// ```
/// use layout_gpu::{kernels, GpuError};
/// if !kernels::nvrtc_available() {
///     assert_eq!(kernels::compile("", "k", "sm_90").unwrap_err(), GpuError::NoNvrtc);
///     assert_eq!(kernels::nvrtc_version().unwrap_err(), GpuError::NoNvrtc);
///     assert_eq!(kernels::nvrtc_library(), None);
/// }
/// ```
pub fn nvrtc_available() -> bool {
    ffi::nvrtc::present()
}

/// The version of the NVRTC library loaded, `(major, minor)` (`(13, 0)`), or
/// [`GpuError::NoNvrtc`].
///
/// ```
/// use layout_gpu::{kernels, GpuError};
/// match kernels::nvrtc_version() {
///     Ok((major, _)) => assert!(major >= 11),
///     Err(e) => assert_eq!(e, GpuError::NoNvrtc), // no libnvrtc on this machine
/// }
/// ```
pub fn nvrtc_version() -> Result<(u32, u32), GpuError> {
    if !nvrtc_available() {
        return Err(GpuError::NoNvrtc);
    }
    let (major, minor) = ffi::nvrtc::version()
        .map_err(|e| GpuError::Nvrtc { call: "nvrtcVersion", error: format!("{e:?}") })?;
    Ok((major.max(0) as u32, minor.max(0) as u32))
}

/// The file of the NVRTC library this process loaded (`…/nvidia/cu13/lib/libnvrtc.so.13`), as
/// the loader found it on the library path; `None` without NVRTC or where the process's memory
/// map cannot be read (outside Linux).
///
/// Several may be installed (the system's CUDA toolkit, one in a Python environment); this
/// names the one whose version [`nvrtc_version`] reports. It loads the library if nothing has.
///
/// ```
/// use layout_gpu::kernels;
/// if let Some(path) = kernels::nvrtc_library() {
///     let file = path.file_name().unwrap().to_string_lossy();
///     assert!(file.starts_with("libnvrtc"), "{file}");
/// }
/// ```
pub fn nvrtc_library() -> Option<PathBuf> {
    nvrtc_version().ok()?; // the first call into the library loads it
    library_in_maps(&std::fs::read_to_string("/proc/self/maps").ok()?, "libnvrtc")
}

/// The path of the first library mapped in `maps` (the text of `/proc/self/maps`) whose file
/// name is `stem`, then a `.` or a `64`-style suffix and `.so` (`libnvrtc.so.13`,
/// `libnvrtc64_13.so`), not a sibling such as `libnvrtc-builtins.so.13`.
fn library_in_maps(maps: &str, stem: &str) -> Option<PathBuf> {
    maps.lines().filter_map(|line| line.split_whitespace().nth(5)).find_map(|path| {
        let file = path.rsplit('/').next()?;
        let rest = file.strip_prefix(stem)?;
        let suffix_ok = rest.starts_with(".so") || rest.starts_with(|c: char| c.is_ascii_digit());
        (suffix_ok && rest.contains(".so")).then(|| PathBuf::from(path))
    })
}

/// Whether the PTX fallback may be tried: only when the loaded NVRTC is not newer than the
/// driver's CUDA version (both `(major, minor)`).
///
/// A driver's JIT reads the PTX ISA of its own CUDA version and older; a newer NVRTC writes a
/// newer ISA (NVRTC 13.5 writes `.version 9.5`, driver 580, CUDA 13.0, reads up to 9.0), which
/// the driver refuses. A CUBIN has no such limit within a major version (CUDA's minor-version
/// compatibility), so it is always tried first.
///
/// ```
/// use layout_gpu::kernels::ptx_fallback_allowed;
/// assert!(ptx_fallback_allowed((13, 0), (13, 0)));
/// assert!(ptx_fallback_allowed((12, 8), (13, 0)));
/// assert!(!ptx_fallback_allowed((13, 5), (13, 0))); // PyPI's NVRTC on driver 580
/// ```
pub fn ptx_fallback_allowed(nvrtc: (u32, u32), driver: (u32, u32)) -> bool {
    nvrtc <= driver
}

/// The two forms of a compiled kernel that the driver loads.
///
/// ```
/// use layout_gpu::kernels::ImageKind;
/// assert_eq!(format!("{} then {}", ImageKind::Cubin, ImageKind::Ptx), "CUBIN then PTX");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageKind {
    /// Machine code for one architecture (an ELF image), loaded as is.
    Cubin,
    /// PTX, which the driver compiles (JIT) when it loads it.
    Ptx,
}

impl fmt::Display for ImageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ImageKind::Cubin => "CUBIN",
            ImageKind::Ptx => "PTX",
        })
    }
}

/// A kernel compiled by [`compile`]: its PTX, and its CUBIN when it was compiled for a real
/// architecture (`sm_90`; a virtual one, `compute_90`, gives PTX only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    ptx: String,
    cubin: Option<Vec<u8>>,
}

impl Compiled {
    /// The PTX text.
    ///
    /// ```
    /// use layout_gpu::kernels;
    /// if let Ok(k) = kernels::compile("extern \"C\" __global__ void k() {}", "k", "compute_90") {
    ///     assert!(k.ptx().contains(".entry k") && k.cubin().is_none());
    /// }
    /// ```
    pub fn ptx(&self) -> &str {
        &self.ptx
    }

    /// The CUBIN (an ELF image for the architecture compiled for), or `None` for a virtual
    /// architecture.
    ///
    /// ```
    /// use layout_gpu::kernels;
    /// if let Ok(k) = kernels::compile("extern \"C\" __global__ void k() {}", "k", "sm_90") {
    ///     assert!(k.cubin().unwrap().starts_with(b"\x7fELF"));
    /// }
    /// ```
    pub fn cubin(&self) -> Option<&[u8]> {
        self.cubin.as_deref()
    }
}

/// Compiles `source` (which defines `kernel`) for `arch`: a real architecture (`"sm_90"`) gives
/// a CUBIN and its PTX, a virtual one (`"compute_90"`) PTX only.
///
/// ```
/// use layout_gpu::{kernels::{self, Kernel, KernelSpec}, GpuError};
/// let spec = KernelSpec { kernel: Kernel::Copy, elem_bytes: 4, vec: 4, wide: false };
/// let (name, source) = (spec.name("NCHW", "NCHW"), spec.source("NCHW", "NCHW"));
/// match kernels::compile(&source, &name, "sm_90") {
///     Ok(k) => {
///         assert!(k.ptx().contains(&format!(".entry {name}")));
///         assert!(k.cubin().is_some_and(|elf| elf.starts_with(b"\x7fELF")));
///     }
///     Err(e) => assert_eq!(e, GpuError::NoNvrtc), // no libnvrtc on this machine
/// }
/// ```
pub fn compile(source: &str, kernel: &str, arch: &str) -> Result<Compiled, GpuError> {
    if !nvrtc_available() {
        return Err(GpuError::NoNvrtc);
    }
    let failed = |log: String| GpuError::Compile { kernel: kernel.into(), arch: arch.into(), log };
    let (Ok(c_source), Ok(c_name)) = (CString::new(source), CString::new(format!("{kernel}.cu"))) else {
        return Err(failed("the source or the kernel's name contains a NUL byte".into()));
    };
    let program = ffi::nvrtc::Program::new(c_source, c_name).map_err(|e| failed(format!("{e:?}")))?;
    let options = [format!("--gpu-architecture={arch}"), "--std=c++17".into()];
    if let Err(e) = program.compile(&options) {
        return Err(failed(format!("{e:?}: {}", program.log())));
    }
    let ptx = program.ptx().map_err(|e| failed(format!("nvrtcGetPTX: {e:?}")))?;
    let cubin = program.cubin().map_err(|e| failed(format!("nvrtcGetCUBIN: {e:?}")))?;
    Ok(Compiled { ptx, cubin: (!cubin.is_empty()).then_some(cubin) })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{library_in_maps, ptx_fallback_allowed};

    #[test]
    fn ptx_is_tried_only_when_nvrtc_is_not_newer_than_the_driver() {
        // Same version, and older NVRTC (minor or major): the driver reads its PTX.
        assert!(ptx_fallback_allowed((13, 0), (13, 0)));
        assert!(ptx_fallback_allowed((12, 9), (13, 0)));
        assert!(ptx_fallback_allowed((13, 0), (13, 2)));
        // Newer NVRTC, by minor or by major: its PTX ISA is newer than the driver's.
        assert!(!ptx_fallback_allowed((13, 5), (13, 0)));
        assert!(!ptx_fallback_allowed((13, 0), (12, 9)));
        assert!(!ptx_fallback_allowed((14, 0), (13, 9)));
    }

    #[test]
    fn the_loaded_nvrtc_is_found_in_the_memory_map() {
        let maps = "\
7f00-7f10 r-xp 00000000 08:01 11 /usr/lib/x86_64-linux-gnu/libc.so.6
7f10-7f20 r--p 00000000 08:01 12 /venv/nvidia/cu13/lib/libnvrtc-builtins.so.13.5
7f20-7f30 r-xp 00000000 08:01 13 /venv/nvidia/cu13/lib/libnvrtc.so.13
7f30-7f40 rw-p 00000000 00:00 0
7f40-7f50 r--p 00000000 08:01 13 /venv/nvidia/cu13/lib/libnvrtc.so.13
";
        assert_eq!(
            library_in_maps(maps, "libnvrtc"),
            Some(PathBuf::from("/venv/nvidia/cu13/lib/libnvrtc.so.13"))
        );
        let windows_style = "7f00-7f10 r-xp 00000000 08:01 11 /opt/cuda/lib/libnvrtc64_13.so\n";
        assert_eq!(
            library_in_maps(windows_style, "libnvrtc"),
            Some(PathBuf::from("/opt/cuda/lib/libnvrtc64_13.so"))
        );
        assert_eq!(
            library_in_maps("7f00-7f10 r-xp 00000000 08:01 11 /lib/libnvrtc-builtins.so\n", "libnvrtc"),
            None
        );
        assert_eq!(library_in_maps("", "libnvrtc"), None);
    }
}
