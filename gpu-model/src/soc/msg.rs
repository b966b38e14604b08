//! The messages SoC components exchange over simkit links.

use crate::cache::{AccessKind, MType};
use crate::dispatch::Fault;
use crate::occupancy::{WaveAlloc, WorkgroupAlloc};
use serde::{Deserialize, Serialize};

/// Every message of the SoC model (simkit runs one message type per simulation).
/// Serializable, for checkpoints of messages in flight.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub enum SocMsg {
    /// Host -> packet processor (injected): a doorbell rang. `queue` is the queue whose
    /// doorbell it was, or `None` to look at every queue.
    Doorbell {
        /// The queue.
        queue: Option<u32>,
    },
    /// Packet processor -> each XCD's command processor: take your share of the dispatch
    /// with this key (in the SoC's registry).
    Dispatch(u64),
    /// Command processor -> CU: run this workgroup on the resources placed for it.
    Workgroup(Box<WorkgroupAssign>),
    /// CU -> command processor: the workgroup ended; free its resources.
    WorkgroupDone(Box<WorkgroupDone>),
    /// CU -> command processor (clocked mode): the memory instructions of `workgroups`
    /// workgroups of dispatch `seq` that ended [`WorkgroupDone::draining`] are all
    /// acknowledged; they count as done now.
    Drained {
        /// Index of the CU in its XCD.
        cu: u32,
        /// Dispatch sequence number.
        seq: u64,
        /// Workgroups drained.
        workgroups: u32,
    },
    /// Command processor -> driver: this XCD's share of the dispatch is complete.
    DispatchDone {
        /// The XCD.
        xcd: u32,
        /// The dispatch's sequence number.
        seq: u64,
        /// The first fault of the share, if any.
        fault: Option<Box<Fault>>,
        /// Wave-instructions the share's waves retired (absent from images written
        /// before the count existed).
        #[serde(default)]
        instructions: u64,
    },
    /// A CU's own quantum timer.
    Tick,
    /// Memory requests travelling down the hierarchy (CU -> L2 -> IOD). In functional mode
    /// the data itself is read and written in device memory at execution; these carry
    /// what the next level must see, for cache state and statistics, and are what the
    /// clocked mode will time.
    Mem(Box<Vec<MemReq>>),
    /// Clocked mode: a timed line request (CU -> L2 -> IOD).
    TimedReq(super::timing::TimedReq),
    /// Clocked mode: its response (IOD -> L2 -> CU).
    TimedResp(super::timing::TimedReq),
}

/// A workgroup placed on a CU.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkgroupAssign {
    /// The dispatch's key (in the SoC's registry).
    pub dispatch: u64,
    /// Workgroup id.
    pub id: [u32; 3],
    /// Its LDS and barrier.
    pub alloc: WorkgroupAlloc,
    /// Its waves' slots and registers.
    pub waves: Vec<WaveAlloc>,
    /// Index of the CU in its XCD (the CP's numbering).
    pub cu: u32,
}

/// A workgroup that ended (or faulted).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkgroupDone {
    /// Index of the CU in its XCD.
    pub cu: u32,
    /// Its LDS and barrier.
    pub alloc: WorkgroupAlloc,
    /// Its waves.
    pub waves: Vec<WaveAlloc>,
    /// Dispatch sequence number.
    pub seq: u64,
    /// Why it stopped early, if it did.
    pub fault: Option<Box<Fault>>,
    /// Wave-instructions its waves retired (absent from images written before the count
    /// existed).
    #[serde(default)]
    pub instructions: u64,
    /// Clocked mode: its stores, atomics or loads are still in flight; its resources are
    /// free, but it counts as done for its dispatch only when a [`SocMsg::Drained`] says
    /// so (a dispatch completes after its memory operations are acknowledged).
    #[serde(default)]
    pub draining: bool,
}

/// One line-sized request to the next memory level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemReq {
    /// Address (line address for fills and write-backs).
    pub addr: u64,
    /// Bytes.
    pub bytes: u32,
    /// Read (fill), write (write-through, write-back) or atomic.
    pub kind: AccessKind,
    /// Memory type the access carries.
    pub mtype: MType,
    /// A cache-maintenance request for the L2 instead of an access ([`L2Maint`]).
    pub maint: L2Maint,
}

/// What a request asks of the L2 besides (or instead of) an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum L2Maint {
    /// A plain access.
    #[default]
    None,
    /// Write every dirty line back, keep the lines (`buffer_wbl2`, `global_wb`).
    WriteBack,
    /// Write dirty lines back and drop every line (`buffer_inv sc1`, `global_inv
    /// scope:SCOPE_SYS`).
    Invalidate,
}
