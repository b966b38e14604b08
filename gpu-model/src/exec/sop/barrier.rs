//! GFX12 split barriers: `s_barrier_signal`, `s_barrier_signal_isfirst`,
//! `s_get_barrier_state` on the workgroup barrier, and the named-barrier instructions
//! LLVM-22 assembles for gfx12.
//!
//! The RDNA4 ISA guide (16.3 SOP1, 16.5 SOPP) keeps per-barrier state {valid, memberCnt,
//! signalCnt}: a signal adds one to signalCnt, and the barrier completes (signalCnt back
//! to 0, the waiting waves released) when signalCnt reaches memberCnt. S_BARRIER_WAIT
//! waits only on the workgroup barrier (-1) or the trap barrier (-2). The model keeps that
//! state for the workgroup barrier in [`WorkgroupSync`], which the workgroup runner lends
//! the waves through [`ExecCtx::group`]; the waves themselves still rendezvous at
//! `s_barrier_wait` (`Stop::Barrier`), as the runners release them.
//!
//! - Barrier 0 and a wave outside a workgroup of more than one wave (or a context
//!   without workgroup state, as in single-wave test harnesses): signals are NOPs and
//!   `isfirst` sets SCC = 0 (the guide's `!InWorkgroup()` case).
//! - The trap barrier (-2) is privileged: outside a trap handler (STATUS.PRIV = 0) a
//!   NOP with SCC = 0.
//! - Named barriers (1..16) are GFX12.5 objects: the RDNA4 guide lists no
//!   S_BARRIER_INIT/JOIN/LEAVE and S_BARRIER_WAIT cannot wait on them. Documented choice:
//!   init/join/leave are NOPs, signals to them are NOPs, and their state reads as
//!   0 (not valid).
//! - An argument in M0 selects the barrier by M0[4:0] (the guide's `IsM0(SRC0)`).

use super::super::inst::Inst;
use super::super::wave::Wave;
use super::super::ExecCtx;
use crate::isa::Op;

/// The workgroup barrier's state shared by the waves of one workgroup (RDNA4 guide:
/// BARRIER_STATE[-1]). Deterministic: it changes only as the waves execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct WorkgroupSync {
    /// Waves the workgroup was launched with (more than one: the waves are "in a
    /// workgroup", STATUS.IN_TG).
    pub waves: u32,
    /// Waves of the workgroup that have not ended (memberCnt).
    pub members: u32,
    /// Signals since the barrier last completed (signalCnt).
    pub signals: u32,
}

impl WorkgroupSync {
    /// The state of a workgroup of `waves` waves before any wave runs.
    pub fn new(waves: u32) -> WorkgroupSync {
        WorkgroupSync {
            waves,
            members: waves,
            signals: 0,
        }
    }

    /// A wave of the workgroup ended: it is no longer a member, which may complete the
    /// barrier for the others.
    pub fn leave(&mut self) {
        self.members = self.members.saturating_sub(1);
        self.check_complete();
    }

    /// One signal; returns whether it was the first of this barrier phase.
    fn signal(&mut self) -> bool {
        let first = self.signals == 0;
        self.signals += 1;
        self.check_complete();
        first
    }

    fn check_complete(&mut self) {
        if self.signals >= self.members {
            self.signals = 0;
        }
    }
}

/// SGPR code of M0 (executor numbering).
const M0: u16 = 124;
/// STATUS.PRIV.
const STATUS_PRIV: u32 = 1 << 5;

/// Executes a GFX12 barrier instruction other than `s_barrier_wait`.
pub(super) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) {
    use Op::*;
    let number = if i.src[0] == M0 {
        (w.sgpr(M0 as usize) & 0x1f) as i32
    } else {
        w.sread(i.src[0], i.lit) as i32
    };
    let privileged = number == -2 && w.status & STATUS_PRIV == 0;
    // The workgroup barrier's state, when this wave is in a workgroup of several waves.
    let group = ctx.group.as_deref_mut().filter(|g| g.waves > 1);
    match i.op {
        SBarrierSignal | SBarrierSignalIsfirst => {
            let first = match group {
                Some(g) if number == -1 => g.signal(),
                _ => false,
            };
            if i.op == SBarrierSignalIsfirst {
                w.scc = first && !privileged;
            }
        }
        SGetBarrierState => {
            // { 9'0, signalCnt[6:0], 5'0, memberCnt[6:0], 3'0, valid }
            let v = match group {
                Some(g) if number == -1 => (g.signals & 0x7f) << 16 | (g.members & 0x7f) << 4 | 1,
                _ => 0,
            };
            w.swrite(i.dst, v);
        }
        // SBarrierInit | SBarrierJoin | SBarrierLeave: named barriers (see the module doc).
        _ => {}
    }
}
