//! Fuzz target: `dbt::translate` (to gfx942 and to gfx1201) must never panic, whatever
//! the bytes, and on failure must return the input unchanged with a diagnostic. Run with `cargo fuzz run dbt` from
//! /fuzz; seeds in fuzz/seeds/dbt (gfx950 corpus objects).
#![no_main]

use gpu_model::Target;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(data, host);
        if t.translated {
            // A translation must load again.
            assert!(gpu_model::loader::CodeObject::parse(&t.object).is_ok());
        } else {
            assert_eq!(t.object, data);
            assert!(!t.diagnostics.is_empty());
        }
    }
});
