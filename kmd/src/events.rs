//! KFD events: created by the client, signalled by the client or the GPU, waited on with
//! real blocking and timeouts (a `Condvar`; the lock is released while waiting).

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::abi::event as ev;
use crate::Errno;

#[derive(Debug, Clone, Copy)]
struct Event {
    auto_reset: bool,
    signaled: bool,
}

#[derive(Debug, Default)]
struct Table {
    events: BTreeMap<u32, Event>,
}

/// The process's events. Shared with the GPU side, which signals completion events.
#[derive(Debug, Default)]
pub struct Events {
    table: Mutex<Table>,
    changed: Condvar,
}

/// First id of non-signal events (`KFD_FIRST_NONSIGNAL_EVENT_ID` = 0x80000000 in
/// kfd_events.c); signal events take the lowest free slot of the events page.
const FIRST_NONSIGNAL_ID: u32 = 0x8000_0000;

impl Events {
    fn lock(&self) -> MutexGuard<'_, Table> {
        // A poisoned lock only means another client thread panicked mid-update of plain
        // flags; the table is still consistent.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates an event; signal (and debug) events take a slot of the events page.
    pub fn create(&self, event_type: u32, auto_reset: bool) -> Result<u32, Errno> {
        let mut t = self.lock();
        let signal = event_type == ev::SIGNAL || event_type == ev::DEBUG_EVENT;
        let range = if signal {
            0..ev::SIGNAL_EVENT_LIMIT
        } else {
            FIRST_NONSIGNAL_ID..u32::MAX
        };
        let mut id = range.start;
        for (&used, _) in t.events.range(range.clone()) {
            if used != id {
                break;
            }
            id += 1;
        }
        if id >= range.end {
            // kfd_events.c: no free slot in the signal page.
            return Err(Errno::NoMem);
        }
        t.events.insert(
            id,
            Event {
                auto_reset,
                signaled: false,
            },
        );
        Ok(id)
    }

    /// Destroys an event; waiters on it wake up.
    pub fn destroy(&self, id: u32) -> Result<(), Errno> {
        let removed = self.lock().events.remove(&id);
        self.changed.notify_all();
        removed.map(|_| ()).ok_or(Errno::Inval)
    }

    /// Signals an event (SET_EVENT, or the GPU writing its mailbox and interrupting).
    pub fn signal(&self, id: u32) -> Result<(), Errno> {
        let mut t = self.lock();
        let e = t.events.get_mut(&id).ok_or(Errno::Inval)?;
        e.signaled = true;
        drop(t);
        self.changed.notify_all();
        Ok(())
    }

    /// Resets an event (RESET_EVENT).
    pub fn reset(&self, id: u32) -> Result<(), Errno> {
        let mut t = self.lock();
        t.events.get_mut(&id).ok_or(Errno::Inval)?.signaled = false;
        Ok(())
    }

    /// Waits until all (or any) of `ids` are signalled or `timeout_ms` passes
    /// (`TIMEOUT_INFINITE` waits forever, 0 only polls). Returns a `WAIT_*` result.
    /// Auto-reset events that satisfied the wait are reset, as KFD does.
    pub fn wait(&self, ids: &[u32], all: bool, timeout_ms: u32) -> Result<u32, Errno> {
        let mut t = self.lock();
        if ids.iter().any(|id| !t.events.contains_key(id)) {
            return Err(Errno::Inval);
        }
        let deadline = (timeout_ms != ev::TIMEOUT_INFINITE)
            .then(|| Instant::now() + Duration::from_millis(u64::from(timeout_ms)));
        loop {
            let mut present = 0;
            let mut signaled = 0;
            for id in ids {
                if let Some(e) = t.events.get(id) {
                    present += 1;
                    signaled += usize::from(e.signaled);
                }
            }
            if present < ids.len() {
                // An event was destroyed under the waiter.
                return Ok(ev::WAIT_FAIL);
            }
            let done = if all {
                signaled == ids.len()
            } else {
                signaled > 0
            };
            if done || ids.is_empty() {
                for id in ids {
                    if let Some(e) = t.events.get_mut(id) {
                        if e.signaled && e.auto_reset {
                            e.signaled = false;
                        }
                    }
                }
                return Ok(ev::WAIT_COMPLETE);
            }
            t = match deadline {
                None => self.changed.wait(t).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(ev::WAIT_TIMEOUT);
                    }
                    self.changed
                        .wait_timeout(t, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn wait_blocks_until_signalled_and_times_out_otherwise() {
        let events = Arc::new(Events::default());
        let a = events.create(ev::SIGNAL, true).unwrap();
        let b = events.create(ev::SIGNAL, false).unwrap();
        assert_eq!((a, b), (0, 1));
        assert_eq!(events.wait(&[a], false, 0).unwrap(), ev::WAIT_TIMEOUT);
        assert_eq!(events.wait(&[a], false, 20).unwrap(), ev::WAIT_TIMEOUT);
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let events = Arc::clone(&events);
            std::thread::spawn(move || {
                tx.send(()).unwrap();
                events.wait(&[a, b], true, ev::TIMEOUT_INFINITE)
            })
        };
        rx.recv().unwrap();
        events.signal(a).unwrap();
        events.signal(b).unwrap();
        assert_eq!(waiter.join().unwrap().unwrap(), ev::WAIT_COMPLETE);
        // `a` auto-resets, `b` stays signalled.
        assert_eq!(events.wait(&[a], false, 0).unwrap(), ev::WAIT_TIMEOUT);
        assert_eq!(events.wait(&[b], false, 0).unwrap(), ev::WAIT_COMPLETE);
        assert_eq!(events.wait(&[77], false, 0), Err(Errno::Inval));
        events.destroy(a).unwrap();
        assert_eq!(events.destroy(a), Err(Errno::Inval));
        assert_eq!(events.create(ev::SIGNAL, false).unwrap(), 0);
        assert_eq!(
            events.create(ev::MEMORY, false).unwrap(),
            FIRST_NONSIGNAL_ID
        );
    }
}
