//! f32 quantized into bytes with AVX2 (the safety argument is the room's, in
//! `platform/mod.rs`): `saturate(round_half_to_even(x / scale))`, NaN to 0, the rule of the
//! fused pass's `Quantize` cast, with the same bits as its per-element form; in runs
//! ([`quantized`]) and straight into pixels of up to four channels ([`quantized_pixels`]).

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::super::Level;
use super::halves::{pixels_of, store16};

/// Quantizes the whole groups of 32 of `src` into `dst` (equal lengths): `x / scale` in f32
/// (a division, as the per-element rule: a reciprocal's product can differ in the last bit),
/// NaN to 0, clamped to i8's range if `signed`, else u8's, rounded half to even. Returns how
/// many it wrote: none below [`Level::Avx2`].
///
/// f32 NCHW C = 3 into i8 NHWC C = 4 at 256 MiB (the bench's quantized fused row), per element
/// before: 4.2 GB/s, 0.10 of a streaming copy.
pub(in crate::platform) fn quantized(dst: &mut [u8], src: &[f32], scale: f32, signed: bool) -> usize {
    if !Level::Avx2.available() {
        return 0;
    }
    let whole = src.len().min(dst.len()) / 32 * 32;
    // SAFETY: the CPU has AVX2 (its level is available); the function touches only whole
    // groups of 32 inside both slices.
    unsafe { quantized_avx2(&mut dst[..whole], &src[..whole], scale, signed) };
    whole
}

/// # Safety
///
/// The CPU has AVX2; both slices hold whole groups of 32 of equal count.
#[target_feature(enable = "avx2")]
unsafe fn quantized_avx2(dst: &mut [u8], src: &[f32], scale: f32, signed: bool) {
    let rule = Rule::new(scale, signed);
    // Packing in 128-bit lanes leaves each register's 4-byte quarters in the order 0, 2, 4, 6,
    // 1, 3, 5, 7: put them back.
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (d, s) in dst.chunks_exact_mut(32).zip(src.chunks_exact(32)) {
        let q: [__m256i; 4] = core::array::from_fn(|r| {
            // SAFETY: `s` holds 32 f32; this loads 8 of them (unaligned).
            rule.apply(unsafe { _mm256_loadu_ps(s[8 * r..].as_ptr()) })
        });
        let bytes = rule.pack(q);
        // SAFETY: `d` holds 32 bytes; unaligned store.
        unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), _mm256_permutevar8x32_epi32(bytes, order)) };
    }
}

/// The quantization rule's constants in registers.
#[derive(Clone, Copy)]
struct Rule {
    divisor: __m256,
    low: __m256,
    high: __m256,
    signed: bool,
}

impl Rule {
    #[target_feature(enable = "avx2")]
    fn new(scale: f32, signed: bool) -> Rule {
        let (low, high) = match signed {
            true => (-128.0, 127.0),
            false => (0.0, 255.0),
        };
        Rule { divisor: _mm256_set1_ps(scale), low: _mm256_set1_ps(low), high: _mm256_set1_ps(high), signed }
    }

    /// 8 values quantized, as 32-bit integers inside the destination's range.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn apply(self, x: __m256) -> __m256i {
        let v = _mm256_div_ps(x, self.divisor);
        // NaN to 0 (an ordered comparison with itself is false only for NaN).
        let v = _mm256_and_ps(v, _mm256_cmp_ps::<_CMP_ORD_Q>(v, v));
        // Clamped first: the bounds are integers, so clamping and rounding commute.
        let v = _mm256_min_ps(_mm256_max_ps(v, self.low), self.high);
        // Rounded half to even by the conversion: the rounding mode Rust's floating point
        // assumes (it never changes it).
        _mm256_cvtps_epi32(v)
    }

    /// Four registers of [`apply`](Rule::apply)'s integers as bytes: in each 128-bit lane,
    /// `q[0]`'s four of that lane, then `q[1]`'s, `q[2]`'s and `q[3]`'s (the packs work within
    /// lanes).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn pack(self, q: [__m256i; 4]) -> __m256i {
        let (a, b) = (_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        match self.signed {
            true => _mm256_packs_epi16(a, b),
            false => _mm256_packus_epi16(a, b),
        }
    }
}

/// Pixels of `P` bytes (4, 8, 16 or 32) quantized from f32 runs (one to four, of equal length;
/// the missing channels zero) by [`quantized`]'s rule, straight into `dst` (bytes, anywhere;
/// streamed if `stream`, then from a 16-byte boundary): channel `c`'s byte at byte `c` of a
/// pixel, its other bytes zero. The whole groups of 8 pixels both the runs and `dst` hold, at
/// `level` AVX2 or above; none below, off a 16-byte boundary if `stream`, or for another
/// shape. Returns the pixels written, from the first; a caller that streams fences.
///
/// f32 NCHW C = 3 into i8 NHWC C = 4 at 256 MiB on an AMD EPYC (Zen 3, AVX2): against
/// quantizing each channel's run into a staging block and interleaving it, see
/// `BENCHMARKS.md`, issue 23 step 34.
pub(in crate::platform) fn quantized_pixels<const P: usize>(
    level: Level,
    dst: &mut [MaybeUninit<u8>],
    runs: &[&[f32]],
    (scale, signed): (f32, bool),
    stream: bool,
) -> usize {
    let Some(n) = pixels_of(dst, runs, stream, matches!(P, 4 | 8 | 16 | 32).then_some(P)) else { return 0 };
    // The level clamped to this CPU's here too, so no caller can reach AVX2 without it.
    if level.min(Level::detected()) < Level::Avx2 {
        return 0;
    }
    let groups = n / 8;
    // SAFETY: `level` is AVX2 or above, one the CPU has (clamped to the detected level above);
    // it reads values [0, 8 groups) of each run and writes bytes [0, 8 groups P) of `dst`,
    // all inside, streamed only from `dst`'s 16-byte-aligned start, 16 bytes at a multiple of
    // 16 bytes from it; what it writes are values (the bytes of i8 or u8 and zeros).
    unsafe {
        match stream {
            true => quantized_pixels_avx2::<P, true>(dst.as_mut_ptr().cast(), runs, groups, scale, signed),
            false => quantized_pixels_avx2::<P, false>(dst.as_mut_ptr().cast(), runs, groups, scale, signed),
        }
    }
    8 * groups
}

/// # Safety
///
/// The CPU has AVX2; every run holds at least `8 groups` values and `out` points to at least
/// `8 groups P` writable bytes (any alignment; 16-byte aligned if `STREAM`); `runs` holds one
/// to four runs; `P` is 4, 8, 16 or 32.
#[target_feature(enable = "avx2")]
unsafe fn quantized_pixels_avx2<const P: usize, const STREAM: bool>(
    out: *mut u8,
    runs: &[&[f32]],
    groups: usize,
    scale: f32,
    signed: bool,
) {
    let rule = Rule::new(scale, signed);
    // In each lane the packed bytes are channel by channel (four pixels each): this puts them
    // pixel by pixel, a pixel's four channels in one 4-byte quarter.
    let pixel_order =
        _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
    for g in 0..groups {
        let j = 8 * g;
        // Each channel's 8 values quantized, one register each; missing channels zero.
        let mut q = [_mm256_setzero_si256(); 4];
        for (q, run) in q.iter_mut().zip(runs) {
            // SAFETY: values j..j + 8 lie in the run (the caller's `groups`); unaligned load.
            *q = rule.apply(unsafe { _mm256_loadu_ps(run.as_ptr().add(j)) });
        }
        // Pixels j..j + 4 in the low lane's quarters, j + 4..j + 8 in the high lane's.
        let pixels = _mm256_shuffle_epi8(rule.pack(q), pixel_order);
        // SAFETY: pixels `j .. j + 8` (their `8 P` bytes) lie in `out` (the caller's `groups`),
        // 16-byte aligned if `STREAM` (`out` is, and the offsets `j P` and `(j + 4) P` bytes
        // are multiples of 16: `j` is a multiple of 8, `P` of 4).
        unsafe {
            store_byte_pixels::<P, STREAM>(_mm256_castsi256_si128(pixels), out.add(j * P));
            store_byte_pixels::<P, STREAM>(_mm256_extracti128_si256::<1>(pixels), out.add((j + 4) * P));
        }
    }
}

/// Four pixels of `P` bytes from one register of their first 4 bytes each (pixel `k`'s in its
/// quarter `k`), the padding's zeros after each, stored (streamed if `STREAM`) 16 bytes at a
/// time. SSE2 only: x86-64's baseline.
///
/// # Safety
///
/// `out` points to `4 P` writable bytes, 16-byte aligned if `STREAM`; `P` is 4, 8, 16 or 32.
#[target_feature(enable = "sse2")]
#[inline]
unsafe fn store_byte_pixels<const P: usize, const STREAM: bool>(x: __m128i, out: *mut u8) {
    let zero = _mm_setzero_si128();
    // SAFETY: every store below writes 16 bytes at a multiple of 16 from `out` (16-byte
    // aligned if `STREAM`), at most `4 P` bytes in all.
    unsafe {
        match P {
            4 => store16::<STREAM>(out, x),
            8 => {
                store16::<STREAM>(out, _mm_unpacklo_epi32(x, zero));
                store16::<STREAM>(out.wrapping_add(16), _mm_unpackhi_epi32(x, zero));
            }
            _ => {
                let (low, high) = (_mm_unpacklo_epi32(x, zero), _mm_unpackhi_epi32(x, zero));
                let pixels = [
                    _mm_unpacklo_epi64(low, zero),
                    _mm_unpackhi_epi64(low, zero),
                    _mm_unpacklo_epi64(high, zero),
                    _mm_unpackhi_epi64(high, zero),
                ];
                for (k, p) in pixels.into_iter().enumerate() {
                    let at = out.wrapping_add(k * P);
                    store16::<STREAM>(at, p);
                    for z in (16..P).step_by(16) {
                        store16::<STREAM>(at.wrapping_add(z), zero);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-element rule: `cast::Quantize`'s own `cast`.
    fn rule(x: f32, scale: f32, signed: bool) -> u8 {
        use crate::cast::{Cast, Quantize};
        match signed {
            true => Cast::<f32, i8>::cast(&Quantize(scale), x) as u8,
            false => Cast::<f32, u8>::cast(&Quantize(scale), x),
        }
    }

    #[test]
    fn quantizes_like_the_per_element_rule() {
        if !Level::Avx2.available() {
            println!("SKIPPED: AVX2's quantization (this CPU's level is {:?})", Level::detected());
            return;
        }
        let special = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            -2.5,
            126.5,
            127.5,
            128.0,
            -128.5,
            -129.0,
            254.5,
            255.5,
            256.0,
            1e30,
            -1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            1e-40,
            f32::MAX,
            f32::MIN,
        ];
        // Every special value, then a spread of values around the ranges' edges and halves.
        let src: Vec<f32> = special
            .iter()
            .copied()
            .chain((0..4000).map(|i| (i as f32 - 2000.0) * 0.173 + (i % 7) as f32 * 0.25))
            .collect();
        for scale in [1.0, 0.5, 0.1, 3.0, -0.7, 0.0] {
            for signed in [true, false] {
                let mut dst = vec![0xA5u8; src.len()];
                let done = quantized(&mut dst, &src, scale, signed);
                assert_eq!(done, src.len() / 32 * 32);
                for (i, (&d, &x)) in dst.iter().zip(&src).enumerate().take(done) {
                    assert_eq!(d, rule(x, scale, signed), "value {i} ({x}), scale {scale}, signed {signed}");
                }
                assert!(dst[done..].iter().all(|&d| d == 0xA5), "nothing past the whole groups");
            }
        }
    }
}
