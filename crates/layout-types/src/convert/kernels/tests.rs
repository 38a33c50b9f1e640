//! Each block against the definition, and the line walker against the cache lines it must visit.

use super::line_walk::{LineWalk, Lines};
use super::swar::swar_block;
use super::*;
use crate::platform::simd::Level;

/// Runs `check::<T>(level)` for each element type (u8, f16, f32 and f64 unless named) at every
/// level this CPU has; a level it lacks prints SKIPPED with the reason.
macro_rules! at_every_level {
    ($check:ident) => {
        at_every_level!($check: u8, half::f16, f32, f64)
    };
    ($check:ident: $($t:ty),+) => {
        for level in Level::ALL {
            if !level.available() {
                println!("SKIPPED: {level:?}: this CPU's highest level is {:?}", Level::detected());
                continue;
            }
            $($check::<$t>(level);)+
        }
    };
}

mod few_channels;
mod pixels;
mod staged;

/// Each block implementation against the definition, for every element size, at strides
/// and offsets that leave other elements between the runs (they must stay untouched).
fn check<T: Element>(block: fn(&[T], usize, usize, Out<'_, T>, usize, usize)) {
    check_edge::<T, BLOCK>(block)
}

fn check_edge<T: Element, const E: usize>(block: fn(&[T], usize, usize, Out<'_, T>, usize, usize)) {
    let (from, src_stride, to, dst_stride) = (3, E + 3, 5, E + 5);
    let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7;
    let src: Vec<T> = (0..from + E * src_stride).map(|i| T::from_word(bits(i))).collect();
    let fill = T::from_word(u64::MAX);
    let mut dst = vec![fill; to + E * dst_stride];
    block(&src, from, src_stride, Out::new(&mut dst), to, dst_stride);
    for (i, &v) in dst.iter().enumerate() {
        let (r, c) = ((i.wrapping_sub(to)) / dst_stride, (i.wrapping_sub(to)) % dst_stride);
        let expected = if i >= to && c < E { src[from + c * src_stride + r] } else { fill };
        assert_eq!(v.to_word(), expected.to_word(), "size {} at {i}", T::SIZE);
    }
}

#[test]
fn words_transpose_a_block_of_every_size() {
    check::<u8>(swar_block);
    check::<half::f16>(swar_block);
    check::<f32>(swar_block);
    check::<f64>(swar_block);
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[test]
fn sse2_transposes_a_block_of_every_size_it_takes() {
    check::<u8>(sse2::block);
    check::<half::f16>(sse2::block);
    check::<f32>(sse2::block);
    check::<i32>(sse2::block);
    check_edge::<u8, { sse2::BYTE_BLOCK }>(sse2::byte_block);
    check_edge::<i8, { sse2::BYTE_BLOCK }>(sse2::byte_block);
}

/// The walk yields one index in every cache line of every run, run by run in address order,
/// whatever the runs' alignment.
#[test]
fn line_walk_visits_each_cache_line_of_a_tile_once_in_order() {
    let buf = [0f32; 4];
    for (first, stride, count, span) in [(0, 64, 3, 64), (3, 100, 4, 40), (10, 16, 5, 16), (7, 1000, 2, 1)] {
        for skew in 0..16 {
            let lines = Lines { first, stride, count, span };
            let mut walk = LineWalk::new::<f32>(lines, 1, buf.as_ptr() as usize);
            walk.skew = skew;
            let line_of = |i: usize| (i + skew) / 16;
            let mut expected = Vec::new();
            for k in 0..count {
                let run = first + k * stride..first + k * stride + span;
                let mut ids: Vec<_> = run.clone().map(|i| (k, line_of(i))).collect();
                ids.dedup();
                expected.extend(ids);
            }
            let got: Vec<_> = walk
                .map(|i| {
                    let k = (i - first) / stride;
                    assert!(i - first - k * stride < span, "{i} outside the runs");
                    (k, line_of(i))
                })
                .collect();
            assert_eq!(got, expected, "runs {first} + k * {stride}, {span} long, skew {skew}");
        }
    }
}

/// Enough cache lines per block to finish the walk within the first half of the tile.
#[test]
fn line_walk_finishes_in_half_the_blocks() {
    let lines = Lines { first: 0, stride: 64, count: 1024, span: 64 };
    let buf = [0f32; 1];
    let walk = LineWalk::new::<f32>(lines, 1024, buf.as_ptr() as usize);
    let total = LineWalk::new::<f32>(lines, 1024, buf.as_ptr() as usize).count();
    assert!(walk.per_block * 512 >= total, "{} per block, {total} lines", walk.per_block);
}

/// Planes of every element size through [`transpose`] with the strips of every level this CPU
/// has (a level it lacks prints SKIPPED; AVX-512's in the forms of both vendors' cores), both
/// store kinds and none, against the definition:
/// odd shapes (rows of half a line to a line among them: tall strips), padded and dense
/// strides, misaligned and line-aligned starts; elements outside the plane stay untouched.
#[test]
fn strips_of_every_level_transpose_planes_like_the_definition() {
    use crate::platform::simd::{strips::Cores, Level, Stores};
    let mut planes = 0;
    for level in Level::ALL {
        if !level.available() {
            println!("SKIPPED: {level:?}: this CPU's highest level is {:?}", Level::detected());
            continue;
        }
        // Streamed with the source in memory (any size from the threshold of a cached source
        // on) and in the last-level cache (size 0).
        for (stores, bytes) in
            [(Stores::Ordinary, 0), (Stores::Streaming, usize::MAX), (Stores::Streaming, 0)]
        {
            // The forms of both vendors' cores, whichever this CPU's vendor takes (they differ
            // at AVX-512 only).
            for cores in Cores::ALL.into_iter().filter(|&c| level == Level::Avx512 || c == Cores::Intel) {
                let strips = |size| {
                    Strips::new(level, stores, size).map(|s| s.with_cached_source(bytes).for_cores(cores))
                };
                planes += check_planes::<u8>(strips(1));
                planes += check_planes::<half::f16>(strips(2));
                planes += check_planes::<f32>(strips(4));
                planes += check_planes::<f64>(strips(8));
            }
        }
    }
    assert!(planes > 0);
}

fn check_planes<T: Element>(strips: Option<Strips>) -> usize {
    let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 9;
    let fill = T::from_word(u64::MAX);
    let mut planes = 0;
    for (rows, cols) in
        [(1, 1), (7, 9), (16, 16), (17, 65), (64, 64), (65, 130), (130, 67), (200, 300), (100, 192)]
            .into_iter()
            // Rows of half a line to a line: tall strips (u8 32..64, f16 16..32, f32 8..16, f64 4..8).
            .chain([(100, 32), (130, 40), (67, 16), (64, 20), (70, 8), (65, 12), (64, 4), (80, 6)])
            // Many destination rows: whole-row bands in cache, long or of a few strips, and
            // streamed where few source runs make rows of whole lines (64 with a cached source,
            // f16 to f64; 32, f16 to f64; 16, f32 and f64).
            .chain([(260, 300), (300, 257), (400, 64), (300, 48), (300, 32), (260, 16)])
            // Dense rows of whole lines starting inside one, streamed: their seams (the lines
            // across two rows) go in more than one staged chunk (rows of two lines or more:
            // 16 columns for f64, 64 for f16 to f64).
            .chain([(2100, 16), (1100, 64)])
    {
        // Padded destination rows of whole lines, too: strided streamed rows, and columns
        // before the first line when the start is not on one.
        for (src_pad, dst_pad) in [(0, 0), (3, 5), (1, 64 / T::SIZE)] {
            let (src_stride, dst_stride) = (rows + src_pad, cols + dst_pad);
            let src: Vec<T> = (0..cols * src_stride + 8).map(|i| T::from_word(bits(i))).collect();
            let mut dst = vec![fill; rows * dst_stride + 128];
            let aligned = dst.as_ptr().align_offset(64).min(64);
            for (s, d) in [(0, 0), (1, 3), (5, 1), (2, aligned)] {
                transposes_like_the_definition(
                    &src,
                    &mut dst,
                    (s, d),
                    (rows, cols),
                    (src_stride, dst_stride),
                    strips,
                );
                planes += 1;
            }
        }
    }
    planes
}

/// Fills `dst` with all-ones elements, transposes the `rows` × `cols` plane at `s` in `src` (the
/// columns `src_stride` apart) to `d` in `dst` (the rows `dst_stride` apart) with `strips`, and
/// asserts every element of `dst` against the definition: the plane's own, and the fill
/// elsewhere.
pub(super) fn transposes_like_the_definition<T: Element>(
    src: &[T],
    dst: &mut [T],
    (s, d): (usize, usize),
    (rows, cols): (usize, usize),
    (src_stride, dst_stride): (usize, usize),
    strips: Option<Strips>,
) {
    let fill = T::from_word(u64::MAX);
    dst.iter_mut().for_each(|v| *v = fill);
    let r = LoopAxis { extent: rows, src: 1, dst: dst_stride as isize };
    let c = LoopAxis { extent: cols, src: src_stride as isize, dst: 1 };
    transpose(src, s as isize, Out::new(dst), d as isize, r, c, strips);
    for (i, v) in dst.iter().enumerate() {
        let (row, col) = (i.wrapping_sub(d) / dst_stride, i.wrapping_sub(d) % dst_stride);
        let inside = i >= d && row < rows && col < cols;
        let expected = if inside { src[s + col * src_stride + row] } else { fill };
        assert_eq!(
            v.to_word(),
            expected.to_word(),
            "{strips:?} size {} plane {rows}×{cols} strides ({src_stride}, {dst_stride}) from {s} to {d}: at {i}",
            T::SIZE
        );
    }
}

/// Planes whose destination rows lie a multiple of 4 KiB apart and whose source runs are near
/// (an NCHW image of 6144 pixels of f16 from NHWC: AVX-512's and AVX2's gathered-lane strips
/// take halves there, two strips at a time), every element size, through every level this CPU has, against
/// the definition: whole and ragged strips both ways, an odd count of strips in a band, starts
/// on a line and off it; elements outside the plane stay untouched.
#[test]
fn page_strided_rows_transpose_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(level: Level) {
        let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
        let fill = T::from_word(u64::MAX);
        let dst_stride = 3 * (4 << 10) / T::SIZE;
        for (rows, cols, src_stride) in
            [(64, dst_stride, 64), (45, dst_stride - 37, 48), (45, dst_stride - 69, 48)]
        {
            let src: Vec<T> = (0..cols * src_stride + 8).map(|i| T::from_word(bits(i))).collect();
            let mut dst = vec![fill; rows * dst_stride + 64];
            let aligned = dst.as_ptr().align_offset(64).min(64);
            let strips = Strips::new(level, Stores::Ordinary, T::SIZE);
            for (s, d) in [(0, aligned), (3, 1)] {
                transposes_like_the_definition(
                    &src,
                    &mut dst,
                    (s, d),
                    (rows, cols),
                    (src_stride, dst_stride),
                    strips,
                );
            }
        }
    }
    at_every_level!(check);
}

/// A square plane whose both sides' streams are far apart (strides past 2 KiB), streamed: the
/// strips sweep the source's runs instead of square tiles (AVX2's piped tiles take the whole
/// tiles: `piped`). Every level this CPU has, against the definition; and a rectangle from off
/// a line to 5 elements past one, whose elements around the plane stay untouched.
#[test]
fn streamed_square_planes_transpose_like_the_definition() {
    use crate::platform::simd::{Level, Stores};
    fn check<T: Element>(level: Level) {
        let n = 4096 / T::SIZE;
        // Strides past 4 KiB: edges ragged, or whole lines (so rows can be streamed).
        for n in [n + 37, n + 64] {
            check_square::<T>(level, n);
        }
        let (rows, cols) = (n + 69, n + 100); // rows below the last whole tile too
        let (src_stride, dst_stride) = (rows + 3, cols.next_multiple_of(64 / T::SIZE));
        let src: Vec<T> = (0..cols * src_stride + 8).map(|i| T::from_word(i as u64 * 7 + 3)).collect();
        let mut dst = vec![T::from_word(u64::MAX); rows * dst_stride + 128];
        let aligned = dst.as_ptr().align_offset(64).min(64);
        let strips = Strips::new(level, Stores::Streaming, T::SIZE);
        transposes_like_the_definition(
            &src,
            &mut dst,
            (3, aligned + 5),
            (rows, cols),
            (src_stride, dst_stride),
            strips,
        );
    }
    fn check_square<T: Element>(level: Level, n: usize) {
        let src: Vec<T> = (0..n * n).map(|i| T::from_word(i as u64 * 7 + 3)).collect();
        let mut dst = vec![T::from_word(u64::MAX); n * n];
        let axis = |src, dst| LoopAxis { extent: n, src, dst };
        let strips = Strips::new(level, Stores::Streaming, T::SIZE);
        transpose(&src, 0, Out::new(&mut dst), 0, axis(1, n as isize), axis(n as isize, 1), strips);
        for r in 0..n {
            for c in 0..n {
                assert_eq!(
                    dst[r * n + c].to_word(),
                    src[c * n + r].to_word(),
                    "{level:?} size {} at ({r}, {c})",
                    T::SIZE
                );
            }
        }
    }
    at_every_level!(check);
}

/// Which streamed planes AVX2's piped tiles take: large matrices into columns (both strides far)
/// of 1, 2 and 4 bytes with destination rows of whole lines; not in cache, not f64, not rows
/// that are not whole lines, not near source runs (NHWC→NCHW), not another level's strips.
#[test]
fn streamed_matrices_take_piped_tiles() {
    use super::piped::takes_piped_tiles;
    use crate::platform::simd::Stores;
    fn check<T: Element>() {
        let streamed = Strips::new(Level::Avx2, Stores::Streaming, T::SIZE).expect("AVX2 strips");
        let takes = |src_stride: usize, dst_stride: usize, strips: Strips| {
            let r = LoopAxis { extent: 4096, src: 1, dst: dst_stride as isize };
            let c = LoopAxis { extent: 4096, src: src_stride as isize, dst: 1 };
            takes_piped_tiles::<T>(r, c, strips)
        };
        let (n, size) = (4096 * 4 / T::SIZE, T::SIZE);
        assert_eq!(takes(n, n, streamed), size <= 4, "a matrix, size {size}");
        assert_eq!(takes(n + 3, n, streamed), size <= 4, "source runs padded, size {size}");
        assert!(!takes(n, n + 1, streamed), "rows not whole lines, size {size}");
        assert!(!takes(n, n, streamed.with_stores(Stores::Ordinary)), "in cache, size {size}");
        assert!(!takes(64, n, streamed), "near runs, size {size}");
        for level in [Level::Sse2, Level::Avx512] {
            if let Some(strips) = Strips::new(level, Stores::Streaming, T::SIZE) {
                assert!(!takes(n, n, strips), "{level:?}, size {size}");
            }
        }
    }
    if !Level::Avx2.available() {
        println!("SKIPPED: AVX2 has the piped tiles; this CPU's highest level is {:?}", Level::detected());
        return;
    }
    check::<u8>();
    check::<half::f16>();
    check::<f32>();
    check::<f64>();
}
