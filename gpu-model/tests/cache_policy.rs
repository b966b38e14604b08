//! The cache-policy bits LLVM (clang-22) emits for each memory-model situation map to the
//! memory type the design calls for. LLVM is the oracle for the bits; the expected MType
//! per situation follows the scope rules written in `cache::policy`.
//! Fails when clang-22 is not installed (scripts/install-deps.sh installs it).

use std::process::Command;

use gpu_model::cache::policy::{GLC, SCC, SCOPE_SHIFT, SLC};
use gpu_model::cache::{maintenance, mtype_for, MType, Maintenance, MemOp};
use gpu_model::Target;

/// One kernel per situation; every access is per-lane so it stays a vector memory op.
const SRC: &str = r#"
#define K __attribute__((amdgpu_kernel))
typedef __attribute__((address_space(1))) int gint;
#define ID __builtin_amdgcn_workitem_id_x()
K void plain_load(gint *p, gint *q) { q[ID] = p[ID] + 1; }
K void nt_load(gint *p, gint *q) { q[ID] = __builtin_nontemporal_load(p + ID) + 1; }
K void volatile_load(gint *p, gint *q) { q[ID] = ((volatile gint *)p)[ID] + 1; }
K void acq_wg_load(gint *p, gint *q) { q[ID] = __scoped_atomic_load_n(p + ID, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_WRKGRP) + 1; }
K void acq_dev_load(gint *p, gint *q) { q[ID] = __scoped_atomic_load_n(p + ID, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE) + 1; }
K void acq_sys_load(gint *p, gint *q) { q[ID] = __scoped_atomic_load_n(p + ID, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_SYSTEM) + 1; }
K void nt_store(gint *p, gint *q) { __builtin_nontemporal_store(ID, q + ID); }
K void rel_sys_store(gint *p, gint *q) { __scoped_atomic_store_n(q + ID, 1, __ATOMIC_RELEASE, __MEMORY_SCOPE_SYSTEM); }
K void dev_atomic(gint *p, gint *q) { __scoped_atomic_fetch_add(q + ID, 1, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE); }
K void dev_atomic_ret(gint *p, gint *q) { p[ID] = __scoped_atomic_fetch_add(q + ID, 1, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE); }
K void sys_atomic(gint *p, gint *q) { __scoped_atomic_fetch_add(q + ID, 1, __ATOMIC_RELAXED, __MEMORY_SCOPE_SYSTEM); }
"#;

/// The assembly clang-22 makes of [`SRC`] for `target`. The oracle is required: a missing
/// compiler fails the test rather than passing unchecked.
fn compile(target: Target) -> String {
    let dir = std::env::temp_dir().join(format!("gfxsim-cache-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{target}.c"));
    std::fs::write(&src, SRC).unwrap();
    let out = Command::new("clang-22")
        .args([
            "-x",
            "c",
            "-target",
            "amdgcn-amd-amdhsa",
            "-nogpulib",
            "-O2",
            "-S",
            "-o",
            "-",
        ])
        .arg(format!("-mcpu={target}"))
        .arg(&src)
        .output()
        .unwrap_or_else(|e| {
            panic!("clang-22 ({e}): the oracle needs it (scripts/install-deps.sh)")
        });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The (op, cpol) of the one global memory instruction that touches memory in `kernel`.
fn access_of(asm: &str, kernel: &str, want: MemOp) -> u32 {
    let body = asm
        .split(&format!("\n{kernel}:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no {kernel} in asm"));
    let body = body.split("s_endpgm").next().unwrap();
    let prefix = match want {
        MemOp::Load => "global_load",
        MemOp::Store => "global_store",
        MemOp::Atomic => "global_atomic",
    };
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("{kernel}: no {prefix} in\n{body}"));
    cpol_of(line)
}

/// Cache-policy bits of an assembly line, in LLVM's CPol numbering.
fn cpol_of(line: &str) -> u32 {
    let mut cpol = 0;
    for tok in line.split([' ', ',']) {
        cpol |= match tok {
            "glc" | "sc0" => GLC,
            "slc" | "nt" => SLC,
            "scc" | "sc1" => SCC,
            _ => 0,
        };
        if let Some(th) = tok.strip_prefix("th:") {
            cpol |= match th {
                "TH_LOAD_NT" | "TH_STORE_NT" | "TH_ATOMIC_RETURN" => 1,
                "TH_LOAD_HT" | "TH_STORE_HT" | "TH_ATOMIC_NT" => 2,
                "TH_LOAD_LU" | "TH_STORE_WB" | "TH_ATOMIC_NT_RETURN" => 3,
                "TH_LOAD_NT_RT" | "TH_STORE_NT_RT" => 4,
                "TH_LOAD_RT_NT" | "TH_STORE_RT_NT" => 5,
                "TH_LOAD_NT_HT" | "TH_STORE_NT_HT" => 6,
                "TH_STORE_NT_WB" => 7,
                other => panic!("unknown th {other}"),
            };
        }
        if let Some(scope) = tok.strip_prefix("scope:") {
            let s = match scope {
                "SCOPE_CU" => 0,
                "SCOPE_SE" => 1,
                "SCOPE_DEV" => 2,
                "SCOPE_SYS" => 3,
                other => panic!("unknown scope {other}"),
            };
            cpol |= s << SCOPE_SHIFT;
        }
    }
    cpol
}

#[test]
fn llvm_memory_model_bits_map_to_expected_mtypes() {
    use MType::{Cc, Nt, Rw, Uc};
    use MemOp::{Atomic, Load, Store};
    // (kernel, op, gfx90a, gfx942, gfx1201)
    let cases = [
        ("plain_load", Load, Rw, Rw, Rw),
        ("nt_load", Load, Nt, Nt, Nt),
        // volatile: system coherence everywhere but gfx90a, which only asks for glc.
        ("volatile_load", Load, Cc, Uc, Uc),
        // workgroup scope: gfx90a's L1 is per CU so nothing is needed; gfx942 spells the
        // scope (sc0) and gfx12 in WGP mode uses SCOPE_SE.
        ("acq_wg_load", Load, Rw, Cc, Cc),
        ("acq_dev_load", Load, Cc, Uc, Cc),
        ("acq_sys_load", Load, Cc, Uc, Uc),
        ("nt_store", Store, Nt, Nt, Nt),
        ("rel_sys_store", Store, Rw, Uc, Uc),
        ("dev_atomic", Atomic, Rw, Rw, Rw),
        ("dev_atomic_ret", Atomic, Rw, Rw, Rw),
        ("sys_atomic", Atomic, Rw, Uc, Uc),
    ];
    let targets = [Target::Gfx90a, Target::Gfx942, Target::Gfx1201];
    for (ti, target) in targets.into_iter().enumerate() {
        let asm = compile(target);
        for (kernel, op, a, b, c) in cases {
            let want = [a, b, c][ti];
            let cpol = access_of(&asm, kernel, op);
            assert_eq!(
                mtype_for(target, cpol, op),
                want,
                "{target} {kernel}: cpol {cpol:#x}"
            );
        }
    }
}

#[test]
fn each_spelling_decodes() {
    use MType::{Cc, Nt, Rw, Uc};
    // gfx90a glc/slc/scc.
    assert_eq!(mtype_for(Target::Gfx90a, 0, MemOp::Load), Rw);
    assert_eq!(mtype_for(Target::Gfx90a, GLC, MemOp::Load), Cc);
    assert_eq!(mtype_for(Target::Gfx90a, GLC | SLC, MemOp::Store), Nt);
    assert_eq!(mtype_for(Target::Gfx90a, SCC | GLC, MemOp::Load), Uc);
    assert_eq!(mtype_for(Target::Gfx90a, GLC, MemOp::Atomic), Rw);
    // gfx94x sc0/sc1/nt (same bit positions).
    assert_eq!(mtype_for(Target::Gfx950, GLC, MemOp::Load), Cc);
    assert_eq!(mtype_for(Target::Gfx950, SCC, MemOp::Load), Uc);
    assert_eq!(mtype_for(Target::Gfx942, SLC, MemOp::Load), Nt);
    assert_eq!(mtype_for(Target::Gfx942, SCC, MemOp::Atomic), Uc);
    // gfx12 th/scope.
    let scope = |s: u32| s << SCOPE_SHIFT;
    assert_eq!(mtype_for(Target::Gfx1200, 0, MemOp::Load), Rw);
    assert_eq!(mtype_for(Target::Gfx1200, 2, MemOp::Load), Rw); // TH_HT
    assert_eq!(mtype_for(Target::Gfx1200, 5, MemOp::Load), Rw); // TH_RT_NT: regular near
    assert_eq!(mtype_for(Target::Gfx1200, 4, MemOp::Load), Nt); // TH_NT_RT
    assert_eq!(mtype_for(Target::Gfx1201, scope(2), MemOp::Load), Cc);
    assert_eq!(mtype_for(Target::Gfx1201, scope(3) | 3, MemOp::Store), Uc); // TH_BYPASS
    assert_eq!(mtype_for(Target::Gfx1201, scope(2) | 1, MemOp::Atomic), Rw);
}

/// The combined effect of the cache-maintenance instructions in `kernel`.
fn maintenance_of(asm: &str, target: Target, kernel: &str) -> Maintenance {
    let body = asm.split(&format!("\n{kernel}:")).nth(1).unwrap();
    let body = body.split("s_endpgm").next().unwrap();
    let mut m = Maintenance::default();
    for line in body.lines().map(str::trim) {
        let mnemonic = line.split_whitespace().next().unwrap_or("");
        if let Some(x) = maintenance(target, mnemonic, cpol_of(line)) {
            m.invalidate_vector_l1 |= x.invalidate_vector_l1;
            m.invalidate_scalar_l1 |= x.invalidate_scalar_l1;
            m.invalidate_l2 |= x.invalidate_l2;
            m.write_back_l2 |= x.write_back_l2;
        }
    }
    m
}

#[test]
fn llvm_acquire_release_sequences_do_what_they_must() {
    let targets = [Target::Gfx90a, Target::Gfx942, Target::Gfx1201];
    for target in targets {
        let asm = compile(target);
        let inv_l1 = |k| maintenance_of(&asm, target, k).invalidate_vector_l1;
        let inv_l2 = |k| maintenance_of(&asm, target, k).invalidate_l2;
        // Acquire at agent or system scope must drop the CU's stale L1 lines.
        assert!(inv_l1("acq_dev_load"), "{target}");
        assert!(inv_l1("acq_sys_load"), "{target}");
        // System scope must also get past the L2 (invalidate it).
        assert!(inv_l2("acq_sys_load"), "{target}");
        // gfx942's agent scope spans XCDs with separate L2s: the L2 is invalidated too.
        assert_eq!(inv_l2("acq_dev_load"), target == Target::Gfx942, "{target}");
        // A system-scope release writes the L2 back.
        assert!(
            maintenance_of(&asm, target, "rel_sys_store").write_back_l2,
            "{target}"
        );
        // Plain accesses need no maintenance.
        assert_eq!(
            maintenance_of(&asm, target, "plain_load"),
            Maintenance::default()
        );
    }
}

#[test]
fn maintenance_spellings() {
    let m = |t, s, c| maintenance(t, s, c).unwrap();
    assert!(m(Target::Gfx90a, "buffer_wbinvl1_vol", 0).invalidate_vector_l1);
    assert!(m(Target::Gfx90a, "buffer_invl2", 0).invalidate_l2);
    assert!(m(Target::Gfx942, "buffer_wbl2", SCC | GLC).write_back_l2);
    assert!(!m(Target::Gfx942, "buffer_inv", GLC).invalidate_l2);
    assert!(m(Target::Gfx950, "buffer_inv", SCC).invalidate_l2);
    assert!(m(Target::Gfx942, "s_dcache_inv", 0).invalidate_scalar_l1);
    let scope = |s: u32| s << SCOPE_SHIFT;
    assert_eq!(
        m(Target::Gfx1200, "global_inv", scope(0)),
        Maintenance::default()
    );
    assert!(m(Target::Gfx1200, "global_inv", scope(2)).invalidate_scalar_l1);
    assert!(!m(Target::Gfx1200, "global_wb", scope(2)).write_back_l2);
    assert!(maintenance(Target::Gfx942, "buffer_invl2", 0).is_none());
    assert!(maintenance(Target::Gfx942, "v_add_f32", 0).is_none());
}
