//! A fork-join pool for the CPU backend's copies whose idle workers spin before they sleep.
//!
//! A copy of a few MiB takes 0.1 to 0.3 ms; a worker that has gone to sleep takes tens of
//! microseconds to wake (a futex wake-up through the kernel, longer on a virtual machine).
//! rayon's idle workers sleep after a few dozen yields, so on the development VM an empty
//! two-task scope cost 12 to 72 us, more the longer the gap between calls (docs/cpu.md,
//! session 14), and a 2-thread copy in cache was barely faster than one thread. OpenMP,
//! which PyTorch's CPU copies run on, spins its idle threads for a while first (libgomp's
//! `GOMP_SPINCOUNT`); rayon has no such setting, hence this pool.
//!
//! The caller runs tasks too: a pool for `n` threads has `n - 1` workers. Each thread first
//! runs its own tasks (thread `k` the tasks `k`, `k + n`, ...), then any that a slower
//! thread has not started; each index runs once. One job runs at a time: a copy started while
//! the pool is busy (another thread's copy, or a copy inside a task) runs all its tasks on
//! its own thread. A task's panic is caught, the other tasks still finish, and the panic
//! is resumed on the caller.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Tasks claimed through the bit set of a [`Job`] (the rest through its counter).
const HOMED: usize = 64;

/// The tasks of one `run` call. It lives on the caller's stack; `run` does not return
/// before every worker has stopped looking at it.
struct Job {
    /// The caller's closure with its lifetime erased (see `run`).
    task: *const (dyn Fn(usize) + Sync + 'static),
    tasks: usize,
    /// Threads of the pool: thread `k` (the caller is 0) first runs its home tasks
    /// `k, k + threads, ...` below [`HOMED`], so that a copy repeated over the same memory
    /// gives each thread the same part (and its cache the same lines) every time.
    threads: usize,
    /// Bit `t`: task `t` (< [`HOMED`]) is claimed.
    claimed: AtomicU64,
    /// The next task at or above [`HOMED`] to claim.
    next: AtomicUsize,
    /// Tasks not yet finished.
    left: AtomicUsize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Job {
    /// Runs thread `home`'s own tasks, then claims any left until none are.
    fn work(&self, home: usize) {
        let homed = self.tasks.min(HOMED);
        for t in (home..homed).step_by(self.threads.max(1)) {
            self.try_run(t);
        }
        let all = if homed == HOMED {
            u64::MAX
        } else {
            (1u64 << homed) - 1
        };
        loop {
            let free = !self.claimed.load(Relaxed) & all;
            if free == 0 {
                break;
            }
            self.try_run(free.trailing_zeros() as usize);
        }
        loop {
            let t = self.next.fetch_add(1, Relaxed);
            if t >= self.tasks {
                return;
            }
            self.run_one(t);
        }
    }

    /// Runs homed task `t` unless another thread has claimed it.
    fn try_run(&self, t: usize) {
        let bit = 1u64 << t;
        if self.claimed.fetch_or(bit, Relaxed) & bit == 0 {
            self.run_one(t);
        }
    }

    fn run_one(&self, t: usize) {
        // SAFETY: `run` keeps the closure alive until `left` is 0 and no worker is inside
        // the job (`in_job`).
        let task = unsafe { &*self.task };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| task(t))) {
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(p);
        }
        self.left.fetch_sub(1, Release);
    }
}

struct Shared {
    /// Bumped once per job; workers wait for it to change.
    epoch: AtomicUsize,
    /// The current job, null between jobs.
    job: AtomicPtr<Job>,
    /// Workers between reading `job` and being done with it.
    in_job: AtomicUsize,
    /// Workers asleep (or about to be) on `wake`.
    sleepers: AtomicUsize,
    shutdown: AtomicBool,
    sleep: Mutex<()>,
    wake: Condvar,
    spin: Duration,
}

/// A pool of `threads - 1` workers plus the calling thread.
pub struct SpinPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    busy: Mutex<()>,
}

impl SpinPool {
    /// Starts `threads - 1` workers, each spinning for `spin` after a job before it sleeps.
    /// Fails when the operating system refuses a thread.
    pub fn new(threads: usize, spin: Duration) -> std::io::Result<SpinPool> {
        let shared = Arc::new(Shared {
            epoch: AtomicUsize::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            in_job: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            spin,
        });
        let mut pool = SpinPool {
            shared,
            workers: Vec::new(),
            busy: Mutex::new(()),
        };
        for i in 1..threads.max(1) {
            let shared = pool.shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("stridekit-cpu-{i}"))
                .spawn(move || worker(&shared, i))?;
            pool.workers.push(handle);
        }
        Ok(pool)
    }

    /// Threads that run tasks: the workers and the caller.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `task(0..tasks)`, each index once, on the caller and the workers; returns when
    /// all have finished. Resumes the first task's panic, if any, after all have finished.
    pub fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        let busy = match self.busy.try_lock() {
            Ok(guard) => guard,
            Err(_) => return (0..tasks).for_each(task),
        };
        // SAFETY: only the lifetime is erased. The pointer is read by `Job::work` alone,
        // and this function does not return (nor unwind: task panics are caught) before
        // `left` is 0 and, with `job` null again, `in_job` is 0.
        let task: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(task) };
        let job = Job {
            task,
            tasks,
            threads: self.threads(),
            claimed: AtomicU64::new(0),
            next: AtomicUsize::new(HOMED),
            left: AtomicUsize::new(tasks),
            panic: Mutex::new(None),
        };
        let s = &*self.shared;
        s.job.store(&job as *const Job as *mut Job, SeqCst);
        s.epoch.fetch_add(1, SeqCst);
        if s.sleepers.load(SeqCst) > 0 {
            let _held = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        job.work(0);
        let mut spins = 0u32;
        while job.left.load(Acquire) != 0 {
            spins = spins.saturating_add(1);
            if spins < 1 << 16 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        s.job.store(std::ptr::null_mut(), SeqCst);
        while s.in_job.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
        drop(busy);
        if let Some(p) = job.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            resume_unwind(p);
        }
    }
}

impl Drop for SpinPool {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.shutdown.store(true, SeqCst);
        s.epoch.fetch_add(1, SeqCst);
        {
            let _held = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Worker `home`: waits for a new epoch (spinning for `spin`, then asleep), works on the job.
fn worker(s: &Shared, home: usize) {
    // The epoch the pool was created with, not the current one: a worker that starts late
    // must not sleep through the epoch of a shutdown that came first.
    let mut seen = 0;
    loop {
        seen = wait_for_epoch(s, seen);
        if s.shutdown.load(SeqCst) {
            return;
        }
        s.in_job.fetch_add(1, SeqCst);
        let job = s.job.load(SeqCst);
        if !job.is_null() {
            // SAFETY: a non-null job read after `in_job` was raised stays alive until
            // `in_job` falls back (see `SpinPool::run`).
            unsafe { (*job).work(home) };
        }
        s.in_job.fetch_sub(1, SeqCst);
    }
}

/// Returns the first epoch other than `seen`.
fn wait_for_epoch(s: &Shared, seen: usize) -> usize {
    let mut since = Instant::now();
    let mut spins = 0u32;
    loop {
        let now = s.epoch.load(SeqCst);
        if now != seen {
            return now;
        }
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) && since.elapsed() >= s.spin {
            let mut held = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
            s.sleepers.fetch_add(1, SeqCst);
            while s.epoch.load(SeqCst) == seen {
                held = s.wake.wait(held).unwrap_or_else(|e| e.into_inner());
            }
            s.sleepers.fetch_sub(1, SeqCst);
            since = Instant::now();
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn hits_once(pool: &SpinPool, tasks: usize) {
        let hits: Vec<AtomicU64> = (0..tasks).map(|_| AtomicU64::new(0)).collect();
        pool.run(tasks, &|t| {
            hits[t].fetch_add(1, Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Relaxed) == 1));
    }

    #[test]
    fn every_task_runs_once_spinning_or_asleep() {
        for spin in [Duration::ZERO, Duration::from_millis(5)] {
            let pool = SpinPool::new(3, spin).unwrap();
            assert_eq!(pool.threads(), 3);
            for tasks in [0, 1, 2, 3, 7, 100] {
                hits_once(&pool, tasks);
            }
            // Workers asleep (spin 0, or past 5 ms) wake for the next job.
            std::thread::sleep(Duration::from_millis(10));
            hits_once(&pool, 5);
        }
    }

    #[test]
    fn pools_dropped_before_their_workers_start_shut_down() {
        for i in 0..300 {
            let pool = SpinPool::new(3, Duration::from_secs(60)).unwrap();
            if i % 2 == 0 {
                hits_once(&pool, 4);
            }
            drop(pool);
        }
    }

    #[test]
    fn a_task_panic_reaches_the_caller_after_the_others_finish() {
        let pool = SpinPool::new(2, Duration::from_millis(1)).unwrap();
        let done = AtomicU64::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.run(8, &|t| {
                if t == 3 {
                    panic!("task 3");
                }
                done.fetch_add(1, Relaxed);
            })
        }));
        let p = r.unwrap_err();
        assert_eq!(p.downcast_ref::<&str>(), Some(&"task 3"));
        assert_eq!(done.load(Relaxed), 7);
        hits_once(&pool, 4);
    }

    #[test]
    fn concurrent_and_nested_runs_fall_back_to_their_own_thread() {
        let pool = Arc::new(SpinPool::new(2, Duration::from_millis(1)).unwrap());
        let total = AtomicU64::new(0);
        pool.run(4, &|_| {
            pool.run(3, &|_| {
                total.fetch_add(1, Relaxed);
            });
        });
        assert_eq!(total.load(Relaxed), 12);
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        hits_once(&pool, 6);
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
    }
}
