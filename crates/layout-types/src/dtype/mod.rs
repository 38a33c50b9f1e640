//! Data types: the element types a tensor can hold, mapped to cuDNN's `cudnnDataType_t`.
//!
//! ```
//! use typed_layout::{DataType, Element};
//! assert_eq!(<half::bf16 as Element>::DATA_TYPE, DataType::BFloat16);
//! assert_eq!(DataType::from_cudnn(0), Some(DataType::Float)); // CUDNN_DATA_FLOAT
//! assert_eq!(DataType::Int8.size(), 1);
//! ```

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

pub mod narrow;

pub(crate) mod sealed {
    /// The bits of an element, for kernels that move several elements per machine word (or
    /// register: every element type is plain old data, viewed as bytes by the SIMD blocks).
    pub trait Sealed: bytemuck::Pod {
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
    half::f16 => Half, u16, |x| x.to_bits(), |b| half::f16::from_bits(b), |y| y.to_f64(), |v| half::f16::from_bits(narrow::f16_bits(v));
    half::bf16 => BFloat16, u16, |x| x.to_bits(), |b| half::bf16::from_bits(b), |y| y.to_f64(), |v| half::bf16::from_bits(narrow::bf16_bits(v));
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

    /// Every f32 is exact in f64, so f64 → f16/bf16 of it must equal `half`'s f32 → f16/bf16,
    /// which rounds from all of the f32's bits (checked on a stride through all bit patterns
    /// and every pattern near a tie).
    #[test]
    fn narrowing_f32_values_matches_half_from_f32() {
        use half::{bf16, f16};
        let check = |b: u32| {
            let x = f32::from_bits(b);
            let (h, g) = (narrow::f16_bits(x as f64), narrow::bf16_bits(x as f64));
            if x.is_nan() {
                assert!(f16::from_bits(h).is_nan() && bf16::from_bits(g).is_nan(), "{b:#x}");
                assert_eq!(h >> 15, (b >> 31) as u16);
            } else {
                assert_eq!(h, f16::from_f32(x).to_bits(), "f16 of {x:e} ({b:#x})");
                assert_eq!(g, bf16::from_f32(x).to_bits(), "bf16 of {x:e} ({b:#x})");
            }
        };
        let mut b = 0u32;
        while let Some(next) = b.checked_add(65_521) {
            check(b);
            b = next;
        }
        // Near the f16 ties (13 cut bits: ...1000000000000 ± 1) and bf16 ties (16 cut bits),
        // over every exponent.
        for e in 0..256u32 {
            for m in [0u32, 0x155, 0x3ff, 0x2aa] {
                for (cut, t) in [(13, 1u32 << 12), (16, 1 << 15)] {
                    for d in [-1i32, 0, 1] {
                        let man = ((m << cut) | t).wrapping_add_signed(d) & 0x7f_ffff;
                        check((e << 23) | man);
                        check(0x8000_0000 | (e << 23) | man);
                    }
                }
            }
        }
    }

    /// f64 inputs with bits beyond an f32's, against exact integer arithmetic: the result is
    /// a nearest representable value and ties go to the even one.
    #[test]
    fn narrowing_f64_values_is_correctly_rounded() {
        type Narrow = fn(f64) -> u16;
        // (fraction bits, exponent bits, the conversion)
        let formats: [(u32, u32, Narrow); 2] = [(10, 5, narrow::f16_bits), (7, 8, narrow::bf16_bits)];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // `v` in units of 2^lsb, exactly (v is 0 or a normal f64 whose last bit is not below 2^lsb).
        let units = |v: f64, lsb: i64| -> u128 {
            if v == 0.0 {
                return 0;
            }
            let b = v.to_bits();
            let (exp, man) = ((b >> 52) as i64 & 0x7ff, b & ((1 << 52) - 1));
            let m = man | 1 << 52;
            let (m, exp) = (m >> m.trailing_zeros(), exp + m.trailing_zeros() as i64);
            match exp - 1075 - lsb {
                // far above x (below 2^53 units): its distance only needs to be large
                shift @ 75.. => u128::MAX >> (shift.min(127) - 74),
                shift => {
                    assert!(shift >= 0, "{v:e} finer than 2^{lsb}");
                    (m as u128) << shift
                }
            }
        };
        for (frac, exp_bits, f) in formats {
            let max_finite = {
                let bias = (1i32 << (exp_bits - 1)) - 1;
                (2.0 - 2f64.powi(-(frac as i32))) * 2f64.powi(bias)
            };
            for _ in 0..200_000 {
                // exponents from 2^-138 (so the units stay exact) to just below the largest finite
                let e = -138 + (next() % (138 + max_finite.log2() as u64)) as i32;
                let x = f64::from_bits(((e + 1023) as u64) << 52 | (next() & ((1 << 52) - 1)));
                let r = f(x);
                let value = |bits: u16| -> f64 {
                    let (ef, mf) =
                        ((bits >> frac) as i32 & ((1 << exp_bits) - 1), bits as u64 & ((1 << frac) - 1));
                    let bias = (1i32 << (exp_bits - 1)) - 1;
                    if ef == 0 {
                        mf as f64 * 2f64.powi(1 - bias - frac as i32)
                    } else {
                        (1.0 + mf as f64 / (1u64 << frac) as f64) * 2f64.powi(ef - bias)
                    }
                };
                if x > max_finite {
                    // past the last finite value by at least half an ulp: infinity
                    let ulp = 2f64.powi(((1i32 << (exp_bits - 1)) - 1) - frac as i32);
                    if x >= max_finite + ulp / 2.0 {
                        assert_eq!(r, ((1u16 << exp_bits) - 1) << frac, "{x:e}");
                        continue;
                    }
                }
                // x's last bit: every candidate is a multiple of it
                let lsb = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1075;
                let at = |bits: u16| units(value(bits), lsb);
                let (got, above, u) = (at(r), at(r + 1), units(x, lsb));
                let d = got.abs_diff(u);
                let tie_ok = |other: u128| d < other.abs_diff(u) || (d == other.abs_diff(u) && r & 1 == 0);
                assert!(tie_ok(above), "{x:e} -> {r:#x}: the next value is nearer");
                if r & 0x7fff != 0 {
                    assert!(tie_ok(at(r - 1)), "{x:e} -> {r:#x}: the previous value is nearer");
                }
            }
        }
        // Specials.
        assert_eq!(narrow::f16_bits(65_520.0), 0x7c00); // the tie past 65504 goes to infinity
        assert_eq!(narrow::f16_bits(65_519.99), 0x7bff);
        assert_eq!(narrow::f16_bits(f64::MAX), 0x7c00);
        assert_eq!(narrow::f16_bits(f64::NEG_INFINITY), 0xfc00);
        assert_eq!(narrow::f16_bits(2f64.powi(-25)), 0); // half the smallest subnormal: tie to 0
        assert_eq!(narrow::f16_bits(2f64.powi(-25) * 1.5), 1);
        assert_eq!(narrow::f16_bits(-f64::MIN_POSITIVE / 2.0), 0x8000);
        assert_eq!(narrow::bf16_bits(2f64.powi(-133)), 1);
        assert_eq!(narrow::f16_bits(f64::NAN) & 0x7e00, 0x7e00);
    }

    #[test]
    fn cudnn_ids_are_the_headers_values() {
        let ids: Vec<i32> = DataType::ALL.iter().map(|d| *d as i32).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 6, 9, 10]);
    }
}
