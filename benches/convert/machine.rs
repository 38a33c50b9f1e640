//! What the machine does around the races of `benches/convert.rs`: rayon's workers sleep between
//! calls (waking them is timed apart), and whether large buffers got transparent huge pages.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs `work` on every part on the calling thread and rayon's workers, each taking the next
/// part, as the library runs a pass's parts (its own `tasks::for_each`, private to it): the
/// probes and fills then pay what the library pays to start a pass on all threads, no more.
/// (Through a parallel iterator the caller sleeps while the workers run, and a pass in the
/// caches lost about 5 µs a call to the hand-over and the wake-up.) Like the library's, the
/// parts come as an iterator (nothing collected), and the caller spins for its helpers, for at
/// most as long as it worked, before the scope's wait would put it to sleep.
pub(crate) fn side_by_side<I>(parts: I, work: impl Fn(I::Item) + Sync)
where
    I: ExactSizeIterator + Send,
    I::Item: Send,
{
    let helpers = parts.len().min(rayon::current_num_threads()).saturating_sub(1);
    let parts = Mutex::new(parts);
    // The lock is held only to take a part: taken in the `while let` itself, its guard would
    // live through `work`, and the caller, which takes the lock again at once, ran every part
    // while the helper waited (in 2000 calls of two 100 µs parts the helper ran 3).
    let next = || parts.lock().unwrap().next();
    let drain = || {
        while let Some(part) = next() {
            work(part);
        }
    };
    if helpers == 0 {
        return drain();
    }
    let done = AtomicUsize::new(0);
    rayon::in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| {
                drain();
                done.fetch_add(1, Ordering::Release);
            });
        }
        let start = Instant::now();
        drain();
        let (worked, since) = (start.elapsed(), Instant::now());
        while done.load(Ordering::Acquire) < helpers && since.elapsed() <= worked {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
    });
}

/// Wakes rayon's workers (untimed) before a contender on all threads, so that every one starts
/// as in a run of calls: raced as they come, a contender after one on a single thread met
/// sleeping workers and one after another on all threads did not (typed-layout followed a copy
/// per thread, the copies per thread followed single-thread copies). [`pool_wake_up`] measures
/// what a call finding the workers asleep adds.
pub(crate) fn wake_pool() {
    rayon::broadcast(|_| ());
}

/// The time an empty broadcast to rayon's workers takes after 2 ms idle (they sleep by then),
/// median and best of 200: what a call on all threads adds when it finds them asleep.
pub(crate) fn pool_wake_up() -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..200)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(2));
            let start = Instant::now();
            rayon::broadcast(|_| ());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0])
}

/// The process's memory in transparent huge pages (MiB) once each 256 MiB row has allocated
/// its source and destination: whether they got huge pages is up to the OS (free 2 MiB blocks),
/// and planes a power of two apart conflict in the caches when they are physically contiguous.
pub(crate) static HUGE_PAGES: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// `AnonHugePages` of `/proc/self/smaps_rollup`, in MiB (Linux; `None` elsewhere).
pub(crate) fn huge_pages_mib() -> Option<u64> {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = rollup.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? >> 10)
}

/// Per row, the share of the vCPUs' time that the host took while the row's contenders ran
/// (`None` where `/proc/stat` has no steal count). A shared VM's host runs other guests on the
/// same cores: a row that lost a few percent of its time so ran every contender that met it
/// slower, and its ratios say more about the host than about the contenders.
pub(crate) static STOLEN: Mutex<Vec<(String, Option<f64>)>> = Mutex::new(Vec::new());

/// The host's steal so far, from `/proc/stat` (all CPUs, at the kernel's user clock of 100
/// ticks a second), and when it was read.
pub(crate) struct Steal(Option<Duration>, Instant);

impl Steal {
    pub(crate) fn now() -> Steal {
        let read = || {
            let stat = std::fs::read_to_string("/proc/stat").ok()?;
            let ticks: u64 = stat.lines().next()?.split_whitespace().nth(8)?.parse().ok()?;
            Some(Duration::from_millis(ticks * 10))
        };
        Steal(read(), Instant::now())
    }

    /// The share of all vCPUs' time since `self` that the host took.
    pub(crate) fn share_since(&self) -> Option<f64> {
        let now = Steal::now();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let wall = now.1.duration_since(self.1).as_secs_f64() * cpus as f64;
        Some(now.0?.saturating_sub(self.0?).as_secs_f64() / wall)
    }
}
