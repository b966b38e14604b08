//! Atomics are real read-modify-writes: many host threads hammering the same words get
//! exactly the result a sequential reference computes, and a spin lock built from
//! cmpswap/swap protects non-atomic data.

use gpu_model::memory::{AtomicOp, DeviceMemory};
use std::thread;

const THREADS: u64 = 4;
const ITERS: u64 = 20_000;

#[test]
fn concurrent_32_and_64_bit_atomics_lose_no_update() {
    let mut m = DeviceMemory::new();
    let base = m.allocate(64, 8).unwrap();
    // Two u32 counters sharing one 64-bit word, plus a 64-bit counter and min/max slots.
    m.store_u32(base + 16, u32::MAX).unwrap(); // min slot
    m.store_u64(base + 32, i64::MAX as u64).unwrap(); // 64-bit signed min slot
    let m = &m;
    thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for i in 0..ITERS {
                    m.atomic_u32(base, AtomicOp::Add, 1, 0).unwrap();
                    m.atomic_u32(base + 4, AtomicOp::Sub, 3, 0).unwrap();
                    m.atomic_u64(base + 8, AtomicOp::Add, 1 << 33, 0).unwrap();
                    let v = (t * ITERS + i) as u32 ^ 0x5a5a;
                    m.atomic_u32(base + 16, AtomicOp::MinU, v, 0).unwrap();
                    m.atomic_u32(base + 20, AtomicOp::MaxS, v.wrapping_sub(40_000), 0)
                        .unwrap();
                    m.atomic_u64(base + 32, AtomicOp::MinS, (v as u64) << 20, 0)
                        .unwrap();
                    m.atomic_u64(base + 40, AtomicOp::Xor, 1 << (i % 64), 0)
                        .unwrap();
                    m.atomic_u32(base + 48, AtomicOp::IncWrap, 999, 0).unwrap();
                }
            });
        }
    });
    let n = THREADS * ITERS;
    // The sequential reference.
    let vals = (0..n).map(|k| k as u32 ^ 0x5a5a);
    assert_eq!(m.load_u32(base).unwrap() as u64, n);
    assert_eq!(
        m.load_u32(base + 4).unwrap(),
        0u32.wrapping_sub(3 * n as u32)
    );
    assert_eq!(m.load_u64(base + 8).unwrap(), n << 33);
    assert_eq!(m.load_u32(base + 16).unwrap(), vals.clone().min().unwrap());
    assert_eq!(
        m.load_u32(base + 20).unwrap() as i32,
        vals.clone()
            .map(|v| v.wrapping_sub(40_000) as i32)
            .max()
            .unwrap()
    );
    assert_eq!(
        m.load_u64(base + 32).unwrap() as i64,
        vals.clone()
            .map(|v| ((v as u64) << 20) as i64)
            .min()
            .unwrap()
    );
    let xor = (0..THREADS).fold(0u64, |acc, _| {
        (0..ITERS).fold(acc, |a, i| a ^ (1 << (i % 64)))
    });
    assert_eq!(m.load_u64(base + 40).unwrap(), xor);
    assert_eq!(m.load_u32(base + 48).unwrap() as u64, n % 1000);
}

#[test]
fn a_cmpswap_spin_lock_protects_plain_data_across_threads() {
    let mut m = DeviceMemory::new();
    let lock = m.allocate(8, 8).unwrap();
    let data = m.allocate(16, 8).unwrap();
    let m = &m;
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(move || {
                for _ in 0..ITERS / 4 {
                    // Acquire: cmpswap 0 -> 1 until it returns 0.
                    while m.atomic_u32(lock, AtomicOp::CmpSwap, 1, 0).unwrap() != 0 {
                        std::hint::spin_loop();
                    }
                    // Non-atomic read-modify-write of two words, as a kernel would do.
                    let a = m.load_u64(data).unwrap();
                    let b = m.load_u32(data + 8).unwrap();
                    m.store_u64(data, a + 1).unwrap();
                    m.store_u32(data + 8, b.wrapping_add(7)).unwrap();
                    // Release.
                    m.fence();
                    m.atomic_u32(lock, AtomicOp::Swap, 0, 0).unwrap();
                }
            });
        }
    });
    let n = THREADS * (ITERS / 4);
    assert_eq!(m.load_u64(data).unwrap(), n);
    assert_eq!(m.load_u32(data + 8).unwrap() as u64, 7 * n);
}

#[test]
fn byte_stores_from_different_threads_do_not_clobber_neighbours() {
    // Each thread owns one byte of the same words; sub-word stores must merge.
    let mut m = DeviceMemory::new();
    let base = m.allocate(64, 8).unwrap();
    let m = &m;
    thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for i in 0..ITERS {
                    for w in 0..8 {
                        m.store_u8(base + w * 8 + t, (i as u8).wrapping_add(t as u8))
                            .unwrap();
                    }
                }
            });
        }
    });
    for w in 0..8 {
        for t in 0..THREADS {
            let expect = ((ITERS - 1) as u8).wrapping_add(t as u8);
            assert_eq!(m.load_u8(base + w * 8 + t).unwrap(), expect);
        }
    }
}

#[test]
fn each_operation_matches_its_definition() {
    let mut m = DeviceMemory::new();
    let a = m.allocate(16, 8).unwrap();
    let cases32: &[(AtomicOp, u32, u32, u32, u32)] = &[
        // (op, old, src, cmp, new)
        (AtomicOp::Swap, 5, 9, 0, 9),
        (AtomicOp::CmpSwap, 5, 9, 5, 9),
        (AtomicOp::CmpSwap, 5, 9, 4, 5),
        (AtomicOp::Add, u32::MAX, 2, 0, 1),
        (AtomicOp::Sub, 1, 2, 0, u32::MAX),
        (AtomicOp::And, 0b1100, 0b1010, 0, 0b1000),
        (AtomicOp::Or, 0b1100, 0b1010, 0, 0b1110),
        (AtomicOp::Xor, 0b1100, 0b1010, 0, 0b0110),
        (AtomicOp::MinU, 0xffff_fff0, 3, 0, 3),
        (AtomicOp::MinS, 0xffff_fff0, 3, 0, 0xffff_fff0),
        (AtomicOp::MaxU, 0xffff_fff0, 3, 0, 0xffff_fff0),
        (AtomicOp::MaxS, 0xffff_fff0, 3, 0, 3),
        (AtomicOp::IncWrap, 9, 9, 0, 0),
        (AtomicOp::IncWrap, 8, 9, 0, 9),
        (AtomicOp::DecWrap, 0, 9, 0, 9),
        (AtomicOp::DecWrap, 10, 9, 0, 9),
        (AtomicOp::DecWrap, 5, 9, 0, 4),
        (
            AtomicOp::FAdd,
            1.5f32.to_bits(),
            2.25f32.to_bits(),
            0,
            3.75f32.to_bits(),
        ),
        (
            AtomicOp::FMin,
            1.5f32.to_bits(),
            f32::NAN.to_bits(),
            0,
            1.5f32.to_bits(),
        ),
        (
            AtomicOp::FMax,
            1.5f32.to_bits(),
            2.0f32.to_bits(),
            0,
            2.0f32.to_bits(),
        ),
    ];
    for &(op, old, src, cmp, new) in cases32 {
        // At both halves of a 64-bit word, with a sentinel in the other half.
        for (at, other) in [(a, a + 4), (a + 4, a)] {
            m.store_u32(other, 0xdead_beef).unwrap();
            m.store_u32(at, old).unwrap();
            assert_eq!(m.atomic_u32(at, op, src, cmp).unwrap(), old, "{op:?}");
            assert_eq!(m.load_u32(at).unwrap(), new, "{op:?}");
            assert_eq!(m.load_u32(other).unwrap(), 0xdead_beef, "{op:?}");
        }
    }
    let cases64: &[(AtomicOp, u64, u64, u64, u64)] = &[
        (AtomicOp::CmpSwap, 1 << 40, 7, 1 << 40, 7),
        (AtomicOp::CmpSwap, 1 << 40, 7, 1, 1 << 40),
        (AtomicOp::Add, u64::MAX, 2, 0, 1),
        (AtomicOp::MinS, u64::MAX, 3, 0, u64::MAX),
        (AtomicOp::MaxU, u64::MAX, 3, 0, u64::MAX),
        (AtomicOp::IncWrap, 1 << 40, 1 << 40, 0, 0),
        (
            AtomicOp::FAdd,
            1.5f64.to_bits(),
            0.25f64.to_bits(),
            0,
            1.75f64.to_bits(),
        ),
    ];
    for &(op, old, src, cmp, new) in cases64 {
        m.store_u64(a + 8, old).unwrap();
        assert_eq!(m.atomic_u64(a + 8, op, src, cmp).unwrap(), old, "{op:?}");
        assert_eq!(m.load_u64(a + 8).unwrap(), new, "{op:?}");
    }
    m.store_u32(a, 21).unwrap();
    assert_eq!(m.rmw_u32(a, |v| v * 2 + 1).unwrap(), 21);
    assert_eq!(m.load_u32(a).unwrap(), 43);
}
