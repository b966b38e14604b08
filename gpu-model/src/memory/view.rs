//! What one wave's memory instructions see: device memory directly, or device memory
//! through its compute unit's buffering [`Domain`](super::coherence::Domain).

use super::coherence::{AtomicReq, Domain};
use super::{Access, AtomicOp, DeviceMemory, MemFault};
use std::cell::RefCell;

/// A wave's access to device memory. The executor uses the same calls either way;
/// [`MemView::direct`] reads and writes device memory (a lone device, tests), and
/// [`MemView::buffered`] goes through a CU's domain (the SoC, see
/// [`coherence`](super::coherence)): loads see the domain's own writes, stores are
/// buffered, and atomics are recorded for the next sync point and answered from their
/// recorded old values when the wave re-executes them.
#[derive(Debug, Clone, Copy)]
pub struct MemView<'a> {
    mem: &'a DeviceMemory,
    domain: Option<&'a RefCell<Domain>>,
    /// The wave (its CU's number for it) and the current time, for buffered atomics.
    wave: u64,
    tick: u64,
}

impl<'a> From<&'a DeviceMemory> for MemView<'a> {
    fn from(mem: &'a DeviceMemory) -> MemView<'a> {
        MemView::direct(mem)
    }
}

impl<'a> MemView<'a> {
    /// Device memory itself.
    pub fn direct(mem: &'a DeviceMemory) -> MemView<'a> {
        MemView {
            mem,
            domain: None,
            wave: 0,
            tick: 0,
        }
    }

    /// Device memory through `domain`, for wave `wave` running at time `tick`.
    pub fn buffered(
        mem: &'a DeviceMemory,
        domain: &'a RefCell<Domain>,
        wave: u64,
        tick: u64,
    ) -> MemView<'a> {
        MemView {
            mem,
            domain: Some(domain),
            wave,
            tick,
        }
    }

    /// The device memory underneath.
    pub fn device(&self) -> &'a DeviceMemory {
        self.mem
    }

    #[inline(always)]
    fn patch<const N: usize>(&self, addr: u64, v: [u8; N]) -> [u8; N] {
        let mut v = v;
        if let Some(d) = self.domain {
            d.borrow_mut().patch(addr, &mut v);
        }
        v
    }

    /// Loads a byte.
    #[inline]
    pub fn load_u8(&self, addr: u64) -> Result<u8, MemFault> {
        let v = self.mem.load_u8(addr)?;
        Ok(self.patch(addr, [v])[0])
    }

    /// Loads a little-endian u16.
    #[inline]
    pub fn load_u16(&self, addr: u64) -> Result<u16, MemFault> {
        let v = self.mem.load_u16(addr)?;
        Ok(u16::from_le_bytes(self.patch(addr, v.to_le_bytes())))
    }

    /// Loads a little-endian u32.
    #[inline]
    pub fn load_u32(&self, addr: u64) -> Result<u32, MemFault> {
        let v = self.mem.load_u32(addr)?;
        Ok(u32::from_le_bytes(self.patch(addr, v.to_le_bytes())))
    }

    /// Loads a little-endian u64.
    #[inline]
    pub fn load_u64(&self, addr: u64) -> Result<u64, MemFault> {
        let v = self.mem.load_u64(addr)?;
        Ok(u64::from_le_bytes(self.patch(addr, v.to_le_bytes())))
    }

    /// Loads consecutive dwords (at most 16).
    #[inline]
    pub fn load_dwords(&self, addr: u64, out: &mut [u32]) -> Result<(), MemFault> {
        self.mem.load_dwords(addr, out)?;
        if let Some(d) = self.domain {
            let mut b = [0u8; 64];
            let n = out.len().min(16) * 4;
            for (c, v) in b.chunks_exact_mut(4).zip(out.iter()) {
                c.copy_from_slice(&v.to_le_bytes());
            }
            d.borrow_mut().patch(addr, &mut b[..n]);
            for (v, c) in out.iter_mut().zip(b[..n].chunks_exact(4)) {
                *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        Ok(())
    }

    /// Stores bytes: buffered when there is a domain (after checking the access).
    #[inline]
    fn store(&self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.write(addr, data),
            Some(d) => {
                self.mem.check(addr, data.len(), Access::Write)?;
                d.borrow_mut().write(addr, data);
                Ok(())
            }
        }
    }

    /// Stores a byte.
    #[inline]
    pub fn store_u8(&self, addr: u64, v: u8) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.store_u8(addr, v),
            Some(_) => self.store(addr, &[v]),
        }
    }

    /// Stores a little-endian u16.
    #[inline]
    pub fn store_u16(&self, addr: u64, v: u16) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.store_u16(addr, v),
            Some(_) => self.store(addr, &v.to_le_bytes()),
        }
    }

    /// Stores a little-endian u32.
    #[inline]
    pub fn store_u32(&self, addr: u64, v: u32) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.store_u32(addr, v),
            Some(_) => self.store(addr, &v.to_le_bytes()),
        }
    }

    /// Stores a little-endian u64.
    #[inline]
    pub fn store_u64(&self, addr: u64, v: u64) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.store_u64(addr, v),
            Some(_) => self.store(addr, &v.to_le_bytes()),
        }
    }

    /// Stores consecutive dwords (at most 16), all or nothing.
    #[inline]
    pub fn store_dwords(&self, addr: u64, data: &[u32]) -> Result<(), MemFault> {
        match self.domain {
            None => self.mem.store_dwords(addr, data),
            Some(_) => {
                let mut b = [0u8; 64];
                let n = data.len().min(16) * 4;
                for (c, v) in b.chunks_exact_mut(4).zip(data) {
                    c.copy_from_slice(&v.to_le_bytes());
                }
                self.store(addr, &b[..n])
            }
        }
    }

    /// A buffered atomic: the recorded old value if the wave's atomics were performed,
    /// else recorded for the next sync point (the value returned then is a placeholder:
    /// the wave waits and re-executes the instruction).
    fn buffered_atomic(
        &self,
        d: &RefCell<Domain>,
        addr: u64,
        wide: bool,
        op: AtomicOp,
        (src, cmp): (u64, u64),
    ) -> Result<u64, MemFault> {
        self.mem.check_atomic(addr, if wide { 8 } else { 4 })?;
        let mut d = d.borrow_mut();
        if let Some(v) = d.take_result(self.wave) {
            return Ok(v);
        }
        let req = AtomicReq {
            addr,
            op,
            wide,
            src,
            cmp,
        };
        d.push_atomic(self.tick, self.wave, req);
        Ok(0)
    }

    /// Performs a 32-bit atomic (see [`DeviceMemory::atomic_u32`]).
    #[inline]
    pub fn atomic_u32(&self, addr: u64, op: AtomicOp, src: u32, cmp: u32) -> Result<u32, MemFault> {
        match self.domain {
            None => self.mem.atomic_u32(addr, op, src, cmp),
            Some(d) => self
                .buffered_atomic(d, addr, false, op, (src.into(), cmp.into()))
                .map(|v| v as u32),
        }
    }

    /// Performs a 64-bit atomic (see [`DeviceMemory::atomic_u64`]).
    #[inline]
    pub fn atomic_u64(&self, addr: u64, op: AtomicOp, src: u64, cmp: u64) -> Result<u64, MemFault> {
        match self.domain {
            None => self.mem.atomic_u64(addr, op, src, cmp),
            Some(d) => self.buffered_atomic(d, addr, true, op, (src, cmp)),
        }
    }

    /// Whether this wave re-executes an atomic whose old values are recorded.
    #[inline]
    pub fn replaying(&self) -> bool {
        self.domain
            .is_some_and(|d| d.borrow().has_results(self.wave))
    }

    /// Whether an atomic was recorded for the next sync point since the last call: the
    /// wave must wait for it and re-execute the instruction.
    #[inline]
    pub fn take_deferred(&self) -> bool {
        self.domain.is_some_and(|d| d.borrow_mut().take_deferred())
    }

    /// A full fence (see [`DeviceMemory::fence`]).
    #[inline]
    pub fn fence(&self) {
        self.mem.fence();
    }
}
