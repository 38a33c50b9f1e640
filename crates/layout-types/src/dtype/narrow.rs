//! f64 to the 16-bit floats, correctly rounded (to nearest, ties to even) from every bit of
//! the f64.
//!
//! `half`'s own `from_f64` is not: without F16C it drops the f64's low 32 mantissa bits
//! before rounding, with F16C it rounds to f32 first, so a value just above a tie (an f32
//! source's last three bits, say) can round down, and the answer depends on the machine.
//! [`Element`](super::Element)'s conversions (and so [`Unscaled`](crate::cast::Unscaled) and
//! [`Scale`](crate::cast::Scale)) use these instead; the GPU backend's cast kernels emit
//! the same algorithm in CUDA, so both backends give the same bits.
//!
//! ```
//! use typed_layout::narrow;
//! // 1 + 2^-11 is the tie between 1 and the next f16; 2^-40 more must round up.
//! let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
//! assert_eq!(narrow::f16_bits(above_tie), 0x3c01);
//! assert_eq!(narrow::f16_bits(1.0 + 2f64.powi(-11)), 0x3c00); // the tie goes to even
//! assert_eq!(narrow::bf16_bits(-0.0), 0x8000);
//! ```

/// The binary16 (IEEE half) bits nearest to `x`. NaN stays NaN (quiet, sign and top
/// payload bits kept); beyond the largest finite value, infinity.
pub const fn f16_bits(x: f64) -> u16 {
    to_16_bits(x, 10, 5)
}

/// The bfloat16 bits nearest to `x`, with the conventions of [`f16_bits`].
pub const fn bf16_bits(x: f64) -> u16 {
    to_16_bits(x, 7, 8)
}

/// The bits of the 16-bit float with `frac` fraction and `exp_bits` exponent bits nearest
/// to `x`. The cast kernels `layout-gpu` emits (`kernels`) carry this function line for line in CUDA.
const fn to_16_bits(x: f64, frac: u32, exp_bits: u32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let man = bits & ((1 << 52) - 1);
    let inf = sign | ((((1u32 << exp_bits) - 1) << frac) as u16);
    if exp == 0x7ff {
        return if man == 0 { inf } else { inf | (1 << (frac - 1)) | (man >> (52 - frac)) as u16 };
    }
    if exp == 0 {
        return sign; // zero, or an f64 subnormal: far below half the smallest subnormal
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let e = exp - 1023;
    if e > bias {
        return inf;
    }
    // The significand with its hidden bit, cut to `frac` fraction bits (fewer below the
    // smallest normal exponent), rounded on the bits cut off.
    let m = man | (1 << 52);
    let min_e = 1 - bias;
    let shift = 52 - frac as i64 + if e < min_e { min_e - e } else { 0 };
    if shift > 54 {
        return sign; // below a quarter of the smallest subnormal
    }
    let mut q = m >> shift;
    let rest = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rest > half || (rest == half && q & 1 == 1) {
        q += 1;
    }
    if e < min_e {
        return sign | q as u16; // a subnormal (or, rounded up, the smallest normal)
    }
    // q carries the hidden bit, which adds one to the exponent field; a carry out of the
    // significand moves on into the exponent (up to infinity).
    sign | ((((e + bias - 1) as u64) << frac) + q) as u16
}
