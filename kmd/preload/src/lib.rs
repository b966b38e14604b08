//! kmd-preload: the LD_PRELOAD interposer that puts the emulated KFD under a real client.
//!
//! Loaded into an unmodified ROCm program (`gfxsim exec` sets it up), it intercepts the file
//! operations the thunk and rocminfo use and routes three things to the emulation:
//! - `/dev/kfd`: `open` returns a fake fd (a dup of a sparse memfd, so the thunk's doorbell
//!   and MMIO mmaps at the offsets the driver handed out just work) whose `ioctl`s go to
//!   [`kmd::Kfd`];
//! - `/dev/dri/renderD128`: a fake fd onto a second sparse memfd that backs VRAM and GTT
//!   buffers (the thunk mmaps them from it), plus libdrm's `drmOpenRender` and the three
//!   `amdgpu_*` calls the thunk makes for the marketing name;
//! - the KFD sysfs paths: rewritten into the private directory `GFXSIM_KMD_ROOT` that
//!   holds the generated topology, so readdir/stat/fopen are real file operations.
//!
//! Every other call goes straight to the next definition (`dlsym(RTLD_NEXT)`), untouched.
//! Without `GFXSIM_KMD_ROOT` the interposer is inert; `GFXSIM_KMD_TRACE=1` logs each KFD
//! ioctl to stderr. `mmap`/`munmap` need no interception:
//! the fake fds are real memfds.
//!
//! Variadic C functions (`open`, `openat`, `ioctl`) cannot be defined in stable Rust. On
//! x86-64 System V a variadic argument is passed exactly like the same fixed argument (in
//! the next integer register), so declaring the optional `mode`/`arg` as a fixed third
//! (fourth) parameter is ABI-compatible; when the caller did not pass it we only forward
//! the register's value, which the callee ignores, as libc does.

#![allow(clippy::missing_safety_doc)] // the exported functions have the C library's contracts

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use kmd::topology::{self, GpuNode, RENDER_MINOR};
use kmd::user::ProcessMemory;
use kmd::{kfd, GpuBackend, Kfd, NoGpu, SocGpu};

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
compile_error!("kmd-preload relies on the x86-64 System V calling convention for variadics");

/// The emulation, once a process touches one of its paths.
struct Emu {
    root: Vec<u8>,
    kfd: Kfd,
    kfd_file: c_int,
    render_file: c_int,
    marketing_name: CString,
    /// When the emulation started (the process's first use of the device).
    started: std::time::Instant,
}

static EMU: OnceLock<Option<Emu>> = OnceLock::new();

/// The emulation if `GFXSIM_KMD_ROOT` is set. Creating it does no file IO through the
/// interposed functions (only memfd_create/ftruncate), so it cannot recurse into a hook.
fn emu() -> Option<&'static Emu> {
    EMU.get_or_init(|| {
        let root = std::env::var_os("GFXSIM_KMD_ROOT")?;
        let preset = std::env::var("GFXSIM_KMD_GPU").unwrap_or_else(|_| "mi210".into());
        let gpu = match GpuNode::from_preset(&preset) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("gfxsim kmd: GFXSIM_KMD_GPU: {e}");
                return None;
            }
        };
        let kfd_file = sparse_memfd(c"gfxsim-kfd", kfd::KFD_FILE_SIZE)?;
        let render_file = sparse_memfd(c"gfxsim-render", kfd::RENDER_FILE_SIZE)?;
        let marketing_name = CString::new(gpu.marketing_name.clone()).ok()?;
        // SAFETY: registering a plain extern "C" function.
        unsafe { libc::atexit(write_dispatches) };
        // The simulated GPU runs what the client's queues hold; without it (a preset that
        // does not build) the driver still answers and nothing executes.
        let backend: Arc<dyn GpuBackend> = match SocGpu::new(&preset, render_file, kfd_file) {
            Ok(g) => Arc::new(g),
            Err(e) => {
                eprintln!("gfxsim kmd: no simulated GPU, dispatches will not run: {e}");
                Arc::new(NoGpu::default())
            }
        };
        Some(Emu {
            root: root.as_bytes().to_vec(),
            kfd: Kfd::new(gpu, backend),
            kfd_file,
            render_file,
            marketing_name,
            started: std::time::Instant::now(),
        })
    })
    .as_ref()
}

/// At exit: this process's dispatches for `gfxsim exec --report`.
extern "C" fn write_dispatches() {
    guard((), || {
        if let Some(emu) = EMU.get().and_then(Option::as_ref) {
            let root = std::path::Path::new(std::ffi::OsStr::from_bytes(&emu.root));
            let dispatches = emu.kfd.backend().dispatches();
            if let Err(e) = kmd::report::write(root, std::process::id(), &dispatches) {
                eprintln!("gfxsim kmd: writing the dispatch records: {e}");
            }
            let gpu = emu.kfd.backend().stats();
            let ns = |d: std::time::Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
            let stats = kmd::report::ProcessStats {
                events: gpu.events,
                model_ns: ns(gpu.model),
                emulation_ns: ns(emu.kfd.ioctl_time() + gpu.service),
                wall_ns: ns(emu.started.elapsed()),
            };
            if let Err(e) = kmd::report::write_stats(root, std::process::id(), &stats) {
                eprintln!("gfxsim kmd: writing the run's statistics: {e}");
            }
        }
    })
}

fn sparse_memfd(name: &CStr, size: u64) -> Option<c_int> {
    // SAFETY: plain syscalls on a name we own.
    unsafe {
        let fd = libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        if libc::ftruncate(fd, size as libc::off_t) != 0 {
            libc::close(fd);
            return None;
        }
        Some(fd)
    }
}

/// `GFXSIM_KMD_TRACE=1`: log every ioctl on the kfd fd to stderr.
fn trace() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("GFXSIM_KMD_TRACE").is_some_and(|v| v != "0"))
}

/// Which fake device each fd number is (0: none). Lock-free so pass-through stays cheap.
const MAX_FD: usize = 4096;
const KFD_FD: u8 = 1;
const RENDER_FD: u8 = 2;
static FDS: [AtomicU8; MAX_FD] = [const { AtomicU8::new(0) }; MAX_FD];

fn fd_kind(fd: c_int) -> u8 {
    usize::try_from(fd)
        .ok()
        .and_then(|i| FDS.get(i))
        .map_or(0, |k| k.load(Ordering::Acquire))
}

/// What a path means to the emulation.
enum Route {
    Kfd,
    Render,
    Redirect(CString),
    Pass,
}

const REDIRECTED: [&[u8]; 4] = [
    topology::SYSFS_KFD.as_bytes(),
    topology::SYSFS_CLASS_KFD.as_bytes(),
    b"/dev/kfd",
    b"/dev/dri/renderD",
];

/// Routes `path`; `device` says whether opening a device node makes a fake fd.
unsafe fn route(path: *const c_char, device: bool) -> Route {
    if path.is_null() {
        return Route::Pass;
    }
    // SAFETY: the caller passes a NUL-terminated path, as the C function requires.
    let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
    if !bytes.starts_with(b"/sys/") && !bytes.starts_with(b"/dev/") {
        return Route::Pass;
    }
    if !REDIRECTED.iter().any(|p| bytes.starts_with(p)) {
        return Route::Pass;
    }
    let Some(emu) = emu() else { return Route::Pass };
    let render = format!("/dev/dri/renderD{RENDER_MINOR}");
    if device && bytes == b"/dev/kfd" {
        return Route::Kfd;
    }
    if device && bytes == render.as_bytes() {
        return Route::Render;
    }
    if bytes.starts_with(b"/dev/dri/renderD") && bytes != render.as_bytes() {
        return Route::Pass;
    }
    let mut full = emu.root.clone();
    full.extend_from_slice(bytes);
    CString::new(full).map_or(Route::Pass, Route::Redirect)
}

/// A new fake fd of `kind` (a dup of the memfd), honouring O_CLOEXEC.
fn open_fake(kind: u8, flags: c_int) -> c_int {
    let Some(emu) = emu() else {
        return fail(libc::ENOENT);
    };
    let file = if kind == KFD_FD {
        emu.kfd_file
    } else {
        emu.render_file
    };
    let cmd = if flags & libc::O_CLOEXEC != 0 {
        libc::F_DUPFD_CLOEXEC
    } else {
        libc::F_DUPFD
    };
    // SAFETY: duplicating our own memfd.
    let fd = unsafe { libc::fcntl(file, cmd, 0) };
    if fd < 0 {
        return fd;
    }
    let Some(slot) = usize::try_from(fd).ok().and_then(|i| FDS.get(i)) else {
        // SAFETY: closing the fd we just made.
        unsafe { libc::close(fd) };
        return fail(libc::EMFILE);
    };
    slot.store(kind, Ordering::Release);
    if kind == RENDER_FD {
        emu.kfd.render_fd_opened(fd);
    }
    fd
}

fn fail(errno: c_int) -> c_int {
    // SAFETY: errno is thread-local.
    unsafe { *libc::__errno_location() = errno };
    -1
}

/// Runs a hook body; a panic (a bug) becomes an EIO failure instead of unwinding into C.
fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        fail(libc::EIO);
        on_panic
    })
}

/// The next definition of a symbol (the one we interpose), resolved once.
macro_rules! real {
    ($name:ident : fn($($arg:ty),*) -> $ret:ty) => {{
        static PTR: OnceLock<usize> = OnceLock::new();
        let p = *PTR.get_or_init(|| {
            let sym = concat!(stringify!($name), "\0");
            // SAFETY: dlsym with a NUL-terminated name.
            unsafe { libc::dlsym(libc::RTLD_NEXT, sym.as_ptr().cast()) as usize }
        });
        if p == 0 {
            None
        } else {
            // SAFETY: the symbol has the C library's prototype, which we restate.
            Some(unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($arg),*) -> $ret>(p) })
        }
    }};
}

macro_rules! open_hook {
    ($name:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char, flags: c_int, mode: libc::mode_t) -> c_int {
            guard(-1, || {
                let Some(real) = real!($name: fn(*const c_char, c_int, libc::mode_t) -> c_int) else {
                    return fail(libc::ENOSYS);
                };
                // SAFETY: forwarding the caller's arguments.
                unsafe {
                    match route(path, true) {
                        Route::Kfd => open_fake(KFD_FD, flags),
                        Route::Render => open_fake(RENDER_FD, flags),
                        Route::Redirect(p) => real(p.as_ptr(), flags, mode),
                        Route::Pass => real(path, flags, mode),
                    }
                }
            })
        }
    };
}
open_hook!(open);
open_hook!(open64);

macro_rules! open2_hook {
    ($name:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char, flags: c_int) -> c_int {
            guard(-1, || {
                let Some(real) = real!($name: fn(*const c_char, c_int) -> c_int) else {
                    return fail(libc::ENOSYS);
                };
                // SAFETY: forwarding the caller's arguments.
                unsafe {
                    match route(path, true) {
                        Route::Kfd => open_fake(KFD_FD, flags),
                        Route::Render => open_fake(RENDER_FD, flags),
                        Route::Redirect(p) => real(p.as_ptr(), flags),
                        Route::Pass => real(path, flags),
                    }
                }
            })
        }
    };
}
open2_hook!(__open_2);
open2_hook!(__open64_2);

macro_rules! openat_hook {
    ($name:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            dirfd: c_int,
            path: *const c_char,
            flags: c_int,
            mode: libc::mode_t,
        ) -> c_int {
            guard(-1, || {
                let Some(real) = real!($name: fn(c_int, *const c_char, c_int, libc::mode_t) -> c_int) else {
                    return fail(libc::ENOSYS);
                };
                // SAFETY: forwarding the caller's arguments; relative paths pass through.
                unsafe {
                    match route(path, true) {
                        Route::Kfd => open_fake(KFD_FD, flags),
                        Route::Render => open_fake(RENDER_FD, flags),
                        Route::Redirect(p) => real(dirfd, p.as_ptr(), flags, mode),
                        Route::Pass => real(dirfd, path, flags, mode),
                    }
                }
            })
        }
    };
}
openat_hook!(openat);
openat_hook!(openat64);

#[no_mangle]
pub unsafe extern "C" fn __openat_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: same contract; the mode is unused without O_CREAT.
    unsafe { openat(dirfd, path, flags, 0) }
}

/// Hooks of functions taking a path first whose only change is the rewritten path.
macro_rules! path_hook {
    ($name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty, $err:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(path: *const c_char $(, $arg: $ty)*) -> $ret {
            guard($err, || {
                let Some(real) = real!($name: fn(*const c_char $(, $ty)*) -> $ret) else {
                    fail(libc::ENOSYS);
                    return $err;
                };
                // SAFETY: forwarding the caller's arguments.
                unsafe {
                    match route(path, false) {
                        Route::Redirect(p) => real(p.as_ptr() $(, $arg)*),
                        _ => real(path $(, $arg)*),
                    }
                }
            })
        }
    };
}
path_hook!(fopen(mode: *const c_char) -> *mut libc::FILE, std::ptr::null_mut());
path_hook!(fopen64(mode: *const c_char) -> *mut libc::FILE, std::ptr::null_mut());
path_hook!(opendir() -> *mut libc::DIR, std::ptr::null_mut());
path_hook!(stat(buf: *mut libc::stat) -> c_int, -1);
path_hook!(stat64(buf: *mut libc::stat64) -> c_int, -1);
path_hook!(lstat(buf: *mut libc::stat) -> c_int, -1);
path_hook!(lstat64(buf: *mut libc::stat64) -> c_int, -1);
path_hook!(access(mode: c_int) -> c_int, -1);
path_hook!(readlink(buf: *mut c_char, len: libc::size_t) -> libc::ssize_t, -1);

/// Hooks of `f(int, const char *path, ...)`.
macro_rules! at_hook {
    ($name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(first: c_int, path: *const c_char $(, $arg: $ty)*) -> $ret {
            guard(-1, || {
                let Some(real) = real!($name: fn(c_int, *const c_char $(, $ty)*) -> $ret) else {
                    return fail(libc::ENOSYS) as $ret;
                };
                // SAFETY: forwarding the caller's arguments.
                unsafe {
                    match route(path, false) {
                        Route::Redirect(p) => real(first, p.as_ptr() $(, $arg)*),
                        _ => real(first, path $(, $arg)*),
                    }
                }
            })
        }
    };
}
at_hook!(fstatat(buf: *mut libc::stat, flags: c_int) -> c_int);
at_hook!(fstatat64(buf: *mut libc::stat64, flags: c_int) -> c_int);
at_hook!(faccessat(mode: c_int, flags: c_int) -> c_int);
at_hook!(statx(flags: c_int, mask: libc::c_uint, buf: *mut libc::statx) -> c_int);
// glibc < 2.33 entry points (`ver` first), still exported for old binaries.
at_hook!(__xstat(buf: *mut libc::stat) -> c_int);
at_hook!(__xstat64(buf: *mut libc::stat64) -> c_int);
at_hook!(__lxstat(buf: *mut libc::stat) -> c_int);
at_hook!(__lxstat64(buf: *mut libc::stat64) -> c_int);

#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    guard(-1, || {
        let Some(real) = real!(close: fn(c_int) -> c_int) else {
            return fail(libc::ENOSYS);
        };
        if let Some(slot) = usize::try_from(fd).ok().and_then(|i| FDS.get(i)) {
            if slot.swap(0, Ordering::AcqRel) == RENDER_FD {
                if let Some(emu) = emu() {
                    emu.kfd.render_fd_closed(fd);
                }
            }
        }
        // SAFETY: forwarding the caller's fd.
        unsafe { real(fd) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    guard(-1, || match fd_kind(fd) {
        KFD_FD => {
            let Some(emu) = emu() else {
                return fail(libc::EBADF);
            };
            let result = emu.kfd.ioctl(request, arg as u64, &ProcessMemory);
            if trace() {
                eprintln!(
                    "gfxsim kmd: ioctl nr {:#04x} size {} -> {result:?}",
                    kmd::abi::ioc_nr(request),
                    kmd::abi::ioc_size(request)
                );
            }
            match result {
                Ok(()) => 0,
                Err(e) => fail(e.raw()),
            }
        }
        // DRM ioctls on the render node are not emulated; libdrm's entry points the thunk
        // uses are interposed below instead.
        RENDER_FD => fail(libc::EINVAL),
        _ => {
            let Some(real) = real!(ioctl: fn(c_int, c_ulong, *mut c_void) -> c_int) else {
                return fail(libc::ENOSYS);
            };
            // SAFETY: forwarding the caller's arguments.
            unsafe { real(fd, request, arg) }
        }
    })
}

/// Tells the GPU that the client changes the protection of (or unmaps) `addr..addr+len`
/// before (`closing`) or after the change: the GPU stops touching registered USERPTR
/// pages that become inaccessible, and uses them again once they are readable and
/// writable, as amdgpu's MMU notifier invalidates and revalidates userptr buffers. Only
/// an emulation already started is told (this never starts one).
fn tell_gpu(addr: *mut c_void, len: libc::size_t, accessible: bool) {
    if let Some(emu) = EMU.get().and_then(Option::as_ref) {
        emu.kfd
            .backend()
            .protect_user(addr as u64, len as u64, accessible);
    }
}

#[no_mangle]
pub unsafe extern "C" fn mprotect(addr: *mut c_void, len: libc::size_t, prot: c_int) -> c_int {
    guard(-1, || {
        let Some(real) = real!(mprotect: fn(*mut c_void, libc::size_t, c_int) -> c_int) else {
            return fail(libc::ENOSYS);
        };
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        let accessible = prot & rw == rw;
        if !accessible {
            tell_gpu(addr, len, false);
        }
        // SAFETY: forwarding the caller's arguments.
        let r = unsafe { real(addr, len, prot) };
        if accessible && r == 0 {
            tell_gpu(addr, len, true);
        }
        r
    })
}

#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: libc::size_t) -> c_int {
    guard(-1, || {
        let Some(real) = real!(munmap: fn(*mut c_void, libc::size_t) -> c_int) else {
            return fail(libc::ENOSYS);
        };
        tell_gpu(addr, len, false);
        // SAFETY: forwarding the caller's arguments.
        unsafe { real(addr, len) }
    })
}

/// libdrm: the thunk opens the render node by minor to ask for the marketing name.
#[no_mangle]
pub unsafe extern "C" fn drmOpenRender(minor: c_int) -> c_int {
    guard(-1, || {
        if emu().is_some() && minor == RENDER_MINOR as c_int {
            return open_fake(RENDER_FD, libc::O_RDWR | libc::O_CLOEXEC);
        }
        let Some(real) = real!(drmOpenRender: fn(c_int) -> c_int) else {
            return fail(libc::ENOSYS);
        };
        // SAFETY: forwarding the caller's argument.
        unsafe { real(minor) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn drmClose(fd: c_int) -> c_int {
    if fd_kind(fd) != 0 {
        // SAFETY: our own fake fd.
        return unsafe { close(fd) };
    }
    guard(-1, || {
        let Some(real) = real!(drmClose: fn(c_int) -> c_int) else {
            return fail(libc::ENOSYS);
        };
        // SAFETY: forwarding the caller's argument.
        unsafe { real(fd) }
    })
}

/// The opaque `amdgpu_device_handle` handed out for the simulated GPU.
static DEVICE_HANDLE: u8 = 0;

fn our_handle(h: *mut c_void) -> bool {
    std::ptr::eq(h.cast_const(), (&DEVICE_HANDLE as *const u8).cast())
}

/// libdrm_amdgpu: on our render fd, a handle whose only use is the marketing name.
#[no_mangle]
pub unsafe extern "C" fn amdgpu_device_initialize(
    fd: c_int,
    major: *mut u32,
    minor: *mut u32,
    handle: *mut *mut c_void,
) -> c_int {
    guard(-libc::EIO, || {
        if fd_kind(fd) == RENDER_FD {
            if major.is_null() || minor.is_null() || handle.is_null() {
                return -libc::EINVAL;
            }
            // SAFETY: non-null out-pointers from the caller. ASSUMPTION: amdgpu DRM 3.42,
            // the interface version of the kernels KFD 1.8 shipped with.
            unsafe {
                *major = 3;
                *minor = 42;
                *handle = (&DEVICE_HANDLE as *const u8).cast_mut().cast();
            }
            return 0;
        }
        let Some(real) = real!(amdgpu_device_initialize: fn(c_int, *mut u32, *mut u32, *mut *mut c_void) -> c_int)
        else {
            return -libc::ENOSYS;
        };
        // SAFETY: forwarding the caller's arguments.
        unsafe { real(fd, major, minor, handle) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn amdgpu_get_marketing_name(handle: *mut c_void) -> *const c_char {
    guard(std::ptr::null(), || {
        if our_handle(handle) {
            return emu().map_or(std::ptr::null(), |e| e.marketing_name.as_ptr());
        }
        let Some(real) = real!(amdgpu_get_marketing_name: fn(*mut c_void) -> *const c_char) else {
            return std::ptr::null();
        };
        // SAFETY: forwarding the caller's argument.
        unsafe { real(handle) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn amdgpu_device_deinitialize(handle: *mut c_void) -> c_int {
    guard(-libc::EIO, || {
        if our_handle(handle) {
            return 0;
        }
        let Some(real) = real!(amdgpu_device_deinitialize: fn(*mut c_void) -> c_int) else {
            return -libc::ENOSYS;
        };
        // SAFETY: forwarding the caller's argument.
        unsafe { real(handle) }
    })
}
