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

/// The same object for the gfx1201 host (rules in `dbt/src/rdna`): it translates, passes
/// llvm-readelf-22 and llvm-objdump-22 as gfx1201, and runs every dispatch on the gfx1201
/// model within the manifest's tolerance of the numpy reference (checked by
/// `run_counted_in`). The f32 GEMM's `v_mfma_f32_16x16x4_f32` become `v_fma_f32` chains in
/// the MFMA's k order (`rdna::matrix_valu`) and the elementwise and reduction dispatches
/// have no matrix operation, so those three write exactly what the gfx950 run writes; the
/// f16 GEMM's WMMAs add in another order (`rdna::matrix`), so only the tolerance holds
/// there. The dispatches without matrix instructions stay within the 1.3x of the
/// gfx950 dynamic wave-instructions and code.
#[test]
fn iree_gfx950_object_translates_to_gfx1201_and_runs_within_tolerance() {
    let m = iree_manifest();
    let cases: Vec<&Case> = m.cases.iter().filter(|c| c.target == "gfx950").collect();
    assert!(cases.len() >= 4, "only {} gfx950 cases", cases.len());
    let bytes = std::fs::read(iree_dir().join(&cases[0].object)).expect("object");
    let t = dbt::translate(&bytes, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "iree-kernels-gfx1201", "gfx1201");
    let mut problems = Vec::new();
    for case in &cases {
        let r = std::panic::catch_unwind(|| -> Result<(u64, u64), String> {
            let (want, g) = run_counted_in(&iree_dir(), case, &bytes, Target::Gfx950)?;
            let (got, h) = run_counted_in(&iree_dir(), case, &t.object, Target::Gfx1201)?;
            if want != got && case.name != "matmul_f16" {
                return Err("translated gfx1201 run differs from the gfx950 run".into());
            }
            Ok((g, h))
        })
        .unwrap_or_else(|_| Err("host panic".into()));
        let k = t
            .kernels
            .iter()
            .find(|k| k.name.starts_with(&case.name))
            .or_else(|| t.kernels.iter().find(|k| k.name.contains(&case.name)));
        let code = k.map_or(String::new(), |k| {
            format!(
                ", code {} -> {} bytes ({:.3}x)",
                k.code_before,
                k.code_after,
                k.code_after as f64 / k.code_before.max(1) as f64
            )
        });
        match r {
            Ok((g, h)) => {
                let dr = h as f64 / g.max(1) as f64;
                eprintln!(
                    "gfx1201 {}: wave-instructions {g} -> {h} ({dr:.3}x){code}",
                    case.name
                );
                // The bound for dispatches without matrix instructions, on dynamic
                // wave-instructions and on code.
                let cr = k.map_or(0.0, |k| k.code_after as f64 / k.code_before.max(1) as f64);
                if !case.name.starts_with("matmul")
                    && (dr > common::GFX1201_GROWTH || cr > common::GFX1201_GROWTH)
                {
                    problems.push(format!(
                        "{}: {dr:.3}x instructions, {cr:.3}x code: over the {}x bound",
                        case.name,
                        common::GFX1201_GROWTH
                    ));
                }
            }
            Err(e) => problems.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
