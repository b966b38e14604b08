//! What instructions do (`Inst::accesses`, `issue_class`, `wait_counters`,
//! `is_graphics`) against llvm-mca-22, for one instruction of every opcode of every
//! target and wave size, plus hand-checked examples.
//!
//! llvm-mca's instruction tables give each instruction's scheduling resources and
//! may-load/may-store, which the issue class must agree with; a one-iteration
//! simulation counts one register mapping per register the instruction defines (a
//! tuple once, implicit SCC/VCC/EXEC/MODE included), which the writes of
//! `Inst::accesses` must match. Instructions llvm-mca cannot parse (the assembler checks
//! operand combinations the disassembler accepts) are counted and left out. The test
//! prints the agreement per target.

use gpu_model::isa::layout::F;
use gpu_model::isa::{self, AccessKind, Counter, Inst, IssueClass, Operand, RegFile, Special};
use gpu_model::Target;
use llvm_oracle::{Analyzer, InstInfo};

/// Target, wave32, `-mcpu`, `-mattr` (the generator's attributes).
const CONFIGS: [(Target, bool, &str, &str); 7] = [
    (Target::Gfx90a, false, "gfx90a", ""),
    (Target::Gfx942, false, "gfx942", ""),
    (Target::Gfx950, false, "gfx950", ""),
    (Target::Gfx1200, true, "gfx1200", "+real-true16"),
    (
        Target::Gfx1200,
        false,
        "gfx1200",
        "+real-true16,+wavefrontsize64",
    ),
    (Target::Gfx1201, true, "gfx1201", "+real-true16"),
    (
        Target::Gfx1201,
        false,
        "gfx1201",
        "+real-true16,+wavefrontsize64",
    ),
];

/// Gives the vector operands distinct, even first registers 40 apart (tuples of up to
/// 32 registers never overlap); scalar operands stay s0, which every constant-bus rule
/// accepts. Images get one data channel (the assembler rejects dmask 0 for gathers and
/// atomics).
fn spread(mut i: Inst) -> Inst {
    let gfx12 = matches!(i.target, Target::Gfx1200 | Target::Gfx1201);
    if let Some(f) = isa::layout::layout(gfx12, i.format).and_then(|l| l.field(F::Dmask)) {
        if isa::layout::get(i.bits, f) == 0 {
            let mut j = i;
            j.bits = isa::layout::put(j.bits, f, 1);
            let mut b = [0u8; 20];
            if let Ok(n) = isa::encode(&j, &mut b) {
                if let Ok(d) = isa::decode(i.target, &b[..n], i.wave32) {
                    i = d;
                }
            }
        }
    }
    for k in 0..i.num_operands() {
        let first = 8 + 40 * k as u16;
        let new = match i.operand(k) {
            Some(Operand::Vgpr { count, .. }) => Operand::Vgpr { first, count },
            Some(Operand::Agpr { count, .. }) => Operand::Agpr { first, count },
            _ => continue,
        };
        let mut j = i;
        if j.set_operand(k, new).is_ok() && j.operand(k) == Some(new) {
            i = j;
        }
    }
    // Operands that want SGPRs (descriptors, lane masks) where the built word has a
    // VGPR code: LLVM prints an "Invalid register" comment the assembler rejects.
    let invalid = |i: &Inst| i.to_string().matches("/*Invalid register").count();
    for k in 0..i.num_operands() {
        let Some(Operand::Vgpr { count, .. }) = i.operand(k) else {
            continue;
        };
        let mut j = i;
        let new = Operand::Sgpr {
            first: 16 * k as u16,
            count,
        };
        if j.set_operand(k, new).is_ok() && invalid(&j) < invalid(&i) {
            i = j;
        }
    }
    i
}

/// Whether an issue class agrees with what llvm-mca says: the resource that takes the
/// instruction, may-load/may-store, and (for the kinds LLVM's model does not tell
/// apart) the opcode name.
fn agrees(c: IssueClass, r: &InstInfo) -> bool {
    let has = |n: &str| r.uses(n);
    let op = r.opcode.as_str();
    let (ld, st) = (r.may_load, r.may_store);
    match c {
        IssueClass::ScalarAlu => has("HWSALU") && !has("HWVALU") && !ld && !st,
        IssueClass::VectorAlu | IssueClass::Transcendental => {
            has("HWVALU") && !has("HWXDL") && !ld && !st
        }
        IssueClass::Matrix => {
            has("HWXDL") || (has("HWVALU") && (op.contains("MFMA") || op.contains("WMMA")))
        }
        IssueClass::ScalarMemory => has("HWLGKM") && op.starts_with("S_"),
        IssueClass::Lds => has("HWLGKM") && op.starts_with("DS_"),
        // Loads; loads to LDS (LLVM: also a store, to LDS); cache invalidates (neither).
        IssueClass::VectorLoad => has("HWVMEM") && (!st || (ld && op.contains("LDS"))),
        // Stores; cache write-backs.
        IssueClass::VectorStore => has("HWVMEM") && !ld,
        IssueClass::VectorAtomic => has("HWVMEM") && ld && st,
        IssueClass::Branch => has("HWBranch") || has("HWSALU"),
        IssueClass::Export => has("HWExport"),
        IssueClass::Message | IssueClass::Wait | IssueClass::Barrier | IssueClass::Control => {
            (has("HWSALU") || has("HWBranch")) && !has("HWVALU") && !has("HWVMEM") && !has("HWLGKM")
        }
        _ => false,
    }
}

fn writes(i: &Inst) -> u32 {
    i.accesses().filter(|a| a.kind.writes()).count() as u32
}

#[test]
fn every_opcode_agrees_with_llvm_mca() {
    let mut report = String::new();
    let mut failures = Vec::new();
    let (mut all_parsed, mut all_class, mut all_sim, mut all_wr) = (0, 0, 0, 0);
    for (t, w32, cpu, mattr) in CONFIGS {
        let insts: Vec<Inst> = isa::samples(t, w32).map(spread).collect();
        let texts: Vec<String> = insts.iter().map(|i| i.to_string()).collect();
        let a = Analyzer::new(cpu, mattr);
        let rows = a.tables(&texts).expect("llvm-mca-22");
        let seqs: Vec<Vec<String>> = texts.iter().map(|t| vec![t.clone()]).collect();
        let sims = a.simulate(&seqs).expect("llvm-mca-22");
        let (mut parsed, mut class_ok, mut sim, mut wr_ok) = (0, 0, 0, 0);
        let verbose = std::env::var_os("ISA_META_VERBOSE").is_some();
        for ((i, text), (row, s)) in insts.iter().zip(&texts).zip(rows.iter().zip(&sims)) {
            let Some(row) = row else {
                if verbose {
                    println!("  {cpu}{mattr}: llvm-mca cannot parse {text}");
                }
                continue;
            };
            parsed += 1;
            if agrees(i.issue_class(), row) {
                class_ok += 1;
            } else {
                failures.push(format!(
                    "{cpu}{mattr}: {text}: class {:?}, llvm-mca {:?} load {} store {} ({})",
                    i.issue_class(),
                    row.resources,
                    row.may_load,
                    row.may_store,
                    row.opcode
                ));
            }
            let Some(s) = s.filter(|s| s.instructions == 1) else {
                continue;
            };
            sim += 1;
            if writes(i) == s.mappings {
                wr_ok += 1;
            } else {
                failures.push(format!(
                    "{cpu}{mattr}: {text}: {} registers written, llvm-mca maps {} ({}): {:?}",
                    writes(i),
                    s.mappings,
                    row.opcode,
                    i.accesses().collect::<Vec<_>>()
                ));
            }
        }
        let pct = |a: u32, b: u32| 100.0 * f64::from(a) / f64::from(b.max(1));
        report.push_str(&format!(
            "{cpu:8} wave{:2}: {:4} opcodes, {:4} parsed by llvm-mca ({:5.1}%), class agrees {:5.1}%, \
             {:4} simulated, registers written agree {:5.1}%\n",
            if w32 { 32 } else { 64 },
            insts.len(),
            parsed,
            pct(parsed, insts.len() as u32),
            pct(class_ok, parsed),
            sim,
            pct(wr_ok, sim),
        ));
        all_parsed += parsed;
        all_class += class_ok;
        all_sim += sim;
        all_wr += wr_ok;
    }
    println!("{report}");
    println!(
        "all: class agrees {all_class}/{all_parsed}, registers written agree {all_wr}/{all_sim}"
    );
    for f in failures.iter().take(60) {
        println!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with llvm-mca-22 (listed above)",
        failures.len()
    );
}

/// Decodes `bytes` for `t` and checks the text, so that each example says what it is.
fn inst(t: Target, wave32: bool, bytes: &[u8], text: &str) -> Inst {
    let i = isa::decode(t, bytes, wave32).expect("decodes");
    assert_eq!(i.to_string(), text);
    i
}

/// The access to registers `first..` of `file`, if any.
fn access(i: &Inst, file: RegFile, first: u16) -> Option<(AccessKind, u8)> {
    i.accesses()
        .find(|a| a.file == file && a.first == first)
        .map(|a| (a.kind, a.count))
}

const VCC: u16 = 106;
const EXEC: u16 = 126;

#[test]
fn accumulators_are_read_write() {
    use AccessKind::*;
    let i = inst(
        Target::Gfx942,
        false,
        &[0x02, 0x07, 0x02, 0x76],
        "v_fmac_f32_e32 v1, v2, v3",
    );
    assert_eq!(access(&i, RegFile::Vgpr, 1), Some((ReadWrite, 1)));
    assert_eq!(access(&i, RegFile::Vgpr, 2), Some((Read, 1)));
    assert_eq!(access(&i, RegFile::Sgpr, EXEC), Some((Read, 2)));
    let i = inst(
        Target::Gfx1201,
        true,
        &[0x02, 0x07, 0x02, 0x56],
        "v_fmac_f32_e32 v1, v2, v3",
    );
    assert_eq!(access(&i, RegFile::Vgpr, 1), Some((ReadWrite, 1)));
    assert_eq!(access(&i, RegFile::Sgpr, EXEC), Some((Read, 1)));
    assert_eq!(
        access(&i, RegFile::Special(Special::Mode), 0),
        Some((Read, 1))
    );
    // MFMA: the destination is written, the accumulator source read (separate operands).
    let i = inst(
        Target::Gfx942,
        false,
        &[0x00, 0x80, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04],
        "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]",
    );
    let a: Vec<_> = i
        .accesses()
        .filter(|a| a.file == RegFile::Agpr)
        .map(|a| (a.kind, a.count))
        .collect();
    assert_eq!(a, [(Write, 16), (Read, 16)]);
    assert_eq!(i.issue_class(), IssueClass::Matrix);
    // gfx950 `*_f8f6f4`: source tuples sized by cbsz (fp6: 6) and blgp (fp4: 4).
    let i = inst(
        Target::Gfx950,
        false,
        &[0x00, 0x02, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x84],
        "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:15], v[0:3] cbsz:2 blgp:4",
    );
    let v: Vec<_> = i
        .accesses()
        .filter(|a| a.file == RegFile::Vgpr)
        .map(|a| (a.kind, a.first, a.count))
        .collect();
    assert_eq!(
        v,
        [(Write, 0, 4), (Read, 4, 6), (Read, 12, 4), (Read, 0, 4)]
    );
    // A conditional move keeps its destination when SCC is clear.
    let i = inst(
        Target::Gfx942,
        false,
        &[0x05, 0x00, 0x81, 0xb0],
        "s_cmovk_i32 s1, 0x5",
    );
    assert_eq!(access(&i, RegFile::Sgpr, 1), Some((ReadWrite, 1)));
    assert_eq!(
        access(&i, RegFile::Special(Special::Scc), 0),
        Some((Read, 1))
    );
}

#[test]
fn atomics_with_return_write_vdst() {
    use AccessKind::*;
    let ret = inst(
        Target::Gfx942,
        false,
        &[0x00, 0x80, 0x09, 0xdd, 0x00, 0x05, 0x7f, 0x04],
        "global_atomic_add v4, v[0:1], v5, off sc0",
    );
    assert_eq!(access(&ret, RegFile::Vgpr, 4), Some((Write, 1)));
    assert_eq!(access(&ret, RegFile::Vgpr, 5), Some((Read, 1)));
    assert_eq!(access(&ret, RegFile::Vgpr, 0), Some((Read, 2)));
    assert_eq!(ret.issue_class(), IssueClass::VectorAtomic);
    assert!(ret.wait_counters().contains(Counter::VmCnt));
    let no_ret = inst(
        Target::Gfx942,
        false,
        &[0x00, 0x80, 0x08, 0xdd, 0x00, 0x05, 0x7f, 0x00],
        "global_atomic_add v[0:1], v5, off",
    );
    assert_eq!(writes(&no_ret), 0);
    // GFX12: the return form counts on loadcnt, the other on storecnt.
    let ret = inst(
        Target::Gfx1201,
        true,
        &[
            0x7c, 0x40, 0x0d, 0xee, 0x04, 0x00, 0x90, 0x02, 0x00, 0x00, 0x00, 0x00,
        ],
        "global_atomic_add_u32 v4, v[0:1], v5, off th:TH_ATOMIC_RETURN",
    );
    assert_eq!(access(&ret, RegFile::Vgpr, 4), Some((Write, 1)));
    assert_eq!(
        ret.wait_counters().iter().collect::<Vec<_>>(),
        [Counter::LoadCnt]
    );
    let no_ret = inst(
        Target::Gfx1201,
        true,
        &[
            0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0x80, 0x02, 0x00, 0x00, 0x00, 0x00,
        ],
        "global_atomic_add_u32 v[0:1], v5, off",
    );
    assert_eq!(
        no_ret.wait_counters().iter().collect::<Vec<_>>(),
        [Counter::StoreCnt]
    );
    // llvm-mca agrees on the number of registers written.
    let a = Analyzer::new("gfx942", "");
    let s = a
        .simulate(&[vec!["global_atomic_add v4, v[0:1], v5, off sc0".to_string()]])
        .expect("llvm-mca-22");
    assert_eq!(s[0].map(|s| s.mappings), Some(1));
}

#[test]
fn buffer_loads_to_lds_write_no_vgpr() {
    for t in [Target::Gfx90a, Target::Gfx942] {
        let lds = inst(
            t,
            false,
            &[0x00, 0x00, 0x51, 0xe0, 0x00, 0x00, 0x02, 0x03],
            "buffer_load_dword off, s[8:11], s3 lds",
        );
        assert!(lds.accesses().all(|a| a.file != RegFile::Vgpr));
        assert_eq!(writes(&lds), 0);
        // The LDS address comes from M0.
        assert_eq!(
            access(&lds, RegFile::Sgpr, 124),
            Some((AccessKind::Read, 1))
        );
        assert_eq!(lds.issue_class(), IssueClass::VectorLoad);
        let plain = inst(
            t,
            false,
            &[0x00, 0x00, 0x50, 0xe0, 0x00, 0x01, 0x02, 0x03],
            "buffer_load_dword v1, off, s[8:11], s3",
        );
        assert_eq!(
            access(&plain, RegFile::Vgpr, 1),
            Some((AccessKind::Write, 1))
        );
        assert_eq!(
            access(&plain, RegFile::Sgpr, 8),
            Some((AccessKind::Read, 4))
        );
    }
}

#[test]
fn implicit_registers() {
    use AccessKind::*;
    let scc = RegFile::Special(Special::Scc);
    // VOPC/VOP2 e32 lane masks: 64-bit VCC on wave64, VCC_LO on wave32.
    let i = inst(
        Target::Gfx942,
        false,
        &[0x02, 0x07, 0x02, 0x00],
        "v_cndmask_b32_e32 v1, v2, v3, vcc",
    );
    assert_eq!(access(&i, RegFile::Sgpr, VCC), Some((Read, 2)));
    let i = inst(
        Target::Gfx1201,
        true,
        &[0x02, 0x07, 0x02, 0x02],
        "v_cndmask_b32_e32 v1, v2, v3, vcc_lo",
    );
    assert_eq!(access(&i, RegFile::Sgpr, VCC), Some((Read, 1)));
    // SALU arithmetic writes SCC.
    let i = inst(
        Target::Gfx942,
        false,
        &[0x03, 0x04, 0x02, 0x80],
        "s_add_u32 s2, s3, s4",
    );
    assert_eq!(access(&i, scc, 0), Some((Write, 1)));
    assert_eq!(access(&i, RegFile::Sgpr, 2), Some((Write, 1)));
    assert_eq!(i.issue_class(), IssueClass::ScalarAlu);
    let i = inst(
        Target::Gfx1201,
        true,
        &[0x03, 0x04, 0x02, 0x80],
        "s_add_co_u32 s2, s3, s4",
    );
    assert_eq!(access(&i, scc, 0), Some((Write, 1)));
    // v_cmpx: GFX12 writes EXEC only; GFX9's 32-bit form writes VCC and EXEC.
    let i = inst(
        Target::Gfx1201,
        true,
        &[0x01, 0x05, 0x28, 0x7d],
        "v_cmpx_gt_f32_e32 v1, v2",
    );
    assert_eq!(access(&i, RegFile::Sgpr, EXEC), Some((ReadWrite, 1)));
    assert_eq!(access(&i, RegFile::Sgpr, VCC), None);
    let i = inst(
        Target::Gfx942,
        false,
        &[0x01, 0x05, 0xa8, 0x7c],
        "v_cmpx_gt_f32_e32 vcc, v1, v2",
    );
    assert_eq!(access(&i, RegFile::Sgpr, EXEC), Some((ReadWrite, 2)));
    assert_eq!(access(&i, RegFile::Sgpr, VCC), Some((Write, 2)));
}

#[test]
fn graphics_operations() {
    let sample = inst(
        Target::Gfx1201,
        true,
        &[
            0x00, 0xc0, 0xc6, 0xe7, 0x00, 0x10, 0x00, 0x08, 0x04, 0x00, 0x00, 0x00,
        ],
        "image_sample v[0:3], v4, s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_1D",
    );
    assert!(sample.is_graphics());
    assert_eq!(
        access(&sample, RegFile::Vgpr, 0),
        Some((AccessKind::Write, 4))
    );
    assert_eq!(
        sample.wait_counters().iter().collect::<Vec<_>>(),
        [Counter::SampleCnt]
    );
    let load = inst(
        Target::Gfx1201,
        true,
        &[
            0x00, 0x00, 0xc0, 0xd3, 0x00, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
        ],
        "image_load v[0:3], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D",
    );
    assert!(!load.is_graphics());
    assert_eq!(
        load.wait_counters().iter().collect::<Vec<_>>(),
        [Counter::LoadCnt]
    );
    // Data tuples follow dmask, d16 and tfe.
    for (bytes, text, n) in [
        (
            [
                0x00, 0x00, 0xc0, 0xd3, 0x00, 0x10, 0x80, 0x00, 0x04, 0x00, 0x00, 0x00,
            ],
            "image_load v[0:4], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D tfe",
            5,
        ),
        (
            [
                0x20, 0x00, 0xc0, 0xd3, 0x00, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
            ],
            "image_load v[0:1], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D d16",
            2,
        ),
    ] {
        let i = inst(Target::Gfx1201, true, &bytes, text);
        assert_eq!(access(&i, RegFile::Vgpr, 0), Some((AccessKind::Write, n)));
        assert_eq!(access(&i, RegFile::Vgpr, 4), Some((AccessKind::Read, 1)));
    }
    let sample = inst(
        Target::Gfx90a,
        false,
        &[0x00, 0x0f, 0x80, 0xf0, 0x04, 0x00, 0x82, 0x00],
        "image_sample v[0:3], v4, s[8:15], s[16:19] dmask:0xf",
    );
    assert!(sample.is_graphics());
    let load = inst(
        Target::Gfx90a,
        false,
        &[0x00, 0x0f, 0x00, 0xf0, 0x04, 0x00, 0x02, 0x00],
        "image_load v[0:3], v4, s[8:15] dmask:0xf",
    );
    assert!(!load.is_graphics());
    assert_eq!(
        access(&load, RegFile::Vgpr, 0),
        Some((AccessKind::Write, 4))
    );
    let exp = inst(
        Target::Gfx1201,
        true,
        &[0x0f, 0x00, 0x00, 0xf8, 0x00, 0x01, 0x02, 0x03],
        "export mrt0 v0, v1, v2, v3",
    );
    assert!(exp.is_graphics());
    assert_eq!(exp.issue_class(), IssueClass::Export);
    assert_eq!(
        exp.wait_counters().iter().collect::<Vec<_>>(),
        [Counter::ExpCnt]
    );
}

#[test]
fn wait_counters() {
    let c = |t: Target, w32: bool, bytes: &[u8], text: &str| {
        inst(t, w32, bytes, text)
            .wait_counters()
            .iter()
            .collect::<Vec<_>>()
    };
    use Counter::*;
    let g9 = Target::Gfx942;
    let g12 = Target::Gfx1201;
    assert_eq!(
        c(
            g9,
            false,
            &[0x00, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x01],
            "global_load_dword v1, v[2:3], off"
        ),
        [VmCnt]
    );
    assert_eq!(
        c(
            g9,
            false,
            &[0x41, 0x00, 0x02, 0xc0, 0x00, 0x00, 0x00, 0x00],
            "s_load_dword s1, s[2:3], 0x0"
        ),
        [LgkmCnt]
    );
    assert_eq!(
        c(
            g9,
            false,
            &[0x00, 0x00, 0x6c, 0xd8, 0x02, 0x00, 0x00, 0x01],
            "ds_read_b32 v1, v2"
        ),
        [LgkmCnt]
    );
    assert_eq!(
        c(
            g9,
            false,
            &[0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x01],
            "flat_load_dword v1, v[2:3]"
        ),
        [VmCnt, LgkmCnt]
    );
    assert_eq!(
        c(
            g12,
            true,
            &[0x7c, 0x00, 0x05, 0xee, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00],
            "global_load_b32 v1, v[2:3], off"
        ),
        [LoadCnt]
    );
    assert_eq!(
        c(
            g12,
            true,
            &[0x41, 0x00, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8],
            "s_load_b32 s1, s[2:3], 0x0"
        ),
        [KmCnt]
    );
    assert_eq!(
        c(
            g12,
            true,
            &[0x00, 0x00, 0xd8, 0xd8, 0x02, 0x00, 0x00, 0x01],
            "ds_load_b32 v1, v2"
        ),
        [DsCnt]
    );
    // (GFX12 FLAT-segment instructions count on loadcnt/storecnt and dscnt; LLVM 22
    // decodes them, the generated GFX12 tables have no FLAT entries yet.)
    assert!(c(g9, false, &[0x03, 0x04, 0x02, 0x80], "s_add_u32 s2, s3, s4").is_empty());
}
