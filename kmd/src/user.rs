//! Access to the calling process's memory the way the driver's copy_from_user does it.
//!
//! The ioctl layer never dereferences a user pointer: it goes through [`UserMemory`], which
//! in the interposer is [`ProcessMemory`] (`process_vm_readv`/`writev` on our own pid, which
//! fail with EFAULT on unmapped addresses instead of faulting; [`PipeMemory`] where a
//! seccomp profile refuses those calls) and in tests a byte buffer.

use std::sync::atomic::{AtomicBool, Ordering};

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

/// Whether `process_vm_readv` answered "not allowed here" (a seccomp profile without
/// CAP_SYS_PTRACE, as container defaults have): then copies go through a pipe instead.
fn vm_calls_refused() -> bool {
    // SAFETY: errno is thread-local.
    let e = unsafe { *libc::__errno_location() };
    e == libc::EPERM || e == libc::ENOSYS
}

static PIPE_ONLY: AtomicBool = AtomicBool::new(false);

impl UserMemory for ProcessMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        if buf.is_empty() {
            return Ok(());
        }
        check_range(addr, buf.len())?;
        if PIPE_ONLY.load(Ordering::Relaxed) {
            return PipeMemory.read(addr, buf);
        }
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
        } else if n < 0 && vm_calls_refused() {
            PIPE_ONLY.store(true, Ordering::Relaxed);
            PipeMemory.read(addr, buf)
        } else {
            Err(Errno::Fault)
        }
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno> {
        if data.is_empty() {
            return Ok(());
        }
        check_range(addr, data.len())?;
        if PIPE_ONLY.load(Ordering::Relaxed) {
            return PipeMemory.write(addr, data);
        }
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
        } else if n < 0 && vm_calls_refused() {
            PIPE_ONLY.store(true, Ordering::Relaxed);
            PipeMemory.write(addr, data)
        } else {
            Err(Errno::Fault)
        }
    }
}

/// The same through a pipe: `write(2)` from an unreadable address and `read(2)` into an
/// unwritable one fail with EFAULT instead of faulting. Used where `process_vm_readv` is
/// refused.
#[derive(Debug, Default, Clone, Copy)]
pub struct PipeMemory;

/// A pipe closed on drop.
struct Pipe([libc::c_int; 2]);

impl Pipe {
    fn new() -> Result<Self, Errno> {
        let mut fds = [0; 2];
        // SAFETY: `fds` is a valid out-array of two ints.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(Errno::NoMem);
        }
        Ok(Pipe(fds))
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: our own fds.
        unsafe {
            libc::close(self.0[0]);
            libc::close(self.0[1]);
        }
    }
}

/// Chunks small enough to fit a pipe's buffer (at least one page on Linux).
const PIPE_CHUNK: usize = 4096;

impl UserMemory for PipeMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Errno> {
        check_range(addr, buf.len())?;
        let pipe = Pipe::new()?;
        for (i, chunk) in buf.chunks_mut(PIPE_CHUNK).enumerate() {
            let src = addr + (i * PIPE_CHUNK) as u64;
            // SAFETY: the kernel validates `src`; `chunk` is ours.
            let ok = unsafe {
                libc::write(pipe.0[1], src as *const libc::c_void, chunk.len())
                    == chunk.len() as isize
                    && libc::read(pipe.0[0], chunk.as_mut_ptr().cast(), chunk.len())
                        == chunk.len() as isize
            };
            if !ok {
                return Err(Errno::Fault);
            }
        }
        Ok(())
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<(), Errno> {
        check_range(addr, data.len())?;
        let pipe = Pipe::new()?;
        for (i, chunk) in data.chunks(PIPE_CHUNK).enumerate() {
            let dst = addr + (i * PIPE_CHUNK) as u64;
            // SAFETY: `chunk` is ours; the kernel validates `dst`.
            let ok = unsafe {
                libc::write(pipe.0[1], chunk.as_ptr().cast(), chunk.len()) == chunk.len() as isize
                    && libc::read(pipe.0[0], dst as *mut libc::c_void, chunk.len())
                        == chunk.len() as isize
            };
            if !ok {
                return Err(Errno::Fault);
            }
        }
        Ok(())
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

    #[test]
    fn pipe_memory_copies_and_refuses_wild_pointers() {
        let src: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        let mut out = vec![0u8; src.len()];
        PipeMemory.read(src.as_ptr() as u64, &mut out).unwrap();
        assert_eq!(out, src);
        let mut dst = vec![0u8; src.len()];
        PipeMemory.write(dst.as_mut_ptr() as u64, &src).unwrap();
        assert_eq!(dst, src);
        let mut small = [0u8; 8];
        assert_eq!(PipeMemory.read(8, &mut small), Err(Errno::Fault));
        assert_eq!(PipeMemory.write(0x10, &small), Err(Errno::Fault));
        // Read-only memory (a string literal) cannot be written, by either path.
        let ro = "read-only text".as_ptr() as u64;
        assert_eq!(PipeMemory.write(ro, &small), Err(Errno::Fault));
        assert_eq!(ProcessMemory.write(ro, &small), Err(Errno::Fault));
    }
}
