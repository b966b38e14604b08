//! IREE 3.13 gfx950 dispatches (corpus/iree, numpy references next to them) translated to
//! gfx942. IREE links every dispatch into one object, so the object translates or is refused
//! as a whole. A refusal must be one listed in [`REFUSED`] (kernel and what the diagnostic
//! names); a listed refusal that no longer happens fails the test, so the list cannot go
//! stale. A translated object must pass llvm-readelf-22, disassemble as gfx942, and run every
//! dispatch on the gfx942 model within the manifest's tolerance of the reference, writing
//! exactly what the original writes on the gfx950 model (the f16 GEMM, whose MFMAs split,
//! only within tolerance).

mod common;

use gpu_model::Target;

#[path = "../../gpu-model/tests/triton_manifest/mod.rs"]
mod triton_manifest;

use triton_manifest::*;

/// (kernel, what the diagnostic names): refusals of the gfx950 object today. None: IREE's
/// f16 GEMM issues `v_mfma_f32_16x16x32_f16 v[0:3], v[76:79], v[0:3], 0`, whose result
/// overwrites its own B operand; the split into two gfx942 `v_mfma_f32_16x16x16_f16` first
/// saves the upper half of B in scratch VGPRs (dead ones when liveness finds them).
const REFUSED: &[(&str, &str)] = &[];
#[test]
fn iree_gfx950_object_translates_to_gfx942_or_is_refused_as_listed() {
    let m = iree_manifest();
    let cases: Vec<&Case> = m.cases.iter().filter(|c| c.target == "gfx950").collect();
    assert!(cases.len() >= 4, "only {} gfx950 cases", cases.len());
    let object = &cases[0].object;
    assert!(
        cases.iter().all(|c| &c.object == object),
        "one linked object"
    );
    let bytes = std::fs::read(iree_dir().join(object)).expect("object");
    let t = dbt::translate(&bytes, Target::Gfx942);
    if !t.translated {
        let d: Vec<String> = t.diagnostics.iter().map(|d| d.to_string()).collect();
        assert!(!d.is_empty(), "refused without a diagnostic");
        for d in &d {
            assert!(
                REFUSED
                    .iter()
                    .any(|(k, what)| d.contains(k) && d.contains(what)),
                "unlisted refusal: {d}"
            );
        }
        eprintln!("gfx950 IREE object refused as listed: {}", d.join("; "));
        return;
    }
    assert!(
        REFUSED.is_empty(),
        "the object translates: remove {REFUSED:?} from REFUSED"
    );
    common::llvm_accepts(&t.object, "iree-kernels");
    for k in &t.kernels {
        eprintln!(
            "{}: {:?}; {} instructions expanded ({} with dead guest VGPRs as scratch); code {} -> {} bytes ({:.3}x); VGPRs {} -> {}",
            k.name,
            k.status,
            k.expanded,
            k.scratch_reused,
            k.code_before,
            k.code_after,
            k.code_after as f64 / k.code_before.max(1) as f64,
            k.vgprs.0,
            k.vgprs.1
        );
    }
    let mut problems = Vec::new();
    for case in &cases {
        let r = std::panic::catch_unwind(|| -> Result<(u64, u64), String> {
            let (want, g) = run_counted_in(&iree_dir(), case, &bytes, Target::Gfx950)?;
            let (got, h) = run_counted_in(&iree_dir(), case, &t.object, Target::Gfx942)?;
            // The split f16 MFMAs add in another order: only the tolerance (checked by
            // `run_counted_in`) holds there.
            if want != got && case.name != "matmul_f16" {
                return Err("translated gfx942 run differs from the gfx950 run".into());
            }
            Ok((g, h))
        })
        .unwrap_or_else(|_| Err("host panic".into()));
        match r {
            Ok((g, h)) => eprintln!(
                "{}: wave-instructions {g} -> {h} ({:.3}x)",
                case.name,
                h as f64 / g.max(1) as f64
            ),
            Err(e) => problems.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The same object for the gfx1201 host (rules in `dbt/src/rdna`): it translates and
/// passes llvm-readelf-22 and llvm-objdump-22 as gfx1201, or a diagnostic names what stops
/// it (printed with --nocapture for the report).
#[test]
fn iree_gfx950_object_on_gfx1201_translates_or_names_what_stops_it() {
    let m = iree_manifest();
    let case = m
        .cases
        .iter()
        .find(|c| c.target == "gfx950")
        .expect("a gfx950 case");
    let bytes = std::fs::read(iree_dir().join(&case.object)).expect("object");
    let t = dbt::translate(&bytes, Target::Gfx1201);
    if t.translated {
        common::llvm_accepts_as(&t.object, "iree-kernels-gfx1201", "gfx1201");
        eprintln!("gfx950 IREE object translates to gfx1201");
    } else {
        let d: Vec<String> = t.diagnostics.iter().map(|d| d.to_string()).collect();
        assert!(!d.is_empty(), "refused without a diagnostic");
        eprintln!("gfx950 IREE object refused for gfx1201: {}", d.join("; "));
    }
}
