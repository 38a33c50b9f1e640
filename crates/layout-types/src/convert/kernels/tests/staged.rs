//! The staged ways against the definition, and which planes take them: source runs the caches
//! cannot hold together ([`by_staged_source`]), streamed panels of narrow rows
//! ([`by_panels`]) and tiles of long ones ([`by_staged_tiles`]).

use super::super::staged::{staged_runs, staged_tiles, with_far_panel, StagedRuns, FAR_PANEL_BYTES};
use super::super::strip_sweep::WIDE_PLANE;
use super::super::*;
use super::transposes_like_the_definition;
use crate::platform::simd::{strips::Cores, Level};

/// A plane's shape and strides: `((rows, cols), (src_stride, dst_stride))`.
type Plane = ((usize, usize), (usize, usize));

/// Each plane `((rows, cols), (src_stride, dst_stride))` transposed with `strips` against the
/// definition ([`transposes_like_the_definition`]), from hashed source values: from the
/// source's start into a destination starting on a line, and from 7 elements in to 1 (off a
/// line).
fn planes_like_the_definition<T: Element>(strips: Option<Strips>, planes: &[Plane]) {
    let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 13;
    for &((rows, cols), (src_stride, dst_stride)) in planes {
        let src: Vec<T> = (0..cols * src_stride + 64).map(|i| T::from_word(bits(i))).collect();
        let mut dst = vec![T::from_word(0); rows * dst_stride + 128];
        let aligned = dst.as_ptr().align_offset(64).min(64);
        for (s, d) in [(0, aligned), (7, 1)] {
            let shape = ((rows, cols), (src_stride, dst_stride));
            transposes_like_the_definition(&src, &mut dst, (s, d), shape.0, shape.1, strips);
        }
    }
}

/// Planes of many source runs far apart in memory, streamed (NCHW→NHWC's channel planes): the
/// source is staged panel by panel where the strips read more runs than the prefetchers follow
/// (`Strips::streamed_runs`: bytes, and at AVX2 halves), or read in place (AVX2 on AMD's cores,
/// runs that start on lines: `Strips::stages_far_runs`). Bytes and halves at every level this
/// CPU has, in both vendors' forms, against the definition: 64 and 100 runs 64 KiB apart and
/// 64 KiB and 3 elements apart, rows past a panel and ragged, destination rows of whole lines
/// and padded ones; and dense rows of half a line (NC/32HW32's of int8, tall strips); starts
/// on a line and off it.
#[test]
fn far_runs_stage_the_source_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(level: Level) {
        for src_stride in [(64 << 10) / T::SIZE + 3, (64 << 10) / T::SIZE] {
            for cores in Cores::ALL {
                let strips = Strips::new(level, Stores::Streaming, T::SIZE).map(|s| s.for_cores(cores));
                // Past two 256 KiB panels' rows (3968 of each u8 run a panel, 4032 of each f16
                // run), ragged; and four lines of runs and more (the
                // destination rows long enough for staged tiles, which decline such far runs).
                let wide = 4 * 64 / T::SIZE + 4;
                let planes = [(2 * 4032 + 37, 64usize), (1000, 100), (300, wide)]
                    .map(|(rows, cols)| ((rows, cols), (src_stride, cols.next_multiple_of(64 / T::SIZE))));
                planes_like_the_definition::<T>(strips, &planes);
                let half_line = 32 / T::SIZE;
                // Dense half-line rows: 8064 of each u8 run a panel.
                let dense = ((2 * 8064 + 37, half_line), (src_stride, half_line));
                planes_like_the_definition::<T>(strips, &[dense]);
            }
        }
    }
    at_every_level!(check: u8, half::f16);
}

/// Which streamed planes the strips sweep in whole-row bands by their count of source runs: from
/// memory at most 16 at AVX2 (32 at AVX-512), from the last-level cache at most 64.
#[test]
fn streamed_planes_of_few_runs_go_in_whole_row_bands() {
    use super::super::strip_sweep::few_streamed_runs;
    use crate::platform::simd::Stores;
    for (level, from_memory) in [(Level::Avx2, 16), (Level::Avx512, 32)] {
        let Some(strips) = Strips::new(level, Stores::Streaming, 4) else {
            println!("SKIPPED: {level:?}: this CPU's highest level is {:?}", Level::detected());
            continue;
        };
        let (memory, l3) = (strips.with_cached_source(1 << 40), strips.with_cached_source(0));
        assert!(few_streamed_runs(memory, from_memory), "{level:?}: {from_memory} runs from memory");
        assert!(!few_streamed_runs(memory, from_memory + 1), "{level:?}: more runs from memory");
        assert!(few_streamed_runs(l3, 64) && !few_streamed_runs(l3, 65), "{level:?}: from L3");
    }
}

/// The far runs' panel: line-aligned and whole, and lent again (a new one) while it is lent.
#[test]
fn far_panels_are_aligned_whole_and_lent_while_lent() {
    let mut calls = 0;
    with_far_panel(|outer| {
        let at = outer.as_ptr() as usize;
        assert_eq!((outer.len(), at % CACHE_LINE), (FAR_PANEL_BYTES, 0));
        outer.fill(7);
        with_far_panel(|inner| {
            let inner_at = inner.as_ptr() as usize;
            assert_eq!((inner.len(), inner_at % CACHE_LINE), (FAR_PANEL_BYTES, 0));
            assert_ne!(inner_at, at, "the lent panel lent twice");
            calls += 1;
        });
        assert!(outer.iter().all(|&b| b == 7), "the lent panel written by another");
        calls += 1;
    });
    assert_eq!(calls, 2, "each call ran once");
}

/// Streamed planes of long destination rows (NHWC→NCHW's channel planes), whose bytes and
/// halves go through staged tiles (and at AVX2 every size whose tiles' sources are contiguous):
/// a tile's source one contiguous block (all the plane's rows,
/// back to back, the next one prefetched at AVX2) or not (padded runs; more rows than a tile), tiles
/// ragged at the end, destination rows padded, starts on a line and off it; every element size
/// at every level this CPU has, against the definition.
#[test]
fn staged_tiles_transpose_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(level: Level) {
        let strips = Strips::new(level, Stores::Streaming, T::SIZE).map(|s| s.with_cached_source(usize::MAX));
        let planes = [(64, 3000, 0), (48, 2 * 1024 + 100, 0), (64, 1500, 3), (100, 1300, 0)]
            .map(|(rows, cols, src_pad)| ((rows, cols), (rows + src_pad, cols + 64 / T::SIZE)));
        planes_like_the_definition::<T>(strips, &planes);
    }
    at_every_level!(check);
}

/// Which streamed planes of long destination rows AVX2 takes through staged tiles
/// ([`staged_tiles`]), and which of those prefetch: a tile's source one contiguous block (64
/// channels of pixels, or fewer), every element size, prefetched; padded runs or more rows than
/// a tile: bytes and halves only (f32 and f64 stream their strips directly), prefetched where
/// the runs lie at most 256 bytes apart (halves wherever taken); not in cache, not narrow
/// planes, not a large square matrix, not runs a page or more apart (NCHW's channel planes into
/// NHWC; halves' two pages).
#[test]
fn streamed_planes_take_staged_tiles() {
    use crate::platform::simd::Stores;
    fn check<T: Element>() {
        let streamed = Strips::new(Level::Avx2, Stores::Streaming, T::SIZE).expect("AVX2 strips");
        let in_cache = streamed.with_stores(Stores::Ordinary);
        let line = 64 / T::SIZE;
        let takes = |rows: usize, cols: usize, src_stride: usize, dst_stride: usize, strips| {
            let r = LoopAxis { extent: rows, src: 1, dst: dst_stride as isize };
            let c = LoopAxis { extent: cols, src: src_stride as isize, dst: 1 };
            staged_tiles::<T>(r, c, strips)
        };
        let (size, halves) = (T::SIZE, T::SIZE <= 2);
        let cols = 3000;
        assert_eq!(takes(64, cols, 64, cols, streamed), Some(true), "64 rows, size {size}");
        assert_eq!(takes(48, cols, 48, cols, streamed), Some(true), "48 rows, size {size}");
        assert_eq!(takes(64, cols, 67, cols, streamed), halves.then_some(true), "padded, size {size}");
        assert_eq!(takes(128, cols, 128, cols, streamed), halves.then_some(true), "128 rows, size {size}");
        let far = 320 / T::SIZE; // 320 bytes apart
        assert_eq!(
            takes(64, cols, far, cols, streamed),
            halves.then_some(size == 2),
            "far runs, size {size}"
        );
        // Channel planes into pixels of four lines (NCHW→NHWC): runs just under a page apart
        // take the tiles, a page apart and more do not.
        let (page, under, channels) = (4096 / T::SIZE, (4096 - 64) / T::SIZE, 4 * line);
        let pixels = |stride| takes(4096, channels, stride, channels, streamed);
        assert_eq!(pixels(under), halves.then_some(size == 2), "planes 4032 B apart, size {size}");
        // AVX2's halves take runs up to two pages apart.
        assert_eq!(pixels(page), (size == 2).then_some(true), "planes a page apart, size {size}");
        assert_eq!(pixels(2 * page), None, "planes two pages apart, size {size}");
        assert_eq!(pixels(64 * page), None, "planes 256 KiB apart, size {size}");
        assert_eq!(takes(64, cols, 64, cols, in_cache), None, "in cache, size {size}");
        assert_eq!(takes(64, 4 * line - 1, 64, cols, streamed), None, "narrow, size {size}");
        let square = 4096 * 4 / T::SIZE;
        assert_eq!(takes(square, square, square, square, streamed), None, "square, size {size}");
    }
    if !Level::Avx2.available() {
        println!("SKIPPED: AVX2 chooses these tiles; this CPU's highest level is {:?}", Level::detected());
        return;
    }
    check::<u8>();
    check::<half::f16>();
    check::<f32>();
    check::<f64>();
}

/// Planes in cache whose source runs lie a multiple of 4 KiB apart (NCHW's channel planes of
/// 4096 or 8192 bytes into NHWC), or 2 KiB: AVX2 stages the source panel by panel
/// ([`by_staged_source`]) but for its bytes, halves and words on AMD's cores, which read the
/// runs through tiles as AVX-512 does; AVX-512 on AMD's cores copies the strips' source lines into
/// tiles first, four lines of each
/// run at once where the band has them, then one (byte strips two to a line), along a band or
/// from band to band (tall strips, for rows of 32 to 64 bytes: in place for 2 bytes and more,
/// bytes staged as at AVX2); on Intel's both read them in place (byte strips that are not tall
/// pair through tiles on both). Every element size at every level this CPU has, in both vendors' forms,
/// against the definition: 64 and 128 runs (one band a strip wide,
/// and bands of several strips), ragged runs and rows (an odd last strip alone), rows past a
/// panel, tall rows, destination rows padded, starts on a line and off it; elements outside
/// the plane stay untouched.
#[test]
fn page_strided_runs_transpose_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>(level: Level) {
        let strips = Strips::new(level, Stores::Ordinary, T::SIZE);
        let page = 4096 / T::SIZE;
        let planes = [
            (page, 64, page, 0),
            (page - 32, 64, page, 0),
            (page - 91, 100, page, 3),
            (1000, 128, 2 * page, 64),
            (96, 64, page, 0),
            // Runs 2 KiB apart (or an odd multiple): AVX2's halves on AMD's cores read them
            // through tiles too.
            (page / 2, 64, page / 2, 0),
            (page / 2 - 13, 100, 3 * page / 2, 3),
            // Destination rows of half a line to a line: tall strips.
            (page, 32 / T::SIZE, page, 0),
            (1000 + 3, 48 / T::SIZE, 2 * page, 5),
        ]
        .map(|(rows, cols, src_stride, dst_pad)| ((rows, cols), (src_stride, cols + dst_pad)));
        for cores in Cores::ALL {
            planes_like_the_definition::<T>(strips.map(|s| s.for_cores(cores)), &planes);
        }
    }
    at_every_level!(check);
}

/// Which planes AVX2 stages because their source runs share one L1 set ([`staged_runs`]), each
/// condition failing alone: runs a multiple of 4 KiB apart (not 2 KiB, not a broadcast), at
/// least a strip's columns of them, a destination starting on a line, [`WIDE_PLANE`] rows; in
/// cache, or streamed from the last-level cache into rows of whole lines with at most 64 runs
/// (not a cached plane with ordinary stores, as `by_panels`' inner strips, nor one from
/// memory). And far runs from memory, where a strip reads more than 16 of them: bytes and
/// halves, into rows of whole lines, and bytes into dense rows of half a line (tall strips of
/// 32 runs); not f32, whose strips read 16 (at AVX-512, bytes only, in the strips' whole-line
/// form only: Intel's cores). At AVX-512 in cache, tall byte strips' runs in one L1 set only,
/// on AMD's cores only.
#[test]
fn planes_stage_runs_that_share_one_l1_set() {
    use crate::platform::simd::Stores;
    fn check<T: Element>() {
        // Intel's cores: AMD's read these runs through tiles in cache where the strips are not
        // tall and of 1, 2 or 4 bytes (checked below).
        let strips =
            |stores| Strips::new(Level::Avx2, stores, T::SIZE).expect("AVX2 strips").for_cores(Cores::Intel);
        let (in_cache, streamed) = (strips(Stores::Ordinary), strips(Stores::Streaming));
        let from_l3 = streamed.with_cached_source(0);
        let from_memory = streamed.with_cached_source(1 << 40);
        let (page, many, line) = (4096 / T::SIZE, 64 / T::SIZE, 64);
        let fewest = in_cache.tall().expect("AVX2 has tall strips").cols();
        let why = |to: usize, rows: usize, runs: usize, src_stride: isize, dst_stride: usize, strips| {
            let r = LoopAxis { extent: rows, src: 1, dst: dst_stride as isize };
            let c = LoopAxis { extent: runs, src: src_stride, dst: 1 };
            staged_runs::<T>([0, to], r, c, strips)
        };
        let size = T::SIZE;
        let (rows, stride) = (2 * page + 5, page as isize);
        let one_set = Some(StagedRuns::OneL1Set);
        assert_eq!(why(line, rows, many, stride, many, in_cache), one_set, "size {size}");
        assert_eq!(why(line, rows, many, 2 * stride, many, in_cache), one_set, "8 KiB, size {size}");
        // A tall strip's runs (32 bytes' worth), staged where they overfill an 8-way set.
        let tall = (fewest > 8).then_some(StagedRuns::OneL1Set);
        assert_eq!(why(line, rows, fewest, stride, fewest, in_cache), tall, "tall, size {size}");
        assert_eq!(why(line, rows, many, stride / 2, many, in_cache), None, "2 KiB, size {size}");
        assert_eq!(why(line, rows, many, 0, many, in_cache), None, "broadcast, size {size}");
        assert_eq!(why(line, rows, fewest - 1, stride, many, in_cache), None, "too few runs, size {size}");
        assert_eq!(why(line + T::SIZE, rows, many, stride, many, in_cache), None, "off a line, size {size}");
        assert_eq!(why(line, WIDE_PLANE - 1, many, stride, many, in_cache), None, "short plane, size {size}");
        assert_eq!(
            why(line, rows, many, stride + 16, many, streamed),
            None,
            "near runs streamed, size {size}"
        );
        assert_eq!(why(line, rows, many, stride, many, from_l3), one_set, "from L3, size {size}");
        assert_eq!(why(line, rows, many, stride, many / 2, from_l3), None, "half lines, size {size}");
        assert_eq!(why(line, rows, 128, stride, 128, from_l3), None, "128 runs from L3, size {size}");
        assert_eq!(why(line, rows, many, stride, many, from_memory), None, "from memory, size {size}");
        let panels = from_l3.with_stores(Stores::Ordinary);
        assert_eq!(why(line, rows, many, stride, many, panels), None, "cached, ordinary, size {size}");
        let far = why(line, rows, 64, (64 << 10) / T::SIZE as isize, many.max(64), from_memory);
        assert_eq!(far, (size <= 2).then_some(StagedRuns::FarInMemory), "far runs, size {size}");
        let half_line = 32 / size;
        let far_tall = why(line, rows, half_line, (64 << 10) / T::SIZE as isize, half_line, from_memory);
        assert_eq!(far_tall, (size == 1).then_some(StagedRuns::FarInMemory), "far runs, tall, size {size}");
        let too_few = why(line, rows, half_line - 1, (64 << 10) / T::SIZE as isize, half_line, from_memory);
        assert_eq!(too_few, None, "far runs, fewer than a tall strip's, size {size}");
        let off_line =
            why(line + size, rows, half_line, (64 << 10) / T::SIZE as isize, half_line, from_memory);
        assert_eq!(off_line, None, "far runs, half lines off a line, size {size}");
        // On AMD's cores, AVX2's strips read far runs in place where they start on lines: staged
        // only where the runs' stride or the first run's start is off a line.
        let amd_far = |from: usize, stride: isize| {
            let c = LoopAxis { extent: 64, src: stride, dst: 1 };
            let r = LoopAxis { extent: rows, src: 1, dst: many.max(64) as isize };
            staged_runs::<T>([from, line], r, c, from_memory.for_cores(Cores::Amd))
        };
        let far_stride = (64 << 10) / T::SIZE as isize;
        let off = (size <= 2).then_some(StagedRuns::FarInMemory);
        assert_eq!(amd_far(0, far_stride), None, "far runs on lines, AMD's cores, size {size}");
        assert_eq!(amd_far(0, far_stride + 3), off, "far runs, stride off lines, AMD's cores, size {size}");
        assert_eq!(amd_far(size, far_stride), off, "far runs, start off a line, AMD's cores, size {size}");
        // On AMD's cores, AVX2's in-cache strips of 1, 2 and 4 bytes read such runs through tiles
        // instead (not staged), tall ones too where their runs overfill the set (bytes' 32,
        // f16's 16; f32's 8 read in place); the streamed ones from L3 stay staged (these read
        // tiles too, through `by_staged_source`).
        let amd = |strips: Strips| strips.for_cores(Cores::Amd);
        let tiles = matches!(size, 1 | 2 | 4);
        let got = why(line, rows, many, stride, many, amd(in_cache));
        assert_eq!(got, (!tiles).then_some(StagedRuns::OneL1Set), "AMD's cores, in cache, size {size}");
        assert_eq!(
            why(line, rows, fewest, stride, fewest, amd(in_cache)),
            None,
            "AMD's cores, tall, size {size}"
        );
        assert_eq!(
            why(line, rows, many, stride, many, amd(from_l3)),
            one_set,
            "AMD's cores, from L3, size {size}"
        );
        // AVX-512's strips stage far runs in their whole-line form (Intel's cores) only.
        if let Some(avx512) = Strips::new(Level::Avx512, Stores::Streaming, size) {
            let from_memory = avx512.with_cached_source(1 << 40);
            for cores in Cores::ALL {
                let strips = from_memory.for_cores(cores);
                let far = why(line, rows, 64, (64 << 10) / T::SIZE as isize, many.max(64), strips);
                let staged = (size == 1 && cores == Cores::Intel).then_some(StagedRuns::FarInMemory);
                assert_eq!(far, staged, "far runs at AVX-512, {cores:?}'s cores, size {size}");
            }
            // In cache, AVX-512's strips stage runs in one L1 set only where they are tall byte
            // strips on AMD's cores.
            let in_cache = Strips::new(Level::Avx512, Stores::Ordinary, size).expect("AVX-512 strips");
            let tall = avx512.tall().expect("AVX-512 has tall strips").cols();
            for cores in Cores::ALL {
                let strips = in_cache.for_cores(cores);
                let staged = (size == 1 && cores == Cores::Amd).then_some(StagedRuns::OneL1Set);
                let got = why(line, rows, tall, stride, tall, strips);
                assert_eq!(got, staged, "tall at AVX-512, {cores:?}'s cores, size {size}");
                let got = why(line, rows, many, stride, many, strips);
                assert_eq!(got, None, "AVX-512, {cores:?}'s cores, size {size}");
            }
        } else {
            println!("SKIPPED: AVX-512's runs: this CPU's highest level is {:?}", Level::detected());
        }
    }
    if !Level::Avx2.available() {
        println!("SKIPPED: AVX2 stages these runs; this CPU's highest level is {:?}", Level::detected());
        return;
    }
    check::<u8>();
    check::<half::f16>();
    check::<f32>();
}

/// Planes whose runs share one L1 set, staged at AVX2 ([`by_staged_source`] takes them), against
/// the definition, every element size that stages (in the form of Intel's cores; on AMD's,
/// bytes, halves and words read them through tiles: streamed from the last-level cache here, in cache
/// in [`page_strided_runs_transpose_like_the_definition`]): one group of runs, several with a
/// ragged last one, and streamed from the last-level cache; nothing outside the plane is written.
#[test]
fn runs_that_share_one_l1_set_stage_like_the_definition() {
    use crate::platform::simd::Stores;
    fn check<T: Element>() {
        let bits = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 19;
        let strips = |stores| Strips::new(Level::Avx2, stores, T::SIZE).expect("AVX2 strips");
        let (in_cache, from_l3) = (strips(Stores::Ordinary), strips(Stores::Streaming).with_cached_source(0));
        let (intel, amd) = (|s: Strips| s.for_cores(Cores::Intel), |s: Strips| s.for_cores(Cores::Amd));
        let (page, many) = (4096 / T::SIZE, 64 / T::SIZE);
        for (runs, src_stride, strips) in [
            (many, page, intel(in_cache)),
            (2 * many + 3, 2 * page, intel(in_cache)),
            (many, page, intel(from_l3)),
            // Through tiles, streamed (`Strips::tiling_cached_source`), on AMD's cores.
            (many, page, amd(from_l3)),
            (many, 2 * page, amd(from_l3)),
        ] {
            let rows = 2 * page + 5;
            let src: Vec<T> = (0..runs * src_stride + rows).map(|i| T::from_word(bits(i))).collect();
            let mut dst = vec![T::from_word(0); rows * runs + 64];
            let d = dst.as_ptr().align_offset(64).min(64);
            let r = LoopAxis { extent: rows, src: 1, dst: runs as isize };
            let c = LoopAxis { extent: runs, src: src_stride as isize, dst: 1 };
            let taken = by_staged_source(&src, 3, Out::new(&mut dst), d, r, c, strips);
            assert!(taken, "{runs} runs {src_stride} apart, size {}", T::SIZE);
            let outside = dst[..d].iter().chain(&dst[d + rows * runs..]);
            assert!(outside.into_iter().all(|v| v.to_word() == 0), "written outside the plane");
            for (i, v) in dst[d..d + rows * runs].iter().enumerate() {
                let (row, col) = (i / runs, i % runs);
                let expected = src[3 + col * src_stride + row].to_word();
                assert_eq!(v.to_word(), expected, "{runs} runs, size {} at {i}", T::SIZE);
            }
        }
    }
    if !Level::Avx2.available() {
        println!("SKIPPED: AVX2 stages these runs; this CPU's highest level is {:?}", Level::detected());
        return;
    }
    check::<u8>();
    check::<half::f16>();
    check::<f32>();
}

/// Which streamed planes of dense narrow rows stage panels ([`by_panels`] takes them) and which
/// go to the strips: rows up to 1 KiB that share lines, or do not start on one, stage; rows of
/// whole lines or of half a line starting on one (tall strips), and longer rows, do not.
#[test]
fn streamed_planes_stage_panels_only_for_rows_that_share_lines() {
    use crate::platform::simd::Stores;
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
