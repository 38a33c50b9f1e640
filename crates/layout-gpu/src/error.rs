//! The one error type of the GPU backend: what was missing or what failed, worded for a user.

use core::fmt;

use cudarc::driver::{sys::CUresult, DriverError};
use layout_types::LayoutError;

/// Why a GPU operation could not run.
///
/// Every variant says what to do about it; nothing in this crate panics on a missing library,
/// a missing device or a failed call.
///
/// ```
/// use layout_gpu::GpuError;
/// let e = GpuError::NoDevice { ordinal: 3, count: 1 };
/// assert_eq!(
///     e.to_string(),
///     "no CUDA device with ordinal 3: the driver sees 1 device (ordinals 0..1)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    NoDriver,
    /// The driver loaded but has no device with this ordinal.
    NoDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver sees.
        count: usize,
    },
    /// The NVRTC library (`libnvrtc.so`) could not be loaded, so no kernel can be compiled.
    NoNvrtc,
    /// NVRTC rejected a generated kernel (a bug in typed-layout: please report it with the log).
    Compile {
        /// The kernel's name.
        kernel: String,
        /// The target architecture (`sm_90`).
        arch: String,
        /// NVRTC's log.
        log: String,
    },
    /// The driver loaded neither the kernel's CUBIN nor its PTX (often: an NVRTC of a newer CUDA
    /// major version than the driver's).
    Load {
        /// The kernel's name.
        kernel: String,
        /// The architecture compiled for (`sm_90`).
        arch: String,
        /// The loaded NVRTC's version, `(major, minor)`.
        nvrtc: (u32, u32),
        /// The CUDA version the driver supports, `(major, minor)`.
        driver: (u32, u32),
        /// What each attempt gave: the driver's error for the CUBIN, and for the PTX its error
        /// or why it was not tried.
        error: String,
    },
    /// Another NVRTC call failed.
    Nvrtc {
        /// The call (`"nvrtcVersion"`).
        call: &'static str,
        /// NVRTC's error.
        error: String,
    },
    /// A kernel launch failed.
    Launch {
        /// The kernel's name.
        kernel: String,
        /// The driver's error.
        error: String,
    },
    /// The device has too little free memory for an allocation.
    OutOfMemory {
        /// The bytes asked for.
        bytes: usize,
    },
    /// Another driver call failed.
    Driver {
        /// What was being done (`"creating the context"`).
        during: &'static str,
        /// The driver's error.
        error: String,
    },
    /// A tensor lives on another device than the handle it was given to.
    WrongDevice {
        /// The handle's device ordinal.
        handle: usize,
        /// The tensor's device ordinal.
        tensor: usize,
    },
    /// A cuDNN call failed or cuDNN is absent (feature `cudnn`).
    Cudnn {
        /// The call (`"cudnnTransformTensor"`).
        call: &'static str,
        /// cuDNN's status or what is missing.
        status: String,
    },
    /// The shapes of a conversion's two sides break a layout rule (different dims, say).
    Layout(LayoutError),
    /// A DLPack exchange failed (feature `dlpack`): an export that could not be built, or an
    /// import whose tensor holds fewer bytes than its layout.
    Exchange {
        /// What failed.
        reason: String,
    },
}

impl GpuError {
    /// Maps a driver error, naming out-of-memory on its own.
    pub(crate) fn driver(during: &'static str, bytes: usize, e: DriverError) -> Self {
        match e.0 {
            CUresult::CUDA_ERROR_OUT_OF_MEMORY => GpuError::OutOfMemory { bytes },
            CUresult::CUDA_ERROR_NO_DEVICE => GpuError::NoDevice { ordinal: 0, count: 0 },
            _ => GpuError::Driver { during, error: format!("{e:?}") },
        }
    }
}

impl From<LayoutError> for GpuError {
    fn from(e: LayoutError) -> Self {
        GpuError::Layout(e)
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoDriver => write!(
                f,
                "the CUDA driver library (libcuda.so) could not be loaded: install an NVIDIA driver, \
                 or convert on the CPU with typed_layout::convert"
            ),
            GpuError::NoDevice { ordinal, count } => write!(
                f,
                "no CUDA device with ordinal {ordinal}: the driver sees {count} device{} (ordinals 0..{count})",
                if *count == 1 { "" } else { "s" }
            ),
            GpuError::NoNvrtc => write!(
                f,
                "the NVRTC library (libnvrtc.so) could not be loaded, so no kernel can be compiled: install \
                 the CUDA toolkit, or `pip install nvidia-cuda-nvrtc` and add its nvidia/cu13/lib folder to \
                 LD_LIBRARY_PATH"
            ),
            GpuError::Compile { kernel, arch, log } => {
                write!(f, "NVRTC could not compile kernel {kernel} for {arch} (a typed-layout bug): {log}")
            }
            GpuError::Load { kernel, arch, nvrtc, driver, error } => write!(
                f,
                "the driver could not load kernel {kernel} for {arch} with NVRTC {}.{} and a driver for CUDA \
                 {}.{}: {error} (a CUBIN loads on a driver of NVRTC's CUDA major version or newer, PTX only \
                 on a driver at least as new as NVRTC: put an NVRTC of the driver's CUDA version first on \
                 the library path)",
                nvrtc.0, nvrtc.1, driver.0, driver.1
            ),
            GpuError::Nvrtc { call, error } => write!(f, "{call} failed: {error}"),
            GpuError::Launch { kernel, error } => write!(f, "launching kernel {kernel} failed: {error}"),
            GpuError::OutOfMemory { bytes } => {
                write!(f, "out of device memory: could not allocate {bytes} bytes")
            }
            GpuError::Driver { during, error } => write!(f, "CUDA driver error while {during}: {error}"),
            GpuError::WrongDevice { handle, tensor } => write!(
                f,
                "the tensor lives on device {tensor} but the handle is bound to device {handle}: use the \
                 handle of the tensor's device"
            ),
            GpuError::Cudnn { call, status } => write!(f, "{call} failed: {status}"),
            GpuError::Layout(e) => e.fmt(f),
            GpuError::Exchange { reason } => write!(f, "DLPack exchange: {reason}"),
        }
    }
}

impl std::error::Error for GpuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpuError::Layout(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use cudarc::driver::{sys::CUresult, DriverError};

    use super::GpuError;

    #[test]
    fn out_of_device_memory_is_its_own_error() {
        let e = GpuError::driver("allocating", 1 << 40, DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert_eq!(e, GpuError::OutOfMemory { bytes: 1 << 40 });
        assert_eq!(e.to_string(), "out of device memory: could not allocate 1099511627776 bytes");
        // (Other driver errors are worded by the driver itself, so they need one to test.)
    }

    #[test]
    fn a_load_error_names_both_versions_and_the_arch() {
        let e = GpuError::Load {
            kernel: "tl_copy_v4_NCHW_to_NCHW_e4_i32".into(),
            arch: "sm_90".into(),
            nvrtc: (13, 5),
            driver: (12, 8),
            error: "CUBIN: CUDA_ERROR_NO_BINARY_FOR_GPU; PTX: not tried (NVRTC is newer than the driver)"
                .into(),
        };
        let text = e.to_string();
        for part in
            ["tl_copy_v4_NCHW_to_NCHW_e4_i32 for sm_90", "NVRTC 13.5", "CUDA 12.8", "NO_BINARY_FOR_GPU"]
        {
            assert!(text.contains(part), "{part} missing from: {text}");
        }
    }
}
