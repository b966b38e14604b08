//! What the runtime-service tests (service_printf.rs, service_heap.rs) share: their
//! fixtures, reading results back, and one launch on a small SoC.

#![allow(dead_code)]

use gpu_model::config::GpuConfig;
use gpu_model::device::Device;
use gpu_model::soc::{LaunchRequest, ModuleId, Soc, SocOptions};

/// A fixture of `tests/fixtures/service/`.
pub fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/service/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `n` little-endian i32s at `addr`.
pub fn read_i32s(dev: &Device, addr: u64, n: usize) -> Vec<i32> {
    let mut b = vec![0u8; 4 * n];
    dev.copy_out(addr, &mut b).unwrap();
    i32s(&b)
}

/// Little-endian i32s.
pub fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A small SoC of `preset` (2 XCDs, 2 active CUs each) on `threads` threads, with the
/// fixture `file` loaded.
pub fn small_soc(preset: &str, threads: usize, file: &str) -> (Soc, ModuleId) {
    let config = GpuConfig::preset(preset)
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "iods": 2, "xcd.active_cus": 2}"#)
        .unwrap();
    let mut soc = Soc::new(
        &config,
        &SocOptions {
            threads,
            ..SocOptions::default()
        },
    )
    .unwrap();
    let m = soc.load_code_object(&fixture(file)).unwrap();
    (soc, m)
}

/// Launches `kernel` over `grid` work-items in groups of `workgroup`, runs the SoC until it
/// is idle and checks that the dispatch did not fault; returns its sequence number.
pub fn run_one(
    soc: &mut Soc,
    m: ModuleId,
    kernel: &str,
    grid: u32,
    workgroup: u32,
    args: &[Vec<u8>],
) -> u64 {
    let seq = soc
        .submit(
            m,
            &LaunchRequest {
                kernel,
                grid: [grid, 1, 1],
                workgroup: [workgroup, 1, 1],
                dynamic_lds: 0,
                args,
            },
        )
        .unwrap();
    soc.run().unwrap();
    let done = soc.completions().iter().find(|c| c.seq == seq).unwrap();
    assert!(done.fault.is_none(), "{:?}", done.fault);
    seq
}
