//! Runs every kernel of corpus/manifest.ron on every variant it is built for and checks the
//! results against CPU references (tests/corpus/refs.rs): bit-exact for integers and for
//! floats marked `Exact`, within the case's tolerance otherwise.
//!
//! Pairs that are not supported yet are listed in [`UNSUPPORTED`] with the reason; they
//! must fail (a listed pair that passes fails the test, so the list cannot go stale), and
//! every unlisted pair must pass. Nothing is skipped silently.

#[path = "corpus/manifest.rs"]
mod manifest;
#[path = "corpus/refs.rs"]
mod refs;

use gpu_model::Target;
use manifest::{raw_to_f64, to_raw, Arg, Buf, Case, Manifest, Role, Tolerance};
use refs::Exp;
use std::path::PathBuf;

/// (case name or `*`, variant prefix or `*`, reason): pairs expected to fail.
const UNSUPPORTED: &[(&str, &str, &str)] = &[];

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

fn load_manifest() -> Manifest {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.ron")).expect("manifest.ron");
    ron::from_str(&text).expect("manifest.ron parses")
}

fn target_of(variant: &str) -> Target {
    let name = variant.split('-').next().unwrap_or(variant);
    Target::from_name(name).unwrap_or_else(|| panic!("unknown variant {variant}"))
}

fn wave_size_of(variant: &str) -> u32 {
    if target_of(variant).family() == gpu_model::Family::Gfx9 || variant.ends_with("-w64") {
        64
    } else {
        32
    }
}

/// Runs one (case, variant) pair; Ok(()) when every compared buffer matches.
fn run_pair(case: &Case, variant: &str) -> Result<(), String> {
    let target = target_of(variant);
    let path = corpus_dir()
        .join("build")
        .join(variant)
        .join(format!("{}.hsaco", case.stem));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let manifest::Launched {
        inputs,
        outputs: got,
        ..
    } = manifest::launch(case, &bytes, target)?;
    let expected = if case.name == "asm_lanes" {
        refs::asm_lanes(wave_size_of(variant))
    } else {
        refs::reference(&case.name, &inputs, &got)
            .ok_or_else(|| format!("no CPU reference for case {}", case.name))?
    };
    // In argument order, as the outputs were written.
    for a in &case.args {
        let Arg::Buffer {
            name, elem, role, ..
        } = a
        else {
            continue;
        };
        if *role == Role::In {
            continue;
        }
        let g = &got[name];
        let e = expected
            .get(name.as_str())
            .ok_or_else(|| format!("reference does not cover output buffer {name}"))?;
        compare(name, *elem, g, e, case.tolerance)?;
    }
    Ok(())
}

fn compare(
    name: &str,
    elem: manifest::Elem,
    got: &Buf,
    exp: &Exp,
    tol: Tolerance,
) -> Result<(), String> {
    let n = match exp {
        Exp::Ints(v) => v.len(),
        Exp::Floats(v) => v.len(),
    };
    if n != got.raw.len() {
        return Err(format!(
            "{name}: reference has {n} elements, buffer {}",
            got.raw.len()
        ));
    }
    let mut bad = Vec::new();
    for k in 0..n {
        let g = got.raw[k];
        let ok = match exp {
            Exp::Ints(v) => to_raw_int(elem, v[k]) == g,
            Exp::Floats(v) => {
                let want = v[k];
                match tol {
                    Tolerance::Float { rel, abs } if elem.is_float() => {
                        let gv = raw_to_f64(elem, g);
                        (gv - want).abs() <= abs + rel * want.abs()
                            || (gv.is_nan() && want.is_nan())
                    }
                    _ => {
                        let w = to_raw(elem, want);
                        w == g || (want.is_nan() && raw_to_f64(elem, g).is_nan())
                    }
                }
            }
        };
        if !ok {
            bad.push(k);
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let show: Vec<String> = bad
        .iter()
        .take(4)
        .map(|&k| {
            let want = match exp {
                Exp::Ints(v) => format!("{:#x}", to_raw_int(elem, v[k])),
                Exp::Floats(v) => format!("{}", v[k]),
            };
            let g = if elem.is_float() {
                format!("{}", raw_to_f64(elem, got.raw[k]))
            } else {
                format!("{:#x}", got.raw[k])
            };
            format!("[{k}] got {g} want {want}")
        })
        .collect();
    Err(format!(
        "{name}: {} of {n} elements differ: {}",
        bad.len(),
        show.join(", ")
    ))
}

fn to_raw_int(elem: manifest::Elem, v: i128) -> u64 {
    let bits = 8 * elem.size() as u32;
    (v as u128 as u64)
        & if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
}

fn expected_failure(case: &str, variant: &str) -> Option<&'static str> {
    UNSUPPORTED
        .iter()
        .find(|(c, v, _)| (*c == "*" || *c == case) && (*v == "*" || variant.starts_with(v)))
        .map(|(_, _, r)| *r)
}

/// Runs every pair whose variant belongs to `target` and checks the expectations.
fn run_target(target: &str) {
    let m = load_manifest();
    let mut passed = Vec::new();
    let mut problems = Vec::new();
    let mut expected_fail = 0;
    for case in &m.kernels {
        for variant in case
            .variants
            .iter()
            .filter(|v| target_of(v).name() == target)
        {
            let r = std::panic::catch_unwind(|| run_pair(case, variant))
                .unwrap_or_else(|_| Err("host panic".to_string()));
            match (r, expected_failure(&case.name, variant)) {
                (Ok(()), None) => passed.push(format!("{}@{variant}", case.name)),
                (Ok(()), Some(why)) => problems.push(format!(
                    "{}@{variant} passes but is listed as unsupported ({why}): remove it from UNSUPPORTED",
                    case.name
                )),
                (Err(_), Some(_)) => expected_fail += 1,
                (Err(e), None) => problems.push(format!("{}@{variant}: {e}", case.name)),
            }
        }
    }
    eprintln!(
        "{target}: {} pairs pass, {expected_fail} listed as unsupported, {} problems",
        passed.len(),
        problems.len()
    );
    for p in &passed {
        eprintln!("  pass {p}");
    }
    assert!(problems.is_empty(), "{target}:\n{}", problems.join("\n"));
    // Not vacuous: every kernel of the manifest has a variant for every target, so at
    // least one pair per kernel ran and passed.
    assert!(
        passed.len() >= m.kernels.len() && !m.kernels.is_empty(),
        "{target}: only {} pairs passed for {} kernels",
        passed.len(),
        m.kernels.len()
    );
}

#[test]
fn corpus_gfx942() {
    run_target("gfx942");
}

#[test]
fn corpus_gfx950() {
    run_target("gfx950");
}

#[test]
fn corpus_gfx90a() {
    run_target("gfx90a");
}

#[test]
fn corpus_gfx1200() {
    run_target("gfx1200");
}

#[test]
fn corpus_gfx1201() {
    run_target("gfx1201");
}
