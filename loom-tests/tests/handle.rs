//! Loom models of the simulation handle: the async injection queue, holds, and the
//! request_exit / shutdown race.
#![cfg(loom)]

use loom::thread;
use simkit::component::ComponentId;
use simkit::handle::{Request, SimHandle};

/// Two injectors and the engine polling concurrently: every injection is taken exactly
/// once, with distinct sequence numbers in each injector's own order.
#[test]
fn injection_queue_loses_nothing() {
    loom::model(|| {
        let h = SimHandle::<u32>::detached(2);
        let a = {
            let h = h.clone();
            thread::spawn(move || {
                h.schedule_now(ComponentId::from_index(0), 10).unwrap();
                h.schedule_now(ComponentId::from_index(1), 11).unwrap();
            })
        };
        let b = {
            let h = h.clone();
            thread::spawn(move || h.schedule_now(ComponentId::from_index(1), 20).unwrap())
        };
        let mut got = Vec::new();
        if let Some(t) = h.take(true) {
            got.extend(t.injections);
        }
        a.join().unwrap();
        b.join().unwrap();
        if let Some(t) = h.take(true) {
            got.extend(t.injections);
        }
        // Nothing left behind.
        assert!(h.take(true).is_none_or(|t| t.injections.is_empty()));
        let mut msgs: Vec<u32> = got.iter().map(|i| i.msg).collect();
        msgs.sort();
        assert_eq!(msgs, vec![10, 11, 20]);
        let mut seqs: Vec<u64> = got.iter().map(|i| i.seq).collect();
        seqs.sort();
        seqs.dedup();
        assert_eq!(seqs.len(), 3);
        let seq_of = |m| got.iter().find(|i| i.msg == m).unwrap().seq;
        assert!(seq_of(10) < seq_of(11));
    });
}

/// The engine waits idle while a hold is live; an injection followed by the release always
/// wakes it (no lost wakeup: loom reports a deadlock otherwise).
#[test]
fn idle_wait_wakes_on_injection_and_release() {
    loom::model(|| {
        let h = SimHandle::<u32>::detached(1);
        let guard = h.hold();
        let injector = {
            let h = h.clone();
            thread::spawn(move || {
                h.schedule_now(ComponentId::from_index(0), 1).unwrap();
                drop(guard);
            })
        };
        let mut got = 0;
        loop {
            if let Some(t) = h.take(true) {
                got += t.injections.len();
            }
            if got == 1 && h.holds() == 0 {
                break;
            }
            h.wait_idle();
        }
        injector.join().unwrap();
        assert_eq!(got, 1);
    });
}

/// request_exit and shutdown racing each other and the engine: exactly one wins, the engine
/// sees exactly the winner, and once honored the latch refuses later requests.
#[test]
fn exit_request_and_shutdown_race() {
    loom::model(|| {
        let h = SimHandle::<u32>::detached(1);
        let e = {
            let h = h.clone();
            thread::spawn(move || h.request_exit("done", 3))
        };
        let s = {
            let h = h.clone();
            thread::spawn(move || h.shutdown())
        };
        // The engine polls concurrently with the requests.
        let early = h.take(true).and_then(|t| t.request);
        let won_exit = e.join().unwrap();
        let won_shutdown = s.join().unwrap();
        let late = h.take(true).and_then(|t| t.request);
        assert!(won_exit ^ won_shutdown);
        let seen: Vec<Request> = early.into_iter().chain(late).collect();
        assert_eq!(seen.len(), 1, "honored exactly once");
        match &seen[0] {
            Request::Exit { reason, code } => {
                assert!(won_exit);
                assert_eq!((reason.as_str(), *code), ("done", 3));
            }
            Request::Interrupt => assert!(won_shutdown),
            _ => unreachable!(),
        }
        assert!(!h.shutdown(), "idempotent while latched");
        h.rearm();
        assert!(h.shutdown(), "a new run accepts requests again");
    });
}
