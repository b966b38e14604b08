//! Triton 3.9 gfx950 kernels (corpus/triton, numpy references next to them) translated
//! to gfx1201 (wave64): every object uses kernarg preload, which gfx1201 does not have
//! (the compiler's compatibility code at the entry loads those SGPRs instead). Each
//! translated object passes the LLVM tools as gfx1201 and, on the gfx1201 model, writes
//! exactly what the original writes on the gfx950 model, within the manifest's tolerance
//! of the reference. Kernels that cannot be translated yet are listed with what their
//! diagnostic must name; a listed kernel that translates fails
//! the test, so the list cannot go stale. `vadd` (MUBUF loads and stores through
//! descriptors Triton builds with the GFX9 dword3) runs translated; at least one kernel
//! must; `softmax`, `layernorm` and `reduce_atomic` add the DPP row broadcasts of their
//! wave reductions. Kernels without MFMAs stay within the 1.3x of the gfx950
//! code and dynamic wave-instructions (each kernel's ratios are printed).

use gpu_model::Target;

mod common;

#[path = "../../gpu-model/tests/triton_manifest/mod.rs"]
mod triton_manifest;

use triton_manifest::*;

/// (case, what the diagnostic names): kernels not translated to gfx1201 yet. Triton's
/// MUBUF buffer accesses translate (descriptors converted to the GFX12 layout at the
/// access), and so do the reductions' DPP row broadcasts (`row_bcast:15`/`31`, gone on
/// GFX12), the matmuls' buffer loads straight to LDS (a load into scratch VGPRs and a
/// DS store), their transposing LDS reads (the gfx942 rule), their f16/bf16 and fp8
/// (`f8f6f4`) MFMAs (WMMAs, `rdna/matrix.rs`), `v_permlane32_swap_b32` (through
/// `v_permlane64_b32`) and `v_cvt_pk_bf16_f32` (integer nearest-even rounding): every
/// Triton kernel of the corpus translates.
const UNTRANSLATED: &[(&str, &str)] = &[];

#[test]
fn triton_gfx950_kernels_translate_to_gfx1201_and_run_the_same() {
    let m = manifest();
    let mut problems = Vec::new();
    let (mut ran, mut refused) = (0, Vec::new());
    let (mut dynamic, mut code) = ((0u64, 0u64), (0usize, 0usize));
    for case in m.cases.iter().filter(|c| c.target == "gfx950") {
        let bytes = std::fs::read(dir().join(&case.object)).expect("object");
        let t = dbt::translate(&bytes, Target::Gfx1201);
        let listed = UNTRANSLATED.iter().find(|(n, _)| *n == case.name);
        match (t.translated, listed) {
            (false, Some((_, what))) => {
                let d = t.diagnostics[0].to_string();
                if !d.contains(what) {
                    problems.push(format!("{}: expected {what}, got {d}", case.name));
                }
                refused.push(d);
                continue;
            }
            (true, Some(_)) => {
                problems.push(format!(
                    "{} translates: remove it from UNTRANSLATED",
                    case.name
                ));
                continue;
            }
            (false, None) => {
                problems.push(format!("{}: {}", case.name, t.diagnostics[0]));
                continue;
            }
            (true, None) => {}
        }
        common::llvm_accepts_as(&t.object, &case.name, "gfx1201");
        if case.checks.is_empty() {
            continue;
        }
        let r = std::panic::catch_unwind(|| -> Result<(u64, u64), String> {
            let (want, g) = run_counted(case, &bytes, Target::Gfx950)?;
            let (got, h) = run_counted(case, &t.object, Target::Gfx1201)?;
            if want != got {
                return Err("translated gfx1201 run differs from the gfx950 run".into());
            }
            Ok((g, h))
        })
        .unwrap_or_else(|_| Err("host panic".into()));
        match r {
            Ok((g, h)) => {
                ran += 1;
                let (before, after) = t
                    .kernels
                    .iter()
                    .fold((0, 0), |(b, a), k| (b + k.code_before, a + k.code_after));
                let (dr, cr) = (
                    h as f64 / g.max(1) as f64,
                    after as f64 / before.max(1) as f64,
                );
                let matrix = common::has_mfma(&bytes);
                eprintln!(
                    "{}{}: wave-instructions gfx1201/gfx950 {h}/{g} = {dr:.3}x, kernel code {before} -> {after} bytes ({cr:.3}x)",
                    case.name,
                    if matrix { " (MFMA)" } else { "" },
                );
                // The bound for kernels without matrix instructions.
                if !matrix && (dr > common::GFX1201_GROWTH || cr > common::GFX1201_GROWTH) {
                    problems.push(format!(
                        "{}: {dr:.3}x instructions, {cr:.3}x code: over the {}x bound",
                        case.name,
                        common::GFX1201_GROWTH
                    ));
                }
                dynamic.0 += g;
                dynamic.1 += h;
                code.0 += before;
                code.1 += after;
            }
            Err(e) => problems.push(format!("{}: {e}", case.name)),
        }
    }
    eprintln!("{ran} translated Triton kernels run the same on gfx1201; refused: {refused:?}");
    eprintln!(
        "all that ran: wave-instructions {}/{} = {:.3}x, kernel code {} -> {} bytes ({:.3}x)",
        dynamic.1,
        dynamic.0,
        dynamic.1 as f64 / dynamic.0.max(1) as f64,
        code.0,
        code.1,
        code.1 as f64 / code.0.max(1) as f64
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(ran >= 8, "only {ran} Triton kernels ran translated");
}
