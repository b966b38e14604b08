//! Runs every dispatch of the IREE corpus (corpus/iree/manifest.ron, built by
//! corpus/iree/build.py with iree-compile 3.13 for the HIP target) on the target it was
//! compiled for and compares the outputs with the numpy references committed next to it,
//! within the per-check tolerance `|got - ref| <= abs + rel * |ref|` (0/0 = bit-exact).
//!
//! Launch as IREE's HIP HAL does: the workgroup size is the export's (the object's
//! `reqd_workgroup_size`), the grid is the export's constant workgroup count times that size
//! (AQL grid in work-items), no dynamic LDS, and the kernel arguments are the binding pointers
//! in order followed by the push constants (none in these cases).

mod triton_manifest;

use triton_manifest::{iree_dir, iree_manifest, run_target_cases, Abi};

fn run_target(target: &str) {
    let m = iree_manifest();
    for case in m.cases.iter().filter(|c| c.target == target) {
        assert_eq!(case.abi, Abi::IreeHip, "{}: not an IREE case", case.name);
        assert!(!case.checks.is_empty(), "{}: no checks", case.name);
    }
    run_target_cases(&iree_dir(), &m.cases, target, "IREE dispatches", 4);
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
