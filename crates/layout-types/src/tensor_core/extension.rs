//! Refinements of the guide's Tensor Core rules from NVIDIA's later documentation.

use core::fmt;

use crate::dtype::DataType;

/// A refinement of the guide's rules from NVIDIA's later documentation, per data type: reported
/// beside the guide's rules, marked as an extension, never replacing one (a tensor the guide's
/// rules reject stays rejected by [`TensorCoreCheck::is_ready`](super::TensorCoreCheck::is_ready)).
///
/// Source of both: NVIDIA, *Deep Learning Performance Guide*, "Matrix Multiplication Background",
/// the table of Tensor Core requirements by data type (dims most efficient at multiples of 16
/// bytes of elements: 16 for INT8, 8 for FP16, 4 for TF32).
///
/// ```
/// use typed_layout::{tensor_core::TensorCoreExtension, DataType, Nhwc, Shape};
/// let check = Shape::<Nhwc>::new([8, 24, 7, 7])?.tensor_core(DataType::Int8);
/// assert_eq!(check.extensions_broken().collect::<Vec<_>>(), [TensorCoreExtension::Int8MultipleOf16]);
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorCoreExtension {
    /// INT8 data (i8, u8): the channel counts (a matrix's M and N) multiples of 16. The
    /// vectorized NC/32HW32 (cuDNN's INT8x32) meets it by its layout.
    Int8MultipleOf16,
    /// FP32 data runs on Tensor Cores as TF32 (NVIDIA Ampere and later): channel counts (M and
    /// N) multiples of 4.
    Tf32MultipleOf4,
    /// INT8 data in a layout cuDNN's int8 Tensor Core convolutions take: channels last (NHWC,
    /// KRSC) or in vectors of 32 (NC/32HW32, KC/32RS32: `CUDNN_DATA_INT8x32`); NC/4HW4
    /// (`INT8x4`) is the older, non-Tensor-Core int8 path. Source: the cuDNN API reference,
    /// `cudnnConvolutionForward`'s supported configurations (`INT8_CONFIG` with NHWC,
    /// `INT8x32_CONFIG` with `NCHW_VECT_C`).
    Int8Layout,
}

impl TensorCoreExtension {
    /// Every extension, in the order checks report them.
    pub const ALL: [TensorCoreExtension; 3] = [
        TensorCoreExtension::Int8MultipleOf16,
        TensorCoreExtension::Tf32MultipleOf4,
        TensorCoreExtension::Int8Layout,
    ];

    /// The refinement, marked as one.
    pub const fn message(self) -> &'static str {
        match self {
            TensorCoreExtension::Int8MultipleOf16 => {
                "extension (NVIDIA Deep Learning Performance Guide): INT8 Tensor Cores want channel counts padded to multiples of 16"
            }
            TensorCoreExtension::Tf32MultipleOf4 => {
                "extension (NVIDIA Deep Learning Performance Guide): FP32 runs as TF32, which wants channel counts padded to multiples of 4"
            }
            TensorCoreExtension::Int8Layout => {
                "extension (cuDNN API reference, cudnnConvolutionForward): INT8 Tensor Core convolutions take NHWC / KRSC or NC/32HW32 / KC/32RS32 (INT8x32)"
            }
        }
    }

    /// The data type the extension is about, and the multiple it asks for.
    pub const fn multiple(self) -> (DataType, usize) {
        match self {
            TensorCoreExtension::Int8MultipleOf16 => (DataType::Int8, 16),
            TensorCoreExtension::Tf32MultipleOf4 => (DataType::Float, 4),
            TensorCoreExtension::Int8Layout => (DataType::Int8, 32),
        }
    }

    pub(super) const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for TensorCoreExtension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}
