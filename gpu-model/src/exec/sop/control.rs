//! Scalar program control: SOPP, branches and PC moves, fork/join, return from a trap
//! handler, hardware registers, messages, barriers, sleeps, and the switches of the GFX9
//! vector modes (`s_set_gpr_idx_*`, `s_setvskip`).
//!
//! Instructions that only matter to a debugger or to a trap handler do here what a compute
//! dispatch observes: the conditional-debug branches test STATUS.COND_DBG_USER/SYS, which
//! nothing in the model sets (so they fall through); `s_rfe*` jumps to the PC in its
//! operand and leaves privileged mode; messages that return data return what the model
//! has (the clock, or 0 where it has no such hardware state: doorbells, trap addresses).

use super::super::inst::Inst;
use super::super::wave::{Flow, Wave};
use super::super::{ExecCtx, FaultReason, Stop};
use super::vmode::{GPR_IDX_EN, VSKIP};
use crate::isa::Op;
use crate::Family;

/// SGPR code of M0 (executor numbering).
const M0: u16 = 124;
/// STATUS.PRIV (CDNA4 ISA guide table 3; RDNA4 WAVE_STATUS.PRIV).
const STATUS_PRIV: u32 = 1 << 5;
/// STATUS.COND_DBG_USER and COND_DBG_SYS (CDNA4 ISA guide table 3).
const COND_DBG_USER: u32 = 1 << 20;
const COND_DBG_SYS: u32 = 1 << 21;

/// Sign-extends the low 16 bits of an instruction word.
pub(super) fn simm16(w: u32) -> i32 {
    w as u16 as i16 as i32
}

/// Executes a program-control instruction (the scalar instructions [`super::exec`] does not
/// compute itself).
pub(super) fn exec(w: &mut Wave, ctx: &mut ExecCtx<'_>, i: &Inst) -> Result<Flow, FaultReason> {
    use Op::*;
    let d = i.dst;
    match i.op {
        SNop | SSetkill | SSethalt | SSetprio | SIcacheInv | SIncperflevel | SDecperflevel
        | STtracedata | STtracedataImm | SWakeup | SVersion => {}
        SWaitAlu | SDelayAlu | SClause => {}
        SWaitcnt | SWaitLoadcnt | SWaitStorecnt | SWaitDscnt | SWaitKmcnt | SWaitLoadcntDscnt
        | SWaitStorecntDscnt | SWaitSamplecnt | SWaitBvhcnt | SWaitExpcnt | SWaitIdle => {
            // Memory completes immediately: a wait leaves nothing outstanding.
            w.counters = Default::default();
        }
        // RDNA4 S_WAIT_EVENT waits for EXPORT_READY; a compute wave never exports, and the
        // model has no export pipe to wait for (documented choice: the condition holds).
        SWaitEvent => {}
        // S_ENDPGM_ORDERED_PS_DONE also ends a pixel shader's ordered section, which a
        // compute dispatch does not have.
        SEndpgm | SEndpgmSaved | SEndpgmOrderedPsDone => {
            // An ended wave no longer counts towards its workgroup's barrier.
            if let Some(g) = ctx.group.as_deref_mut() {
                g.leave();
            }
            return Ok(Flow::Stop(Stop::Endpgm));
        }
        // RDNA4 guide: "Generate an illegal instruction interrupt" (end-of-code padding).
        SCodeEnd => return Err(FaultReason::IllegalInstruction("s_code_end")),
        // RDNA4 guide: illegal unless the wave runs in dynamic-VGPR mode (a wave32 CS
        // launch option the model's dispatches never set).
        SAllocVgpr => {
            return Err(FaultReason::IllegalInstruction(
                "s_alloc_vgpr outside dynamic-VGPR mode",
            ))
        }
        SBarrier | SBarrierWait => {
            // A barrier in a workgroup of one wave is a no-op.
            return Ok(Flow::Stop(Stop::Barrier));
        }
        SBarrierSignal
        | SBarrierSignalIsfirst
        | SGetBarrierState
        | SBarrierInit
        | SBarrierJoin
        | SBarrierLeave => super::barrier::exec(w, ctx, i),
        SSleep => return Ok(Flow::Stop(Stop::Sleep)),
        // RDNA4 S_SLEEP_VAR: S0[6:0] = 0 does not sleep.
        SSleepVar => {
            if w.sread(i.src[0], i.lit) & 0x7f != 0 {
                return Ok(Flow::Stop(Stop::Sleep));
            }
        }
        SSendmsg | SSendmsghalt => {
            // Messages (interrupts, GS/dealloc) have no effect on a compute kernel's
            // results; MSG_DEALLOC_VGPRS / halt-like messages are ignored.
        }
        SSendmsgRtnB32 | SSendmsgRtnB64 => {
            let v = message_return(w, i.src[0]);
            if i.op == SSendmsgRtnB64 {
                w.swrite64(d, v);
            } else {
                w.swrite(d, v as u32);
            }
        }
        STrap => return Err(FaultReason::Trap(i.imm & 0xff)),
        SBranch => return Ok(branch(w, i, true)),
        SCbranchScc0 => return Ok(branch(w, i, !w.scc)),
        SCbranchScc1 => return Ok(branch(w, i, w.scc)),
        SCbranchVccz => return Ok(branch(w, i, w.vcc() == 0)),
        SCbranchVccnz => return Ok(branch(w, i, w.vcc() != 0)),
        SCbranchExecz => return Ok(branch(w, i, w.exec() == 0)),
        SCbranchExecnz => return Ok(branch(w, i, w.exec() != 0)),
        SCbranchCdbgsys => return Ok(branch(w, i, w.status & COND_DBG_SYS != 0)),
        SCbranchCdbguser => return Ok(branch(w, i, w.status & COND_DBG_USER != 0)),
        SCbranchCdbgsysOrUser => {
            let both = COND_DBG_SYS | COND_DBG_USER;
            return Ok(branch(w, i, w.status & both != 0));
        }
        SCbranchCdbgsysAndUser => {
            let both = COND_DBG_SYS | COND_DBG_USER;
            return Ok(branch(w, i, w.status & both == both));
        }
        SCbranchGFork | SCbranchIFork | SCbranchJoin => return Ok(fork_join(w, i)),
        SGetpcB64 => {
            // The 48-bit PC of the next instruction: GFX9 sign-extends it to 64 bits,
            // GFX12 (before gfx1250) zero-extends it (LLVM 22
            // `GCNSubtarget::hasGetPCZeroExtension`, which is why LLVM follows a gfx12
            // `s_getpc_b64` with `s_sext_i32_i16` of the high half).
            let pc = w.pc.wrapping_add(4) & ((1 << 48) - 1);
            let v = if ctx.prog.target().family() == Family::Gfx12 {
                pc
            } else {
                ((pc << 16) as i64 >> 16) as u64
            };
            w.swrite64(d, v)
        }
        SSetpcB64 => {
            w.pc = w.sread64(i.src[0], i.lit, false);
            return Ok(Flow::Jumped);
        }
        SSwappcB64 => {
            let target = w.sread64(i.src[0], i.lit, false);
            let ret = w.pc.wrapping_add(i.len as u64);
            w.swrite64(d, ret);
            w.pc = target;
            return Ok(Flow::Jumped);
        }
        SCallB64 => {
            let ret = w.pc.wrapping_add(4);
            w.swrite64(d, ret);
            w.pc = ret.wrapping_add_signed(4 * simm16(i.imm) as i64);
            return Ok(Flow::Jumped);
        }
        // Vega / CDNA3 / RDNA4: PRIV = 0; PC = S0.u64. S_RFE_RESTORE_B64 also sets
        // STATUS.INST_ATC from S1[0], an address-translation mode the model does not have.
        SRfeB64 | SRfeRestoreB64 => {
            w.status &= !STATUS_PRIV;
            w.pc = w.sread64(i.src[0], i.lit, false);
            return Ok(Flow::Jumped);
        }
        SGetregB32 => {
            let gfx12 = ctx.prog.target().family() == Family::Gfx12;
            let v = getreg(w, i.imm, gfx12);
            w.swrite(d, v);
        }
        SSetregB32 => {
            let v = w.sread(d, 0);
            setreg(w, i.imm, v);
        }
        SSetregImm32B32 => setreg(w, i.imm, i.lit),
        // GFX12 (RDNA4 ISA guide, SOPP): MODE[3:0] = SIMM16[3:0] (round modes),
        // MODE[7:4] = SIMM16[3:0] (denormal modes).
        SRoundMode => w.mode = (w.mode & !0xf) | (i.imm & 0xf),
        SDenormMode => w.mode = (w.mode & !0xf0) | (i.imm & 0xf) << 4,
        // GPR indexing (CDNA4 guide 6.6): MODE.gpr_idx_en; M0[7:0] index, M0[15:12] the
        // operand enables (S_SET_GPR_IDX_ON takes them raw from its SSRC1 field).
        SSetGprIdxOn => {
            let idx = w.sread(i.src[0], i.lit) & 0xff;
            let m0 = w.sgpr(M0 as usize) & !0xf0ff | idx | (u32::from(i.src[1]) & 0xf) << 12;
            w.swrite(M0, m0);
            w.mode |= GPR_IDX_EN;
        }
        SSetGprIdxOff => w.mode &= !GPR_IDX_EN,
        SSetGprIdxIdx => {
            let idx = w.sread(i.src[0], i.lit) & 0xff;
            w.swrite(M0, w.sgpr(M0 as usize) & !0xff | idx);
        }
        SSetGprIdxMode => {
            let m0 = w.sgpr(M0 as usize) & !0xf000 | (i.imm & 0xf) << 12;
            w.swrite(M0, m0);
        }
        // VSKIP = S0.u[S1.u[4:0]].
        SSetvskip => {
            let bit = w.sread(i.src[0], i.lit) >> (w.sread(i.src[1], i.lit) & 31) & 1;
            w.mode = w.mode & !VSKIP | if bit != 0 { VSKIP } else { 0 };
        }
        _ => return Err(FaultReason::Unimplemented(i.mnemonic())),
    }
    Ok(Flow::Next)
}

/// `PC = PC + 4 + SIMM16 * 4` when `taken`.
fn branch(w: &mut Wave, i: &Inst, taken: bool) -> Flow {
    if taken {
        w.pc =
            w.pc.wrapping_add(4)
                .wrapping_add_signed(4 * simm16(i.imm) as i64);
        Flow::Jumped
    } else {
        Flow::Next
    }
}

/// GFX9 `s_cbranch_g_fork`, `s_cbranch_i_fork`, `s_cbranch_join` (CDNA4 guide 4.6 and the
/// instructions' pseudo-code): a branch stack of 128-bit entries in SGPR[CSP*4..CSP*4+3],
/// `{PC, EXEC}` with EXEC in the low 64 bits (SGPR[CSP*4], [CSP*4+1]) and the PC in the high
/// ones; CSP is MODE[31:29] (3 bits; it wraps).
fn fork_join(w: &mut Wave, i: &Inst) -> Flow {
    let csp = w.mode >> 29;
    let set_csp = |w: &mut Wave, c: u32| w.mode = w.mode & 0x1fff_ffff | (c & 7) << 29;
    let next = w.pc.wrapping_add(i.len as u64);
    if i.op == Op::SCbranchJoin {
        // S0 holds the CSP saved when the fork block began.
        if w.sread(i.src[0], i.lit) == csp {
            return Flow::Next;
        }
        let c = csp.wrapping_sub(1) & 7;
        set_csp(w, c);
        let slot = 4 * c as usize;
        let exec = w.sgpr64(slot);
        w.set_exec(exec);
        w.pc = w.sgpr64(slot + 2);
        return Flow::Jumped;
    }
    let (mask, target) = if i.op == Op::SCbranchGFork {
        let m = w.sread64(i.src[0], i.lit, false);
        (m, w.sread64(i.src[1], i.lit, false))
    } else {
        // SOPK: the mask register is the SDST field.
        let t = next.wrapping_add_signed(4 * simm16(i.imm) as i64);
        (w.sread64(i.dst, 0, false), t)
    };
    let exec = w.exec();
    let (pass, fail) = (mask & exec, !mask & exec);
    if pass == exec {
        w.pc = target;
        return Flow::Jumped;
    }
    if fail == exec {
        return Flow::Next;
    }
    // Run the side with fewer lanes first; push the other one.
    let slot = 4 * csp as usize;
    set_csp(w, csp + 1);
    if fail.count_ones() < pass.count_ones() {
        w.set_exec(fail);
        w.set_sgpr64(slot, pass);
        w.set_sgpr64(slot + 2, target);
        Flow::Next
    } else {
        w.set_exec(pass);
        w.set_sgpr64(slot, fail);
        w.set_sgpr64(slot + 2, next);
        w.pc = target;
        Flow::Jumped
    }
}

/// What GFX12 `s_sendmsg_rtn_*` returns for message `msg` (the raw SSRC0 field; LLVM
/// `SIDefines.h` ID_RTN_*): MSG_RTN_GET_REALTIME (131) the wave's clock
/// ([`Wave::clock`]); the others 0, documented: the model has no doorbells (128), draw or
/// dispatch ids (129), trap handler (TMA 130, TBA 133, TBA_TO_PC 134), context save (132)
/// or SE/AID ids (135) to report.
fn message_return(w: &Wave, msg: u16) -> u64 {
    match msg {
        131 => w.clock(),
        _ => 0,
    }
}

/// A hardware register (LLVM `SIDefines.h` Hwreg ids): MODE 1, STATUS 2; GFX9 TRAPSTS 3
/// and HW_ID 4 (the wave slot: the wave's index in its workgroup); GFX12
/// SHADER_CYCLES_LO/HI 29/30, the 64-bit shader clock ([`Wave::clock`], which LLVM reads
/// for `llvm.readcyclecounter`). The rest (allocation, instruction-buffer, performance,
/// trap registers) read 0: the model has no such state.
fn hwreg_value(w: &Wave, id: u32, gfx12: bool) -> u32 {
    match (id, gfx12) {
        (1, _) => w.mode,
        (2, _) => w.status,
        (3, false) => w.trapsts,
        (4, false) => w.info.wave_in_group & 0xf,
        (29, true) => w.clock() as u32,
        (30, true) => (w.clock() >> 32) as u32,
        _ => 0,
    }
}

fn field(spec: u32) -> (u32, u32, u32) {
    let id = spec & 0x3f;
    let off = (spec >> 6) & 0x1f;
    let size = ((spec >> 11) & 0x1f) + 1;
    (id, off, size)
}

fn getreg(w: &Wave, spec: u32, gfx12: bool) -> u32 {
    let (id, off, size) = field(spec);
    let v = hwreg_value(w, id, gfx12) >> off;
    if size >= 32 {
        v
    } else {
        v & ((1 << size) - 1)
    }
}

fn setreg(w: &mut Wave, spec: u32, v: u32) {
    let (id, off, size) = field(spec);
    let mask = if size >= 32 {
        u32::MAX
    } else {
        (1 << size) - 1
    } << off;
    let apply = |old: u32| (old & !mask) | ((v << off) & mask);
    match id {
        1 => w.mode = apply(w.mode),
        3 => w.trapsts = apply(w.trapsts),
        _ => {}
    }
}
