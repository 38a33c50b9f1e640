//! The staged ways against the definition, and which planes take them: source runs the caches
//! cannot hold together ([`by_staged_source`]), and streamed panels of narrow rows
//! ([`by_panels`]).

use super::super::*;
use super::transposes_like_the_definition;
use crate::platform::simd::Level;

/// Planes of many source runs far apart in memory, streamed (NCHW→NHWC's channel planes): bytes
/// stage the source panel by panel, where their strips read more runs than the L2 streamer
/// follows. Bytes and halves (which read in place) at every level this CPU has, against the
/// definition: 64 and 100 runs 64 KiB apart, rows past a panel and ragged, destination rows of
/// whole lines and padded ones, starts on a line and off it.
#[test]
fn far_runs_stage_the_source_like_the_definition() {
    use crate::platform::simd::{Level, Stores};
    fn check<T: Element>(level: Level) {
        let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 13;
        let src_stride = (64 << 10) / T::SIZE + 3;
        let strips = Strips::new(level, Stores::Streaming, T::SIZE);
        for (rows, cols) in [(2 * 960 + 37, 64usize), (1000, 100)] {
            let dst_stride = cols.next_multiple_of(64 / T::SIZE);
            let src: Vec<T> = (0..cols * src_stride + 8).map(|i| T::from_word(bits(i))).collect();
            let mut dst = vec![T::from_word(0); rows * dst_stride + 128];
            let aligned = dst.as_ptr().align_offset(64).min(64);
            for (s, d) in [(0, aligned), (5, 1)] {
                let shape = ((rows, cols), (src_stride, dst_stride));
                transposes_like_the_definition(&src, &mut dst, (s, d), shape.0, shape.1, strips);
            }
        }
    }
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        check::<u8>(level);
        check::<half::f16>(level);
    }
}

/// Planes in cache whose source runs lie a multiple of 4 KiB apart (NCHW's channel planes of
/// 4096 or 8192 bytes into NHWC): AVX2 stages the source panel by panel ([`by_staged_source`]),
/// AVX-512 copies each pair of neighbouring byte strips' source lines into a tile first,
/// pairing strips along a band or from band to band (tall strips, for rows of 32 to 64 bytes,
/// read in place there). Every element size at every level this CPU has, against the
/// definition: 64 and 128 runs (one band a strip wide, and bands of several strips), ragged
/// runs and rows (an odd last strip alone), rows past a panel, tall rows, destination rows
/// padded, starts on a line and off it; elements outside the plane stay untouched.
#[test]
fn page_strided_runs_transpose_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(level: Level) {
        let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 17;
        let strips = Strips::new(level, Stores::Ordinary, T::SIZE);
        let page = 4096 / T::SIZE;
        for (rows, cols, src_stride, dst_pad) in [
            (page, 64, page, 0),
            (page - 32, 64, page, 0),
            (page - 91, 100, page, 3),
            (1000, 128, 2 * page, 64),
            (96, 64, page, 0),
            // Destination rows of half a line to a line: tall strips.
            (page, 32 / T::SIZE, page, 0),
            (1000 + 3, 48 / T::SIZE, 2 * page, 5),
        ] {
            let dst_stride = cols + dst_pad;
            let src: Vec<T> = (0..cols * src_stride + 64).map(|i| T::from_word(bits(i))).collect();
            let mut dst = vec![T::from_word(0); rows * dst_stride + 128];
            let aligned = dst.as_ptr().align_offset(64).min(64);
            for (s, d) in [(0, aligned), (7, 1)] {
                let shape = ((rows, cols), (src_stride, dst_stride));
                transposes_like_the_definition(&src, &mut dst, (s, d), shape.0, shape.1, strips);
            }
        }
    }
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        check::<u8>(level);
        check::<half::f16>(level);
        check::<f32>(level);
        check::<f64>(level);
    }
}

/// Which in-cache planes AVX2 stages ([`by_staged_source`] takes them): more source runs than
/// an L1 set has ways, all in one set (a multiple of 4 KiB apart); not runs that spread over a
/// few sets (1 or 2 KiB apart), nor 8 runs, nor a streamed plane of near runs. Streamed with
/// the source in the last-level cache, only up to 64 runs into rows of whole lines. Taken, the
/// plane is transposed like the definition (and nothing else is written).
#[test]
fn in_cache_planes_stage_runs_that_share_one_l1_set() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(strips: Strips, streamed: Strips) {
        let page = 4096 / T::SIZE;
        let takes = |cols: usize, src_stride: usize, strips: Strips| {
            let rows = 2 * page + 5;
            let src: Vec<T> = (0..cols * src_stride + rows).map(|i| T::from_word(i as u64 * 7 + 1)).collect();
            let mut dst = vec![T::from_word(0); rows * cols + 64];
            let d = dst.as_ptr().align_offset(64).min(64);
            let r = LoopAxis { extent: rows, src: 1, dst: cols as isize };
            let c = LoopAxis { extent: cols, src: src_stride as isize, dst: 1 };
            let taken = by_staged_source(&src, 3, Out::new(&mut dst), d, r, c, strips);
            let outside = dst[..d].iter().chain(&dst[d + rows * cols..]);
            assert!(outside.into_iter().all(|v| v.to_word() == 0), "written outside the plane");
            if taken {
                for (i, v) in dst[d..d + rows * cols].iter().enumerate() {
                    let (row, col) = (i / cols, i % cols);
                    assert_eq!(
                        v.to_word(),
                        src[3 + col * src_stride + row].to_word(),
                        "size {} at {i}",
                        T::SIZE
                    );
                }
            }
            taken
        };
        let many = 64 / T::SIZE;
        assert!(takes(many, page, strips), "{many} runs 4 KiB apart, size {}", T::SIZE);
        assert!(takes(many, 2 * page, strips), "{many} runs 8 KiB apart, size {}", T::SIZE);
        assert!(!takes(many, page / 2, strips), "runs 2 KiB apart, size {}", T::SIZE);
        assert!(!takes(many, page / 4, strips), "runs 1 KiB apart, size {}", T::SIZE);
        assert!(!takes(8, page, strips), "8 runs, size {}", T::SIZE);
        assert!(!takes(many, page + 16, streamed), "streamed near runs, size {}", T::SIZE);
        // Streamed from the last-level cache: staged into rows of whole lines only.
        let from_l3 = streamed.with_cached_source(0);
        assert!(takes(many, page, from_l3), "streamed from L3, size {}", T::SIZE);
        assert!(!takes(many / 2, page, from_l3), "streamed from L3 into half lines, size {}", T::SIZE);
        assert!(!takes(128, page, from_l3), "streamed from L3, 128 runs, size {}", T::SIZE);
        assert!(
            !takes(many, page, streamed.with_cached_source(1 << 40)),
            "streamed from memory, size {}",
            T::SIZE
        );
    }
    if !Level::Avx2.available() {
        println!("SKIPPED: AVX2 stages in-cache runs; this CPU's highest level is {:?}", Level::detected());
        return;
    }
    let at = |stores, size| Strips::new(Level::Avx2, stores, size).expect("AVX2 strips");
    check::<u8>(at(Stores::Ordinary, 1), at(Stores::Streaming, 1));
    check::<half::f16>(at(Stores::Ordinary, 2), at(Stores::Streaming, 2));
    check::<f32>(at(Stores::Ordinary, 4), at(Stores::Streaming, 4));
}

/// Which streamed planes of dense narrow rows stage panels ([`by_panels`] takes them) and which
/// go to the strips: rows up to 1 KiB that share lines, or do not start on one, stage; rows of
/// whole lines or of half a line starting on one (tall strips), and longer rows, do not.
#[test]
fn streamed_planes_stage_panels_only_for_rows_that_share_lines() {
    use crate::platform::simd::{Level, Stores};
    let Some(strips) = Strips::new(Level::detected(), Stores::Streaming, 4).filter(|s| s.has_blocks()) else {
        println!("SKIPPED: no streaming strips on this CPU ({:?})", Level::detected());
        return;
    };
    let (n, tall) = (64, strips.tall()); // pixels; tall strips from AVX2 on
    let takes = |c: usize, misaligned: usize| {
        let src = vec![1.0f32; c * n];
        let mut dst = vec![0.0f32; c * n + 32];
        let d = dst.as_ptr().align_offset(64) + misaligned;
        let rows = LoopAxis { extent: n, src: 1, dst: c as isize };
        let cols = LoopAxis { extent: c, src: n as isize, dst: 1 };
        let taken = by_panels(&src, 0, Out::new(&mut dst), d, rows, cols, strips);
        // Taken or not, nothing is written outside the plane; taken, all of it is written.
        assert!(dst[..d].iter().chain(&dst[d + c * n..]).all(|&v| v == 0.0));
        if taken {
            assert!(dst[d..d + c * n].iter().all(|&v| v == 1.0), "C = {c}");
        }
        taken
    };
    for (c, misaligned, staged) in [
        (3, 0, true),           // 12-byte rows
        (8, 0, tall.is_none()), // half a line, on a line: tall strips, two rows a line
        (8, 1, true),           // half a line, off a line
        (12, 0, true),          // 48-byte rows
        (16, 0, false),         // one line, on a line
        (16, 1, true),          // one line, off a line
        (32, 0, false),         // two lines
        (40, 0, true),          // 2.5 lines
        (256, 0, false),        // 1 KiB of whole lines
        (300, 0, false),        // past 1 KiB
    ] {
        assert_eq!(takes(c, misaligned), staged, "C = {c}, {misaligned} off a line");
    }
}
