//! The workgroup rule every runner applies between rounds of issue: the standalone
//! runner ([`super::run`]) and the SoC's compute units, in functional and clocked mode.
//!
//! After the waves of a workgroup ran (a quantum each, or one instruction in clocked
//! mode), the scheduler looks at their states: a workgroup with no live wave has ended;
//! one whose live waves all wait at `s_barrier` is released (every one of them may run
//! again); otherwise it keeps running. Waves that ended (`s_endpgm`) no longer count, so
//! a barrier never waits for them (as on hardware, where `s_endpgm` frees the slot).

use crate::exec::WaveState;

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

    #[test]
    fn a_wave_waiting_for_its_atomics_keeps_the_barrier_closed() {
        let mut w = [(0, Barrier), (0, SyncWait)];
        assert_eq!(settle(&mut w, 0), GroupState::Running);
        assert_eq!(w[0].1, Barrier);
    }
}
