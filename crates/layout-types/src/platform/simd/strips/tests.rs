//! The strips' checks: which strips take tiles, and bands past their buffers.

use super::{Band, Cores, Strips};
use crate::platform::out::Out;
use crate::platform::simd::{Level, Stores};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Which strips read their source runs through tiles ([`Strips::tiles_runs`]), each
/// condition failing alone: on AMD's cores only; AVX2's in cache, or streamed from the
/// last-level cache where a plane asks ([`Strips::tiling_cached_source`]: not tall), of 1, 2
/// and 4 bytes, where more of a strip's runs share one L1 set than it has ways (f16's 32 runs
/// 2 KiB apart, 16 a set; f32's 16 runs 4 KiB apart; not f32's 2 KiB, 8 a set; bytes' 64
/// runs 1 KiB apart, not 512 B; tall strips' 16 runs of f16 and 32 of bytes 4 KiB apart, not
/// f32's 8); AVX-512's of 2 bytes and more, not tall, with ordinary stores from runs a
/// multiple of 4 KiB apart.
#[test]
fn strips_tile_the_runs_that_overfill_one_l1_set() {
    if let Some(f16) = Strips::new(Level::Avx2, Stores::Ordinary, 2) {
        let f32 = Strips::new(Level::Avx2, Stores::Ordinary, 4).expect("AVX2 strips");
        let amd = |s: Strips| s.for_cores(Cores::Amd);
        for (strips, stride, tiles, what) in [
            (f16, 4096, true, "f16 4 KiB"),
            (f16, 8192, true, "f16 8 KiB"),
            (f16, 2048, true, "f16 2 KiB"),
            (f16, 6144, true, "f16 6 KiB"),
            (f16, 1024, false, "f16 1 KiB"),
            (f16, 4096 + 64, false, "f16 4 KiB + a line"),
            (f32, 4096, true, "f32 4 KiB"),
            (f32, 2048, false, "f32 2 KiB"),
        ] {
            assert_eq!(amd(strips).tiles_runs(stride, false), tiles, "{what}");
            assert!(!strips.for_cores(Cores::Intel).tiles_runs(stride, false), "{what}, Intel's cores");
        }
        let u8 = Strips::new(Level::Avx2, Stores::Ordinary, 1).expect("AVX2 strips");
        let f64 = Strips::new(Level::Avx2, Stores::Ordinary, 8).expect("AVX2 strips");
        let streamed = Strips::new(Level::Avx2, Stores::Streaming, 2).expect("AVX2 strips");
        assert!(amd(u8).tiles_runs(4096, false) && amd(u8).tiles_runs(1024, false), "bytes");
        assert!(!amd(u8).tiles_runs(512, false), "bytes 512 B apart");
        assert!(!amd(f64).tiles_runs(4096, false), "f64");
        assert!(!amd(streamed).tiles_runs(4096, true), "streamed");
        let tall = |s: Strips| amd(s.tall().expect("tall strips"));
        assert!(tall(f16).tiles_runs(4096, false) && tall(u8).tiles_runs(4096, false), "tall");
        assert!(!tall(f16).tiles_runs(2048, false), "tall f16, 2 KiB");
        assert!(!tall(f32).tiles_runs(4096, false), "tall f32");
        assert!(!tall(f16).for_cores(Cores::Intel).tiles_runs(4096, false), "tall, Intel's cores");
        assert!(
            amd(streamed.with_cached_source(0)).tall().unwrap().tiling_cached_source().is_none(),
            "tall from L3"
        );
        // Streamed from the last-level cache, where a plane asks (`tiling_cached_source`).
        let from_l3 = amd(streamed.with_cached_source(0));
        let tiled = from_l3.tiling_cached_source().expect("AVX2 halves from L3 on AMD's cores");
        assert!(tiled.tiles_runs(4096, true) && tiled.tiles_runs(4096, false), "tiled from L3");
        assert!(!tiled.tiles_runs(1024, true), "tiled from L3, 1 KiB");
        assert!(from_l3.for_cores(Cores::Intel).tiling_cached_source().is_none(), "Intel's cores");
        assert!(amd(streamed.with_cached_source(1 << 40)).tiling_cached_source().is_none(), "from memory");
        assert!(amd(f16).tiling_cached_source().is_none(), "in cache");
        let f64_from_l3 = amd(Strips::new(Level::Avx2, Stores::Streaming, 8).expect("AVX2 strips"));
        assert!(f64_from_l3.with_cached_source(0).tiling_cached_source().is_none(), "f64 from L3");
    } else {
        println!("SKIPPED: AVX2's tiles: this CPU's highest level is {:?}", Level::detected());
    }
    if let Some(f16) = Strips::new(Level::Avx512, Stores::Ordinary, 2) {
        let amd = f16.for_cores(Cores::Amd);
        assert!(amd.tiles_runs(4096, false) && amd.tiles_runs(8192, false), "AVX-512 f16, 4 KiB");
        assert!(!amd.tiles_runs(2048, false), "AVX-512 f16, 2 KiB");
        assert!(!amd.tiles_runs(4096, true), "AVX-512 f16, streamed");
        assert!(!amd.tall().expect("tall strips").tiles_runs(4096, false), "AVX-512 f16, tall");
        assert!(!f16.for_cores(Cores::Intel).tiles_runs(4096, false), "AVX-512, Intel's cores");
        assert!(amd.tiling_cached_source().is_none(), "AVX-512 from L3");
    } else {
        println!("SKIPPED: AVX-512's tiles: this CPU's highest level is {:?}", Level::detected());
    }
}

/// A band reaching past either buffer panics before anything is written (the strips'
/// intrinsics rely on that check alone), at every level this CPU has; the band that fits
/// runs. The buffers are the fronts of larger ones, so that a band the check let through
/// would write sentinels inside the allocation (and fail below) rather than past it.
#[test]
fn a_band_past_its_buffers_panics_before_writing() {
    let mut levels = 0;
    for level in Level::ALL.into_iter().filter(|l| l.available()) {
        let Some(strips) = Strips::new(level, Stores::Ordinary, 4) else { continue };
        let (rows, cols) = (strips.rows(), strips.cols());
        let n = rows * cols;
        let src = vec![1.0f32; 3 * n];
        let fits = Band {
            from: 0,
            src_stride: rows,
            src_step: n,
            to: 0,
            dst_stride: cols,
            dst_step: n,
            count: 1,
            repeat: 1,
            src_next: 0,
            dst_next: 0,
        };
        let past = [Band { from: 1, ..fits }, Band { to: 1, ..fits }, Band { count: 2, ..fits }];
        for band in past {
            let mut dst = vec![0.0f32; 3 * n];
            let run =
                catch_unwind(AssertUnwindSafe(|| strips.band(&src[..n], Out::new(&mut dst[..n]), band)));
            assert!(run.is_err(), "{level:?}: {band:?} ran past its buffers");
            assert!(dst.iter().all(|&v| v == 0.0), "{level:?}: {band:?} wrote before panicking");
        }
        // In a part of a grid two strips wide and twice a strip's rows tall (its columns the
        // first strip's), a band one column over stays inside the part's span but reaches
        // the other part's columns.
        let mut dst = vec![0.0f32; 4 * n];
        let (grid, cuts) = (Band { dst_stride: 2 * cols, ..fits }, [0, cols, 2 * cols]);
        let mut parts = Out::new(&mut dst).column_parts(2 * cols, &cuts);
        let first = parts.next().unwrap();
        let over = catch_unwind(AssertUnwindSafe(|| strips.band(&src[..n], first, Band { to: 1, ..grid })));
        assert!(over.is_err(), "{level:?}: a band out of its part's columns ran");
        drop(parts);
        assert!(dst.iter().all(|&v| v == 0.0), "{level:?}: a band out of its part's columns wrote");
        let first = Out::new(&mut dst).column_parts(2 * cols, &cuts).next().unwrap();
        strips.band(&src[..n], first, grid);
        for (i, v) in dst.iter().enumerate() {
            let ours = i < 2 * n && i % (2 * cols) < cols;
            assert_eq!(*v, ours as u8 as f32, "{level:?}: the band in its part, element {i}");
        }
        let mut dst = vec![0.0f32; 3 * n];
        strips.band(&src[..n], Out::new(&mut dst[..n]), fits);
        assert!(dst[..n].iter().all(|&v| v == 1.0), "{level:?}: the band that fits");
        assert!(dst[n..].iter().all(|&v| v == 0.0), "{level:?}: the band that fits, past it");
        levels += 1;
    }
    assert!(levels > 0 || !cfg!(target_arch = "x86_64"), "x86-64 has SSE2's strips at least");
}
