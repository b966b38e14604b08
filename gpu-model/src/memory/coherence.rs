//! Deterministic visibility of device memory between compute units: each CU's writes and
//! atomics are buffered in its own [`Domain`] and published to device memory at sync
//! points, the same on any number of host threads.
//!
//! Why: compute units in different simulation partitions run on different host threads.
//! If they wrote device memory directly, what a CU spinning on a flag reads in a window of
//! simulated time would depend on how the threads happened to interleave, and so would
//! spin counts, statistics and, for racy kernels, results. With buffering, the rule is a
//! function of simulated time only:
//!
//! * A CU sees device memory as of the last sync point, plus its own writes since then.
//! * At each sync point (a multiple of `GpuConfig::sync_cycles` shader cycles; simkit's
//!   [`set_sync_points`](simkit::engine::Simulation::set_sync_points) runs the hook with no
//!   CU running) every CU's buffered bytes are written to device memory in CU order, then
//!   every buffered atomic is performed in (time, CU, issue order) order.
//! * An atomic is performed at the sync point after it issues; its wave waits until then
//!   (it cannot observe the old value earlier, and nothing it does after the atomic can be
//!   ordered before it). The wave then re-executes the instruction, which takes the
//!   recorded old values lane by lane instead of touching memory again.
//!
//! This is a legal behaviour of the GPU memory model: stores become visible to other
//! agents after a bounded delay, atomics to one address are totally ordered, and a wave's
//! own accesses stay in program order (its loads see its buffered stores). Kernels that
//! synchronise correctly (release/acquire, atomics, barriers) get the same results as
//! with immediate visibility; racy ones get one legal interleaving, always the same.
//! Scratch, LDS and kernel arguments are unaffected in effect (only their owner reads
//! them, or the host wrote them before the dispatch).

use super::{AtomicOp, DeviceMemory};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

/// log2 of the buffering granule.
const CHUNK_SHIFT: u32 = 12;
/// Bytes per buffered chunk.
const CHUNK: usize = 1 << CHUNK_SHIFT;
/// 64-bit words of a chunk's dirty mask (one bit per byte).
const MASK_WORDS: usize = CHUNK / 64;

/// Hashes chunk numbers (already well spread in their low bits) with one multiply.
#[derive(Default)]
struct ChunkHasher(u64);

impl Hasher for ChunkHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type ChunkMap = HashMap<u64, u32, BuildHasherDefault<ChunkHasher>>;

/// A chunk of buffered bytes.
#[derive(Debug)]
struct Chunk {
    /// Chunk number (address >> CHUNK_SHIFT).
    no: u64,
    data: Box<[u8; CHUNK]>,
    dirty: Box<[u64; MASK_WORDS]>,
}

impl Chunk {
    fn new(no: u64) -> Chunk {
        Chunk {
            no,
            data: Box::new([0; CHUNK]),
            dirty: Box::new([0; MASK_WORDS]),
        }
    }

    /// Overwrites `out` with the dirty bytes of `[off, off + out.len())`.
    #[inline]
    fn patch(&self, off: usize, out: &mut [u8]) {
        for (k, o) in out.iter_mut().enumerate() {
            let b = off + k;
            if self.dirty[b >> 6] >> (b & 63) & 1 != 0 {
                *o = self.data[b];
            }
        }
    }

    /// Whether any byte of `[off, off + n)` is dirty (n <= 64).
    #[inline]
    fn any_dirty(&self, off: usize, n: usize) -> bool {
        let (w, sh) = (off >> 6, off & 63);
        let lo = self.dirty[w] >> sh;
        let hi = if sh != 0 && w + 1 < MASK_WORDS {
            self.dirty[w + 1] << (64 - sh)
        } else {
            0
        };
        let mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        (lo | hi) & mask != 0
    }

    fn write(&mut self, off: usize, data: &[u8]) {
        self.data[off..off + data.len()].copy_from_slice(data);
        for b in off..off + data.len() {
            self.dirty[b >> 6] |= 1 << (b & 63);
        }
    }

    /// Writes every dirty run to `mem` and clears the mask.
    fn publish(&mut self, mem: &DeviceMemory) {
        let base = self.no << CHUNK_SHIFT;
        let mut b = 0usize;
        while b < CHUNK {
            let w = self.dirty[b >> 6] >> (b & 63);
            if w == 0 {
                b = (b | 63) + 1;
                continue;
            }
            let start = b + w.trailing_zeros() as usize;
            let mut end = start;
            while end < CHUNK && self.dirty[end >> 6] >> (end & 63) & 1 != 0 {
                end += 1;
            }
            // Validated when buffered; memory freed since (between runs) drops the bytes.
            let _ = mem.write(base + start as u64, &self.data[start..end]);
            b = end;
        }
        self.dirty.fill(0);
    }
}

/// One lane's atomic: what to do where.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtomicReq {
    /// Address (naturally aligned; checked at issue).
    pub addr: u64,
    /// Operation.
    pub op: AtomicOp,
    /// 64-bit (else 32-bit).
    pub wide: bool,
    /// Operand.
    pub src: u64,
    /// Compare value (compare-and-swap).
    pub cmp: u64,
}

/// An atomic waiting for the next sync point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct PendingAtomic {
    /// Issue time (ticks) and order within the domain.
    tick: u64,
    seq: u64,
    /// The issuing wave (see [`Domain`]).
    wave: u64,
    req: AtomicReq,
}

/// One compute unit's buffered writes and atomics, and the old values of its performed
/// atomics not yet taken by their waves. Waves are named by a number the CU gives each
/// wave it starts.
#[derive(Debug, Default)]
pub struct Domain {
    chunks: Vec<Chunk>,
    index: ChunkMap,
    /// Chunks kept for reuse after a sync point.
    spare: Vec<Chunk>,
    /// Last lookup: (chunk number, position or u32::MAX for "not buffered").
    last: (u64, u32),
    atomics: Vec<PendingAtomic>,
    seq: u64,
    /// Old values of performed atomics, per wave, in issue order.
    results: Vec<(u64, VecDeque<u64>)>,
    /// An atomic was buffered since the last [`Domain::take_deferred`].
    deferred: bool,
}

impl Domain {
    /// Nothing buffered and nothing waiting.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty() && self.atomics.is_empty() && self.results.is_empty()
    }

    #[inline]
    fn find(&mut self, no: u64) -> Option<usize> {
        if self.last.0 != no {
            let pos = self.index.get(&no).copied().unwrap_or(u32::MAX);
            self.last = (no, pos);
        }
        (self.last.1 != u32::MAX).then_some(self.last.1 as usize)
    }

    /// Overwrites `out` (read from device memory at `addr`) with this domain's buffered
    /// bytes.
    #[inline]
    pub fn patch(&mut self, addr: u64, out: &mut [u8]) {
        if self.chunks.is_empty() {
            return;
        }
        let mut done = 0usize;
        while done < out.len() {
            let a = addr.wrapping_add(done as u64);
            let off = (a as usize) & (CHUNK - 1);
            let n = (out.len() - done).min(CHUNK - off);
            if let Some(i) = self.find(a >> CHUNK_SHIFT) {
                let c = &self.chunks[i];
                if n > 64 || c.any_dirty(off, n) {
                    c.patch(off, &mut out[done..done + n]);
                }
            }
            done += n;
        }
    }

    /// Buffers `data` at `addr` (already checked to be writable).
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0usize;
        while done < data.len() {
            let a = addr.wrapping_add(done as u64);
            let off = (a as usize) & (CHUNK - 1);
            let n = (data.len() - done).min(CHUNK - off);
            let no = a >> CHUNK_SHIFT;
            let i = match self.find(no) {
                Some(i) => i,
                None => {
                    let mut c = self.spare.pop().unwrap_or_else(|| Chunk::new(no));
                    c.no = no;
                    self.chunks.push(c);
                    let i = self.chunks.len() - 1;
                    self.index.insert(no, i as u32);
                    self.last = (no, i as u32);
                    i
                }
            };
            self.chunks[i].write(off, &data[done..done + n]);
            done += n;
        }
    }

    /// The next recorded old value for `wave`, if its atomics have been performed.
    pub fn take_result(&mut self, wave: u64) -> Option<u64> {
        let k = self.results.iter().position(|(w, _)| *w == wave)?;
        let v = self.results[k].1.pop_front();
        if self.results[k].1.is_empty() {
            self.results.swap_remove(k);
        }
        v
    }

    /// Whether `wave` has performed atomics whose old values it has not taken.
    pub fn has_results(&self, wave: u64) -> bool {
        self.results.iter().any(|(w, _)| *w == wave)
    }

    /// Drops what is kept for waves `alive` does not name (they ended or faulted).
    pub fn retain_results(&mut self, mut alive: impl FnMut(u64) -> bool) {
        self.results.retain(|(w, _)| alive(*w));
    }

    /// Buffers an atomic of `wave` issued at `tick` (the address was checked).
    pub fn push_atomic(&mut self, tick: u64, wave: u64, req: AtomicReq) {
        self.atomics.push(PendingAtomic {
            tick,
            seq: self.seq,
            wave,
            req,
        });
        self.seq += 1;
        self.deferred = true;
    }

    /// Whether an atomic was buffered since the last call (and resets it).
    #[inline]
    pub fn take_deferred(&mut self) -> bool {
        std::mem::take(&mut self.deferred)
    }

    /// Writes the buffered bytes to `mem` and forgets them.
    fn publish(&mut self, mem: &DeviceMemory) {
        for mut c in self.chunks.drain(..) {
            c.publish(mem);
            self.spare.push(c);
        }
        self.index.clear();
        self.last = (u64::MAX, u32::MAX);
    }
}

/// Every compute unit's [`Domain`], in CU order.
#[derive(Debug)]
pub struct Coherence {
    domains: Vec<Mutex<RefCell<Domain>>>,
}

impl Coherence {
    /// `n` empty domains.
    pub fn new(n: usize) -> Coherence {
        Coherence {
            domains: (0..n)
                .map(|_| {
                    Mutex::new(RefCell::new(Domain {
                        last: (u64::MAX, u32::MAX),
                        ..Domain::default()
                    }))
                })
                .collect(),
        }
    }

    /// Number of domains.
    pub fn len(&self) -> usize {
        self.domains.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }

    /// Domain `i`, locked (only its CU and the sync point use it, never at once).
    pub fn domain(&self, i: usize) -> Option<MutexGuard<'_, RefCell<Domain>>> {
        let m = self.domains.get(i)?;
        Some(m.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn all(&self) -> Vec<MutexGuard<'_, RefCell<Domain>>> {
        self.domains
            .iter()
            .map(|m| m.lock().unwrap_or_else(|p| p.into_inner()))
            .collect()
    }

    /// The sync point: publishes every domain's bytes (in domain order), then performs
    /// every buffered atomic in (issue time, domain, issue order) order and records the
    /// old values for their waves.
    pub fn sync(&self, mem: &DeviceMemory) {
        let guards = self.all();
        let mut order = Vec::new();
        for (d, g) in guards.iter().enumerate() {
            let mut dom = g.borrow_mut();
            dom.publish(mem);
            for (k, a) in dom.atomics.iter().enumerate() {
                order.push((a.tick, d, k));
            }
        }
        if order.is_empty() {
            return;
        }
        order.sort_unstable();
        for (_, d, k) in order {
            let mut dom = guards[d].borrow_mut();
            let (wave, a) = (dom.atomics[k].wave, dom.atomics[k].req);
            // The address was checked at issue; memory freed since reads as 0.
            let old = if a.wide {
                mem.atomic_u64(a.addr, a.op, a.src, a.cmp).unwrap_or(0)
            } else {
                mem.atomic_u32(a.addr, a.op, a.src as u32, a.cmp as u32)
                    .map_or(0, u64::from)
            };
            match dom.results.iter_mut().find(|(w, _)| *w == wave) {
                Some((_, q)) => q.push_back(old),
                None => dom.results.push((wave, VecDeque::from([old]))),
            }
        }
        for g in &guards {
            g.borrow_mut().atomics.clear();
        }
    }

    /// Everything buffered, for checkpoints.
    pub fn image(&self) -> CoherenceImage {
        let guards = self.all();
        let domains = guards
            .iter()
            .map(|g| {
                let d = g.borrow();
                let mut chunks: Vec<ChunkImage> = d
                    .chunks
                    .iter()
                    .map(|c| ChunkImage {
                        no: c.no,
                        data: c.data.to_vec(),
                        dirty: c.dirty.to_vec(),
                    })
                    .collect();
                chunks.sort_by_key(|c| c.no);
                DomainImage {
                    chunks,
                    atomics: d.atomics.clone(),
                    seq: d.seq,
                    results: d
                        .results
                        .iter()
                        .map(|(w, q)| (*w, q.iter().copied().collect()))
                        .collect(),
                }
            })
            .collect();
        CoherenceImage { domains }
    }

    /// Replaces everything buffered with `image` (from [`Coherence::image`] of a SoC of
    /// the same shape). A refused image changes nothing.
    pub fn restore(&self, image: &CoherenceImage) -> Result<(), String> {
        let restored = self.prepare(image)?;
        self.install(restored);
        Ok(())
    }

    /// Checks and decodes `image` without changing anything; [`Coherence::install`] then
    /// puts it in place. Split so a whole-SoC restore can check every part before it
    /// changes any.
    pub fn prepare(&self, image: &CoherenceImage) -> Result<RestoredCoherence, String> {
        if image.domains.len() != self.domains.len() {
            return Err(format!(
                "{} memory domains saved, this SoC has {}",
                image.domains.len(),
                self.domains.len()
            ));
        }
        let mut domains = Vec::with_capacity(image.domains.len());
        for di in &image.domains {
            let mut d = Domain {
                last: (u64::MAX, u32::MAX),
                seq: di.seq,
                atomics: di.atomics.clone(),
                results: di
                    .results
                    .iter()
                    .map(|(w, q)| (*w, q.iter().copied().collect()))
                    .collect(),
                ..Domain::default()
            };
            for c in &di.chunks {
                let mut chunk = Chunk::new(c.no);
                let (Ok(data), Ok(dirty)) = (
                    <[u8; CHUNK]>::try_from(c.data.as_slice()),
                    <[u64; MASK_WORDS]>::try_from(c.dirty.as_slice()),
                ) else {
                    return Err(format!("buffered chunk {:#x} has the wrong size", c.no));
                };
                if d.index.insert(c.no, d.chunks.len() as u32).is_some() {
                    return Err(format!("buffered chunk {:#x} is saved twice", c.no));
                }
                *chunk.data = data;
                *chunk.dirty = dirty;
                d.chunks.push(chunk);
            }
            domains.push(d);
        }
        Ok(RestoredCoherence { domains })
    }

    /// Puts in place what [`Coherence::prepare`] decoded (for this same `Coherence`).
    pub fn install(&self, restored: RestoredCoherence) {
        for (g, d) in self.all().iter().zip(restored.domains) {
            *g.borrow_mut() = d;
        }
    }
}

/// A [`CoherenceImage`] checked and decoded by [`Coherence::prepare`], ready to install.
#[derive(Debug)]
pub struct RestoredCoherence {
    domains: Vec<Domain>,
}

/// A saved [`Coherence`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoherenceImage {
    domains: Vec<DomainImage>,
}

impl CoherenceImage {
    /// Number of domains saved.
    pub fn len(&self) -> usize {
        self.domains.len()
    }

    /// Whether none were.
    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct DomainImage {
    chunks: Vec<ChunkImage>,
    atomics: Vec<PendingAtomic>,
    seq: u64,
    results: Vec<(u64, Vec<u64>)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ChunkImage {
    no: u64,
    #[serde(with = "crate::soc::checkpoint::blob")]
    data: Vec<u8>,
    dirty: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemView;

    #[test]
    fn a_domain_sees_its_own_writes_and_others_only_after_a_sync() {
        let mut mem = DeviceMemory::new();
        let buf = mem.allocate(3 * CHUNK as u64, 256).unwrap();
        mem.store_u32(buf + 8, 7).unwrap();
        let coh = Coherence::new(2);
        let (d0, d1) = (coh.domain(0).unwrap(), coh.domain(1).unwrap());
        let (a, b) = (
            MemView::buffered(&mem, &d0, 0, 10),
            MemView::buffered(&mem, &d1, 0, 10),
        );
        // A store crossing a chunk boundary, and a partial overwrite.
        let edge = buf + CHUNK as u64 - 4;
        a.store_dwords(edge, &[1, 2, 3]).unwrap();
        a.store_u8(buf + 9, 0xff).unwrap();
        let mut got = [0u32; 3];
        a.load_dwords(edge, &mut got).unwrap();
        assert_eq!(got, [1, 2, 3]);
        assert_eq!(a.load_u32(buf + 8).unwrap(), 0xff07);
        assert_eq!(b.load_u32(buf + 8).unwrap(), 7);
        assert_eq!(b.load_u64(edge).unwrap(), 0);
        assert_eq!(mem.load_u32(buf + 8).unwrap(), 7);
        // Faulting stores are refused, not buffered.
        assert!(a.store_u32(buf + 3 * CHUNK as u64, 1).is_err());
        drop((d0, d1));
        coh.sync(&mem);
        assert_eq!(mem.load_u32(buf + 8).unwrap(), 0xff07);
        assert_eq!(mem.load_u64(edge).unwrap(), 1 | 2 << 32);
        assert_eq!(mem.load_u32(edge + 8).unwrap(), 3);
        assert!(coh.domain(0).unwrap().borrow().is_empty());
    }

    #[test]
    fn atomics_are_performed_at_the_sync_in_time_then_domain_order() {
        let mut mem = DeviceMemory::new();
        let buf = mem.allocate(64, 64).unwrap();
        let coh = Coherence::new(2);
        {
            let (d0, d1) = (coh.domain(0).unwrap(), coh.domain(1).unwrap());
            // Domain 1 issues first in time; domain 0 issues twice later.
            let b = MemView::buffered(&mem, &d1, 5, 100);
            assert_eq!(b.atomic_u32(buf, AtomicOp::Add, 10, 0).unwrap(), 0);
            assert!(b.take_deferred());
            let a = MemView::buffered(&mem, &d0, 3, 200);
            a.atomic_u32(buf, AtomicOp::Add, 1, 0).unwrap();
            a.atomic_u64(buf + 8, AtomicOp::Swap, 9, 0).unwrap();
            assert!(a.take_deferred() && !a.take_deferred());
            // Not performed yet; a misaligned atomic faults at issue.
            assert_eq!(mem.load_u32(buf).unwrap(), 0);
            assert!(a.atomic_u32(buf + 2, AtomicOp::Add, 1, 0).is_err());
        }
        coh.sync(&mem);
        assert_eq!(mem.load_u32(buf).unwrap(), 11);
        assert_eq!(mem.load_u64(buf + 8).unwrap(), 9);
        let (d0, d1) = (coh.domain(0).unwrap(), coh.domain(1).unwrap());
        let (a, b) = (
            MemView::buffered(&mem, &d0, 3, 300),
            MemView::buffered(&mem, &d1, 5, 300),
        );
        assert!(a.replaying() && b.replaying());
        // Re-executed: the recorded old values, in issue order, without touching memory.
        assert_eq!(b.atomic_u32(buf, AtomicOp::Add, 10, 0).unwrap(), 0);
        assert_eq!(a.atomic_u32(buf, AtomicOp::Add, 1, 0).unwrap(), 10);
        assert_eq!(a.atomic_u64(buf + 8, AtomicOp::Swap, 9, 0).unwrap(), 0);
        assert!(!a.take_deferred() && !a.replaying());
        assert_eq!(mem.load_u32(buf).unwrap(), 11);
    }

    #[test]
    fn buffered_state_survives_an_image_round_trip() {
        let mut mem = DeviceMemory::new();
        let buf = mem.allocate(4096, 256).unwrap();
        let coh = Coherence::new(1);
        {
            let d = coh.domain(0).unwrap();
            let v = MemView::buffered(&mem, &d, 1, 4);
            v.store_u16(buf + 6, 0xabcd).unwrap();
            v.atomic_u32(buf, AtomicOp::Or, 4, 0).unwrap();
        }
        let image = coh.image();
        let other = Coherence::new(1);
        other.restore(&image).unwrap();
        assert_eq!(other.image(), image);
        assert!(Coherence::new(2).restore(&image).is_err());
        other.sync(&mem);
        assert_eq!(mem.load_u16(buf + 6).unwrap(), 0xabcd);
        assert_eq!(mem.load_u32(buf).unwrap(), 4);
    }
}
