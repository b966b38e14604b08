//! Runtime services kernels call: the hostcall buffer (printf from HIP and the device
//! libraries), with what the kernel printed collected per dispatch.
//!
//! A ROCm runtime gives a dispatch buffers through hidden kernel arguments when the
//! kernel's metadata asks for them and serves them from a host thread. The simulator does
//! the same, deterministically:
//!
//! * [`DispatchServices::attach`] allocates and initialises the buffers the metadata names
//!   and writes their addresses into the kernarg segment.
//! * Hostcall packets are served at points that depend on simulated events only, never on
//!   host threads: in [`crate::dispatch::run`] (one workgroup at a time) when a wave of the
//!   dispatch stops at `s_sleep` (every wait loop of the device libraries sleeps, so a
//!   wave that waits for the host gets there), and on the SoC at every memory sync point,
//!   after the compute units' buffered stores and atomics are published (see
//!   [`crate::memory::coherence`]): the packets a wave pushed are visible then, and the
//!   answers are visible to every CU after it. A dispatch without a hostcall buffer
//!   pays nothing: the check is skipped when no buffer exists.
//! * What the dispatch printed ([`DispatchOutput`]) is returned with its results
//!   ([`crate::device::Device::take_output`], [`crate::soc::Soc::take_output`]).
//!
//! * Buffered printf (`hidden_printf_buffer`: OpenCL's `printf` and clang's
//!   `-mprintf-kind=buffered` for HIP, formats in the code object's `amdhsa.printf`) gets a
//!   1 MB buffer that is printed when the dispatch ends, as the runtimes do
//!   ([`printf_buffer`]). A kernel whose code object lists no format gets none (the pointer
//!   stays null): the metadata names the argument for every OpenCL kernel.
//!
//! * The device heap behind HIP's device-side `malloc` (`hidden_heap_v1` and the hostcall
//!   device-memory service): [`devmem`].
//!
//! The hostcall services other than printf and device memory (host function calls,
//! sanitizer reports) fail with [`ServiceError::UnknownService`].
//!
//! Which compilers reach the hostcall printf (measured here): Debian's hipcc (clang-15,
//! ROCm 5.2.3 device libraries) lowers HIP `printf` to `__ockl_printf_*`. clang-22 OpenCL
//! compiled in one step with the same libraries does not: their `opencl.bc` defines
//! `printf` as a stub that returns -1, which the call binds to. Compiled the way ROCm's
//! comgr does it (source to optimised bitcode first, which runs LLVM's printf runtime
//! binding, then linked with `opencl.bc` for `__printf_alloc`), OpenCL `printf` writes the
//! printf buffer; so does HIP with `-mprintf-kind=buffered` (clang 17 and later).

pub mod devmem;
pub(crate) mod hostcall;
pub(crate) mod printf;
pub(crate) mod printf_buffer;

use crate::dispatch::kernarg;
use crate::loader::{KernelMetadata, PrintfFormat, ValueKind};
use crate::memory::{DeviceMemory, MemFault, MemoryError};
use devmem::SharedHeap;
use hostcall::{Hostcall, Messages};
use printf_buffer::PrintfBuffer;
use std::collections::BTreeMap;

/// Why a runtime service failed. Fatal for the dispatch whose kernel asked for it: it is
/// reported as that kernel's fault (with the wave and PC that waited for the answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum ServiceError {
    /// A hostcall packet asks for a service the simulator does not provide (ROCclr's ids:
    /// 1 host function call, 3 device memory, 4 address sanitizer).
    #[error("hostcall service {service} ({}) is not provided by the simulator", service_name(*service))]
    UnknownService {
        /// The packet's service id.
        service: u32,
    },
    /// A message packet names a message that was never begun or has ended.
    #[error("hostcall message {id} was not begun (or has already ended)")]
    NoMessage {
        /// The descriptor's message id.
        id: u64,
    },
    /// The hostcall ready stack links in a cycle (the kernel overwrote the buffer).
    #[error("hostcall ready stack at {top:#x} is corrupt")]
    CorruptStack {
        /// The tagged pointer where the walk stopped.
        top: u64,
    },
    /// A buffered-printf record cannot be read: the kernel wrote past its allocation, or
    /// names a format its code object does not list.
    #[error("printf buffer record at byte {offset}: {reason}")]
    PrintfRecord {
        /// The record's offset from the start of the records.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A device-memory request (`SERVICE_DEVMEM`) with neither an address to free nor a
    /// size to allocate (ROCclr refuses it).
    #[error("device-memory request with neither an address nor a size")]
    EmptyDevmemRequest,
    /// A service buffer could not be read or written (the kernel freed or corrupted it).
    #[error("service buffer access: {0}")]
    Memory(#[from] MemFault),
}

/// Why a dispatch's service buffers could not be set up or released (fatal for the launch,
/// not for the device).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A buffer could not be allocated or freed.
    #[error("service buffer: {0}")]
    Alloc(#[from] MemoryError),
    /// A fresh buffer could not be initialised.
    #[error("service buffer: {0}")]
    Memory(#[from] MemFault),
    /// The printf buffer the dispatch left could not be printed.
    #[error("{0}")]
    Printf(ServiceError),
}

fn service_name(id: u32) -> &'static str {
    match id {
        hostcall::SERVICE_FUNCTION_CALL => "host function call",
        hostcall::SERVICE_PRINTF => "printf",
        hostcall::SERVICE_DEVMEM => "device memory",
        hostcall::SERVICE_SANITIZER => "address sanitizer",
        _ => "unknown",
    }
}

/// What a dispatch printed, in the order the host served it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchOutput {
    /// Bytes printed to standard output (`printf`).
    pub stdout: Vec<u8>,
    /// Bytes printed to standard error (`fprintf(stderr, ...)` in HIP).
    pub stderr: Vec<u8>,
}

impl DispatchOutput {
    /// Standard output as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.stdout.is_empty() && self.stderr.is_empty()
    }
}

/// The service buffers of one dispatch and their host-side state.
#[derive(Debug)]
pub struct DispatchServices {
    hostcall: Option<Hostcall>,
    printf: Option<PrintfBuffer>,
    heap: SharedHeap,
    messages: Messages,
    output: DispatchOutput,
}

impl DispatchServices {
    /// Allocates the buffers `md`'s hidden arguments ask for and writes their addresses
    /// into `kernargs`. `max_waves` is the most waves of the dispatch that can be resident
    /// at once (the hostcall buffer has a packet for each); `printf` is the code object's
    /// `amdhsa.printf` list; `heap` the device's heap (device-side `malloc`). `None` when
    /// the kernel asks for no service.
    pub fn attach(
        mem: &mut DeviceMemory,
        md: &KernelMetadata,
        printf: &std::sync::Arc<[PrintfFormat]>,
        heap: &SharedHeap,
        max_waves: u32,
        kernargs: &mut [u8],
    ) -> Result<Option<DispatchServices>, SetupError> {
        let mut s = DispatchServices {
            hostcall: None,
            printf: None,
            heap: heap.clone(),
            messages: Messages::default(),
            output: DispatchOutput::default(),
        };
        for a in md.hidden_args() {
            if a.value_kind == ValueKind::HiddenHostcallBuffer && s.hostcall.is_none() {
                let h = Hostcall::allocate(mem, max_waves)?;
                kernarg::put_u64(kernargs, a.offset, a.size, h.base);
                s.hostcall = Some(h);
                // The device-memory service hands out ranges of a pool.
                heap.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .reserve_pool(mem);
            }
            if a.value_kind == ValueKind::HiddenHeapV1 {
                let state = heap.lock().unwrap_or_else(|p| p.into_inner()).state(mem)?;
                kernarg::put_u64(kernargs, a.offset, a.size, state);
            }
            // A buffer only for kernels whose code object lists printf formats: the
            // metadata names `hidden_printf_buffer` for every OpenCL kernel.
            if a.value_kind == ValueKind::HiddenPrintfBuffer
                && s.printf.is_none()
                && !printf.is_empty()
            {
                let p = PrintfBuffer::allocate(mem, printf)?;
                kernarg::put_u64(kernargs, a.offset, a.size, p.base);
                s.printf = Some(p);
            }
        }
        Ok((s.hostcall.is_some() || s.printf.is_some()).then_some(s))
    }

    /// Whether the dispatch has a hostcall buffer to serve.
    pub fn has_hostcall(&self) -> bool {
        self.hostcall.is_some()
    }

    /// Serves the hostcall packets waiting now; returns how many.
    pub fn serve(&mut self, mem: &DeviceMemory) -> Result<u32, ServiceError> {
        match &self.hostcall {
            Some(h) if h.pending(mem) => {
                h.serve(mem, &mut self.messages, &mut self.output, &self.heap)
            }
            _ => Ok(0),
        }
    }

    /// What the dispatch has printed so far.
    pub fn output(&self) -> &DispatchOutput {
        &self.output
    }

    /// Prints what the dispatch left in its printf buffer (when it has one); call once,
    /// after the dispatch's last wave ended and its stores are visible.
    pub fn drain(&mut self, mem: &DeviceMemory) -> Result<(), ServiceError> {
        match &self.printf {
            Some(p) => p.drain(mem, &mut self.output),
            None => Ok(()),
        }
    }

    /// Frees the buffers and returns what the dispatch printed.
    pub fn finish(self, mem: &mut DeviceMemory) -> Result<DispatchOutput, SetupError> {
        if let Some(h) = self.hostcall {
            mem.free(h.base)?;
        }
        if let Some(p) = self.printf {
            mem.free(p.base)?;
        }
        Ok(self.output)
    }
}

/// The services of the dispatches running on a SoC, served at its memory sync points (no
/// compute unit runs then) in dispatch order.
#[derive(Debug, Default)]
pub(crate) struct ServiceTable {
    live: BTreeMap<u64, DispatchServices>,
    failed: BTreeMap<u64, ServiceError>,
    /// The device's heap (device-side `malloc`), kept as long as the device.
    heap: SharedHeap,
}

impl ServiceTable {
    /// Registers dispatch `seq`'s services (served at sync points when it has a hostcall
    /// buffer, its printf buffer printed when it retires).
    pub fn add(&mut self, seq: u64, s: DispatchServices) {
        self.live.insert(seq, s);
    }

    /// The device's heap.
    pub fn heap(&self) -> SharedHeap {
        self.heap.clone()
    }

    /// The first dispatch with live service buffers (a hostcall or printf buffer), if any.
    pub fn first_live(&self) -> Option<u64> {
        self.live.keys().next().copied()
    }

    /// The device heap's state for a checkpoint.
    pub fn heap_image(&self) -> devmem::HeapImage {
        self.heap.lock().unwrap_or_else(|p| p.into_inner()).image()
    }

    /// The state of a restored checkpoint: no dispatch with live services (checkpoints
    /// are only taken without them; buffers of the state replaced went with its memory)
    /// and the saved heap, which every holder of the shared heap sees.
    pub fn restore(&mut self, heap: devmem::DeviceHeap) {
        self.live.clear();
        self.failed.clear();
        *self.heap.lock().unwrap_or_else(|p| p.into_inner()) = heap;
    }

    /// Whether any dispatch has a hostcall buffer (the sync hook's cheap check).
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Serves every live dispatch; true when one failed just now (its waves will wait
    /// forever: the run should stop).
    pub fn serve(&mut self, mem: &DeviceMemory) -> bool {
        let mut failed_now = false;
        for (&seq, s) in &mut self.live {
            if self.failed.contains_key(&seq) {
                continue;
            }
            if let Err(e) = s.serve(mem) {
                self.failed.insert(seq, e);
                failed_now = true;
            }
        }
        failed_now
    }

    /// The first failure of a live dispatch, if any.
    pub fn failure(&self) -> Option<(u64, &ServiceError)> {
        self.failed.iter().next().map(|(&k, e)| (k, e))
    }

    /// Ends dispatch `seq`'s services: frees its buffers; returns what it printed and the
    /// failure that stopped it, if any.
    pub fn retire(
        &mut self,
        seq: u64,
        mem: &mut DeviceMemory,
    ) -> Result<Option<(DispatchOutput, Option<ServiceError>)>, SetupError> {
        let Some(mut s) = self.live.remove(&seq) else {
            return Ok(None);
        };
        let failed = self.failed.remove(&seq);
        let drained = s.drain(mem).err();
        Ok(Some((s.finish(mem)?, failed.or(drained))))
    }
}
