//! Test helper for the LDS tests (`exec_lds*.rs`): runs one DS instruction assembled by
//! llvm-mc-22 against a given LDS image, and a byte-level LDS model with the guides'
//! out-of-range rule (any byte outside the allocation: the read is 0, the write is
//! dropped). Needs `asm` in the including test.
#![allow(dead_code)]

use super::asm;
use gpu_model::exec::Wave;
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

/// Size of the test LDS allocation.
pub const LDS_BYTES: usize = 2048;

/// The wave sizes a target runs (GFX12 both).
pub fn waves(t: Target) -> &'static [u32] {
    if t.family() == Family::Gfx12 {
        &[32, 64]
    } else {
        &[64]
    }
}

/// An EXEC mask with holes for a wave size.
pub fn exec_mask(ws: u32) -> u64 {
    let m = 0xf7ff_bfff_ffef_dffd_u64;
    if ws == 32 {
        m & 0xffff_ffff
    } else {
        m
    }
}

/// Assembles `src` for `t` (one instruction; `s_endpgm` appended) and runs it as one wave
/// of `ws` lanes against `lds` after `setup`, with EXEC = [`exec_mask`] unless `setup`
/// changes it.
pub fn run(t: Target, ws: u32, src: &str, lds: &mut [u8], setup: impl FnOnce(&mut Wave)) -> Wave {
    let code = assemble(t, ws, src);
    let mem = DeviceMemory::new();
    asm::run_with(t, ws, &code, &mem, lds, |w| {
        w.set_exec(exec_mask(ws));
        setup(w)
    })
}

type Cache = std::cell::RefCell<std::collections::HashMap<(Target, u32, String), Vec<u8>>>;

thread_local! {
    static CODE: Cache = Cache::default();
}

/// [`asm::assemble_wave`], remembered per (target, wave size, source): the tests run one
/// instruction many times.
pub fn assemble(t: Target, ws: u32, src: &str) -> Vec<u8> {
    CODE.with(|c| {
        c.borrow_mut()
            .entry((t, ws, src.to_string()))
            .or_insert_with(|| asm::assemble_wave(t, ws, src))
            .clone()
    })
}

/// Assembles many one-instruction DS sources (8 bytes each) in one llvm-mc run into the
/// [`assemble`] cache.
pub fn prefetch(t: Target, ws: u32, srcs: &[String]) {
    let bytes = asm::assemble_wave(t, ws, &srcs.join("\n"));
    assert_eq!(
        bytes.len(),
        8 * srcs.len() + 4,
        "{}: not all 8-byte DS forms",
        t.name()
    );
    let end = &bytes[8 * srcs.len()..];
    CODE.with(|c| {
        let mut c = c.borrow_mut();
        for (s, code) in srcs.iter().zip(bytes.chunks(8)) {
            c.insert((t, ws, s.clone()), [code, end].concat());
        }
    });
}

/// The lanes of `exec`, lowest first.
pub fn active(exec: u64, ws: u32) -> impl Iterator<Item = usize> {
    (0..ws as usize).filter(move |l| exec >> l & 1 != 0)
}

/// `n` bytes of `lds` at `a`, little-endian; 0 when any byte is outside.
pub fn rd(lds: &[u8], a: u64, n: usize) -> u64 {
    let end = a.checked_add(n as u64);
    match end {
        Some(e) if e <= lds.len() as u64 => {
            let mut v = 0u64;
            for k in 0..n {
                v |= u64::from(lds[a as usize + k]) << (8 * k);
            }
            v
        }
        _ => 0,
    }
}

/// Writes the low `n` bytes of `v` at `a`; nothing when any byte is outside.
pub fn wr(lds: &mut [u8], a: u64, n: usize, v: u64) {
    if let Some(e) = a.checked_add(n as u64) {
        if e <= lds.len() as u64 {
            for k in 0..n {
                lds[a as usize + k] = (v >> (8 * k)) as u8;
            }
        }
    }
}

/// An LDS image of reproducible bytes.
pub fn image(seed: u32) -> Vec<u8> {
    (0..LDS_BYTES as u32)
        .map(|k| asm::hash(k ^ seed.rotate_left(11)) as u8)
        .collect()
}

/// Lane addresses for per-lane slots of `size` bytes, with the edge cases every LDS test
/// covers: lane 5 shares lane 4's slot (lane order matters), lane 7 is far out of range,
/// lane 9 straddles the end of the allocation, lane 11 is at 0xffff_fff8 (its sum with
/// an offset passes 4 GiB), lane 13 is the last in-range slot.
pub fn lane_addr(l: usize, size: u64) -> u32 {
    match l {
        5 => 4 * size as u32,
        7 => 0x0010_0000,
        9 => LDS_BYTES as u32 - (size as u32 / 2).max(1),
        11 => 0xffff_fff8,
        13 => LDS_BYTES as u32 - size as u32,
        _ => (l as u64 * size) as u32,
    }
}
