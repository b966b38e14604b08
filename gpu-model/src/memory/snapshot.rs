//! Checkpoints of device memory: allocations and the contents of written pages.

use super::page::Page;
use super::sync::Ordering;
use super::{AllocationInfo, DeviceMemory, MemoryError, PAGE_SHIFT, PAGE_SIZE};

/// The serialisable state of a [`DeviceMemory`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemorySnapshot {
    /// Where the next [`DeviceMemory::allocate`] starts looking.
    pub next_va: u64,
    /// The next allocation id.
    pub next_id: u64,
    /// Live allocations with their contents.
    pub allocations: Vec<AllocationSnapshot>,
    /// Freed ranges `(base, size)`, kept so use-after-free still faults as such.
    pub freed: Vec<(u64, u64)>,
}

/// One allocation in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllocationSnapshot {
    /// The allocation.
    pub info: AllocationInfo,
    /// Its pages that hold non-zero data (all others read as zeros).
    pub pages: Vec<PageSnapshot>,
}

/// The contents of one page.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageSnapshot {
    /// Page index within the allocation.
    pub index: u64,
    /// The page's valid bytes.
    pub bytes: Vec<u8>,
}

impl DeviceMemory {
    /// Captures allocations and contents. Call it while no kernel runs: a snapshot taken
    /// during concurrent stores is not a consistent cut.
    pub fn snapshot(&self) -> MemorySnapshot {
        let allocations = self
            .allocs
            .values()
            .map(|info| {
                let mut pages = Vec::new();
                let first = info.base >> PAGE_SHIFT;
                for index in 0..info.size.div_ceil(PAGE_SIZE) {
                    let Some(p) = self.page((first + index) << PAGE_SHIFT) else {
                        continue;
                    };
                    let written = p
                        .words()
                        .is_some_and(|w| w.iter().any(|x| x.load(Ordering::Relaxed) != 0));
                    if written {
                        let mut bytes = vec![0u8; p.valid_len as usize];
                        p.read_bytes(0, &mut bytes);
                        pages.push(PageSnapshot { index, bytes });
                    }
                }
                AllocationSnapshot { info: *info, pages }
            })
            .collect();
        MemorySnapshot {
            next_va: self.next_va,
            next_id: self.next_id,
            allocations,
            freed: self.freed.iter().map(|(&b, &s)| (b, s)).collect(),
        }
    }

    /// Rebuilds memory from a snapshot, checking it for consistency.
    pub fn from_snapshot(s: &MemorySnapshot) -> Result<DeviceMemory, MemoryError> {
        let bad = |m: String| MemoryError::BadSnapshot(m);
        let mut mem = DeviceMemory::new();
        for a in &s.allocations {
            let i = a.info;
            mem.allocate_at(i.base, i.size)
                .map_err(|e| bad(format!("allocation {:?}: {e}", i.id)))?;
            // allocate_at numbered it afresh: restore the recorded id and alignment.
            mem.allocs.insert(i.base, i);
            let first = i.base >> PAGE_SHIFT;
            for index in 0..i.size.div_ceil(PAGE_SIZE) {
                if let Some(slot) = mem.slot_mut(first + index) {
                    let valid = slot.as_ref().map_or(0, |p| p.valid_len);
                    *slot = Some(Page::new(valid, i.id));
                }
            }
            for p in &a.pages {
                let fits = p.index < i.size.div_ceil(PAGE_SIZE)
                    && p.bytes.len() as u64 <= (i.size - p.index * PAGE_SIZE).min(PAGE_SIZE);
                if !fits {
                    return Err(bad(format!(
                        "allocation {:#x}: page {} with {} bytes is outside it",
                        i.base,
                        p.index,
                        p.bytes.len()
                    )));
                }
                let addr = i.base + p.index * PAGE_SIZE;
                mem.write(addr, &p.bytes)
                    .map_err(|e| bad(format!("restoring page: {e}")))?;
            }
        }
        mem.freed = s.freed.iter().copied().collect();
        mem.next_va = s.next_va;
        mem.next_id = s.next_id.max(
            s.allocations
                .iter()
                .map(|a| a.info.id.0 + 1)
                .max()
                .unwrap_or(1),
        );
        Ok(mem)
    }
}

impl serde::Serialize for DeviceMemory {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.snapshot().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for DeviceMemory {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = MemorySnapshot::deserialize(d)?;
        DeviceMemory::from_snapshot(&s).map_err(serde::de::Error::custom)
    }
}
