//! CPU conversions beside the limit and a peer, measured in one run.
//!
//! For f32, f16 and u8 at 1, 16 and 256 MiB: NCHW→NHWC, NHWC→NCHW, NCHW→NC/32HW32,
//! NCDHW→NDHWC, `Bmn<RowMajor>`→`Bmn<ColMajor>`, and C = 3 NCHW→NHWC. Each row times
//!
//! * typed-layout on all of rayon's threads, and on a one-thread pool;
//! * a memory copy of the same bytes on all threads (rayon chunks) and on one (`copy_from_slice`),
//!   the limit: a conversion reads and writes every byte once, as a copy does;
//! * ndarray's `permuted_axes(..).as_standard_layout()` (what a user would write; it allocates
//!   its result, as it must), after checking once that it produces our bytes.
//!
//! Criterion prints each timing; at the end one table gives GB/s (bytes read + written, best
//! sample) and the ratios. `cargo bench --bench convert -- f32/256` runs a subset.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use half::f16;
use ndarray::{ArrayViewD, IxDyn};
use rayon::prelude::*;
use typed_layout::DimsOf;
use typed_layout::SameFamily;
use typed_layout::{
    convert, Bmn, ColMajor, Element, Layout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Tensor,
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

const CONTENDERS: [&str; 5] =
    ["typed-layout", "typed-layout 1 thread", "memcpy", "memcpy 1 thread", "ndarray"];

/// Best time per iteration of each contender.
type Best = BTreeMap<&'static str, Duration>;

/// Per row, in the order the rows ran: its name, bytes read + written, best times.
static RESULTS: Mutex<Vec<(String, u64, Best)>> = Mutex::new(Vec::new());

/// What `bench/peers.py` needs to time the same row: the source's storage as `view` dims, and
/// the `axes` permutation that gives the destination's storage order.
struct Peer {
    row: String,
    dtype: &'static str,
    view: Vec<usize>,
    axes: Vec<usize>,
}

static PEERS: Mutex<Vec<Peer>> = Mutex::new(Vec::new());

fn record(row: &str, bytes: u64, who: &'static str, t: Duration) {
    let mut results = RESULTS.lock().unwrap();
    let at = match results.iter().position(|(r, ..)| r == row) {
        Some(at) => at,
        None => {
            results.push((row.to_string(), bytes, BTreeMap::new()));
            results.len() - 1
        }
    };
    let best = results[at].2.entry(who).or_insert(t);
    *best = (*best).min(t);
}

struct Bench<'a> {
    c: &'a mut Criterion,
    one_thread: rayon::ThreadPool,
}

impl Bench<'_> {
    /// One row: `src` converted to `D`, beside copies and the peer, which sees the source's
    /// storage as an array of `view` dims and permutes its `axes` into the destination's storage
    /// order.
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
        let src = Tensor::<T, S>::from_fn(dims, |i| T::at(i.as_ref().iter().fold(0, |a, &k| a * 31 + k)))
            .expect("the row's shape is valid");
        let mut dst = Tensor::<T, D>::zeros(<D::Family as SameFamily<S::Family>>::same_dims(dims)).unwrap();
        convert(&src, &mut dst).unwrap();
        let input = ArrayViewD::from_shape(IxDyn(view), src.as_slice()).unwrap();
        let peer = |v: ArrayViewD<'_, T>| v.permuted_axes(IxDyn(axes)).as_standard_layout().into_owned();
        let expected = peer(input.clone());
        assert!(expected.as_slice() == Some(dst.as_slice()), "{what}: ndarray disagrees with typed-layout");

        let row = format!("{}/{size}/{what}", T::NAME);
        let bytes = 2 * (src.as_slice().len() * T::SIZE) as u64;
        let mut copy = vec![T::default(); src.as_slice().len()];
        PEERS.lock().unwrap().push(Peer {
            row: row.clone(),
            dtype: T::NAME,
            view: view.to_vec(),
            axes: axes.to_vec(),
        });
        let mut group = self.c.benchmark_group(&row);
        group.throughput(Throughput::Bytes(bytes));
        let pool = &self.one_thread;
        let mut time = |who: &'static str, f: &mut dyn FnMut()| {
            group.bench_function(who, |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        f();
                    }
                    let t = start.elapsed();
                    record(&row, bytes, who, t.div_f64(iters.max(1) as f64));
                    t
                })
            });
        };
        time("typed-layout", &mut || convert(black_box(&src), &mut dst).unwrap());
        time("typed-layout 1 thread", &mut || pool.install(|| convert(black_box(&src), &mut dst).unwrap()));
        time("memcpy", &mut || {
            copy.par_chunks_mut(1 << 16)
                .zip(src.as_slice().par_chunks(1 << 16))
                .for_each(|(d, s)| d.copy_from_slice(s))
        });
        time("memcpy 1 thread", &mut || copy.copy_from_slice(black_box(src.as_slice())));
        time("ndarray", &mut || drop(black_box(peer(input.clone()))));
        group.finish();
    }
}

/// The square-ish `h × w` with `h · w = hw`, both powers of two when `hw` is one.
fn plane(hw: usize) -> (usize, usize) {
    let h = 1 << (hw.ilog2() / 2);
    (h, hw / h)
}

fn rows<T: Sample>(b: &mut Bench<'_>) {
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
        let w3c = elements / (n * 3 * h) / 8 * 8;
        b.row::<T, Nchw, Nhwc>("C=3 NCHW->NHWC", size, [n, 3, h, w3c], &[n, 3, h, w3c], &[0, 2, 3, 1]);
    }
}

fn print_table() {
    let results = RESULTS.lock().unwrap();
    let gbps = |bytes: u64, t: Option<&Duration>| t.map(|t| bytes as f64 / t.as_secs_f64() / 1e9);
    let show = |x: Option<f64>, unit: &str| x.map_or("-".to_string(), |x| format!("{x:.2}{unit}"));
    println!();
    println!(
        "## CPU conversions, {} rayon threads (GB/s = bytes read + written / best time)",
        rayon::current_num_threads()
    );
    println!();
    println!(
        "| row | typed-layout | / memcpy | 1 thread | / memcpy 1 thread | ndarray | typed-layout / ndarray |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (row, bytes, best) in results.iter() {
        let [tl, tl1, mc, mc1, nd] = CONTENDERS.map(|who| gbps(*bytes, best.get(who)));
        let ratio = |a: Option<f64>, b: Option<f64>, unit| show(a.zip(b).map(|(a, b)| a / b), unit);
        println!(
            "| {row} | {} | {} | {} | {} | {} | {} |",
            show(tl, ""),
            ratio(tl, mc, ""),
            show(tl1, ""),
            ratio(tl1, mc1, ""),
            show(nd, ""),
            ratio(tl, nd, "×"),
        );
    }
}

/// With `TL_BENCH_CSV=path`: one line per row for `bench/peers.py`.
fn write_csv() -> std::io::Result<()> {
    let Some(path) = std::env::var_os("TL_BENCH_CSV") else { return Ok(()) };
    let (results, peers) = (RESULTS.lock().unwrap(), PEERS.lock().unwrap());
    let mut out =
        String::from("row,dtype,view,axes,bytes,typed_layout,typed_layout_1t,memcpy,memcpy_1t,ndarray\n");
    for (row, bytes, best) in results.iter() {
        let Some(p) = peers.iter().find(|p| &p.row == row) else { continue };
        let join = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
        let secs =
            CONTENDERS.map(|who| best.get(who).map_or(String::new(), |t| format!("{:e}", t.as_secs_f64())));
        out += &format!("{row},{},{},{},{bytes},{}\n", p.dtype, join(&p.view), join(&p.axes), secs.join(","));
    }
    std::fs::write(path, out)
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    let mut b = Bench { c: &mut c, one_thread };
    rows::<f32>(&mut b);
    rows::<f16>(&mut b);
    rows::<u8>(&mut b);
    c.final_summary();
    print_table();
    write_csv().expect("TL_BENCH_CSV is writable");
}
