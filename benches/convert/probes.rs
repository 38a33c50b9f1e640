//! The limit probes of `benches/convert.rs`: the conversions' access patterns without their
//! transposes, each raced against the copy of the same bytes and typed-layout.

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_layout::simd::{copy, copy_parallel, Stores};
use typed_layout::{
    convert, Bmn, ColMajor, DimsOf, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, SameFamily, Tensor,
};

use super::machine::side_by_side;
use super::{hot_best, plane, Bench, Sample, PROBE_HOT};

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
    let src = Tensor::<T, Bmn<RowMajor>>::from_fn([n, m, k], |i| T::at(i[1] * 7 + i[2])).unwrap();
    let mut dst = Tensor::<T, Bmn<ColMajor>>::zeros([n, m, k]).unwrap();
    let s: &[u8] = bytemuck::cast_slice(src.as_slice());
    // The probe's and the copies' destination allocated as typed-layout's is (huge pages asked
    // for: on 4 KiB pages, each line streamed to another destination row missed the TLB), so
    // that all of them write into the same kind of pages.
    let mut out_tensor = Tensor::<T, Bmn<ColMajor>>::zeros([n, m, k]).unwrap();
    let out_buf: &mut [u8] = bytemuck::cast_slice_mut(out_tensor.as_mut_slice());
    assert_eq!(out_buf.as_ptr().align_offset(64), 0, "{row}: the destination starts on a line");
    let threads = rayon::current_num_threads();
    let matrix = m * k * T::SIZE;
    let pattern =
        |d: &mut [u8]| side_by_side(d.chunks_mut(matrix).zip(s.chunks(matrix)), |(d, s)| task(s, d, [m, k]));
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
    let row = format!("{of} probe");
    if b.skips(&row) {
        return;
    }
    let src = Tensor::<T, S>::from_fn(dims, value).unwrap();
    let mut dst = Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
    let s = src.as_slice();
    assert_eq!(s.len(), images * c * hw, "{row}: the groups cover the tensor");
    // The probe's and the copies' destination allocated as typed-layout's is (huge pages asked
    // for), so that all of them write into the same kind of pages.
    let mut out_tensor =
        Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
    let out_buf = out_tensor.as_mut_slice();
    let threads = rayon::current_num_threads();
    let block = 1024;
    assert!(hw.is_multiple_of(block), "{row}: whole blocks of pixels");
    let pattern = |dst: &mut [T]| {
        side_by_side(dst.chunks_mut(c * hw).enumerate(), |(image, d)| {
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
        Contender::Copy(stores) => copy_parallel(out_buf, black_box(s), stores, threads).unwrap(),
        Contender::TypedLayout => convert(black_box(&src), &mut dst).unwrap(),
        Contender::Probe => pattern(out_buf),
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
/// a matrix a task on all threads ([`race_matrices`]). With AVX2 only, its piped tiles for 1-, 2-
/// and 4-byte elements (`strip_loops::piped_row_to_column_task`); with AVX-512, its strips
/// (`strip_loops::row_to_column_task`) of whole lines for 2- and 4-byte elements, and for bytes
/// on AMD's cores (whose streamed byte strips are AVX2's blocks in their EVEX forms, the same
/// strips in the same order) of half lines. Left out elsewhere (bytes at AVX-512 on other cores
/// stream whole-line strips of their own) and where the matrices hold no whole tiles (a
/// 2048-wide u8 matrix: its rows are shorter than the library's sweep).
fn probe_row_to_column<T: Sample>(b: &Bench, out: &mut Vec<String>, of: &str, nmk: [usize; 3]) {
    use super::strip_loops::{amd, avx2, avx512, piped_fits, piped_row_to_column_task};
    use super::strip_loops::{row_to_column_fits, row_to_column_task};
    let row = format!("{of} probe");
    let [_, m, k] = nmk;
    if b.skips(&row) {
        return;
    }
    if avx2() && !avx512() {
        if piped_fits([m, k], T::SIZE) {
            race_matrices::<T>(&row, Some(of), nmk, out, |s, d, mk| {
                piped_row_to_column_task(s, d, mk, T::SIZE)
            });
        }
        return;
    }
    let wide = avx512() && T::SIZE >= 2;
    let halves = T::SIZE == 1 && amd();
    if !(wide || halves) || !row_to_column_fits([m, k], T::SIZE) {
        return;
    }
    race_matrices::<T>(&row, Some(of), nmk, out, |s, d, mk| row_to_column_task(s, d, mk, T::SIZE, wide));
}

/// The write limit of a fused row, whose destination is larger than its source (bytes into f16
/// or f32 pixels of four channels write five times what they read): the destination's bytes
/// streamed from a cache-resident 64 KiB buffer, one contiguous part a thread, so nothing is
/// read from memory. No pass that writes those bytes can be faster.
pub(crate) fn fill_streamed(dst: &mut [u8], from: &[u8], threads: usize) {
    let part = dst.len().div_ceil(threads.max(1)).next_multiple_of(4096).max(4096);
    side_by_side(dst.chunks_mut(part), |part| {
        for chunk in part.chunks_mut(from.len()) {
            copy(chunk, &from[..chunk.len()], Stores::Streaming).unwrap();
        }
    });
}

/// Prints the fused rows' writes beside [`fill_streamed`]'s: `(row, destination bytes, [best
/// pass into an existing buffer, best fill, best allocating pass, best fill of a fresh
/// destination])`.
pub(crate) fn print_writes(writes: &[(String, u64, [Duration; 4])]) {
    if writes.is_empty() {
        return;
    }
    let gbps = |bytes: u64, t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    println!();
    println!("## Fused rows against the write limit: the destination's bytes alone, streamed from the cache");
    println!();
    println!(
        "Into an existing buffer against a fill of it; allocating against a fill of a fresh destination"
    );
    println!("(allocated as the library allocates, huge pages asked for, and dropped).");
    println!();
    println!(
        "| row | destination GB | typed-layout writes GB/s | streamed fill GB/s | ÷ fill \
         | allocating writes GB/s | fresh fill GB/s | ÷ fresh fill |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (row, bytes, [pass, fill, fresh_pass, fresh_fill]) in writes {
        let [p, f, a, ff] = [pass, fill, fresh_pass, fresh_fill].map(|t| gbps(*bytes, *t));
        println!(
            "| {row} | {:.2} | {p:.1} | {f:.1} | {:.2} | {a:.1} | {ff:.1} | {:.2} |",
            *bytes as f64 / 1e9,
            p / f,
            a / ff
        );
    }
}
