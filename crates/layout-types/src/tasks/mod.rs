//! A pass's parts run side by side on rayon's pool with the calling thread among the workers
//! (feature `parallel`).
//!
//! Called from outside the pool, a parallel iterator, `join` or `scope` hands the whole job to
//! the pool and puts the caller to sleep until the last part is done: the hand-over and the
//! wake-up cost microseconds a call, a share of every pass in the caches. Here the caller takes
//! parts itself while the workers are woken for the rest, through `rayon::in_place_scope`.
//! Measured on an AMD EPYC (Zen 4, 2 vCPUs), a copy cut in two halves, best of 4000 calls a way:
//! 512 KiB in 10.9 µs through a parallel iterator, 10.7 through `join`, 5.3 with the caller
//! copying one half (10.4 on one thread alone); 1 MiB 18.3, 18.3 and 11.7 (21.4 alone).
//!
//! **The caller waits awake.** Done with the parts, a caller from outside the pool leaving
//! `in_place_scope` while a helper still works sleeps on a lock until the helper's job ends,
//! and that wake-up costs more than the helper's last part takes. So it spins for the helpers
//! first, for at most as long as it worked itself ([`wait_awake`]). On an AMD EPYC (Zen 5,
//! 2 vCPUs), 1 MiB NCHW→NHWC with C = 64 from the main thread, median of 4000 calls, five
//! rounds in turn (`AB_PROGRAM=bench/dispatch/main.rs bash bench/ab.sh OLD`): f32 62–79 →
//! 152–160 GB/s, u8 54–100 → 99–103, f16 116–126 → 124–132; the best calls were even (the
//! median from a pool's worker, which waits by stealing, 159–164 for f32).
//!
//! **What it allocates.** On a worker of a pool (inside `ThreadPool::install`, a parallel
//! iterator, a `join`), nothing: the helpers are asked for through `rayon::join`, whose jobs
//! live on the caller's stack and wait in its own deque. From any other thread rayon has no
//! such way in: each helper is a `scope.spawn`, one boxed job (a few dozen bytes) on the heap,
//! and rayon's shared queue takes a new block of slots every 63 jobs. The first call of a
//! process starts rayon's pool (its threads and their queues).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Runs `work` on every part, each part once, on the calling thread and on as many of the
/// current rayon pool's workers as there are parts beyond the first, up to the pool's size in
/// all. The caller takes the first part before the workers are asked for; then each of them
/// takes the next part until none is left, so a thread slowed by a neighbour leaves its share to
/// the others. Returns when every part is done (a panic in `work` reaches the caller then).
/// Allocates nothing on a pool's worker (the module's doc says what it costs elsewhere).
pub(crate) fn for_each<I>(parts: I, work: impl Fn(I::Item) + Sync)
where
    I: ExactSizeIterator + Send,
    I::Item: Send,
{
    let helpers = parts.len().min(rayon::current_num_threads()).saturating_sub(1);
    let parts = Mutex::new(parts);
    // The lock is held only to take a part (never while `work` runs), so it is never poisoned;
    // taken through the poison anyway, nothing here panics.
    let next = || parts.lock().unwrap_or_else(PoisonError::into_inner).next();
    let drain = || {
        while let Some(part) = next() {
            work(part);
        }
    };
    let Some(first) = next() else { return };
    if helpers == 0 {
        work(first);
        return drain();
    }
    if rayon::current_thread_index().is_some() {
        // `join` pushes its second half (the helpers) where an idle worker steals it, then runs
        // its first here; a half nobody stole runs here after, finding no part left.
        rayon::join(|| (work(first), drain()), || ask(helpers, &drain));
        return;
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
        work(first);
        drain();
        wait_awake(&done, helpers, start.elapsed());
    });
}

/// Spins until `done` counts `helpers`, for at most `worked` more (the time the caller spent
/// on its own parts): leaving `in_place_scope` with a helper still at work puts a thread from
/// outside the pool to sleep on a lock, and waking it costs more than most last parts take.
fn wait_awake(done: &AtomicUsize, helpers: usize, worked: Duration) {
    let since = Instant::now();
    while done.load(Ordering::Acquire) < helpers {
        for _ in 0..64 {
            core::hint::spin_loop();
        }
        if since.elapsed() > worked {
            return;
        }
    }
}

/// `helpers` (at least 1) workers running `drain`: the one that steals this job asks for half of
/// the others and takes the rest on, so the requests spread in a tree, not one after another.
fn ask(helpers: usize, drain: &(dyn Fn() + Sync)) {
    match helpers {
        0 | 1 => drain(),
        _ => {
            let half = helpers / 2;
            rayon::join(|| ask(helpers - half, drain), || ask(half, drain));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_each;
    use std::sync::Mutex;
    use std::thread::ThreadId;

    /// Runs `parts` parts and returns, for each, the threads that ran it.
    fn run(parts: usize) -> Vec<Vec<ThreadId>> {
        let on: Vec<Mutex<Vec<ThreadId>>> = (0..parts).map(|_| Mutex::new(Vec::new())).collect();
        for_each(0..parts, |k: usize| on[k].lock().unwrap().push(std::thread::current().id()));
        on.into_iter().map(|m| m.into_inner().unwrap()).collect()
    }

    /// Checks that every part ran once, the caller's first among them, on at most `threads`.
    fn check(ran: &[Vec<ThreadId>], caller: ThreadId, threads: usize, case: &str) {
        assert!(ran.iter().all(|on| on.len() == 1), "{case}: a part ran other than once: {ran:?}");
        let mut on: Vec<ThreadId> = ran.iter().map(|on| on[0]).collect();
        assert!(on.first().is_none_or(|t| *t == caller), "{case}: the first part not on the caller");
        on.sort_by_key(|t| format!("{t:?}"));
        on.dedup();
        assert!(on.len() <= threads, "{case}: {} threads", on.len());
    }

    /// From a pool's worker (the caller is one of the pool's threads) and from outside any pool
    /// (the global one's workers beside the caller): fewer parts than threads, as many, more,
    /// and none.
    #[test]
    fn every_part_runs_once_the_first_on_the_caller() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            for parts in [0, 1, 2, 3, 7, 64] {
                let (ran, caller) = pool.install(|| (run(parts), std::thread::current().id()));
                check(&ran, caller, threads, &format!("a worker of {threads}, {parts} parts"));
            }
        }
        for parts in [0, 1, 2, 5, 64] {
            let threads = rayon::current_num_threads();
            check(&run(parts), std::thread::current().id(), threads, &format!("outside, {parts} parts"));
        }
    }
}
