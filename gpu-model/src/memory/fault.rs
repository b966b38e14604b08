//! Memory faults (values, not crashes) and allocation errors.

use std::fmt;

/// What kind of access faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Access {
    /// A load.
    Read,
    /// A store.
    Write,
    /// An atomic read-modify-write.
    Atomic,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Atomic => "atomic",
        })
    }
}

/// Why an access faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum FaultKind {
    /// No allocation was ever mapped at the address.
    Unmapped,
    /// The address is outside the 48-bit canonical range the device implements.
    NonCanonical,
    /// The access starts inside an allocation and runs past its end.
    OutOfBounds {
        /// The allocation's base.
        base: u64,
        /// The allocation's size in bytes.
        size: u64,
    },
    /// The address belongs to an allocation that was freed.
    Freed {
        /// The freed allocation's base.
        base: u64,
        /// Its size in bytes.
        size: u64,
    },
    /// An atomic that is not naturally aligned.
    Misaligned,
}

/// A faulting device memory access: what, where and how big.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, thiserror::Error,
)]
pub struct MemFault {
    /// The first byte the access touched.
    pub addr: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Load, store or atomic.
    pub access: Access,
    /// Why it faulted.
    pub kind: FaultKind,
}

impl fmt::Display for MemFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            addr, size, access, ..
        } = *self;
        write!(f, "{access} of {size} bytes at {addr:#x}: ")?;
        match self.kind {
            FaultKind::Unmapped => f.write_str("address is not mapped"),
            FaultKind::NonCanonical => f.write_str("address is outside the 48-bit address space"),
            FaultKind::OutOfBounds { base, size } => write!(
                f,
                "runs past the end of allocation {base:#x}..{:#x}",
                base.saturating_add(size)
            ),
            FaultKind::Freed { base, size } => write!(
                f,
                "allocation {base:#x}..{:#x} was freed",
                base.saturating_add(size)
            ),
            FaultKind::Misaligned => write!(f, "not aligned to {size} bytes"),
        }
    }
}

/// Why an allocation, free or mapping request failed. Not fatal for the device: the
/// request is refused and memory is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// Zero-byte allocations have no address.
    #[error("cannot allocate 0 bytes")]
    ZeroSize,
    /// The alignment is not a power of two.
    #[error("alignment {0:#x} is not a power of two")]
    BadAlignment(u64),
    /// No free range of the requested size and alignment is left.
    #[error("no free device address range of {size:#x} bytes aligned to {align:#x}")]
    OutOfAddressSpace {
        /// Requested size.
        size: u64,
        /// Requested alignment.
        align: u64,
    },
    /// The allocation is larger than [`super::MAX_ALLOCATION`].
    #[error("cannot allocate {size:#x} bytes: the largest allocation is {max:#x} bytes")]
    TooLarge {
        /// Requested size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// The allocation does not fit in what is left of the device's memory.
    #[error(
        "cannot allocate {size:#x} bytes: {in_use:#x} of the device's {capacity:#x} bytes are in use"
    )]
    OutOfMemory {
        /// Bytes asked for.
        size: u64,
        /// Bytes the live allocations take.
        in_use: u64,
        /// The device's memory size.
        capacity: u64,
    },
    /// A fixed-address mapping is not page aligned, not canonical or overlaps memory in use.
    #[error("cannot map {size:#x} bytes at {base:#x}: {reason}")]
    BadFixedAddress {
        /// Requested base.
        base: u64,
        /// Requested size.
        size: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// `free` of an address that is not the base of a live allocation.
    #[error("free of {0:#x}, which is not the base of a live allocation")]
    NotAllocated(u64),
    /// A snapshot is inconsistent (overlapping allocations, page data out of range).
    #[error("bad memory snapshot: {0}")]
    BadSnapshot(String),
}
