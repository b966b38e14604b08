//! kmd: an emulated KFD driver so unmodified ROCm user space runs on the simulated GPU.
//!
//! ```text
//!  application ─ ROCr ─ libhsakmt (thunk)
//!        │ open/ioctl/fopen/opendir/stat ...
//!  kmd-preload (LD_PRELOAD interposer) ──► everything else: libc, untouched
//!        │ /dev/kfd, /dev/dri/renderD128, /sys/.../kfd/topology
//!  kmd::Kfd (this crate: ioctl handlers, events)   kmd::topology (sysfs tree)
//!        │ GpuBackend: mappings, queues            ▲ Events::signal
//!  simulated GPU (command processor reading AQL rings)
//! ```
//!
//! The ioctl layer is pure Rust and testable without a client:
//!
//! ```
//! use std::sync::Arc;
//! use kmd::{abi, user::BufferMemory, Kfd, NoGpu, GpuNode};
//! let kfd = Kfd::new(GpuNode::from_preset("mi210").unwrap(), Arc::new(NoGpu::default()));
//! let mem = BufferMemory::new(0x10000, 4096);
//! kfd.ioctl(abi::request::GET_VERSION, 0x10000, &mem).unwrap();
//! let mut v = [0u8; 8];
//! kmd::user::UserMemory::read(&mem, 0x10000, &mut v).unwrap();
//! assert_eq!(v[..4], 1u32.to_ne_bytes());
//! ```

pub mod abi;
pub mod backend;
mod error;
pub mod events;
pub mod kfd;
pub mod report;
pub mod soc_gpu;
pub mod symbols;
pub mod topology;
pub mod user;

pub use backend::{GpuBackend, NoGpu};
pub use error::Errno;
pub use events::Events;
pub use kfd::Kfd;
pub use soc_gpu::SocGpu;
pub use topology::GpuNode;
