//! Why a DLPack tensor cannot be exported or imported as asked (feature `dlpack`).

use core::fmt;

use super::LayoutError;

/// Why a DLPack tensor cannot be exported or imported as asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum DlpackError {
    /// The tensor's dims, strides or data type are not those of the layout or type asked for,
    /// or break a layout's rules.
    Layout(LayoutError),
    /// The tensor is not on the device the reader reads (host memory for
    /// `interop::dlpack`, a CUDA device for the GPU backend's `gpu::dlpack`).
    Device {
        /// DLPack's device type code (`kDLCPU` is 1, `kDLCUDA` 2).
        device_type: u32,
        /// The device id.
        device_id: i32,
        /// The memory the reader reads (`"host memory (kDLCPU, 1)"`).
        expected: &'static str,
    },
    /// A data type typed-layout has no element for (DLPack's code, bits and lanes).
    DataType {
        /// `kDLInt` 0, `kDLUInt` 1, `kDLFloat` 2, `kDLBfloat` 4, …
        code: u8,
        /// Bits per lane.
        bits: u8,
        /// Lanes per element.
        lanes: u16,
    },
    /// Strides typed-layout does not address: negative (a mirrored axis), or a span past the
    /// address space.
    Strides {
        /// What is wrong.
        reason: &'static str,
    },
    /// The data pointer is null, or the byte offset moves it past the address space.
    Address {
        /// What is wrong.
        reason: &'static str,
    },
    /// A zero-copy view of data that does not start on its element's alignment (copy it with
    /// `dyn_tensor`, or have the producer align it).
    Misaligned {
        /// The element's alignment, in bytes.
        align: usize,
    },
    /// The DLPack crate's own checks refused the tensor (its ABI version, its metadata), or
    /// could not allocate it.
    Dlpack(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for DlpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DlpackError::Layout(e) => write!(f, "{e}"),
            DlpackError::Device { device_type, device_id, expected } => write!(
                f,
                "the tensor is on device type {device_type} (id {device_id}), not in {expected}: a host tensor (kDLCPU, 1) reads through interop::dlpack, a CUDA tensor (kDLCUDA, 2) through gpu::dlpack"
            ),
            DlpackError::DataType { code, bits, lanes } => write!(
                f,
                "DLPack data type (code {code}, {bits} bits, {lanes} lanes) is not one of cuDNN's data types: f32, f64, f16, bf16, i8, u8, i32, i64, one lane each"
            ),
            DlpackError::Strides { reason } | DlpackError::Address { reason } => write!(f, "{reason}"),
            DlpackError::Misaligned { align } => write!(
                f,
                "the data does not start on a multiple of {align} bytes: a zero-copy view needs its elements aligned (copy it with dyn_tensor instead)"
            ),
            DlpackError::Dlpack(e) => write!(f, "DLPack: {e}"),
        }
    }
}

impl std::error::Error for DlpackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DlpackError::Layout(e) => Some(e),
            DlpackError::Dlpack(e) => Some(&**e),
            _ => None,
        }
    }
}

impl From<crate::notation::NotationError> for DlpackError {
    /// A layout that does not parse (`?` on `DynLayout::parse`).
    fn from(e: crate::notation::NotationError) -> Self {
        DlpackError::Layout(e.into())
    }
}

impl From<LayoutError> for DlpackError {
    fn from(e: LayoutError) -> Self {
        DlpackError::Layout(e)
    }
}
