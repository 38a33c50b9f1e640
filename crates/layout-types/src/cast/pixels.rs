//! The blocked run of a fused pass whose destination stores C innermost (NHWC, NDHWC, KRSC) from
//! a source with a plain C (NCHW's planes): an f32 RGB image into f16 NHWC with C padded to 8.
//!
//! Per block of pixels, each channel's run is cast at once ([`Cast::cast_run`]: F16C for
//! f32 → f16), the channels are interleaved into whole pixels followed by the padding's zeros
//! in a cache-resident buffer, and the block leaves as one contiguous run, with streaming stores
//! when the destination is larger than the cache (one fence per pass). Every destination element
//! is written once; no element is tested against the channel count. Byte sources of up to four
//! channels build their pixels from tables of each channel's 256 results instead
//! (`cast/tables.rs`), whatever the cast.
//!
//! Where the pass streams, pixels of 4, 8 or 16 values of 2 or 4 bytes (and of 4 to 32 bytes
//! quantized from f32) that start on a 16-byte boundary skip the block: each group of 8 pixels
//! is built in registers and streamed straight into the destination (byte sources' halves and
//! table words, f32 rounded into f16 or bf16 by an [`Unscaled`](super::Unscaled) cast, f32
//! quantized into i8 or u8 by a [`Quantize`](super::Quantize) cast, other sources' 2-byte pixels
//! of up to four channels).
//! Building a block and streaming it were two phases whose times added up; the rest of a run
//! (its pixels before the first boundary, its last pixels, all of it where no pixel starts on
//! one) still goes through the block. Bytes widened, f32 rounded into f16 or bf16 and f32
//! quantized skip the block where the pass does not stream as well, with ordinary stores from
//! any boundary.

use super::steps::{CastLoop, ChannelMap};
use super::tables::{self, Tables};
use super::{Cast, KnownCast};
use crate::dtype::{DataType, Element};
use crate::platform::out::Out;
use crate::platform::simd;

/// Elements of a block's staging buffers (the cast runs and the pixels): 96 pixels of 8
/// channels. Measured in one process at 256 MiB and more, against a streaming copy per thread:
/// f32 NCHW C = 3 into f16 NHWC C = 8 0.89–0.92 with 2048 (as this was), 0.94–0.96 with 1024,
/// 0.96–1.00 with 768 or 1280, 0.80–0.81 with 8192; f32 C = 3 into f32 C = 4 0.69–0.72 → 0.81–0.83;
/// f32 C = 16 into f16 C = 16 0.48–0.51 → 0.54–0.56 (2048 → 768).
const STAGED: usize = 768;

/// Bytes of a staging buffer: [`STAGED`] elements of up to 8 bytes (6 KiB).
const STAGED_BYTES: usize = STAGED * 8;

/// The pass's shape, when it is this one: the innermost loop is C (channel step 1, padding
/// after `channels`), the one outside it walks pixels, and the source's C is plain.
#[derive(Clone, Copy)]
pub(super) struct Pixels {
    /// Destination channels per pixel (data and padding).
    padded: usize,
    channels: usize,
    /// Source elements between neighbouring channels, and between neighbouring pixels.
    channel_stride: usize,
    pixel_stride: usize,
    /// Pixels per block.
    block: usize,
    streaming: bool,
}

impl Pixels {
    /// The blocked shape of `loops` (outermost first), or `None`.
    pub(super) fn of(loops: &[CastLoop], map: ChannelMap, channels: usize, bytes: usize) -> Option<Pixels> {
        let [outer @ .., pixel, inner] = loops else { return None };
        let fits = inner.channel == 1
            && inner.src == 0
            && pixel.channel == 0
            && map.width == 1
            && outer.iter().all(|l| l.channel == 0);
        let padded = inner.extent;
        // Small channel counts only: the staged runs hold `block` pixels of every channel.
        (fits && channels <= 64 && padded <= 64).then(|| Pixels {
            padded,
            channels,
            channel_stride: map.outer,
            pixel_stride: pixel.src,
            block: STAGED / padded,
            streaming: simd::stores_for(bytes) == simd::Stores::Streaming,
        })
    }

    /// Writes `dst`, the part of the destination from position `first` of the outermost loop.
    pub(super) fn run_part<T: Element, U: Element, C: Cast<T, U>>(
        &self,
        loops: &[CastLoop],
        first: usize,
        src: &[T],
        dst: Out<'_, U>,
        cast: C,
    ) {
        let [outer @ .., pixel, _] = loops else { unreachable!("`Pixels::of` matched two loops or more") };
        // Byte sources with adjacent pixels: each channel's 256 results cast once.
        let tables = (self.pixel_stride == 1 && dst.len() / self.padded >= tables::MIN_PIXELS)
            .then(|| Tables::new(cast, self.channels))
            .flatten();
        let tables = tables.as_ref();
        // The staging buffers, once a part (a part of a cropped source is many short rows), and
        // only where a block needs them (12 KiB to zero: 3 % of one 224 × 224 image of bytes
        // into f16 whose pixels SIMD builds whole).
        let mut staging = None;
        if outer.is_empty() {
            // The pixel loop itself was cut: `dst` holds pixels from `first` on.
            self.run(src, first * pixel.src, dst, cast, tables, &mut staging);
        } else {
            // Whole pixel rows, one per position of the loops outside them; `first` counts
            // positions of the outermost loop, each of which holds the inner outer loops' rows.
            let rows_per_first: usize = outer[1..].iter().map(|l| l.extent).product();
            for (i, row) in dst.chunks(pixel.extent * self.padded).enumerate() {
                let (mut rest, mut s) = (first * rows_per_first + i, 0);
                for l in outer.iter().rev() {
                    s += (rest % l.extent) * l.src;
                    rest /= l.extent;
                }
                self.run(src, s, row, cast, tables, &mut staging);
            }
        }
        if self.streaming {
            simd::fence();
        }
    }

    /// Writes `dst`: whole runs of `dst.len() / padded` pixels, the first at source offset `s`
    /// (from `tables` where given: a byte source with adjacent pixels), through `staging`'s two
    /// buffers (the channels' runs, the block's pixels; made at the first block), or,
    /// streaming, straight from registers where the pixels allow (the module's second
    /// paragraph).
    fn run<T: Element, U: Element, C: Cast<T, U>>(
        &self,
        src: &[T],
        s: usize,
        mut dst: Out<'_, U>,
        cast: C,
        tables: Option<&Tables<U>>,
        staging: &mut Option<[Staging; 2]>,
    ) {
        // Whole pixels: the plan's length is the product of its loops (`CastNest::between`).
        assert!(dst.len().is_multiple_of(self.padded), "a run of whole pixels");
        let pixels = dst.len() / self.padded;
        // 2-byte pixels of up to 4 channels are built as words: runs for 4 channels, the
        // missing ones zero.
        // (Little-endian: the first channel is the word's low bits, so first in memory.)
        let words = cfg!(target_endian = "little")
            && U::SIZE == 2
            && self.channels <= 4
            && matches!(self.padded, 4 | 8 | 16);
        // Pixels SIMD builds whole are streamed straight into `dst`, not through a block, from
        // the first pixel on a 16-byte boundary (`lead` pixels in: one, for pixels of 8 bytes
        // from a start 8 bytes off).
        let pixel_bytes = self.padded * U::SIZE;
        let lead = match (16 - dst.address(0) % 16) % 16 {
            off if self.streaming && off.is_multiple_of(pixel_bytes) => (off / pixel_bytes).min(pixels),
            _ => 0,
        };
        let (from, rest, to) = (s + lead * self.pixel_stride, pixels - lead, lead * self.padded);
        let stores = if self.streaming { simd::Stores::Streaming } else { simd::Stores::Ordinary };
        let streamed = match tables {
            Some(tables) => {
                let runs = self.runs::<T, u8>(src, from, rest);
                tables.direct_pixels(&runs[..self.channels], self.padded, dst.at(to..), stores)
            }
            // f32 into f16 or bf16 unscaled: rounded in registers (F16C, AVX2).
            None if self.halves_from_f32(cast) => {
                let (runs, bf16) = (self.runs::<T, f32>(src, from, rest), U::DATA_TYPE == DataType::BFloat16);
                simd::float_halves(dst.at(to..), self.padded / 4, &runs[..self.channels], bf16, stores)
            }
            // f32 quantized into i8 or u8 pixels in registers (AVX2).
            None => match self.quantized_from_f32(cast) {
                Some(scale) => {
                    let (runs, signed) =
                        (self.runs::<T, f32>(src, from, rest), U::DATA_TYPE == DataType::Int8);
                    let runs = &runs[..self.channels];
                    simd::quantized_pixels(dst.at(to..), self.padded, runs, (scale, signed), stores)
                }
                None => 0,
            },
        };
        // The lead's pixels, then those after the streamed ones, in blocks (the blocks of
        // whole 8-pixel groups after the lead keep its boundary).
        let blocks = (0..lead).step_by(self.block).chain((lead + streamed..pixels).step_by(self.block));
        for first in blocks {
            let [runs, staged] =
                staging.get_or_insert_with(|| [Staging([0; STAGED_BYTES]), Staging([0; STAGED_BYTES])]);
            let runs: &mut [U] = bytemuck::cast_slice_mut(&mut runs.0[..STAGED * U::SIZE]);
            let staged: &mut [U] = bytemuck::cast_slice_mut(&mut staged.0[..STAGED * U::SIZE]);
            let end = if first < lead { lead } else { pixels };
            let n = self.block.min(end - first);
            let at = s + first * self.pixel_stride;
            let block = &mut staged[..n * self.padded];
            if let Some(tables) = tables {
                tables.pixels(&self.runs::<T, u8>(src, at, n)[..self.channels], self.padded, block);
                self.leave(&mut dst, first, block);
                continue;
            }
            for c in 0..self.channels {
                let base = at + c * self.channel_stride;
                let out = &mut runs[c * n..(c + 1) * n];
                if self.pixel_stride == 1 {
                    cast.cast_run(&src[base..base + n], out, c);
                } else {
                    for (j, o) in out.iter_mut().enumerate() {
                        *o = cast.cast_at(src[base + j * self.pixel_stride], c);
                    }
                }
            }
            if words {
                runs[self.channels * n..4 * n].fill(U::default());
                let halves: &[u16] = bytemuck::cast_slice(&runs[..4 * n]);
                let halves: [&[u16]; 4] = core::array::from_fn(|c| &halves[c * n..(c + 1) * n]);
                // Streamed straight from registers where the pixels start on a 16-byte
                // boundary; the rest (none, or a short run) through the block.
                let done = match self.streaming {
                    true => {
                        simd::half_pixels_streamed(dst.at(first * self.padded..), self.padded / 4, halves)
                    }
                    false => 0,
                };
                let (halves, rest) = (halves.map(|h| &h[done..]), &mut block[done * self.padded..]);
                let words = bytemuck::cast_slice_mut(rest);
                match self.padded {
                    4 => pixel_words::<1>(halves, words),
                    8 => pixel_words::<2>(halves, words),
                    _ => pixel_words::<4>(halves, words),
                }
                self.leave(&mut dst, first + done, rest);
            } else {
                // Pixels of 2 to 7 values: the padding's runs zeroed, the planes interleaved by
                // the platform's groups (f32 quantized into i8 NHWC C = 4, 256 MiB: 0.38 of a
                // streaming copy with a loop a pixel, 0.63 with the groups); else a loop.
                let planes = 2..8;
                match planes.contains(&self.padded) {
                    true => {
                        runs[self.channels * n..self.padded * n].fill(U::default());
                        planes_into_pixels(&runs[..self.padded * n], n, self.padded, block);
                    }
                    false => interleave(&runs[..self.channels * n], n, self.channels, self.padded, block),
                }
                self.leave(&mut dst, first, block);
            }
        }
    }

    /// Whether the pass's pixels are f16 or bf16 from f32 through [`Unscaled`](super::Unscaled),
    /// the source's pixels adjacent, in pixels of 4, 8 or 16 halves with up to four channels:
    /// what `simd::float_halves` builds.
    fn halves_from_f32<T: Element, U: Element, C: Cast<T, U>>(&self, cast: C) -> bool {
        T::DATA_TYPE == DataType::Float
            && matches!(U::DATA_TYPE, DataType::Half | DataType::BFloat16)
            && matches!(cast.known(), Some(KnownCast::Unscaled))
            && self.pixel_stride == 1
            && self.channels <= 4
            && matches!(self.padded, 4 | 8 | 16)
    }

    /// The scale of the pass's cast where its pixels are i8 or u8 quantized from f32 by
    /// [`Quantize`](super::Quantize), the source's pixels adjacent, in pixels of 4, 8, 16 or 32
    /// bytes with up to four channels: what `simd::quantized_pixels` builds.
    fn quantized_from_f32<T: Element, U: Element, C: Cast<T, U>>(&self, cast: C) -> Option<f32> {
        let fits = T::DATA_TYPE == DataType::Float
            && matches!(U::DATA_TYPE, DataType::Int8 | DataType::Uint8)
            && self.pixel_stride == 1
            && self.channels <= 4
            && matches!(self.padded, 4 | 8 | 16 | 32);
        match cast.known() {
            Some(KnownCast::Quantize(scale)) if fits => Some(scale),
            _ => None,
        }
    }

    /// The runs of the source's channels as values of `V` (`T` itself: bytes for the tables,
    /// f32), `n` pixels from source offset `at` (adjacent pixels), the missing channels empty.
    fn runs<'s, T: Element, V: bytemuck::Pod>(
        &self,
        src: &'s [T],
        at: usize,
        n: usize,
    ) -> [&'s [V]; tables::MAX_CHANNELS] {
        let values: &[V] = bytemuck::cast_slice(src);
        let mut runs = [&values[..0]; tables::MAX_CHANNELS];
        for (c, run) in runs.iter_mut().enumerate().take(self.channels) {
            let base = at + c * self.channel_stride;
            *run = &values[base..base + n];
        }
        runs
    }

    /// Writes `block`, whole pixels from pixel `first` of `dst`, streamed or not.
    fn leave<U: Element>(&self, dst: &mut Out<'_, U>, first: usize, block: &[U]) {
        let mut out = dst.at(first * self.padded..first * self.padded + block.len());
        match self.streaming {
            true => simd::stream_unfenced(out, block),
            false => out.copy_from(block),
        }
    }
}

/// A block's staging buffer, on cache-line boundaries (so 2-byte pixels can be built as `u64`
/// words).
#[repr(C, align(64))]
struct Staging([u8; STAGED_BYTES]);

/// Four runs of 2-byte values (channel by channel, of equal length) into as many pixels of `W`
/// words: each pixel's first word holds its four values, the other words are the padding's
/// zeros. Whole groups of 8 pixels through `simd::half_pixels` (SSE2 on x86-64), the rest word
/// by word.
fn pixel_words<const W: usize>(runs: [&[u16]; 4], out: &mut [u64]) {
    let done = simd::half_pixels(out, W, runs);
    let [a, b, c, d] = runs.map(|r| &r[done..]);
    let px = out.chunks_exact_mut(W).skip(done);
    for ((((px, &a), &b), &c), &d) in px.zip(a).zip(b).zip(c).zip(d) {
        px[0] = a as u64 | (b as u64) << 16 | (c as u64) << 32 | (d as u64) << 48;
        px[1..].fill(0);
    }
}

/// `padded` runs of `n` values (2 to 7; channel by channel) into `n` pixels of `padded` values
/// with the platform's groups ([`simd::interleave`]).
fn planes_into_pixels<U: Element>(runs: &[U], n: usize, padded: usize, out: &mut [U]) {
    let run = |c: usize| &runs[c * n..(c + 1) * n];
    let out = Out::new(out);
    match padded {
        2 => simd::interleave(out, [run(0), run(1)]),
        3 => simd::interleave(out, [run(0), run(1), run(2)]),
        4 => simd::interleave(out, [run(0), run(1), run(2), run(3)]),
        5 => simd::interleave(out, core::array::from_fn::<_, 5, _>(run)),
        6 => simd::interleave(out, core::array::from_fn::<_, 6, _>(run)),
        _ => simd::interleave(out, core::array::from_fn::<_, 7, _>(run)),
    }
}

/// `channels` runs of `n` values (channel by channel) into `n` pixels of `padded` values, the
/// last `padded - channels` of each zero, for the widths the groups do not take (8 and more:
/// [`planes_into_pixels`] takes 2 to 7). 8 and 16 get a loop of their own, so a pixel is built
/// in registers and stored whole.
fn interleave<U: Element>(runs: &[U], n: usize, channels: usize, padded: usize, out: &mut [U]) {
    match padded {
        8 => interleave_fixed::<U, 8>(runs, n, channels, out),
        16 => interleave_fixed::<U, 16>(runs, n, channels, out),
        _ => {
            for (j, px) in out.chunks_exact_mut(padded).enumerate() {
                for (c, v) in px.iter_mut().enumerate() {
                    *v = if c < channels { runs[c * n + j] } else { U::default() };
                }
            }
        }
    }
}

#[inline(always)]
fn interleave_fixed<U: Element, const P: usize>(runs: &[U], n: usize, channels: usize, out: &mut [U]) {
    let channels = channels.min(P);
    for (j, px) in out.chunks_exact_mut(P).enumerate() {
        let mut pixel = [U::default(); P];
        for (c, v) in pixel.iter_mut().enumerate().take(channels) {
            *v = runs[c * n + j];
        }
        px.copy_from_slice(&pixel);
    }
}
