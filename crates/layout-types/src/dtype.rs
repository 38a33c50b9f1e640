//! Data types: the element types a tensor can hold, mapped to cuDNN's `cudnnDataType_t`.

use core::fmt;

/// cuDNN's `cudnnDataType_t` values for the scalar types typed-layout supports.
///
/// The discriminant is the value cuDNN's headers give the enumerator.
///
/// ```
/// use typed_layout::{DataType, Element};
/// assert_eq!(<f32 as Element>::DATA_TYPE, DataType::Float);
/// assert_eq!(DataType::Float as i32, 0);
/// assert_eq!(DataType::BFloat16.size(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum DataType {
    /// `CUDNN_DATA_FLOAT`: 32-bit IEEE float.
    Float = 0,
    /// `CUDNN_DATA_DOUBLE`: 64-bit IEEE float.
    Double = 1,
    /// `CUDNN_DATA_HALF`: 16-bit IEEE float.
    Half = 2,
    /// `CUDNN_DATA_INT8`: signed 8-bit integer.
    Int8 = 3,
    /// `CUDNN_DATA_INT32`: signed 32-bit integer.
    Int32 = 4,
    /// `CUDNN_DATA_UINT8`: unsigned 8-bit integer.
    Uint8 = 6,
    /// `CUDNN_DATA_BFLOAT16`: 16-bit brain float.
    BFloat16 = 9,
    /// `CUDNN_DATA_INT64`: signed 64-bit integer.
    Int64 = 10,
}

impl DataType {
    /// Every supported data type, in cuDNN enumerator order.
    pub const ALL: [DataType; 8] = [
        DataType::Float,
        DataType::Double,
        DataType::Half,
        DataType::Int8,
        DataType::Int32,
        DataType::Uint8,
        DataType::BFloat16,
        DataType::Int64,
    ];

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DataType::Int8 | DataType::Uint8 => 1,
            DataType::Half | DataType::BFloat16 => 2,
            DataType::Float | DataType::Int32 => 4,
            DataType::Double | DataType::Int64 => 8,
        }
    }

    /// The cuDNN enumerator name (`"CUDNN_DATA_FLOAT"`).
    pub const fn cudnn_name(self) -> &'static str {
        match self {
            DataType::Float => "CUDNN_DATA_FLOAT",
            DataType::Double => "CUDNN_DATA_DOUBLE",
            DataType::Half => "CUDNN_DATA_HALF",
            DataType::Int8 => "CUDNN_DATA_INT8",
            DataType::Int32 => "CUDNN_DATA_INT32",
            DataType::Uint8 => "CUDNN_DATA_UINT8",
            DataType::BFloat16 => "CUDNN_DATA_BFLOAT16",
            DataType::Int64 => "CUDNN_DATA_INT64",
        }
    }

    /// The data type with cuDNN's enumerator value `id`, if typed-layout supports it.
    ///
    /// ```
    /// use typed_layout::DataType;
    /// assert_eq!(DataType::from_cudnn(2), Some(DataType::Half));
    /// assert_eq!(DataType::from_cudnn(5), None); // CUDNN_DATA_INT8x4: a vector type
    /// ```
    pub const fn from_cudnn(id: i32) -> Option<DataType> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if Self::ALL[i] as i32 == id {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cudnn_name())
    }
}

pub(crate) mod sealed {
    /// The bits of an element, for kernels that move several elements per machine word.
    pub trait Sealed {
        /// The element's bits, zero-extended.
        fn to_word(self) -> u64;
        /// The element whose bits are the low `8 * size_of::<Self>()` bits of `bits`.
        fn from_word(bits: u64) -> Self;
        /// The value as an f64 (exact but for i64 beyond 2^53).
        fn to_f64(self) -> f64;
        /// The nearest value to `v`: floats rounded to nearest, integers rounded half away from
        /// zero and saturated (NaN is 0).
        fn from_f64(v: f64) -> Self;
    }
}

/// A scalar a tensor can hold: one of f32, f64, `half::f16`, `half::bf16`, i8, u8, i32, i64.
///
/// Sealed: the set is cuDNN's, and conversions move the bits of these types only.
///
/// ```
/// use typed_layout::{DataType, Element};
/// fn describe<T: Element>() -> (DataType, usize) { (T::DATA_TYPE, T::SIZE) }
/// assert_eq!(describe::<half::f16>(), (DataType::Half, 2));
/// assert_eq!(describe::<i64>(), (DataType::Int64, 8));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an element type of typed-layout",
    label = "not a cuDNN data type",
    note = "elements are the cuDNN data types: f32, f64, half::f16, half::bf16, i8, u8, i32, i64"
)]
pub trait Element: sealed::Sealed + Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The cuDNN data type of this scalar.
    const DATA_TYPE: DataType;
    /// `size_of::<Self>()`, equal to `DATA_TYPE.size()`.
    const SIZE: usize = core::mem::size_of::<Self>();
}

macro_rules! element {
    ($($t:ty => $dt:ident, $bits:ty, |$x:ident| $to:expr, |$b:ident| $from:expr, |$y:ident| $tof:expr, |$v:ident| $fromf:expr;)*) => {$(
        impl sealed::Sealed for $t {
            #[inline(always)]
            fn to_f64(self) -> f64 {
                let $y = self;
                $tof
            }
            #[inline(always)]
            fn from_f64($v: f64) -> Self {
                $fromf
            }
            #[inline(always)]
            fn to_word(self) -> u64 {
                let $x = self;
                $to as u64
            }
            #[inline(always)]
            fn from_word(bits: u64) -> Self {
                let $b = bits as $bits;
                $from
            }
        }
        impl Element for $t {
            const DATA_TYPE: DataType = DataType::$dt;
        }
    )*};
}

element! {
    f32 => Float, u32, |x| x.to_bits(), |b| f32::from_bits(b), |y| y as f64, |v| v as f32;
    f64 => Double, u64, |x| x.to_bits(), |b| f64::from_bits(b), |y| y, |v| v;
    half::f16 => Half, u16, |x| x.to_bits(), |b| half::f16::from_bits(b), |y| y.to_f64(), |v| half::f16::from_f64(v);
    half::bf16 => BFloat16, u16, |x| x.to_bits(), |b| half::bf16::from_bits(b), |y| y.to_f64(), |v| half::bf16::from_f64(v);
    i8 => Int8, u8, |x| x as u8, |b| b as i8, |y| y as f64, |v| v.round() as i8;
    u8 => Uint8, u8, |x| x, |b| b, |y| y as f64, |v| v.round() as u8;
    i32 => Int32, u32, |x| x as u32, |b| b as i32, |y| y as f64, |v| v.round() as i32;
    i64 => Int64, u64, |x| x as u64, |b| b as i64, |y| y as f64, |v| v.round() as i64;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Element>() {
        assert_eq!(T::SIZE, T::DATA_TYPE.size());
        assert_eq!(DataType::from_cudnn(T::DATA_TYPE as i32), Some(T::DATA_TYPE));
    }

    #[test]
    fn sizes_match_the_rust_types() {
        check::<f32>();
        check::<f64>();
        check::<half::f16>();
        check::<half::bf16>();
        check::<i8>();
        check::<u8>();
        check::<i32>();
        check::<i64>();
    }

    fn bits_round_trip<T: Element>(values: &[T]) {
        let high = if T::SIZE == 8 { 0 } else { !0u64 << (8 * T::SIZE) };
        for &v in values {
            let bits = sealed::Sealed::to_word(v);
            assert_eq!(bits & high, 0, "{v:?}: {bits:#x} is not zero-extended");
            let back: T = sealed::Sealed::from_word(bits | high);
            assert_eq!(back, v);
            assert_eq!(sealed::Sealed::to_word(back), bits, "{v:?}: high bits leaked into from_bits");
        }
    }

    #[test]
    fn bits_are_zero_extended_and_round_trip() {
        bits_round_trip(&[0.0f32, -1.5, f32::MAX]);
        bits_round_trip(&[0.0f64, -1.5, f64::MIN_POSITIVE]);
        bits_round_trip(&[half::f16::from_f32(-2.0), half::f16::MAX]);
        bits_round_trip(&[half::bf16::from_f32(-2.0), half::bf16::MIN]);
        bits_round_trip(&[0i8, -1, i8::MIN]);
        bits_round_trip(&[0u8, 255]);
        bits_round_trip(&[0i32, -1, i32::MIN]);
        bits_round_trip(&[0i64, -1, i64::MIN]);
    }

    #[test]
    fn cudnn_ids_are_the_headers_values() {
        let ids: Vec<i32> = DataType::ALL.iter().map(|d| *d as i32).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 6, 9, 10]);
    }
}
