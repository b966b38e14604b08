//! Buffered memory domains against a plain model: random stores, loads and atomics from
//! several compute units' domains, with sync points in between. A domain must read device
//! memory as of the last sync plus its own writes; a sync publishes every domain's bytes in
//! domain order and then performs the atomics in (time, domain, issue order) order, and a
//! wave re-executing its atomics gets their old values in issue order.

use gpu_model::memory::coherence::Coherence;
use gpu_model::memory::{AtomicOp, DeviceMemory, MemView};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

const SIZE: usize = 512;
const DOMAINS: usize = 3;

#[derive(Debug, Clone)]
enum Step {
    Store {
        d: usize,
        off: usize,
        width: usize,
        value: u64,
    },
    Load {
        d: usize,
        off: usize,
        width: usize,
    },
    Atomic {
        d: usize,
        wave: u64,
        slot: usize,
        op: u8,
        src: u32,
    },
    Sync,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..DOMAINS, 0..SIZE - 8, prop::sample::select(vec![1usize, 2, 4, 8]), any::<u64>())
            .prop_map(|(d, off, width, value)| Step::Store { d, off, width, value }),
        4 => (0..DOMAINS, 0..SIZE - 8, prop::sample::select(vec![1usize, 2, 4, 8]))
            .prop_map(|(d, off, width)| Step::Load { d, off, width }),
        2 => (0..DOMAINS, 0..2u64, 0..8usize, 0..3u8, any::<u32>())
            .prop_map(|(d, wave, slot, op, src)| Step::Atomic { d, wave, slot, op, src }),
        1 => Just(Step::Sync),
    ]
}

fn op_of(k: u8) -> AtomicOp {
    match k {
        0 => AtomicOp::Add,
        1 => AtomicOp::MaxU,
        _ => AtomicOp::Swap,
    }
}

fn apply(k: u8, old: u32, src: u32) -> u32 {
    match k {
        0 => old.wrapping_add(src),
        1 => old.max(src),
        _ => src,
    }
}

/// Key of a pending atomic: (tick, domain, issue order).
type AtomicKey = (u64, usize, u64);
/// A pending atomic: (wave, word offset, op, src).
type AtomicReq = (u64, usize, u8, u32);

/// The reference: device bytes, each domain's own writes, pending atomics, and the old
/// values each wave has yet to take.
#[derive(Default)]
struct Model {
    global: Vec<u8>,
    own: Vec<HashMap<usize, u8>>,
    atomics: BTreeMap<AtomicKey, AtomicReq>,
    results: HashMap<(usize, u64), Vec<u32>>,
}

impl Model {
    fn read(&self, d: usize, off: usize, width: usize) -> u64 {
        (0..width).fold(0u64, |v, k| {
            let b = self.own[d]
                .get(&(off + k))
                .copied()
                .unwrap_or(self.global[off + k]);
            v | u64::from(b) << (8 * k)
        })
    }

    fn sync(&mut self) {
        for d in 0..DOMAINS {
            for (&a, &b) in &self.own[d] {
                self.global[a] = b;
            }
            self.own[d].clear();
        }
        for (&(_, d, _), &(wave, off, op, src)) in &self.atomics {
            let w = &mut self.global[off..off + 4];
            let old = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            w.copy_from_slice(&apply(op, old, src).to_le_bytes());
            self.results.entry((d, wave)).or_default().push(old);
        }
        self.atomics.clear();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn domains_behave_like_the_model(init in prop::collection::vec(any::<u8>(), SIZE),
                                     steps in prop::collection::vec(step(), 1..120)) {
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(SIZE as u64, 256).unwrap();
        mem.write(base, &init).unwrap();
        let coh = Coherence::new(DOMAINS);
        let mut m = Model { global: init, own: vec![HashMap::new(); DOMAINS], ..Model::default() };
        let mut seq = [0u64; DOMAINS];
        for (tick, s) in steps.iter().enumerate() {
            let tick = tick as u64 / 3;
            match *s {
                Step::Store { d, off, width, value } => {
                    let g = coh.domain(d).unwrap();
                    let v = MemView::buffered(&mem, &g, 0, tick);
                    let a = base + off as u64;
                    match width {
                        1 => v.store_u8(a, value as u8).unwrap(),
                        2 => v.store_u16(a, value as u16).unwrap(),
                        4 => v.store_u32(a, value as u32).unwrap(),
                        _ => v.store_dwords(a, &[value as u32, (value >> 32) as u32]).unwrap(),
                    }
                    for k in 0..width {
                        m.own[d].insert(off + k, (value >> (8 * k)) as u8);
                    }
                }
                Step::Load { d, off, width } => {
                    let g = coh.domain(d).unwrap();
                    let v = MemView::buffered(&mem, &g, 0, tick);
                    let a = base + off as u64;
                    let got = match width {
                        1 => u64::from(v.load_u8(a).unwrap()),
                        2 => u64::from(v.load_u16(a).unwrap()),
                        4 => u64::from(v.load_u32(a).unwrap()),
                        _ => {
                            let mut w = [0u32; 2];
                            v.load_dwords(a, &mut w).unwrap();
                            u64::from(w[0]) | u64::from(w[1]) << 32
                        }
                    };
                    prop_assert_eq!(got, m.read(d, off, width), "load {} bytes at {}", width, off);
                }
                Step::Atomic { d, wave, slot, op, src } => {
                    // A wave with old values still to take re-executes instead: take one.
                    let g = coh.domain(d).unwrap();
                    let v = MemView::buffered(&mem, &g, wave, tick);
                    let off = slot * 4;
                    let a = base + off as u64;
                    let pending = m.results.get_mut(&(d, wave)).filter(|q| !q.is_empty());
                    if let Some(q) = pending {
                        prop_assert!(v.replaying());
                        let want = q.remove(0);
                        prop_assert_eq!(v.atomic_u32(a, op_of(op), src, 0).unwrap(), want);
                        prop_assert!(!v.take_deferred());
                    } else {
                        prop_assert!(!v.replaying());
                        v.atomic_u32(a, op_of(op), src, 0).unwrap();
                        prop_assert!(v.take_deferred());
                        m.atomics.insert((tick, d, seq[d]), (wave, off, op, src));
                        seq[d] += 1;
                    }
                }
                Step::Sync => {
                    coh.sync(&mem);
                    m.sync();
                    let mut all = vec![0u8; SIZE];
                    mem.read(base, &mut all).unwrap();
                    prop_assert_eq!(&all, &m.global);
                }
            }
        }
    }
}
