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

/// (kernel, what the diagnostic names): refusals of the gfx950 object today. IREE's f16 GEMM
/// issues `v_mfma_f32_16x16x32_f16 v[0:3], v[76:79], v[0:3], 0`, whose result overwrites its
/// own B operand; the split into two gfx942 `v_mfma_f32_16x16x16_f16` would clobber the upper
/// half of B before the second MFMA reads it, and the translator refuses rather than
/// allocate a spare register.
const REFUSED: &[(&str, &str)] = &[(
    "matmul_f16_dispatch_0_matmul_128x128x128_f16xf16xf32",
    "D overlaps the upper halves of A or B",
)];

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
    let mut problems = Vec::new();
    for case in &cases {
        let r = std::panic::catch_unwind(|| -> Result<(), String> {
            let (want, _) = run_counted_in(&iree_dir(), case, &bytes, Target::Gfx950)?;
            let (got, _) = run_counted_in(&iree_dir(), case, &t.object, Target::Gfx942)?;
            // The split f16 MFMAs add in another order: only the tolerance (checked by
            // `run_counted_in`) holds there.
            if want != got && case.name != "matmul_f16" {
                return Err("translated gfx942 run differs from the gfx950 run".into());
            }
            Ok(())
        })
        .unwrap_or_else(|_| Err("host panic".into()));
        if let Err(e) = r {
            problems.push(format!("{}: {e}", case.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
