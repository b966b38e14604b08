//! The errno values the emulated driver answers with.

/// An ioctl failure, as the errno the real KFD returns for the same input.
///
/// The emulation never answers EAGAIN or EINTR: the thunk retries those forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Errno {
    /// A bad argument: unknown gpu id, handle, queue or event, bad flags or sizes.
    #[error("invalid argument (EINVAL)")]
    Inval,
    /// A user pointer the driver cannot read or write.
    #[error("bad address (EFAULT)")]
    Fault,
    /// Out of device memory, queue slots or event slots.
    #[error("out of memory (ENOMEM)")]
    NoMem,
    /// The kfd fd is used by a process other than the one that opened it (a forked child):
    /// each process needs its own KFD context.
    #[error("bad file descriptor (EBADF)")]
    BadFd,
    /// A state conflict, e.g. changing the xnack mode while queues exist.
    #[error("device or resource busy (EBUSY)")]
    Busy,
}

impl Errno {
    /// The raw errno value.
    pub fn raw(self) -> i32 {
        match self {
            Errno::Inval => libc::EINVAL,
            Errno::Fault => libc::EFAULT,
            Errno::NoMem => libc::ENOMEM,
            Errno::BadFd => libc::EBADF,
            Errno::Busy => libc::EBUSY,
        }
    }
}
