//! Faults are results: a kernel that touches unmapped or freed memory, runs past its
//! instruction budget, executes illegal bytes, traps or jumps out of its code stops the
//! dispatch with a structured report (kernel, workgroup, wave, PC, instruction, reason).

use gpu_model::device::{ArgValue, Device, DeviceError, LaunchConfig};
use gpu_model::exec::{ExecCtx, FaultReason, Program, Stop, Wave};
use gpu_model::memory::{DeviceMemory, FaultKind};
use gpu_model::Target;
use std::path::PathBuf;

fn code(variant: &str, stem: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build")
        .join(variant)
        .join(format!("{stem}.hsaco"));
    std::fs::read(p).unwrap()
}

fn vadd(dev: &mut Device, a: u64, b: u64, c: u64) -> Result<(), DeviceError> {
    let m = dev.load_code_object(&code(dev.target().name(), "vadd"))?;
    let args = [
        ArgValue::ptr(a),
        ArgValue::ptr(b),
        ArgValue::ptr(c),
        ArgValue::u32(1000),
    ];
    let id = dev.dispatch(
        m,
        "vadd",
        &LaunchConfig::new([1000, 1, 1], [256, 1, 1]),
        &args,
    )?;
    dev.wait(id).map(|_| ())
}

#[test]
fn unmapped_load_is_a_structured_fault() {
    let mut dev = Device::new(Target::Gfx942);
    let b = dev.alloc(4000).unwrap();
    let c = dev.alloc(4000).unwrap();
    let bad = 0x0000_7000_0000_0000;
    let Err(DeviceError::Fault(f)) = vadd(&mut dev, bad, b, c) else {
        panic!("expected a fault")
    };
    assert_eq!(f.kernel, "vadd");
    assert_eq!(f.workgroup, [0, 0, 0]);
    assert_eq!(f.wave, 0);
    // llvm-objdump-22 -d corpus/build/gfx942/vadd.hsaco prints
    // "global_load_dword v6, v[4:5], off" at that PC: the shared disassembler's text when it
    // decodes GFX9, else the executor's mnemonic and raw dwords.
    assert!(
        f.instruction == "global_load_dword v6, v[4:5], off"
            || f.instruction == "global_load_dword // DC508000 067F0004",
        "{}",
        f.instruction
    );
    match f.reason {
        FaultReason::Memory { lane: 0, fault } => {
            assert_eq!(fault.addr, bad);
            assert_eq!(fault.kind, FaultKind::Unmapped);
        }
        r => panic!("unexpected reason {r:?}"),
    }
    // The report names everything in one line.
    let text = f.to_string();
    assert!(
        text.contains("vadd")
            && text.contains("global_load_dword")
            && text.contains("0x700000000000"),
        "{text}"
    );
}

#[test]
fn use_after_free_faults_as_freed() {
    let mut dev = Device::new(Target::Gfx950);
    let (a, b, c) = (
        dev.alloc(4000).unwrap(),
        dev.alloc(4000).unwrap(),
        dev.alloc(4000).unwrap(),
    );
    dev.free(c).unwrap();
    let Err(DeviceError::Fault(f)) = vadd(&mut dev, a, b, c) else {
        panic!("expected a fault")
    };
    assert!(
        f.instruction.starts_with("global_store_dword"),
        "{}",
        f.instruction
    );
    assert!(matches!(
        f.reason,
        FaultReason::Memory { fault, .. } if matches!(fault.kind, FaultKind::Freed { .. })
    ));
}

#[test]
fn instruction_budget_stops_a_long_kernel() {
    let mut dev = Device::new(Target::Gfx90a);
    dev.options.budget = 5_000;
    let m = dev.load_code_object(&code("gfx90a", "alu_loop")).unwrap();
    let (u, f) = (dev.alloc(16384).unwrap(), dev.alloc(16384).unwrap());
    let args = [ArgValue::ptr(u), ArgValue::ptr(f), ArgValue::u32(1000)];
    let id = dev
        .dispatch(
            m,
            "alu_loop",
            &LaunchConfig::new([4096, 1, 1], [256, 1, 1]),
            &args,
        )
        .unwrap();
    match dev.wait(id) {
        Err(DeviceError::Fault(f)) => assert_eq!(f.reason, FaultReason::Budget(5_000)),
        r => panic!("expected a budget fault, got {r:?}"),
    }
}

#[test]
fn object_for_another_target_is_refused() {
    let mut dev = Device::new(Target::Gfx942);
    match dev.load_code_object(&code("gfx90a", "vadd")) {
        Err(DeviceError::Load(e)) => {
            let s = e.to_string();
            assert!(s.contains("gfx90a") && s.contains("gfx942"), "{s}");
        }
        r => panic!("expected a target mismatch, got {r:?}"),
    }
}

/// Runs raw GFX9 words as a one-wave program.
fn run_words(words: &[u32]) -> (Stop, Wave) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let base = 0x1000;
    let prog = Program::new(Target::Gfx942, base, &bytes);
    let mem = DeviceMemory::new();
    let mut lds = vec![0u8; 64];
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: (&mem).into(),
        lds: &mut lds,
        observer: None,
    };
    let mut w = Wave::new(64, base);
    w.set_exec(u64::MAX);
    let stop = w.run(&mut ctx, 100);
    (stop, w)
}

#[test]
fn illegal_trap_and_wild_jumps_are_faults() {
    // 0xFFFFFFFF matches no GFX9 encoding.
    let (stop, w) = run_words(&[0xBF80_0000, 0xFFFF_FFFF]);
    assert!(
        matches!(stop, Stop::Fault(FaultReason::Illegal(_))),
        "{stop:?}"
    );
    assert_eq!(w.pc, 0x1004, "pc stays on the faulting instruction");
    // s_trap 2 (SOPP op 0x12).
    let (stop, _) = run_words(&[0xBF92_0002]);
    assert_eq!(stop, Stop::Fault(FaultReason::Trap(2)));
    // s_mov_b64 s[0:1], 0 ; s_setpc_b64 s[0:1] (llvm-mc-22: BE800180, BE801D00).
    let (stop, _) = run_words(&[0xBE80_0180, 0xBE80_1D00]);
    assert_eq!(stop, Stop::Fault(FaultReason::PcOutOfCode { pc: 0 }));
}

#[test]
fn quantum_and_endpgm_are_reported() {
    // s_add_u32 s0, s1, 0x1234 (ISA-ENCODINGS worked example: 8000FF01 00001234) in a
    // loop body of s_nops, then s_endpgm.
    let mut words = vec![0x8000_FF01, 0x0000_1234];
    words.extend(std::iter::repeat_n(0xBF80_0000, 150));
    words.push(0xBF81_0000);
    let (stop, w) = run_words(&words);
    assert_eq!(stop, Stop::Quantum);
    assert_eq!(w.retired, 100);
    assert_eq!(w.sgpr(0), 0x1234);
}

#[test]
fn inexact_d16_typed_buffer_load_is_refused_by_name() {
    // llvm-mc-22 -mcpu=gfx942: `tbuffer_load_format_d16_x v2, off, s[4:7], 0
    // format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]` = 0xEBA40000 0x80010200: a d16
    // conversion from a 32-bit float component, which the executor does not model.
    let (stop, w) = run_words(&[0xEBA4_0000, 0x8001_0200, 0xBF81_0000]);
    assert_eq!(
        stop,
        Stop::Fault(FaultReason::UnsupportedForm(
            "d16 formatted load whose narrowing to 16 bits is not exact \
             (32-bit or unorm/snorm components)"
        ))
    );
    assert_eq!(w.pc, 0x1000);
}
