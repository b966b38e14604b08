//! Fuzz target: reading offload bundles and HIP host binaries (`Fatbin::parse`, `extract`)
//! must never panic or allocate without bound, whatever the bytes. Run with
//! `cargo fuzz run bundle` from /fuzz; seed the corpus with gpu-model/tests/fixtures/bundles/*.
#![no_main]

use gpu_model::loader::bundle::{self, Fatbin, TargetId};
use gpu_model::Target;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(fb) = Fatbin::parse(data) {
        let _ = fb.select(None);
        for e in fb.device_entries() {
            let _ = e.target.as_ref().map(|t| t.to_string());
        }
    }
    let _ = bundle::extract(data, Some(&TargetId::production(Target::Gfx942)));
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = TargetId::parse(s);
    }
});
