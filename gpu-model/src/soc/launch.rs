//! Dispatches of the SoC: what a runtime prepares on the host side (kernarg segment,
//! scratch, the AQL packet it writes into a ring: [`prepare`]) and what the command
//! processor builds from a packet it reads from memory ([`from_packet`]).
//!
//! The kernarg layout is shared with `Device::dispatch` ([`crate::dispatch::kernarg`]).

use crate::config::GpuConfig;
use crate::dispatch::kernarg::{self, LaunchShape, KERNARG_PAD};
use crate::dispatch::{DispatchPacket, Launch, PACKET_TYPE_KERNEL_DISPATCH};
use crate::exec::Program;
use crate::loader::{CodeObject, KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
use crate::memory::{DeviceMemory, LoadedCodeObject};
use crate::occupancy::{occupancy, KernelResources, Occupancy};
use crate::service::{DispatchServices, SetupError};
use crate::Target;
use std::sync::Arc;

use super::queue::{CodeCache, PacketError, PacketErrorKind, QueueState};
use super::SocError;

/// A loaded code object.
#[derive(Debug)]
pub(crate) struct Module {
    /// The code object's bytes (a checkpoint carries them to rebuild the module).
    pub(crate) bytes: Vec<u8>,
    pub(crate) co: CodeObject,
    pub(crate) loaded: LoadedCodeObject,
}

/// Everything the CP and CUs need to run one dispatch, built by the packet processor from
/// the packet in memory. Messages name it by [`Dispatch::seq`]; the SoC's registry holds
/// it while it runs.
#[derive(Debug)]
pub struct Dispatch {
    /// Its key ([`super::queue::dispatch_key`] of queue and packet index).
    pub seq: u64,
    /// The queue it came from.
    pub queue: u32,
    /// The packet index in its queue (the kernel's dispatch id).
    pub index: u64,
    /// Kernel name.
    pub kernel: String,
    /// Target.
    pub target: Target,
    /// The kernel descriptor.
    pub descriptor: KernelDescriptor,
    /// First instruction (after the kernarg-preload prologue where there is one).
    pub entry_pc: u64,
    /// The AQL packet.
    pub packet: DispatchPacket,
    /// Where the packet is in device memory.
    pub packet_address: u64,
    /// Queue descriptor address.
    pub queue_address: u64,
    /// Scratch: one region per (CU, resident workgroup), see [`Dispatch::scratch_for`].
    pub scratch_base: u64,
    /// Private bytes per lane.
    pub scratch_per_lane: u64,
    /// Kernarg bytes (also in device memory at `packet.kernarg_address`).
    pub kernargs: Vec<u8>,
    /// Decoded code (from the SoC's code cache).
    pub program: Arc<Program>,
    /// The id of `program` in the code cache.
    pub program_id: u32,
    /// Resource needs and limits of one workgroup on one CU.
    pub occupancy: Occupancy,
    /// Workgroups per dimension.
    pub counts: [u32; 3],
    /// CUs per XCD (for scratch indexing).
    pub cus_per_xcd: u32,
}

impl Dispatch {
    /// Total workgroups.
    pub fn total_workgroups(&self) -> u64 {
        self.counts.iter().map(|&c| u64::from(c)).product()
    }

    /// Workgroup id of linear index `i` (x fastest).
    pub fn workgroup_id(&self, i: u64) -> [u32; 3] {
        let (cx, cy) = (u64::from(self.counts[0]), u64::from(self.counts[1]));
        [
            (i % cx) as u32,
            ((i / cx) % cy) as u32,
            (i / (cx * cy)) as u32,
        ]
    }

    /// Work-items per dimension of workgroup `wg` (the last one of a dimension is partial).
    pub fn workgroup_dims(&self, wg: [u32; 3]) -> [u32; 3] {
        std::array::from_fn(|d| {
            let size = u32::from(self.packet.workgroup_size[d]);
            size.min(self.packet.grid_size[d] - wg[d] * size)
        })
    }

    /// Scratch bytes of one workgroup's waves.
    pub(crate) fn scratch_per_workgroup(&self) -> u64 {
        self.scratch_per_lane
            * u64::from(self.descriptor.wave_size(self.target))
            * u64::from(self.occupancy.shape.waves)
    }

    /// Base of the scratch region of resident-workgroup slot `slot` on CU `cu` of `xcd`.
    pub fn scratch_for(&self, xcd: u32, cu: u32, slot: u32) -> u64 {
        if self.scratch_per_lane == 0 {
            return 0;
        }
        let region = (u64::from(xcd) * u64::from(self.cus_per_xcd) + u64::from(cu))
            * u64::from(self.occupancy.workgroups_per_cu)
            + u64::from(slot);
        self.scratch_base + region * self.scratch_per_workgroup()
    }

    /// The ABI view of this dispatch for one workgroup whose scratch starts at `scratch`.
    pub fn launch(&self, scratch: u64) -> Launch<'_> {
        Launch {
            kernel: &self.kernel,
            target: self.target,
            descriptor: &self.descriptor,
            entry_pc: self.entry_pc,
            packet: self.packet,
            packet_address: self.packet_address,
            queue_address: self.queue_address,
            dispatch_id: self.index,
            scratch_base: scratch,
            scratch_per_lane: self.scratch_per_lane,
            kernargs: &self.kernargs,
        }
    }
}

/// What a launch asks for.
#[derive(Debug, Clone)]
pub struct LaunchRequest<'a> {
    /// Kernel name.
    pub kernel: &'a str,
    /// Grid in work-items.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u32; 3],
    /// Dynamic LDS bytes (HIP `extern __shared__`), after the static LDS and the `__local`
    /// pointer arguments' LDS.
    pub dynamic_lds: u32,
    /// Explicit argument bytes, in order (a buffer is its 8-byte address; a
    /// `dynamic_shared_pointer` argument is its LDS byte count, see
    /// [`kernarg::build_kernargs`]).
    pub args: &'a [Vec<u8>],
}

/// What the host side prepared for one launch: the packet to write into a ring (its
/// kernargs and completion signal allocated) and the scratch allocated for it.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) packet: DispatchPacket,
    /// Scratch allocated for the dispatch (0: none needed).
    pub(crate) scratch: u64,
    /// The virtual-LDS backing of a sidecar dispatch (0: none), freed with the kernargs
    /// when the dispatch completes.
    pub(crate) virtual_lds: u64,
    /// The runtime service buffers the kernel asked for (see [`crate::service`]).
    pub(crate) services: Option<DispatchServices>,
}

/// The host side of a launch (what a runtime does): lays out and writes the kernarg
/// segment, sizes and allocates scratch, and builds the AQL packet.
pub(crate) fn prepare(
    mem: &mut DeviceMemory,
    module: &Module,
    req: &LaunchRequest<'_>,
    cfg: &GpuConfig,
    queue_address: u64,
    heap: &crate::service::devmem::SharedHeap,
) -> Result<Prepared, SocError> {
    let name = req.kernel;
    let bad = |m: String| SocError::BadLaunch(format!("kernel `{name}`: {m}"));
    let kernel = module
        .co
        .kernel(name)
        .ok_or_else(|| SocError::UnknownKernel(name.to_string()))?;
    let loaded = module
        .loaded
        .kernel(name)
        .ok_or_else(|| SocError::UnknownKernel(name.to_string()))?;
    let md = kernel
        .metadata
        .as_ref()
        .ok_or_else(|| bad("no metadata".into()))?;
    let desc = kernel.descriptor;
    let target = cfg.target;
    if req.grid.contains(&0) || req.workgroup.contains(&0) {
        return Err(bad("zero grid or workgroup size".into()));
    }
    let wg_items: u32 = req.workgroup.iter().product();
    if wg_items > cfg.max_workgroup_size || req.workgroup.iter().any(|&x| x > u32::from(u16::MAX)) {
        return Err(bad(format!("workgroup {:?} is too large", req.workgroup)));
    }
    let shape = LaunchShape {
        grid: req.grid,
        workgroup: req.workgroup,
        dynamic_lds: req.dynamic_lds,
    };
    // A virtual-LDS sidecar serves up to its own limit.
    let host_lds = cfg.xcd.cu.lds_bytes;
    let sidecar = module.co.sidecar(kernel.descriptor_address);
    let lds_limit = sidecar.map_or(host_lds, |s| s.lds_limit.max(host_lds));
    let built = kernarg::build_kernargs(
        md,
        &desc,
        &shape,
        queue_address,
        req.args.iter().map(Vec::as_slice),
        lds_limit,
    )
    .map_err(|source| SocError::Kernarg {
        kernel: name.to_string(),
        source,
    })?;
    let mut kernargs = built.bytes;
    // More LDS than the device has: the sidecar, its LDS in global memory (the design's
    // dispatch-time selection on max(descriptor LDS, packet group_segment_size)).
    let requested = built.group_segment_size.max(desc.group_segment_fixed_size);
    let virtual_lds = match sidecar.filter(|_| requested > host_lds) {
        Some(sc) => {
            let (strides, total) =
                kernarg::virtual_lds_state(&sc.descriptor, requested, shape.workgroup_counts())
                    .map_err(bad)?;
            let backing = mem.allocate(total.max(1), 256)?;
            kernarg::write_virtual_lds_state(&mut kernargs, sc.state_offset, backing, &strides);
            Some((sc.descriptor_address, sc.state_offset, backing))
        }
        None => None,
    };
    let group_segment_size = if virtual_lds.is_some() {
        0
    } else {
        built.group_segment_size
    };
    let private = kernarg::private_bytes_per_lane(&desc, md, 0);
    let res = KernelResources {
        wave_size: kernel.wave_size(target),
        vgprs: md.vgpr_count,
        agprs: md.agpr_count,
        sgprs: md.sgpr_count,
        lds_bytes: group_segment_size,
        workgroup_size: wg_items,
        scratch_bytes_per_lane: private,
    };
    let occ = occupancy(&cfg.xcd.cu, target, &res).map_err(|e| bad(e.to_string()))?;

    // A hostcall packet for every wave that can be resident at once.
    let waves = u64::from(cfg.total_cus()) * u64::from(occ.waves_per_cu);
    let grid_waves = shape
        .workgroup_counts()
        .iter()
        .map(|&c| u64::from(c))
        .product::<u64>()
        * u64::from(occ.shape.waves);
    let packets = u32::try_from(waves.min(grid_waves)).unwrap_or(u32::MAX);
    let services = DispatchServices::attach(
        mem,
        md,
        module.co.printf_formats(),
        heap,
        packets,
        &mut kernargs,
    )
    .map_err(|e| match e {
        SetupError::Alloc(e) => SocError::Memory(e),
        SetupError::Memory(e) => SocError::Fault(e),
        e @ SetupError::Printf(_) => SocError::BadLaunch(e.to_string()),
    })?;
    let kernarg_address = mem.allocate(kernargs.len() as u64 + KERNARG_PAD, 256)?;
    mem.write(kernarg_address, &kernargs)?;
    if let Some(p) = virtual_lds.and_then(|(_, at, _)| u64::from(at).checked_sub(8)) {
        // The wrapper's original kernarg pointer: the segment itself.
        mem.store_u64(kernarg_address + p, kernarg_address)?;
    }
    // The completion signal: an amd_signal_t whose value (at +8) starts at 1.
    let signal = mem.allocate(super::queue::SIGNAL_BYTES, 64)?;
    mem.store_u64(signal + super::queue::SIGNAL_VALUE, 1)?;
    let packet = DispatchPacket {
        header: PACKET_TYPE_KERNEL_DISPATCH,
        setup: shape.dims(),
        workgroup_size: std::array::from_fn(|d| req.workgroup[d] as u16),
        grid_size: req.grid,
        private_segment_size: private,
        group_segment_size,
        kernel_object: virtual_lds.map_or(loaded.descriptor_address, |(kd, _, _)| {
            loaded.descriptor_address - kernel.descriptor_address + kd
        }),
        kernarg_address,
        completion_signal: signal,
    };
    let need = scratch_bytes(cfg, &desc, target, private, &occ);
    let scratch = if need > 0 {
        mem.allocate(need, 256)?
    } else {
        0
    };
    Ok(Prepared {
        packet,
        scratch,
        virtual_lds: virtual_lds.map_or(0, |(_, _, b)| b),
        services,
    })
}

/// Scratch bytes a dispatch needs: one region per (CU, resident workgroup).
fn scratch_bytes(
    cfg: &GpuConfig,
    desc: &KernelDescriptor,
    target: Target,
    private: u32,
    occ: &Occupancy,
) -> u64 {
    let per_lane = u64::from(private.div_ceil(4) * 4);
    let per_wg = per_lane * u64::from(desc.wave_size(target)) * u64::from(occ.shape.waves);
    u64::from(cfg.total_cus()) * u64::from(occ.workgroups_per_cu) * per_wg
}

/// A kernel-dispatch packet as the packet processor reads it, before any placement
/// decision: the packet, the descriptor at its `kernel_object`, the entry and the program
/// containing it (from the code cache), the kernel's name where it is known and the
/// kernarg segment read from memory. The SoC's packet processor ([`from_packet`]) and
/// [`crate::device::Device`] both read packets with it.
#[derive(Debug)]
pub(crate) struct DecodedPacket {
    pub(crate) packet: DispatchPacket,
    pub(crate) descriptor: KernelDescriptor,
    pub(crate) entry: u64,
    pub(crate) program_id: u32,
    pub(crate) program: Arc<Program>,
    pub(crate) kernel: String,
    pub(crate) known: Option<super::queue::KnownKernel>,
    pub(crate) kernargs: Vec<u8>,
    /// Work-items per workgroup.
    pub(crate) wg_items: u32,
}

/// Reads kernel-dispatch packet `bytes` (packet `index` of queue `queue`): checks its
/// geometry (at most `max_workgroup` work-items per workgroup), reads the descriptor at
/// `kernel_object`, finds the program and reads the kernargs.
pub(crate) fn decode_packet(
    mem: &DeviceMemory,
    code: &mut CodeCache,
    target: Target,
    max_workgroup: u32,
    queue: u32,
    index: u64,
    bytes: &[u8; 64],
) -> Result<DecodedPacket, PacketError> {
    let err = |field: &str, kind: PacketErrorKind| PacketError {
        queue,
        index,
        field: field.to_string(),
        kind,
    };
    let inval = |field: &str, m: String| err(field, PacketErrorKind::Invalid(m));
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    let u32_at =
        |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let u64_at = |o: usize| u64::from(u32_at(o)) | u64::from(u32_at(o + 4)) << 32;
    let packet = DispatchPacket {
        header: u16_at(0),
        setup: u16_at(2),
        workgroup_size: [u16_at(4), u16_at(6), u16_at(8)],
        grid_size: [u32_at(12), u32_at(16), u32_at(20)],
        private_segment_size: u32_at(24),
        group_segment_size: u32_at(28),
        kernel_object: u64_at(32),
        kernarg_address: u64_at(40),
        completion_signal: u64_at(56),
    };
    let dims = packet.setup & 3;
    if dims == 0 {
        return Err(inval(
            "setup",
            format!("{} dimensions (1 to 3)", packet.setup),
        ));
    }
    for d in 0..3 {
        let (wg, grid) = (packet.workgroup_size[d], packet.grid_size[d]);
        if wg == 0 || grid == 0 {
            let f = if wg == 0 {
                "workgroup_size"
            } else {
                "grid_size"
            };
            return Err(inval(f, format!("dimension {d} is 0")));
        }
    }
    let wg_items: u32 = packet
        .workgroup_size
        .iter()
        .map(|&x| u32::from(x))
        .product();
    if wg_items > max_workgroup {
        return Err(inval(
            "workgroup_size",
            format!("{wg_items} work-items (at most {max_workgroup})"),
        ));
    }
    let ko = packet.kernel_object;
    if !ko.is_multiple_of(64) {
        return Err(inval(
            "kernel_object",
            format!("{ko:#x} is not 64-byte aligned"),
        ));
    }
    let mut kd = [0u8; KERNEL_DESCRIPTOR_SIZE];
    mem.read(ko, &mut kd)
        .map_err(|f| err("kernel_object", PacketErrorKind::Memory(f)))?;
    let desc = KernelDescriptor::from_bytes(&kd);
    let off = desc.kernel_code_entry_byte_offset;
    let entry = ko.wrapping_add_signed(off);
    if off == 0 || !entry.is_multiple_of(256) {
        return Err(inval(
            "kernel_object",
            format!(
                "descriptor at {ko:#x}: kernel_code_entry_byte_offset {off:#x} gives entry \
                 {entry:#x}, not a 256-byte aligned address outside the descriptor"
            ),
        ));
    }
    let (program_id, program) = code
        .program(mem, target, entry)
        .map_err(|f| err("kernel_object", PacketErrorKind::Memory(f)))?;
    let known = code.kernels.get(&ko).cloned();
    let kernel = known
        .as_ref()
        .map_or_else(|| format!("kernel@{ko:#x}"), |k| k.name.clone());
    let kernargs = {
        let n = desc.kernarg_size as usize;
        let mut k = vec![0u8; n];
        if n > 0 {
            mem.read(packet.kernarg_address, &mut k)
                .map_err(|f| err("kernarg_address", PacketErrorKind::Memory(f)))?;
        }
        k
    };
    Ok(DecodedPacket {
        packet,
        descriptor: desc,
        entry,
        program_id,
        program,
        kernel,
        known,
        kernargs,
        wg_items,
    })
}

/// Decodes a kernel-dispatch packet read from slot `packet_address` of queue `q` (packet
/// `index`) into a dispatch: descriptor from memory at `kernel_object`, program from the
/// code cache, kernargs from memory, resources, scratch from the queue.
#[allow(clippy::too_many_arguments)]
pub(crate) fn from_packet(
    mem: &DeviceMemory,
    code: &mut CodeCache,
    cfg: &GpuConfig,
    q: &QueueState,
    queue: u32,
    index: u64,
    packet_address: u64,
    bytes: &[u8; 64],
) -> Result<Dispatch, PacketError> {
    let inval = |field: &str, m: String| PacketError {
        queue,
        index,
        field: field.to_string(),
        kind: PacketErrorKind::Invalid(m),
    };
    let target = cfg.target;
    let DecodedPacket {
        packet,
        descriptor: desc,
        entry,
        program_id,
        program,
        kernel,
        known,
        kernargs,
        wg_items,
    } = decode_packet(
        mem,
        code,
        target,
        cfg.max_workgroup_size,
        queue,
        index,
        bytes,
    )?;
    let private = packet
        .private_segment_size
        .max(desc.private_segment_fixed_size);
    let lds = packet.group_segment_size.max(desc.group_segment_fixed_size);
    let wave_size = desc.wave_size(target);
    let (vgprs, agprs, sgprs) = match &known {
        Some(k) => (k.vgprs, k.agprs, k.sgprs),
        // From the descriptor's granulated counts (all the hardware has).
        None => (
            desc.allocated_vgprs(target),
            0,
            desc.allocated_sgprs(target)
                .unwrap_or(cfg.xcd.cu.max_sgprs_per_wave),
        ),
    };
    let res = KernelResources {
        wave_size,
        vgprs,
        agprs,
        sgprs,
        lds_bytes: lds,
        workgroup_size: wg_items,
        scratch_bytes_per_lane: private,
    };
    let occ = occupancy(&cfg.xcd.cu, target, &res)
        .map_err(|e| inval("kernel_object", format!("kernel `{kernel}`: {e}")))?;
    let need = scratch_bytes(cfg, &desc, target, private, &occ);
    let scratch_base = if need == 0 {
        0
    } else if let Some(&b) = q.packet_scratch.get(&index) {
        b
    } else if q.scratch.1 >= need {
        q.scratch.0
    } else {
        return Err(inval(
            "private_segment_size",
            format!(
                "the dispatch needs {need} bytes of scratch, the queue has {}",
                q.scratch.1
            ),
        ));
    };
    let counts = packet.workgroup_counts();
    Ok(Dispatch {
        seq: super::queue::dispatch_key(queue, index),
        queue,
        index,
        kernel,
        target,
        descriptor: desc,
        entry_pc: kernarg::entry_pc(target, &desc, entry),
        packet,
        packet_address,
        queue_address: q.desc.queue_address,
        scratch_base,
        scratch_per_lane: u64::from(private.div_ceil(4) * 4),
        kernargs,
        program,
        program_id,
        occupancy: occ,
        counts,
        cus_per_xcd: cfg.xcd.active_cus,
    })
}

/// [`Dispatch`] with its program named by id, for checkpoints.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct DispatchImage {
    seq: u64,
    queue: u32,
    index: u64,
    kernel: String,
    target: Target,
    descriptor: KernelDescriptor,
    entry_pc: u64,
    packet: DispatchPacket,
    packet_address: u64,
    queue_address: u64,
    scratch_base: u64,
    scratch_per_lane: u64,
    #[serde(with = "super::checkpoint::blob")]
    kernargs: Vec<u8>,
    program_id: u32,
    occupancy: Occupancy,
    counts: [u32; 3],
    cus_per_xcd: u32,
}

impl Dispatch {
    pub(crate) fn image(&self) -> DispatchImage {
        // Every field named, so a new field fails to compile here until it is saved.
        let Dispatch {
            seq,
            queue,
            index,
            kernel,
            target,
            descriptor,
            entry_pc,
            packet,
            packet_address,
            queue_address,
            scratch_base,
            scratch_per_lane,
            kernargs,
            program: _,
            program_id,
            occupancy,
            counts,
            cus_per_xcd,
        } = self;
        DispatchImage {
            seq: *seq,
            queue: *queue,
            index: *index,
            kernel: kernel.clone(),
            target: *target,
            descriptor: *descriptor,
            entry_pc: *entry_pc,
            packet: *packet,
            packet_address: *packet_address,
            queue_address: *queue_address,
            scratch_base: *scratch_base,
            scratch_per_lane: *scratch_per_lane,
            kernargs: kernargs.clone(),
            program_id: *program_id,
            occupancy: *occupancy,
            counts: *counts,
            cus_per_xcd: *cus_per_xcd,
        }
    }

    /// Rebuilds a dispatch from its image with its program from `programs`.
    pub(crate) fn from_image(
        i: DispatchImage,
        programs: &[Option<Arc<Program>>],
    ) -> Result<Dispatch, String> {
        let program = programs
            .get(i.program_id as usize)
            .cloned()
            .flatten()
            .ok_or_else(|| {
                format!(
                    "dispatch {} names program {}, which the checkpoint lacks",
                    i.seq, i.program_id
                )
            })?;
        Ok(Dispatch {
            seq: i.seq,
            queue: i.queue,
            index: i.index,
            kernel: i.kernel,
            target: i.target,
            descriptor: i.descriptor,
            entry_pc: i.entry_pc,
            packet: i.packet,
            packet_address: i.packet_address,
            queue_address: i.queue_address,
            scratch_base: i.scratch_base,
            scratch_per_lane: i.scratch_per_lane,
            kernargs: i.kernargs,
            program,
            program_id: i.program_id,
            occupancy: i.occupancy,
            counts: i.counts,
            cus_per_xcd: i.cus_per_xcd,
        })
    }
}
