//! Fuzz target: `dbt::translate` must never panic, whatever the bytes, and on failure
//! must return the input unchanged with a diagnostic. Run with `cargo fuzz run dbt` from
//! /fuzz; seeds in fuzz/seeds/dbt (gfx950 corpus objects).
#![no_main]

use gpu_model::Target;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let t = dbt::translate(data, Target::Gfx942);
    if t.translated {
        // A translation must load again.
        assert!(gpu_model::loader::CodeObject::parse(&t.object).is_ok());
    } else {
        assert_eq!(t.object, data);
        assert!(!t.diagnostics.is_empty());
    }
});
