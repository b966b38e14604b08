//! Fuzz target: `Soc::restore` of arbitrary bytes never panics, and a refused checkpoint
//! leaves the SoC exactly as it was (its own checkpoint is byte-for-byte the same). An
//! accepted one is run on for a while. Seeds: fuzz/seeds/checkpoint, real checkpoints of
//! the SoC below written by `gpu-model/tests/fuzz_seeds.rs` (`BLESS_FUZZ_SEEDS=1`).
#![no_main]

use gpu_model::config::GpuConfig;
use gpu_model::soc::{Soc, SocOptions};
use libfuzzer_sys::fuzz_target;
use simkit::time::Tick;
use std::cell::RefCell;

/// Overrides of the `mi300x` preset the seeds were taken on.
const SEED_OVERRIDES: &str = r#"{"xcds": 1, "iods": 1, "xcd.active_cus": 2, "iod.mall.size_bytes": 65536, "xcd.l2.size_bytes": 65536}"#;
/// Ticks an accepted checkpoint runs on for.
const RUN_TICKS: u64 = 20_000;

thread_local! {
    /// The SoC every input is restored into, and its checkpoint before the input.
    static SOC: RefCell<Option<(Soc, Vec<u8>)>> = const { RefCell::new(None) };
}

fuzz_target!(|data: &[u8]| {
    SOC.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (soc, before) = cell.get_or_insert_with(|| {
            // The same config as the seeds' (see fuzz_seeds.rs).
            let config = GpuConfig::preset("mi300x")
                .and_then(|c| c.with_overrides_ron(SEED_OVERRIDES))
                .expect("the seed config is valid");
            let soc = Soc::new(&config, &SocOptions::default()).expect("the seed config builds");
            let before = soc.checkpoint().expect("a fresh soc checkpoints");
            (soc, before)
        });
        match soc.restore(data) {
            Err(e) => {
                let after = soc.checkpoint().expect("an unchanged soc checkpoints");
                assert!(after == *before, "refused checkpoint ({e}) changed the soc");
            }
            Ok(()) => {
                let _ = soc.run_until(Tick(soc.now().0.saturating_add(RUN_TICKS)));
                *before = soc.checkpoint().expect("a running soc checkpoints");
            }
        }
    });
});
