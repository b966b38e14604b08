//! Set-associative cache model: tags, LRU and dirty state, per-access memory types, stats.
//!
//! A [`Cache`] tracks which lines are present and dirty; it holds NO data. In functional
//! mode the data lives in device memory, which every access reads and writes directly and
//! which is therefore always coherent; the caches exist to count hits, misses and traffic
//! and, in the timed mode, to decide latencies and the messages sent to the next level.
//! The same `Cache` is the state of a timed component later: [`Cache::access`] says what
//! must travel to the next level ([`Outcome`]) and the caller sends it.
//!
//! Behaviour per memory type ([`MType`], from the instruction's cache-policy bits, see
//! [`policy`]), following the table in the VM design note:
//!
//! | MType | L1 (K$, V$; write-through)                 | L2 (write-back)                     |
//! |-------|--------------------------------------------|-------------------------------------|
//! | RW    | cached                                      | cached, stores dirty the line       |
//! | CC    | loads invalidate the line, then refetch     | cached, stores written through      |
//! | UC    | bypassed                                    | bypassed                            |
//! | NT    | bypassed                                    | cached, inserted as next victim     |
//!
//! Atomics bypass L1 (and invalidate the line there) and execute at L2. A memory-side
//! cache (Infinity Cache / MALL) sits next to DRAM, so it caches every type alike.
//!
//! Design for speed: tags, LRU stamps and dirty bits are flat `Vec`s indexed by
//! `set * ways + way`, allocated once; an access scans one set and allocates nothing.

pub mod policy;

use serde::{Deserialize, Serialize};

use crate::config::{CacheSpec, WritePolicy};

pub use policy::{maintenance, mtype_for, Maintenance, MemOp};

/// How an access may use the caches (AMD's "MTYPE" as chosen per instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum MType {
    /// Read-write cacheable (the default).
    #[default]
    Rw,
    /// Coherently cacheable: L1 lines are refetched on every load.
    Cc,
    /// Uncached: bypasses L1 and L2.
    Uc,
    /// Non-temporal (streaming): bypasses L1, cached in L2 as the next victim.
    Nt,
}

/// The kind of access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store.
    Write,
    /// A read-modify-write atomic.
    Atomic,
}

/// Where a cache sits, which decides how memory types behave in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Level {
    /// Per-CU L1 (scalar K$ or vector V$).
    L1,
    /// Per-XCD L2.
    L2,
    /// Memory-side cache in an IOD (Infinity Cache / MALL).
    MemorySide,
}

/// What happened at this cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lookup {
    /// The line was present and served the access.
    Hit,
    /// The line was absent (or, for CC loads, dropped first).
    Miss,
    /// The access did not use this cache.
    Bypass,
}

/// The result of one access: what the caller must send to the next level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Hit, miss or bypass.
    pub lookup: Lookup,
    /// Line address to read from the next level (a fill after a read miss).
    pub fill: Option<u64>,
    /// The access itself goes on to the next level (write-through store, bypass, atomic
    /// executed further out).
    pub forward: bool,
    /// Line address of a dirty victim that must be written back.
    pub writeback: Option<u64>,
}

/// Counters kept by every cache, in functional mode too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CacheStats {
    /// Accesses served by a present line.
    pub hits: u64,
    /// Accesses that found no usable line.
    pub misses: u64,
    /// Accesses that did not use this cache (UC, NT at L1, atomics at L1).
    pub bypasses: u64,
    /// Loads seen (hit, miss or bypass).
    pub reads: u64,
    /// Stores seen.
    pub writes: u64,
    /// Atomics seen.
    pub atomics: u64,
    /// Valid lines replaced to make room.
    pub evictions: u64,
    /// Dirty lines written to the next level (evictions and write-back-all).
    pub writebacks: u64,
    /// Lines dropped by invalidation (invalidate-all, CC loads, atomics at L1).
    pub invalidations: u64,
    /// Bytes read from the next level (line fills and forwarded loads/atomics).
    pub bytes_from_next: u64,
    /// Bytes written to the next level (write-through, forwarded stores, write-backs).
    pub bytes_to_next: u64,
}

impl CacheStats {
    /// Hits over hits plus misses (bypasses excluded); 0 when there were none.
    pub fn hit_rate(&self) -> f64 {
        let looked = self.hits + self.misses;
        if looked == 0 {
            0.0
        } else {
            self.hits as f64 / looked as f64
        }
    }

    /// Adds `other` into `self` (to sum the caches of one level).
    pub fn merge(&mut self, other: &CacheStats) {
        self.hits += other.hits;
        self.misses += other.misses;
        self.bypasses += other.bypasses;
        self.reads += other.reads;
        self.writes += other.writes;
        self.atomics += other.atomics;
        self.evictions += other.evictions;
        self.writebacks += other.writebacks;
        self.invalidations += other.invalidations;
        self.bytes_from_next += other.bytes_from_next;
        self.bytes_to_next += other.bytes_to_next;
    }
}

/// Tag marking an invalid way (no real line address has all bits set: addresses are
/// line-aligned, so the low bits of a real tag are zero).
const INVALID: u64 = u64::MAX;
/// LRU stamp of an invalid way: below everything, so it is filled first.
const INVALID_STAMP: u64 = 0;
/// LRU stamp of a streaming (NT) fill: the next victim after invalid ways.
const STREAM_STAMP: u64 = 1;
/// Stamps of touched lines start above the two special values.
const FIRST_STAMP: u64 = 2;

/// One set-associative cache instance. Serializable, for checkpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    level: Level,
    policy: WritePolicy,
    ways: usize,
    line_shift: u32,
    set_mask: u64,
    /// Line address per way, `INVALID` when empty.
    tags: Vec<u64>,
    /// LRU stamp per way: larger is more recent (see `allocate` for the low values).
    stamps: Vec<u64>,
    /// Dirty flag per way.
    dirty: Vec<bool>,
    clock: u64,
    stats: CacheStats,
}

/// Errors building a cache from a spec. Fatal for that cache.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// The geometry is not a power-of-two number of sets of power-of-two lines.
    #[error("cache geometry {size} bytes / {line} B lines / {ways} ways is not a power-of-two number of sets")]
    Geometry {
        /// Size in bytes.
        size: u64,
        /// Line size.
        line: u32,
        /// Ways.
        ways: u32,
    },
}

impl Cache {
    /// A cold cache with the geometry and write policy of `spec`, sitting at `level`.
    pub fn new(spec: &CacheSpec, level: Level) -> Result<Cache, CacheError> {
        let bad = || CacheError::Geometry {
            size: spec.size_bytes,
            line: spec.line_bytes,
            ways: spec.ways,
        };
        let sets = spec.sets();
        if spec.ways == 0
            || !spec.line_bytes.is_power_of_two()
            || !sets.is_power_of_two()
            || sets * u64::from(spec.line_bytes) * u64::from(spec.ways) != spec.size_bytes
        {
            return Err(bad());
        }
        let lines = usize::try_from(sets * u64::from(spec.ways)).map_err(|_| bad())?;
        Ok(Cache {
            level,
            policy: spec.write_policy,
            ways: spec.ways as usize,
            line_shift: spec.line_bytes.trailing_zeros(),
            set_mask: sets - 1,
            tags: vec![INVALID; lines],
            stamps: vec![INVALID_STAMP; lines],
            dirty: vec![false; lines],
            clock: FIRST_STAMP,
            stats: CacheStats::default(),
        })
    }

    /// Line size in bytes.
    pub fn line_bytes(&self) -> u64 {
        1 << self.line_shift
    }

    /// The statistics so far.
    pub fn stats(&self) -> &CacheStats {
        &self.stats
    }

    /// Clears the statistics (the lines stay).
    pub fn reset_stats(&mut self) {
        self.stats = CacheStats::default();
    }

    /// The line-aligned address containing `addr`.
    pub fn line_of(&self, addr: u64) -> u64 {
        addr & !(self.line_bytes() - 1)
    }

    /// Whether the line containing `addr` is present.
    pub fn contains(&self, addr: u64) -> bool {
        let line = self.line_of(addr);
        self.find(self.set_base(line), line).is_some()
    }

    /// Whether the line containing `addr` is present and dirty.
    pub fn is_dirty(&self, addr: u64) -> bool {
        let line = self.line_of(addr);
        self.find(self.set_base(line), line)
            .is_some_and(|i| self.dirty[i])
    }

    /// Number of dirty lines.
    pub fn dirty_lines(&self) -> usize {
        self.dirty.iter().filter(|d| **d).count()
    }

    /// One access of `bytes` bytes at `addr` (which must not cross a line; the caller
    /// splits wider accesses). See the module docs for the behaviour per memory type.
    pub fn access(&mut self, addr: u64, bytes: u32, kind: AccessKind, mtype: MType) -> Outcome {
        match kind {
            AccessKind::Read => self.stats.reads += 1,
            AccessKind::Write => self.stats.writes += 1,
            AccessKind::Atomic => self.stats.atomics += 1,
        }
        let line = self.line_of(addr);
        let bytes = u64::from(bytes);
        let bypass = match (self.level, mtype, kind) {
            (Level::MemorySide, _, _) => false,
            (_, MType::Uc, _) => true,
            (Level::L1, MType::Nt, _) | (Level::L1, _, AccessKind::Atomic) => true,
            _ => false,
        };
        if bypass {
            self.stats.bypasses += 1;
            if self.level == Level::L1 && kind == AccessKind::Atomic {
                // The atomic changes memory behind this L1: drop the stale copy.
                self.invalidate_line(line);
            }
            match kind {
                AccessKind::Read => self.stats.bytes_from_next += bytes,
                AccessKind::Write => self.stats.bytes_to_next += bytes,
                AccessKind::Atomic => {
                    self.stats.bytes_to_next += bytes;
                    self.stats.bytes_from_next += bytes;
                }
            }
            return Outcome {
                lookup: Lookup::Bypass,
                fill: None,
                forward: true,
                writeback: None,
            };
        }
        match kind {
            AccessKind::Read => self.read(line, mtype),
            AccessKind::Write | AccessKind::Atomic => self.write(line, bytes, kind, mtype),
        }
    }

    fn read(&mut self, line: u64, mtype: MType) -> Outcome {
        let base = self.set_base(line);
        let mut hit = self.find(base, line);
        if self.level == Level::L1 && mtype == MType::Cc {
            // CC loads must observe other CUs' stores, which went through to L2:
            // drop the line and refetch.
            if let Some(i) = hit.take() {
                self.drop_way(i);
            }
        }
        if let Some(i) = hit {
            self.stats.hits += 1;
            self.touch(i);
            return Outcome {
                lookup: Lookup::Hit,
                fill: None,
                forward: false,
                writeback: None,
            };
        }
        self.stats.misses += 1;
        self.stats.bytes_from_next += self.line_bytes();
        let streaming = mtype == MType::Nt;
        let (_, writeback) = self.allocate(base, line, streaming);
        Outcome {
            lookup: Lookup::Miss,
            fill: Some(line),
            forward: false,
            writeback,
        }
    }

    fn write(&mut self, line: u64, bytes: u64, kind: AccessKind, mtype: MType) -> Outcome {
        let base = self.set_base(line);
        let hit = self.find(base, line);
        let lookup = if hit.is_some() {
            self.stats.hits += 1;
            Lookup::Hit
        } else {
            self.stats.misses += 1;
            Lookup::Miss
        };
        let write_back = self.policy == WritePolicy::WriteBack && mtype != MType::Cc;
        if !write_back {
            // Write-through, no write-allocate: update a present line, pass the store on.
            if let Some(i) = hit {
                self.touch(i);
            }
            self.stats.bytes_to_next += bytes;
            if kind == AccessKind::Atomic {
                // The atomic executes further out and its old value comes back.
                self.stats.bytes_from_next += bytes;
            }
            return Outcome {
                lookup,
                fill: None,
                forward: true,
                writeback: None,
            };
        }
        // Write-back, write-allocate. Stores carry byte masks, so a store miss allocates
        // without reading the line; an atomic needs the old data and fetches the line.
        let (i, writeback, fill) = match hit {
            Some(i) => {
                self.touch(i);
                (i, None, None)
            }
            None => {
                let (i, wb) = self.allocate(base, line, mtype == MType::Nt);
                let fill = (kind == AccessKind::Atomic).then_some(line);
                if fill.is_some() {
                    self.stats.bytes_from_next += self.line_bytes();
                }
                (i, wb, fill)
            }
        };
        self.dirty[i] = true;
        Outcome {
            lookup,
            fill,
            forward: false,
            writeback,
        }
    }

    /// Drops every line. Dirty lines are written back first and reported to `on_writeback`
    /// (line address), so no store is lost (write-back-and-invalidate).
    pub fn invalidate_all(&mut self, mut on_writeback: impl FnMut(u64)) {
        for i in 0..self.tags.len() {
            if self.tags[i] == INVALID {
                continue;
            }
            if self.dirty[i] {
                self.write_back_way(i, &mut on_writeback);
            }
            self.drop_way(i);
        }
    }

    /// Writes back every dirty line (reported to `on_writeback`) and keeps it, clean
    /// (`buffer_wbl2`, `global_wb`).
    pub fn write_back_all(&mut self, mut on_writeback: impl FnMut(u64)) {
        for i in 0..self.tags.len() {
            if self.tags[i] != INVALID && self.dirty[i] {
                self.write_back_way(i, &mut on_writeback);
            }
        }
    }

    /// Drops the line containing `addr` if present, writing it back first if dirty.
    pub fn invalidate_line(&mut self, addr: u64) -> Option<u64> {
        let line = self.line_of(addr);
        let i = self.find(self.set_base(line), line)?;
        let mut wb = None;
        if self.dirty[i] {
            self.write_back_way(i, &mut |l| wb = Some(l));
        }
        self.drop_way(i);
        wb
    }

    fn write_back_way(&mut self, i: usize, on_writeback: &mut impl FnMut(u64)) {
        self.dirty[i] = false;
        self.stats.writebacks += 1;
        self.stats.bytes_to_next += self.line_bytes();
        on_writeback(self.tags[i]);
    }

    fn set_base(&self, line: u64) -> usize {
        // The set index fits in usize: it is below `tags.len() / ways`.
        ((line >> self.line_shift) & self.set_mask) as usize * self.ways
    }

    fn find(&self, base: usize, line: u64) -> Option<usize> {
        self.tags[base..base + self.ways]
            .iter()
            .position(|&t| t == line)
            .map(|w| base + w)
    }

    fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.stamps[i] = self.clock;
    }

    /// Puts `line` into its set, evicting the LRU way. Invalid ways have stamp 0 and
    /// streaming (NT) fills stamp 1, below every touched line (stamps from 2 up), so one
    /// minimum search picks an invalid way first, then the oldest streaming line, then
    /// the LRU line; ties go to the lowest way. Returns the way and the line to write
    /// back if the victim was dirty.
    fn allocate(&mut self, base: usize, line: u64, streaming: bool) -> (usize, Option<u64>) {
        let stamps = &self.stamps[base..base + self.ways];
        let mut victim = 0;
        for (w, &st) in stamps.iter().enumerate() {
            if st < stamps[victim] {
                victim = w;
            }
        }
        let victim = base + victim;
        let mut writeback = None;
        if self.tags[victim] != INVALID {
            self.stats.evictions += 1;
            if self.dirty[victim] {
                self.write_back_way(victim, &mut |l| writeback = Some(l));
            }
        }
        self.tags[victim] = line;
        self.dirty[victim] = false;
        if streaming {
            self.stamps[victim] = STREAM_STAMP;
        } else {
            self.touch(victim);
        }
        (victim, writeback)
    }

    /// Marks way `i` empty.
    fn drop_way(&mut self, i: usize) {
        self.tags[i] = INVALID;
        self.stamps[i] = INVALID_STAMP;
        self.dirty[i] = false;
        self.stats.invalidations += 1;
    }
}
