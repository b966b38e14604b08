//! Instruction coverage: which instructions a set of code objects uses, which of those the
//! executor implements, and how large the target's ISA table is (`gfxsim coverage`).
//!
//! "Implemented" is measured, not listed: every occurrence of an instruction is decoded
//! by the executor and executed once in a sandbox wave (zeroed registers, all lanes
//! active, empty device memory). An occurrence counts as implemented unless it stops with
//! [`FaultReason::Unimplemented`], [`FaultReason::UnsupportedForm`] or
//! [`FaultReason::Illegal`]; memory faults and traps are behaviour, so they count. The
//! table can therefore never claim an instruction the executor would refuse.

use crate::exec::{ExecCtx, FaultReason, Program, Stop, Wave};
use crate::isa::{self, Op};
use crate::loader::CodeObject;
use crate::memory::DeviceMemory;
use crate::{Family, Target};
use std::collections::BTreeMap;

/// How one operation is used by the scanned code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpUse {
    /// Static occurrences.
    pub count: u64,
    /// Occurrences the executor refused.
    pub refused: u64,
    /// Why the first refused occurrence was refused (with its text).
    pub why: Option<String>,
}

impl OpUse {
    /// Every occurrence is implemented.
    pub fn implemented(&self) -> bool {
        self.refused == 0
    }
}

/// Coverage of one target.
#[derive(Debug, Clone)]
pub struct Coverage {
    /// The target.
    pub target: Target,
    /// Code objects scanned.
    pub objects: usize,
    /// Used operations by name.
    pub used: BTreeMap<&'static str, OpUse>,
    /// Words in `.text` that do not decode (padding, data, formats the decoder lacks).
    pub undecodable: u64,
    /// Operations in the target's ISA tables.
    pub isa_ops: usize,
}

impl Coverage {
    /// An empty report for `target`.
    pub fn new(target: Target) -> Coverage {
        Coverage {
            target,
            objects: 0,
            used: BTreeMap::new(),
            undecodable: 0,
            isa_ops: isa::ops(target).len(),
        }
    }

    /// Distinct operations used.
    pub fn used_ops(&self) -> usize {
        self.used.len()
    }

    /// Distinct used operations every occurrence of which the executor implements.
    pub fn implemented_ops(&self) -> usize {
        self.used.values().filter(|u| u.implemented()).count()
    }

    /// Scans a code object of this report's target (others are ignored: returns false).
    pub fn add(&mut self, co: &CodeObject) -> bool {
        let t = co.target();
        if t != self.target {
            return false;
        }
        self.objects += 1;
        let wave = co.kernels().first().map_or(64, |k| k.wave_size(t));
        let wave32 = t.family() == Family::Gfx12 && wave == 32;
        let text = co.text();
        let base = co.text_address();
        let prog = Program::new(t, base, text);
        let mem = DeviceMemory::new();
        let mut lds = vec![0u8; 64 * 1024];
        let mut w = Wave::new(wave, base);
        let mut off = 0usize;
        while off < text.len() {
            let Ok(inst) = isa::decode(t, &text[off..], wave32) else {
                self.undecodable += 1;
                off += 4;
                continue;
            };
            // s_code_end is padding after the last function, never executed.
            if inst.op != Op::SCodeEnd {
                let pc = base + off as u64;
                let refusal = probe(&prog, &mem, &mut lds, &mut w, wave, pc);
                let u = self.used.entry(inst.op.name()).or_insert(OpUse {
                    count: 0,
                    refused: 0,
                    why: None,
                });
                u.count += 1;
                if let Some(r) = refusal {
                    u.refused += 1;
                    u.why.get_or_insert_with(|| format!("`{inst}`: {r}"));
                }
            }
            off += usize::from(inst.len.max(4));
        }
        true
    }
}

/// Runs the instruction at `pc` once in a sandbox; returns why the executor refused it.
fn probe(
    prog: &Program,
    mem: &DeviceMemory,
    lds: &mut [u8],
    w: &mut Wave,
    wave: u32,
    pc: u64,
) -> Option<FaultReason> {
    w.reset(wave, pc, 256);
    w.set_exec(if wave == 32 {
        u32::MAX as u64
    } else {
        u64::MAX
    });
    w.scratch_per_lane = 1024;
    let mut ctx = ExecCtx {
        prog,
        mem: mem.into(),
        lds,
        observer: None,
    };
    match w.run(&mut ctx, 1) {
        Stop::Fault(
            r @ (FaultReason::Unimplemented(_)
            | FaultReason::UnsupportedForm(_)
            | FaultReason::Illegal(_)),
        ) => Some(r),
        _ => None,
    }
}

/// Base of the sandbox's device memory: every SGPR pair and VGPR pair of the sandbox wave
/// holds this address, so loads, stores and atomics through any register reach memory.
const SANDBOX_BASE: u64 = 0x1_0000;
/// Size of the sandbox's device memory (and LDS).
const SANDBOX_BYTES: usize = 256 * 1024;

/// One instruction form the executor refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The instance as LLVM prints it.
    pub text: String,
    /// Why.
    pub reason: FaultReason,
}

/// `gfxsim coverage --isa`: every instruction form of a target's tables executed once.
#[derive(Debug, Clone)]
pub struct IsaCoverage {
    /// The target.
    pub target: Target,
    /// Wave size the forms ran with (GFX12 has a table per wave size).
    pub wave: u32,
    /// Opcode entries (operation and encoding) in the table.
    pub entries: usize,
    /// Instruction forms instantiated (an entry per operand-syntax variant).
    pub forms: usize,
    /// Forms that executed (including those that faulted on memory or trapped: that is
    /// behaviour).
    pub executed: usize,
    /// Graphics-pipeline forms, which fault with the class they belong to (class, form).
    pub graphics: Vec<(&'static str, String)>,
    /// Forms the executor refused, each with its reason.
    pub refused: Vec<Refusal>,
}

/// Instantiates every entry of `target`'s tables (wave32 or wave64 on GFX12) with the
/// encoder ([`isa::Inst::instances`]) and executes each once in a sandbox wave whose
/// registers point into mapped memory. The tally can never claim an instruction the
/// executor would refuse: refused means the wave stopped with
/// [`FaultReason::Unimplemented`], [`FaultReason::UnsupportedForm`] or
/// [`FaultReason::Illegal`].
pub fn isa_coverage(target: Target, wave: u32) -> IsaCoverage {
    let wave32 = wave == 32 && target.family() == Family::Gfx12;
    let wave = if wave32 { 32 } else { 64 };
    let forms = isa::Inst::instances(target, wave32);
    let mut entries: Vec<(Op, isa::Format)> = forms.iter().map(|i| (i.op, i.format)).collect();
    entries.sort();
    entries.dedup();
    let mut mem = DeviceMemory::new();
    // A fresh memory has room at this fixed address; if not, the probes fault on memory,
    // which still tells executed from refused.
    let _ = mem.allocate_at(SANDBOX_BASE, SANDBOX_BYTES as u64);
    let mut lds = vec![0u8; SANDBOX_BYTES];
    let mut w = Wave::new(wave, 0);
    let mut out = IsaCoverage {
        target,
        wave,
        entries: entries.len(),
        forms: forms.len(),
        executed: 0,
        graphics: Vec::new(),
        refused: Vec::new(),
    };
    let code_base = 0x100;
    for inst in &forms {
        let mut bytes = [0u8; 20];
        let Ok(n) = isa::encode(inst, &mut bytes) else {
            continue;
        };
        let prog = Program::new(target, code_base, &bytes[..n]);
        w.reset(wave, code_base, 256);
        // VGPRs and AGPRs.
        for r in 0..512 {
            let v = if r % 2 == 0 { SANDBOX_BASE as u32 } else { 0 };
            for l in 0..crate::exec::LANES {
                w.set_vgpr(r, l, v);
            }
        }
        for s in 0..124 {
            w.set_sgpr(s, if s % 2 == 0 { SANDBOX_BASE as u32 } else { 0 });
        }
        w.set_exec(if wave == 32 {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        });
        w.scratch_base = SANDBOX_BASE;
        w.scratch_per_lane = 1024;
        let mut ctx = ExecCtx {
            prog: &prog,
            mem: (&mem).into(),
            lds: &mut lds,
            observer: None,
        };
        match w.run(&mut ctx, 1) {
            Stop::Fault(FaultReason::GraphicsOnly(class)) => {
                out.graphics.push((class, inst.to_string()));
            }
            Stop::Fault(
                r @ (FaultReason::Unimplemented(_)
                | FaultReason::UnsupportedForm(_)
                | FaultReason::Illegal(_)),
            ) => out.refused.push(Refusal {
                text: inst.to_string(),
                reason: r,
            }),
            _ => out.executed += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(words: &[u32]) -> Option<FaultReason> {
        let text: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let prog = Program::new(Target::Gfx942, 0x1000, &text);
        let mem = DeviceMemory::new();
        let mut lds = vec![0u8; 1024];
        let mut w = Wave::new(64, 0x1000);
        probe(&prog, &mem, &mut lds, &mut w, 64, 0x1000)
    }

    #[test]
    fn probe_tells_implemented_from_refused() {
        // v_add_f32_e32 v0, v1, v2
        assert_eq!(refused(&[0x0200_0501]), None);
        // global_load_dword v0, v[0:1], off: faults on empty memory, which is behaviour.
        assert_eq!(refused(&[0xDC50_8000, 0x007F_0000]), None);
        // v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3
        // (ISA-ENCODINGS.md §5.6): the executor refuses the broadcast modifiers.
        assert!(matches!(
            refused(&[0xD3CC_9100, 0x6402_0500]),
            Some(FaultReason::UnsupportedForm(_))
        ));
        // Bytes that are no instruction at all.
        assert!(matches!(
            refused(&[0xFFFF_FFFF]),
            Some(FaultReason::Illegal(_))
        ));
    }
}
