//! Byte sources (u8, i8) of up to four channels in the blocked pass: image bytes into f16 NHWC,
//! or into f32 with a per-channel normalization.
//!
//! A byte holds one of 256 values, so each channel's 256 results are cast once, by the cast
//! itself (the same bits as casting element by element, whatever the cast), and every pixel is
//! assembled from table lookups: no arithmetic per element and no staged runs. Two- and
//! four-byte results (f16, bf16, f32, i32) are kept as 64-bit words already shifted to their
//! channel's place, so a pixel's data is one word (up to four halves) or two (up to four floats),
//! each the OR of its channels' words, and the runs are read eight bytes at a time (u8 RGB into
//! f32 NHWC C = 4 normalized per channel, 304 MiB, two threads: 0.77–0.82 of the strongest copy
//! with a lookup and a store per value, 0.90–0.91 so).

use super::{Cast, KnownCast};
use crate::dtype::{DataType, Element};
use crate::platform::out::Out;
use crate::platform::simd::{self, Stores};

#[cfg(test)]
mod tests;

/// Channels a table set holds (gray, RGB, RGBA).
pub(super) const MAX_CHANNELS: usize = 4;

/// Pixels of a pass below which the tables (256 casts a channel) cost more than they save.
pub(super) const MIN_PIXELS: usize = 4096;

/// Each channel's result for every byte value.
#[cfg_attr(test, derive(Clone))]
pub(super) struct Tables<U> {
    channels: usize,
    values: [[U; 256]; MAX_CHANNELS],
    /// For two- and four-byte results: channel `c`'s bits shifted to their place in the
    /// pixel's word `c · size / 8`; made at the first use (where SIMD widens the bytes, only
    /// a run's last pixels need them, if any).
    words: core::cell::OnceCell<Option<[[u64; 256]; MAX_CHANNELS]>>,
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
        let exact = exact_halves::<T, U>();
        // A cast that says it is `Unscaled` gives the bytes' exact halves (where `U` is f16 or
        // bf16): taken as they are, not cast one by one (one 224 × 224 image of bytes into f16
        // NHWC C = 4: 0.34–0.37 → 0.41–0.43 of a copy).
        let unscaled = matches!(cast.known(), Some(KnownCast::Unscaled));
        let mut values = [[U::default(); 256]; MAX_CHANNELS];
        for (c, table) in values.iter_mut().enumerate().take(channels) {
            match (&exact, unscaled) {
                (Some(exact), true) => table.copy_from_slice(bytemuck::cast_slice(&exact[..])),
                _ => {
                    for (slot, &v) in table.iter_mut().zip(every) {
                        *slot = cast.cast_at(v, c);
                    }
                }
            }
        }
        // Bits compared, not values: a cast giving -0 for 0 is not the widening.
        let halves = exact.filter(|exact| {
            values[..channels].iter().all(|table| bytemuck::cast_slice::<U, u16>(table) == *exact)
        });
        let halves = halves.map(|_| (T::DATA_TYPE == DataType::Int8, U::DATA_TYPE == DataType::BFloat16));
        Some(Tables { channels, values, words: core::cell::OnceCell::new(), halves })
    }

    /// The words of the results ([`Tables::words`]'s doc), for two- and four-byte results.
    fn words(&self) -> Option<&[[u64; 256]; MAX_CHANNELS]> {
        self.words
            .get_or_init(|| {
                // (Little-endian: the first channel is the word's low bits, so first in memory.)
                (cfg!(target_endian = "little") && matches!(U::SIZE, 2 | 4)).then(|| {
                    let mut words = [[0u64; 256]; MAX_CHANNELS];
                    for (c, (words, values)) in words.iter_mut().zip(&self.values).enumerate() {
                        for (w, v) in words.iter_mut().zip(values) {
                            *w = v.to_word() << (8 * (c * U::SIZE % 8));
                        }
                    }
                    words
                })
            })
            .as_ref()
    }

    /// Writes `out`, pixels of `padded` values: pixel `j`'s channel `c` is the result of
    /// `runs[c][j]`, its channels from `runs.len()` on zero.
    ///
    /// The common channel counts and pixel widths get loops of their own, so a pixel is built
    /// in registers from `K` lookups and stored whole.
    pub(super) fn pixels(&self, runs: &[&[u8]], padded: usize, out: &mut [U]) {
        debug_assert_eq!(runs.len(), self.channels, "a run a channel");
        match self.channels {
            1 => self.pixels_of::<1>(runs, padded, out),
            2 => self.pixels_of::<2>(runs, padded, out),
            3 => self.pixels_of::<3>(runs, padded, out),
            _ => self.pixels_of::<4>(runs, padded, out),
        }
    }

    /// Writes the first pixels of `runs` straight into `dst` (pixels of `padded` values, as
    /// [`pixels`](Self::pixels) writes them) from registers, with `stores`: the exact halves of
    /// bytes ([`simd::byte_halves`], AVX2 or AVX-512), else, streaming, the tables' words
    /// ([`simd::stream_words`], 2- and 4-byte results). Returns how many it wrote (none where
    /// neither applies, or streaming off a 16-byte boundary); the caller writes the rest and,
    /// streaming, fences.
    pub(super) fn direct_pixels(
        &self,
        runs: &[&[u8]],
        padded: usize,
        mut dst: Out<'_, U>,
        stores: Stores,
    ) -> usize {
        if !matches!(padded, 4 | 8 | 16) {
            return 0;
        }
        if let Some(halves) = self.halves {
            let done = simd::byte_halves(dst.rb(), padded / 4, runs, halves, stores);
            if done > 0 || stores == Stores::Ordinary {
                return done;
            }
        }
        if stores == Stores::Ordinary {
            return 0;
        }
        match self.channels {
            1 => self.stream_words_of::<1>(runs, padded, dst),
            2 => self.stream_words_of::<2>(runs, padded, dst),
            3 => self.stream_words_of::<3>(runs, padded, dst),
            _ => self.stream_words_of::<4>(runs, padded, dst),
        }
    }

    /// The tables' words of [`direct_pixels`](Self::direct_pixels), streamed, `K` channels.
    #[inline(always)]
    fn stream_words_of<const K: usize>(&self, runs: &[&[u8]], padded: usize, dst: Out<'_, U>) -> usize {
        let Some(words) = self.words() else { return 0 };
        let n = runs.iter().map(|r| r.len()).min().unwrap_or(0).min(dst.len() / padded);
        let runs: [&[u8]; K] = core::array::from_fn(|c| &runs[c][..n]);
        let groups = n / 8;
        let done = match (U::SIZE, padded * U::SIZE / 8) {
            (2, 1) => simd::stream_words(dst, groups, |g| eight_pixels::<K, 1, 2>(words, &runs, g)),
            (2, 2) => simd::stream_words(dst, groups, |g| eight_pixels::<K, 2, 2>(words, &runs, g)),
            (2, _) => simd::stream_words(dst, groups, |g| eight_pixels::<K, 4, 2>(words, &runs, g)),
            (_, 2) => simd::stream_words(dst, groups, |g| eight_pixels::<K, 2, 4>(words, &runs, g)),
            (_, 4) => simd::stream_words(dst, groups, |g| eight_pixels::<K, 4, 4>(words, &runs, g)),
            _ => simd::stream_words(dst, groups, |g| eight_pixels::<K, 8, 4>(words, &runs, g)),
        };
        8 * done
    }

    /// [`pixels`](Self::pixels) of `K` channels.
    #[inline(always)]
    fn pixels_of<const K: usize>(&self, runs: &[&[u8]], padded: usize, out: &mut [U]) {
        let n = out.len() / padded;
        let runs: [&[u8]; K] = core::array::from_fn(|c| &runs[c][..n]);
        if let (Some(words), Ok(out)) = (self.words(), bytemuck::try_cast_slice_mut::<U, u64>(&mut *out)) {
            let per = padded * U::SIZE / 8; // words a pixel
            if matches!(padded, 4 | 8 | 16) {
                let done = match self.halves {
                    Some(halves) => {
                        let halves_out: &mut [U] = bytemuck::cast_slice_mut(&mut *out);
                        simd::byte_halves(Out::new(halves_out), per, &runs, halves, Stores::Ordinary)
                    }
                    None => 0,
                };
                let (runs, out) = (runs.map(|r| &r[done..]), &mut out[done * per..]);
                return match (U::SIZE, per) {
                    (2, 1) => words_of::<K, 1, 2>(words, &runs, out),
                    (2, 2) => words_of::<K, 2, 2>(words, &runs, out),
                    (2, _) => words_of::<K, 4, 2>(words, &runs, out),
                    (_, 2) => words_of::<K, 2, 4>(words, &runs, out),
                    (_, 4) => words_of::<K, 4, 4>(words, &runs, out),
                    _ => words_of::<K, 8, 4>(words, &runs, out),
                };
            }
        }
        match padded {
            4 => values_of::<U, K, 4>(&self.values, &runs, out),
            8 => values_of::<U, K, 8>(&self.values, &runs, out),
            16 => values_of::<U, K, 16>(&self.values, &runs, out),
            _ => {
                for (j, px) in out.chunks_exact_mut(padded).enumerate() {
                    for (c, v) in px.iter_mut().enumerate() {
                        *v = if c < K { self.values[c][usize::from(runs[c][j])] } else { U::default() };
                    }
                }
            }
        }
    }
}

/// Pixels of `W` words from `S`-byte results (two or four) of `K` channels: channel `c` ORed
/// into word `c S / 8`, the other words zero. The runs are read eight bytes at a time.
#[inline(always)]
fn words_of<const K: usize, const W: usize, const S: usize>(
    words: &[[u64; 256]; MAX_CHANNELS],
    runs: &[&[u8]; K],
    out: &mut [u64],
) {
    let n = runs[0].len().min(out.len() / W);
    let (groups, tail) = out[..n * W].split_at_mut(n / 8 * 8 * W);
    for (g, out) in groups.chunks_exact_mut(8 * W).enumerate() {
        out.copy_from_slice(eight_pixels::<K, W, S>(words, runs, g).as_flattened());
    }
    let first = n / 8 * 8;
    for (j, px) in tail.chunks_exact_mut(W).enumerate() {
        px.copy_from_slice(&pixel::<K, W, S>(words, runs.map(|r| r[first + j])));
    }
}

/// Pixels `8 g .. 8 g + 8` of [`words_of`], from eight bytes of each run.
#[inline(always)]
fn eight_pixels<const K: usize, const W: usize, const S: usize>(
    words: &[[u64; 256]; MAX_CHANNELS],
    runs: &[&[u8]; K],
    g: usize,
) -> [[u64; W]; 8] {
    let eight: [u64; K] = core::array::from_fn(|c| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&runs[c][8 * g..8 * g + 8]);
        u64::from_le_bytes(bytes)
    });
    core::array::from_fn(|k| pixel::<K, W, S>(words, eight.map(|e| (e >> (8 * k)) as u8)))
}

/// One pixel of [`words_of`]: its channels' words, ORed in place.
#[inline(always)]
fn pixel<const K: usize, const W: usize, const S: usize>(
    words: &[[u64; 256]; MAX_CHANNELS],
    bytes: [u8; K],
) -> [u64; W] {
    let mut px = [0u64; W];
    for c in 0..K {
        px[c * S / 8] |= words[c][usize::from(bytes[c])];
    }
    px
}

/// Pixels of `P` values from `K` channels' results: the results, then zeros.
#[inline(always)]
fn values_of<U: Element, const K: usize, const P: usize>(
    values: &[[U; 256]; MAX_CHANNELS],
    runs: &[&[u8]; K],
    out: &mut [U],
) {
    let n = runs[0].len();
    for (j, px) in out.chunks_exact_mut(P).enumerate().take(n) {
        let mut pixel = [U::default(); P];
        for c in 0..K {
            pixel[c] = values[c][usize::from(runs[c][j])];
        }
        px.copy_from_slice(&pixel);
    }
}

/// The exact f16 (or bf16) bits of every byte value, index by the byte's bits, when `T` is a
/// byte and `U` one of the two: what [`simd::byte_halves`] computes. Made once a process for
/// each of the four pairs.
fn exact_halves<T: Element, U: Element>() -> Option<&'static [u16; 256]> {
    use std::sync::OnceLock;
    static PAIRS: [OnceLock<[u16; 256]>; 4] = [const { OnceLock::new() }; 4];
    let signed = match T::DATA_TYPE {
        DataType::Int8 => true,
        DataType::Uint8 => false,
        _ => return None,
    };
    let bf16 = match U::DATA_TYPE {
        DataType::Half => false,
        DataType::BFloat16 => true,
        _ => return None,
    };
    let value = |b: u8| if signed { f32::from(b as i8) } else { f32::from(b) };
    let bits = |b: u8| match bf16 {
        false => half::f16::from_f32(value(b)).to_bits(),
        true => half::bf16::from_f32(value(b)).to_bits(),
    };
    Some(
        PAIRS[usize::from(signed) * 2 + usize::from(bf16)]
            .get_or_init(|| core::array::from_fn(|b| bits(b as u8))),
    )
}
