//! Differential testing of gpu-model against the host.
//!
//! A generator ([`gen`]) writes random, well-defined OpenCL C kernels. The same source is
//! compiled by clang-22 for x86-64 (the reference, run natively) and for every target, wave
//! size and optimisation level ([`all_builds`]: gfx90a, gfx942, gfx950 wave64; gfx1200 and
//! gfx1201 wave32 and wave64; each at -O0, -O1 and -O3: 21 builds), run under gpu-model's
//! [`Device`] API, and the outputs compared bit for bit.
//!
//! # Design
//!
//! * **Batches.** Many kernels go into one source (`k<index>` each), so one clang invocation
//!   makes one code object per build and batch, and one host executable per batch runs all
//!   the batch's kernels. Kernel `i` of seed `s` is the same text whatever the batch size
//!   ([`gen::Rng::new`] is seeded from `(s, i)`), so a mismatch is reproduced with
//!   `difftest --seed s --first i --count 1` and printed with `--print i`.
//! * **Preludes.** Device: `corpus/include/prelude.h` (work-item ids from the amdgcn
//!   builtins, `barrier()` as fence + `s_barrier` + fence, scoped atomics). Host:
//!   `corpus/hostcheck/prelude.h` (one thread per work-item, one work-group at a time,
//!   pthread barriers, `GFX_LOCAL` is `static`), so barriers are real on both sides.
//!   The generated batch header ([`gen::header`]) adds types and helper functions and is
//!   compiled as OpenCL C 2.0 for the device and as C for the host.
//! * **Signature.** Every kernel is `k(const uint *in, uint *out, uint *atom)`: 1024 input
//!   words ([`gen::input`]: integers, f32, f64 and f16 bit patterns with zeros, subnormals,
//!   infinities, NaN), 8 output words per work-item, 16 u32 + 8 u64 atomic counters.
//!   Grid: 2 work-groups of 32, 64 or 128 work-items (wave32 and wave64 both see several
//!   waves per group on some kernels); the last one partial with `Features::partial`.
//!
//! # What the kernels do, and why it is well defined
//!
//! * Integer types of every width (8 to 64 bits, signed and unsigned) and the vectors
//!   `uint4 int2 short4 uchar4`: `+ - *` computed in the unsigned type (wrapping made
//!   explicit), division and remainder with the divisor forced to 1 when it is 0 or the
//!   quotient overflows, shift amounts masked to the width, `& | ^ ~`, negation, min/max/clamp,
//!   saturating add/sub, popcount, clz/ctz (with the width as the zero result),
//!   bit reverse, rotate, mul_hi (64-bit from 32-bit pieces), select (`?:`), comparisons,
//!   swizzles, splats, lane-wise conversions, bit casts between types of equal size.
//! * Conversions: integer to integer modular (clang defines it) and saturating (compare then
//!   cast); float to integer only saturating (NaN gives 0; the compare is done in double, so
//!   the plain cast only sees in-range values); integer to float and float to float casts
//!   (round to nearest even on both sides).
//! * half, float and double (and `half2`, `float4`): `+ - * /`, fma (float, double), sqrt,
//!   floor/ceil/trunc/rint, fabs, copysign, negation, min/max as compare-select (C's `fmin`
//!   leaves the sign of a zero result open). All of these are correctly rounded IEEE
//!   operations, so the comparison is bit for bit: contraction is off on both sides
//!   (`-ffp-contract=off`), the device compiles with `-cl-fp32-correctly-rounded-divide-sqrt`
//!   (OpenCL's default allows 2.5 ulp for f32 divide and sqrt), and the host computes `half`
//!   without excess precision (`-ffloat16-excess-precision=none`: each operation rounds to
//!   half). No ulp bound is needed because nothing inexact is generated.
//! * NaN: outputs map every NaN to one canonical pattern (x86 and AMDGPU produce different
//!   default NaNs); everything else, the sign of zero included, is compared exactly.
//! * Denormals: both sides keep them. clang-22 gives OpenCL kernels for gfx9 and gfx12
//!   IEEE denormal handling for f32, f64 and f16 (the kernel descriptors' FLOAT_DENORM_MODE
//!   fields are 3, "no flush", checked by the `denorm_mode` test), and x86-64 SSE code keeps
//!   denormals unless built with fast-math flags (not used).
//! * Control flow: `if`/`else` on work-item-dependent conditions (divergence), loops with
//!   constant and data-dependent (divergent) trip counts, nested to depth 2.
//! * LDS: a work-item exchange (`lds[lid] = x; barrier(); y = lds[(lid + k) % wg];
//!   barrier();`), only at the top level of the kernel, where control flow is uniform, and
//!   LDS atomics (add/min/max/or) whose results are read after a final barrier.
//! * Atomics: global u32 add/sub/min/max/and/or/xor and u64 add/or/xor, LDS u32
//!   add/min/max/or, anywhere (also in divergent code and loops); their return values are
//!   never used, so the final values do not depend on the order.
//! * Behind switches ([`gen::Features`], `--features partial,f16fma,vdiv,subgroup,transc` or `all`; off in
//!   the seed-1 CI slice, whose kernels stay the same text, and on in the smaller
//!   `features_slice` test): partial work-groups (the grid is not a multiple of the group;
//!   the kernel outputs its actual group size, read on the device from the implicit
//!   arguments as ROCm's device library does, and its LDS exchange stays inside the group),
//!   `half`/`half2` fma (the host rounds once: to odd at f64 and f32, then to half; x86
//!   without native f16 would compute it in float and round twice), float-vector
//!   division, and sub-group operations (cl_khr_subgroups' reduce add/min/max on u32 and
//!   i32, broadcast, sub-group id and size, at the top level of the kernel; on the device
//!   the `__builtin_amdgcn_wave_reduce_*` / `readlane` builtins, as clang-22 with
//!   `-nogpulib` has no `sub_group_*` functions; their results depend on the wave size, so
//!   with this switch the host reference runs twice, with sub-groups of 64 and of 32
//!   work-items, and each build is compared with the run of its wave size; the findings
//!   are in `gen::Features::subgroup`).
//! * Transcendentals (`--features transc`, in `all`): f32 exp, exp2, exp10, log, log2,
//!   log10, sin and cos through clang's builtins (LLVM's own AMDGPU lowering on the device,
//!   glibc on the host). Their results are not exact, so they go to output words of their
//!   own after the exact ones ([`gen::NTRANSC`] per work-item, feeding nothing else) and
//!   are compared within OpenCL C's ulp bound for the function ([`gen::TRANSC_FNS`], where
//!   the bounds and the argument domains are and why).
//! * Bit casts from float types and `copysign`'s sign operand see NaN made canonical first
//!   (x86's default NaN has the sign bit set, AMDGPU's does not).
//!
//! # Findings (seed 1, 200 kernels x 21 builds; `tests/ci_slice.rs`)
//!
//! Fixed in gpu-model (regression: `fixed_mismatches_stay_fixed`, and unit tests that run
//! LLVM's f32/f64 division sequence against IEEE in `exec::float`):
//! * `v_div_fmas_f32/f64` scaled by 2^32 / 2^64 (the guides' pseudocode); the hardware rule
//!   is 2^±64 / 2^±128 by S2's exponent: f32 division by a subnormal was 2^32 too large
//!   (seed 1 kernel 38).
//! * `v_div_fixup` missed the guides' `S2 == 0 => ±0` case: `0 / x` was NaN (kernels 97, 53).
//! * Float division with extreme operands (was excluded from the generator: operands more
//!   than 2^60 apart, f64 2^600, or a divisor above 2^120, f64 2^1000): `1.0f / 3.4e38f`
//!   gave 0 instead of the subnormal 0x002006ce, `(65504.0f - x) / x` -0 instead of -1,
//!   `3.4e38f / 1e-40f` NaN instead of infinity. `v_div_scale` now tests "1/S1 is DENORM"
//!   on the reciprocal in the instruction's own format and scales the denominator down
//!   when both reciprocal and quotient are tiny; `v_div_fixup` has the guides' underflow
//!   and overflow cases; `v_div_fmas_f64` scaling into the subnormal range rounds once
//!   (see `gpu_model::exec::float::div_scale32`). Regression: `tests/div_extremes.rs`
//!   (every pair of 16 extreme f32 and f64 values and float4 lanes, 21 builds), and the
//!   exclusion is gone from the generator.
//!
//! Seed 3 kernel 357 (an f32 fma whose last bit differed at -O0 on all targets) was
//! `v_fma_mix_f32` rounding the f64 fma to nearest and then to f32: a product exactly
//! halfway between two f32 values, with a tiny addend that should break the tie, rounded to
//! even. Fixed (round to odd at f64 first, `exec::float::fma_odd`), also for
//! `v_fma_mix{lo,hi}_f16` and `v_pk_fma_f16`.
//!
//! Seed 3 kernel 128 (integer only; differs at -O1/-O3 on all targets) is, as far as we can
//! tell, LLVM 22 miscompiling, not the executor: minimized (`--minimize 128 --builds
//! gfx942-w64-O1`), the optimized IR computes `%52 = or i64 %51, %40` with `%40 = select
//! i1 %38, i64 -1, i64 (xor (zext i16 ..), -1)`, whose high half is all ones on both arms,
//! so `%52`'s high half is all ones; the gfx942 code llc emits for it writes `%51`'s high
//! half alone (`v_cndmask_b32_e64 v3, 0, v3, s[0:1]; v_mov_b32 v11, v3`, no OR with -1)
//! and the executor runs that code as written (the host, compiled by the same clang from
//! the same source, has the high half all ones). Not reported upstream yet; reproduce with
//! `scripts/difftest.sh --seed 3 --first 128 --count 1`. Pinned, minimized, by
//! `tests/llvm22_or_select.rs` (-O0 matches; -O1/-O3 differ in exactly that high half).
//!
//! Seed 12 kernel 23 with `--features all` (f16, one word, -O1/-O3 on
//! every target, -O0 matches) is LLVM 22's AMDGPU backend, not the executor: the source's
//! `min_f16_t(x, 0)` is `x < 0 ? x : 0`; the IR keeps the `fcmp olt` + `select` (no `nsz`),
//! and instruction selection turns it into `v_min_f16 v, 0, v` (f32 the same: `v_min_f32`;
//! `llc-22 -O2` on `select (fcmp olt float %x, 0.0), %x, 0.0` alone shows it; with a
//! non-constant second operand it keeps `v_cmp` + `v_cndmask`). For `x = -0` the source
//! gives +0, while V_MIN_F16/F32 with +0 as S0 give -0 under both readings of the ISA
//! guides (-0 below +0, as `exec::float::minmax32` implements; or `S0 < S1 ? S0 : S1`).
//! Not reported upstream yet. The generator's float min/max now write a zero result as +0
//! (the sign of a zero min/max result is not compared; OpenCL's fmin/fmax leave it open
//! too), see `gen::header`.
//!
//! Seed 13 (100 kernels, `--features all`: 23 of 2100 dispatches differed),
//! both fixed in gpu-model (regression: `tests/f16_regressions.rs`, minimized, and
//! `fixed_mismatches_stay_fixed`):
//! * Kernel 37, gfx9, every -O level: `v_fma_f16` computes the fma exactly in f64, but
//!   `exec::float::d2h` used `half::f16::from_f64`, which with F16C converts to f32 first
//!   (rounding to nearest), so a product on an f16 tie whose tiny addend should break it
//!   (`fma(0x71c8, 0xc440, 0x8330)` = -50320.0000486: 0xfa25) tied to even (0xfa24). `d2h`
//!   now rounds to odd at f32 first (`exec::float::odd_f32`); this also fixes every other
//!   f64-to-f16 rounding (`v_fma_mixlo/hi_f16`, `v_sin/cos_f16`, `v_ldexp_f16`, ...).
//! * Kernel 43, -O1/-O3 on every target: clang builds a `half2` with a constant lane as
//!   `v_pack_b32_f16 v5, v44, -1.0`; the executor read the inline constant as the f32
//!   pattern 0xbf800000 (low half 0) instead of the f16 0xbc00, so the lane was 0 and a
//!   division by it gave -inf.
//!
//! Sub-groups (seed 11, `--features all` with `subgroup`): clang-22 constant-folds
//! `__builtin_amdgcn_wave_reduce_add_u32(C)` to C (InstSimplify; `opt-22
//! -passes=instsimplify` on `call i32 @llvm.amdgcn.wave.reduce.add.i32(i32 2104875396, i32
//! 0)` alone gives the constant, `llc-22 -O0` on the same IR emits `s_bcnt1_i32_b64` of EXEC
//! times C, which is right). An LLVM bug, fixed upstream after 22 (llvm-project PR 193142,
//! "Unmark wave reduce intrinsics for constant folding": add, sub and xor); the generator
//! mixes every reduce-add operand with an input word at a uniform index, so it is never
//! constant. With that and `sub_group_size` as a popcount of EXEC: seed 11, kernels
//! 0..100 x 21 builds, 0 mismatches (2100 dispatches, 890.7 s on 2 busy cores).
//!
//! Transcendentals (`transc`, seed 21 while choosing the domains, then seed 22, kernels
//! 0..100 x 21 builds with `--features all`: 0 mismatches, 2100 dispatches, 459.5 s at load
//! 9). Largest distance from glibc seen, against the bound: exp, exp10, log, log2 1 ulp
//! (of 3), exp2 0, log10 2 (of 3), sin and cos 2 (of 4). The one finding, `sin` of
//! subnormal and tiny arguments in LLVM 22's lowering, is in [`gen::TRANSC_FNS`] and
//! pinned by `tests/transc_domains.rs`.
//!
//! Tools: `--print I` prints kernel I with its header; `--minimize I --builds B` removes
//! body lines while the mismatch on B stays (check the result for reads of LDS whose writes
//! it removed); `examples/probe.rs` runs a hand-edited kernel on the host and one build.

#![warn(missing_docs)]

pub mod gen;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;

use gen::{Kernel, ATOM_WORDS, GROUPS, IN_WORDS, NOUT, TRANSC_FNS};

/// One device build: target, wave size and optimisation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Build {
    /// Target.
    pub target: Target,
    /// Compiled with `-mwavefrontsize64` (gfx12; gfx9 is always wave64).
    pub wave64: bool,
    /// `-O` level.
    pub opt: u8,
}

impl fmt::Display for Build {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = if self.wave64 { 64 } else { 32 };
        write!(f, "{}-w{w}-O{}", self.target.name(), self.opt)
    }
}

/// Every build: gfx90a, gfx942, gfx950 (wave64), gfx1200, gfx1201 (wave32 and wave64), each
/// at -O0, -O1 and -O3.
pub fn all_builds() -> Vec<Build> {
    let mut v = Vec::new();
    for (target, waves) in [
        (Target::Gfx90a, &[true][..]),
        (Target::Gfx942, &[true][..]),
        (Target::Gfx950, &[true][..]),
        (Target::Gfx1200, &[false, true][..]),
        (Target::Gfx1201, &[false, true][..]),
    ] {
        for &wave64 in waves {
            for opt in [0, 1, 3] {
                v.push(Build {
                    target,
                    wave64,
                    opt,
                });
            }
        }
    }
    v
}

/// What went wrong outside the comparison itself.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A compiler or the host program could not be run or failed.
    #[error("{what}: {detail}")]
    Tool {
        /// The step.
        what: String,
        /// Its output.
        detail: String,
    },
    /// File I/O in the work directory.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, Error> {
    r.map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// One kernel on one build that did not match the host.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// Kernel index (`k<index>`).
    pub kernel: u64,
    /// The build.
    pub build: String,
    /// The first differences, or the fault.
    pub detail: String,
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Kernels generated.
    pub kernels: usize,
    /// Builds each kernel ran on.
    pub builds: usize,
    /// Device dispatches compared.
    pub dispatches: usize,
    /// Everything that differed.
    pub mismatches: Vec<Mismatch>,
    /// Per function of [`TRANSC_FNS`]: results compared and the largest distance from the
    /// host seen in ulp (mismatches included).
    pub transc: [TranscStats; TRANSC_FNS.len()],
}

/// How close one transcendental came to the host over a run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TranscStats {
    /// Results compared.
    pub compared: u64,
    /// Results that were not bit-identical to the host's.
    pub inexact: u64,
    /// The largest distance in ulp ([`ulp_distance`]; special values that differ count as
    /// `u64::MAX`).
    pub max_ulp: u64,
}

/// Adds the transcendental words of one dispatch to `stats`.
fn transc_stats(k: &Kernel, host: &[u32], dev: &[u32], stats: &mut [TranscStats]) {
    let words = k.words();
    for item in 0..k.grid() as usize {
        for (j, t) in k.transc.iter().enumerate() {
            let i = item * words + NOUT + j;
            let (Some(&h), Some(&d)) = (host.get(i), dev.get(i)) else {
                continue;
            };
            let s = &mut stats[t.func];
            s.compared += 1;
            if h != d {
                s.inexact += 1;
                let special = |x: u32| x & 0x7f80_0000 == 0x7f80_0000;
                let u = if special(h) || special(d) {
                    u64::MAX
                } else {
                    ulp_distance(h, d)
                };
                s.max_ulp = s.max_ulp.max(u);
            }
        }
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seed.
    pub seed: u64,
    /// First kernel index.
    pub first: u64,
    /// Number of kernels.
    pub count: u64,
    /// Kernels per batch (one source, one compile per build).
    pub batch: u64,
    /// Builds to run.
    pub builds: Vec<Build>,
    /// Worker threads.
    pub jobs: usize,
    /// Directory for sources, objects and host programs.
    pub workdir: PathBuf,
    /// Generator switches.
    pub features: gen::Features,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn clang() -> String {
    std::env::var("CLANG").unwrap_or_else(|_| "clang-22".into())
}

fn run_tool(what: &str, cmd: &mut Command) -> Result<Vec<u8>, Error> {
    let out = cmd.output().map_err(|e| Error::Tool {
        what: what.into(),
        detail: format!("cannot run: {e}"),
    })?;
    if !out.status.success() {
        let mut detail = String::from_utf8_lossy(&out.stderr).into_owned();
        detail.truncate(4000);
        return Err(Error::Tool {
            what: what.into(),
            detail,
        });
    }
    Ok(out.stdout)
}

/// The batch source (header and kernels) shared by host and device.
pub fn batch_source(kernels: &[Kernel]) -> String {
    let mut s = gen::header();
    for k in kernels {
        s.push_str(&k.source);
    }
    s
}

/// Compiles `src` (OpenCL C) for `b` into a code object.
pub fn compile_device(src: &Path, b: Build, out: &Path) -> Result<Vec<u8>, Error> {
    let inc = corpus_dir().join("include");
    let mut cmd = Command::new(clang());
    cmd.args([
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        "-nogpulib",
        "-w",
    ])
    .arg(format!("-mcpu={}", b.target.name()))
    .arg(format!("-O{}", b.opt))
    .args([
        "-ffp-contract=off",
        "-cl-fp32-correctly-rounded-divide-sqrt",
    ])
    .arg("-include")
    .arg(inc.join("prelude.h"))
    .arg(src)
    .arg("-o")
    .arg(out);
    if b.wave64 && b.target.name().starts_with("gfx12") {
        cmd.arg("-mwavefrontsize64");
    }
    run_tool(&format!("clang {b}"), &mut cmd)?;
    io(out, std::fs::read(out))
}

fn atom_init() -> Vec<u32> {
    (0..ATOM_WORDS as u32)
        .map(|i| 0x8000_0000u32.wrapping_add(i.wrapping_mul(0x0101_0193)))
        .collect()
}

const OUT_FILL: u32 = 0xdead_beef;

/// The host program's `main`: runs each kernel's work-groups one after another, each
/// work-item a thread, and writes out + atom words per kernel.
fn host_main(kernels: &[Kernel]) -> String {
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    let wgs: Vec<String> = kernels.iter().map(|k| k.wg.to_string()).collect();
    let tails: Vec<String> = kernels.iter().map(|k| k.tail.to_string()).collect();
    let words: Vec<String> = kernels.iter().map(|k| k.words().to_string()).collect();
    let init: Vec<String> = atom_init().iter().map(|v| format!("{v}u")).collect();
    format!(
        r#"
#include <stdio.h>
#include <stdlib.h>
__thread hc_wi_t hc_wi;
pthread_barrier_t hc_barrier;
unsigned hc_wave = 64;
typedef void (*kfn)(const u32_t *, u32_t *, u32_t *);
static const kfn table[] = {{ {names} }};
static const unsigned wgs[] = {{ {wgs} }};
static const unsigned tails[] = {{ {tails} }};
static const unsigned nouts[] = {{ {words} }};
static const u32_t atom_init[{aw}] = {{ {init} }};
struct targ {{ kfn f; const u32_t *in; u32_t *out, *atom; unsigned lid, grp, wg, grid; }};
static void *tramp(void *p) {{
  struct targ *a = p;
  hc_wi.lid[0] = a->lid; hc_wi.lid[1] = 0; hc_wi.lid[2] = 0;
  hc_wi.gid[0] = a->grp; hc_wi.gid[1] = 0; hc_wi.gid[2] = 0;
  hc_wi.lsz[0] = a->wg; hc_wi.lsz[1] = 1; hc_wi.lsz[2] = 1;
  hc_wi.gsz[0] = a->grid; hc_wi.gsz[1] = 1; hc_wi.gsz[2] = 1;
  a->f(a->in, a->out, a->atom);
  return NULL;
}}
int main(int argc, char **argv) {{
  if (argc != 3 && argc != 4) return 2;
  if (argc == 4) hc_wave = (unsigned)atoi(argv[3]);
  if (hc_wave == 0) return 2;
  unsigned n = sizeof(wgs) / sizeof(wgs[0]);
  u32_t *in = malloc((size_t)n * {inw} * 4);
  FILE *fi = fopen(argv[1], "rb");
  if (!fi || fread(in, 4, (size_t)n * {inw}, fi) != (size_t)n * {inw}) return 3;
  fclose(fi);
  FILE *fo = fopen(argv[2], "wb");
  if (!fo) return 4;
  static u64_t atom64[{aw} / 2];
  u32_t *atom = (u32_t *)atom64;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  for (unsigned k = 0; k < n; ++k) {{
    unsigned wg = wgs[k], grid = wg * {groups}u - tails[k], nout = nouts[k];
    u32_t *out = malloc((size_t)grid * nout * 4);
    for (unsigned i = 0; i < grid * nout; ++i) out[i] = {fill}u;
    for (unsigned i = 0; i < {aw}; ++i) atom[i] = atom_init[i];
    struct targ args[256];
    pthread_t th[256];
    for (unsigned g = 0; g < {groups}u; ++g) {{
      /* The last group is partial when the grid is not a multiple of the group. */
      unsigned n_items = grid - g * wg < wg ? grid - g * wg : wg;
      pthread_barrier_init(&hc_barrier, NULL, n_items);
      for (unsigned l = 0; l < n_items; ++l) {{
        args[l] = (struct targ){{ table[k], in + (size_t)k * {inw}, out, atom, l, g, wg, grid }};
        if (pthread_create(&th[l], &attr, tramp, &args[l])) return 5;
      }}
      for (unsigned l = 0; l < n_items; ++l) pthread_join(th[l], NULL);
      pthread_barrier_destroy(&hc_barrier);
    }}
    fwrite(out, 4, (size_t)grid * nout, fo);
    fwrite(atom, 4, {aw}, fo);
    free(out);
  }}
  fclose(fo);
  return 0;
}}
"#,
        names = names.join(", "),
        wgs = wgs.join(", "),
        tails = tails.join(", "),
        words = words.join(", "),
        init = init.join(", "),
        aw = ATOM_WORDS,
        inw = IN_WORDS,
        groups = GROUPS,
        fill = OUT_FILL,
    )
}

fn to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs a batch on the host: per kernel, its out words then its atom words (sub-groups of
/// 64 work-items; see [`host_reference_wave`]).
pub fn host_reference(
    dir: &Path,
    src: &str,
    kernels: &[Kernel],
    inputs: &[u32],
) -> Result<Vec<Vec<u32>>, Error> {
    host_reference_wave(dir, src, kernels, inputs, 64)
}

/// [`host_reference`] with sub-groups of `wave` work-items (the device build's wave size:
/// the only thing in a kernel whose result depends on it is a sub-group operation).
pub fn host_reference_wave(
    dir: &Path,
    src: &str,
    kernels: &[Kernel],
    inputs: &[u32],
    wave: u32,
) -> Result<Vec<Vec<u32>>, Error> {
    let c = dir.join("host.c");
    io(
        &c,
        std::fs::write(&c, format!("{src}{}", host_main(kernels))),
    )?;
    let exe = dir.join("host");
    let inc = corpus_dir().join("hostcheck");
    run_tool(
        "clang host",
        Command::new(clang())
            .args(["-x", "c", "-std=gnu11", "-O1", "-w", "-ffp-contract=off"])
            .args(["-Xclang", "-ffloat16-excess-precision=none"])
            .arg("-include")
            .arg(inc.join("prelude.h"))
            .arg(&c)
            .arg("-o")
            .arg(&exe)
            .args(["-lpthread", "-lm"]),
    )?;
    let inp = dir.join("in.bin");
    io(&inp, std::fs::write(&inp, to_bytes(inputs)))?;
    let outp = dir.join(format!("host-w{wave}.out"));
    run_tool(
        "host run",
        Command::new(&exe)
            .arg(&inp)
            .arg(&outp)
            .arg(wave.to_string()),
    )?;
    let words = from_bytes(&io(&outp, std::fs::read(&outp))?);
    let mut res = Vec::new();
    let mut at = 0;
    for k in kernels {
        let n = k.grid() as usize * k.words() + ATOM_WORDS;
        let Some(w) = words.get(at..at + n) else {
            return Err(Error::Tool {
                what: "host run".into(),
                detail: "short output".into(),
            });
        };
        res.push(w.to_vec());
        at += n;
    }
    Ok(res)
}

/// Runs every kernel of a code object on a fresh device: per kernel, out then atom words, or
/// the error that stopped it.
pub fn run_device(
    b: Build,
    hsaco: &[u8],
    kernels: &[Kernel],
    inputs: &[u32],
) -> Vec<Result<Vec<u32>, String>> {
    let mut dev = Device::new(b.target);
    let setup = (|| -> Result<_, gpu_model::device::DeviceError> {
        let m = dev.load_code_object(hsaco)?;
        let inp = dev.alloc((inputs.len() * 4) as u64)?;
        dev.copy_in(inp, &to_bytes(inputs))?;
        let max_out = kernels
            .iter()
            .map(|k| k.grid() as usize * k.words() * 4)
            .max()
            .unwrap_or(4);
        let out = dev.alloc(max_out as u64)?;
        let atom = dev.alloc((ATOM_WORDS * 4) as u64)?;
        Ok((m, inp, out, atom))
    })();
    let (m, inp, out, atom) = match setup {
        Ok(s) => s,
        Err(e) => return kernels.iter().map(|_| Err(format!("setup: {e}"))).collect(),
    };
    let mut res = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        let r = (|| -> Result<Vec<u32>, gpu_model::device::DeviceError> {
            let n = k.grid() as usize * k.words();
            dev.copy_in(out, &to_bytes(&vec![OUT_FILL; n]))?;
            dev.copy_in(atom, &to_bytes(&atom_init()))?;
            let args = [
                ArgValue::ptr(inp + (i * IN_WORDS * 4) as u64),
                ArgValue::ptr(out),
                ArgValue::ptr(atom),
            ];
            let id = dev.dispatch(
                m,
                &k.name,
                &LaunchConfig::new([k.grid(), 1, 1], [k.wg, 1, 1]),
                &args,
            )?;
            dev.wait(id)?;
            let mut o = vec![0u8; n * 4];
            dev.copy_out(out, &mut o)?;
            let mut a = vec![0u8; ATOM_WORDS * 4];
            dev.copy_out(atom, &mut a)?;
            let mut w = from_bytes(&o);
            w.extend(from_bytes(&a));
            Ok(w)
        })();
        res.push(r.map_err(|e| e.to_string()));
    }
    res
}

/// Distance between two f32 bit patterns in representable values: the error in ulp where
/// both lie in one binade, and an overestimate (counted in the smaller ulp) across one.
pub fn ulp_distance(a: u32, b: u32) -> u64 {
    let ord = |x: u32| {
        if x & 0x8000_0000 != 0 {
            -i64::from(x & 0x7fff_ffff)
        } else {
            i64::from(x)
        }
    };
    (ord(a) - ord(b)).unsigned_abs()
}

/// Whether a device transcendental result `dev` is within `ulp` of the host's `host` (both
/// with NaN made canonical). Infinities and NaN must match exactly. The host's libm
/// (glibc's expf, logf, sinf, ... documented within 1 ulp, in practice correctly rounded on
/// these domains) stands for the exact value.
pub fn within_ulp(host: u32, dev: u32, ulp: u64) -> bool {
    let special = |x: u32| x & 0x7f80_0000 == 0x7f80_0000;
    if special(host) || special(dev) {
        return host == dev;
    }
    ulp_distance(host, dev) <= ulp
}

fn describe(k: &Kernel, host: &[u32], dev: &[u32]) -> Option<String> {
    let mut diffs = Vec::new();
    let words = k.words();
    let nout = k.grid() as usize * words;
    for (i, (h, d)) in host.iter().zip(dev).enumerate() {
        if h == d {
            continue;
        }
        let at = if i < nout {
            let w = i % words;
            if let Some(t) = w.checked_sub(NOUT).and_then(|j| k.transc.get(j)) {
                let f = TRANSC_FNS[t.func];
                // The bound of this function: OpenCL C's table (see `gen::TRANSC_FNS`).
                if within_ulp(*h, *d, f.ulp) {
                    continue;
                }
                format!(
                    "out[item {} word {w}: {} ({} ulp allowed), {} ulp]",
                    i / words,
                    f.name,
                    f.ulp,
                    ulp_distance(*h, *d)
                )
            } else {
                format!("out[item {} word {w}]", i / words)
            }
        } else {
            format!("atom[{}]", i - nout)
        };
        diffs.push(format!("{at}: host {h:#010x} device {d:#010x}"));
    }
    if diffs.is_empty() && host.len() == dev.len() {
        return None;
    }
    let n = diffs.len();
    diffs.truncate(4);
    Some(format!("{n} words differ; {}", diffs.join("; ")))
}

/// Generates, compiles and runs, and compares.
pub fn run(o: &Options) -> Result<Report, Error> {
    io(&o.workdir, std::fs::create_dir_all(&o.workdir))?;
    // Batches: kernels, inputs and host reference.
    struct Batch {
        dir: PathBuf,
        src: PathBuf,
        first: u64,
        kernels: Vec<Kernel>,
        inputs: Vec<u32>,
        /// Host results with sub-groups of 64 and of 32 work-items (the same run when no
        /// kernel uses sub-groups).
        host: [Vec<Vec<u32>>; 2],
    }
    let mut batches = Vec::new();
    let mut i = o.first;
    while i < o.first + o.count {
        let n = o.batch.min(o.first + o.count - i);
        let kernels: Vec<Kernel> = (i..i + n)
            .map(|j| gen::kernel_with(o.seed, j, o.features))
            .collect();
        let inputs: Vec<u32> = (i..i + n).flat_map(|j| gen::input(o.seed, j)).collect();
        let dir = o.workdir.join(format!("s{}-b{i}", o.seed));
        io(&dir, std::fs::create_dir_all(&dir))?;
        let src = dir.join("batch.cl");
        io(&src, std::fs::write(&src, batch_source(&kernels)))?;
        batches.push(Batch {
            dir,
            src,
            first: i,
            kernels,
            inputs,
            host: Default::default(),
        });
        i += n;
    }
    // Host references, in parallel.
    let next = AtomicUsize::new(0);
    type HostResult = (usize, Result<[Vec<Vec<u32>>; 2], Error>);
    let host_res: Mutex<Vec<HostResult>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..o.jobs.max(1) {
            s.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(b) = batches.get(j) else { break };
                let src = batch_source(&b.kernels);
                let r =
                    host_reference_wave(&b.dir, &src, &b.kernels, &b.inputs, 64).and_then(|h64| {
                        let h32 = if o.features.subgroup {
                            host_reference_wave(&b.dir, &src, &b.kernels, &b.inputs, 32)?
                        } else {
                            h64.clone()
                        };
                        Ok([h64, h32])
                    });
                host_res
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((j, r));
            });
        }
    });
    for (j, r) in host_res.into_inner().unwrap_or_else(|e| e.into_inner()) {
        batches[j].host = r?;
    }
    // Device runs: one work item per (batch, build).
    let work: Vec<(usize, Build)> = (0..batches.len())
        .flat_map(|j| o.builds.iter().map(move |b| (j, *b)))
        .collect();
    let next = AtomicUsize::new(0);
    let report = Mutex::new(Report {
        kernels: o.count as usize,
        builds: o.builds.len(),
        ..Report::default()
    });
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..o.jobs.max(1) {
            s.spawn(|| loop {
                let w = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(j, b)) = work.get(w) else { break };
                let bt = &batches[j];
                let obj = bt.dir.join(format!("{b}.hsaco"));
                let hsaco = match compile_device(&bt.src, b, &obj) {
                    Ok(h) => h,
                    Err(e) => {
                        first_err
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                        continue;
                    }
                };
                let res = run_device(b, &hsaco, &bt.kernels, &bt.inputs);
                let mut rep = report.lock().unwrap_or_else(|e| e.into_inner());
                for (ki, r) in res.into_iter().enumerate() {
                    rep.dispatches += 1;
                    let kernel = bt.first + ki as u64;
                    let detail = match r {
                        Err(e) => Some(format!("device error: {e}")),
                        Ok(d) => {
                            let (k, h) = (&bt.kernels[ki], &bt.host[!b.wave64 as usize][ki]);
                            transc_stats(k, h, &d, &mut rep.transc);
                            describe(k, h, &d)
                        }
                    };
                    if let Some(detail) = detail {
                        rep.mismatches.push(Mismatch {
                            kernel,
                            build: b.to_string(),
                            detail,
                        });
                    }
                }
            });
        }
    });
    if let Some(e) = first_err.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut rep = report.into_inner().unwrap_or_else(|e| e.into_inner());
    rep.mismatches
        .sort_by(|a, b| (a.kernel, &a.build).cmp(&(b.kernel, &b.build)));
    Ok(rep)
}

/// Whether `k` (with its input) still differs between the host and build `b`; errors of
/// either compiler count as "no" (a removal that broke the source).
fn still_differs(dir: &Path, k: &Kernel, input: &[u32], b: Build) -> bool {
    let ks = std::slice::from_ref(k);
    let src = batch_source(ks);
    let Ok(host) = host_reference_wave(dir, &src, ks, input, if b.wave64 { 64 } else { 32 }) else {
        return false;
    };
    let p = dir.join("min.cl");
    if std::fs::write(&p, &src).is_err() {
        return false;
    }
    let Ok(obj) = compile_device(&p, b, &dir.join("min.hsaco")) else {
        return false;
    };
    match run_device(b, &obj, ks, input).pop() {
        Some(Ok(d)) => describe(k, &host[0], &d).is_some(),
        Some(Err(_)) => true,
        None => false,
    }
}

/// Minimizes kernel `index` of `seed` for build `b`: removes body lines one at a time while
/// the mismatch stays. Returns the minimized kernel, or `None` when it does not differ.
pub fn minimize(
    seed: u64,
    index: u64,
    features: gen::Features,
    b: Build,
    workdir: &Path,
) -> Result<Option<Kernel>, Error> {
    let dir = workdir.join(format!("min-s{seed}-k{index}"));
    io(&dir, std::fs::create_dir_all(&dir))?;
    let mut k = gen::kernel_with(seed, index, features);
    let input = gen::input(seed, index);
    if !still_differs(&dir, &k, &input, b) {
        return Ok(None);
    }
    loop {
        let lines: Vec<String> = k.source.lines().map(String::from).collect();
        let mut changed = false;
        // The signature (first) and closing brace (last) stay.
        let mut i = lines.len().saturating_sub(2);
        let mut cur = lines;
        while i >= 1 {
            let mut trial = cur.clone();
            trial.remove(i);
            let cand = Kernel {
                source: trial.join("\n") + "\n",
                ..k.clone()
            };
            if still_differs(&dir, &cand, &input, b) {
                cur = trial;
                k = cand;
                changed = true;
            }
            i -= 1;
        }
        if !changed {
            return Ok(Some(k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_representable_values() {
        let one = 1.0f32.to_bits();
        assert_eq!(ulp_distance(one, one + 3), 3);
        assert_eq!(ulp_distance(one + 3, one), 3);
        // Across zero: +0 and -0 are the same value; the smallest subnormals are 2 apart.
        assert_eq!(ulp_distance(0, 0x8000_0000), 0);
        assert_eq!(ulp_distance(1, 0x8000_0001), 2);
        assert!(within_ulp(one, one + 3, 3));
        assert!(!within_ulp(one, one + 4, 3));
        // Infinities and NaN only match themselves.
        let inf = f32::INFINITY.to_bits();
        assert!(!within_ulp(inf, f32::MAX.to_bits(), 3));
        assert!(within_ulp(inf, inf, 0));
        assert!(!within_ulp(0x7fc0_0000, inf, 3));
    }
}
