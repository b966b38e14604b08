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

mod triton_manifest;

use triton_manifest::{dir, manifest, run_target_cases};

fn run_target(target: &str) {
    run_target_cases(&dir(), &manifest().cases, target, "Triton kernels", 7);
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
