//! Fuzz target: a scenario file (RON) is parsed, resolved against the example scenarios'
//! directory (so the seeds' code objects are found) and run on one thread; bad input must
//! be an error, never a panic or an abort. Seeds: fuzz/seeds/scenario (the examples).
//!
//! Outputs are never written to files (a mutated `write:` path could point anywhere), and
//! workloads larger than the limits below are skipped so that one input runs in well
//! under a second: the fuzzer is after parsing and checking, not after long kernels.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scenarios::scenario::{RunOptions, Scenario};
use std::path::Path;

/// Largest total buffer size run (bytes).
const MAX_BYTES: u64 = 16 << 20;
/// Largest number of work-items over all launches (the examples' 256 x 256 GEMMs, over a
/// minute under the address sanitizer, are skipped; the other examples run).
const MAX_ITEMS: u64 = 1 << 15;
/// Largest number of CUs of the one XCD run (presets have up to 64 per XCD).
const MAX_CUS: u32 = 64;
/// Instruction budget of one wave (the examples' waves run a few thousand).
const MAX_WAVE_INSTRUCTIONS: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut s) = Scenario::parse(text, "fuzz.ron") else {
        return;
    };
    let bytes = s
        .buffers
        .iter()
        .map(|b| b.len.saturating_mul(b.elem.size() as u64))
        .fold(0u64, u64::saturating_add);
    let items = s
        .launches
        .iter()
        .map(|l| l.grid.iter().map(|&g| u64::from(g)).product::<u64>())
        .fold(0u64, u64::saturating_add);
    if bytes > MAX_BYTES || items > MAX_ITEMS {
        return;
    }
    for o in &mut s.outputs {
        o.write = None;
    }
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/examples");
    let Ok(mut w) = s.resolve("fuzz.ron", &base) else {
        return;
    };
    // Overrides can ask for any machine, and the presets are big (an mi300x has 304 CUs,
    // too slow for a fuzzer under the address sanitizer): run on one XCD of at most
    // MAX_CUS CUs, every wave short. A config this makes invalid is skipped.
    if w.config.xcd.active_cus > MAX_CUS || w.config.iods > 8 {
        return;
    }
    w.config.xcds = 1;
    w.config.iods = 1;
    w.config.max_wave_instructions = w.config.max_wave_instructions.min(MAX_WAVE_INSTRUCTIONS);
    if w.config.validate().is_err() {
        return;
    }
    let opts = RunOptions {
        threads: Some(1),
        trace: false,
    };
    let _ = w.run(&opts, &mut |_, _| {});
});
