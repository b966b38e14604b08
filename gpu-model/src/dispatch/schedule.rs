//! The one scheduler of every runner, for workgroups and waves: the standalone runner
//! ([`super::run`]) and the SoC's compute units, in functional and clocked mode.
//!
//! Waves: [`issue_round`] gives every resident wave, oldest first, a turn. The runner's
//! [`IssuePolicy`] says whether the wave may issue at this turn and how many instructions
//! (functional mode: a quantum, with no timing; clocked mode: one instruction, on the
//! clock edge its SIMD, pipelines, wait counters and memory responses allow); the scheduler
//! runs it, never past the runner's instruction budget (exceeding it is a fault), counts
//! what retired, and applies the wave's stop: `s_endpgm` frees the wave, a fault stops its
//! workgroup, anything else leaves it resident. An instruction the sequencer takes without
//! an issue slot (`s_waitcnt`, `s_delay_alu` in clocked mode) lets the same wave go again.
//!
//! Workgroups: after a round, [`settle_group`] looks at the states of a workgroup's waves:
//! a workgroup with no live wave has ended; one whose live waves all wait at `s_barrier` is
//! released (every one of them may run again); otherwise it keeps running. Waves that ended
//! (`s_endpgm`) no longer count, so a barrier never waits for them (as on hardware, where
//! `s_endpgm` frees the slot).

use crate::exec::{FaultReason, InstClass, Stop, Wave, WaveState};

/// A runner's side of [`issue_round`]: its resident waves, where they run (memory view,
/// LDS, observer), and the timing of their issue. Wave indices are positions in the
/// runner's wave list at the time of the call.
pub(crate) trait IssuePolicy {
    /// What stops the round (the standalone runner stops at the first fault).
    type Error;

    /// Waves resident now.
    fn waves(&self) -> usize;

    /// Wave `i`.
    fn wave(&self, i: usize) -> &Wave;

    /// Whether wave `i` issues at this turn, and at most how many instructions.
    fn admit(&mut self, i: usize) -> Option<u64>;

    /// The instructions the budget counts so far (the dispatch's or the wave's), and the
    /// budget.
    fn spent(&self, i: usize) -> (u64, u64);

    /// Runs wave `i` for at most `n` instructions.
    fn execute(&mut self, i: usize, n: u64) -> Stop;

    /// Wave `i` retired `ran` instructions this turn; `classes` are its class counts
    /// before the turn.
    fn account(&mut self, i: usize, ran: u64, classes: &[u64; InstClass::COUNT]);

    /// The turn is over (`stop` already includes a budget fault): timing, memory requests,
    /// services. Returns whether the wave was taken without an issue slot (then, unless it
    /// stopped, it goes again at once).
    fn issued(&mut self, i: usize, stop: &Stop, ran: u64) -> Result<bool, Self::Error>;

    /// Wave `i` executed `s_endpgm`. Returns whether it left the wave list (the last wave
    /// then takes index `i`).
    fn ended(&mut self, i: usize) -> bool;

    /// Wave `i` faulted.
    fn faulted(&mut self, i: usize, reason: FaultReason) -> Result<(), Self::Error>;
}

/// Gives every wave of `p` a turn (see the module docs). Returns the wave-instructions
/// retired.
#[inline]
pub(crate) fn issue_round<P: IssuePolicy>(p: &mut P) -> Result<u64, P::Error> {
    let mut retired = 0;
    let mut i = 0;
    while i < p.waves() {
        let Some(n) = p.admit(i) else {
            i += 1;
            continue;
        };
        // Never run past the budget.
        let (spent, budget) = p.spent(i);
        let n = n.min(budget.saturating_sub(spent).max(1));
        let (before, classes) = {
            let w = p.wave(i);
            (w.retired, w.classes)
        };
        let mut stop = p.execute(i, n);
        let ran = p.wave(i).retired - before;
        retired += ran;
        p.account(i, ran, &classes);
        if p.spent(i).0 > budget && !matches!(stop, Stop::Fault(_)) {
            stop = Stop::Fault(FaultReason::Budget(budget));
        }
        let internal = p.issued(i, &stop, ran)?;
        // A match guard that removes the wave would hide a side effect in a pattern.
        #[allow(clippy::collapsible_match)]
        match stop {
            Stop::Quantum if internal => continue,
            Stop::Endpgm => {
                if p.ended(i) {
                    continue;
                }
            }
            Stop::Fault(reason) => p.faulted(i, reason)?,
            _ => {}
        }
        i += 1;
    }
    Ok(retired)
}

/// What a workgroup's waves allow after a round of issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupState {
    /// No live wave: the workgroup is done.
    Ended,
    /// Every live wave waited at the barrier; they are ready again.
    Released,
    /// Some live wave can run, or waits for something other than the barrier.
    Running,
}

/// Applies the rule to one workgroup: `state` gives the state of each of `waves` that
/// belongs to it (`None` for waves of other workgroups). Waves in [`WaveState::Ended`]
/// are not live. Releasing sets the barrier's waiters [`WaveState::Ready`].
pub(crate) fn settle_group<T>(
    waves: &mut [T],
    mut state: impl FnMut(&mut T) -> Option<&mut WaveState>,
) -> GroupState {
    let (mut live, mut waiting) = (0u32, 0u32);
    for w in waves.iter_mut() {
        match state(w) {
            None | Some(WaveState::Ended) => {}
            Some(WaveState::Barrier) => {
                live += 1;
                waiting += 1;
            }
            Some(_) => live += 1,
        }
    }
    if live == 0 {
        return GroupState::Ended;
    }
    if waiting < live {
        return GroupState::Running;
    }
    for w in waves.iter_mut() {
        if let Some(s) = state(w) {
            if *s == WaveState::Barrier {
                *s = WaveState::Ready;
            }
        }
    }
    GroupState::Released
}

#[cfg(test)]
mod tests {
    use super::*;
    use WaveState::*;

    /// (workgroup, state) pairs, as a CU holds the waves of several workgroups.
    fn settle(waves: &mut [(u32, WaveState)], group: u32) -> GroupState {
        settle_group(waves, |w| (w.0 == group).then_some(&mut w.1))
    }

    #[test]
    fn a_workgroup_without_live_waves_has_ended() {
        let mut w = [(0, Ended), (1, Ready), (0, Ended)];
        assert_eq!(settle(&mut w, 0), GroupState::Ended);
        assert_eq!(settle(&mut w, 2), GroupState::Ended);
    }

    #[test]
    fn the_barrier_waits_for_every_live_wave_and_not_for_ended_ones() {
        let mut w = [(0, Barrier), (0, Ready), (1, Barrier), (0, Ended)];
        assert_eq!(settle(&mut w, 0), GroupState::Running);
        assert_eq!(w[0].1, Barrier);
        w[1].1 = Barrier;
        assert_eq!(settle(&mut w, 0), GroupState::Released);
        assert_eq!(w.map(|x| x.1), [Ready, Ready, Barrier, Ended]);
        // Workgroup 1's only live wave waits: released on its own.
        assert_eq!(settle(&mut w, 1), GroupState::Released);
        assert_eq!(w[2].1, Ready);
    }

    /// A scripted runner: each wave's turns give the stops in its script (each turn retires
    /// one instruction unless it is a sync wait); `internal` marks the turns taken without
    /// an issue slot; `ready` says which waves are admitted. It records the order of turns.
    struct Script {
        waves: Vec<Wave>,
        ids: Vec<u32>,
        scripts: Vec<Vec<(Stop, bool)>>,
        ready: Vec<bool>,
        budget: u64,
        quantum: u64,
        turns: Vec<(u32, u64)>,
        faults: Vec<(u32, FaultReason)>,
        ended: Vec<u32>,
        last_internal: bool,
    }

    impl Script {
        fn new(scripts: Vec<Vec<(Stop, bool)>>) -> Script {
            let n = scripts.len();
            Script {
                waves: (0..n).map(|_| Wave::new(64, 0)).collect(),
                ids: (0..n as u32).collect(),
                scripts,
                ready: vec![true; n],
                budget: u64::MAX,
                quantum: 8,
                turns: Vec::new(),
                faults: Vec::new(),
                ended: Vec::new(),
                last_internal: false,
            }
        }
    }

    impl IssuePolicy for Script {
        type Error = ();
        fn waves(&self) -> usize {
            self.waves.len()
        }
        fn wave(&self, i: usize) -> &Wave {
            &self.waves[i]
        }
        fn admit(&mut self, i: usize) -> Option<u64> {
            let id = self.ids[i] as usize;
            (self.ready[id] && !self.scripts[id].is_empty()).then_some(self.quantum)
        }
        fn spent(&self, i: usize) -> (u64, u64) {
            (self.waves[i].retired, self.budget)
        }
        fn execute(&mut self, i: usize, n: u64) -> Stop {
            let id = self.ids[i];
            let (stop, internal) = self.scripts[id as usize].remove(0);
            self.last_internal = internal;
            self.turns.push((id, n));
            if stop != Stop::SyncWait {
                self.waves[i].retired += 1;
            }
            stop
        }
        fn account(&mut self, _: usize, _: u64, _: &[u64; InstClass::COUNT]) {}
        fn issued(&mut self, _: usize, _: &Stop, _: u64) -> Result<bool, ()> {
            Ok(self.last_internal)
        }
        fn ended(&mut self, i: usize) -> bool {
            self.ended.push(self.ids[i]);
            self.waves.swap_remove(i);
            self.ids.swap_remove(i);
            true
        }
        fn faulted(&mut self, i: usize, reason: FaultReason) -> Result<(), ()> {
            self.faults.push((self.ids[i], reason));
            Ok(())
        }
    }

    #[test]
    fn every_admitted_wave_gets_one_turn_a_round_oldest_first() {
        let q = (Stop::Quantum, false);
        let mut s = Script::new(vec![vec![q.clone(); 3], vec![q.clone(); 3], vec![q; 3]]);
        s.ready[1] = false;
        assert_eq!(issue_round(&mut s), Ok(2));
        assert_eq!(s.turns, [(0, 8), (2, 8)]);
    }

    #[test]
    fn an_instruction_without_an_issue_slot_lets_the_wave_go_again() {
        let (q, wait) = ((Stop::Quantum, false), (Stop::Quantum, true));
        let mut s = Script::new(vec![
            vec![wait.clone(), wait, q.clone(), q.clone()],
            vec![q],
        ]);
        issue_round(&mut s).unwrap();
        assert_eq!(
            s.turns.iter().map(|t| t.0).collect::<Vec<_>>(),
            [0, 0, 0, 1]
        );
    }

    #[test]
    fn an_ended_wave_leaves_and_the_wave_taking_its_place_still_gets_its_turn() {
        let q = (Stop::Quantum, false);
        let mut s = Script::new(vec![
            vec![(Stop::Endpgm, false)],
            vec![q.clone()],
            vec![q.clone(), q],
        ]);
        issue_round(&mut s).unwrap();
        assert_eq!(s.ended, [0]);
        // Wave 2 moved into slot 0 and ran; wave 1 ran too.
        assert_eq!(s.turns.iter().map(|t| t.0).collect::<Vec<_>>(), [0, 2, 1]);
    }

    #[test]
    fn no_turn_runs_past_the_budget_and_exceeding_it_is_a_fault() {
        let q = (Stop::Quantum, false);
        let mut s = Script::new(vec![vec![q.clone(); 4]]);
        s.budget = 2;
        s.waves[0].retired = 1;
        issue_round(&mut s).unwrap();
        // One instruction was left of the budget.
        assert_eq!(s.turns, [(0, 1)]);
        assert!(s.faults.is_empty());
        issue_round(&mut s).unwrap();
        // None left: one more is run, and that is a fault.
        assert_eq!(s.turns[1], (0, 1));
        assert_eq!(s.faults, [(0, FaultReason::Budget(2))]);
        // A wave that did not retire its instruction did not spend budget.
        let mut s = Script::new(vec![vec![(Stop::SyncWait, false)]]);
        s.budget = 0;
        issue_round(&mut s).unwrap();
        assert!(s.faults.is_empty());
    }

    #[test]
    fn a_wave_waiting_for_its_atomics_keeps_the_barrier_closed() {
        let mut w = [(0, Barrier), (0, SyncWait)];
        assert_eq!(settle(&mut w, 0), GroupState::Running);
        assert_eq!(w[0].1, Barrier);
    }
}
