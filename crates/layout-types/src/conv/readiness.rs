//! The guide's Tensor Core advice for a whole convolution: input, filter and output, each
//! checked for its role.

use core::fmt;

use super::{Conv, FilterOf};
use crate::dtype::DataType;
use crate::family::ConvInput;
use crate::layout::Layout;
use crate::tensor_core::TensorCoreCheck;

/// Each tensor of a convolution against the Tensor Core rules of its role: the input and the
/// output (NHWC, C and N multiples of 8), the filter (KRSC, K and C multiples of 8), all of one
/// data type. Buffers' alignment is checked on tensors ([`Tensor::tensor_core`](crate::Tensor::tensor_core)),
/// not on shapes.
///
/// ```
/// use typed_layout::{conv::Conv, DataType, Kcrs, Krsc, Nchw, Nhwc, Shape};
/// // As a model arrives: NCHW, a KCRS filter, 3 input channels, batch 1.
/// let x = Shape::<Nchw>::new([1, 3, 224, 224])?;
/// let w = Shape::<Kcrs>::new([64, 3, 7, 7])?;
/// let advice = Conv::builder(&x, &w).stride(&[2, 2]).padding(&[3, 3]).build()?.tensor_core(DataType::Half);
/// assert!(!advice.is_ready());
/// println!("{advice}"); // every rule each tensor breaks
/// // Following the guide: NHWC, KRSC, C padded to 8; batch 1 for inference, the waiver visible.
/// let x = Shape::<Nhwc>::new([1, 8, 224, 224])?;
/// let w = Shape::<Krsc>::new([64, 8, 7, 7])?;
/// let conv = Conv::builder(&x, &w).stride(&[2, 2]).padding(&[3, 3]).build()?;
/// let advice = conv.tensor_core(DataType::Half).waive_batch();
/// assert!(advice.is_ready());
/// assert_eq!(advice.input.to_string(), "qualifies for Tensor Cores (batch rule waived)");
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConvTensorCore {
    /// The input's check.
    pub input: TensorCoreCheck,
    /// The filter's check.
    pub filter: TensorCoreCheck,
    /// The output's check (in the input's layout).
    pub output: TensorCoreCheck,
}

impl ConvTensorCore {
    /// No tensor breaks a guide rule.
    pub const fn is_ready(&self) -> bool {
        self.input.is_ready() && self.filter.is_ready() && self.output.is_ready()
    }

    /// The batch rule set aside on the input and the output (inference with batch 1), visibly.
    pub const fn waive_batch(self) -> ConvTensorCore {
        ConvTensorCore {
            input: self.input.waive_batch(),
            filter: self.filter,
            output: self.output.waive_batch(),
        }
    }
}

impl fmt::Display for ConvTensorCore {
    /// One line per tensor: `input: …`, `filter: …`, `output: …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "input: {}\nfilter: {}\noutput: {}", self.input, self.filter, self.output)
    }
}

impl<I, F> Conv<I, F>
where
    I: Layout,
    I::Family: ConvInput,
    F: FilterOf<I>,
{
    /// The Tensor Core rules each of the convolution's tensors breaks, for `data_type`
    /// (see [`ConvTensorCore`]).
    pub fn tensor_core(&self, data_type: DataType) -> ConvTensorCore {
        let output =
            TensorCoreCheck::of_shape(&I::FORMAT, I::LETTERS, self.output_dims().as_ref(), data_type);
        ConvTensorCore {
            input: self.input().tensor_core(data_type),
            filter: self.filter().tensor_core(data_type),
            output,
        }
    }
}
