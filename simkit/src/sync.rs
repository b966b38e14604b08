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
