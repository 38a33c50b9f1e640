//! The table of `benches/convert.rs`'s races, and the CSV that `bench/peers.py` reads.

use std::time::Duration;

use typed_layout::simd::Level;

use super::machine::{pool_wake_up, HUGE_PAGES, STOLEN};
use super::{CONTENDERS, COPIES, HOT, ONE_THREAD_COPIES, PEERS, PROBE_HOT, RESULTS};

/// The races' table: GB/s per contender and the ratios to the strongest copies.
pub(crate) fn print_table() {
    let results = RESULTS.lock().unwrap();
    let gbps = |bytes: u64, t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    println!();
    println!(
        "## CPU conversions: {} rayon threads, SIMD level {:?} (GB/s = bytes read + written / best round)",
        rayon::current_num_threads(),
        Level::detected()
    );
    println!();
    println!(
        "| row | strongest copy | GB/s | typed-layout | ÷ strongest | 1 thread | ÷ strongest 1-thread copy | to_layout | ÷ strongest | fresh copy | to_layout ÷ fresh copy | ndarray | host steal |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let stolen = STOLEN.lock().unwrap();
    for (row, bytes, best) in results.iter() {
        let steal = match stolen.iter().find(|(r, _)| r == row).and_then(|(_, s)| *s) {
            Some(share) => format!("{:.1} %", share * 100.0),
            None => "-".to_owned(),
        };
        let g = |k: usize| gbps(*bytes, best[k]);
        let strongest = |ks: &[usize]| ks.iter().copied().max_by(|&a, &b| g(a).total_cmp(&g(b))).unwrap();
        let (all, one) = (strongest(&COPIES), strongest(&ONE_THREAD_COPIES));
        println!(
            "| {row} | {} | {:.1} | {:.1} | {:.2} | {:.1} | {:.2} | {:.1} | {:.2} | {:.1} | {:.2} | {:.1} | {steal} |",
            CONTENDERS[all],
            g(all),
            g(4),
            g(4) / g(all),
            g(5),
            g(5) / g(one),
            g(6),
            g(6) / g(all),
            g(8),
            g(6) / g(8),
            g(7),
        );
    }
    println!();
    println!(
        "Host steal: the share of both vCPUs' time that the host took while the row ran (`/proc/stat`), all contenders and the back-to-back calls together."
    );
    let (median, best) = pool_wake_up();
    println!();
    println!(
        "Every contender on all threads starts with rayon's workers awake. Waking them after 2 ms idle (an empty broadcast) took {:.0} µs (median of 200; best {:.0} µs): a call that finds them asleep adds that.",
        median.as_secs_f64() * 1e6,
        best.as_secs_f64() * 1e6
    );
    let huge = HUGE_PAGES.lock().unwrap();
    if let (Some(least), Some(most)) = (huge.iter().min(), huge.iter().max()) {
        println!();
        println!(
            "Huge pages (AnonHugePages) once a 256 MiB row had its 512 MiB of buffers: {least}–{most} MiB."
        );
    }
}

/// With `TL_BENCH_CSV=path`: one line per row for `bench/peers.py` (seconds per contender;
/// `memcpy` is the strongest copy, `memcpy_1t` the strongest one-thread copy; `*_hot` back to
/// back, `probe_hot` the row's limit probe so, empty where it has none).
pub(crate) fn write_csv() -> std::io::Result<()> {
    let Some(path) = std::env::var_os("TL_BENCH_CSV") else { return Ok(()) };
    let (results, peers) = (RESULTS.lock().unwrap(), PEERS.lock().unwrap());
    let mut out = String::from(
        "row,dtype,view,axes,bytes,typed_layout,typed_layout_1t,memcpy,memcpy_1t,ndarray,to_layout,typed_layout_hot,to_layout_hot,memcpy_hot,probe_hot\n",
    );
    let (hot, probe_hot) = (HOT.lock().unwrap(), PROBE_HOT.lock().unwrap());
    for (row, bytes, best) in results.iter() {
        let Some(p) = peers.iter().find(|p| &p.row == row) else { continue };
        let hot = hot
            .iter()
            .find(|(r, _)| r == row)
            .map(|(_, t)| t.map(|t| format!("{:e}", t.as_secs_f64())).join(","));
        let join = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
        let min = |ks: &[usize]| ks.iter().map(|&k| best[k]).min().unwrap();
        let secs = [best[4], best[5], min(&COPIES), min(&ONE_THREAD_COPIES), best[7], best[6]]
            .map(|t| format!("{:e}", t.as_secs_f64()));
        let (dtype, view, axes) = (p.dtype, join(&p.view), join(&p.axes));
        let hot = hot.unwrap_or_else(|| ",,".into());
        // The strongest of the row's limit probes, where it has one.
        let probe = probe_hot.iter().filter(|(r, _)| r == row).map(|(_, t)| *t).min();
        let probe = probe.map_or(String::new(), |t| format!("{:e}", t.as_secs_f64()));
        out += &format!("{row},{dtype},{view},{axes},{bytes},{},{hot},{probe}\n", secs.join(","));
    }
    std::fs::write(path, out)
}
