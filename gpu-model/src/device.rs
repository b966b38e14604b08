//! The device API: memory, code objects and kernel dispatch, as a runtime sees a GPU.
//!
//! ```no_run
//! use gpu_model::device::{ArgValue, Device, LaunchConfig};
//! use gpu_model::Target;
//! let mut dev = Device::new(Target::Gfx942);
//! let module = dev.load_code_object(&std::fs::read("vadd.hsaco").unwrap()).unwrap();
//! let n = 1000u32;
//! let (a, b, c) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap(),
//!                  dev.alloc(4 * n as u64).unwrap());
//! let args = [ArgValue::ptr(a), ArgValue::ptr(b), ArgValue::ptr(c), ArgValue::u32(n)];
//! let id = dev.dispatch(module, "vadd", &LaunchConfig::new([n, 1, 1], [256, 1, 1]), &args).unwrap();
//! dev.wait(id).unwrap();
//! ```
//!
//! A dispatch goes the way a runtime submits work, through the same queue code as the
//! SoC's command processor ([`crate::soc::queue`]): the host side writes a kernarg segment
//! (explicit arguments at their metadata offsets, hidden arguments filled per their value
//! kinds) into device memory and publishes an AQL kernel-dispatch packet in the device's
//! ring (an `amd_queue_t` with its write and read dispatch ids, [`Device::queue`]); the
//! doorbell makes the packet processor read the packet back from the ring, look up
//! `kernel_object` -> kernel descriptor -> program (the code cache the SoC uses), release
//! the slot, run the kernel's workgroups ([`crate::dispatch::run`]) and decrement the
//! completion signal, an `amd_signal_t` in device memory. Dispatches complete
//! synchronously; [`Device::wait`] returns the recorded outcome.

use crate::dispatch::kernarg::{self, KernargError, LaunchShape, KERNARG_PAD};
use crate::dispatch::{self, DispatchPacket, DispatchStats, Fault, Launch, RunOptions};
use crate::exec::Program;
use crate::loader::{CodeObject, FeatureMode, Kernel, LoadError};
use crate::memory::{DeviceMemory, ImageError, LoadedCodeObject, MemFault, MemoryError};
use crate::service::{DispatchOutput, DispatchServices, SetupError};
use crate::soc::queue::{self, CodeCache, PacketError, QueueDesc};
use crate::Target;
use std::collections::HashMap;
use std::sync::Arc;

/// Why a device operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// The code object could not be parsed or is for another device.
    #[error("load: {0}")]
    Load(#[from] LoadError),
    /// The code object image could not be placed in memory.
    #[error("image: {0}")]
    Image(#[from] ImageError),
    /// An allocation failed.
    #[error("memory: {0}")]
    Memory(#[from] MemoryError),
    /// A copy touched memory that is not allocated.
    #[error("copy: {0}")]
    Copy(#[from] MemFault),
    /// No such module handle.
    #[error("unknown module {0}")]
    UnknownModule(usize),
    /// The module has no kernel of that name.
    #[error("kernel `{0}` not found in the module")]
    UnknownKernel(String),
    /// The kernel has no metadata, so its arguments cannot be laid out.
    #[error("kernel `{0}` has no metadata note: cannot lay out arguments")]
    NoMetadata(String),
    /// The wrong number of explicit arguments.
    #[error("kernel `{kernel}` takes {expected} explicit arguments, got {got}")]
    ArgCount {
        /// Kernel.
        kernel: String,
        /// Metadata count.
        expected: usize,
        /// Supplied count.
        got: usize,
    },
    /// An argument of the wrong size.
    #[error("kernel `{kernel}` argument {index} is {expected} bytes, got {got}")]
    ArgSize {
        /// Kernel.
        kernel: String,
        /// Argument index.
        index: usize,
        /// Metadata size.
        expected: u32,
        /// Supplied size.
        got: usize,
    },
    /// Static plus dynamic LDS exceeds the device's LDS per workgroup.
    #[error("kernel `{kernel}`: {source}")]
    Kernarg {
        /// Kernel.
        kernel: String,
        /// What is wrong.
        #[source]
        source: KernargError,
    },
    /// Grid or workgroup sizes are invalid.
    #[error("bad launch configuration: {0}")]
    BadLaunch(String),
    /// The kernel faulted.
    #[error("{0}")]
    Fault(Box<Fault>),
    /// No dispatch with that id.
    #[error("unknown dispatch {0}")]
    UnknownDispatch(u64),
    /// The packet processor could not execute the packet it read from the ring.
    #[error("{0}")]
    Packet(#[from] PacketError),
    /// A runtime service buffer (hostcall) could not be set up or released.
    #[error("kernel `{kernel}`: {source}")]
    Service {
        /// Kernel.
        kernel: String,
        /// What failed.
        #[source]
        source: SetupError,
    },
}

/// Handle of a loaded code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

/// Handle of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DispatchId(pub u64);

/// One explicit kernel argument, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgValue(pub Vec<u8>);

impl ArgValue {
    /// A device pointer.
    pub fn ptr(addr: u64) -> ArgValue {
        ArgValue(addr.to_le_bytes().to_vec())
    }
    /// A u32.
    pub fn u32(v: u32) -> ArgValue {
        ArgValue(v.to_le_bytes().to_vec())
    }
    /// A u64.
    pub fn u64(v: u64) -> ArgValue {
        ArgValue(v.to_le_bytes().to_vec())
    }
    /// An f32.
    pub fn f32(v: f32) -> ArgValue {
        ArgValue(v.to_le_bytes().to_vec())
    }
    /// An f64.
    pub fn f64(v: f64) -> ArgValue {
        ArgValue(v.to_le_bytes().to_vec())
    }
    /// Raw bytes (structs, small integers).
    pub fn bytes(b: &[u8]) -> ArgValue {
        ArgValue(b.to_vec())
    }
    /// An OpenCL `__local` pointer argument (`dynamic_shared_pointer`) of `bytes` bytes, as
    /// `clSetKernelArg(kernel, i, bytes, NULL)` sets it: the dispatch places it in LDS after
    /// the static LDS and the arguments before it and passes the kernel its offset.
    pub fn lds(bytes: u32) -> ArgValue {
        ArgValue(bytes.to_le_bytes().to_vec())
    }
}

/// Grid, workgroup and dynamic LDS of a dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Grid size in work-items.
    pub grid: [u32; 3],
    /// Workgroup size.
    pub workgroup: [u32; 3],
    /// Dynamic LDS bytes (HIP `extern __shared__`), after the static LDS and the LDS of
    /// `__local` pointer arguments ([`ArgValue::lds`]).
    pub dynamic_lds: u32,
    /// Private bytes per work-item beyond the descriptor's fixed size (dynamic stack).
    /// Zero for a kernel with `uses_dynamic_stack` gives it a 16 KiB default.
    pub extra_private: u32,
}

impl LaunchConfig {
    /// A launch without dynamic LDS.
    pub fn new(grid: [u32; 3], workgroup: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            workgroup,
            dynamic_lds: 0,
            extra_private: 0,
        }
    }
}

struct Module {
    co: CodeObject,
    loaded: LoadedCodeObject,
    program: Arc<Program>,
}

/// Bytes of the device's AQL ring (64 packets; dispatches complete synchronously, so one
/// slot is in use at a time).
const RING_BYTES: u64 = 64 * queue::PACKET_BYTES;

/// Most work-items per workgroup (every supported target).
const MAX_WORKGROUP: u32 = 1024;

/// A simulated GPU: device memory, loaded code objects, dispatches.
pub struct Device {
    target: Target,
    xnack: FeatureMode,
    sramecc: FeatureMode,
    mem: DeviceMemory,
    modules: Vec<Module>,
    /// The AQL queue every dispatch goes through.
    queue: QueueDesc,
    /// The completion signal (an `amd_signal_t`) of the dispatch in flight.
    signal: u64,
    /// Decoded programs and kernel names by descriptor address, as the SoC keeps them.
    code: CodeCache,
    results: HashMap<u64, Result<DispatchStats, Box<Fault>>>,
    outputs: HashMap<u64, DispatchOutput>,
    /// The heap behind device-side `malloc`, kept as long as the device.
    heap: crate::service::devmem::SharedHeap,
    /// Runner options (quantum, instruction budget).
    pub options: RunOptions,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("target", &self.target)
            .field("modules", &self.modules.len())
            .finish()
    }
}

impl Device {
    /// A device of `target` with xnack off and sramecc on where the target has them
    /// (the usual production settings).
    pub fn new(target: Target) -> Device {
        let (xnack, sramecc) = crate::loader::bundle::production_modes(target);
        Device::with_modes(target, xnack, sramecc)
    }

    /// A device with explicit xnack/sramecc modes.
    pub fn with_modes(target: Target, xnack: FeatureMode, sramecc: FeatureMode) -> Device {
        let mut mem = DeviceMemory::new();
        // The queue: a 256-byte `amd_queue_t` (write index at +0x38, read index at +0x80),
        // a ring of 64 packets after it, and one completion signal. Fresh memory: the
        // allocations cannot fail, and a failure would show as a packet error later.
        let amd_queue = mem.allocate(256 + RING_BYTES, 256).unwrap_or(0);
        let queue = QueueDesc::amd_queue(amd_queue, amd_queue + 256, RING_BYTES, 0);
        let _ = queue::init_ring(&mem, &queue);
        let signal = mem.allocate(queue::SIGNAL_BYTES, 64).unwrap_or(0);
        Device {
            target,
            xnack,
            sramecc,
            mem,
            modules: Vec::new(),
            queue,
            signal,
            code: CodeCache::default(),
            results: HashMap::new(),
            outputs: HashMap::new(),
            heap: Default::default(),
            options: RunOptions::default(),
        }
    }

    /// The device's target.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The AQL queue dispatches go through (ring, indices, `amd_queue_t` address).
    pub fn queue(&self) -> QueueDesc {
        self.queue
    }

    /// The completion signal (address of its `amd_signal_t`) dispatches carry.
    pub fn completion_signal(&self) -> u64 {
        self.signal
    }

    /// Device memory.
    pub fn memory(&self) -> &DeviceMemory {
        &self.mem
    }

    /// Allocates `size` bytes (256-byte aligned at least), zeroed.
    pub fn alloc(&mut self, size: u64) -> Result<u64, DeviceError> {
        Ok(self.mem.allocate(size.max(1), 256)?)
    }

    /// Frees an allocation.
    pub fn free(&mut self, addr: u64) -> Result<(), DeviceError> {
        Ok(self.mem.free(addr)?)
    }

    /// Copies host bytes to device memory.
    pub fn copy_in(&mut self, addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        Ok(self.mem.write(addr, data)?)
    }

    /// Copies device memory to host bytes.
    pub fn copy_out(&self, addr: u64, out: &mut [u8]) -> Result<(), DeviceError> {
        Ok(self.mem.read(addr, out)?)
    }

    /// Parses, checks and loads a code object; decodes its code once.
    pub fn load_code_object(&mut self, bytes: &[u8]) -> Result<ModuleId, DeviceError> {
        let co = CodeObject::parse(bytes)?;
        co.check_device(self.target, self.xnack, self.sramecc)?;
        let loaded = self.mem.load_code_object(&co)?;
        let program = Arc::new(Program::new(
            self.target,
            loaded.base + co.text_address(),
            co.text(),
        ));
        self.code.register(&co, &loaded, Some(program.clone()));
        self.modules.push(Module {
            co,
            loaded,
            program,
        });
        Ok(ModuleId(self.modules.len() - 1))
    }

    /// The decoded program of a module.
    pub fn program(&self, m: ModuleId) -> Result<Arc<Program>, DeviceError> {
        let m = self
            .modules
            .get(m.0)
            .ok_or(DeviceError::UnknownModule(m.0))?;
        Ok(m.program.clone())
    }

    /// The parsed kernel `name` of a module.
    pub fn kernel(&self, m: ModuleId, name: &str) -> Result<&Kernel, DeviceError> {
        let module = self
            .modules
            .get(m.0)
            .ok_or(DeviceError::UnknownModule(m.0))?;
        module
            .co
            .kernel(name)
            .ok_or_else(|| DeviceError::UnknownKernel(name.to_string()))
    }

    /// Dispatches kernel `name` and runs it to completion. A kernel fault is recorded for
    /// [`Device::wait`]; setup errors are returned here.
    pub fn dispatch(
        &mut self,
        m: ModuleId,
        name: &str,
        cfg: &LaunchConfig,
        args: &[ArgValue],
    ) -> Result<DispatchId, DeviceError> {
        let module = self
            .modules
            .get(m.0)
            .ok_or(DeviceError::UnknownModule(m.0))?;
        let kernel = module
            .co
            .kernel(name)
            .ok_or_else(|| DeviceError::UnknownKernel(name.to_string()))?
            .clone();
        let desc = kernel.descriptor;
        let loaded = module
            .loaded
            .kernel(name)
            .ok_or_else(|| DeviceError::UnknownKernel(name.to_string()))?
            .clone();
        let md = kernel
            .metadata
            .clone()
            .ok_or_else(|| DeviceError::NoMetadata(name.to_string()))?;

        // Launch checks.
        let wg_items: u64 = cfg.workgroup.iter().map(|&x| x as u64).product();
        if cfg.grid.contains(&0) || cfg.workgroup.contains(&0) {
            return Err(DeviceError::BadLaunch("zero grid or workgroup size".into()));
        }
        if wg_items > 1024 || cfg.workgroup.iter().any(|&x| x > u16::MAX as u32) {
            return Err(DeviceError::BadLaunch(format!(
                "workgroup {:?} has {wg_items} work-items (at most 1024)",
                cfg.workgroup
            )));
        }
        if md.max_flat_workgroup_size > 0 && wg_items > md.max_flat_workgroup_size as u64 {
            return Err(DeviceError::BadLaunch(format!(
                "workgroup of {wg_items} work-items exceeds the kernel's max_flat_workgroup_size {}",
                md.max_flat_workgroup_size
            )));
        }

        // A virtual-LDS sidecar serves up to its own limit.
        let host_lds = self.target.lds_bytes_per_workgroup();
        let sidecar = module.co.sidecar(kernel.descriptor_address).cloned();
        let lds_limit = sidecar
            .as_ref()
            .map_or(host_lds, |s| s.lds_limit.max(host_lds));

        // Kernel arguments.
        let shape = LaunchShape {
            grid: cfg.grid,
            workgroup: cfg.workgroup,
            dynamic_lds: cfg.dynamic_lds,
        };
        let built = kernarg::build_kernargs(
            &md,
            &desc,
            &shape,
            self.queue.queue_address,
            args.iter().map(|a| a.0.as_slice()),
            lds_limit,
        )
        .map_err(|e| match e {
            KernargError::ArgCount { expected, got } => DeviceError::ArgCount {
                kernel: name.to_string(),
                expected,
                got,
            },
            KernargError::ArgSize {
                index,
                expected,
                got,
            } => DeviceError::ArgSize {
                kernel: name.to_string(),
                index,
                expected,
                got,
            },
            source => DeviceError::Kernarg {
                kernel: name.to_string(),
                source,
            },
        })?;
        let mut kernargs = built.bytes;
        let dims = shape.dims();
        // Runtime services (hostcall): workgroups run one at a time, so one packet per
        // wave of a workgroup is enough.
        let wg_waves = wg_items.div_ceil(u64::from(desc.wave_size(self.target))) as u32;
        let service_err = |source| DeviceError::Service {
            kernel: name.to_string(),
            source,
        };
        let mut services = DispatchServices::attach(
            &mut self.mem,
            &md,
            module.co.printf_formats(),
            &self.heap,
            wg_waves,
            &mut kernargs,
        )
        .map_err(service_err)?;

        // More LDS than the device has: the sidecar, its LDS in global memory.
        let requested = built.group_segment_size.max(desc.group_segment_fixed_size);
        let mut virtual_lds = None;
        if requested > host_lds {
            if let Some(sc) = &sidecar {
                let (state, total) =
                    kernarg::virtual_lds_state(&sc.descriptor, requested, shape.workgroup_counts())
                        .map_err(|m| DeviceError::BadLaunch(format!("kernel `{name}`: {m}")))?;
                let backing = self.mem.allocate(total.max(1), 256)?;
                kernarg::write_virtual_lds_state(&mut kernargs, sc.state_offset, backing, &state);
                virtual_lds = Some((backing, sc.descriptor_address, sc.state_offset));
            }
        }

        // The host side: kernargs in memory, the completion signal armed, the packet
        // published in the ring.
        let kernarg_addr = self
            .mem
            .allocate(kernargs.len() as u64 + KERNARG_PAD, 256)?;
        self.mem.write(kernarg_addr, &kernargs)?;
        if let Some((_, _, at)) = virtual_lds {
            // The wrapper's original kernarg pointer: the segment itself (this runtime
            // builds the guest's bytes in the wrapper).
            if let Some(p) = u64::from(at).checked_sub(8) {
                self.mem.store_u64(kernarg_addr + p, kernarg_addr)?;
            }
        }
        let private = kernarg::private_bytes_per_lane(&desc, &md, cfg.extra_private);
        self.mem.store_u64(self.signal + queue::SIGNAL_VALUE, 1)?;
        let packet = DispatchPacket {
            header: queue::packet_header(queue::PACKET_KERNEL_DISPATCH, true),
            setup: dims,
            workgroup_size: std::array::from_fn(|d| cfg.workgroup[d] as u16),
            grid_size: cfg.grid,
            private_segment_size: private,
            group_segment_size: if virtual_lds.is_some() {
                0
            } else {
                built.group_segment_size
            },
            kernel_object: virtual_lds.map_or(loaded.descriptor_address, |(_, kd, _)| {
                loaded.descriptor_address - kernel.descriptor_address + kd
            }),
            kernarg_address: kernarg_addr,
            completion_signal: self.signal,
        };
        let index = self.mem.load_u64(self.queue.write_index)?;
        queue::publish(&self.mem, &self.queue, index, &packet.to_bytes())?;
        // The doorbell: the packet processor reads and runs what the ring holds.
        let result = self.process(index, services.as_mut());
        self.mem.free(kernarg_addr)?;
        if let Some((backing, _, _)) = virtual_lds {
            self.mem.free(backing)?;
        }
        let id = queue::dispatch_key(0, index);
        if let Some(mut s) = services {
            // The host prints the printf buffer once the kernel has ended.
            let drained = s.drain(&self.mem);
            let out = s.finish(&mut self.mem).map_err(service_err)?;
            drained.map_err(|e| service_err(SetupError::Printf(e)))?;
            self.outputs.insert(id, out);
        }
        self.results.insert(id, result?);
        Ok(DispatchId(id))
    }

    /// The packet processor: reads packet `index` back from the ring, decodes it with the
    /// SoC's packet code (descriptor at `kernel_object`, program from the code cache,
    /// kernargs from memory), releases the slot, runs the dispatch with scratch for one
    /// workgroup, and decrements its completion signal.
    fn process(
        &mut self,
        index: u64,
        services: Option<&mut DispatchServices>,
    ) -> Result<Result<DispatchStats, Box<Fault>>, DeviceError> {
        let mem_err = |field: &str, f: MemFault| PacketError {
            queue: 0,
            index,
            field: field.to_string(),
            kind: queue::PacketErrorKind::Memory(f),
        };
        let bytes = match queue::read_head(&self.mem, &self.queue, index) {
            Ok(Some(b)) => b,
            Ok(None) => {
                return Err(DeviceError::Packet(PacketError {
                    queue: 0,
                    index,
                    field: "header".into(),
                    kind: queue::PacketErrorKind::Invalid("the packet was not published".into()),
                }))
            }
            Err((field, f)) => return Err(mem_err(field, f).into()),
        };
        let d = crate::soc::launch::decode_packet(
            &self.mem,
            &mut self.code,
            self.target,
            MAX_WORKGROUP,
            0,
            index,
            &bytes,
        )?;
        queue::release_slot(&self.mem, &self.queue, index).map_err(|f| mem_err("read_index", f))?;
        let private = d
            .packet
            .private_segment_size
            .max(d.descriptor.private_segment_fixed_size);
        let mut launch = Launch {
            kernel: &d.kernel,
            target: self.target,
            descriptor: &d.descriptor,
            entry_pc: kernarg::entry_pc(self.target, &d.descriptor, d.entry),
            packet: d.packet,
            packet_address: self.queue.slot(index),
            queue_address: self.queue.queue_address,
            dispatch_id: index,
            scratch_base: 0,
            scratch_per_lane: u64::from(private.div_ceil(4)) * 4,
            kernargs: &d.kernargs,
        };
        let scratch_bytes = launch.scratch_bytes_per_wave() * launch.waves_per_workgroup() as u64;
        let scratch = if scratch_bytes > 0 {
            Some(self.mem.allocate(scratch_bytes, 256)?)
        } else {
            None
        };
        launch.scratch_base = scratch.unwrap_or(0);
        let result =
            dispatch::run_with_services(&self.mem, &d.program, &launch, &self.options, services);
        if let Some(a) = scratch {
            self.mem.free(a)?;
        }
        // The device has no clock: timestamps 0.
        queue::complete_signal(&self.mem, d.packet.completion_signal, (0, 0), 0)
            .map_err(|f| mem_err("completion_signal", f))?;
        Ok(result)
    }

    /// What a dispatch printed (hostcall `printf`), taken once; empty for a kernel that
    /// prints nothing. Available whether or not the dispatch faulted.
    pub fn take_output(&mut self, id: DispatchId) -> DispatchOutput {
        self.outputs.remove(&id.0).unwrap_or_default()
    }

    /// Waits for a dispatch: its statistics, or the fault that stopped it.
    pub fn wait(&mut self, id: DispatchId) -> Result<DispatchStats, DeviceError> {
        match self.results.remove(&id.0) {
            Some(Ok(s)) => Ok(s),
            Some(Err(f)) => Err(DeviceError::Fault(f)),
            None => Err(DeviceError::UnknownDispatch(id.0)),
        }
    }
}
