//! Runs every dispatch of the IREE corpus (corpus/iree/manifest.ron, built by
//! corpus/iree/build.py with iree-compile 3.13 for the HIP target) on the target it was
//! compiled for and compares the outputs with the numpy references committed next to it,
//! within the per-check tolerance `|got - ref| <= abs + rel * |ref|` (0/0 = bit-exact).
//!
//! Launch as IREE's HIP HAL does: the workgroup size is the export's (the object's
//! `reqd_workgroup_size`), the grid is the export's constant workgroup count times that size
//! (AQL grid in work-items), no dynamic LDS, and the kernel arguments are the binding pointers
//! in order followed by the push constants (none in these cases).

use gpu_model::Target;

mod triton_manifest;

use triton_manifest::{iree_dir, iree_manifest, run_counted_in, Abi, Case};

fn run_case(case: &Case) -> Result<(), String> {
    let target = Target::from_name(&case.target).ok_or("unknown target")?;
    let bytes = std::fs::read(iree_dir().join(&case.object)).map_err(|e| e.to_string())?;
    run_counted_in(&iree_dir(), case, &bytes, target).map(|_| ())
}

fn run_target(target: &str) {
    let m = iree_manifest();
    let mut problems = Vec::new();
    let mut ran = 0;
    for case in m.cases.iter().filter(|c| c.target == target) {
        assert_eq!(case.abi, Abi::IreeHip, "{}: not an IREE case", case.name);
        assert!(!case.checks.is_empty(), "{}: no checks", case.name);
        ran += 1;
        let r = std::panic::catch_unwind(|| run_case(case))
            .unwrap_or_else(|_| Err("host panic".to_string()));
        if let Err(e) = r {
            problems.push(format!("{}@{target}: {e}", case.name));
        }
    }
    eprintln!(
        "{target}: {ran} IREE dispatches run, {} problems",
        problems.len()
    );
    assert!(ran >= 4, "{target}: only {ran} cases in the manifest");
    assert!(problems.is_empty(), "{target}:\n{}", problems.join("\n"));
}

#[test]
fn iree_gfx90a() {
    run_target("gfx90a");
}

#[test]
fn iree_gfx942() {
    run_target("gfx942");
}

#[test]
fn iree_gfx950() {
    run_target("gfx950");
}
