//! Proof that translation works on real code: every gfx950 object of corpus/ (clang-22
//! OpenCL/HIP/assembly kernels) translates to gfx942; each translated object passes
//! `llvm-readelf-22` and disassembles as gfx942 with `llvm-objdump-22` without an
//! undecodable word; and run on the gfx942 model it writes exactly what the original
//! writes on the gfx950 model, which also matches the CPU reference
//! (gpu-model/tests/corpus/refs.rs, the execution tests' tolerance). Objects translated in
//! place must retire exactly the guest's number of wave-instructions; the totals, and
//! those of the native gfx942 builds of the same kernels, are printed.
//!
//! The LLVM tools are required: a missing tool fails the test.

mod common;
#[path = "../../gpu-model/tests/corpus/manifest.rs"]
mod manifest;
#[path = "../../gpu-model/tests/corpus/refs.rs"]
mod refs;

use gpu_model::Target;
use manifest::{raw_to_f64, to_raw, Buf, Case, Inputs, Manifest, Tolerance};
use refs::Exp;
use std::collections::HashMap;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

fn load_manifest() -> Manifest {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.ron")).expect("manifest.ron");
    ron::from_str(&text).expect("manifest.ron parses")
}

/// Inputs, output buffers and wave-instructions retired of one run.
type Run = (Inputs, HashMap<String, Buf>, u64);

/// Runs `case` from `bytes` on a `target` device.
fn run(case: &Case, bytes: &[u8], target: Target) -> Result<Run, String> {
    let r = manifest::launch(case, bytes, target)?;
    Ok((r.inputs, r.outputs, r.instructions))
}

/// Compares the translated run with the CPU reference.
fn check_reference(case: &Case, inputs: &Inputs, got: &HashMap<String, Buf>) -> Result<(), String> {
    let expected = if case.name == "asm_lanes" {
        refs::asm_lanes(64)
    } else {
        refs::reference(&case.name, inputs, got)
            .ok_or_else(|| format!("no CPU reference for case {}", case.name))?
    };
    for (name, g) in got {
        let e = expected
            .get(name.as_str())
            .ok_or_else(|| format!("reference lacks {name}"))?;
        let n = match e {
            Exp::Ints(v) => v.len(),
            Exp::Floats(v) => v.len(),
        };
        if n != g.raw.len() {
            return Err(format!(
                "{name}: reference has {n} elements, buffer {}",
                g.raw.len()
            ));
        }
        let elem = g.elem;
        let bits = 8 * elem.size() as u32;
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let bad = (0..n)
            .filter(|&k| {
                let gr = g.raw[k];
                match e {
                    Exp::Ints(v) => (v[k] as u128 as u64) & mask != gr,
                    Exp::Floats(v) => match case.tolerance {
                        Tolerance::Float { rel, abs } if elem.is_float() => {
                            let gv = raw_to_f64(elem, gr);
                            !((gv - v[k]).abs() <= abs + rel * v[k].abs()
                                || (gv.is_nan() && v[k].is_nan()))
                        }
                        _ => {
                            to_raw(elem, v[k]) != gr
                                && !(v[k].is_nan() && raw_to_f64(elem, gr).is_nan())
                        }
                    },
                }
            })
            .count();
        if bad > 0 {
            return Err(format!(
                "{name}: {bad} of {n} elements differ from the CPU reference"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_gfx950_corpus_kernel_translates_to_gfx942_and_runs_the_same() {
    let m = load_manifest();
    let mut problems = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    let mut checked = 0;
    // (guest, translated, translated with a native build, native gfx942) wave-instructions,
    // for objects translated in place [0] and relocated [1].
    let mut counts = [(0u64, 0u64, 0u64, 0u64); 2];
    for case in &m.kernels {
        for variant in case.variants.iter().filter(|v| v.starts_with("gfx950")) {
            let path = corpus_dir()
                .join("build")
                .join(variant)
                .join(format!("{}.hsaco", case.stem));
            let bytes = std::fs::read(&path).unwrap();
            let t = dbt::translate(&bytes, Target::Gfx942);
            if !t.translated {
                problems.push(format!("{variant}/{}: {:?}", case.stem, t.diagnostics));
                continue;
            }
            if done.insert((variant.clone(), case.stem.clone())) {
                common::llvm_accepts(&t.object, &format!("{variant}-{}", case.stem));
            }
            let in_place = t
                .kernels
                .iter()
                .all(|k| k.status == dbt::KernelStatus::InPlace);
            let native = variant.replacen("gfx950", "gfx942", 1);
            let native_path = corpus_dir()
                .join("build")
                .join(&native)
                .join(format!("{}.hsaco", case.stem));
            let has_native = case.variants.contains(&native);
            let r = std::panic::catch_unwind(|| {
                let (_, want, n_guest) = run(case, &bytes, Target::Gfx950)?;
                let (inputs, got, n_host) = run(case, &t.object, Target::Gfx942)?;
                for (name, w) in &want {
                    if got[name].raw != w.raw {
                        return Err(format!(
                            "{name}: translated gfx942 run differs from gfx950 run"
                        ));
                    }
                }
                // Translated in place, the instruction stream is the guest's.
                if in_place && n_host != n_guest {
                    return Err(format!(
                        "in place, but {n_host} instructions ran instead of {n_guest}"
                    ));
                }
                let n_native = if has_native {
                    let nb = std::fs::read(&native_path).map_err(|e| e.to_string())?;
                    run(case, &nb, Target::Gfx942)?.2
                } else {
                    0
                };
                check_reference(case, &inputs, &got)?;
                Ok((n_guest, n_host, n_native))
            })
            .unwrap_or_else(|_| Err("host panic".into()));
            match r {
                Ok((g, h, n)) => {
                    checked += 1;
                    let k = usize::from(!in_place);
                    counts[k].0 += g;
                    counts[k].1 += h;
                    if n > 0 {
                        counts[k].2 += h;
                        counts[k].3 += n;
                    }
                }
                Err(e) => problems.push(format!("{}@{variant}: {e}", case.name)),
            }
        }
    }
    for (k, what) in ["in place", "relocated"].iter().enumerate() {
        let c = counts[k];
        eprintln!(
            "dynamic wave-instructions, {what}: translated {} vs gfx950 original {} ({:.3}x); vs native gfx942 builds {} ({:.3}x)",
            c.1,
            c.0,
            c.1 as f64 / c.0.max(1) as f64,
            c.3,
            c.2 as f64 / c.3.max(1) as f64
        );
    }
    eprintln!("{checked} translated gfx950 cases run the same on gfx942");
    assert!(checked > 50, "only {checked} cases checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
