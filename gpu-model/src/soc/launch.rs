//! Preparing a dispatch for the SoC: kernarg segment, AQL packet, scratch, workgroup shape.
//!
//! The kernarg layout is shared with `Device::dispatch` ([`crate::dispatch::kernarg`]).

use crate::dispatch::kernarg::{self, LaunchShape, KERNARG_PAD};
use crate::dispatch::{DispatchPacket, Launch, PACKET_TYPE_KERNEL_DISPATCH};
use crate::exec::Program;
use crate::loader::{CodeObject, KernelDescriptor};
use crate::memory::{DeviceMemory, LoadedCodeObject};
use crate::occupancy::{occupancy, KernelResources, Occupancy};
use crate::service::{DispatchServices, SetupError};
use crate::Target;
use std::sync::Arc;

use super::SocError;

/// A loaded code object.
#[derive(Debug)]
pub(crate) struct Module {
    /// The code object's bytes (a checkpoint carries them to rebuild the module).
    pub(crate) bytes: Vec<u8>,
    pub(crate) co: CodeObject,
    pub(crate) loaded: LoadedCodeObject,
    pub(crate) program: Arc<Program>,
}

/// Everything the CP and CUs need to run one dispatch. Shared (`Arc`) by every message.
#[derive(Debug)]
pub struct Dispatch {
    /// Sequence number (1, 2, ... in submission order).
    pub seq: u64,
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
    /// Decoded code.
    pub program: Arc<Program>,
    /// Resource needs and limits of one workgroup on one CU.
    pub occupancy: Occupancy,
    /// Workgroups per dimension.
    pub counts: [u32; 3],
    /// CUs per XCD (for scratch indexing).
    pub cus_per_xcd: u32,
    /// Index of the module in its SoC (how a checkpoint finds `program` again).
    pub(crate) module: usize,
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
    fn scratch_per_workgroup(&self) -> u64 {
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
            dispatch_id: self.seq,
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

/// Builds the dispatch: allocates and writes kernargs, packet, scratch and the runtime
/// service buffers the kernel asks for (see [`crate::service`]) in `mem`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare(
    mem: &mut DeviceMemory,
    module: &Module,
    module_index: usize,
    req: &LaunchRequest<'_>,
    cfg: &crate::config::GpuConfig,
    queue_address: u64,
    seq: u64,
) -> Result<(Dispatch, Option<DispatchServices>), SocError> {
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
    let built = kernarg::build_kernargs(
        md,
        &desc,
        &shape,
        queue_address,
        req.args.iter().map(Vec::as_slice),
        cfg.xcd.cu.lds_bytes,
    )
    .map_err(|source| SocError::Kernarg {
        kernel: name.to_string(),
        source,
    })?;
    let mut kernargs = built.bytes;
    let (grid, wg) = (req.grid, req.workgroup);
    let dims = shape.dims();
    let counts = shape.workgroup_counts();
    let private = kernarg::private_bytes_per_lane(&desc, md, 0);
    let scratch_per_lane = u64::from(private.div_ceil(4) * 4);
    let lds = built.group_segment_size;
    let wave_size = kernel.wave_size(target);
    let res = KernelResources {
        wave_size,
        vgprs: md.vgpr_count,
        agprs: md.agpr_count,
        sgprs: md.sgpr_count,
        lds_bytes: lds,
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
    let services =
        DispatchServices::attach(mem, md, packets, &mut kernargs).map_err(|e| match e {
            SetupError::Alloc(e) => SocError::Memory(e),
            SetupError::Memory(e) => SocError::Fault(e),
        })?;
    let kernarg_address = mem.allocate(kernargs.len() as u64 + KERNARG_PAD, 256)?;
    mem.write(kernarg_address, &kernargs)?;
    let packet = DispatchPacket {
        header: PACKET_TYPE_KERNEL_DISPATCH,
        setup: dims,
        workgroup_size: std::array::from_fn(|d| wg[d] as u16),
        grid_size: grid,
        private_segment_size: private,
        group_segment_size: lds,
        kernel_object: loaded.descriptor_address,
        kernarg_address,
        completion_signal: 0,
    };
    let packet_address = mem.allocate(64, 64)?;
    mem.write(packet_address, &packet.to_bytes())?;
    let entry_pc = kernarg::entry_pc(target, &desc, loaded.entry_address);
    let mut d = Dispatch {
        seq,
        kernel: name.to_string(),
        target,
        descriptor: desc,
        entry_pc,
        packet,
        packet_address,
        queue_address,
        scratch_base: 0,
        scratch_per_lane,
        kernargs,
        program: module.program.clone(),
        occupancy: occ,
        counts,
        cus_per_xcd: cfg.xcd.active_cus,
        module: module_index,
    };
    if scratch_per_lane > 0 {
        let regions = u64::from(cfg.total_cus()) * u64::from(occ.workgroups_per_cu);
        d.scratch_base = mem.allocate(regions * d.scratch_per_workgroup(), 256)?;
    }
    Ok((d, services))
}

/// [`Dispatch`] without its decoded program, which a restore takes from the module the
/// dispatch names.
#[derive(serde::Serialize, serde::Deserialize)]
struct DispatchImage {
    seq: u64,
    kernel: String,
    target: Target,
    descriptor: KernelDescriptor,
    entry_pc: u64,
    packet: DispatchPacket,
    packet_address: u64,
    queue_address: u64,
    scratch_base: u64,
    scratch_per_lane: u64,
    kernargs: Vec<u8>,
    occupancy: Occupancy,
    counts: [u32; 3],
    cus_per_xcd: u32,
    module: usize,
}

impl serde::Serialize for Dispatch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, so a new field fails to compile here until it is saved.
        let Dispatch {
            seq,
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
            occupancy,
            counts,
            cus_per_xcd,
            module,
        } = self;
        DispatchImage {
            seq: *seq,
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
            occupancy: *occupancy,
            counts: *counts,
            cus_per_xcd: *cus_per_xcd,
            module: *module,
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Dispatch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Dispatch, D::Error> {
        let i = DispatchImage::deserialize(d)?;
        let program = super::checkpoint::program(i.module).map_err(serde::de::Error::custom)?;
        Ok(Dispatch {
            seq: i.seq,
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
            occupancy: i.occupancy,
            counts: i.counts,
            cus_per_xcd: i.cus_per_xcd,
            module: i.module,
        })
    }
}
