//! Runs every kernel of the Triton corpus (corpus/triton/manifest.ron, built by
//! corpus/triton/build.py with Triton 3.9) on every target it is built for and compares the
//! outputs with the numpy references committed next to it, within the per-check tolerance
//! `|got - ref| <= abs + rel * |ref|` (0/0 = bit-exact after widening).
//!
//! Launch as Triton's HIP launcher does (triton/backends/amd/driver.c `_launch`): block =
//! `num_warps * warp_size` in x, grid = programs (AQL grid in work-items = programs * block in
//! x), `sharedMemBytes = metadata.shared` (the object declares no static LDS, so this is the
//! dispatch's dynamic LDS), and after the kernel's own arguments two pointers,
//! `global_scratch` and `profile_scratch`, each a buffer of `programs * size` bytes or null
//! when the metadata's size is 0 (driver.py `allocate_scratch`).
//!
//! Cases without checks (the 1024^3 GEMMs of the speed anchor) are only loaded here.

use gpu_model::device::Device;
use gpu_model::Target;

mod triton_manifest;

use triton_manifest::*;

fn run_case(case: &Case) -> Result<(), String> {
    let target = Target::from_name(&case.target).ok_or("unknown target")?;
    let bytes = std::fs::read(dir().join(&case.object)).map_err(|e| e.to_string())?;
    run(case, &bytes, target).map(|_| ())
}

fn run_target(target: &str) {
    let m = manifest();
    let mut problems = Vec::new();
    let mut ran = 0;
    for case in m.cases.iter().filter(|c| c.target == target) {
        if case.checks.is_empty() {
            // Speed-anchor objects: only check that they load.
            let bytes = std::fs::read(dir().join(&case.object)).expect("object");
            let mut dev = Device::new(Target::from_name(target).unwrap());
            if let Err(e) = dev.load_code_object(&bytes) {
                problems.push(format!("{}@{target}: load: {e}", case.name));
            }
            continue;
        }
        ran += 1;
        let r = std::panic::catch_unwind(|| run_case(case))
            .unwrap_or_else(|_| Err("host panic".to_string()));
        if let Err(e) = r {
            problems.push(format!("{}@{target}: {e}", case.name));
        }
    }
    eprintln!(
        "{target}: {ran} Triton kernels run, {} problems",
        problems.len()
    );
    assert!(ran >= 7, "{target}: only {ran} cases in the manifest");
    assert!(problems.is_empty(), "{target}:\n{}", problems.join("\n"));
}

#[test]
fn triton_gfx90a() {
    run_target("gfx90a");
}

#[test]
fn triton_gfx942() {
    run_target("gfx942");
}

#[test]
fn triton_gfx950() {
    run_target("gfx950");
}

#[test]
fn triton_gfx1200() {
    run_target("gfx1200");
}

#[test]
fn triton_gfx1201() {
    run_target("gfx1201");
}
