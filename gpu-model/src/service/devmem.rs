//! The device heap behind HIP's device-side `malloc`/`free` (`__ockl_dm_alloc`,
//! `__ockl_dm_dealloc` in the device libraries).
//!
//! What the device libraries expect (ROCm 5.2.3's `ockl.bc`, read with `llvm-dis-22`):
//! * The allocator's state is a zero-initialised structure, its address in the hidden
//!   argument `hidden_heap_v1` (code object v5 and later; v4 objects carry it as a global
//!   of their own). Its IR type is `{ [16 x {i32, [3 x i64]}] x3, [16 x {i64, [3 x i64]}]
//!   x2, [16 x [256 x {i64, i64, i32}]], i64 }`: 100,872 bytes.
//! * Memory comes from the host through the hostcall service 3 (`SERVICE_DEVMEM`,
//!   `__ockl_devmem_request(addr, size)`): 2 MiB slabs for small blocks, and requests above
//!   3 KiB whole. ROCclr (`devhostcall.cpp`, `handlePayload`) frees `payload[0]` when it is
//!   not zero, and otherwise allocates `payload[1]` bytes (2 MiB aligned when exactly
//!   2 MiB) and answers the address in `payload[0]`, 0 when it cannot; both zero is an
//!   error. An unknown pointer to free is logged and ignored.
//!
//! Both live as long as the device, as in ROCclr (one heap buffer per device; memory the
//! service handed out stays until the kernel frees it).
//!
//! The service runs while the device memory is shared with the running waves, so it cannot
//! map new memory: it hands out ranges of a pool reserved when the first kernel with a
//! hostcall buffer is set up ([`POOL_BYTES`], our choice, at most an eighth of the
//! device's memory). A request the pool cannot satisfy answers 0, which `malloc` returns
//! as a null pointer, as on a device out of memory.

use super::SetupError;
use crate::memory::DeviceMemory;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Bytes of the device libraries' heap state (see the module documentation).
pub const HEAP_STATE_BYTES: u64 = 100_872;

/// Bytes reserved for the device-memory service (our choice, not a runtime's figure).
pub const POOL_BYTES: u64 = 256 << 20;

/// ROCclr allocates a request of exactly 2 MiB (an ockl slab) 2 MiB aligned.
const SLAB: u64 = 2 << 20;

/// Alignment of every other request: what a device allocation gets (a page).
const PAGE: u64 = 4096;

/// A device's heap: the allocator state and the service's pool.
#[derive(Debug, Default)]
pub struct DeviceHeap {
    state: Option<u64>,
    pool: Option<Pool>,
    /// The pool could not be reserved (memory too small): the service answers 0.
    no_pool: bool,
}

/// A heap shared by a device and the dispatches that use it.
pub type SharedHeap = Arc<Mutex<DeviceHeap>>;

#[derive(Debug)]
struct Pool {
    base: u64,
    size: u64,
    /// Live ranges: address to size.
    live: BTreeMap<u64, u64>,
}

impl DeviceHeap {
    /// The heap state's address, allocated (zeroed) on first use.
    pub fn state(&mut self, mem: &mut DeviceMemory) -> Result<u64, SetupError> {
        if let Some(s) = self.state {
            return Ok(s);
        }
        let s = mem.allocate(HEAP_STATE_BYTES, PAGE)?;
        self.state = Some(s);
        Ok(s)
    }

    /// Reserves the service's pool if it is not yet; a device too small for it gets none.
    pub fn reserve_pool(&mut self, mem: &mut DeviceMemory) {
        if self.pool.is_some() || self.no_pool {
            return;
        }
        let size = POOL_BYTES.min(mem.capacity() / 8) & !(SLAB - 1);
        match (size > 0).then(|| mem.allocate(size, SLAB)) {
            Some(Ok(base)) => {
                self.pool = Some(Pool {
                    base,
                    size,
                    live: BTreeMap::new(),
                })
            }
            _ => self.no_pool = true,
        }
    }

    /// Serves one `SERVICE_DEVMEM` request: frees `addr` when it is not zero, otherwise
    /// allocates `size` bytes. Returns the answer word (the address, 0 when refused or for
    /// a free). `None` when both are zero (ROCclr refuses that request).
    pub fn request(&mut self, addr: u64, size: u64) -> Option<u64> {
        if addr == 0 && size == 0 {
            return None;
        }
        let Some(pool) = self.pool.as_mut() else {
            return Some(0);
        };
        if addr != 0 {
            pool.live.remove(&addr);
            return Some(0);
        }
        let align = if size == SLAB { SLAB } else { PAGE };
        Some(pool.allocate(size, align).unwrap_or(0))
    }
}

/// A [`DeviceHeap`] as saved in SoC checkpoints: the addresses only (the allocator state and
/// the blocks themselves are device memory, saved with it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapImage {
    state: Option<u64>,
    pool: Option<PoolImage>,
    no_pool: bool,
}

/// The service's pool in a [`HeapImage`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct PoolImage {
    base: u64,
    size: u64,
    /// Live ranges (address, size) in address order.
    live: Vec<(u64, u64)>,
}

impl DeviceHeap {
    /// The heap's state for a checkpoint.
    pub fn image(&self) -> HeapImage {
        HeapImage {
            state: self.state,
            pool: self.pool.as_ref().map(|p| PoolImage {
                base: p.base,
                size: p.size,
                live: p.live.iter().map(|(&a, &s)| (a, s)).collect(),
            }),
            no_pool: self.no_pool,
        }
    }

    /// A heap from a checkpoint's image, checked: live ranges inside the pool, in order and
    /// not overlapping. The error says what is wrong.
    pub fn from_image(im: HeapImage) -> Result<DeviceHeap, String> {
        let pool = match im.pool {
            None => None,
            Some(PoolImage {
                base,
                size,
                live: ranges,
            }) => {
                let end = base
                    .checked_add(size)
                    .ok_or_else(|| format!("heap pool {base:#x}+{size:#x} wraps"))?;
                let mut at = base;
                for &(a, s) in &ranges {
                    let e = a.checked_add(s).filter(|&e| a >= at && e <= end);
                    at = e.ok_or_else(|| {
                        format!(
                            "heap block {a:#x}+{s:#x} is outside the pool \
                             {base:#x}..{end:#x} or overlaps the block before it"
                        )
                    })?;
                }
                Some(Pool {
                    base,
                    size,
                    live: ranges.into_iter().collect(),
                })
            }
        };
        Ok(DeviceHeap {
            state: im.state,
            pool,
            no_pool: im.no_pool,
        })
    }
}

impl Pool {
    /// First fit, aligned.
    fn allocate(&mut self, size: u64, align: u64) -> Option<u64> {
        let size = size.checked_next_multiple_of(PAGE)?;
        let end = self.base + self.size;
        let mut at = self.base;
        for (&a, &s) in &self.live {
            let start = at.checked_next_multiple_of(align)?;
            if start.checked_add(size)? <= a {
                self.live.insert(start, size);
                return Some(start);
            }
            at = at.max(a + s);
        }
        let start = at.checked_next_multiple_of(align)?;
        if start.checked_add(size)? <= end {
            self.live.insert(start, size);
            return Some(start);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_allocates_first_fit_and_reuses_freed_ranges() {
        let mut mem = DeviceMemory::with_capacity(64 << 20);
        let mut h = DeviceHeap::default();
        h.reserve_pool(&mut mem);
        let pool = h.pool.as_ref().unwrap();
        let (base, size) = (pool.base, pool.size);
        assert_eq!(size, 8 << 20);
        let a = h.request(0, 100).unwrap();
        assert_eq!(a, base);
        let slab = h.request(0, SLAB).unwrap();
        assert_eq!(slab % SLAB, 0);
        assert!(slab >= a + PAGE);
        let b = h.request(0, 5000).unwrap();
        assert_eq!(b, a + PAGE, "first fit before the slab");
        assert_eq!(h.request(a, 0), Some(0));
        assert_eq!(h.request(0, 10).unwrap(), a, "a freed range is reused");
        // More than the pool has: refused with 0, as a full device.
        assert_eq!(h.request(0, size), Some(0));
        assert_eq!(h.request(0, 0), None);
        // Freeing an unknown pointer is ignored.
        assert_eq!(h.request(12345, 0), Some(0));
    }

    #[test]
    fn a_heap_image_round_trips_and_bad_ones_are_refused() {
        let mut mem = DeviceMemory::with_capacity(64 << 20);
        let mut h = DeviceHeap::default();
        h.state(&mut mem).unwrap();
        h.reserve_pool(&mut mem);
        let a = h.request(0, 100).unwrap();
        let b = h.request(0, SLAB).unwrap();
        let mut back = DeviceHeap::from_image(h.image()).unwrap();
        assert_eq!(back.image(), h.image());
        // The copy continues as the original does.
        assert_eq!(back.request(0, 5000), h.request(0, 5000));
        assert_eq!(back.request(a, 0), h.request(a, 0));
        assert_eq!(back.request(0, 64), h.request(0, 64));
        let mut bad = h.image();
        if let Some(p) = bad.pool.as_mut() {
            p.live.push((b, 1));
        }
        let e = DeviceHeap::from_image(bad).unwrap_err();
        assert!(e.contains("overlaps"), "{e}");
    }

    #[test]
    fn a_device_too_small_for_a_pool_answers_null() {
        let mut mem = DeviceMemory::with_capacity(8 << 20);
        let mut h = DeviceHeap::default();
        h.reserve_pool(&mut mem);
        assert_eq!(h.request(0, 64), Some(0));
    }
}
