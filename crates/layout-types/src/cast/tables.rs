//! Byte sources (u8, i8) of up to four channels in the blocked pass: image bytes into f16 NHWC,
//! or into f32 with a per-channel normalization.
//!
//! A byte holds one of 256 values, so each channel's 256 results are cast once, by the cast
//! itself (the same bits as casting element by element, whatever the cast), and every pixel is
//! assembled from table lookups: no arithmetic per element and no staged runs. Two-byte results
//! (f16, bf16) are kept as 64-bit words already shifted to their channel's place, so a pixel of
//! up to four of them is the OR of its channels' words.

use super::Cast;
use crate::dtype::{DataType, Element};
use crate::platform::simd;

#[cfg(test)]
mod tests;

/// Channels a table set holds (gray, RGB, RGBA).
pub(super) const MAX_CHANNELS: usize = 4;

/// Pixels of a pass below which the tables (256 casts a channel) cost more than they save.
pub(super) const MIN_PIXELS: usize = 4096;

/// Each channel's result for every byte value.
#[derive(Clone)]
pub(super) struct Tables<U> {
    channels: usize,
    values: [[U; 256]; MAX_CHANNELS],
    /// For two-byte results: channel `c`'s bits shifted left by `16 c`.
    words: Option<[[u64; 256]; MAX_CHANNELS]>,
    /// Whether every channel's results are the bytes' exact f16 (or bf16) values, which SIMD
    /// widening computes instead of looking them up: `(signed, bf16)`.
    halves: Option<(bool, bool)>,
}

impl<U: Element> Tables<U> {
    /// The tables of `cast` over `channels` channels, if the source is bytes and the channels
    /// fit.
    pub(super) fn new<T: Element, C: Cast<T, U>>(cast: C, channels: usize) -> Option<Tables<U>> {
        if T::SIZE != 1 || channels == 0 || channels > MAX_CHANNELS {
            return None;
        }
        let every: [u8; 256] = core::array::from_fn(|v| v as u8);
        let every: &[T] = bytemuck::cast_slice(&every);
        let mut values = [[U::default(); 256]; MAX_CHANNELS];
        for (c, table) in values.iter_mut().enumerate().take(channels) {
            for (slot, &v) in table.iter_mut().zip(every) {
                *slot = cast.cast_at(v, c);
            }
        }
        // (Little-endian: the first channel is the word's low bits, so first in memory.)
        let words = (cfg!(target_endian = "little") && U::SIZE == 2).then(|| {
            let mut words = [[0u64; 256]; MAX_CHANNELS];
            for (c, (words, values)) in words.iter_mut().zip(&values).enumerate() {
                let bits: &[u16] = bytemuck::cast_slice(values);
                for (w, &b) in words.iter_mut().zip(bits) {
                    *w = u64::from(b) << (16 * c);
                }
            }
            words
        });
        // Bits compared, not values: a cast giving -0 for 0 is not the widening.
        let halves = exact_halves::<T, U>().filter(|exact| {
            values[..channels].iter().all(|table| bytemuck::cast_slice::<U, u16>(table) == exact)
        });
        let halves = halves.map(|_| (T::DATA_TYPE == DataType::Int8, U::DATA_TYPE == DataType::BFloat16));
        Some(Tables { channels, values, words, halves })
    }

    /// Writes `out`, pixels of `padded` values: pixel `j`'s channel `c` is the result of
    /// `runs[c][j]`, its channels from `runs.len()` on zero.
    ///
    /// Every pixel looks up all four tables (a missing channel's table holds zeros, its run is
    /// the first channel's), so the loops have no count of channels; the common pixel widths get
    /// loops of their own, so a pixel's zeros are stores of known length.
    pub(super) fn pixels(&self, runs: &[&[u8]], padded: usize, out: &mut [U]) {
        debug_assert_eq!(runs.len(), self.channels, "a run a channel");
        let n = out.len() / padded;
        let runs: [&[u8]; MAX_CHANNELS] =
            core::array::from_fn(|c| &runs[if c < runs.len() { c } else { 0 }][..n]);
        if let (Some(words), Ok(out)) = (&self.words, bytemuck::try_cast_slice_mut::<U, u64>(&mut *out)) {
            let per = padded / 4;
            if matches!(padded, 4 | 8 | 16) {
                let done = match self.halves {
                    Some((signed, bf16)) => simd::byte_halves(out, per, &runs[..self.channels], signed, bf16),
                    None => 0,
                };
                let (runs, out) = (runs.map(|r| &r[done..]), &mut out[done * per..]);
                return match per {
                    1 => words_of::<1>(words, &runs, out),
                    2 => words_of::<2>(words, &runs, out),
                    _ => words_of::<4>(words, &runs, out),
                };
            }
        }
        match padded {
            4 => values_of::<U, 4>(&self.values, &runs, out),
            8 => values_of::<U, 8>(&self.values, &runs, out),
            16 => values_of::<U, 16>(&self.values, &runs, out),
            _ => {
                for (j, px) in out.chunks_exact_mut(padded).enumerate() {
                    for (c, v) in px.iter_mut().enumerate() {
                        *v = if c < self.channels {
                            self.values[c][usize::from(runs[c][j])]
                        } else {
                            U::default()
                        };
                    }
                }
            }
        }
    }
}

/// Pixels of `W` words from two-byte results: the first word the OR of the four channels'.
#[inline(always)]
fn words_of<const W: usize>(
    words: &[[u64; 256]; MAX_CHANNELS],
    runs: &[&[u8]; MAX_CHANNELS],
    out: &mut [u64],
) {
    let [a, b, c, d] = *runs;
    for (j, px) in out.chunks_exact_mut(W).enumerate().take(a.len()) {
        let mut pixel = [0u64; W];
        pixel[0] = words[0][usize::from(a[j])]
            | words[1][usize::from(b[j])]
            | words[2][usize::from(c[j])]
            | words[3][usize::from(d[j])];
        px.copy_from_slice(&pixel);
    }
}

/// Pixels of `P` (at least four) values: the four channels' results, then zeros.
#[inline(always)]
fn values_of<U: Element, const P: usize>(
    values: &[[U; 256]; MAX_CHANNELS],
    runs: &[&[u8]; MAX_CHANNELS],
    out: &mut [U],
) {
    for (j, px) in out.chunks_exact_mut(P).enumerate().take(runs[0].len()) {
        let mut pixel = [U::default(); P];
        for c in 0..MAX_CHANNELS {
            pixel[c] = values[c][usize::from(runs[c][j])];
        }
        px.copy_from_slice(&pixel);
    }
}

/// The exact f16 (or bf16) bits of every byte value, index by the byte's bits, when `T` is a
/// byte and `U` one of the two: what [`simd::byte_halves`] computes.
fn exact_halves<T: Element, U: Element>() -> Option<[u16; 256]> {
    let value = |b: u8| match T::DATA_TYPE {
        DataType::Int8 => f32::from(b as i8),
        _ => f32::from(b),
    };
    let bits = |b: u8| match U::DATA_TYPE {
        DataType::Half => half::f16::from_f32(value(b)).to_bits(),
        _ => half::bf16::from_f32(value(b)).to_bits(),
    };
    (matches!(T::DATA_TYPE, DataType::Int8 | DataType::Uint8)
        && matches!(U::DATA_TYPE, DataType::Half | DataType::BFloat16))
    .then(|| core::array::from_fn(|b| bits(b as u8)))
}
