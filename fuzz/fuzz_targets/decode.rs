//! Fuzz target: decoding arbitrary bytes for every target never panics, and whatever
//! decodes prints and re-encodes to the same bytes.
#![no_main]

use gpu_model::{isa, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for t in Target::ALL {
        for wave32 in [false, true] {
            if let Ok(i) = isa::decode(t, data, wave32) {
                let _ = i.to_string();
                let mut out = [0u8; 16];
                let n = isa::encode(&i, &mut out).expect("encode a decoded instruction");
                assert_eq!(&out[..n], &data[..n]);
            }
        }
    }
});
