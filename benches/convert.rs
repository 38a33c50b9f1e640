//! CPU conversions against the strongest copy of the same bytes, measured in one run.
//!
//! For f32, f16 and u8 at 1, 16 and 256 MiB: NCHW→NHWC, NHWC→NCHW, NCHW→NC/32HW32,
//! NCDHW→NDHWC, `Bmn<RowMajor>`→`Bmn<ColMajor>`, and C = 3 NCHW→NHWC. Each row races, interleaved
//! round by round (best time of each; the machine drifts, so no contender gets a quieter window):
//!
//! * four copies of the same bytes: `copy_from_slice` (one thread), one contiguous part per
//!   thread, and both with streaming stores (`typed_layout::simd::copy`): the **strongest**
//!   of them is the baseline (and the strongest one-thread copy for the one-thread figures);
//! * typed-layout into an existing buffer on all of rayon's threads and on a one-thread pool
//!   (timed on its worker, as a caller with one thread runs it), and `to_layout` (allocating);
//!   every contender on all threads starts with the workers awake, and the table says what
//!   waking them adds;
//! * ndarray's `permuted_axes(..).as_standard_layout()` (allocating, as it must), after checking
//!   once that it produces our bytes; raced at 16 MiB only, timed after the race in cache and
//!   at 256 MiB (its milliseconds a round there cost the others: `Bench::row` says how);
//! * a **fresh copy**: the same bytes copied into new storage, the strongest of two ways
//!   alternating round by round: `to_vec` (one thread, each byte written once) and a streaming
//!   copy per thread into zeroed storage with huge pages (the limit of an allocating conversion:
//!   the kernel's zeroing of fresh pages is in both).
//!
//! The last rows are the fused relayout + cast + pad (f32 NCHW C = 3 → f16, bf16 NHWC C = 8, i8
//! C = 4 quantized; u8 NCHW C = 3 → f16 NHWC C = 4, → f32 C = 4 normalized; one 224 × 224 image
//! of f32 and of bytes into f16): into an existing buffer, allocating in the `to_layout` column,
//! and their writes against a streamed fill of an existing and of a fresh destination.
//!
//! One table gives GB/s (bytes read + written, best round) and the ratios, and per row the
//! share of the vCPUs' time the host took while it ran (a shared VM's steal: a row that lost
//! some ran its contenders slower unevenly, so its ratios are the host's). Two probes follow,
//! each raced against the copy and typed-layout: the 16 and 256 MiB rows' access patterns
//! without their transposes (and the row→column rows' writes alone, one line and four lines of
//! each destination row in turn), and for every 1 MiB row the lines its transpose reads and
//! writes, copied whole without the shuffles: raced on one thread, then timed back to back on
//! all threads beside the copy and typed-layout (as the peers' table times everyone). In-cache
//! races (the 1 MiB rows, the in-cache probes) run at least [`IN_CACHE_RACE`], so every
//! contender sees the machine's quiet seconds. Each row's copies, and each probe that is a
//! row's limit, are timed back to back too, for the peers' table. A last table races
//! typed-layout and the copy into a destination on huge pages (as the library allocates) and
//! one held on 4 KiB pages (as a caller's own buffer can be), and typed-layout into one
//! starting 16 bytes past a cache line (as glibc starts a large `Vec`), for the rows that write
//! across many pages at once. `cargo bench --bench convert -- 256MiB` runs the rows whose name
//! contains `256MiB` (about 4 minutes for everything).

// The limit probes of the 16 and 256 MiB rows, each raced against the copy and typed-layout.
#[path = "convert/probes.rs"]
mod probes;
// The in-cache limit probes of the 1 MiB rows.
#[path = "convert/in_cache.rs"]
mod in_cache;
// The table of the races and the CSV for `bench/peers.py`.
#[path = "convert/report.rs"]
mod report;
// What the machine does around the races: rayon's sleeping workers, huge pages.
#[path = "convert/machine.rs"]
mod machine;
// The library's own loops without their shuffles, hot beside typed-layout.
#[path = "convert/strip_probes.rs"]
mod strip_probes;
// Those loops' loads and stores (`std::arch`), which the strip probes run.
#[path = "convert/strip_loops.rs"]
mod strip_loops;
// The fused relayout + cast + pad rows.
#[path = "convert/fused.rs"]
mod fused;
// typed-layout and the copy into destinations on huge pages and on 4 KiB pages.
#[path = "convert/pages.rs"]
mod pages;
use in_cache::probes_in_cache;
use machine::{huge_pages_mib, wake_pool, Steal, HUGE_PAGES, STOLEN};
use probes::{fill_streamed, print_writes, probe};
use report::{print_table, write_csv};
use strip_probes::{streamed_nchw_probe, streamed_probes, strip_probe};

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use half::f16;
use ndarray::{ArrayViewD, IxDyn};
use typed_layout::simd::{copy, copy_parallel, Stores};
use typed_layout::DimsOf;
use typed_layout::SameFamily;
use typed_layout::{
    convert, Bmn, ColMajor, Element, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Tensor,
    PARALLEL_THRESHOLD_BYTES,
};

/// Element types of the table, with a value per position.
trait Sample: Element {
    const NAME: &'static str;
    fn at(i: usize) -> Self;
}
impl Sample for f32 {
    const NAME: &'static str = "f32";
    fn at(i: usize) -> Self {
        i as f32
    }
}
impl Sample for f16 {
    const NAME: &'static str = "f16";
    fn at(i: usize) -> Self {
        f16::from_bits(i as u16 & 0x7bff)
    }
}
impl Sample for u8 {
    const NAME: &'static str = "u8";
    fn at(i: usize) -> Self {
        i as u8
    }
}

/// The contenders, in the order each round runs them.
const CONTENDERS: [&str; 9] = [
    "copy_from_slice",
    "copy per thread",
    "streaming copy",
    "streaming copy per thread",
    "typed-layout",
    "typed-layout 1 thread",
    "to_layout",
    "ndarray",
    "fresh copy",
];
/// Which contenders are copies, and which of those run on one thread.
const COPIES: [usize; 4] = [0, 1, 2, 3];
const ONE_THREAD_COPIES: [usize; 2] = [0, 2];
/// Whether contender `k` runs on all of rayon's threads in round `round` of a race whose
/// destination has `bytes`: then it starts with the pool awake ([`wake_pool`]). typed-layout
/// and `to_layout` do from [`PARALLEL_THRESHOLD_BYTES`] on (below it they run on the calling
/// thread, and workers woken for nothing spin beside it: u8 C = 3 at 1 MiB, just under the
/// threshold, ran at 20-25 GB/s so and at 30-35 on the one-thread pool), the fresh copy where
/// [`fresh_copy_streams`].
fn on_all_threads(k: usize, round: usize, bytes: usize) -> bool {
    match k {
        1 | 3 => true,
        4 | 6 => bytes >= PARALLEL_THRESHOLD_BYTES,
        8 => fresh_copy_streams(round),
        _ => false,
    }
}

/// How long an in-cache race (a 1 MiB row, an in-cache probe) runs at least. Shuffle-bound
/// loops here move twice as fast in some seconds as in others (a sibling hyperthread on the
/// shared shuffle port, by inference), while copies hold steady; a race of a few milliseconds
/// lands in one phase, one of a few seconds gives every contender the quiet windows.
const IN_CACHE_RACE: Duration = Duration::from_secs(2);

/// Per row, in the order the rows ran: its name, bytes read + written, best time per contender.
static RESULTS: Mutex<Vec<(String, u64, [Duration; 9])>> = Mutex::new(Vec::new());

/// The fused rows' destination bytes, best pass into an existing buffer and best streamed fill of
/// those bytes (the write limit).
static WRITES: Mutex<Vec<(String, u64, [Duration; 4])>> = Mutex::new(Vec::new());

/// What `bench/peers.py` needs to time the same row: the source's storage as `view` dims, and
/// the `axes` permutation that gives the destination's storage order.
struct Peer {
    row: String,
    dtype: &'static str,
    view: Vec<usize>,
    axes: Vec<usize>,
}

static PEERS: Mutex<Vec<Peer>> = Mutex::new(Vec::new());

/// Per row, typed-layout's best times into its buffer on all threads and `to_layout`, each
/// called back to back, and the strongest copy of the same bytes timed so (the best of the
/// race's four copies).
static HOT: Mutex<Vec<(String, [Duration; 3])>> = Mutex::new(Vec::new());

/// Per row that has a limit probe of its access pattern (the limit probes, the in-cache probes,
/// the strip probes), that probe's best time called back to back on all threads, as [`HOT`]:
/// the peers' table sets it beside ONNX Runtime (the strongest probe where a row has several).
static PROBE_HOT: Mutex<Vec<(String, Duration)>> = Mutex::new(Vec::new());

/// The best time of `f` called back to back for a second (at least 3 calls): how
/// `bench/peers.py` times the Python peers, so the peers' table compares like with like (their
/// caches as the call before left them), beside this table's interleaved races.
fn hot_best(mut f: impl FnMut()) -> Duration {
    let (start, mut best, mut calls) = (Instant::now(), Duration::MAX, 0);
    while calls < 3 || start.elapsed() < Duration::from_secs(1) {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        calls += 1;
    }
    best
}

struct Bench {
    one_thread: rayon::ThreadPool,
    filter: Option<String>,
    /// Only the row named by [`HOT_ONLY`], only its back-to-back times ([`Bench::hot_only`]).
    hot_only: bool,
}

/// The environment variable that names one row to time back to back only (typed-layout into
/// its buffer and `to_layout`), printed as `hot ROW SECONDS SECONDS`: `bench/peers.py` runs the
/// bench so between its timings of ONNX Runtime on the same row, so both are timed in the same
/// minute of this machine's drifting speed.
const HOT_ONLY: &str = "TL_BENCH_HOT";

impl Bench {
    /// `f`'s time on the one-thread pool, measured on its worker: what a caller whose rayon pool
    /// has one thread sees (the library then runs on the calling thread). Timed around
    /// `install`, it would add the wake-up of the pool's sleeping worker, which on this
    /// machine class takes 45–95 µs, more than a 1 MiB pass.
    fn on_one_thread(&self, f: impl FnOnce() + Send) -> Duration {
        self.one_thread.install(|| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
    }

    /// Whether `row` is left out by the command line's filter (by [`HOT_ONLY`]'s name: every
    /// row but that one).
    fn skips(&self, row: &str) -> bool {
        match self.hot_only {
            true => self.filter.as_deref() != Some(row),
            false => self.filter.as_ref().is_some_and(|f| !row.contains(f.as_str())),
        }
    }

    /// [`HOT_ONLY`]'s times of `row`: typed-layout into `dst` and `to_layout`, each called back
    /// to back ([`hot_best`]), after one call that faults the destination in.
    fn hot_only<T: Sample, S: Layout, D: Layout>(row: &str, src: &Tensor<T, S>, dst: &mut Tensor<T, D>)
    where
        D::Family: SameFamily<S::Family>,
    {
        convert(src, &mut *dst).unwrap();
        let into = hot_best(|| convert(black_box(src), &mut *dst).unwrap());
        let fresh = hot_best(|| drop(black_box(src.to_layout::<D>().unwrap())));
        println!("hot {row} {:e} {:e}", into.as_secs_f64(), fresh.as_secs_f64());
    }

    /// One row: `src` converted to `D`, raced against the copies and the peer, which sees the
    /// source's storage as an array of `view` dims and permutes its `axes` into the
    /// destination's storage order.
    fn row<T: Sample, S: Layout, D: Layout>(
        &mut self,
        what: &str,
        size: &str,
        dims: DimsOf<S>,
        view: &[usize],
        axes: &[usize],
    ) where
        D::Family: SameFamily<S::Family>,
    {
        let row = format!("{}/{size}/{what}", T::NAME);
        if self.skips(&row) {
            return;
        }
        let src = Tensor::<T, S>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k)))
            .expect("the row's shape is valid");
        let fresh = || Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
        let mut dst = fresh();
        if self.hot_only {
            return Self::hot_only(&row, &src, &mut dst);
        }
        convert(&src, &mut dst).unwrap();
        if size == "256MiB" {
            HUGE_PAGES.lock().unwrap().extend(huge_pages_mib());
        }
        let input = ArrayViewD::from_shape(IxDyn(view), src.as_slice()).unwrap();
        let peer = |v: ArrayViewD<'_, T>| v.permuted_axes(IxDyn(axes)).as_standard_layout().into_owned();
        let expected = peer(input.clone());
        assert!(expected.as_slice() == Some(dst.as_slice()), "{what}: ndarray disagrees with typed-layout");
        drop(expected);

        let len = src.as_slice().len();
        let bytes = 2 * (len * T::SIZE) as u64;
        // Each contender writes its own buffer (as in the in-cache probes' races).
        let [mut out, mut out_all, mut streamed, mut streamed_all] =
            core::array::from_fn(|_| vec![T::default(); len]);
        let mut dst_one = fresh();
        PEERS.lock().unwrap().push(Peer {
            row: row.clone(),
            dtype: T::NAME,
            view: view.to_vec(),
            axes: axes.to_vec(),
        });
        let threads = rayon::current_num_threads();
        let s = src.as_slice();
        // Eleven rounds at 256 MiB, not five: this host's memory bandwidth swings between
        // windows of 45 and 60-70 GB/s, and with five rounds one contender could catch such a
        // window where the others did not (the strongest copy read 38-67 GB/s between rows of
        // one run, and a row's ratio moved by a third with it).
        let rounds = match bytes {
            b if b <= 4 << 20 => 41,
            _ => 11,
        };
        // ndarray takes seconds a round at 256 MiB. Raced there, it left the memory the others
        // freed idle long enough for this machine class's host to take it back (the VM reports
        // free pages to it): the next fresh 256 MiB then took 265-323 ms to fault in instead of
        // 16, for whichever allocating contender came next. So there it runs after the race.
        // In cache (1 MiB) too: its 2-10 ms a round left every contender's data out of the
        // caches (a 10 ms sleep or spin in its place did the same), so the copies read from
        // memory. C = 3 NCHW->NHWC, two threads, raced with ndarray → without: the strongest
        // copy 46-58 → 105-112 GB/s, typed-layout ÷ it 0.50-0.71 → 0.86-0.99; at 16 MiB, from
        // memory either way, no change.
        let ndarray_raced = bytes > 4 << 20 && bytes <= 64 << 20;
        let ndarray_after = match bytes {
            _ if ndarray_raced => 0,
            b if b <= 4 << 20 => 5,
            _ => 2,
        };
        let mut best = [Duration::MAX; 9];
        let race = Instant::now();
        let steal = Steal::now();
        let mut round = 0;
        while round < rounds || (bytes <= 4 << 20 && race.elapsed() < IN_CACHE_RACE) {
            round += 1;
            for (k, slot) in best.iter_mut().enumerate().filter(|&(k, _)| k != 7 || ndarray_raced) {
                if k == 5 {
                    *slot =
                        (*slot).min(self.on_one_thread(|| convert(black_box(&src), &mut dst_one).unwrap()));
                    continue;
                }
                if on_all_threads(k, round, len * T::SIZE) {
                    wake_pool();
                }
                let start = Instant::now();
                match k {
                    0 => out.copy_from_slice(black_box(s)),
                    1 => copy_parallel(&mut out_all, black_box(s), Stores::Ordinary, threads).unwrap(),
                    2 => copy(&mut streamed, black_box(s), Stores::Streaming).unwrap(),
                    3 => copy_parallel(&mut streamed_all, black_box(s), Stores::Streaming, threads).unwrap(),
                    4 => convert(black_box(&src), &mut dst).unwrap(),
                    6 => drop(black_box(src.to_layout::<D>().unwrap())),
                    7 => drop(black_box(peer(input.clone()))),
                    _ => drop(black_box(fresh_copy(s, threads, round))),
                }
                *slot = (*slot).min(start.elapsed());
            }
        }
        for _ in 0..ndarray_after {
            let start = Instant::now();
            drop(black_box(peer(input.clone())));
            best[7] = best[7].min(start.elapsed());
        }
        black_box((&out, &out_all, &streamed, &streamed_all, &dst_one));
        // Back to back, as `bench/peers.py` times the Python peers: for their table only.
        let copies_hot = [
            hot_best(|| out.copy_from_slice(black_box(s))),
            hot_best(|| copy(&mut streamed, black_box(s), Stores::Streaming).unwrap()),
            hot_best(|| copy_parallel(&mut out_all, black_box(s), Stores::Ordinary, threads).unwrap()),
            hot_best(|| copy_parallel(&mut streamed_all, black_box(s), Stores::Streaming, threads).unwrap()),
        ];
        let hot = [
            hot_best(|| convert(black_box(&src), &mut dst).unwrap()),
            hot_best(|| drop(black_box(src.to_layout::<D>().unwrap()))),
            copies_hot.into_iter().min().unwrap(),
        ];
        HOT.lock().unwrap().push((row.clone(), hot));
        STOLEN.lock().unwrap().push((row.clone(), steal.share_since()));
        eprintln!("{row}: done");
        RESULTS.lock().unwrap().push((row, bytes, best));
    }
}

/// `src` copied into new storage, in round `round`'s way: on even rounds streamed on every
/// thread into zeroed storage (huge pages, faulted in on every thread, as `to_layout` allocates
/// large results), on odd rounds `to_vec` (one thread, no value stored first, as `to_layout`
/// writes). The best of both is the limit of the `to_layout` column.
fn fresh_copy<T: Element>(src: &[T], threads: usize, round: usize) -> Tensor<T, Bmn<RowMajor>> {
    if !fresh_copy_streams(round) {
        return Tensor::from_vec([1, 1, src.len()], src.to_vec()).unwrap();
    }
    let mut out = Tensor::<T, Bmn<RowMajor>>::zeros([1, 1, src.len()]).unwrap();
    copy_parallel(out.as_mut_slice(), src, Stores::Streaming, threads).unwrap();
    out
}

/// Whether [`fresh_copy`] streams on every thread in round `round` (else `to_vec`).
fn fresh_copy_streams(round: usize) -> bool {
    round.is_multiple_of(2)
}

/// The square-ish `h × w` with `h · w = hw`, both powers of two when `hw` is one.
fn plane(hw: usize) -> (usize, usize) {
    let h = 1 << (hw.ilog2() / 2);
    (h, hw / h)
}

fn rows<T: Sample>(b: &mut Bench) {
    for (size, mib, n) in [("1MiB", 1usize, 1usize), ("16MiB", 16, 4), ("256MiB", 256, 16)] {
        let elements = (mib << 20) / T::SIZE;
        let c = 64;
        let (h, w) = plane(elements / (n * c));
        b.row::<T, Nchw, Nhwc>("NCHW->NHWC", size, [n, c, h, w], &[n, c, h, w], &[0, 2, 3, 1]);
        b.row::<T, Nhwc, Nchw>("NHWC->NCHW", size, [n, c, h, w], &[n, h, w, c], &[0, 3, 1, 2]);
        let split = [n, c / 32, 32, h, w];
        b.row::<T, Nchw, NcxHwx<32>>("NCHW->NC/32HW32", size, [n, c, h, w], &split, &[0, 1, 3, 4, 2]);
        let (d, (h3, w3)) = (8, plane(elements / (n * 32 * 8)));
        b.row::<T, Ncdhw, Ndhwc>(
            "NCDHW->NDHWC",
            size,
            [n, 32, d, h3, w3],
            &[n, 32, d, h3, w3],
            &[0, 2, 3, 4, 1],
        );
        let (m, k) = plane(elements / n);
        b.row::<T, Bmn<RowMajor>, Bmn<ColMajor>>("BMN row->col", size, [n, m, k], &[n, m, k], &[0, 2, 1]);
        // Rounded up, so that the row is not under the size it is named for: rounded down, the
        // 1 MiB row was 1 KiB under `PARALLEL_THRESHOLD_BYTES` and ran on the calling thread.
        let w3c = elements.div_ceil(n * 3 * h).next_multiple_of(8);
        b.row::<T, Nchw, Nhwc>("C=3 NCHW->NHWC", size, [n, 3, h, w3c], &[n, 3, h, w3c], &[0, 2, 3, 1]);
        b.row::<T, Nhwc, Nchw>("C=3 NHWC->NCHW", size, [n, 3, h, w3c], &[n, h, w3c, 3], &[0, 3, 1, 2]);
    }
}

fn main() {
    // `cargo bench --bench convert -- FILTER`: cargo passes `--bench` too.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    let hot = std::env::var(HOT_ONLY).ok();
    let (filter, hot_only) = match hot {
        Some(row) => (Some(row), true),
        None => (filter, false),
    };
    let mut b = Bench { one_thread, filter, hot_only };
    rows::<f32>(&mut b);
    rows::<f16>(&mut b);
    rows::<u8>(&mut b);
    if hot_only {
        return;
    }
    b.fused_rows();
    let mut probes = Vec::new();
    probe::<f32>(&b, &mut probes);
    probe::<f16>(&b, &mut probes);
    probe::<u8>(&b, &mut probes);
    let mut in_cache = [Vec::new(), Vec::new()];
    probes_in_cache::<f32>(&b, &mut in_cache);
    probes_in_cache::<f16>(&b, &mut in_cache);
    probes_in_cache::<u8>(&b, &mut in_cache);
    let mut strip_probes = Vec::new();
    strip_probe::<f32>(&b, &mut strip_probes);
    strip_probe::<f16>(&b, &mut strip_probes);
    strip_probe::<u8>(&b, &mut strip_probes);
    streamed_probes::<f32>(&b, &mut strip_probes);
    streamed_probes::<f16>(&b, &mut strip_probes);
    streamed_probes::<u8>(&b, &mut strip_probes);
    streamed_nchw_probe::<f32>(&b, &mut strip_probes);
    streamed_nchw_probe::<f16>(&b, &mut strip_probes);
    streamed_nchw_probe::<u8>(&b, &mut strip_probes);
    let mut pages = Vec::new();
    pages::page_rows::<f32>(&b, &mut pages);
    pages::page_rows::<u8>(&b, &mut pages);
    print_table();
    print_writes(&WRITES.lock().unwrap());
    if !probes.is_empty() {
        println!();
        println!("## Limit probes: the 16 and 256 MiB rows' access patterns without the transposes");
        println!();
        println!("| row | strongest copy GB/s | typed-layout | ÷ copy | probe | ÷ copy |");
        println!("|---|---:|---:|---:|---:|---:|");
        probes.iter().for_each(|p| println!("{p}"));
    }
    if !in_cache[0].is_empty() {
        println!();
        println!(
            "## In-cache limit probe: the lines each 1 MiB transpose reads and writes, without the shuffles"
        );
        println!();
        println!("Raced on one thread; then back to back on all threads (\"hot\", as the peers' table).");
        println!();
        println!("| row | copy_from_slice GB/s | typed-layout 1 thread | ÷ copy | probe | ÷ copy | typed-layout ÷ probe | hot: copy per thread | typed-layout | probe | typed-layout ÷ probe |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        in_cache[0].iter().for_each(|p| println!("{p}"));
        println!();
        println!("Raced on all threads, in the same rounds (each contender with the pool awake):");
        println!();
        println!("| row | strongest copy per thread | GB/s | typed-layout | ÷ copy | probe | ÷ copy | typed-layout ÷ probe |");
        println!("|---|---|---:|---:|---:|---:|---:|---:|");
        in_cache[1].iter().for_each(|p| println!("{p}"));
    }
    if !strip_probes.is_empty() {
        println!();
        println!("## Strip probes: the library's loops for the rows behind their peer target, without the shuffles");
        println!();
        println!("Back to back on all threads (\"hot\", as the peers' table).");
        println!();
        println!("| row | threads | typed-layout hot GB/s | probe hot GB/s | typed-layout ÷ probe |");
        println!("|---|---:|---:|---:|---:|");
        strip_probes.iter().for_each(|p| println!("{p}"));
    }
    if !pages.is_empty() {
        println!();
        println!("## The destination's pages and start: huge pages (the library's allocations), 4 KiB pages, 16 bytes past a line (glibc's start of a large `Vec`)");
        println!();
        println!("Raced round by round: a copy per thread (the stronger of ordinary and streaming stores) and typed-layout, into each kind of page on a line, and typed-layout into the 4 KiB pages 16 bytes past a line.");
        println!();
        println!("| row | strongest copy: huge pages GB/s | 4 KiB pages | typed-layout: huge pages | 4 KiB pages | 4 KiB, 16 B past a line | ÷ copy, huge | 4 KiB ÷ huge | 16 B past ÷ on a line | buffers held the pages asked |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        pages.iter().for_each(|p| println!("{p}"));
    }
    write_csv().expect("TL_BENCH_CSV is writable");
}
