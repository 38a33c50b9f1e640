//! The in-cache limit probes of `benches/convert.rs`: each 1 MiB row's access pattern without
//! its transpose, raced on one thread and on all against the copy and typed-layout.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::simd::{copy_parallel, Stores};
use typed_layout::{
    convert, Bmn, ColMajor, DimsOf, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Tensor,
};

use super::machine::{side_by_side, wake_pool};
use super::{hot_best, plane, Bench, Sample, IN_CACHE_RACE, PROBE_HOT};

/// How an in-cache probe walks a plane of `a × bb` source elements into `bb` destination rows
/// of `a`: the lines its transpose reads and writes, in its order, without the shuffles.
#[derive(Clone, Copy)]
enum Walk {
    /// The strips' lines ([`lines`]): a tile's source runs, each copied whole into the
    /// destination rows the strip writes them to, `group` neighbouring lines of each run one
    /// after the other ([`Walk::lines`]).
    Lines { group: usize },
    /// Dense pixels of `a` channels from `a` planes (C = 3; [`pixel_runs`]): the planes' runs
    /// read side by side and the pixels written in order, as the interleave does.
    Pixels,
}

impl Walk {
    /// The strips' lines of planes of `a` source runs of `bb` elements, in the library's
    /// order: where AVX-512 stages the runs (in cache, runs a multiple of 4 KiB apart,
    /// destination rows of a line or more), four neighbouring lines of each run one after the
    /// other (`platform/simd/x86/transpose/staging.rs`), else one line of each run in turn.
    fn lines<T>(a: usize, bb: usize) -> Walk {
        let size = core::mem::size_of::<T>();
        let staged = super::strip_loops::avx512() && (bb * size).is_multiple_of(4096) && a * size >= 64;
        Walk::Lines { group: if staged { 4 } else { 1 } }
    }

    /// Whether the walk takes `len` destination rows of a plane of `a` source rows (`line`
    /// elements a cache line): whole pieces.
    fn fits(self, a: usize, len: usize, line: usize) -> bool {
        match self {
            Walk::Lines { .. } => fits(a, len, line),
            Walk::Pixels => len > 0,
        }
    }

    /// Copies destination rows `rows` of the `a × bb` plane `s` into `d` (which starts at row
    /// `rows.start`).
    fn run<T: Copy>(self, s: &[T], d: &mut [T], ab: [usize; 2], rows: core::ops::Range<usize>, line: usize) {
        match self {
            Walk::Lines { group } => wide_lines(s, d, ab, rows, [line, group]),
            Walk::Pixels => pixel_runs(s, d, ab, rows),
        }
    }
}

/// Pixels a block of [`pixel_runs`]: its `a` runs (one a plane) are read while its `a × 256`
/// destination elements are written.
const PIXEL_BLOCK: usize = 256;

/// Destination rows `rows` (pixels) of `a` planes of `bb` elements, without the interleave:
/// per block of [`PIXEL_BLOCK`] pixels, each plane's run is copied whole into the block's
/// destination, one after the other: the same source streams read and the same destination
/// written in order. `d` starts at pixel `rows.start`.
fn pixel_runs<T: Copy>(s: &[T], d: &mut [T], [a, bb]: [usize; 2], rows: core::ops::Range<usize>) {
    for p0 in rows.clone().step_by(PIXEL_BLOCK) {
        let n = PIXEL_BLOCK.min(rows.end - p0);
        let block = &mut d[(p0 - rows.start) * a..][..n * a];
        for (plane, to) in block.chunks_exact_mut(n).enumerate() {
            to.copy_from_slice(&s[plane * bb + p0..][..n]);
        }
    }
}

/// The in-cache limit probe of a 1 MiB row: the transpose's access pattern without its
/// shuffles. The row is `batch` planes of `a × b` source elements (source rows of `b`,
/// destination rows of `a`); `walk` copies the same lines as the transpose reads and writes, no
/// element moved across lanes ([`Walk`]). Raced on one thread against the one-thread copy and
/// typed-layout on one thread; then, back to back (the peers' table's way), on all threads,
/// cut as the library cuts an in-cache pass (one part of the destination's rows a thread),
/// beside a copy per thread and typed-layout on all threads.
fn probe_in_cache<T: Sample, S: Layout, D: Layout>(
    b: &Bench,
    what: &str,
    dims: DimsOf<S>,
    [batch, a, bb]: [usize; 3],
    walk: Walk,
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
    assert!(walk.fits(a, bb, line), "{row}: whole tiles");
    let pattern = |d: &mut [T]| {
        for plane in 0..batch {
            let (s, d) = (&s[plane * a * bb..][..a * bb], &mut d[plane * a * bb..][..a * bb]);
            walk.run(s, d, [a, bb], 0..bb, line);
        }
    };
    // On all threads, cut as the library cuts an in-cache pass on this machine class's two:
    // the destination's rows (`bb` a plane) into one part a thread, whole planes where there
    // are as many as threads. Where the parts do not hold whole pieces (other thread counts),
    // the hot probe is left out (printed `-`).
    let threads = rayon::current_num_threads();
    let parts = threads.div_ceil(batch);
    let part_rows = bb / parts;
    let cut = bb.is_multiple_of(parts) && walk.fits(a, part_rows, line);
    let parallel = |d: &mut [T]| {
        side_by_side(d.chunks_mut(part_rows * a).enumerate(), |(k, d)| {
            let (plane, r0) = (k * part_rows / bb, k * part_rows % bb);
            let s = &s[plane * a * bb..][..a * bb];
            let rows = r0..(r0 + part_rows).min(bb);
            walk.run(s, d, [a, bb], rows, line);
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
fn wide_lines<T: Copy>(
    s: &[T],
    d: &mut [T],
    ab: [usize; 2],
    rows: core::ops::Range<usize>,
    line: [usize; 2],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: Copy>(
            s: &[T],
            d: &mut [T],
            ab: [usize; 2],
            rows: core::ops::Range<usize>,
            line: [usize; 2],
        ) {
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
fn lines<T: Copy>(
    s: &[T],
    d: &mut [T],
    [a, bb]: [usize; 2],
    rows: core::ops::Range<usize>,
    [line, group]: [usize; 2],
) {
    let (ta, w) = (a.min(line), line.min(rows.len()));
    assert!(fits(a, rows.len(), line), "whole runs");
    match ta.min(w) {
        1 => lines_of::<T, 1>(s, d, [a, bb], rows, [ta, w, group]),
        2 => lines_of::<T, 2>(s, d, [a, bb], rows, [ta, w, group]),
        4 => lines_of::<T, 4>(s, d, [a, bb], rows, [ta, w, group]),
        8 => lines_of::<T, 8>(s, d, [a, bb], rows, [ta, w, group]),
        16 => lines_of::<T, 16>(s, d, [a, bb], rows, [ta, w, group]),
        32 => lines_of::<T, 32>(s, d, [a, bb], rows, [ta, w, group]),
        64 => lines_of::<T, 64>(s, d, [a, bb], rows, [ta, w, group]),
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
    [ta, w, group]: [usize; 3],
) {
    let copy = |d: &mut [T], s: &[T]| {
        let to: &mut [T; N] = (&mut d[..N]).try_into().expect("N elements");
        *to = s[..N].try_into().expect("N elements");
    };
    // Tiles `group` at a time where the destination rows are a line or more (the staged
    // strips'): each run's pieces of the group's tiles one after the other.
    let group = if ta >= w { group } else { 1 };
    for a0 in (0..a).step_by(ta) {
        for g0 in rows.clone().step_by(w * group) {
            let tiles = group.min((rows.end - g0) / w);
            for j in 0..ta {
                for t in 0..tiles {
                    let b0 = g0 + t * w;
                    let b = b0 - rows.start;
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
}

/// The in-cache probes of every 1 MiB row of `rows` (`convert.rs`), each with its plane
/// geometry.
pub(crate) fn probes_in_cache<T: Sample>(b: &Bench, out: &mut [Vec<String>; 2]) {
    let elements = (1 << 20) / T::SIZE;
    let (n, c) = (1, 64);
    let (h, w) = plane(elements / (n * c));
    let hw = h * w;
    // The strips' lines of planes `[batch, a, bb]`, in the library's order.
    let lines = |[_, a, bb]: [usize; 3]| Walk::lines::<T>(a, bb);
    probe_in_cache::<T, Nchw, Nhwc>(b, "NCHW->NHWC", [n, c, h, w], [n, c, hw], lines([n, c, hw]), out);
    probe_in_cache::<T, Nhwc, Nchw>(b, "NHWC->NCHW", [n, c, h, w], [n, hw, c], lines([n, hw, c]), out);
    let split = [n * c / 32, 32, hw];
    probe_in_cache::<T, Nchw, NcxHwx<32>>(b, "NCHW->NC/32HW32", [n, c, h, w], split, lines(split), out);
    let (d, (h3, w3)) = (8, plane(elements / (n * 32 * 8)));
    let dhw = d * h3 * w3;
    probe_in_cache::<T, Ncdhw, Ndhwc>(
        b,
        "NCDHW->NDHWC",
        [n, 32, d, h3, w3],
        [n, 32, dhw],
        lines([n, 32, dhw]),
        out,
    );
    let (m, k) = plane(elements / n);
    probe_in_cache::<T, Bmn<RowMajor>, Bmn<ColMajor>>(
        b,
        "BMN row->col",
        [n, m, k],
        [n, m, k],
        lines([n, m, k]),
        out,
    );
    // The C = 3 row's shape (`rows`): three planes of `h × w3` pixels.
    let w3 = elements.div_ceil(n * 3 * h).next_multiple_of(8);
    let pixels = Walk::Pixels;
    probe_in_cache::<T, Nchw, Nhwc>(b, "C=3 NCHW->NHWC", [n, 3, h, w3], [n, 3, h * w3], pixels, out);
}
