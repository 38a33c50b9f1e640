//! The limit probes of `benches/convert.rs`: the conversions' access patterns without their
//! transposes, each raced against the copy of the same bytes and typed-layout.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::simd::{copy, copy_parallel, Stores};
use typed_layout::{
    convert, Bmn, ColMajor, DimsOf, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Tensor,
};

use super::machine::wake_pool;
use super::{hot_best, plane, Bench, Sample, IN_CACHE_RACE, PROBE_HOT};

/// The limit probes of the 16 and 256 MiB rows: those that gather channel planes into pixels,
/// NCHW→NHWC (64 channels, and RGB's 3), NCHW→NC/32HW32 and NCDHW→NDHWC (32 channels a
/// pixel), each [`probe_channels_last`]; and row→column ([`probe_row_to_column`], and its
/// writes alone: [`probe_write_runs`]). The shapes are the rows' (`rows` in `convert.rs`).
pub(crate) fn probe<T: Sample>(b: &Bench, out: &mut Vec<String>) {
    for (size, mib, n) in [("16MiB", 16, 4), ("256MiB", 256, 16)] {
        let elements = (mib << 20) / T::SIZE;
        let (h, w) = plane(elements / (n * 64));
        let src = |i: [usize; 4]| T::at(i[1] * 7 + i[3]);
        let row = |what: &str| format!("{}/{size}/{what}", T::NAME);
        probe_channels_last::<T, Nchw, Nhwc>(b, out, &row("NCHW->NHWC"), [n, 64, h, w], [n, 64, h * w], src);
        probe_channels_last::<T, Nchw, NcxHwx<32>>(
            b,
            out,
            &row("NCHW->NC/32HW32"),
            [n, 64, h, w],
            [2 * n, 32, h * w],
            src,
        );
        let (d, (h3, w3)) = (8, plane(elements / (n * 32 * 8)));
        probe_channels_last::<T, Ncdhw, Ndhwc>(
            b,
            out,
            &row("NCDHW->NDHWC"),
            [n, 32, d, h3, w3],
            [n, 32, d * h3 * w3],
            |i| T::at(i[1] * 7 + i[4]),
        );
        let (m, k) = plane(elements / n);
        probe_row_to_column::<T>(b, out, &row("BMN row->col"), [n, m, k]);
        // The C = 3 rows' shape (`rows` in `convert.rs`): three planes of `h × w3` pixels.
        let w3 = elements.div_ceil(n * 3 * h).next_multiple_of(8);
        probe_channels_last::<T, Nchw, Nhwc>(
            b,
            out,
            &row("C=3 NCHW->NHWC"),
            [n, 3, h, w3],
            [n, 3, h * w3],
            src,
        );
        for lines in [1, 4] {
            probe_write_runs::<T>(b, out, size, [n, m, k], lines);
        }
    }
}

/// The write limit of the row→column rows: [`strip_loops::write_runs_task`], the same
/// matrices' bytes read in order and streamed in runs of `lines` lines to every destination row
/// (a source column) in turn, a matrix a task on all threads. With one line, the library's
/// sweep's writes alone; with four, what writes of longer runs could reach ([`race_matrices`]);
/// left out where the CPU lacks AVX2.
///
/// [`strip_loops::write_runs_task`]: super::strip_loops::write_runs_task
fn probe_write_runs<T: Sample>(b: &Bench, out: &mut Vec<String>, size: &str, nmk: [usize; 3], lines: usize) {
    let plural = if lines == 1 { "" } else { "s" };
    let row = format!("{}/{size}/BMN writes: {lines} line{plural} of each column in turn", T::NAME);
    if b.skips(&row) || !super::strip_loops::avx2() {
        return;
    }
    race_matrices::<T>(&row, None, nmk, out, |s, d, [m, _]| {
        super::strip_loops::write_runs_task(s, d, m * T::SIZE, lines)
    });
}

/// Races a probe of the row→column rows ([`limit_race`]): `n` matrices of `m × k` elements of
/// `T` into columns, typed-layout beside `task(source, destination, [m, k])` on every matrix's
/// bytes, a matrix a task on all threads; the probe's destination starts on a line (its loops
/// stream whole lines). `limit_of`: the conversion row whose limit the probe is, if it is one.
fn race_matrices<T: Sample>(
    row: &str,
    limit_of: Option<&str>,
    [n, m, k]: [usize; 3],
    out: &mut Vec<String>,
    task: impl Fn(&[u8], &mut [u8], [usize; 2]) + Sync,
) {
    use rayon::prelude::*;
    let src = Tensor::<T, Bmn<RowMajor>>::from_fn([n, m, k], |i| T::at(i[1] * 7 + i[2])).unwrap();
    let mut dst = Tensor::<T, Bmn<ColMajor>>::zeros([n, m, k]).unwrap();
    let s: &[u8] = bytemuck::cast_slice(src.as_slice());
    let mut out_buf = vec![0u8; s.len() + 64];
    let at = out_buf.as_ptr().align_offset(64);
    let out_buf = &mut out_buf[at..at + s.len()];
    let threads = rayon::current_num_threads();
    let matrix = m * k * T::SIZE;
    let pattern = |d: &mut [u8]| {
        d.par_chunks_mut(matrix).zip(s.par_chunks(matrix)).for_each(|(d, s)| task(s, d, [m, k]))
    };
    out.push(limit_race(row, limit_of, 2 * s.len(), |contender| match contender {
        Contender::Copy(stores) => copy_parallel(out_buf, black_box(s), stores, threads).unwrap(),
        Contender::TypedLayout => convert(black_box(&src), &mut dst).unwrap(),
        Contender::Probe => pattern(out_buf),
    }));
    eprintln!("{row}: done");
}

/// The limit probe of the conversion row `of` (16 or 256 MiB), whose source holds `images`
/// groups of `c` channel planes of `hw` elements, each group one destination run of `hw` pixels
/// of `c` channels: the access pattern of the conversion without its transpose. Per group and
/// block of 1024 pixels, every plane's run is copied into a staging buffer and the buffer is
/// streamed out, on all threads (a group per task): the same source streams and destination
/// lines, no shuffles. Raced against the strongest copies and typed-layout ([`limit_race`]);
/// printed as its own table.
fn probe_channels_last<T: Sample, S: Layout, D: Layout>(
    b: &Bench,
    out: &mut Vec<String>,
    of: &str,
    dims: DimsOf<S>,
    [images, c, hw]: [usize; 3],
    value: impl Fn(DimsOf<S>) -> T,
) where
    D::Family: SameFamily<S::Family>,
{
    use rayon::prelude::*;
    let row = format!("{of} probe");
    if b.skips(&row) {
        return;
    }
    let src = Tensor::<T, S>::from_fn(dims, value).unwrap();
    let mut dst = Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
    let s = src.as_slice();
    assert_eq!(s.len(), images * c * hw, "{row}: the groups cover the tensor");
    let mut out_buf = vec![T::default(); s.len()];
    let threads = rayon::current_num_threads();
    let block = 1024;
    assert!(hw.is_multiple_of(block), "{row}: whole blocks of pixels");
    let pattern = |dst: &mut [T]| {
        dst.par_chunks_mut(c * hw).enumerate().for_each(|(image, d)| {
            let mut staging = vec![T::default(); c * block];
            for p0 in (0..hw).step_by(block) {
                for ch in 0..c {
                    let from = &s[image * c * hw + ch * hw + p0..][..block];
                    staging[ch * block..(ch + 1) * block].copy_from_slice(from);
                }
                copy(&mut d[p0 * c..(p0 + block) * c], &staging, Stores::Streaming).unwrap();
            }
        })
    };
    let bytes = 2 * s.len() * T::SIZE;
    out.push(limit_race(&row, Some(of), bytes, |contender| match contender {
        Contender::Copy(stores) => copy_parallel(&mut out_buf, black_box(s), stores, threads).unwrap(),
        Contender::TypedLayout => convert(black_box(&src), &mut dst).unwrap(),
        Contender::Probe => pattern(&mut out_buf),
    }));
    eprintln!("{row}: done");
}

/// A contender of a limit probe's race.
enum Contender {
    /// The copy of the same bytes on all threads, with these stores.
    Copy(Stores),
    TypedLayout,
    Probe,
}

/// Races a limit probe's contenders (the copies with ordinary and streaming stores,
/// typed-layout, the probe) round by round, five rounds, and returns the row of the limit-probe
/// table: GB/s (`bytes` read + written over the best round) and ratios to the stronger copy.
/// Where the probe is the limit of the conversion row `limit_of`, the probe is then timed back
/// to back too, as the peers' table times everyone ([`PROBE_HOT`]).
fn limit_race(row: &str, limit_of: Option<&str>, bytes: usize, mut run: impl FnMut(Contender)) -> String {
    let mut best = [Duration::MAX; 4];
    for _ in 0..5 {
        for (k, slot) in best.iter_mut().enumerate() {
            let contender = match k {
                0 => Contender::Copy(Stores::Ordinary),
                1 => Contender::Copy(Stores::Streaming),
                2 => Contender::TypedLayout,
                _ => Contender::Probe,
            };
            let start = Instant::now();
            run(contender);
            *slot = (*slot).min(start.elapsed());
        }
    }
    if let Some(of) = limit_of {
        PROBE_HOT.lock().unwrap().push((of.to_owned(), hot_best(|| run(Contender::Probe))));
    }
    let gbps = |t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    let copy_best = gbps(best[0].min(best[1]));
    format!(
        "| {row} | {copy_best:.1} | {:.1} | {:.2} | {:.1} | {:.2} |",
        gbps(best[2]),
        gbps(best[2]) / copy_best,
        gbps(best[3]),
        gbps(best[3]) / copy_best
    )
}

/// The limit probe of the row→column row `of`: the library's streamed pass over large square
/// planes without the shuffles, the same source runs and destination lines in the same order,
/// a matrix a task on all threads ([`race_matrices`]; `strip_loops::row_to_column_task`). With
/// AVX-512, its strips of whole lines for 2- and 4-byte elements; with AVX2 only, its strips of
/// half lines. Left out elsewhere (AVX-512's bytes take AVX2's blocks in other orders) and where
/// the matrices hold no whole tiles (a 2048-wide u8 matrix: its rows are shorter than the
/// library's sweep).
fn probe_row_to_column<T: Sample>(b: &Bench, out: &mut Vec<String>, of: &str, nmk: [usize; 3]) {
    use super::strip_loops::{avx2, avx512, row_to_column_fits, row_to_column_task};
    let row = format!("{of} probe");
    let [_, m, k] = nmk;
    let wide = avx512() && T::SIZE >= 2;
    if b.skips(&row) || !(wide || (avx2() && !avx512())) || !row_to_column_fits([m, k], T::SIZE) {
        return;
    }
    race_matrices::<T>(&row, Some(of), nmk, out, |s, d, mk| row_to_column_task(s, d, mk, T::SIZE, wide));
}

/// The in-cache limit probe of a 1 MiB row: the transpose's access pattern without its
/// shuffles. The row is `batch` planes of `a × b` source elements (source rows of `b`,
/// destination rows of `a`); [`lines`] copies the same lines as the transpose's strips read and
/// write, no element moved across lanes. Raced on one thread against the one-thread copy and
/// typed-layout on one thread; then, back to back (the peers' table's way), on all threads,
/// cut as the library cuts an in-cache pass (one part of the destination's rows a thread),
/// beside a copy per thread and typed-layout on all threads.
#[allow(clippy::too_many_arguments)]
fn probe_in_cache<T: Sample, S: Layout, D: Layout>(
    b: &Bench,
    what: &str,
    dims: DimsOf<S>,
    [batch, a, bb]: [usize; 3],
    out: &mut [Vec<String>; 2],
) where
    D::Family: SameFamily<S::Family>,
{
    let row = format!("{}/1MiB/{what} probe", T::NAME);
    if b.skips(&row) {
        return;
    }
    let src =
        Tensor::<T, S>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k))).unwrap();
    // Each contender writes its own buffer: a buffer another contender wrote on other cores
    // holds lines dirty in their caches, which slowed a one-thread copy of it to 16-30 GB/s.
    let fresh = || Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
    let (mut dst, mut dst_all) = (fresh(), fresh());
    let s = src.as_slice();
    assert_eq!(s.len(), batch * a * bb, "{row}: the plane geometry covers the tensor");
    let [mut copy_out, mut probe_out, mut copy_all, mut streamed_all, mut probe_all] =
        core::array::from_fn(|_| vec![T::default(); s.len()]);
    let line = 64 / T::SIZE; // elements of a cache line
    let ta = a.min(line);
    assert!(a % ta == 0 && bb % line == 0 && line % ta == 0, "{row}: whole tiles");
    let pattern = |d: &mut [T]| {
        for plane in 0..batch {
            let (s, d) = (&s[plane * a * bb..][..a * bb], &mut d[plane * a * bb..][..a * bb]);
            wide_lines(s, d, [a, bb], 0..bb, line);
        }
    };
    // On all threads, cut as the library cuts an in-cache pass on this machine class's two:
    // the destination's rows (`bb` a plane) into one part a thread, whole planes where there
    // are as many as threads. Where the parts do not hold whole pieces (other thread counts),
    // the hot probe is left out (printed `-`).
    let threads = rayon::current_num_threads();
    let parts = threads.div_ceil(batch);
    let part_rows = bb / parts;
    let cut = bb.is_multiple_of(parts) && fits(a, part_rows, line);
    let parallel = |d: &mut [T]| {
        use rayon::prelude::*;
        d.par_chunks_mut(part_rows * a).enumerate().for_each(|(k, d)| {
            let (plane, r0) = (k * part_rows / bb, k * part_rows % bb);
            let s = &s[plane * a * bb..][..a * bb];
            let rows = r0..(r0 + part_rows).min(bb);
            wide_lines(s, d, [a, bb], rows, line);
        })
    };
    // One thread: the copy, typed-layout, the copy again, the probe; then all threads, each
    // with the pool awake: the copies per thread, typed-layout, the streaming copy again, the
    // probe (where cut). typed-layout and the probe each start from the caches a copy left, on
    // the same thread(s): run right after typed-layout, the probe found the source's lines
    // where the same cut had just read them (u8 NCHW→NHWC, all threads: 0.96 of the copy so,
    // 0.63 for typed-layout after the copy).
    let order = [0, 1, 0, 2, 3, 4, 5, 4, 6];
    let mut best = [Duration::MAX; 7];
    let race = Instant::now();
    let mut round = 0;
    while round < 201 || race.elapsed() < IN_CACHE_RACE {
        round += 1;
        for k in order.into_iter().filter(|&k| k != 6 || cut) {
            if k >= 3 {
                wake_pool();
            }
            let time = match k {
                1 => b.on_one_thread(|| convert(black_box(&src), &mut dst).unwrap()),
                2 => b.on_one_thread(|| pattern(black_box(&mut probe_out))),
                _ => {
                    let start = Instant::now();
                    match k {
                        0 => copy_out.copy_from_slice(black_box(s)),
                        3 => copy_parallel(&mut copy_all, black_box(s), Stores::Ordinary, threads).unwrap(),
                        4 => copy_parallel(&mut streamed_all, black_box(s), Stores::Streaming, threads)
                            .unwrap(),
                        5 => convert(black_box(&src), &mut dst_all).unwrap(),
                        _ => parallel(black_box(&mut probe_all)),
                    }
                    start.elapsed()
                }
            };
            best[k] = best[k].min(time);
        }
    }
    black_box((&copy_out, &probe_out, &copy_all, &streamed_all, &probe_all));
    // Back to back on all threads, as the peers' table times typed-layout and the peers.
    let mut hot = [Duration::MAX; 3];
    for _ in 0..3 {
        hot[0] = hot[0]
            .min(hot_best(|| copy_parallel(&mut copy_out, black_box(s), Stores::Ordinary, threads).unwrap()));
        hot[1] = hot[1].min(hot_best(|| convert(black_box(&src), &mut dst).unwrap()));
        if cut {
            hot[2] = hot[2].min(hot_best(|| parallel(black_box(&mut probe_out))));
        }
    }
    black_box((&copy_out, &probe_out));
    if cut {
        PROBE_HOT.lock().unwrap().push((format!("{}/1MiB/{what}", T::NAME), hot[2]));
    }
    let gbps = |t: Duration| (2 * s.len() * T::SIZE) as f64 / t.as_secs_f64() / 1e9;
    let copy = gbps(best[0]);
    let (probe_hot, ratio_hot) = match cut {
        true => (format!("{:.1}", gbps(hot[2])), format!("{:.2}", gbps(hot[1]) / gbps(hot[2]))),
        false => ("-".to_owned(), "-".to_owned()),
    };
    let (strongest, name) = match best[3] <= best[4] {
        true => (gbps(best[3]), "copy per thread"),
        false => (gbps(best[4]), "streaming copy per thread"),
    };
    let (typed_all, probe_all) = (gbps(best[5]), gbps(best[6]));
    let (probe_all, ratio_all, typed_per_probe) = match cut {
        true => (
            format!("{probe_all:.1}"),
            format!("{:.2}", probe_all / strongest),
            format!("{:.2}", typed_all / probe_all),
        ),
        false => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
    };
    out[1].push(format!(
        "| {row} | {name} | {strongest:.1} | {typed_all:.1} | {:.2} | {probe_all} | {ratio_all} | {typed_per_probe} |",
        typed_all / strongest
    ));
    out[0].push(format!(
        "| {row} | {copy:.1} | {:.1} | {:.2} | {:.1} | {:.2} | {:.2} | {:.1} | {:.1} | {probe_hot} | {ratio_hot} |",
        gbps(best[1]),
        gbps(best[1]) / copy,
        gbps(best[2]),
        gbps(best[2]) / copy,
        gbps(best[1]) / gbps(best[2]),
        gbps(hot[0]),
        gbps(hot[1]),
    ));
    eprintln!("{row}: done");
}

/// [`lines`] compiled for AVX-512 where the CPU has it, so that a piece of a line moves in one
/// register as the strips move it (the bench is built for baseline x86-64: 16-byte moves
/// otherwise).
fn wide_lines<T: Copy>(s: &[T], d: &mut [T], ab: [usize; 2], rows: core::ops::Range<usize>, line: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: Copy>(s: &[T], d: &mut [T], ab: [usize; 2], rows: core::ops::Range<usize>, line: usize) {
            lines(s, d, ab, rows, line)
        }
        // SAFETY: the CPU has AVX-512 F (detected just above); the function is otherwise safe.
        return unsafe { avx512(s, d, ab, rows, line) };
    }
    lines(s, d, ab, rows, line)
}

/// The lines of one `a × bb` plane's strips, copied without their shuffles: for destination
/// rows `rows` (source columns), per tile of `ta = min(a, line)` source rows by `w = min(line,
/// rows.len())` source columns, each source run of `w` elements is copied whole into the tile's
/// destination rows (into one row's part when `ta ≥ w`, over `w / ta` rows when less). `d`
/// starts at destination row `rows.start`. Pieces are copied as arrays of their 16, 32 or 64
/// elements, which compile to register moves, not calls.
#[inline(always)]
fn lines<T: Copy>(s: &[T], d: &mut [T], [a, bb]: [usize; 2], rows: core::ops::Range<usize>, line: usize) {
    let (ta, w) = (a.min(line), line.min(rows.len()));
    assert!(fits(a, rows.len(), line), "whole runs");
    match ta.min(w) {
        1 => lines_of::<T, 1>(s, d, [a, bb], rows, [ta, w]),
        2 => lines_of::<T, 2>(s, d, [a, bb], rows, [ta, w]),
        4 => lines_of::<T, 4>(s, d, [a, bb], rows, [ta, w]),
        8 => lines_of::<T, 8>(s, d, [a, bb], rows, [ta, w]),
        16 => lines_of::<T, 16>(s, d, [a, bb], rows, [ta, w]),
        32 => lines_of::<T, 32>(s, d, [a, bb], rows, [ta, w]),
        64 => lines_of::<T, 64>(s, d, [a, bb], rows, [ta, w]),
        n => panic!("pieces of {n} elements"),
    }
}

/// Whether [`lines`] takes `rows` destination rows (`len` of them) of a plane of `a` source
/// rows: whole runs, and pieces of a power of two up to 64 elements.
fn fits(a: usize, len: usize, line: usize) -> bool {
    let (ta, w) = (a.min(line), line.min(len));
    w > 0
        && len.is_multiple_of(w)
        && (ta.is_multiple_of(w) || w.is_multiple_of(ta))
        && ta.min(w).is_power_of_two()
        && ta.min(w) <= 64
}

/// [`lines`] with pieces of `N` elements (`min(ta, w)`).
#[inline(always)]
fn lines_of<T: Copy, const N: usize>(
    s: &[T],
    d: &mut [T],
    [a, bb]: [usize; 2],
    rows: core::ops::Range<usize>,
    [ta, w]: [usize; 2],
) {
    let copy = |d: &mut [T], s: &[T]| {
        let to: &mut [T; N] = (&mut d[..N]).try_into().expect("N elements");
        *to = s[..N].try_into().expect("N elements");
    };
    for a0 in (0..a).step_by(ta) {
        for b0 in rows.clone().step_by(w) {
            let b = b0 - rows.start;
            for j in 0..ta {
                let run = &s[(a0 + j) * bb + b0..][..w];
                if ta >= w {
                    // Here `w` is `N`: a constant, so no division per piece.
                    copy(&mut d[(b + j % N) * a + a0 + j / N * N..], run);
                } else {
                    for (q, part) in run.chunks_exact(N).enumerate() {
                        copy(&mut d[(b + j * (w / ta) + q) * a + a0..], part);
                    }
                }
            }
        }
    }
}

/// The in-cache probes of every 1 MiB transpose row (the rows of `rows` at 1 MiB but C = 3,
/// whose planes are three rows deep), each with its plane geometry.
pub(crate) fn probes_in_cache<T: Sample>(b: &Bench, out: &mut [Vec<String>; 2]) {
    let elements = (1 << 20) / T::SIZE;
    let (n, c) = (1, 64);
    let (h, w) = plane(elements / (n * c));
    let hw = h * w;
    probe_in_cache::<T, Nchw, Nhwc>(b, "NCHW->NHWC", [n, c, h, w], [n, c, hw], out);
    probe_in_cache::<T, Nhwc, Nchw>(b, "NHWC->NCHW", [n, c, h, w], [n, hw, c], out);
    probe_in_cache::<T, Nchw, NcxHwx<32>>(b, "NCHW->NC/32HW32", [n, c, h, w], [n * c / 32, 32, hw], out);
    let (d, (h3, w3)) = (8, plane(elements / (n * 32 * 8)));
    let dhw = d * h3 * w3;
    probe_in_cache::<T, Ncdhw, Ndhwc>(b, "NCDHW->NDHWC", [n, 32, d, h3, w3], [n, 32, dhw], out);
    let (m, k) = plane(elements / n);
    probe_in_cache::<T, Bmn<RowMajor>, Bmn<ColMajor>>(b, "BMN row->col", [n, m, k], [n, m, k], out);
}

/// The write limit of a fused row, whose destination is larger than its source (bytes into f16
/// or f32 pixels of four channels write five times what they read): the destination's bytes
/// streamed from a cache-resident 64 KiB buffer, one contiguous part a thread, so nothing is
/// read from memory. No pass that writes those bytes can be faster.
pub(crate) fn fill_streamed(dst: &mut [u8], from: &[u8], threads: usize) {
    use rayon::prelude::*;
    let part = dst.len().div_ceil(threads.max(1)).next_multiple_of(4096).max(4096);
    dst.par_chunks_mut(part).for_each(|part| {
        for chunk in part.chunks_mut(from.len()) {
            copy(chunk, &from[..chunk.len()], Stores::Streaming).unwrap();
        }
    });
}

/// Prints the fused rows' writes beside [`fill_streamed`]'s: `(row, destination bytes, best
/// pass into an existing buffer, best fill)`.
pub(crate) fn print_writes(writes: &[(String, u64, Duration, Duration)]) {
    if writes.is_empty() {
        return;
    }
    let gbps = |bytes: u64, t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    println!();
    println!("## Fused rows against the write limit: the destination's bytes alone, streamed from the cache");
    println!();
    println!("| row | destination GB | typed-layout writes GB/s | streamed fill GB/s | ÷ fill |");
    println!("|---|---:|---:|---:|---:|");
    for (row, bytes, pass, fill) in writes {
        let (p, f) = (gbps(*bytes, *pass), gbps(*bytes, *fill));
        println!("| {row} | {:.2} | {p:.1} | {f:.1} | {:.2} |", *bytes as f64 / 1e9, p / f);
    }
}
