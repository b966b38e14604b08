//! Device memory: the GPU virtual address space the simulated kernels read and write.
//!
//! ```text
//!  addr (48-bit canonical)
//!  ┌─────────── 47..32 ──────────┬──── 31..16 ────┬─── 15..0 ───┐
//!  │ directory index (32 Ki)     │ page (64 Ki)   │ page offset │
//!  └─────────────────────────────┴────────────────┴─────────────┘
//!      dirs[i] ──► [Option<Page>; 65536] ──► 64 KiB of AtomicU64 words (lazy)
//! ```
//!
//! * Allocations get stable, page-aligned addresses from `0x1000_0000_0000` upward, each
//!   followed by an unmapped guard page. Address ranges are never handed out twice by
//!   [`DeviceMemory::allocate`], so a use after free faults as [`FaultKind::Freed`] instead
//!   of silently reading someone else's data. [`DeviceMemory::allocate_at`] maps at a fixed
//!   address (for a driver that picks virtual addresses itself).
//! * Every access resolves its page with two table loads and no hashing; accesses that fit
//!   in one page (nearly all) take that fast path. For the executor's lane loops:
//!   [`DeviceMemory::cursor`] caches the last page (one compare per lane after the first),
//!   and [`PageCursor::store_dwords`] / [`DeviceMemory::store_dwords`] store whole 64-bit
//!   words with plain stores, which is several times cheaper than one `store_u32` per
//!   lane (a lone 4-byte store must merge into its word with a compare-exchange).
//! * Faults are values ([`MemFault`]): unmapped, past the end of an allocation (exact to
//!   the byte, not just the page), freed, misaligned atomic.
//! * Sharing: accesses take `&self` and are safe from many threads at once (see
//!   [`page`](self::page) for why every word is an atomic). Atomic operations are real
//!   read-modify-writes, so spin locks across compute units work. Structural changes
//!   (allocate, free, load a code object) take `&mut self`: they happen between dispatches
//!   or behind the caller's lock.
//! * Checkpoints: [`DeviceMemory`] is `Serialize`/`Deserialize` through [`MemorySnapshot`]
//!   (allocations plus the contents of written, non-zero pages).
//! * Host memory (USERPTR/GTT buffers: AQL rings, signals, kernargs the host process owns)
//!   is mapped in place with [`DeviceMemory::map_host`] ([`host`]): accesses that miss the
//!   page tables look there before they fault.
//!
//! ```
//! use gpu_model::memory::DeviceMemory;
//! let mut mem = DeviceMemory::new();
//! let buf = mem.allocate(1024, 256).unwrap();
//! mem.store_u32(buf + 8, 0xdead_beef).unwrap();
//! assert_eq!(mem.load_u32(buf + 8).unwrap(), 0xdead_beef);
//! assert!(mem.load_u32(buf + 1022).is_err()); // runs past the end
//! ```

mod atomic;
mod code_object;
pub mod coherence;
mod fault;
pub mod host;
pub(crate) mod page;
#[cfg(feature = "mpi")]
pub mod replica;
mod snapshot;
mod view;

pub use atomic::AtomicOp;
pub use code_object::{ImageError, LoadedCodeObject, LoadedKernel};
pub use fault::{Access, FaultKind, MemFault, MemoryError};
pub use page::{PAGE_SHIFT, PAGE_SIZE};
pub use snapshot::{AllocationSnapshot, MemorySnapshot, PageSnapshot};
pub use view::MemView;

use page::Page;
use std::collections::BTreeMap;

/// The one place the memory's atomics come from, so a model checker can substitute its own.
mod sync {
    pub(crate) use std::sync::atomic::{fence, AtomicU64, Ordering};
}

/// First address [`DeviceMemory::allocate`] hands out.
pub const HEAP_START: u64 = 0x0000_1000_0000_0000;
/// One past the highest device address (the lower half of the 48-bit canonical space).
pub const ADDRESS_LIMIT: u64 = 0x0000_8000_0000_0000;

/// The largest single allocation (64 GiB). Page bookkeeping costs about 40 bytes per
/// 64 KiB page when the allocation is made (storage only when written), so absurd sizes are
/// refused rather than attempted.
pub const MAX_ALLOCATION: u64 = 64 << 30;

/// Pages per directory (address bits 31..16).
const DIR_PAGES: usize = 1 << 16;
/// Directories (address bits 46..32).
const DIRS: usize = (ADDRESS_LIMIT >> 32) as usize;
/// Page offset mask.
const PAGE_MASK: u64 = PAGE_SIZE - 1;

/// Identifies an allocation (stable across checkpoints).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct AllocationId(pub u64);

/// A live allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllocationInfo {
    /// Its id.
    pub id: AllocationId,
    /// Its base address (page aligned).
    pub base: u64,
    /// Its size in bytes as requested (accesses past it fault).
    pub size: u64,
    /// The alignment it was requested with.
    pub align: u64,
}

impl AllocationInfo {
    /// One past its last byte.
    pub fn end(&self) -> u64 {
        self.base + self.size
    }
}

/// A page directory: the pages of one 4 GiB region.
type Dir = Box<[Option<Page>; DIR_PAGES]>;

/// The device's memory. See the module documentation.
#[derive(Debug)]
pub struct DeviceMemory {
    dirs: Box<[Option<Dir>]>,
    allocs: BTreeMap<u64, AllocationInfo>,
    freed: BTreeMap<u64, u64>,
    next_va: u64,
    next_id: u64,
    /// Host ranges mapped in place, by device address ([`host`]).
    host: BTreeMap<u64, host::HostRegion>,
    /// Bytes the live allocations may take in all (the device's memory size).
    capacity: u64,
    /// Bytes the live allocations take, each rounded up to whole pages.
    in_use: u64,
}

impl Default for DeviceMemory {
    fn default() -> Self {
        DeviceMemory::new()
    }
}

/// Rounds `v` up to a multiple of `align` (a power of two), or `None` on overflow.
fn align_up(v: u64, align: u64) -> Option<u64> {
    Some(v.checked_add(align - 1)? & !(align - 1))
}

impl DeviceMemory {
    /// An empty address space.
    pub fn new() -> DeviceMemory {
        DeviceMemory {
            dirs: (0..DIRS).map(|_| None).collect(),
            allocs: BTreeMap::new(),
            freed: BTreeMap::new(),
            next_va: HEAP_START,
            next_id: 1,
            host: BTreeMap::new(),
            capacity: u64::MAX,
            in_use: 0,
        }
    }

    /// An empty address space whose live allocations may take `capacity` bytes in all
    /// (each counted in whole pages): a device with that much memory.
    pub fn with_capacity(capacity: u64) -> DeviceMemory {
        DeviceMemory {
            capacity,
            ..DeviceMemory::new()
        }
    }

    /// Bytes the live allocations may take in all.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Sets the [`DeviceMemory::capacity`]; allocations already made stay, later ones must
    /// fit. (For memory restored from a snapshot, which does not carry it.)
    pub fn set_capacity(&mut self, capacity: u64) {
        self.capacity = capacity;
    }

    /// Bytes the live allocations take (whole pages).
    pub fn in_use(&self) -> u64 {
        self.in_use
    }

    /// Refuses `size` more bytes past the capacity.
    fn check_capacity(&self, size: u64) -> Result<(), MemoryError> {
        let pages = align_up(size, PAGE_SIZE).unwrap_or(u64::MAX);
        if self.in_use.saturating_add(pages) > self.capacity {
            return Err(MemoryError::OutOfMemory {
                size,
                in_use: self.in_use,
                capacity: self.capacity,
            });
        }
        Ok(())
    }

    // ---- allocation ----

    /// Allocates `size` bytes aligned to `align` (a power of two; the base is always at
    /// least page aligned). The memory reads as zeros.
    pub fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError> {
        if size == 0 {
            return Err(MemoryError::ZeroSize);
        }
        if !align.is_power_of_two() {
            return Err(MemoryError::BadAlignment(align));
        }
        if size > MAX_ALLOCATION {
            return Err(MemoryError::TooLarge {
                size,
                max: MAX_ALLOCATION,
            });
        }
        self.check_capacity(size)?;
        let align = align.max(PAGE_SIZE);
        let oom = MemoryError::OutOfAddressSpace { size, align };
        // The mapped pages plus one unmapped guard page after them.
        let span = align_up(size, PAGE_SIZE)
            .and_then(|s| s.checked_add(PAGE_SIZE))
            .ok_or(oom.clone())?;
        let mut base = align_up(self.next_va, align).ok_or(oom.clone())?;
        loop {
            let end = base.checked_add(span).filter(|&e| e <= ADDRESS_LIMIT);
            let end = end.ok_or(oom.clone())?;
            match self.overlapping(base, end) {
                // Skip past whatever is mapped there (fixed-address mappings).
                Some(taken_end) => {
                    base = align_up(taken_end + PAGE_SIZE, align).ok_or(oom.clone())?;
                }
                None => {
                    self.next_va = end;
                    self.map(base, size, align);
                    return Ok(base);
                }
            }
        }
    }

    /// Maps `size` bytes at the fixed, page-aligned address `base` (zeroed). Refuses ranges
    /// that overlap a live allocation.
    pub fn allocate_at(&mut self, base: u64, size: u64) -> Result<u64, MemoryError> {
        let bad = |reason| MemoryError::BadFixedAddress { base, size, reason };
        if size == 0 {
            return Err(MemoryError::ZeroSize);
        }
        if base & PAGE_MASK != 0 {
            return Err(bad("base is not 64 KiB aligned"));
        }
        if size > MAX_ALLOCATION {
            return Err(MemoryError::TooLarge {
                size,
                max: MAX_ALLOCATION,
            });
        }
        self.check_capacity(size)?;
        let end = align_up(size, PAGE_SIZE)
            .and_then(|s| base.checked_add(s))
            .filter(|&e| e <= ADDRESS_LIMIT && base > 0)
            .ok_or_else(|| bad("range is outside the device address space"))?;
        if self.overlapping(base, end).is_some() {
            return Err(bad("range overlaps a live allocation"));
        }
        // A reused range is no longer "freed".
        let stale: Vec<u64> = self
            .freed
            .range(..end)
            .filter(|(&b, &s)| b + s > base)
            .map(|(&b, _)| b)
            .collect();
        for b in stale {
            self.freed.remove(&b);
        }
        self.map(base, size, PAGE_SIZE);
        Ok(base)
    }

    /// Frees the allocation whose base is `base`. Later accesses to it fault as
    /// [`FaultKind::Freed`].
    pub fn free(&mut self, base: u64) -> Result<(), MemoryError> {
        let info = self
            .allocs
            .remove(&base)
            .ok_or(MemoryError::NotAllocated(base))?;
        for page_no in (base >> PAGE_SHIFT)..=((info.end() - 1) >> PAGE_SHIFT) {
            if let Some(slot) = self.slot_mut(page_no) {
                *slot = None;
            }
        }
        self.freed.insert(base, info.size);
        self.in_use -= info.size.div_ceil(PAGE_SIZE) * PAGE_SIZE;
        Ok(())
    }

    /// The live allocation containing `addr`.
    pub fn allocation_at(&self, addr: u64) -> Option<AllocationInfo> {
        self.allocs
            .range(..=addr)
            .next_back()
            .map(|(_, a)| *a)
            .filter(|a| addr < a.end())
    }

    /// The mapped range (`start`, `end`) containing `addr`: its allocation or host range.
    pub fn range_at(&self, addr: u64) -> Option<(u64, u64)> {
        self.allocation_at(addr)
            .map(|a| (a.base, a.end()))
            .or_else(|| self.host_range_at(addr))
    }

    /// Every live allocation, by address.
    pub fn allocations(&self) -> impl Iterator<Item = &AllocationInfo> {
        self.allocs.values()
    }

    /// End of the live allocation (rounded to pages) or host range overlapping
    /// `[start, end)`, if any. Host ranges have no pages: they end where they end (KFD
    /// USERPTR buffers are 4 KiB-granular and sit next to each other).
    fn overlapping(&self, start: u64, end: u64) -> Option<u64> {
        let host = self
            .host
            .range(..end)
            .next_back()
            .map(|(&va, h)| va + h.len)
            .filter(|&e| e > start);
        let alloc = self
            .allocs
            .range(..end)
            .next_back()
            .map(|(_, a)| align_up(a.end(), PAGE_SIZE).unwrap_or(ADDRESS_LIMIT))
            .filter(|&e| e > start);
        alloc.max(host)
    }

    /// Creates the pages of a new allocation (the range was checked to be free).
    fn map(&mut self, base: u64, size: u64, align: u64) {
        let id = AllocationId(self.next_id);
        self.next_id += 1;
        let first = base >> PAGE_SHIFT;
        let count = size.div_ceil(PAGE_SIZE);
        // Callers checked the capacity; the sum of live allocations fits in it.
        self.in_use += count * PAGE_SIZE;
        for i in 0..count {
            let valid = (size - i * PAGE_SIZE).min(PAGE_SIZE) as u32;
            let dir = self.dirs[((first + i) >> 16) as usize].get_or_insert_with(|| {
                let slots: Box<[Option<Page>]> = (0..DIR_PAGES).map(|_| None).collect();
                match slots.try_into() {
                    Ok(dir) => dir,
                    // The iterator above yields exactly DIR_PAGES slots.
                    Err(_) => unreachable!("a directory has DIR_PAGES slots"),
                }
            });
            dir[((first + i) & 0xffff) as usize] = Some(Page::new(valid, id));
        }
        self.allocs.insert(
            base,
            AllocationInfo {
                id,
                base,
                size,
                align,
            },
        );
    }

    fn slot_mut(&mut self, page_no: u64) -> Option<&mut Option<Page>> {
        let dir = self.dirs.get_mut((page_no >> 16) as usize)?.as_mut()?;
        dir.get_mut((page_no & 0xffff) as usize)
    }

    // ---- page resolution ----

    /// The page containing `addr`, if mapped.
    #[inline(always)]
    fn page(&self, addr: u64) -> Option<&Page> {
        let dir = self.dirs.get((addr >> 32) as usize)?.as_deref()?;
        dir[((addr >> PAGE_SHIFT) & 0xffff) as usize].as_ref()
    }

    /// The fast path: the page and offset of an `n`-byte access that lies within one page
    /// of an allocation. `None` sends the caller to the slow path.
    #[inline(always)]
    fn resolve(&self, addr: u64, n: usize) -> Option<(&Page, usize)> {
        let p = self.page(addr)?;
        let off = (addr & PAGE_MASK) as usize;
        (off + n <= p.valid_len as usize).then_some((p, off))
    }

    /// Explains why `size` bytes at `addr` cannot be accessed.
    fn fault(&self, addr: u64, size: u64, access: Access) -> MemFault {
        let kind = if addr >= ADDRESS_LIMIT {
            FaultKind::NonCanonical
        } else if let Some(a) = self
            .allocs
            .range(..=addr)
            .next_back()
            .map(|(_, a)| a)
            // Inside the allocation, or past its end but still on its last page.
            .filter(|a| addr < a.end() || self.page(addr).is_some())
        {
            FaultKind::OutOfBounds {
                base: a.base,
                size: a.size,
            }
        } else if let Some((&base, &size)) = self
            .freed
            .range(..=addr)
            .next_back()
            .filter(|(&b, &s)| addr < b + s)
        {
            FaultKind::Freed { base, size }
        } else {
            FaultKind::Unmapped
        };
        MemFault {
            addr,
            size,
            access,
            kind,
        }
    }

    /// Calls `f(page, page offset, buffer range)` for each page-sized piece of the access
    /// `[addr, addr + len)`, after checking that all of it lies in one allocation.
    fn for_each_piece(
        &self,
        addr: u64,
        len: usize,
        access: Access,
        mut f: impl FnMut(&Page, usize, std::ops::Range<usize>),
    ) -> Result<(), MemFault> {
        let fault = || self.fault(addr, len as u64, access);
        let first = self.page(addr).ok_or_else(fault)?;
        let mut done = 0usize;
        while done < len {
            let a = addr.checked_add(done as u64).ok_or_else(fault)?;
            let p = self
                .page(a)
                .filter(|p| p.alloc == first.alloc)
                .ok_or_else(fault)?;
            let off = (a & PAGE_MASK) as usize;
            if off >= p.valid_len as usize {
                return Err(fault());
            }
            let n = (len - done).min(p.valid_len as usize - off);
            f(p, off, done..done + n);
            done += n;
        }
        Ok(())
    }

    /// Checks that `len` bytes at `addr` may be accessed (`access`) without touching them
    /// (also used before a write changes anything, so a faulting store leaves memory
    /// untouched).
    #[inline]
    pub fn check(&self, addr: u64, len: usize, access: Access) -> Result<(), MemFault> {
        if self.resolve(addr, len).is_some() || self.host_at(addr, len as u64).is_some() {
            return Ok(());
        }
        self.for_each_piece(addr, len, access, |_, _, _| {})
    }

    // ---- bulk copies ----

    /// Copies device memory at `addr` into `out`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        if let Some((va, h)) = self.host_at(addr, out.len() as u64) {
            self.host_read(va, h, addr, out);
            return Ok(());
        }
        self.for_each_piece(addr, out.len(), Access::Read, |p, off, r| {
            p.read_bytes(off, &mut out[r]);
        })
    }

    /// Copies `data` into device memory at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        if let Some((va, h)) = self.host_at(addr, data.len() as u64) {
            self.host_write(va, h, addr, data);
            return Ok(());
        }
        self.check(addr, data.len(), Access::Write)?;
        self.for_each_piece(addr, data.len(), Access::Write, |p, off, r| {
            p.write_bytes(off, &data[r]);
        })
    }

    /// Sets `len` bytes at `addr` to `byte`.
    pub fn fill(&self, addr: u64, byte: u8, len: usize) -> Result<(), MemFault> {
        if let Some((va, h)) = self.host_at(addr, len as u64) {
            self.host_write(va, h, addr, &vec![byte; len]);
            return Ok(());
        }
        self.check(addr, len, Access::Write)?;
        let chunk = [byte; 4096];
        self.for_each_piece(addr, len, Access::Write, |p, off, r| {
            let mut o = off;
            let mut left = r.len();
            while left > 0 {
                let n = left.min(chunk.len());
                p.write_bytes(o, &chunk[..n]);
                o += n;
                left -= n;
            }
        })
    }

    /// Copies `len` bytes from `src` to `dst` (device to device; the ranges may overlap).
    pub fn copy(&self, dst: u64, src: u64, len: usize) -> Result<(), MemFault> {
        self.check(dst, len, Access::Write)?;
        // Through a host buffer: simple, and correct for overlapping ranges.
        let mut buf = vec![0u8; len];
        self.read(src, &mut buf)?;
        self.write(dst, &buf)
    }

    // ---- typed accesses (the executor's hot path) ----

    /// Loads `n` (1..=8) little-endian bytes.
    #[inline(always)]
    fn load_n(&self, addr: u64, n: usize) -> Result<u64, MemFault> {
        match self.resolve(addr, n) {
            Some((p, off)) => Ok(p.load(off, n)),
            None => self.load_slow(addr, n),
        }
    }

    /// Loads that cross a page or fault: kept out of line so the fast path inlines small.
    #[cold]
    #[inline(never)]
    fn load_slow(&self, addr: u64, n: usize) -> Result<u64, MemFault> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b[..n])?;
        Ok(u64::from_le_bytes(b))
    }

    /// Stores the low `n` (1..=8) bytes of `v`.
    #[inline(always)]
    fn store_n(&self, addr: u64, n: usize, v: u64) -> Result<(), MemFault> {
        match self.resolve(addr, n) {
            Some((p, off)) => {
                p.store(off, n, v);
                Ok(())
            }
            None => self.store_slow(addr, n, v),
        }
    }

    /// Stores that cross a page or fault.
    #[cold]
    #[inline(never)]
    fn store_slow(&self, addr: u64, n: usize, v: u64) -> Result<(), MemFault> {
        self.write(addr, &v.to_le_bytes()[..n])
    }

    /// Loads a byte.
    #[inline]
    pub fn load_u8(&self, addr: u64) -> Result<u8, MemFault> {
        self.load_n(addr, 1).map(|v| v as u8)
    }
    /// Loads a little-endian u16 (any alignment).
    #[inline]
    pub fn load_u16(&self, addr: u64) -> Result<u16, MemFault> {
        self.load_n(addr, 2).map(|v| v as u16)
    }
    /// Loads a little-endian u32 (any alignment).
    #[inline]
    pub fn load_u32(&self, addr: u64) -> Result<u32, MemFault> {
        self.load_n(addr, 4).map(|v| v as u32)
    }
    /// Loads a little-endian u64 (any alignment).
    #[inline]
    pub fn load_u64(&self, addr: u64) -> Result<u64, MemFault> {
        self.load_n(addr, 8)
    }
    /// Loads a little-endian u128 (a 16-byte lane access: `dwordx4`).
    #[inline]
    pub fn load_u128(&self, addr: u64) -> Result<u128, MemFault> {
        if let Some((p, off)) = self.resolve(addr, 16) {
            return Ok(p.load(off, 8) as u128 | (p.load(off + 8, 8) as u128) << 64);
        }
        let mut b = [0u8; 16];
        self.read(addr, &mut b)?;
        Ok(u128::from_le_bytes(b))
    }
    /// Stores a byte.
    #[inline]
    pub fn store_u8(&self, addr: u64, v: u8) -> Result<(), MemFault> {
        self.store_n(addr, 1, v as u64)
    }
    /// Stores a little-endian u16.
    #[inline]
    pub fn store_u16(&self, addr: u64, v: u16) -> Result<(), MemFault> {
        self.store_n(addr, 2, v as u64)
    }
    /// Stores a little-endian u32.
    #[inline]
    pub fn store_u32(&self, addr: u64, v: u32) -> Result<(), MemFault> {
        self.store_n(addr, 4, v as u64)
    }
    /// Stores a little-endian u64.
    #[inline]
    pub fn store_u64(&self, addr: u64, v: u64) -> Result<(), MemFault> {
        self.store_n(addr, 8, v)
    }
    /// Stores a little-endian u128.
    #[inline]
    pub fn store_u128(&self, addr: u64, v: u128) -> Result<(), MemFault> {
        if let Some((p, off)) = self.resolve(addr, 16) {
            p.store(off, 8, v as u64);
            p.store(off + 8, 8, (v >> 64) as u64);
            return Ok(());
        }
        self.write(addr, &v.to_le_bytes())
    }

    /// Loads `out.len()` (at most 16) consecutive dwords (a `dwordxN` lane access).
    #[inline]
    pub fn load_dwords(&self, addr: u64, out: &mut [u32]) -> Result<(), MemFault> {
        let n = out.len() * 4;
        if let Some((p, off)) = self.resolve(addr, n) {
            p.load_dwords(off, out);
            return Ok(());
        }
        let mut b = [0u8; 64];
        let b = b
            .get_mut(..n)
            .ok_or(self.fault(addr, n as u64, Access::Read))?;
        self.read(addr, b)?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    /// Stores consecutive dwords (at most 16: a `dwordxN` lane access). All or nothing: a
    /// faulting store writes no dword.
    #[inline]
    pub fn store_dwords(&self, addr: u64, data: &[u32]) -> Result<(), MemFault> {
        let n = data.len() * 4;
        if let Some((p, off)) = self.resolve(addr, n) {
            p.store_dwords(off, data);
            return Ok(());
        }
        let mut b = [0u8; 64];
        let b = b
            .get_mut(..n)
            .ok_or(self.fault(addr, n as u64, Access::Write))?;
        for (c, d) in b.chunks_exact_mut(4).zip(data) {
            c.copy_from_slice(&d.to_le_bytes());
        }
        self.write(addr, b)
    }

    /// A cursor that caches the last page it resolved: use one per wave memory instruction.
    pub fn cursor(&self) -> PageCursor<'_> {
        PageCursor {
            mem: self,
            page_no: u64::MAX,
            page: None,
        }
    }

    /// A full (sequentially consistent) fence: what the executor does for release/acquire
    /// fences and cache invalidations, so plain accesses before it are visible to other
    /// compute units' accesses after their own fence.
    pub fn fence(&self) {
        sync::fence(sync::Ordering::SeqCst);
    }
}

/// Caches the page of the previous access (see [`DeviceMemory::cursor`]). Lanes of a wave
/// usually touch the same page, so most accesses skip the table walk.
#[derive(Debug)]
pub struct PageCursor<'m> {
    mem: &'m DeviceMemory,
    page_no: u64,
    page: Option<&'m Page>,
}

impl<'m> PageCursor<'m> {
    #[inline(always)]
    fn resolve(&mut self, addr: u64, n: usize) -> Option<(&'m Page, usize)> {
        let page_no = addr >> PAGE_SHIFT;
        if page_no != self.page_no {
            self.page = self.mem.page(addr);
            self.page_no = page_no;
        }
        let p = self.page?;
        let off = (addr & PAGE_MASK) as usize;
        (off + n <= p.valid_len as usize).then_some((p, off))
    }

    /// Loads a little-endian u32.
    #[inline]
    pub fn load_u32(&mut self, addr: u64) -> Result<u32, MemFault> {
        match self.resolve(addr, 4) {
            Some((p, off)) => Ok(p.load(off, 4) as u32),
            None => self.mem.load_u32(addr),
        }
    }

    /// Loads a little-endian u64.
    #[inline]
    pub fn load_u64(&mut self, addr: u64) -> Result<u64, MemFault> {
        match self.resolve(addr, 8) {
            Some((p, off)) => Ok(p.load(off, 8)),
            None => self.mem.load_u64(addr),
        }
    }

    /// Loads consecutive dwords (at most 16).
    #[inline]
    pub fn load_dwords(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemFault> {
        match self.resolve(addr, out.len() * 4) {
            Some((p, off)) => {
                p.load_dwords(off, out);
                Ok(())
            }
            None => self.mem.load_dwords(addr, out),
        }
    }

    /// Stores consecutive dwords (at most 16), all or nothing.
    #[inline]
    pub fn store_dwords(&mut self, addr: u64, data: &[u32]) -> Result<(), MemFault> {
        match self.resolve(addr, data.len() * 4) {
            Some((p, off)) => {
                p.store_dwords(off, data);
                Ok(())
            }
            None => self.mem.store_dwords(addr, data),
        }
    }

    /// Stores a little-endian u32.
    #[inline]
    pub fn store_u32(&mut self, addr: u64, v: u32) -> Result<(), MemFault> {
        match self.resolve(addr, 4) {
            Some((p, off)) => {
                p.store(off, 4, v as u64);
                Ok(())
            }
            None => self.mem.store_u32(addr, v),
        }
    }

    /// Stores a little-endian u64.
    #[inline]
    pub fn store_u64(&mut self, addr: u64, v: u64) -> Result<(), MemFault> {
        match self.resolve(addr, 8) {
            Some((p, off)) => {
                p.store(off, 8, v);
                Ok(())
            }
            None => self.mem.store_u64(addr, v),
        }
    }
}
