//! Access to the calling process's memory the way the driver's copy_from_user does it.
//!
//! The ioctl layer never dereferences a user pointer: it goes through [`UserMemory`], which
//! in the interposer is [`ProcessMemory`] (`process_vm_readv`/`writev` on our own pid, which
//! fail with EFAULT on unmapped addresses instead of faulting) and in tests a byte buffer.

use crate::Errno;

/// Reads and writes the client's memory; an inaccessible range is `Errno::Fault`.
pub trait UserMemory {
    /// Copies `buf.len()` bytes from `addr`.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno>;
    /// Copies `data` to `addr`.
    fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno>;
}

/// The current process's own memory, accessed safely through `process_vm_readv`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProcessMemory;

fn check_range(addr: u64, len: usize) -> Result<(), Errno> {
    // access_ok(): the range must lie in the user half of the 48-bit address space.
    match addr.checked_add(len as u64) {
        Some(end) if addr != 0 && end <= USER_VA_END => Ok(()),
        _ => Err(Errno::Fault),
    }
}

/// End of the x86-64 user address space (`TASK_SIZE` with 4-level paging).
pub const USER_VA_END: u64 = 0x0000_7fff_ffff_f000;

impl UserMemory for ProcessMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        if buf.is_empty() {
            return Ok(());
        }
        check_range(addr, buf.len())?;
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: buf.len(),
        };
        // SAFETY: `local` covers `buf`, which we own; the kernel validates `remote`.
        let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
        if n == buf.len() as isize {
            Ok(())
        } else {
            Err(Errno::Fault)
        }
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno> {
        if data.is_empty() {
            return Ok(());
        }
        check_range(addr, data.len())?;
        let local = libc::iovec {
            iov_base: data.as_ptr() as *mut libc::c_void,
            iov_len: data.len(),
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: data.len(),
        };
        // SAFETY: `local` covers `data`, only read; the kernel validates `remote`.
        let n = unsafe { libc::process_vm_writev(libc::getpid(), &local, 1, &remote, 1, 0) };
        if n == data.len() as isize {
            Ok(())
        } else {
            Err(Errno::Fault)
        }
    }
}

/// A fake user address space for tests and fuzzing: one buffer at a fixed base address.
#[derive(Debug)]
pub struct BufferMemory {
    base: u64,
    bytes: std::sync::Mutex<Vec<u8>>,
}

impl BufferMemory {
    /// `len` zero bytes starting at user address `base`.
    pub fn new(base: u64, len: usize) -> Self {
        Self {
            base,
            bytes: std::sync::Mutex::new(vec![0; len]),
        }
    }

    fn range(&self, addr: u64, len: usize) -> Result<std::ops::Range<usize>, Errno> {
        let off = addr.checked_sub(self.base).ok_or(Errno::Fault)?;
        let off = usize::try_from(off).map_err(|_| Errno::Fault)?;
        let end = off.checked_add(len).ok_or(Errno::Fault)?;
        let have = self.bytes.lock().map_err(|_| Errno::Fault)?.len();
        if end > have {
            return Err(Errno::Fault);
        }
        Ok(off..end)
    }
}

impl UserMemory for BufferMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        let r = self.range(addr, buf.len())?;
        buf.copy_from_slice(&self.bytes.lock().map_err(|_| Errno::Fault)?[r]);
        Ok(())
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno> {
        let r = self.range(addr, data.len())?;
        self.bytes.lock().map_err(|_| Errno::Fault)?[r].copy_from_slice(data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_memory_reads_mapped_and_refuses_wild_pointers() {
        let value = 0x1234_5678_u32;
        let mut out = [0u8; 4];
        ProcessMemory
            .read(&value as *const u32 as u64, &mut out)
            .unwrap();
        assert_eq!(u32::from_ne_bytes(out), value);
        assert_eq!(ProcessMemory.read(0, &mut out), Err(Errno::Fault));
        assert_eq!(ProcessMemory.read(8, &mut out), Err(Errno::Fault));
        assert_eq!(
            ProcessMemory.read(0xffff_8000_0000_0000, &mut out),
            Err(Errno::Fault)
        );
        let mut target = 0u32;
        ProcessMemory
            .write(&mut target as *mut u32 as u64, &7u32.to_ne_bytes())
            .unwrap();
        assert_eq!(target, 7);
    }
}
