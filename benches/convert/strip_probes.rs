//! The strip probes of `benches/convert.rs`: the library's own loops for the rows behind their
//! peer target, without the shuffles (the same registers loaded and stored, in the same order),
//! hot on all threads beside typed-layout hot. No pass in that order moves more.

use std::hint::black_box;
use std::time::Duration;

use typed_layout::{convert, DimsOf, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, SameFamily, Tensor};

use super::machine::side_by_side;
use super::strip_loops as strips;
use super::{hot_best, plane, Bench, Sample, PROBE_HOT};

/// The strip probe of the 1 MiB NHWC→NCHW rows: the library's own loop for them, without its
/// shuffles, hot on all threads (the peers' table's way) beside typed-layout hot.
///
/// The library cuts such a pass into a task a thread by pixels (each task all 64 channels of its
/// pixels: the destination's column parts), each task's plane into tiles of 4 KiB of every
/// destination row, a tile into bands of one strip's channels and a band into strips along the
/// pixels. A strip of AVX-512 loads one register per pixel (its run of 16 f32 or 32 f16
/// channels; two 32-byte runs of u8 paired in one register), transposes them and stores one
/// whole line per channel. The probe loads and stores the same registers in the same order with
/// nothing between: no pass in that order moves more. (Where a strip's source runs are near and
/// its rows 16 KiB apart, as here, the library's f16 and u8 strips load the same bytes as
/// 16-byte lanes, gathered: `x86::band` says why.) Left out (printed `-`) where the CPU lacks
/// AVX-512. Two rows follow with the probe's loads alone and its stores alone (where their
/// times add up to the probe's, the two sides do not overlap), then a control: typed-layout on
/// the same pass with one more image row, alone and beside the probe's stores alone there.
pub(crate) fn strip_probe<T: Sample>(b: &Bench, out: &mut Vec<String>) {
    let row = format!("{}/1MiB/NHWC->NCHW strip probe", T::NAME);
    if b.skips(&row) {
        return;
    }
    let elements = (1 << 20) / T::SIZE;
    let c = 64;
    let (h, w) = plane(elements / c);
    let threads = rayon::current_num_threads();
    let band = if T::SIZE == 4 { 16 } else { 32 }; // a strip's channels
    let line = 64 / T::SIZE; // a strip's pixels

    // The row's pass, then the control: one more image row, so that the destination rows lie
    // a few lines past 16 KiB apart instead of exactly 16 KiB (a multiple of the page and of
    // the L1 cache's set period), the same pass otherwise.
    for control in [false, true] {
        let dims = [1, c, h + usize::from(control), w];
        let pixels = dims[2] * w;
        let src = Tensor::<T, Nhwc>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k)))
            .unwrap();
        let mut dst = Tensor::<T, Nchw>::zeros(dims).unwrap();
        let mut probe_dst = Tensor::<T, Nchw>::zeros(dims).unwrap();
        let bytes = 2 * src.as_slice().len() * T::SIZE;
        // The library's cuts: a thread's share of the pixels, on a line.
        let cuts: Vec<usize> =
            (0..=threads).map(|k| (k * pixels / threads).next_multiple_of(line).min(pixels)).collect();
        let s: &[u8] = bytemuck::cast_slice(src.as_slice());
        let d = strips::Parts::new(bytemuck::cast_slice_mut(probe_dst.as_mut_slice()));
        let geometry = strips::Geometry { channels: c, pixels, size: T::SIZE, band, sweep: 4096 / T::SIZE };
        let (d, cuts) = (&d, &cuts);
        let probe = |part| {
            strips::avx512().then_some(move || {
                side_by_side(0..threads, |k| {
                    strips::task(black_box(s), d, cuts[k]..cuts[k + 1], geometry, part)
                })
            })
        };
        let mut typed = || convert(black_box(&src), &mut dst).unwrap();
        if control {
            let gap = pixels * T::SIZE - (16 << 10);
            let control = format!("{}/1MiB/NHWC->NCHW rows 16 KiB + {gap} B apart", T::NAME);
            out.push(race(&control, None, bytes, &mut typed, None::<fn()>));
            let stores = format!("{control}: the probe's stores alone");
            out.push(race(&stores, None, bytes, &mut typed, probe(strips::Part::Stores)));
            eprintln!("{control}: done");
            continue;
        }
        let of = format!("{}/1MiB/NHWC->NCHW", T::NAME);
        out.push(race(&row, Some(&of), bytes, &mut typed, probe(strips::Part::Both)));
        // Each side of the probe alone, counted as the whole pass's bytes (so that where the
        // sides' times add up to the whole's, the reciprocals of the three figures do too).
        for (part, what) in
            [(strips::Part::Loads, "its loads alone"), (strips::Part::Stores, "its stores alone")]
        {
            out.push(race(&format!("{row}: {what}"), None, bytes, &mut typed, probe(part)));
        }
        eprintln!("{row}: done");
    }
}

/// The strip probes of the 16 and 256 MiB rows into channel-last pixels (NCHW→NHWC,
/// NCHW→NC/32HW32, NCDHW→NDHWC): f32 and f16 everywhere AVX-512 is; u8 on AMD's cores, where
/// the library's byte strips (AVX2's blocks in their EVEX forms) read far runs in place
/// (`Strips::stages_far_runs`; Intel's copy them into a buffer first, the limit probe's
/// pattern). Without AVX-512, the 256 MiB rows: AVX2's strips in columns of one strip's planes
/// down all the pixels ([`strips::Streamed::avx2_columns`]: f32's 16 planes by 8 pixels, f16's
/// 32 by 16, u8's 64 by 32 or, tall, 32 by 64), f16's and u8's on AMD's cores only; the 16 MiB
/// rows are printed `-` there (from the last-level cache AVX2's strips read the planes through
/// tiles on AMD's cores, a loop not written here).
pub(crate) fn streamed_probes<T: Sample>(b: &Bench, out: &mut Vec<String>) {
    if T::SIZE == 1 && !strips::amd() {
        return;
    }
    for (size, mib, n) in [("16MiB", 16, 4), ("256MiB", 256, 16)] {
        let elements = (mib << 20) / T::SIZE;
        let c = 64;
        let (h, w) = plane(elements / (n * c));
        let row = |what: &str| format!("{}/{size}/{what}", T::NAME);
        // At 256 MiB a plane of 64 channels goes in bands of one strip's channels down all
        // its pixels (64 source runs are more than the prefetchers follow); the others, and
        // every plane at 16 MiB (its source in the last-level cache), in whole-row bands.
        let from_memory = mib == 256;
        let image = strips::Streamed { channels: c, pixels: h * w, size: T::SIZE, band: c, from_memory };
        let band = if from_memory { image.strip().1 } else { c };
        let planes = [n, c, h * w, band];
        streamed_probe::<T, Nchw, Nhwc>(b, &row("NCHW->NHWC"), [n, c, h, w], planes, from_memory, out);
        let (of, split) = (row("NCHW->NC/32HW32"), [n * c / 32, 32, h * w, 32]);
        streamed_probe::<T, Nchw, NcxHwx<32>>(b, &of, [n, c, h, w], split, from_memory, out);
        let (d, (h3, w3)) = (8, plane(elements / (n * 32 * 8)));
        let (dims, split) = ([n, 32, d, h3, w3], [n, 32, d * h3 * w3, 32]);
        streamed_probe::<T, Ncdhw, Ndhwc>(b, &row("NCDHW->NDHWC"), dims, split, from_memory, out);
    }
}

/// One streamed row's strip probe. The library streams such a pass a plane at a time (`k`
/// channels by `p` pixels: an image, or a block of 32 channels), in bands of `band` channels
/// down the plane's pixels, a band strip by strip along the pixels and across its channels. A
/// strip of AVX-512 loads one register per channel (its run of a strip's pixels), transposes
/// them and streams one whole line per pixel; bytes, and every size at AVX2, are AVX2's blocks
/// ([`strips::Streamed`]: a 32-byte run a plane, two a line).
/// The probe streams the registers it loaded, in the same order, with the fence at the end of
/// each task.
fn streamed_probe<T: Sample, S: Layout, D: Layout>(
    b: &Bench,
    of: &str,
    dims: DimsOf<S>,
    [planes, k, p, band]: [usize; 4],
    from_memory: bool,
    out: &mut Vec<String>,
) where
    D::Family: SameFamily<S::Family>,
{
    let row = format!("{of} strip probe");
    if b.skips(&row) {
        return;
    }
    let src =
        Tensor::<T, S>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k))).unwrap();
    let dst_dims = <D::Family as SameFamily<S::Family>>::same_dims(dims);
    let mut dst = Tensor::<T, D>::zeros(dst_dims).unwrap();
    let mut probe_dst = Tensor::<T, D>::zeros(dst_dims).unwrap();
    assert_eq!(src.as_slice().len(), planes * k * p, "{row}: the plane geometry covers the tensor");
    let s: &[u8] = bytemuck::cast_slice(src.as_slice());
    let d: &mut [u8] = bytemuck::cast_slice_mut(probe_dst.as_mut_slice());
    let geometry = strips::Streamed { channels: k, pixels: p, size: T::SIZE, band, from_memory };
    let bytes = 2 * s.len();
    let probe = (strips::avx512() || geometry.avx2_columns()).then_some(|| {
        side_by_side(d.chunks_mut(k * p * T::SIZE).enumerate(), |(t, d)| {
            strips::streamed_task(black_box(s), d, t, geometry)
        })
    });
    out.push(race(&row, Some(of), bytes, || convert(black_box(&src), &mut dst).unwrap(), probe));
    eprintln!("{row}: done");
}

/// The strip probes of the 16 and 256 MiB NHWC→NCHW rows. f32 and f16: the library streams
/// each image's plane (64 channels by its pixels) in tiles of 1 KiB (f32) or 4 KiB (f16) of
/// every destination row, a tile in bands of one strip's channels, a band in strips along the pixels (each loads one register
/// per pixel, its run of the band's channels, and streams one line per channel), and where a
/// tile has more than two bands (f32's four), while its first half of bands runs it prefetches
/// the next tile's source lines in address order (f16's two bands prefetch nothing).
/// The probe does the same loads, streaming stores and prefetches, without the shuffles, in
/// the library's tasks (four a thread, whole images), with the fence at the end of each task.
/// u8 at AVX-512 on AMD's cores streams the same way in strips of AVX2's blocks (32 channels a
/// band, two bands, 4 KiB tiles): a strip loads a 32-byte run a pixel and streams a line a
/// channel. Elsewhere u8 goes through staged tiles: per image, tiles of 15 lines of each of the
/// 64 planes (960 pixels, 60 KiB of source) transposed into a staging buffer with ordinary
/// stores, then each of its 64 rows streamed to its plane while (at AVX2) the next tile's source
/// is prefetched, a row's share with each row; that probe copies the tile's source into the
/// buffer as it lies and streams the buffer's rows to the same places with the same
/// prefetching (none with AVX-512, as the library: [`strips::staged_nchw_task`]). Without
/// AVX-512 (AVX2), f16 and f32 go through staged tiles as u8 does (480 and 240 pixels a tile).
pub(crate) fn streamed_nchw_probe<T: Sample>(b: &Bench, out: &mut Vec<String>) {
    for (size, mib, n) in [("16MiB", 16, 4), ("256MiB", 256, 16)] {
        let of = format!("{}/{size}/NHWC->NCHW", T::NAME);
        let row = format!("{of} strip probe");
        if b.skips(&row) {
            continue;
        }
        let elements = (mib << 20) / T::SIZE;
        let c = 64;
        let (h, w) = plane(elements / (n * c));
        let src = Tensor::<T, Nhwc>::from_fn([n, c, h, w], |i| {
            T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k))
        })
        .unwrap();
        let mut dst = Tensor::<T, Nchw>::zeros([n, c, h, w]).unwrap();
        let mut probe_dst = Tensor::<T, Nchw>::zeros([n, c, h, w]).unwrap();
        let images = n.div_ceil(4 * rayon::current_num_threads()); // a task's, as the library cuts
        let s: &[u8] = bytemuck::cast_slice(src.as_slice());
        let d: &mut [u8] = bytemuck::cast_slice_mut(probe_dst.as_mut_slice());
        // A strip's channels: a register's with AVX-512 (one register a pixel); 32 for bytes.
        let band = (64 / T::SIZE).min(32);
        // The library's tiles: 1 KiB of each destination row where it walks (more than two
        // bands of AVX-512's strips: f32's four), 4 KiB otherwise.
        let sweep = if c / band > 2 { 1024 / T::SIZE } else { 4096 / T::SIZE };
        let geometry = strips::Geometry { channels: c, pixels: h * w, size: T::SIZE, band, sweep };
        let image = c * h * w * T::SIZE;
        // Staged tiles at AVX2 for every size, and for bytes but on AMD's cores; streamed
        // strips otherwise (the library's `Strips::streams_directly`).
        let staged = !strips::avx512() || (T::SIZE == 1 && !strips::amd());
        let probe = (strips::avx512() || strips::avx2()).then_some(|| {
            side_by_side(d.chunks_mut(images * image).enumerate(), |(t, d)| match staged {
                true => strips::staged_nchw_task(black_box(&s[t * images * image..]), d, geometry),
                false => strips::streamed_nchw_task(black_box(&s[t * images * image..]), d, geometry),
            })
        });
        let typed = || convert(black_box(&src), &mut dst).unwrap();
        out.push(race(&row, Some(&of), 2 * s.len(), typed, probe));
        eprintln!("{row}: done");
    }
}

/// typed-layout and the probe (where there is one), each back to back on all threads,
/// alternately three times (the machine drifts): the table's line for `row`, counting `bytes`
/// a call. Where the probe is the limit of the conversion row `limit_of`, its best time is kept
/// for the peers' table ([`PROBE_HOT`]).
fn race(
    row: &str,
    limit_of: Option<&str>,
    bytes: usize,
    mut typed: impl FnMut(),
    mut probe: Option<impl FnMut()>,
) -> String {
    let (mut best, mut best_probe) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        best = best.min(hot_best(&mut typed));
        if let Some(probe) = probe.as_mut() {
            best_probe = best_probe.min(hot_best(probe));
        }
    }
    if let (Some(of), Some(_)) = (limit_of, &probe) {
        PROBE_HOT.lock().unwrap().push((of.to_owned(), best_probe));
    }
    let gbps = |t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    let (probe, ratio) = match probe {
        Some(_) => (format!("{:.1}", gbps(best_probe)), format!("{:.2}", gbps(best) / gbps(best_probe))),
        None => ("-".to_owned(), "-".to_owned()),
    };
    let threads = rayon::current_num_threads();
    format!("| {row} | {threads} | {:.1} | {probe} | {ratio} |", gbps(best))
}
