//! Planes and pixels of a few channels (2 to 7: an RGB image's), both ways, against the
//! definition: through the kernels' narrow loops, the platform's groups at every level with
//! ordinary and streaming stores, and the streamed passes of the strips.

use super::transposes_like_the_definition;
use crate::convert::kernels::interleave;
use crate::dtype::Element;
use crate::platform::out::Out;
use crate::platform::simd::{self, strips::Strips, Level, Stores};

/// Bytes of each stream a level's groups take for streams of `size`-byte elements, whatever
/// their count from 2 to 7 (0: none): AVX-512's 64 (bytes with VBMI); AVX2's 32 for 4- and
/// 8-byte elements; SSSE3's 16 for bytes and halves where the CPU has it (also AVX-512's bytes
/// without VBMI).
fn group(level: Level, size: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    let (ssse3, vbmi) = (is_x86_feature_detected!("ssse3"), is_x86_feature_detected!("avx512vbmi"));
    #[cfg(not(target_arch = "x86_64"))]
    return {
        let _ = (level, size);
        0
    };
    #[cfg(target_arch = "x86_64")]
    match level {
        Level::Avx512 if size >= 2 || vbmi => 64,
        Level::Avx512 | Level::Avx2 if size >= 4 => 32,
        Level::Portable => 0,
        _ if size <= 2 && ssse3 => 16,
        _ => 0,
    }
}

/// Runs `check::<T, K>(level)` for u8, f16, f32 and f64 and `K` from 2 to 7, at every
/// level this CPU has; a level it lacks prints SKIPPED with the reason.
macro_rules! every_level_size_and_count {
    ($check:ident) => {
        for level in Level::ALL {
            if !level.available() {
                println!("SKIPPED: {level:?}: this CPU's highest level is {:?}", Level::detected());
                continue;
            }
            every_level_size_and_count!(@sizes $check, level, 2 3 4 5 6 7);
        }
    };
    (@sizes $check:ident, $level:ident, $($k:literal)*) => {
        $(
            $check::<u8, $k>($level);
            $check::<half::f16, $k>($level);
            $check::<f32, $k>($level);
            $check::<f64, $k>($level);
        )*
    };
}

/// `K` planes into dense pixels, through the kernel's narrow loop (at this CPU's level) and the
/// platform's groups at every level (then blocks of 64 pixels and one by one): every length
/// around the groups, misaligned starts, nothing outside written.
#[test]
fn planes_interleave_into_pixels_like_the_definition() {
    fn check<T: Element, const K: usize>(level: Level) {
        let fill = T::from_word(0xA5A5);
        for n in (0..70).chain([130, 1000, 1007]) {
            for (s, d) in [(0, 0), (3, 1)] {
                let stream = n + 5;
                let src: Vec<T> = (0..s + K * stream).map(|i| T::from_word((i * 37 + 11) as u64)).collect();
                for kernel in [false, true] {
                    let mut dst = vec![fill; d + K * n + 4];
                    match kernel {
                        true => interleave::<T, K>(&src, s, stream, Out::new(&mut dst), d, K, n),
                        false => {
                            let streams: [&[T]; K] =
                                core::array::from_fn(|c| &src[s + c * stream..s + c * stream + n]);
                            simd::interleave_at(level, Out::new(&mut dst[d..d + K * n]), streams);
                        }
                    }
                    let mut expected = vec![fill; d + K * n + 4];
                    for i in 0..n {
                        for c in 0..K {
                            expected[d + K * i + c] = src[s + c * stream + i];
                        }
                    }
                    // Bits, not values: some of these f16 words are NaNs.
                    let bits = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
                    let size = T::SIZE;
                    assert_eq!(
                        bits(&dst),
                        bits(&expected),
                        "{level:?} K {K} size {size}: n {n}, ({s}, {d}) {kernel}"
                    );
                }
            }
        }
    }
    every_level_size_and_count!(check);
}

/// `K` streams into dense pixels with streaming stores ([`simd::interleave_streamed`]) at every
/// level this CPU has, every element size, lengths around the groups and every start within a
/// line, against the definition; elements around the pixels stay untouched. A level streams
/// exactly where it has groups ([`group`]); one without them writes nothing (and says SKIPPED).
#[test]
fn planes_stream_into_pixels_like_the_definition() {
    fn check<T: Element, const K: usize>(level: Level) {
        let fill = T::from_word(0xA5A5);
        let mut streamed = false;
        for n in (0..70).chain([200, 257, 1000, 1007, 4099]) {
            for d in 0..64 / T::SIZE + 1 {
                let stream = n + 5;
                let src: Vec<T> = (0..K * stream).map(|i| T::from_word((i * 37 + 11) as u64)).collect();
                let mut dst = vec![fill; d + K * n + 4];
                let streams: [&[T]; K] = core::array::from_fn(|c| &src[c * stream..c * stream + n]);
                let groups = simd::interleave_streamed(level, Out::new(&mut dst[d..d + K * n]), streams);
                let did = groups.is_some();
                // The groups wrote all but the ends where the pixels meet a line within the
                // first 64: fewer than a line's positions before it, and fewer than a group's
                // (64 bytes of each stream) after the last.
                let line =
                    (0..64).find(|h| (dst[d..].as_ptr() as usize + K * h * T::SIZE).is_multiple_of(64));
                if let (Some(groups), Some(head)) = (groups, line.filter(|&h| n >= h + 64 / T::SIZE)) {
                    assert!(
                        groups + head + 64 / T::SIZE > n,
                        "{level:?} K {K} size {}: n {n}, start {d}: {groups}",
                        T::SIZE
                    );
                }
                let mut expected = vec![fill; d + K * n + 4];
                for i in (0..n).filter(|_| did) {
                    for c in 0..K {
                        expected[d + K * i + c] = src[c * stream + i];
                    }
                }
                // Bits, not values: some of these f16 words are NaNs.
                let bits = |v: &[T]| bytemuck::cast_slice::<T, u8>(v).to_vec();
                assert_eq!(bits(&dst), bits(&expected), "{level:?} K {K} size {}: n {n}, start {d}", T::SIZE);
                streamed |= did;
            }
        }
        assert_eq!(
            streamed,
            group(level, T::SIZE) > 0,
            "{level:?}: whether K {K} of size {} stream",
            T::SIZE
        );
        if !streamed {
            println!(
                "SKIPPED: streamed pixels of {K} {}-byte elements at {level:?}: no groups there",
                T::SIZE
            );
        }
    }
    every_level_size_and_count!(check);
}

/// Dense `K`-element pixels into `K` planes ([`simd::deinterleave_at`]) at every level this CPU
/// has, every element size, ordinary and streaming stores, each stream on a line and off one,
/// lengths around the groups, against the definition; places past the pixels it says it did
/// stay untouched. Where a level has groups ([`group`]) it does every whole group; streamed
/// from a line, whole lines.
#[test]
fn pixels_split_into_planes_like_the_definition() {
    fn check<T: Element, const K: usize>(level: Level) {
        let fill = T::from_word(0xA5A5);
        let group = group(level, T::SIZE);
        let mut split = false;
        for (stores, off) in
            [(Stores::Ordinary, 0), (Stores::Ordinary, 1), (Stores::Streaming, 0), (Stores::Streaming, 1)]
        {
            for n in (0..70).chain([200, 257, 1000, 1007, 4099]) {
                let src: Vec<T> = (0..K * n).map(|i| T::from_word((i * 37 + 11) as u64)).collect();
                let mut planes: [Vec<T>; K] =
                    core::array::from_fn(|_| vec![fill; n + 64 / T::SIZE + off + 4]);
                let at: [usize; K] = core::array::from_fn(|c| planes[c].as_ptr().align_offset(64) + off);
                let mut i = 0;
                let streams = planes.each_mut().map(|p| {
                    i += 1;
                    Out::new(&mut p[at[i - 1]..at[i - 1] + n])
                });
                let done = simd::deinterleave_at(level, &src, streams, stores);
                let whole = match (stores, off) {
                    (Stores::Streaming, 0) if group > 0 => 64,
                    _ => group,
                };
                let expected = (n * T::SIZE).checked_div(whole).map_or(0, |groups| groups * whole / T::SIZE);
                let size = T::SIZE;
                assert_eq!(done, expected, "{level:?} K {K} size {size} {stores:?}: n {n}, {off} off a line");
                for (c, plane) in planes.iter().enumerate() {
                    for (i, v) in plane.iter().enumerate() {
                        let pixel = i.wrapping_sub(at[c]);
                        let want = if pixel < done { src[K * pixel + c] } else { fill };
                        // Bits, not values: some of these f16 words are NaNs.
                        assert_eq!(
                            v.to_word(),
                            want.to_word(),
                            "{level:?} K {K} size {size}: n {n}, plane {c} at {i}"
                        );
                    }
                }
                split |= done > 0;
            }
        }
        simd::fence();
        if !split {
            println!(
                "SKIPPED: pixels of {K} {}-byte elements into planes at {level:?}: no groups there",
                T::SIZE
            );
        }
    }
    every_level_size_and_count!(check);
}

/// Dense pixels streamed into planes that share their offset in a 4 KiB page (a multiple of
/// 4 KiB apart, or 2 KiB apart so that every other plane does: the planes `skew` holds back
/// from each other where a level streams lines of them), at every level this CPU has, lengths
/// past a plane's held-back lines, against the definition; nothing between the planes written.
#[test]
fn pixels_stream_into_planes_sharing_a_page_offset_like_the_definition() {
    fn check<T: Element, const K: usize>(level: Level) {
        let fill = T::from_word(0x5A5A);
        let mut split = false;
        for n in [64 / T::SIZE, 1000, 4099, 9000, 20000] {
            for apart in [4096, 2048] {
                // Plane `c` starts `c * stride` elements past a line: `apart` bytes, or a
                // multiple of 4 KiB past the plane's end.
                let bytes = (n * T::SIZE + 64).next_multiple_of(4096) + 4096 - apart;
                let stride = bytes / T::SIZE;
                let src: Vec<T> = (0..K * n).map(|i| T::from_word((i * 37 + 11) as u64)).collect();
                let mut buf = vec![fill; K * stride + 64];
                let base = buf.as_ptr().align_offset(64);
                let mut planes = buf[base..].chunks_mut(stride);
                let streams: [Out<'_, T>; K] = core::array::from_fn(|_| {
                    let plane = planes.next().expect("K planes");
                    Out::new(&mut plane[..n])
                });
                let done = simd::deinterleave_at(level, &src, streams, Stores::Streaming);
                simd::fence();
                for (i, v) in buf.iter().enumerate() {
                    let (c, pixel) = (i.wrapping_sub(base) / stride, i.wrapping_sub(base) % stride);
                    let inside = i >= base && c < K && pixel < done;
                    let want = if inside { src[K * pixel + c] } else { fill };
                    let size = T::SIZE;
                    // Bits, not values: some of these f16 words are NaNs.
                    assert_eq!(
                        v.to_word(),
                        want.to_word(),
                        "{level:?} K {K} size {size}: n {n}, planes {apart} B apart, plane {c} pixel {pixel}"
                    );
                }
                split |= done > 0;
            }
        }
        if !split {
            println!(
                "SKIPPED: pixels of {K} {}-byte elements streamed into planes at {level:?}: no groups there",
                T::SIZE
            );
        }
    }
    every_level_size_and_count!(check);
}

/// Planes and pixels through the kernel's streamed passes (NCHW→NHWC and NHWC→NCHW with C of
/// 2 to 7: `streamed_pixels`, `streamed_planes`, or the staged paths where a level has no
/// groups): every level this CPU has, planes on lines and off them, lengths around the groups,
/// against the definition, nothing else written.
#[test]
fn streamed_planes_and_pixels_like_the_definition() {
    fn check<T: Element, const K: usize>(level: Level) {
        let strips = Strips::new(level, Stores::Streaming, T::SIZE);
        let line = 64 / T::SIZE;
        for n in [1usize, 5, 64, 200, 1000, 4099] {
            let src: Vec<T> =
                (0..K * (n + 2 * line) + 8).map(|i| T::from_word((i * 37 + 11) as u64)).collect();
            for (stride, s, d) in
                [(n.next_multiple_of(line), 0, 0), (n + 3, 2, 1), (n.next_multiple_of(line), 1, 7)]
            {
                // Pixels into planes: `K` rows of `n` (planes `stride` apart) from pixels of `K`.
                let mut dst = vec![T::default(); K * stride + 2 * line];
                let aligned = dst.as_ptr().align_offset(64);
                transposes_like_the_definition(&src, &mut dst, (s, aligned + d), (K, n), (K, stride), strips);
                // Planes into pixels: `n` rows of `K` from planes `stride` apart.
                let mut dst = vec![T::default(); K * n + 2 * line];
                let aligned = dst.as_ptr().align_offset(64);
                transposes_like_the_definition(&src, &mut dst, (s, aligned + d), (n, K), (stride, K), strips);
            }
        }
    }
    every_level_size_and_count!(check);
}
