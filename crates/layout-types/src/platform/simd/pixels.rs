//! Planes and pixels of a few elements (2 to 7: an RGB image's planes and its pixels), both
//! ways: the platform's groups as far as they go, the ends (or everything, where a level has no
//! groups) in blocks of 64 pixels and one by one.

use core::ops::Range;

#[cfg(target_arch = "x86_64")]
use super::x86;
use super::{fence, Level, Stores};
use crate::dtype::Element;
use crate::platform::out::Out;

/// Calls `$f::<K, W>($args)` (an x86 group function), `W` the element size of `$t` in bytes.
#[cfg(target_arch = "x86_64")]
macro_rules! by_size {
    ($t:ty, $f:ident::<$k:ident $(, $stream:literal)?>($($arg:expr),*)) => {
        match <$t as Element>::SIZE {
            1 => x86::$f::<$k, 1 $(, $stream)?>($($arg),*),
            2 => x86::$f::<$k, 2 $(, $stream)?>($($arg),*),
            4 => x86::$f::<$k, 4 $(, $stream)?>($($arg),*),
            _ => x86::$f::<$k, 8 $(, $stream)?>($($arg),*),
        }
    };
}

/// `K` streams of equal length interleaved into `dst`, element after element (`K` per
/// position: an RGB image's planes into its pixels): AVX-512's two-source permutes (for bytes,
/// VBMI's), AVX2's unpacks, permutes and blends for 4- and 8-byte elements, and SSSE3's byte
/// shuffle for bytes and halves where this CPU has them (detected once), for every `K` from 2
/// to 7; blocks of 64 pixels for the rest.
pub(crate) fn interleave<T: Element, const K: usize>(dst: Out<'_, T>, streams: [&[T]; K]) {
    interleave_at(Level::detected(), dst, streams);
}

/// [`interleave`] at `level` (one this CPU has, or lower: the tests run every level). The
/// streams hold `dst.len() / K` elements each.
pub(crate) fn interleave_at<T: Element, const K: usize>(
    level: Level,
    mut dst: Out<'_, T>,
    streams: [&[T]; K],
) {
    debug_assert!(
        dst.len().is_multiple_of(K) && streams.iter().all(|s| s.len() == dst.len() / K),
        "K streams of one pixel's share of the destination each"
    );
    let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / K);
    #[cfg(target_arch = "x86_64")]
    let done = {
        let from: [&[u8]; K] = streams.map(|s| bytemuck::cast_slice(&s[..n]));
        // SAFETY: the shuffles store bytes of the streams, values, into `to`.
        let to = unsafe { dst.rb().bytes().into_places() };
        let level = level.min(Level::detected());
        by_size!(T, interleave::<K>(level, to, from))
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = level;
        0
    };
    pixels_by_blocks(dst, streams, done..n);
}

/// Dense `K`-element pixels of `src` into the `K` streams of `dst` (an image's pixels into its
/// planes) as far as the groups go, with ordinary stores: [`deinterleave_at`] at this CPU's
/// level.
pub(crate) fn deinterleave<T: Element, const K: usize>(src: &[T], dst: [Out<'_, T>; K]) -> usize {
    deinterleave_at(Level::detected(), src, dst, Stores::Ordinary)
}

/// Dense `K`-element pixels of `src` into the `K` streams of `dst` as far as the groups of `level`
/// (one this CPU has, or lower: the tests run every level) go: the inverse of [`interleave`]'s, at
/// the same levels (AVX-512's permutes, for bytes VBMI's; AVX2's blends, permutes and unpacks for
/// 4- and 8-byte elements; SSSE3's byte shuffle for bytes and halves where this CPU has it).
/// Streamed with [`Stores::Streaming`] where every stream starts on a line (then only whole lines
/// of each stream, and the caller fences), with ordinary stores otherwise. Returns the pixels done,
/// from the first; the caller writes the rest.
pub(crate) fn deinterleave_at<T: Element, const K: usize>(
    level: Level,
    src: &[T],
    dst: [Out<'_, T>; K],
    stores: Stores,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let level = level.min(Level::detected());
        let streamed = stores == Stores::Streaming && dst.iter().all(|d| d.address(0).is_multiple_of(64));
        // SAFETY: the shuffles store bytes of `src`, values of `T`, into the streams.
        let to = dst.map(|d| unsafe { d.bytes().into_places() });
        let src: &[u8] = bytemuck::cast_slice(src);
        match streamed {
            true => by_size!(T, deinterleave::<K, true>(level, src, to)),
            false => by_size!(T, deinterleave::<K, false>(level, src, to)),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, src, dst, stores);
        0
    }
}

/// Positions `at` of `K` streams into their `K`-element pixels of `dst`: blocks of 64 positions
/// formed in a buffer and written at once, the last few one by one (a checked store a value
/// was 2.4–3.7 GB/s for u8 with C = 2 or 4 at 1 MiB).
fn pixels_by_blocks<T: Element, const K: usize>(mut dst: Out<'_, T>, streams: [&[T]; K], at: Range<usize>) {
    const BLOCK: usize = 64;
    let mut i = at.start;
    while i + BLOCK <= at.end {
        let runs: [&[T]; K] = streams.map(|s| &s[i..i + BLOCK]);
        let block: [[T; K]; BLOCK] = core::array::from_fn(|j| core::array::from_fn(|c| runs[c][j]));
        dst.at(K * i..K * (i + BLOCK)).copy_from(block.as_flattened());
        i += BLOCK;
    }
    for i in i..at.end {
        let pixel: [T; K] = streams.map(|s| s[i]);
        dst.at(K * i..K * i + K).copy_from(&pixel);
    }
}

/// [`interleave`] with streaming stores, then a fence, where `level` (one the conversion chose, so
/// one this CPU has) has a streamed form: [`interleave`]'s groups of AVX-512, AVX2 (4- and 8-byte
/// elements) and SSSE3 (bytes and halves, where the CPU has it; not SSE2's 4- and 8-byte elements,
/// nor the portable level). Positions up to the first that starts a line of `dst` and after the
/// last whole group take ordinary stores. Returns how many positions the streamed groups wrote, or
/// `None`, having written nothing, where the level has no streamed form. For outputs larger than
/// the caches (an RGB image's planes into pixels): staged through a cache-resident panel before,
/// each pixel was written twice. The streams hold `dst.len() / K` elements each.
pub(crate) fn interleave_streamed<T: Element, const K: usize>(
    level: Level,
    dst: Out<'_, T>,
    streams: [&[T]; K],
) -> Option<usize> {
    debug_assert!(
        dst.len().is_multiple_of(K) && streams.iter().all(|s| s.len() == dst.len() / K),
        "K streams of one pixel's share of the destination each"
    );
    #[cfg(target_arch = "x86_64")]
    {
        let mut dst = dst;
        let level = level.min(Level::detected());
        let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / K);
        // Positions before the first that starts a line (`K` elements a position); all of
        // them where none of the first 64 does (a short run, or none ever can).
        let head = (0..n.min(64)).find(|h| dst.address(K * h).is_multiple_of(64)).unwrap_or(n);
        let from: [&[u8]; K] = streams.map(|s| bytemuck::cast_slice(&s[head..n]));
        // SAFETY: the streamed groups store bytes of the streams, values, into `to`.
        let to = unsafe { dst.at(K * head..K * n).bytes().into_places() };
        let streamed = by_size!(T, interleave_streamed::<K>(level, to, from))?;
        pixels_by_blocks(dst.rb(), streams, 0..head);
        let (rest, streams) = (dst.at(K * (head + streamed)..K * n), streams.map(|s| &s[head + streamed..n]));
        pixels_by_blocks(rest, streams, 0..n - head - streamed);
        fence();
        Some(streamed)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, dst, streams);
        None
    }
}
