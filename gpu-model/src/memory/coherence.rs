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

    /// Calls `f` with the address and bytes of every dirty run, in address order.
    fn runs(&self, mut f: impl FnMut(u64, &[u8])) {
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
            f(base + start as u64, &self.data[start..end]);
            b = end;
        }
    }

    /// Writes every dirty run to `mem` and clears the mask.
    fn publish(&mut self, mem: &DeviceMemory) {
        // Validated when buffered; memory freed since (between runs) drops the bytes.
        self.runs(|a, d| {
            let _ = mem.write(a, d);
        });
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

    /// Moves the buffered bytes (as runs, tagged with domain `d`) and the pending atomics
    /// into `out`, and forgets them here.
    fn ship(&mut self, d: u32, out: &mut Shipment) {
        for mut c in self.chunks.drain(..) {
            c.runs(|addr, data| {
                out.writes.push(ShippedWrite {
                    domain: d,
                    addr,
                    data: data.to_vec(),
                })
            });
            c.dirty.fill(0);
            self.spare.push(c);
        }
        self.index.clear();
        self.last = (u64::MAX, u32::MAX);
        out.atomics
            .extend(self.atomics.drain(..).map(|atomic| (d, atomic)));
    }
}

/// What the compute units of one replica of device memory did since the last sync point:
/// their buffered bytes (as runs) and their pending atomics, each tagged with its domain.
///
/// When device memory is replicated (one copy per process of a simulation spread over
/// several processes, each running some of the CUs), every replica takes its shipment at a
/// sync point ([`Coherence::take_shipment`]), the replicas exchange them, and each applies
/// all of them ([`Coherence::apply_shipments`]) in the order [`Coherence::sync`] uses on one
/// copy: bytes in domain order, then atomics in (issue time, domain, issue order) order.
/// Every replica then holds the bytes one copy would, and each CU gets the old values of
/// its own atomics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shipment {
    writes: Vec<ShippedWrite>,
    atomics: Vec<(u32, PendingAtomic)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ShippedWrite {
    domain: u32,
    addr: u64,
    #[serde(with = "crate::soc::checkpoint::blob")]
    data: Vec<u8>,
}

impl Shipment {
    /// Nothing to ship.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty() && self.atomics.is_empty()
    }

    /// The shipment as bytes for the wire (MessagePack).
    pub fn to_bytes(&self) -> Result<Vec<u8>, ShipmentError> {
        rmp_serde::to_vec(self).map_err(|e| ShipmentError(e.to_string()))
    }

    /// A shipment from [`Shipment::to_bytes`]; malformed bytes are an error.
    pub fn from_bytes(b: &[u8]) -> Result<Shipment, ShipmentError> {
        rmp_serde::from_slice(b).map_err(|e| ShipmentError(e.to_string()))
    }
}

/// A [`Shipment`] that could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("memory shipment: {0}")]
pub struct ShipmentError(String);

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

    /// This replica's side of a sync point when device memory is replicated (see
    /// [`Shipment`]): takes every domain's buffered bytes and pending atomics out, without
    /// touching memory. Old values recorded for waves stay.
    pub fn take_shipment(&self) -> Shipment {
        let guards = self.all();
        let mut out = Shipment::default();
        for (d, g) in guards.iter().enumerate() {
            g.borrow_mut().ship(d as u32, &mut out);
        }
        out
    }

    /// Applies every replica's shipment for one sync point to `mem`, the same on every
    /// replica: bytes in (domain, shipment) order, then atomics in (issue time, domain,
    /// issue order) order, as [`Coherence::sync`] on one copy. The old values of the
    /// atomics in `shipments[own]` (this replica's) are recorded for their waves; the
    /// others' only change memory. A shipment naming a domain this SoC does not have is
    /// refused before anything changes.
    pub fn apply_shipments(
        &self,
        mem: &DeviceMemory,
        shipments: &[Shipment],
        own: usize,
    ) -> Result<(), ShipmentError> {
        let n = self.domains.len();
        for (i, s) in shipments.iter().enumerate() {
            let bad = s
                .writes
                .iter()
                .map(|w| w.domain)
                .chain(s.atomics.iter().map(|a| a.0))
                .find(|&d| d as usize >= n);
            if let Some(d) = bad {
                return Err(ShipmentError(format!(
                    "shipment {i} names memory domain {d}, this SoC has {n}"
                )));
            }
        }
        let mut writes: Vec<(u32, usize, &ShippedWrite)> = shipments
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.writes.iter().map(move |w| (w.domain, i, w)))
            .collect();
        // Stable: within a domain the runs keep their order (they never overlap).
        writes.sort_by_key(|w| (w.0, w.1));
        for (_, _, w) in writes {
            // Validated when buffered; memory freed since drops the bytes, as in `sync`.
            let _ = mem.write(w.addr, &w.data);
        }
        let mut atomics: Vec<(u64, u32, u64, usize, &PendingAtomic)> = shipments
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.atomics
                    .iter()
                    .map(move |(d, a)| (a.tick, *d, a.seq, i, a))
            })
            .collect();
        if atomics.is_empty() {
            return Ok(());
        }
        atomics.sort_unstable_by_key(|a| (a.0, a.1, a.2, a.3));
        let guards = self.all();
        for (_, d, _, i, pa) in atomics {
            let a = pa.req;
            let old = if a.wide {
                mem.atomic_u64(a.addr, a.op, a.src, a.cmp).unwrap_or(0)
            } else {
                mem.atomic_u32(a.addr, a.op, a.src as u32, a.cmp as u32)
                    .map_or(0, u64::from)
            };
            if i == own {
                let mut dom = guards[d as usize].borrow_mut();
                match dom.results.iter_mut().find(|(w, _)| *w == pa.wave) {
                    Some((_, q)) => q.push_back(old),
                    None => dom.results.push((pa.wave, VecDeque::from([old]))),
                }
            }
        }
        Ok(())
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

    /// One buffered operation of the replication test: domain, then a write of `len`
    /// bytes of `val` at `off`, or an atomic (op index, wide) at `off` rounded to its size.
    type Op = (u32, bool, u64, usize, u64, u8, bool, u64);

    fn apply_op(coh: &Coherence, buf: u64, (d, atomic, off, len, val, op, wide, tick): Op) {
        let g = coh.domain(d as usize).unwrap();
        let mut dom = g.borrow_mut();
        if atomic {
            let ops = [
                AtomicOp::Add,
                AtomicOp::Swap,
                AtomicOp::CmpSwap,
                AtomicOp::MaxU,
                AtomicOp::Xor,
            ];
            let size = if wide { 8 } else { 4 };
            let req = AtomicReq {
                addr: buf + (off & !(size - 1)),
                op: ops[op as usize % ops.len()],
                wide,
                src: val,
                cmp: val & 3,
            };
            // Waves 0..3 of each domain: wave numbers are the domain's own.
            dom.push_atomic(tick, u64::from(op % 3), req);
        } else {
            let bytes: Vec<u8> = (0..len)
                .map(|k| (val as u8).wrapping_add(k as u8))
                .collect();
            dom.write(buf + off, &bytes);
        }
    }

    fn results(coh: &Coherence, domains: impl Iterator<Item = usize>) -> Vec<Vec<u64>> {
        domains
            .map(|d| {
                let g = coh.domain(d).unwrap();
                let mut dom = g.borrow_mut();
                (0..3u64)
                    .flat_map(|w| std::iter::from_fn(|| dom.take_result(w)).collect::<Vec<_>>())
                    .collect()
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]
        /// Replicas of device memory, each running some of the domains and exchanging
        /// shipments (through their wire bytes) at every sync point, end with the bytes and
        /// atomic old values of one copy synced the ordinary way: overlapping writes of
        /// different domains, chunk-crossing runs and atomics issued at the same time by
        /// several domains included.
        #[test]
        fn replicas_exchanging_shipments_match_one_copy(
            rounds in proptest::collection::vec(
                proptest::collection::vec(
                    (0u32..5, proptest::bool::ANY, 0u64..(2 * CHUNK as u64 - 64), 1usize..48,
                     proptest::num::u64::ANY, 0u8..15, proptest::bool::ANY, 0u64..4),
                    0..24,
                ),
                1..4,
            ),
            replicas in 2usize..4,
        ) {
            const DOMAINS: usize = 5;
            let setup = || {
                let mut mem = DeviceMemory::new();
                let buf = mem.allocate(2 * CHUNK as u64, 256).unwrap();
                (mem, buf, Coherence::new(DOMAINS))
            };
            let (one, buf, one_coh) = setup();
            let mut reps: Vec<_> = (0..replicas).map(|_| setup()).collect();
            let owner = |d: u32| d as usize % replicas;
            let mut one_results = Vec::new();
            let mut rep_results = vec![Vec::new(); DOMAINS];
            for ops in &rounds {
                for &op in ops {
                    apply_op(&one_coh, buf, op);
                    let (_, b, coh) = &reps[owner(op.0)];
                    apply_op(coh, *b, op);
                }
                one_coh.sync(&one);
                one_results.push(results(&one_coh, 0..DOMAINS));
                let wire: Vec<Vec<u8>> = reps
                    .iter()
                    .map(|(_, _, c)| c.take_shipment().to_bytes().unwrap())
                    .collect();
                let shipments: Vec<Shipment> = wire
                    .iter()
                    .map(|b| Shipment::from_bytes(b).unwrap())
                    .collect();
                for (r, (mem, _, coh)) in reps.iter_mut().enumerate() {
                    coh.apply_shipments(mem, &shipments, r).unwrap();
                    proptest::prop_assert!(coh.domain(0).unwrap().borrow().chunks.is_empty());
                }
                for (d, out) in rep_results.iter_mut().enumerate() {
                    out.push(results(&reps[owner(d as u32)].2, d..d + 1).remove(0));
                }
            }
            let mut want = vec![0u8; 2 * CHUNK];
            one.read(buf, &mut want).unwrap();
            for (mem, b, _) in &reps {
                let mut got = vec![0u8; 2 * CHUNK];
                mem.read(*b, &mut got).unwrap();
                proptest::prop_assert!(got == want, "a replica's bytes differ from one copy's");
            }
            for (d, got) in rep_results.iter().enumerate() {
                let want: Vec<Vec<u64>> = one_results.iter().map(|r| r[d].clone()).collect();
                proptest::prop_assert_eq!(got, &want, "old values of domain {}", d);
            }
        }
    }

    #[test]
    fn a_shipment_naming_a_missing_domain_is_refused() {
        let mut mem = DeviceMemory::new();
        let buf = mem.allocate(64, 64).unwrap();
        let big = Coherence::new(3);
        big.domain(2).unwrap().borrow_mut().write(buf, &[1, 2]);
        let s = big.take_shipment();
        assert!(!s.is_empty());
        let small = Coherence::new(2);
        let e = small.apply_shipments(&mem, &[s], 0).unwrap_err();
        assert!(e.to_string().contains("domain 2"), "{e}");
        assert_eq!(mem.load_u16(buf).unwrap(), 0);
        assert!(Shipment::from_bytes(&[0xc1]).is_err());
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
