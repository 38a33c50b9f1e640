//! Pixels of a few elements (2 to 7: an RGB image's) streamed past the caches, both ways: planes
//! into dense pixels ([`streamed_pixels`]) and dense pixels into planes ([`streamed_planes`]),
//! the platform's groups with streaming stores and the ends the groups leave by the narrow
//! loops.

use super::deinterleave;
use crate::dtype::Element;
use crate::platform::out::Out;
use crate::platform::simd;

/// `$f::<T, K>(…)` for the count `$k` of 2 to 7 (`K = $k`), `false` for any other.
macro_rules! by_count {
    ($k:expr, $f:ident::<$t:ident>($($arg:expr),*)) => {
        match $k {
            2 => $f::<$t, 2>($($arg),*),
            3 => $f::<$t, 3>($($arg),*),
            4 => $f::<$t, 4>($($arg),*),
            5 => $f::<$t, 5>($($arg),*),
            6 => $f::<$t, 6>($($arg),*),
            7 => $f::<$t, 7>($($arg),*),
            _ => false,
        }
    };
}

/// `k` streams (2 to 7) of `n` elements (at `s`, `stream` apart) into `n` dense pixels of `k` at
/// `d` with streaming stores at `level` ([`simd::interleave_streamed`]); `false`, having written
/// nothing, where the level has no streamed form for them (the portable level, SSE2's 4- and
/// 8-byte elements, and bytes and halves without SSSE3). Staged through panels instead (as
/// those still are), each pixel went through the cache and out again: on an AMD EPYC (Zen 4), C = 3
/// NCHW→NHWC, two threads, a scratch loop of `convert` alternating three times, panels →
/// streamed, at AVX-512: at 256 MiB f32 29.1–31.4 → 39.0–47.0 GB/s, f16 28.6–32.2 →
/// 43.5–44.7, u8 29.2–32.1 → 41.7–43.2; at 16 MiB f32 31.0–35.4 → 46.2–47.0, f16 30.6–35.1 →
/// 42.4–49.3, u8 29.7–31.3 → 42.2–48.1. The level forced to AVX2 (AVX2's permutes for f32,
/// SSSE3's shuffle for f16 and u8): at 256 MiB f32 29.3–34.1 → 44.4–46.8, f16 29.2–32.8 →
/// 46.5–48.1, u8 29.1–31.1 → 45.6–45.7; at 16 MiB f32 32.3–36.7 → 44.9–47.7, f16 30.5–33.2 →
/// 42.1–47.8, u8 26.8–35.3 → 43.8–46.2. Forced to SSE2, at 256 MiB f16 27.4–30.2 → 46.4–47.9,
/// u8 25.1–29.8 → 44.8–48.6.
pub(super) fn streamed_pixels<T: Element>(
    level: simd::Level,
    (src, s, stream): (&[T], usize, usize),
    (dst, d): (Out<'_, T>, usize),
    k: usize,
    n: usize,
) -> bool {
    fn with<T: Element, const K: usize>(
        level: simd::Level,
        src: &[T],
        s: usize,
        stream: usize,
        dst: Out<'_, T>,
        n: usize,
    ) -> bool {
        let streams: [&[T]; K] = core::array::from_fn(|c| &src[s + c * stream..s + c * stream + n]);
        simd::interleave_streamed(level, dst, streams).is_some()
    }
    let dst = dst.into_at(d..d + k * n);
    by_count!(k, with::<T>(level, src, s, stream, dst, n))
}

/// `n` dense pixels of `k` elements (2 to 7, at `s`) into `k` streams of `n` (at `d`, `stream`
/// apart) with streaming stores at `level` where every stream starts on a line
/// ([`simd::deinterleave_at`]), the pixels its groups leave by [`deinterleave`], then a fence;
/// `false`, having written nothing, where the level has no groups for them (as
/// [`streamed_pixels`]). With ordinary stores each plane's lines were read before they were
/// written: on an AMD EPYC (Zen 4), C = 3 NHWC→NCHW at 256 MiB, two threads, a scratch loop of
/// `convert` against the blocks (and VBMI's bytes) with ordinary stores, in turn twice, ÷ a
/// streaming copy: f32 0.53–0.55 → 0.99, f16 0.36–0.40 → 0.98–1.00, u8 0.64–0.65 → 0.97; at
/// AVX2 (AVX2's groups for f32, SSSE3's for f16 and u8) 0.95–0.98, at SSE2 (SSSE3's) u8 and f16
/// 0.96–0.99.
pub(super) fn streamed_planes<T: Element>(
    level: simd::Level,
    (src, s): (&[T], usize),
    (dst, d, stream): (Out<'_, T>, usize, usize),
    k: usize,
    n: usize,
) -> bool {
    fn with<T: Element, const K: usize>(
        level: simd::Level,
        src: &[T],
        s: usize,
        mut dst: Out<'_, T>,
        (d, stream): (usize, usize),
        n: usize,
    ) -> bool {
        let mut chunks = dst.rb().into_at(d..).chunks(stream);
        let streams: [Out<'_, T>; K] =
            core::array::from_fn(|_| chunks.next().unwrap_or_default().into_at(..n));
        let done = simd::deinterleave_at(level, &src[s..s + K * n], streams, simd::Stores::Streaming);
        if done == 0 {
            return false;
        }
        deinterleave::<T, K>(src, s + K * done, K, dst, d + done, stream, n - done);
        simd::fence();
        true
    }
    by_count!(k, with::<T>(level, src, s, dst, (d, stream), n))
}
