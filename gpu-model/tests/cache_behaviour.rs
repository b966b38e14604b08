//! Exact hit/miss/traffic counts of the cache model on small access patterns, per memory
//! type and write policy. Expected counts are worked out by hand from the rules in the
//! module docs (LRU, write-through no-allocate L1, write-back write-allocate L2).

use gpu_model::cache::{AccessKind, Cache, CacheStats, Level, Lookup, MType};
use gpu_model::config::{CacheSpec, WritePolicy};

use AccessKind::{Atomic, Read, Write};

/// 2 sets x 2 ways x 64 B lines = 256 B. Addresses 0, 128, 256, ... map to set 0.
fn spec(policy: WritePolicy) -> CacheSpec {
    CacheSpec {
        size_bytes: 256,
        line_bytes: 64,
        ways: 2,
        latency_cycles: 1,
        write_policy: policy,
        shared_by: 1,
    }
}

fn l1() -> Cache {
    Cache::new(&spec(WritePolicy::WriteThrough), Level::L1).unwrap()
}

fn l2() -> Cache {
    Cache::new(&spec(WritePolicy::WriteBack), Level::L2).unwrap()
}

fn counts(s: &CacheStats) -> (u64, u64, u64) {
    (s.hits, s.misses, s.bypasses)
}

#[test]
fn rw_loads_lru_replacement() {
    let mut c = l1();
    // Set 0 sees lines 0, 128, 256. Pattern: 0 128 0 256 128 0
    //  0 miss | 128 miss | 0 hit (0 MRU) | 256 miss, evicts 128 (LRU) | 128 miss, evicts 0
    //  | 0 miss, evicts 256.
    let pattern = [0u64, 128, 0, 256, 128, 0];
    let got: Vec<Lookup> = pattern
        .iter()
        .map(|&a| c.access(a + 4, 4, Read, MType::Rw).lookup)
        .collect();
    use Lookup::{Hit, Miss};
    assert_eq!(got, [Miss, Miss, Hit, Miss, Miss, Miss]);
    let s = c.stats();
    assert_eq!(counts(s), (1, 5, 0));
    assert_eq!(s.evictions, 3);
    assert_eq!(s.bytes_from_next, 5 * 64);
    assert_eq!(s.writebacks, 0);
    // Set 1 (address 64) is independent.
    assert_eq!(c.access(64, 4, Read, MType::Rw).lookup, Miss);
    assert!(c.contains(64) && c.contains(0) && c.contains(128) && !c.contains(256));
}

#[test]
fn l1_write_through_no_allocate() {
    let mut c = l1();
    // Store miss: not allocated, forwarded.
    let o = c.access(0, 4, Write, MType::Rw);
    assert_eq!((o.lookup, o.forward, o.fill), (Lookup::Miss, true, None));
    assert!(!c.contains(0));
    // Load allocates, then a store hits and is still forwarded; the line stays clean.
    c.access(0, 4, Read, MType::Rw);
    let o = c.access(8, 4, Write, MType::Rw);
    assert_eq!((o.lookup, o.forward), (Lookup::Hit, true));
    assert!(!c.is_dirty(0));
    assert_eq!(c.dirty_lines(), 0);
    let s = c.stats();
    assert_eq!(counts(s), (1, 2, 0));
    assert_eq!((s.reads, s.writes), (1, 2));
    assert_eq!(s.bytes_to_next, 8);
    assert_eq!(s.bytes_from_next, 64);
}

#[test]
fn l1_cc_loads_refetch_every_time() {
    let mut c = l1();
    // CC load of a line already present still misses (the line is dropped first).
    c.access(0, 4, Read, MType::Rw);
    for _ in 0..3 {
        let o = c.access(0, 4, Read, MType::Cc);
        assert_eq!(o.lookup, Lookup::Miss);
        assert_eq!(o.fill, Some(0));
    }
    // The refetched line serves a later RW load.
    assert_eq!(c.access(0, 4, Read, MType::Rw).lookup, Lookup::Hit);
    let s = c.stats();
    assert_eq!(counts(s), (1, 4, 0));
    assert_eq!(s.invalidations, 3);
    assert_eq!(s.bytes_from_next, 4 * 64);
}

#[test]
fn l1_uc_nt_and_atomics_bypass() {
    let mut c = l1();
    c.access(0, 4, Read, MType::Rw);
    assert_eq!(c.access(0, 4, Read, MType::Uc).lookup, Lookup::Bypass);
    assert_eq!(c.access(0, 4, Read, MType::Nt).lookup, Lookup::Bypass);
    assert_eq!(c.access(128, 4, Write, MType::Nt).lookup, Lookup::Bypass);
    assert!(c.contains(0), "a bypassing load leaves the line alone");
    // An atomic bypasses L1 and drops the stale line.
    let o = c.access(0, 4, Atomic, MType::Rw);
    assert_eq!((o.lookup, o.forward), (Lookup::Bypass, true));
    assert!(!c.contains(0));
    assert!(!c.contains(128));
    let s = c.stats();
    assert_eq!(counts(s), (0, 1, 4));
    assert_eq!(s.invalidations, 1);
    assert_eq!(s.bytes_from_next, 64 + 4 + 4 + 4);
    assert_eq!(s.bytes_to_next, 4 + 4);
}

#[test]
fn l2_write_back_dirty_eviction_reported() {
    let mut c = l2();
    // Store miss allocates dirty without a fill (byte masks).
    let o = c.access(0, 4, Write, MType::Rw);
    assert_eq!((o.lookup, o.fill, o.forward), (Lookup::Miss, None, false));
    assert!(c.is_dirty(0));
    c.access(128, 4, Read, MType::Rw); // miss, clean
    c.access(128, 4, Read, MType::Rw); // hit: 128 is MRU, 0 is LRU
                                       // 256 evicts dirty line 0: the write-back is reported.
    let o = c.access(256, 4, Read, MType::Rw);
    assert_eq!(o.lookup, Lookup::Miss);
    assert_eq!(o.fill, Some(256));
    assert_eq!(o.writeback, Some(0));
    // 384 evicts clean 128: nothing to write back.
    let o = c.access(384, 4, Read, MType::Rw);
    assert_eq!(o.writeback, None);
    let s = c.stats();
    assert_eq!(counts(s), (1, 4, 0));
    assert_eq!(s.evictions, 2);
    assert_eq!(s.writebacks, 1);
    assert_eq!(s.bytes_to_next, 64);
    assert_eq!(s.bytes_from_next, 3 * 64);
}

#[test]
fn l2_write_back_all_and_invalidate_all() {
    let mut c = l2();
    c.access(0, 4, Write, MType::Rw);
    c.access(64, 4, Write, MType::Rw);
    c.access(128, 4, Read, MType::Rw);
    assert_eq!(c.dirty_lines(), 2);
    let mut wb = Vec::new();
    c.write_back_all(|l| wb.push(l));
    wb.sort_unstable();
    assert_eq!(wb, [0, 64]);
    assert_eq!(c.dirty_lines(), 0);
    assert!(
        c.contains(0) && c.contains(64),
        "buffer_wbl2 keeps the lines"
    );
    // Nothing left to write back; the lines are dropped.
    c.access(0, 4, Write, MType::Rw); // hit, dirty again
    let mut wb = Vec::new();
    c.invalidate_all(|l| wb.push(l));
    assert_eq!(wb, [0]);
    assert!(!c.contains(0) && !c.contains(64) && !c.contains(128));
    let s = c.stats();
    assert_eq!(s.writebacks, 3);
    assert_eq!(s.invalidations, 3);
    assert_eq!(c.access(0, 4, Read, MType::Rw).lookup, Lookup::Miss);
}

#[test]
fn l2_cc_stores_write_through_and_uc_bypasses() {
    let mut c = l2();
    c.access(0, 4, Read, MType::Rw);
    // CC load at L2 is cached normally.
    assert_eq!(c.access(0, 4, Read, MType::Cc).lookup, Lookup::Hit);
    // CC store: written through, line stays clean.
    let o = c.access(0, 4, Write, MType::Cc);
    assert_eq!((o.lookup, o.forward), (Lookup::Hit, true));
    assert!(!c.is_dirty(0));
    // UC bypasses the L2 entirely.
    let o = c.access(128, 4, Read, MType::Uc);
    assert_eq!((o.lookup, o.forward), (Lookup::Bypass, true));
    assert!(!c.contains(128));
    let s = c.stats();
    assert_eq!(counts(s), (2, 1, 1));
    assert_eq!(s.bytes_to_next, 4);
}

#[test]
fn l2_nt_lines_are_next_victims() {
    let mut c = l2();
    c.access(0, 4, Read, MType::Rw); // set 0: [0]
    c.access(128, 4, Read, MType::Nt); // set 0: [0, 128(stream)]
                                       // NT is cached in L2: a second NT load hits.
    assert_eq!(c.access(128, 4, Read, MType::Nt).lookup, Lookup::Hit);
    // ... and, having been touched by an NT hit, it is MRU now; re-stream it.
    c.invalidate_line(128);
    c.access(128, 4, Read, MType::Nt);
    // 256 replaces the streamed line, not the older RW line 0.
    c.access(256, 4, Read, MType::Rw);
    assert!(c.contains(0));
    assert!(!c.contains(128));
    assert!(c.contains(256));
    let s = c.stats();
    assert_eq!(counts(s), (1, 4, 0));
}

#[test]
fn l2_atomics_execute_here() {
    let mut c = l2();
    // Atomic miss fetches the line (needs the old value) and leaves it dirty.
    let o = c.access(0, 4, Atomic, MType::Rw);
    assert_eq!(
        (o.lookup, o.fill, o.forward),
        (Lookup::Miss, Some(0), false)
    );
    assert!(c.is_dirty(0));
    assert_eq!(c.access(0, 4, Atomic, MType::Rw).lookup, Lookup::Hit);
    // System-scope atomics (UC) go past the L2.
    assert_eq!(c.access(0, 4, Atomic, MType::Uc).lookup, Lookup::Bypass);
    let s = c.stats();
    assert_eq!(s.atomics, 3);
    assert_eq!(counts(s), (1, 1, 1));
}

#[test]
fn memory_side_cache_ignores_mtype() {
    let spec = spec(WritePolicy::WriteBack);
    let mut c = Cache::new(&spec, Level::MemorySide).unwrap();
    assert_eq!(c.access(0, 4, Read, MType::Uc).lookup, Lookup::Miss);
    assert_eq!(c.access(0, 4, Read, MType::Nt).lookup, Lookup::Hit);
    assert_eq!(c.stats().hit_rate(), 0.5);
}

#[test]
fn bad_geometry_is_an_error() {
    let mut s = spec(WritePolicy::WriteBack);
    s.size_bytes = 192; // 1.5 sets
    assert!(Cache::new(&s, Level::L2).is_err());
    let mut s = spec(WritePolicy::WriteBack);
    s.line_bytes = 48;
    assert!(Cache::new(&s, Level::L2).is_err());
}

#[test]
fn preset_caches_build() {
    for name in gpu_model::config::PRESET_NAMES {
        let cfg = gpu_model::config::GpuConfig::preset(name).unwrap();
        let cu = &cfg.xcd.cu;
        Cache::new(&cu.vector_cache, Level::L1).unwrap();
        Cache::new(&cu.scalar_cache, Level::L1).unwrap();
        Cache::new(&cfg.xcd.l2, Level::L2).unwrap();
        if let Some(m) = &cfg.iod.mall {
            Cache::new(m, Level::MemorySide).unwrap();
        }
    }
}

#[test]
fn state_survives_a_checkpoint_round_trip() {
    let mut c = l2();
    for a in [0u64, 64, 128, 256, 320] {
        c.access(a, 4, Write, MType::Rw);
    }
    c.access(128, 4, Read, MType::Nt);
    let bytes = serde_json::to_vec(&c).unwrap();
    let mut back: Cache = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(back, c);
    // Both continue identically.
    for a in [384u64, 0, 448, 64, 128] {
        assert_eq!(
            back.access(a, 4, Read, MType::Rw),
            c.access(a, 4, Read, MType::Rw)
        );
    }
    assert_eq!(back.stats(), c.stats());
}
