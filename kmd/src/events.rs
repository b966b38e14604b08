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
    /// Waiters registered on this event.
    waiting: usize,
}

/// One WAIT_EVENTS call in progress: for each event it waits on, whether that event has
/// activated it.
#[derive(Debug)]
struct Waiter {
    on: Vec<(u32, bool)>,
}

#[derive(Debug, Default)]
struct Table {
    events: BTreeMap<u32, Event>,
    waiters: BTreeMap<u64, Waiter>,
    next_waiter: u64,
}

/// The process's events. Shared with the GPU side, which signals completion events.
///
/// The semantics are kfd_events.c's: setting an event activates every waiter registered
/// on it at that moment (a broadcast); an auto-reset event stays signalled only when
/// nobody was waiting, and then the next waiter consumes it. So two threads waiting on the
/// same auto-reset event both wake (ROCr's queue teardown relies on that: its main thread
/// and its async-events thread wait on the queue-inactive signal's event together).
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
                waiting: 0,
            },
        );
        Ok(id)
    }

    /// Destroys an event; waiters on it wake up (and fail).
    pub fn destroy(&self, id: u32) -> Result<(), Errno> {
        let removed = self.lock().events.remove(&id);
        self.changed.notify_all();
        removed.map(|_| ()).ok_or(Errno::Inval)
    }

    /// Signals an event (SET_EVENT, or the GPU writing its mailbox and interrupting).
    pub fn signal(&self, id: u32) -> Result<(), Errno> {
        let mut t = self.lock();
        let e = t.events.get_mut(&id).ok_or(Errno::Inval)?;
        e.signaled = !e.auto_reset || e.waiting == 0;
        if e.waiting > 0 {
            for w in t.waiters.values_mut() {
                for (on, activated) in &mut w.on {
                    if *on == id {
                        *activated = true;
                    }
                }
            }
        }
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

    /// Waits until all (or any) of `ids` activate this waiter or `timeout_ms` passes
    /// (`TIMEOUT_INFINITE` waits forever, 0 only polls). Returns a `WAIT_*` result.
    pub fn wait(&self, ids: &[u32], all: bool, timeout_ms: u32) -> Result<u32, Errno> {
        let mut t = self.lock();
        if ids.iter().any(|id| !t.events.contains_key(id)) {
            return Err(Errno::Inval);
        }
        // Register: a pending signal activates us at once (and is consumed if auto-reset).
        let mut on = Vec::with_capacity(ids.len());
        for &id in ids {
            let e = t.events.get_mut(&id).ok_or(Errno::Inval)?;
            on.push((id, e.signaled));
            e.signaled = e.signaled && !e.auto_reset;
            e.waiting += 1;
        }
        let me = t.next_waiter;
        t.next_waiter += 1;
        t.waiters.insert(me, Waiter { on });
        let deadline = (timeout_ms != ev::TIMEOUT_INFINITE)
            .then(|| Instant::now() + Duration::from_millis(u64::from(timeout_ms)));
        let result = loop {
            let Some(w) = t.waiters.get(&me) else {
                break ev::WAIT_FAIL;
            };
            if w.on.iter().any(|(id, _)| !t.events.contains_key(id)) {
                // An event was destroyed under the waiter.
                break ev::WAIT_FAIL;
            }
            let activated = w.on.iter().filter(|(_, a)| *a).count();
            if ids.is_empty()
                || (if all {
                    activated == ids.len()
                } else {
                    activated > 0
                })
            {
                break ev::WAIT_COMPLETE;
            }
            t = match deadline {
                None => self.changed.wait(t).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        break ev::WAIT_TIMEOUT;
                    }
                    self.changed
                        .wait_timeout(t, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        };
        if let Some(w) = t.waiters.remove(&me) {
            for (id, _) in w.on {
                if let Some(e) = t.events.get_mut(&id) {
                    e.waiting -= 1;
                }
            }
        }
        Ok(result)
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

    #[test]
    fn setting_an_event_wakes_every_waiter_on_it() {
        let events = Arc::new(Events::default());
        let e = events.create(ev::SIGNAL, true).unwrap();
        let other = events.create(ev::SIGNAL, true).unwrap();
        let waiters: Vec<_> = [vec![e], vec![other, e]]
            .into_iter()
            .map(|ids| {
                let events = Arc::clone(&events);
                std::thread::spawn(move || events.wait(&ids, false, ev::TIMEOUT_INFINITE))
            })
            .collect();
        // Both must be registered before the signal: a registered waiter is counted.
        while events.lock().events[&e].waiting < 2 {
            std::thread::yield_now();
        }
        events.signal(e).unwrap();
        for w in waiters {
            assert_eq!(w.join().unwrap().unwrap(), ev::WAIT_COMPLETE);
        }
        // Consumed by the waiters: an auto-reset event that had waiters does not stay set.
        assert_eq!(events.wait(&[e], false, 0).unwrap(), ev::WAIT_TIMEOUT);
    }
}
