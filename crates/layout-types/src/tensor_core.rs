//! The guide's Tensor Core rules as checks: which of them a tensor breaks, at run time for any
//! shape and as a compile-time constant for static ones, and the math mode as a type.
//!
//! The guide (section "Tensor Core Operations") asks, so that a convolution qualifies, for
//! inputs in NHWC, channel count and batch size padded to multiples of 8, a data type Tensor
//! Cores accelerate (FP16, FP32, INT32), and every buffer aligned to 128 bits (1024 bits can be
//! faster).
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
use crate::notation::{find_byte, Format};

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

/// One of the guide's Tensor Core rules.
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
pub enum TensorCoreRule {
    /// Inputs in NHWC (NDHWC for volumes): N outermost, C innermost, no vectorized C.
    ChannelsLast,
    /// The channel count C a multiple of 8.
    ChannelsMultipleOf8,
    /// The batch size N a multiple of 8.
    BatchMultipleOf8,
    /// A data type Tensor Cores accelerate: FP16, FP32 or INT32.
    DataType,
    /// The buffer aligned to 128 bits.
    Aligned128,
}

impl TensorCoreRule {
    /// Every rule, in the order checks report them.
    pub const ALL: [TensorCoreRule; 5] = [
        TensorCoreRule::ChannelsLast,
        TensorCoreRule::ChannelsMultipleOf8,
        TensorCoreRule::BatchMultipleOf8,
        TensorCoreRule::DataType,
        TensorCoreRule::Aligned128,
    ];

    /// The rule in the guide's terms.
    pub const fn message(self) -> &'static str {
        match self {
            TensorCoreRule::ChannelsLast => "Tensor Cores want inputs in NHWC (channels last)",
            TensorCoreRule::ChannelsMultipleOf8 => {
                "Tensor Cores want the channel count C padded to a multiple of 8"
            }
            TensorCoreRule::BatchMultipleOf8 => {
                "Tensor Cores want the batch size N padded to a multiple of 8"
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

/// The set of Tensor Core rules a tensor breaks; empty means it qualifies.
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
}

impl TensorCoreCheck {
    /// The rules a shape breaks: channels last, C and N multiples of 8 (for a family with an N
    /// and a C), and the data type. `letters` are the family's, in logical order.
    pub const fn of_shape(
        format: &Format,
        letters: &str,
        dims: &[usize],
        data_type: DataType,
    ) -> TensorCoreCheck {
        let mut check = TensorCoreCheck { broken: 0 };
        let (n, c) = (find_byte(letters.as_bytes(), 0, b'N'), find_byte(letters.as_bytes(), 0, b'C'));
        let order = format.order();
        let channels_last = match (n, c) {
            (Some(n), Some(c)) => {
                format.vector().is_none()
                    && format.is_fully_packed()
                    && order[0] == n
                    && order[order.len() - 1] == c
            }
            _ => false,
        };
        if !channels_last {
            check = check.with(TensorCoreRule::ChannelsLast);
        }
        match c {
            Some(c) if c < dims.len() && dims[c].is_multiple_of(8) => {}
            _ => check = check.with(TensorCoreRule::ChannelsMultipleOf8),
        }
        match n {
            Some(n) if n < dims.len() && dims[n].is_multiple_of(8) => {}
            _ => check = check.with(TensorCoreRule::BatchMultipleOf8),
        }
        if !matches!(data_type, DataType::Half | DataType::Float | DataType::Int32) {
            check = check.with(TensorCoreRule::DataType);
        }
        check
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
        TensorCoreCheck { broken: self.broken | rule.bit() }
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ready() {
            return f.write_str("qualifies for Tensor Cores");
        }
        for (i, rule) in self.broken().enumerate() {
            write!(f, "{}{}", if i == 0 { "" } else { "; " }, rule.message())?;
        }
        Ok(())
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
pub struct TensorCoreShape<T, L, D>(PhantomData<(T, L, D)>);
