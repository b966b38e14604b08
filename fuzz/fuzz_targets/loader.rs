//! Fuzz target: `CodeObject::parse` and mapping the result into device memory must never
//! panic, whatever the bytes. Run with `cargo fuzz run loader` from /fuzz; seed the corpus
//! with gpu-model/tests/fixtures/*.hsaco.
#![no_main]

use gpu_model::loader::CodeObject;
use gpu_model::memory::DeviceMemory;
use gpu_model::{loader::FeatureMode, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(co) = CodeObject::parse(data) else {
        return;
    };
    // Everything a parsed object exposes must be usable without panicking.
    let _ = co.target_id();
    let _ = co.check_device(Target::Gfx950, FeatureMode::On, FeatureMode::Off);
    for k in co.kernels() {
        let _ = k.descriptor.user_sgpr_layout();
        let _ = k.descriptor.allocated_vgprs(co.target());
        let _ = k.preload_entry_address(co.target());
    }
    let mut mem = DeviceMemory::new();
    if let Ok(loaded) = mem.load_code_object(&co) {
        let _ = mem.free(loaded.base);
    }
});
