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
        assert_eq!(refused(&[0xDC50_0000, 0x007F_0000]), None);
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
