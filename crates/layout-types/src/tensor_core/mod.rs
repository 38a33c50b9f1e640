//! The guide's Tensor Core rules as checks: which of them a tensor breaks, at run time for any
//! shape and as a compile-time constant for static ones, and the math mode as a type.
//!
//! The guide (section "Tensor Core Operations") asks, so that a convolution qualifies, for
//! inputs and filters in NHWC, channel count and batch size padded to multiples of 8, a data
//! type Tensor Cores accelerate (FP16, FP32, INT32), and every buffer aligned to 128 bits (1024
//! bits can be faster). The check applies each rule to the tensors it is about, told by the
//! family: a convolution's input or output (NHWC; C and N), a filter (KRSC; C and K), a matrix
//! operand (M and N). Refinements per data type from NVIDIA's later documentation are
//! [extensions](TensorCoreExtension), reported beside the guide's rules and marked as such; the
//! batch rule can be [waived](TensorCoreCheck::waive_batch) for inference, visibly. A whole
//! convolution is checked by [`Conv::tensor_core`](crate::conv::Conv::tensor_core).
//!
//! ```
//! use typed_layout::tensor_core::{TensorCoreRule, TensorCoreShape};
//! use typed_layout::{ImageDims, Nchw, Nhwc, Shape, StaticShape};
//! use half::f16;
//!
//! // Run time: every rule broken, named.
//! let check = Shape::<Nchw>::new([1, 3, 224, 224])?.tensor_core(typed_layout::DataType::Half);
//! let broken: Vec<_> = check.broken().collect();
//! assert_eq!(broken, [TensorCoreRule::ChannelsLast, TensorCoreRule::ChannelsMultipleOf8, TensorCoreRule::BatchMultipleOf8]);
//!
//! // Compile time: a constant, and a shape type that only exists when ready.
//! const READY: bool = StaticShape::<Nhwc, ImageDims<8, 64, 56, 56>>::tensor_core(typed_layout::DataType::Half).is_ready();
//! assert!(READY);
//! let shape = TensorCoreShape::<f16, Nhwc, ImageDims<8, 64, 56, 56>>::SHAPE;
//! assert_eq!(shape.dims(), [8, 64, 56, 56]);
//! # Ok::<(), typed_layout::LayoutError>(())
//! ```
//!
//! A static shape that is not ready does not compile:
//!
//! ```compile_fail,E0080
//! use typed_layout::{tensor_core::TensorCoreShape, ImageDims, Nhwc};
//! // error: Tensor Cores want the channel count C padded to a multiple of 8
//! let shape = TensorCoreShape::<half::f16, Nhwc, ImageDims<8, 3, 56, 56>>::SHAPE;
//! ```

use core::fmt;
use core::marker::PhantomData;

use crate::dtype::DataType;
use crate::family::BuiltinFamily;
use crate::notation::{find_byte, Format};

mod extension;

pub use extension::TensorCoreExtension;

mod sealed {
    pub trait Sealed {}
}

/// cuDNN's `cudnnMathType_t`, as a type parameter for whatever runs the math.
///
/// ```
/// use typed_layout::tensor_core::{DefaultMath, MathMode, TensorOpMath};
/// /// What a convolution would be told: cudnnSetConvolutionMathType's argument.
/// fn math_type<M: MathMode>() -> i32 { M::CUDNN_VALUE }
/// assert_eq!((math_type::<DefaultMath>(), math_type::<TensorOpMath>()), (0, 1));
/// ```
pub trait MathMode: sealed::Sealed + Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The `cudnnMathType_t` value.
    const CUDNN_VALUE: i32;
    /// Whether the mode may use Tensor Cores.
    const TENSOR_CORES: bool;
}

/// `CUDNN_DEFAULT_MATH`: no Tensor Cores.
///
/// ```
/// use typed_layout::tensor_core::{DefaultMath, MathMode};
/// assert_eq!((DefaultMath::CUDNN_VALUE, DefaultMath::TENSOR_CORES), (0, false));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DefaultMath;
/// `CUDNN_TENSOR_OP_MATH`: Tensor Cores where the operation qualifies (cuDNN falls back to
/// scalar math where they are not applicable).
///
/// ```
/// use typed_layout::tensor_core::{MathMode, TensorOpMath};
/// assert_eq!((TensorOpMath::CUDNN_VALUE, TensorOpMath::TENSOR_CORES), (1, true));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TensorOpMath;

impl sealed::Sealed for DefaultMath {}
impl sealed::Sealed for TensorOpMath {}
impl MathMode for DefaultMath {
    const CUDNN_VALUE: i32 = 0;
    const TENSOR_CORES: bool = false;
}
impl MathMode for TensorOpMath {
    const CUDNN_VALUE: i32 = 1;
    const TENSOR_CORES: bool = true;
}

/// One of the guide's Tensor Core rules, each for the tensors it is about: a convolution's input
/// and output (an image or volume family), its filter (a filter family), or a matrix product's
/// operand (the matmul family).
///
/// ```
/// use typed_layout::{tensor_core::TensorCoreRule, Nchw, Tensor};
/// let rgb = Tensor::<half::f16, Nchw>::zeros([8, 3, 32, 32])?;
/// let check = rgb.tensor_core();
/// assert!(check.breaks(TensorCoreRule::ChannelsLast) && check.breaks(TensorCoreRule::ChannelsMultipleOf8));
/// assert!(!check.breaks(TensorCoreRule::BatchMultipleOf8));
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorCoreRule {
    /// Inputs in NHWC (NDHWC for volumes) and filters in its filter order, KRSC (KDRSC): the
    /// batch or output channels outermost, C innermost, no vectorized C.
    ChannelsLast,
    /// The channel count C a multiple of 8.
    ChannelsMultipleOf8,
    /// A filter's output channels K (the output's C) a multiple of 8.
    OutputChannelsMultipleOf8,
    /// The batch size N a multiple of 8 (a convolution's input and output; waivable, see
    /// [`TensorCoreCheck::waive_batch`]).
    BatchMultipleOf8,
    /// A matrix operand's rows M and columns N multiples of 8: the guide's rule for the dims
    /// the product tiles (its batch B is not tiled).
    MatrixMultipleOf8,
    /// A data type Tensor Cores accelerate: FP16, FP32 or INT32.
    DataType,
    /// The buffer aligned to 128 bits.
    Aligned128,
}

impl TensorCoreRule {
    /// Every rule, in the order checks report them.
    pub const ALL: [TensorCoreRule; 7] = [
        TensorCoreRule::ChannelsLast,
        TensorCoreRule::ChannelsMultipleOf8,
        TensorCoreRule::OutputChannelsMultipleOf8,
        TensorCoreRule::BatchMultipleOf8,
        TensorCoreRule::MatrixMultipleOf8,
        TensorCoreRule::DataType,
        TensorCoreRule::Aligned128,
    ];

    /// The rule in the guide's terms.
    pub const fn message(self) -> &'static str {
        match self {
            TensorCoreRule::ChannelsLast => {
                "Tensor Cores want inputs and outputs in NHWC and filters in KRSC (channels last)"
            }
            TensorCoreRule::ChannelsMultipleOf8 => {
                "Tensor Cores want the channel count C padded to a multiple of 8"
            }
            TensorCoreRule::OutputChannelsMultipleOf8 => {
                "Tensor Cores want a filter's output channels K padded to a multiple of 8"
            }
            TensorCoreRule::BatchMultipleOf8 => {
                "Tensor Cores want the batch size N padded to a multiple of 8"
            }
            TensorCoreRule::MatrixMultipleOf8 => {
                "Tensor Cores want a matrix operand's rows M and columns N padded to multiples of 8"
            }
            TensorCoreRule::DataType => "Tensor Cores accelerate FP16, FP32 and INT32 data",
            TensorCoreRule::Aligned128 => "Tensor Cores want every buffer aligned to 128 bits",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for TensorCoreRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// The Tensor Core rules a tensor breaks (empty: it qualifies), with the extensions it breaks
/// and whether the batch rule was waived.
///
/// What a tensor is for follows from its family: an image or volume is a convolution's input or
/// output (NHWC, C and N multiples of 8), a filter family's tensor a filter (KRSC, K and C
/// multiples of 8), a matmul tensor an operand (M and N multiples of 8).
///
/// ```
/// use typed_layout::{tensor_core::TensorCoreRule, DataType, Nhwc, Shape};
/// let check = Shape::<Nhwc>::new([4, 64, 56, 56])?.tensor_core(DataType::Half);
/// assert!(!check.is_ready());
/// assert_eq!(check.broken().collect::<Vec<_>>(), [TensorCoreRule::BatchMultipleOf8]);
/// assert!(check.with_address(0x1004).breaks(TensorCoreRule::Aligned128)); // 4 bytes off 128 bits
/// # Ok::<(), typed_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TensorCoreCheck {
    broken: u8,
    extensions: u8,
    /// The role has a batch rule (a convolution's input or output).
    has_batch: bool,
    batch_waived: bool,
}

/// What a tensor is for, from its family's letters.
enum Role {
    /// A convolution's input or output: letters with N (batch) and C.
    Data { n: Option<usize>, c: Option<usize> },
    /// A convolution's filter: K (output channels) first, then C.
    Filter,
    /// A matrix product's operand: B, M, N.
    Matrix,
}

impl TensorCoreCheck {
    /// The rules a shape breaks, for the role its family's `letters` (logical order) give it:
    /// channels last, the channel (and batch, output channel or matrix) dims multiples of 8,
    /// and the data type; the extensions for `data_type`.
    pub const fn of_shape(
        format: &Format,
        letters: &str,
        dims: &[usize],
        data_type: DataType,
    ) -> TensorCoreCheck {
        let mut check = TensorCoreCheck { broken: 0, extensions: 0, has_batch: false, batch_waived: false };
        let bytes = letters.as_bytes();
        let role = match BuiltinFamily::of_letters(letters) {
            Some(BuiltinFamily::Matmul) => Role::Matrix,
            Some(BuiltinFamily::Filter | BuiltinFamily::VolumeFilter) => Role::Filter,
            _ => Role::Data { n: find_byte(bytes, 0, b'N'), c: find_byte(bytes, 0, b'C') },
        };
        // The dims each rule (and extension) is about: (outer, channels) for the layout rule.
        let (outer, channels) = match role {
            Role::Data { n, c } => (n, c),
            Role::Filter => (Some(0), Some(1)),
            Role::Matrix => (None, None),
        };
        let order = format.order();
        let channels_last = match (outer, channels) {
            (Some(o), Some(c)) => {
                format.vector().is_none()
                    && format.is_fully_packed()
                    && order[0] == o
                    && order[order.len() - 1] == c
            }
            _ => false,
        };
        if !matches!(role, Role::Matrix) && !channels_last {
            check = check.with(TensorCoreRule::ChannelsLast);
        }
        match role {
            Role::Data { n, c } => {
                check.has_batch = n.is_some();
                if !multiple(dims, c, 8) {
                    check = check.with(TensorCoreRule::ChannelsMultipleOf8);
                }
                if !multiple(dims, n, 8) {
                    check = check.with(TensorCoreRule::BatchMultipleOf8);
                }
            }
            Role::Filter => {
                if !multiple(dims, Some(1), 8) {
                    check = check.with(TensorCoreRule::ChannelsMultipleOf8);
                }
                if !multiple(dims, Some(0), 8) {
                    check = check.with(TensorCoreRule::OutputChannelsMultipleOf8);
                }
            }
            Role::Matrix => {
                if !multiple(dims, Some(1), 8) || !multiple(dims, Some(2), 8) {
                    check = check.with(TensorCoreRule::MatrixMultipleOf8);
                }
            }
        }
        if !matches!(data_type, DataType::Half | DataType::Float | DataType::Int32) {
            check = check.with(TensorCoreRule::DataType);
        }
        // The extensions: the same channel dims, at the multiple of the data type.
        let ext = match data_type {
            DataType::Int8 | DataType::Uint8 => Some(TensorCoreExtension::Int8MultipleOf16),
            DataType::Float => Some(TensorCoreExtension::Tf32MultipleOf4),
            _ => None,
        };
        let int8 = matches!(data_type, DataType::Int8 | DataType::Uint8);
        // INT8x32 is signed: cuDNN has no UINT8x32.
        let int8x32 = match format.vector() {
            Some(v) => v.width == 32 && format.is_fully_packed() && matches!(data_type, DataType::Int8),
            None => false,
        };
        if int8 && !matches!(role, Role::Matrix) && !channels_last && !int8x32 {
            check.extensions |= TensorCoreExtension::Int8Layout.bit();
        }
        if let Some(ext) = ext {
            let m = ext.multiple().1;
            let ok = match role {
                Role::Data { c, .. } => multiple(dims, c, m),
                Role::Filter => multiple(dims, Some(0), m) && multiple(dims, Some(1), m),
                Role::Matrix => multiple(dims, Some(1), m) && multiple(dims, Some(2), m),
            };
            if !ok {
                check.extensions |= ext.bit();
            }
        }
        check
    }

    /// The same check with the batch rule set aside, visibly: for inference with a batch that
    /// cannot be padded (batch 1). The rule no longer counts in [`is_ready`](Self::is_ready),
    /// and the answer says it was waived.
    ///
    /// ```
    /// use typed_layout::{DataType, Nhwc, Shape};
    /// let check = Shape::<Nhwc>::new([1, 64, 56, 56])?.tensor_core(DataType::Half);
    /// assert!(!check.is_ready());
    /// let inference = check.waive_batch();
    /// assert!(inference.is_ready() && inference.batch_waived());
    /// assert_eq!(inference.to_string(), "qualifies for Tensor Cores (batch rule waived)");
    /// # Ok::<(), typed_layout::LayoutError>(())
    /// ```
    pub const fn waive_batch(self) -> TensorCoreCheck {
        if !self.has_batch {
            return self; // a filter or a matrix operand has no batch rule to waive
        }
        TensorCoreCheck {
            broken: self.broken & !TensorCoreRule::BatchMultipleOf8.bit(),
            batch_waived: true,
            ..self
        }
    }

    /// Was the batch rule waived?
    pub const fn batch_waived(self) -> bool {
        self.batch_waived
    }

    /// Does the tensor break the extension `extension`?
    pub const fn breaks_extension(self, extension: TensorCoreExtension) -> bool {
        self.extensions & extension.bit() != 0
    }

    /// Every extension broken (see [`TensorCoreExtension`]); these do not count in
    /// [`is_ready`](Self::is_ready).
    pub fn extensions_broken(self) -> impl Iterator<Item = TensorCoreExtension> {
        TensorCoreExtension::ALL.into_iter().filter(move |&e| self.breaks_extension(e))
    }

    /// This check plus the alignment rule for a buffer starting at `address`.
    pub const fn with_address(self, address: usize) -> TensorCoreCheck {
        if address.is_multiple_of(16) {
            self
        } else {
            self.with(TensorCoreRule::Aligned128)
        }
    }

    const fn with(self, rule: TensorCoreRule) -> TensorCoreCheck {
        TensorCoreCheck { broken: self.broken | rule.bit(), ..self }
    }

    /// No rule broken: the tensor qualifies for Tensor Cores.
    pub const fn is_ready(self) -> bool {
        self.broken == 0
    }

    /// Does the tensor break `rule`?
    pub const fn breaks(self, rule: TensorCoreRule) -> bool {
        self.broken & rule.bit() != 0
    }

    /// The first rule broken, in [`TensorCoreRule::ALL`]'s order.
    pub const fn first(self) -> Option<TensorCoreRule> {
        let mut i = 0;
        while i < TensorCoreRule::ALL.len() {
            if self.breaks(TensorCoreRule::ALL[i]) {
                return Some(TensorCoreRule::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// Every rule broken.
    pub fn broken(self) -> impl Iterator<Item = TensorCoreRule> {
        TensorCoreRule::ALL.into_iter().filter(move |&r| self.breaks(r))
    }
}

impl fmt::Display for TensorCoreCheck {
    /// The guide's rules broken, `; `-separated (or "qualifies for Tensor Cores"), then whether
    /// the batch rule was waived, then each extension broken, marked as one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ready() {
            f.write_str("qualifies for Tensor Cores")?;
        }
        for (i, rule) in self.broken().enumerate() {
            write!(f, "{}{}", if i == 0 { "" } else { "; " }, rule.message())?;
        }
        if self.batch_waived {
            f.write_str(" (batch rule waived)")?;
        }
        for extension in self.extensions_broken() {
            write!(f, "; {}", extension.message())?;
        }
        Ok(())
    }
}

/// Is dim `d` (when there is one) of `dims` a multiple of `m`?
const fn multiple(dims: &[usize], d: Option<usize>, m: usize) -> bool {
    match d {
        Some(d) => d < dims.len() && dims[d].is_multiple_of(m),
        None => false,
    }
}

/// A static shape of `T` elements in layout `L` with dims `D` that qualifies for Tensor Cores:
/// naming its `SHAPE` is a compile error, naming the first rule broken, when it does not.
/// (Alignment is a property of a buffer, not of a shape: storage typed-layout allocates meets
/// it.)
///
/// ```
/// use typed_layout::{tensor_core::TensorCoreShape, ImageDims, Nhwc, Shape};
/// const INPUT: Shape<Nhwc> = TensorCoreShape::<half::f16, Nhwc, ImageDims<8, 64, 56, 56>>::SHAPE;
/// assert_eq!(INPUT.dims(), [8, 64, 56, 56]);
/// // TensorCoreShape::<f32, Nhwc, ImageDims<8, 3, 224, 224>>::SHAPE does not compile:
/// // "Tensor Cores want the channel count C padded to a multiple of 8" (ui-tests/types).
/// ```
///
/// `WAIVE_BATCH = true` sets the batch rule aside, in the type (inference with batch 1, the
/// compile-time twin of [`TensorCoreCheck::waive_batch`]):
///
/// ```
/// use typed_layout::{tensor_core::TensorCoreShape, ImageDims, Nhwc};
/// let one = TensorCoreShape::<half::f16, Nhwc, ImageDims<1, 64, 56, 56>, true>::SHAPE;
/// assert_eq!(one.dims()[0], 1);
/// // Without the waiver the same shape does not compile (N = 1).
/// ```
pub struct TensorCoreShape<T, L, D, const WAIVE_BATCH: bool = false>(PhantomData<(T, L, D)>);
