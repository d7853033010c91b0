//! The CPU backend's thread pool and how work is split over it.
//!
//! The thread count follows [`set_num_threads`], else `STRIDEKIT_NUM_THREADS`, else the
//! cores available to the process (as `torch.get_num_threads()` does). Work is split into
//! at most that many contiguous ranges of at least [`GRAIN_BYTES`] each; a copy under two
//! grains runs on the calling thread, so small copies never wait for the pool. The pool
//! ([`super::spin_pool`]) keeps idle workers spinning for [`spin_time`] before they sleep.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::spin_pool::SpinPool;

/// The least work (bytes moved, the wider side's) one task is given: PyTorch's
/// `at::internal::GRAIN_SIZE` of 32768, taken as bytes.
pub const GRAIN_BYTES: usize = 32 * 1024;

/// The environment variable that sets the thread count (a positive integer).
pub const THREADS_ENV: &str = "STRIDEKIT_NUM_THREADS";

/// The environment variable that sets how long idle workers spin (microseconds; 0: they
/// sleep at once).
pub const SPIN_ENV: &str = "STRIDEKIT_SPIN_US";

/// How long idle workers spin by default: a copy that follows within a millisecond finds
/// them awake (as OpenMP's threads under PyTorch, which spin longer).
pub const DEFAULT_SPIN: Duration = Duration::from_millis(1);

/// The longest spin `STRIDEKIT_SPIN_US` may set (one second): idle workers always sleep in
/// the end, whatever the environment says.
pub const MAX_SPIN_US: u64 = 1_000_000;

/// 0: not set by [`set_num_threads`] (the environment or the core count decides).
static CHOSEN: AtomicUsize = AtomicUsize::new(0);

/// How a copy may be split: the thread count and the least bytes per task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    pub threads: usize,
    pub grain_bytes: usize,
}

impl Parallelism {
    /// The settings every copy uses: [`num_threads`] and [`GRAIN_BYTES`].
    pub fn current() -> Parallelism {
        Parallelism {
            threads: num_threads(),
            grain_bytes: GRAIN_BYTES,
        }
    }

    /// How many tasks `work_bytes` of work is split into (1: the calling thread alone).
    pub fn tasks(self, work_bytes: usize, units: usize) -> usize {
        let by_grain = work_bytes / self.grain_bytes.max(1);
        self.threads.min(by_grain).min(units).max(1)
    }
}

/// The thread count copies use.
pub fn num_threads() -> usize {
    match CHOSEN.load(Ordering::Relaxed) {
        0 => *from_environment(),
        n => n,
    }
}

/// Sets the thread count for every later copy (as `torch.set_num_threads`); 0 goes back to
/// `STRIDEKIT_NUM_THREADS` or the core count.
pub fn set_num_threads(n: usize) {
    CHOSEN.store(n, Ordering::Relaxed);
}

/// `STRIDEKIT_NUM_THREADS` when it is a positive integer (anything else is reported once
/// on standard error and ignored), else the available cores. Read once per process.
fn from_environment() -> &'static usize {
    static N: OnceLock<usize> = OnceLock::new();
    N.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match std::env::var(THREADS_ENV) {
            Err(_) => cores,
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    eprintln!(
                        "stridekit: {THREADS_ENV}={v:?} is not a positive integer; using {cores} threads"
                    );
                    cores
                }
            },
        }
    })
}

/// Runs `task(0..tasks)` across the pool of `threads` threads (the caller is one of them;
/// each index once), or all on the calling thread when `tasks` is 1 or the pool cannot be
/// started.
pub fn run_tasks(threads: usize, tasks: usize, task: impl Fn(usize) + Sync) {
    if tasks <= 1 {
        (0..tasks).for_each(task);
        return;
    }
    match pool(threads) {
        Some(pool) => pool.run(tasks, &task),
        None => (0..tasks).for_each(task),
    }
}

/// The pool of `threads` threads, built on first use and rebuilt when the count changes.
fn pool(threads: usize) -> Option<Arc<SpinPool>> {
    static POOL: Mutex<Option<Arc<SpinPool>>> = Mutex::new(None);
    let mut cached = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = cached.as_ref()
        && p.threads() == threads
    {
        return Some(p.clone());
    }
    let p = Arc::new(SpinPool::new(threads, spin_time()).ok()?);
    *cached = Some(p.clone());
    Some(p)
}

/// How long an idle worker spins before it sleeps: `STRIDEKIT_SPIN_US` microseconds when
/// that is a non-negative integer, at most [`MAX_SPIN_US`] (a larger value is reported once
/// on standard error and taken as that; anything else is reported and ignored), else
/// [`DEFAULT_SPIN`]. Read once per process.
pub fn spin_time() -> Duration {
    static SPIN: OnceLock<Duration> = OnceLock::new();
    *SPIN.get_or_init(|| match std::env::var(SPIN_ENV) {
        Err(_) => DEFAULT_SPIN,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(us) if us <= MAX_SPIN_US => Duration::from_micros(us),
            Ok(_) => {
                eprintln!("stridekit: {SPIN_ENV}={v:?} is over {MAX_SPIN_US} us; using {MAX_SPIN_US} us");
                Duration::from_micros(MAX_SPIN_US)
            }
            Err(_) => {
                eprintln!(
                    "stridekit: {SPIN_ENV}={v:?} is not a whole number of microseconds; using {} us",
                    DEFAULT_SPIN.as_micros()
                );
                DEFAULT_SPIN
            }
        },
    })
}

/// The `t`-th of `tasks` near-equal contiguous parts of `0..units`.
pub fn part(units: usize, tasks: usize, t: usize) -> (usize, usize) {
    let (q, r) = (units / tasks, units % tasks);
    let start = t * q + t.min(r);
    (start, start + q + usize::from(t < r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_range_once() {
        for (units, tasks) in [(10, 3), (3, 3), (7, 1), (1000, 7)] {
            let mut next = 0;
            for t in 0..tasks {
                let (a, b) = part(units, tasks, t);
                assert_eq!(a, next);
                assert!(b > a);
                next = b;
            }
            assert_eq!(next, units);
        }
    }

    #[test]
    fn small_work_stays_on_one_task() {
        let p = Parallelism {
            threads: 8,
            grain_bytes: GRAIN_BYTES,
        };
        assert_eq!(p.tasks(GRAIN_BYTES - 1, 1000), 1);
        assert_eq!(p.tasks(2 * GRAIN_BYTES - 1, 1000), 1);
        assert_eq!(p.tasks(3 * GRAIN_BYTES, 1000), 3);
        assert_eq!(p.tasks(100 * GRAIN_BYTES, 1000), 8);
        assert_eq!(p.tasks(100 * GRAIN_BYTES, 2), 2);
    }

    #[test]
    fn tasks_run_once_each_on_the_pool() {
        use std::sync::atomic::AtomicU64;
        let hits: Vec<AtomicU64> = (0..5).map(|_| AtomicU64::new(0)).collect();
        run_tasks(2, 5, |t| {
            hits[t].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }
}

/// A base pointer shared by the tasks of one copy (each writes its own elements).
#[derive(Clone, Copy)]
pub(super) struct Ptr(pub(super) *mut u8);

// SAFETY: the tasks of a copy write disjoint destination elements and only read the source.
unsafe impl Send for Ptr {}
unsafe impl Sync for Ptr {}

impl Ptr {
    pub(super) fn get(self) -> *mut u8 {
        self.0
    }
}
