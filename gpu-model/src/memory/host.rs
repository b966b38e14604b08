//! Host memory mapped into the device address space: memory the host process owns (KFD
//! USERPTR and GTT buffers live in the application's own memory, at GPU VA == CPU VA:
//! `../shared/KFD-NOTES.md`), seen by the simulated GPU in place, not copied.
//!
//! A host region is a raw pointer and a length registered with
//! [`DeviceMemory::map_host`]. It has no pages: device accesses that miss the page tables
//! (the cold path of every access) look for a host region before they fault, so normal
//! device memory pays nothing for the feature.
//!
//! Coherence: the host process writes this memory with its own (C, C++) stores while the
//! model reads it, and reads it while the model writes. Every model access is an atomic
//! operation on the host bytes (naturally aligned 8-byte words where the access covers
//! them, single bytes otherwise), with an acquire fence after reads and a release fence
//! before writes, and read-modify-writes are sequentially consistent atomics on the host
//! word, so a runtime's signal waits (`value` loads, futex-free spins) and packet
//! publication (body, then a release store of the header) work as on real
//! system-coherent memory. Host regions are not part of checkpoints.

use super::{Access, DeviceMemory, FaultKind, MemFault, MemoryError, ADDRESS_LIMIT};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// A mapped host range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HostRegion {
    /// The host address (kept as an integer so the memory stays `Send` and `Sync`).
    pub(crate) ptr: usize,
    /// Bytes.
    pub(crate) len: u64,
}

impl HostRegion {
    /// The host pointer of device address `addr` of a region mapped at `va`.
    fn at(&self, va: u64, addr: u64) -> *mut u8 {
        std::ptr::with_exposed_provenance_mut(self.ptr + (addr - va) as usize)
    }
}

impl DeviceMemory {
    /// Maps `len` bytes of host memory at `ptr` into the device address space at `va`
    /// (no alignment needed; usually `va == ptr as u64`). Refused when the range overlaps an
    /// allocation or another host range, or leaves the device address space.
    ///
    /// # Safety
    /// `ptr .. ptr + len` must stay valid for reads and writes until [`Self::unmap_host`]
    /// removes the range or this memory is dropped. Other threads may use the bytes at the
    /// same time only through atomic or volatile accesses (the model's accesses are atomic,
    /// see the module documentation); the model never creates Rust references to them.
    pub unsafe fn map_host(&mut self, va: u64, ptr: *mut u8, len: u64) -> Result<(), MemoryError> {
        let bad = |reason| MemoryError::BadFixedAddress {
            base: va,
            size: len,
            reason,
        };
        if len == 0 {
            return Err(MemoryError::ZeroSize);
        }
        if ptr.is_null() {
            return Err(bad("host pointer is null"));
        }
        let end = va
            .checked_add(len)
            .filter(|&e| e <= ADDRESS_LIMIT && va > 0)
            .ok_or_else(|| bad("range is outside the device address space"))?;
        if (ptr as usize).checked_add(len as usize).is_none() {
            return Err(bad("host range wraps around"));
        }
        if self.overlapping(va, end).is_some() {
            return Err(bad("range overlaps a live allocation or host range"));
        }
        self.host.insert(
            va,
            HostRegion {
                ptr: ptr.expose_provenance(),
                len,
            },
        );
        Ok(())
    }

    /// Removes the host range mapped at `va`; later accesses fault as unmapped.
    pub fn unmap_host(&mut self, va: u64) -> Result<(), MemoryError> {
        self.host
            .remove(&va)
            .map(|_| ())
            .ok_or(MemoryError::NotAllocated(va))
    }

    /// Every mapped host range: device address and length.
    pub fn host_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.host.iter().map(|(&va, h)| (va, h.len))
    }

    /// The host range holding all of `[addr, addr + len)`, with its device address.
    #[inline]
    pub(crate) fn host_at(&self, addr: u64, len: u64) -> Option<(u64, HostRegion)> {
        if self.host.is_empty() {
            return None;
        }
        let (&va, &h) = self.host.range(..=addr).next_back()?;
        let end = addr.checked_add(len)?;
        (end <= va + h.len).then_some((va, h))
    }

    /// The host range containing `addr` (start, end).
    pub(crate) fn host_range_at(&self, addr: u64) -> Option<(u64, u64)> {
        self.host_at(addr, 1).map(|(va, h)| (va, va + h.len))
    }

    /// Reads host bytes (see the module documentation for the ordering).
    pub(crate) fn host_read(&self, va: u64, h: HostRegion, addr: u64, out: &mut [u8]) {
        let mut p = h.at(va, addr);
        let mut k = 0;
        while k < out.len() {
            // SAFETY: `map_host`'s contract keeps the range valid; `host_at` checked that
            // the access lies inside it; alignment is checked before the word access.
            unsafe {
                if (p as usize).is_multiple_of(8) && out.len() - k >= 8 {
                    let v = AtomicU64::from_ptr(p.cast()).load(Ordering::Relaxed);
                    out[k..k + 8].copy_from_slice(&v.to_le_bytes());
                    k += 8;
                    p = p.add(8);
                } else {
                    out[k] = AtomicU8::from_ptr(p).load(Ordering::Relaxed);
                    k += 1;
                    p = p.add(1);
                }
            }
        }
        fence(Ordering::Acquire);
    }

    /// Writes host bytes.
    pub(crate) fn host_write(&self, va: u64, h: HostRegion, addr: u64, data: &[u8]) {
        fence(Ordering::Release);
        let mut p = h.at(va, addr);
        let mut k = 0;
        while k < data.len() {
            // SAFETY: as in `host_read`.
            unsafe {
                if (p as usize).is_multiple_of(8) && data.len() - k >= 8 {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&data[k..k + 8]);
                    AtomicU64::from_ptr(p.cast()).store(u64::from_le_bytes(b), Ordering::Relaxed);
                    k += 8;
                    p = p.add(8);
                } else {
                    AtomicU8::from_ptr(p).store(data[k], Ordering::Relaxed);
                    k += 1;
                    p = p.add(1);
                }
            }
        }
    }

    /// A naturally aligned 4- or 8-byte read-modify-write on host memory: `f(old)` is
    /// stored atomically; returns the old value.
    pub(crate) fn host_rmw(
        &self,
        addr: u64,
        n: usize,
        mut f: impl FnMut(u64) -> u64,
    ) -> Result<u64, MemFault> {
        let fault = |kind| MemFault {
            addr,
            size: n as u64,
            access: Access::Atomic,
            kind,
        };
        let (va, h) = self
            .host_at(addr, n as u64)
            .ok_or_else(|| fault(FaultKind::Unmapped))?;
        let p = h.at(va, addr);
        if !(p as usize).is_multiple_of(n) {
            return Err(fault(FaultKind::Misaligned));
        }
        let (o, l) = (Ordering::SeqCst, Ordering::SeqCst);
        // SAFETY: as in `host_read`; the pointer is aligned for the width.
        let old = unsafe {
            if n == 8 {
                let a = AtomicU64::from_ptr(p.cast());
                let mut old = 0;
                let _ = a.fetch_update(o, l, |v| {
                    old = v;
                    Some(f(v))
                });
                old
            } else {
                let a = AtomicU32::from_ptr(p.cast());
                let mut old = 0;
                let _ = a.fetch_update(o, l, |v| {
                    old = v;
                    Some(f(u64::from(v)) as u32)
                });
                u64::from(old)
            }
        };
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads, writes (aligned words and odd bytes) and read-modify-writes reach the host
    /// bytes in place, and accesses past the range fault. Also the Miri test of this
    /// module's `unsafe` (scripts/miri.sh).
    #[test]
    fn host_bytes_are_seen_in_place() {
        let mut host = vec![0u64; 8];
        let ptr = host.as_mut_ptr().cast::<u8>();
        let va = 0x10_0000_0000;
        let mut mem = DeviceMemory::new();
        // SAFETY: `host` outlives `mem`'s use of it and is only touched through `mem`
        // until the range is unmapped.
        unsafe { mem.map_host(va, ptr, 64) }.unwrap();
        mem.write(va + 8, &0x1122_3344_5566_7788u64.to_le_bytes())
            .unwrap();
        mem.write(va + 17, &[0xab, 0xcd, 0xef]).unwrap();
        let mut out = [0u8; 12];
        mem.read(va + 8, &mut out).unwrap();
        assert_eq!(&out[..8], &0x1122_3344_5566_7788u64.to_le_bytes());
        assert_eq!(&out[8..], &[0, 0xab, 0xcd, 0xef]);
        let old = mem.host_rmw(va + 8, 8, |v| v.wrapping_sub(0x88)).unwrap();
        assert_eq!(old, 0x1122_3344_5566_7788);
        let old = mem.host_rmw(va + 32, 4, |v| v + 5).unwrap();
        assert_eq!(old, 0);
        assert!(mem.host_rmw(va + 34, 4, |v| v).is_err(), "misaligned");
        assert!(mem.read(va + 60, &mut [0u8; 8]).is_err(), "past the range");
        mem.unmap_host(va).unwrap();
        assert!(mem.read(va, &mut [0u8; 1]).is_err(), "unmapped");
        drop(mem);
        assert_eq!(host[1], 0x1122_3344_5566_7700);
        assert_eq!(host[2] >> 8 & 0xff_ffff, 0xef_cdab);
        assert_eq!(host[4] & 0xffff_ffff, 5);
    }
}
