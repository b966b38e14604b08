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

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;
use std::collections::HashMap;

mod triton_manifest;

use triton_manifest::*;

fn run_case(case: &Case) -> Result<(), String> {
    let target = Target::from_name(&case.target).ok_or("unknown target")?;
    let bytes = std::fs::read(dir().join(&case.object)).map_err(|e| e.to_string())?;
    let mut dev = Device::new(target);
    let module = dev.load_code_object(&bytes).map_err(|e| e.to_string())?;
    let mut addrs = HashMap::new();
    for b in &case.buffers {
        let data = match &b.init {
            Init::Zeros => vec![0u8; b.len * b.elem.size()],
            Init::File(f) => std::fs::read(dir().join(f)).map_err(|e| format!("{f}: {e}"))?,
        };
        if data.len() != b.len * b.elem.size() {
            return Err(format!(
                "{}: {} bytes, want {}",
                b.name,
                data.len(),
                b.len * b.elem.size()
            ));
        }
        let addr = dev.alloc(data.len() as u64).map_err(|e| e.to_string())?;
        dev.copy_in(addr, &data).map_err(|e| e.to_string())?;
        addrs.insert(b.name.clone(), (addr, b.elem, b.len));
    }
    let mut args = Vec::new();
    for a in &case.args {
        args.push(match a {
            Arg::Buffer(n) => ArgValue::ptr(addrs.get(n).ok_or(format!("no buffer {n}"))?.0),
            Arg::I32(v) => ArgValue::bytes(&v.to_le_bytes()),
            Arg::F32(v) => ArgValue::bytes(&v.to_le_bytes()),
        });
    }
    // global_scratch, profile_scratch: null when unused, else programs * size bytes.
    let programs = case.programs.0 as u64 * case.programs.1 as u64 * case.programs.2 as u64;
    for s in [&case.global_scratch, &case.profile_scratch] {
        if s.size == 0 {
            args.push(ArgValue::u64(0));
        } else {
            let addr = dev.alloc(programs * s.size).map_err(|e| e.to_string())?;
            args.push(ArgValue::ptr(addr));
        }
    }
    let cfg = LaunchConfig {
        grid: [case.grid.0, case.grid.1, case.grid.2],
        workgroup: [case.workgroup.0, case.workgroup.1, case.workgroup.2],
        dynamic_lds: case.shared,
        extra_private: 0,
    };
    let id = dev
        .dispatch(module, &case.kernel, &cfg, &args)
        .map_err(|e| e.to_string())?;
    dev.wait(id).map_err(|e| e.to_string())?;
    for c in &case.checks {
        let (addr, elem, len) = *addrs.get(&c.buffer).ok_or("no such buffer")?;
        let mut got = vec![0u8; len * elem.size()];
        dev.copy_out(addr, &mut got).map_err(|e| e.to_string())?;
        let want = std::fs::read(dir().join(&c.reference)).map_err(|e| e.to_string())?;
        if want.len() != len * c.ref_elem.size() {
            return Err(format!("{}: reference has the wrong size", c.reference));
        }
        let mut bad = Vec::new();
        let mut worst = 0.0f64;
        for i in 0..len {
            let (g, w) = (elem.get(&got, i), c.ref_elem.get(&want, i));
            let err = (g - w).abs();
            let lim = c.abs + c.rel * w.abs();
            worst = worst.max(err / lim.max(f64::MIN_POSITIVE));
            if err > lim || g.is_nan() != w.is_nan() {
                bad.push(format!("[{i}] got {g} want {w}"));
            }
        }
        if !bad.is_empty() {
            return Err(format!(
                "{}: {} of {len} elements out of tolerance (rel {}, abs {}): {}",
                c.buffer,
                bad.len(),
                c.rel,
                c.abs,
                bad[..bad.len().min(4)].join(", ")
            ));
        }
        eprintln!(
            "  {}@{} {}: ok (worst error {:.3} of the tolerance)",
            case.name, case.target, c.buffer, worst
        );
    }
    Ok(())
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
