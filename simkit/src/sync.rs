//! The one place the engine gets its atomics, locks and condition variables from, so that
//! loom can substitute its own under `--cfg loom` and check every interleaving.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Condvar, Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// A job for [`run_threads`]: returns false when it failed.
pub(crate) type Job<'a> = Box<dyn FnOnce() -> bool + Send + 'a>;

/// Runs each job on its own thread and returns what each returned (false for one that
/// panicked), once all have ended. The worker threads of a parallel run start here, so a
/// loom model of a whole run explores the engine's own barrier, exchange and sync points.
#[cfg(not(loom))]
pub(crate) fn run_threads(jobs: Vec<Job<'_>>) -> Vec<bool> {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|j| s.spawn(j)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(false))
            .collect()
    })
}

/// [`run_threads`] on loom's threads. Loom has no scoped threads (tokio-rs/loom#308), so the
/// jobs' borrows are extended to `'static` for `loom::thread::spawn`.
#[cfg(loom)]
pub(crate) fn run_threads(jobs: Vec<Job<'_>>) -> Vec<bool> {
    let handles: Vec<_> = jobs
        .into_iter()
        .map(|j| {
            // SAFETY: every thread is joined below before this function returns, so nothing
            // a job borrows ends while it runs. A loom model that fails panics and stops
            // the whole model, never returning here with a thread still running. Only
            // built under `--cfg loom` (model checking), never in the simulator.
            let j: Job<'static> = unsafe { std::mem::transmute::<Job<'_>, Job<'static>>(j) };
            loom::thread::spawn(j)
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or(false))
        .collect()
}

/// Locks `m`, ignoring poisoning: every critical section in the engine leaves its data
/// consistent before anything in it can panic, so a poisoned lock's data is still valid.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Waits on `cv`, ignoring poisoning (see [`lock`]).
pub(crate) fn wait<'a, T>(cv: &Condvar, g: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    match cv.wait(g) {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Spins briefly before blocking: barrier partners usually arrive within microseconds, and a
/// futex sleep and wake costs more than that. Loom explores spins as real steps, so there it
/// yields at once.
#[inline]
pub(crate) fn spin_hint(round: u32) -> bool {
    #[cfg(loom)]
    {
        let _ = round;
        loom::thread::yield_now();
        false
    }
    #[cfg(not(loom))]
    {
        if round < 256 {
            std::hint::spin_loop();
            true
        } else if round < 256 + 32 {
            std::thread::yield_now();
            true
        } else {
            false
        }
    }
}
