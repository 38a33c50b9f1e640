//! Three planes and three-element pixels (an RGB image's planes and its pixels), both ways:
//! the platform's shuffles as far as they go, the ends one by one.

use core::ops::Range;

#[cfg(target_arch = "x86_64")]
use super::x86;
use super::{fence, Level, Stores};
use crate::dtype::Element;
use crate::platform::out::Out;

/// Three streams of equal length interleaved into `dst`, element after element (three per
/// position: an RGB image's planes into its pixels): AVX-512's two-source permutes (for bytes,
/// VBMI's), AVX2's permutes and blends for 4- and 8-byte elements, and SSSE3's byte shuffle for
/// bytes and halves where this CPU has them (detected once), plain Rust for the rest.
pub(crate) fn interleave3<T: Element>(dst: Out<'_, T>, streams: [&[T]; 3]) {
    interleave3_at(Level::detected(), dst, streams);
}

/// [`interleave3`] at `level` (one this CPU has, or lower: the tests run every level). The
/// streams hold `dst.len() / 3` elements each.
pub(crate) fn interleave3_at<T: Element>(level: Level, mut dst: Out<'_, T>, streams: [&[T]; 3]) {
    debug_assert!(
        dst.len().is_multiple_of(3) && streams.iter().all(|s| s.len() == dst.len() / 3),
        "three streams of one pixel's share of the destination each"
    );
    let from: [&[u8]; 3] = streams.map(bytemuck::cast_slice);
    #[cfg(target_arch = "x86_64")]
    let done = {
        // SAFETY: the shuffles store bytes of the three streams, values, into `to`.
        let to = unsafe { dst.rb().bytes().into_places() };
        let level = level.min(Level::detected());
        match T::SIZE {
            1 => x86::interleave3::<1>(level, to, from),
            2 => x86::interleave3::<2>(level, to, from),
            4 => x86::interleave3::<4>(level, to, from),
            _ => x86::interleave3::<8>(level, to, from),
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = (level, from);
        0
    };
    let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / 3);
    pixels_one_by_one(dst, streams, done..n);
}

/// Dense three-element pixels of `src` into the three streams of `dst` (an image's pixels into
/// its planes) as far as the shuffles go, with ordinary stores: [`deinterleave3_at`] at this
/// CPU's level.
pub(crate) fn deinterleave3<T: Element>(src: &[T], dst: [Out<'_, T>; 3]) -> usize {
    deinterleave3_at(Level::detected(), src, dst, Stores::Ordinary)
}

/// Dense three-element pixels of `src` into the three streams of `dst` as far as the shuffles
/// of `level` (one this CPU has, or lower: the tests run every level) go: the inverse of
/// [`interleave3`]'s, at the same levels (AVX-512's permutes, for bytes VBMI's; AVX2's blends
/// and permutes for 4- and 8-byte elements; SSSE3's byte shuffle for bytes and halves where
/// this CPU has it). Streamed with [`Stores::Streaming`] where every stream starts on a line
/// (then only whole lines of each stream, and the caller fences), with ordinary stores
/// otherwise. Returns the pixels done, from the first; the caller writes the rest.
pub(crate) fn deinterleave3_at<T: Element>(
    level: Level,
    src: &[T],
    dst: [Out<'_, T>; 3],
    stores: Stores,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let level = level.min(Level::detected());
        let streamed = stores == Stores::Streaming && dst.iter().all(|d| d.address(0).is_multiple_of(64));
        // SAFETY: the shuffles store bytes of `src`, values of `T`, into the streams.
        let to = dst.map(|d| unsafe { d.bytes().into_places() });
        let src: &[u8] = bytemuck::cast_slice(src);
        match (T::SIZE, streamed) {
            (1, false) => x86::deinterleave3::<1, false>(level, src, to),
            (2, false) => x86::deinterleave3::<2, false>(level, src, to),
            (4, false) => x86::deinterleave3::<4, false>(level, src, to),
            (_, false) => x86::deinterleave3::<8, false>(level, src, to),
            (1, true) => x86::deinterleave3::<1, true>(level, src, to),
            (2, true) => x86::deinterleave3::<2, true>(level, src, to),
            (4, true) => x86::deinterleave3::<4, true>(level, src, to),
            (_, true) => x86::deinterleave3::<8, true>(level, src, to),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, src, dst, stores);
        0
    }
}

/// Positions `at` of three streams into their three-element pixels of `dst`, one by one (the
/// ends the groups leave).
fn pixels_one_by_one<T: Element>(mut dst: Out<'_, T>, [a, b, c]: [&[T]; 3], at: Range<usize>) {
    for i in at {
        dst.at(3 * i..3 * i + 3).copy_from(&[a[i], b[i], c[i]]);
    }
}

/// [`interleave3`] with streaming stores, then a fence, where `level` (one the conversion chose,
/// so one this CPU has) has a streamed form: [`interleave3`]'s groups of AVX-512, AVX2 (4- and
/// 8-byte elements) and SSSE3 (bytes and halves, where the CPU has it; not SSE2's 4- and 8-byte
/// elements, nor the portable level). Positions up to the first that starts a line of `dst` and
/// after the last whole group take ordinary stores. Returns how many positions the streamed
/// groups wrote, or `None`, having written nothing, where the level has no streamed form. For
/// outputs larger than the caches (an RGB image's planes into pixels): staged through a
/// cache-resident panel before, each pixel was written twice. The streams hold `dst.len() / 3`
/// elements each.
pub(crate) fn interleave3_streamed<T: Element>(
    level: Level,
    dst: Out<'_, T>,
    streams: [&[T]; 3],
) -> Option<usize> {
    debug_assert!(
        dst.len().is_multiple_of(3) && streams.iter().all(|s| s.len() == dst.len() / 3),
        "three streams of one pixel's share of the destination each"
    );
    #[cfg(target_arch = "x86_64")]
    {
        let mut dst = dst;
        let level = level.min(Level::detected());
        let n = streams.iter().map(|s| s.len()).min().unwrap_or(0).min(dst.len() / 3);
        // Positions before the first that starts a line (three elements a position); all of
        // them where none of the first 64 does (a short run).
        let head = (0..n.min(64)).find(|h| dst.address(3 * h).is_multiple_of(64)).unwrap_or(n);
        let from: [&[u8]; 3] = streams.map(|s| bytemuck::cast_slice(&s[head..n]));
        // SAFETY: the streamed groups store bytes of the three streams, values, into `to`.
        let to = unsafe { dst.at(3 * head..3 * n).bytes().into_places() };
        let done = match T::SIZE {
            1 => x86::interleave3_streamed::<1>(level, to, from),
            2 => x86::interleave3_streamed::<2>(level, to, from),
            4 => x86::interleave3_streamed::<4>(level, to, from),
            _ => x86::interleave3_streamed::<8>(level, to, from),
        };
        let streamed = done?;
        pixels_one_by_one(dst.rb(), streams, 0..head);
        pixels_one_by_one(dst, streams, head + streamed..n);
        fence();
        Some(streamed)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (level, dst, streams);
        None
    }
}
