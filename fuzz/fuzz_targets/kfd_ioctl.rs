//! Fuzz target: the emulated KFD's ioctl layer (`kmd::Kfd::ioctl`) must never panic or
//! hang, whatever sequence of requests and argument bytes a client sends, and must still
//! serve a valid GET_VERSION afterwards. Run with `cargo fuzz run kfd_ioctl` from /fuzz;
//! seed the corpus with fuzz/seeds/kfd_ioctl/*.
//!
//! Input: records of `[nr][size][flags][size argument bytes]`. The argument is placed at
//! the start of a 64 KiB fake user address space at 0x10000 (so pointers inside it can
//! reach the rest of that space); flag bit 0 passes a wild pointer instead, bits 6-7 pick
//! the direction bits of the request.
#![no_main]

use std::sync::{Arc, OnceLock};

use kmd::abi::{self, ioc, nr};
use kmd::user::{BufferMemory, UserMemory};
use kmd::{GpuNode, Kfd, NoGpu};
use libfuzzer_sys::fuzz_target;

const BASE: u64 = 0x10000;

fuzz_target!(|data: &[u8]| {
    // Parsing the preset once keeps the fuzzer on the ioctl layer.
    static GPU: OnceLock<Option<GpuNode>> = OnceLock::new();
    let Some(gpu) = GPU.get_or_init(|| GpuNode::from_preset("mi210").ok()) else {
        return;
    };
    let kfd = Kfd::new(gpu.clone(), Arc::new(NoGpu::default()));
    let mem = BufferMemory::new(BASE, 64 * 1024);
    let mut rest = data;
    while let [cmd, size, flags, tail @ ..] = rest {
        let size = usize::from(*size).min(tail.len());
        let (arg, next) = tail.split_at(size);
        rest = next;
        let mut arg = arg.to_vec();
        if u32::from(*cmd) == nr::WAIT_EVENTS {
            // A wait on an event nobody signals blocks for its timeout (up to forever), as
            // it must; keep the fuzzer moving by never waiting. The timeout (bytes 16..20)
            // may be given in part: KFD zero-fills what the request's size leaves out.
            let end = arg.len().min(20);
            if end > 16 {
                arg[16..end].fill(0);
            }
        }
        let _ = mem.write(BASE, &arg);
        let ptr = if flags & 1 != 0 { 0xdead_0000 } else { BASE };
        let request = ioc(u32::from(flags >> 6), u32::from(*cmd), size);
        let _ = kfd.ioctl(request, ptr, &mem);
    }
    assert!(kfd.ioctl(abi::request::GET_VERSION, BASE, &mem).is_ok());
});
