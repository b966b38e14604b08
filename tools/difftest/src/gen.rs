//! The kernel generator: random, well-defined OpenCL C kernels (see the crate docs for the
//! rules that keep them free of undefined behaviour).

use std::fmt::Write as _;

/// Words of input per kernel: `[0, 256)` integers, `[256, 512)` f32 bit patterns,
/// `[512, 768)` f64 bit patterns (pairs, low word first), `[768, 1024)` f16 pairs.
pub const IN_WORDS: usize = 1024;
/// Output words per work-item.
pub const NOUT: usize = 8;
/// Words of the atomics buffer: 16 u32 counters, then 8 u64 counters.
pub const ATOM_WORDS: usize = 32;
/// Work-groups per dispatch (the last one is partial when [`Features::partial`] picks a
/// grid that is not a multiple of the group).
pub const GROUPS: u32 = 2;

/// Generator switches for the constructs added after the first CI slice. Each one only
/// draws random numbers when it is on, so the kernels of a seed with every switch off are
/// the same text as before the switch existed (the CI slice and the corpus of fixed
/// mismatches keep their meaning).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Partial work-groups: the grid is `GROUPS * wg - tail` (tail in `1..=wg - 8`), the
    /// kernel reads its actual work-group size (device: from the implicit kernel
    /// arguments the way ROCm's device library does, `hidden_block_count_x`,
    /// `hidden_group_size_x`, `hidden_remainder_x`) and the LDS exchange stays inside it.
    pub partial: bool,
    /// Fused multiply-add on `half` and `half2` (`v_fma_f16`, `v_pk_fma_f16`); the host
    /// computes it rounded once (round to odd at f64 and f32, then to half).
    pub f16fma: bool,
    /// Division of float vectors (`float4`, `half2`).
    pub vdiv: bool,
    /// Sub-group (wave) operations, as cl_khr_subgroups defines them: `sub_group_reduce_add/
    /// min/max` (u32, i32), `sub_group_broadcast` (from sub-group lane 0..3, only lane 0 with
    /// `partial`, where the last wave may hold one work-item), `get_sub_group_id`,
    /// `get_sub_group_size`; only at the top level of the kernel (uniform control flow,
    /// every work-item of the sub-group takes part). Their results depend on the sub-group
    /// size (the wave size): the host reference runs once per wave size (see
    /// [`crate::host_reference_wave`]). Seed 11, kernels 0..40, first gave 84 mismatches:
    /// kernels 34 and 37 on every build through our `sub_group_size` (clang-22 folds
    /// `wave_reduce_add(1u)` to 1; now a popcount of EXEC), kernels 5, 20 and 39 (every
    /// target at -O1/-O3) through LLVM 22 constant-folding `sub_group_reduce_add` of a
    /// constant (see `Gen::subgroup`: the operand is now never a constant). Seed 11,
    /// kernels 0..100 x 21 builds: 0 mismatches; in [`Features::all`] since.
    pub subgroup: bool,
    /// Single-precision transcendentals with OpenCL's ulp bounds ([`TRANSC_FNS`]): each
    /// kernel writes [`NTRANSC`] results to output words of their own (after the [`NOUT`]
    /// exact words), compared within the function's bound instead of bit for bit.
    pub transc: bool,
}

impl Features {
    /// Every switch on.
    pub fn all() -> Features {
        Features {
            partial: true,
            f16fma: true,
            vdiv: true,
            subgroup: true,
            transc: true,
        }
    }

    /// Parses a comma-separated list of switch names (`partial,f16fma,vdiv,subgroup,transc`,
    /// or `all`).
    pub fn parse(list: &str) -> Result<Features, String> {
        let mut f = Features::default();
        for name in list.split(',').filter(|n| !n.is_empty()) {
            match name {
                "all" => f = Features::all(),
                "partial" => f.partial = true,
                "f16fma" => f.f16fma = true,
                "vdiv" => f.vdiv = true,
                "subgroup" => f.subgroup = true,
                "transc" => f.transc = true,
                _ => {
                    return Err(format!(
                        "unknown generator feature {name} (known: partial, f16fma, vdiv, subgroup, transc, all)"
                    ))
                }
            }
        }
        Ok(f)
    }
}

/// A deterministic PRNG (splitmix64): the same seed gives the same kernels on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for kernel `index` of run `seed` (independent of the batch layout).
    pub fn new(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(index.wrapping_add(1)));
        r.bits();
        r
    }
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n.max(1)
    }
    /// True with probability `pct` percent.
    pub fn pct(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// The value types kernels compute with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Ty {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F16,
    F32,
    F64,
    V4U32,
    V2I32,
    V4I16,
    V4U8,
    V2F16,
    V4F32,
}

use Ty::*;

const ALL: [Ty; 17] = [
    I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64, V4U32, V2I32, V4I16, V4U8, V2F16, V4F32,
];
const INTS: [Ty; 8] = [I8, U8, I16, U16, I32, U32, I64, U64];
const SCALARS: [Ty; 11] = [I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64];

impl Ty {
    fn c(self) -> &'static str {
        match self {
            I8 => "i8_t",
            U8 => "u8_t",
            I16 => "i16_t",
            U16 => "u16_t",
            I32 => "i32_t",
            U32 => "u32_t",
            I64 => "i64_t",
            U64 => "u64_t",
            F16 => "f16_t",
            F32 => "f32_t",
            F64 => "f64_t",
            V4U32 => "v4u32",
            V2I32 => "v2i32",
            V4I16 => "v4i16",
            V4U8 => "v4u8",
            V2F16 => "v2f16",
            V4F32 => "v4f32",
        }
    }
    fn is_int(self) -> bool {
        INTS.contains(&self)
    }
    fn is_float(self) -> bool {
        matches!(self, F16 | F32 | F64)
    }
    fn is_vec(self) -> bool {
        self.lanes() > 1
    }
    fn is_ivec(self) -> bool {
        matches!(self, V4U32 | V2I32 | V4I16 | V4U8)
    }
    fn is_signed(self) -> bool {
        matches!(self, I8 | I16 | I32 | I64 | V2I32 | V4I16)
    }
    fn lanes(self) -> u32 {
        match self {
            V4U32 | V4I16 | V4U8 | V4F32 => 4,
            V2I32 | V2F16 => 2,
            _ => 1,
        }
    }
    /// Element type of a vector (the type itself for a scalar).
    fn elem(self) -> Ty {
        match self {
            V4U32 => U32,
            V2I32 => I32,
            V4I16 => I16,
            V4U8 => U8,
            V2F16 => F16,
            V4F32 => F32,
            t => t,
        }
    }
    /// Bits of one element.
    fn bits(self) -> u32 {
        match self.elem() {
            I8 | U8 => 8,
            I16 | U16 | F16 => 16,
            I32 | U32 | F32 => 32,
            _ => 64,
        }
    }
    fn bytes(self) -> u32 {
        self.bits() * self.lanes() / 8
    }
    /// Same-width unsigned type (vector or scalar).
    fn unsigned(self) -> Ty {
        match self {
            I8 => U8,
            I16 => U16,
            I32 => U32,
            I64 => U64,
            V2I32 => V2I32,
            V4I16 => V4I16,
            t => t,
        }
    }
    /// The unsigned vector type used for wrapping arithmetic on a signed vector.
    fn uvec(self) -> &'static str {
        match self {
            V2I32 => "v2u32",
            V4I16 => "v4u16",
            t => t.c(),
        }
    }
    /// Integer range of an integer scalar type.
    fn range(self) -> (i128, i128) {
        let b = self.bits();
        if self.is_signed() {
            (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
        } else {
            (0, (1i128 << b) - 1)
        }
    }
}

/// A C literal of integer type `t` with value `v` (in range).
fn ilit(t: Ty, v: i128) -> String {
    let c = t.c();
    if t.bits() == 64 {
        if t.is_signed() && v == i64::MIN as i128 {
            return format!("(({c})(-9223372036854775807L - 1L))");
        }
        if t.is_signed() {
            format!("(({c}){v}L)")
        } else {
            format!("(({c}){v}UL)")
        }
    } else if v == i32::MIN as i128 {
        format!("(({c})(-2147483647 - 1))")
    } else if v > i32::MAX as i128 {
        format!("(({c}){v}u)")
    } else {
        format!("(({c}){v})")
    }
}

/// C hexadecimal float literal of `x` (exact), with `f` suffix when `single`.
fn flit(x: f64, single: bool) -> String {
    let suffix = if single { "f" } else { "" };
    if x.is_infinite() {
        let s = if x < 0.0 { "-" } else { "" };
        return if single {
            format!("({s}__builtin_inff())")
        } else {
            format!("({s}__builtin_inf())")
        };
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 != 0 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let man = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        if man == 0 {
            return format!("({sign}0.0{suffix})");
        }
        return format!("({sign}0x0.{man:013x}p-1022{suffix})");
    }
    format!("({sign}0x1.{man:013x}p{}{suffix})", exp - 1023)
}

/// Interesting f32 values (finite and not, normal and subnormal).
fn rand_f32(r: &mut Rng) -> f32 {
    match r.below(8) {
        0 => r.pick(&[
            0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.0, 1e-45, -1e-40, 3.4e38, 1e30,
        ]),
        1 => (r.below(33) as f32) - 16.0,
        2 => f32::from_bits(r.bits() as u32 & 0x807f_ffff), // subnormals
        3 => f32::from_bits((r.bits() as u32) & 0xbfff_ffff | 0x3000_0000), // moderate
        4 => r.pick(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 65504.0, 65520.0]),
        _ => {
            let b = r.bits() as u32;
            let f = f32::from_bits(b);
            if f.is_finite() {
                f
            } else {
                (r.below(2000) as f32) * 0.125 - 125.0
            }
        }
    }
}

fn rand_f64(r: &mut Rng) -> f64 {
    match r.below(6) {
        0 => r.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e-310,
            -4.9e-324,
            1.7e308,
            f64::INFINITY,
        ]),
        1 => (r.below(33) as f64) - 16.0,
        2 => rand_f32(r) as f64,
        3 => f64::from_bits(r.bits() & 0x800f_ffff_ffff_ffff),
        _ => {
            let f = f64::from_bits(r.bits());
            if f.is_finite() {
                f
            } else {
                r.below(1000) as f64 / 3.0
            }
        }
    }
}

/// A half value (as its bits) from a useful mix.
fn rand_f16_bits(r: &mut Rng) -> u16 {
    match r.below(5) {
        0 => r.pick(&[
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x7e00,
        ]),
        1 => (r.bits() as u16) & 0x83ff, // subnormals
        _ => {
            let b = r.bits() as u16;
            if b & 0x7c00 == 0x7c00 {
                b & 0xbbff
            } else {
                b
            }
        }
    }
}

fn rand_int(r: &mut Rng, t: Ty) -> i128 {
    let (lo, hi) = t.range();
    match r.below(5) {
        0 => r.pick(&[lo, hi, 0, 1, -1i128.max(lo), lo + 1, hi - 1]),
        1 => (r.below(17) as i128 - 8).clamp(lo, hi),
        _ => {
            let span = (hi - lo + 1) as u128;
            lo + ((r.bits() as u128 | ((r.bits() as u128) << 64)) % span) as i128
        }
    }
}

/// The input words of kernel `index` of run `seed`.
pub fn input(seed: u64, index: u64) -> Vec<u32> {
    let mut r = Rng::new(seed ^ 0x1234_5678, index);
    let mut v = Vec::with_capacity(IN_WORDS);
    for _ in 0..256 {
        let x = match r.below(4) {
            0 => r.pick(&[
                0u32,
                1,
                0xffff_ffff,
                0x8000_0000,
                0x7fff_ffff,
                0x80,
                0xff,
                0x8000,
                0xffff,
            ]),
            1 => r.below(64) as u32,
            _ => r.bits() as u32,
        };
        v.push(x);
    }
    for _ in 0..256 {
        v.push(rand_f32(&mut r).to_bits());
    }
    for _ in 0..128 {
        let b = rand_f64(&mut r).to_bits();
        v.push(b as u32);
        v.push((b >> 32) as u32);
    }
    for _ in 0..256 {
        v.push(rand_f16_bits(&mut r) as u32 | (rand_f16_bits(&mut r) as u32) << 16);
    }
    v
}

/// One generated kernel: its name, work-group size and source.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Kernel symbol.
    pub name: String,
    /// Work-group size (x); the grid is [`GROUPS`] groups.
    pub wg: u32,
    /// Work-items missing from the last group (0: every group is full).
    pub tail: u32,
    /// OpenCL C source of the kernel function (the batch header comes first).
    pub source: String,
    /// The transcendental results after the [`NOUT`] exact words of each work-item (empty
    /// without [`Features::transc`]).
    pub transc: Vec<Transc>,
}

impl Kernel {
    /// Grid size in work-items.
    pub fn grid(&self) -> u32 {
        self.wg * GROUPS - self.tail
    }

    /// Output words per work-item: [`NOUT`] exact ones, then the transcendental results.
    pub fn words(&self) -> usize {
        NOUT + self.transc.len()
    }
}

/// Transcendental results per work-item with [`Features::transc`].
pub const NTRANSC: usize = 4;

/// One transcendental result: output word `NOUT + slot` of every work-item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transc {
    /// Index into [`TRANSC_FNS`].
    pub func: usize,
}

/// A single-precision OpenCL C math function as the generator uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscFn {
    /// The OpenCL C name.
    pub name: &'static str,
    /// The clang builtin both sides call: an LLVM intrinsic that the AMDGPU backend lowers
    /// itself (clang-22 `-nogpulib`, no device library), glibc's function on the host.
    pub builtin: &'static str,
    /// The largest error OpenCL allows, in ulp: the OpenCL C specification's table of
    /// single-precision ulp values for the full profile (section 7.4, "Relative Error as
    /// ULPs").
    pub ulp: u64,
    /// The header function that maps the argument into the domain and its bound on `|x|`
    /// (`dom_unit`: `|x| <= b`; `dom_normal`: also no subnormal; see [`header`]), or
    /// `None` for every argument.
    pub domain: Option<(&'static str, &'static str)>,
}

/// The functions [`Features::transc`] draws from, with their bounds and domains.
///
/// Domains: LLVM 22 lowers `sin`/`cos` to `v_sin_f32`/`v_cos_f32` of `x * (1 / 2pi)`
/// rounded to f32. The rounding moves the argument by up to `|x| * 2^-24` relative, which
/// costs about `|x cot x|` ulp for sin and `|x tan x|` for cos on top of the instruction's
/// own error: unbounded near every zero of the function but the one at 0 (`sin(pi)` in f32
/// is off by about 2^22 ulp). The domains keep both within the bound: `|x| <= 1.5` for sin
/// (below pi/2), `|x| <= 1` for cos (`x tan x` <= 1.56). sin of a subnormal is the
/// subnormal itself, but LLVM 22's lowering gives +-0: the scaled argument `x / 2pi` reaches
/// `v_sin_f32`, which flushes f32 denormals whatever the mode, and LLVM does not scale it
/// as it does for exp, log and sqrt. Seed 21 with this switch found it on every build (up
/// to 2^24 ulp, for subnormal x and for normal x below 2^-123.35, whose scaled argument is
/// subnormal), so sin's domain also leaves out nonzero `|x| < 2^-122`. exp, exp2, exp10, log, log2 and
/// log10 are lowered with extended-precision argument reduction and scaling of denormal
/// operands and results, and run on every f32 (NaN, infinities, zeros and subnormals
/// included). sqrt is not here: it is correctly rounded with
/// `-cl-fp32-correctly-rounded-divide-sqrt` and compared bit for bit by the main generator.
/// Not generated: `rsqrt` (no LLVM intrinsic; it needs ROCm's device library), `tan` (LLVM
/// 22 has no AMDGPU lowering of `llvm.tan.f32`: "no libcall available for ftan"),
/// `native_*` (accuracy implementation-defined: no bound to check), `half_*` (8192 ulp;
/// with `-nogpulib` they do not exist), the f64 functions (LLVM 22 cannot select `fsin` /
/// has no libcall for `fexp`, `flog`, ... on AMDGPU) and `half` ones (bounds not checked
/// here).
pub const TRANSC_FNS: [TranscFn; 8] = [
    TranscFn {
        name: "exp",
        builtin: "__builtin_expf",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "exp2",
        builtin: "__builtin_exp2f",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "exp10",
        builtin: "__builtin_exp10f",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "log",
        builtin: "__builtin_logf",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "log2",
        builtin: "__builtin_log2f",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "log10",
        builtin: "__builtin_log10f",
        ulp: 3,
        domain: None,
    },
    TranscFn {
        name: "sin",
        builtin: "__builtin_sinf",
        ulp: 4,
        domain: Some(("dom_normal", "1.5f")),
    },
    TranscFn {
        name: "cos",
        builtin: "__builtin_cosf",
        ulp: 4,
        domain: Some(("dom_unit", "1.0f")),
    },
];

#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    /// Loop counters are read-only.
    assignable: bool,
}

struct Gen {
    r: Rng,
    vars: Vec<Var>,
    body: String,
    ind: usize,
    next: u32,
    wg: u32,
    lds_used: bool,
    /// The one operation this kernel's LDS atomics use.
    lds_op: &'static str,
    f: Features,
}

/// Generates kernel `index` of run `seed` with every [`Features`] switch off.
pub fn kernel(seed: u64, index: u64) -> Kernel {
    kernel_with(seed, index, Features::default())
}

/// Generates kernel `index` of run `seed` with the constructs `f` switches on.
pub fn kernel_with(seed: u64, index: u64, f: Features) -> Kernel {
    let mut g = Gen {
        r: Rng::new(seed, index),
        vars: Vec::new(),
        body: String::new(),
        ind: 1,
        next: 0,
        wg: 64,
        lds_used: false,
        lds_op: "add",
        f,
    };
    g.lds_op = g.r.pick(&["add", "min", "max", "or"]);
    g.wg = g.r.pick(&[32, 64, 64, 128]);
    let tail = if f.partial {
        1 + g.r.below(g.wg as u64 - 8) as u32
    } else {
        0
    };
    let name = format!("k{index}");
    g.line("GFX_LOCAL u32_t lds[256];");
    g.line("GFX_LOCAL u32_t ldsa[8];");
    g.line("const u32_t lid = get_local_id(0);");
    g.line("const u32_t gid = get_global_id(0);");
    g.line("if (lid < 8u) ldsa[lid] = lid * 0x01010101u;");
    g.line("barrier();");
    g.vars.push(Var {
        name: "lid".into(),
        ty: U32,
        assignable: false,
    });
    g.vars.push(Var {
        name: "gid".into(),
        ty: U32,
        assignable: false,
    });
    if f.partial {
        // The actual size of this work-group (smaller in the last one): an output.
        g.line("const u32_t lsz = wi_local_size();");
        g.vars.push(Var {
            name: "lsz".into(),
            ty: U32,
            assignable: false,
        });
    }
    // A few loads of several types to start from.
    for _ in 0..4 {
        let t = g.r.pick(&SCALARS);
        let e = g.load(t);
        g.define(t, e);
    }
    let n = 6 + g.r.below(10);
    for _ in 0..n {
        g.stmt(0);
    }
    // LDS atomics are done: publish them.
    g.line("barrier();");
    g.line("const u32_t la = ldsa[lid & 7u];");
    g.vars.push(Var {
        name: "la".into(),
        ty: U32,
        assignable: false,
    });
    // Outputs: every value feeds one of the NOUT output words (so none is dead code).
    let mut acc: Vec<String> = vec!["0u".to_string(); NOUT];
    for (j, v) in g.vars.iter().enumerate() {
        let f = fold(v);
        let k = j % NOUT;
        acc[k] = format!("({} * 31u + {f})", acc[k]);
    }
    let words = if f.transc { NOUT + NTRANSC } else { NOUT };
    for (k, a) in acc.iter().enumerate() {
        g.line(&format!("out[gid * {words}u + {k}u] = {a};"));
    }
    // Transcendentals last: their inexact results feed nothing but their own words.
    let mut transc = Vec::new();
    if f.transc {
        for j in 0..NTRANSC {
            let func = g.r.below(TRANSC_FNS.len() as u64) as usize;
            let tf = TRANSC_FNS[func];
            let x = match g.r.pct(50).then(|| g.var_of(F32)).flatten() {
                Some(v) => v,
                None => g.load(F32),
            };
            let arg = match tf.domain {
                Some((d, b)) => format!("{d}({x}, {b})"),
                None => x,
            };
            let k = NOUT + j;
            g.line(&format!(
                "out[gid * {words}u + {k}u] = bits_f32({}({arg}));",
                tf.builtin
            ));
            transc.push(Transc { func });
        }
    }
    let _ = g.lds_used;
    let mut source = String::new();
    let _ = writeln!(
        source,
        "GFX_KERNEL GFX_WG_MAX(256) void {name}(GFX_GLOBAL const u32_t *restrict in, GFX_GLOBAL u32_t *restrict out, GFX_GLOBAL u32_t *restrict atom) {{"
    );
    source.push_str(&g.body);
    source.push_str("}\n");
    Kernel {
        name,
        wg: g.wg,
        tail,
        source,
        transc,
    }
}

/// A u32 that holds all the bits of `v` (floats with NaN made canonical).
fn fold(v: &Var) -> String {
    let n = &v.name;
    match v.ty {
        F16 => format!("(u32_t)bits_f16({n})"),
        F32 => format!("bits_f32({n})"),
        F64 => format!("fold64(bits_f64({n}))"),
        I64 | U64 => format!("fold64((u64_t){n})"),
        V4U32 | V4F32 | V2I32 | V4I16 | V4U8 | V2F16 => format!("fold_{}({n})", v.ty.c()),
        _ => format!("(u32_t){n}"),
    }
}

impl Gen {
    fn line(&mut self, s: &str) {
        for _ in 0..self.ind {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn define(&mut self, t: Ty, e: String) {
        let name = format!("v{}", self.next);
        self.next += 1;
        self.line(&format!("{} {name} = {e};", t.c()));
        self.vars.push(Var {
            name,
            ty: t,
            assignable: true,
        });
    }

    fn index(&mut self) -> String {
        match self.r.below(5) {
            0 => "gid".into(),
            1 => format!("(lid * {}u + {}u)", self.r.below(7) + 1, self.r.below(256)),
            2 => format!("(gid ^ {}u)", self.r.below(256)),
            _ => self.var_of(U32).unwrap_or_else(|| "gid".into()),
        }
    }

    fn load(&mut self, t: Ty) -> String {
        let i = self.index();
        match t {
            F16 => format!("ld_f16(in, {i})"),
            F32 => format!("ld_f32(in, {i})"),
            F64 => format!("ld_f64(in, {i})"),
            I64 | U64 => format!("(({})ld_u64(in, {i}))", t.c()),
            _ => format!("(({})ld_u32(in, {i}))", t.c()),
        }
    }

    fn var_of(&mut self, t: Ty) -> Option<String> {
        let c: Vec<&Var> = self.vars.iter().filter(|v| v.ty == t).collect();
        if c.is_empty() {
            return None;
        }
        let i = self.r.below(c.len() as u64) as usize;
        Some(c[i].name.clone())
    }

    fn literal(&mut self, t: Ty) -> String {
        match t {
            F16 => {
                let b = rand_f16_bits(&mut self.r);
                format!("bits_to_f16({b}u)")
            }
            F32 => flit(rand_f32(&mut self.r) as f64, true),
            F64 => flit(rand_f64(&mut self.r), false),
            t if t.is_int() => {
                let v = rand_int(&mut self.r, t);
                ilit(t, v)
            }
            t => {
                let e = t.elem();
                let parts: Vec<String> = (0..t.lanes()).map(|_| self.literal(e)).collect();
                format!("mk_{}({})", t.c(), parts.join(", "))
            }
        }
    }

    fn leaf(&mut self, t: Ty) -> String {
        match self.r.below(10) {
            0..=5 => {
                if let Some(v) = self.var_of(t) {
                    return v;
                }
                self.literal(t)
            }
            6 | 7 if !t.is_vec() => self.load(t),
            6 | 7 => {
                let e = t.elem();
                let parts: Vec<String> = (0..t.lanes()).map(|_| self.leaf(e)).collect();
                format!("mk_{}({})", t.c(), parts.join(", "))
            }
            _ => self.literal(t),
        }
    }

    /// A boolean condition (an int 0/1).
    fn cond(&mut self, depth: u32) -> String {
        match self.r.below(4) {
            0 => format!(
                "((lid & {}u) == {}u)",
                self.r.pick(&[1, 3, 7, 15, 31]),
                self.r.below(4)
            ),
            1 => format!("(gid % {}u == 0u)", self.r.below(5) + 2),
            _ => {
                let t = self.r.pick(&SCALARS);
                let a = self.expr(t, depth);
                let b = self.expr(t, depth);
                let op = self.r.pick(&["<", "<=", "==", "!=", ">", ">="]);
                format!("({a} {op} {b})")
            }
        }
    }

    fn expr(&mut self, t: Ty, depth: u32) -> String {
        if depth == 0 || self.r.pct(25) {
            return self.leaf(t);
        }
        let d = depth - 1;
        let c = t.c();
        if t.is_int() {
            match self.r.below(16) {
                0..=4 => {
                    let op = self.r.pick(&[
                        "add", "sub", "mul", "div", "rem", "shl", "shr", "min", "max", "adds",
                        "subs", "mulhi", "rotl", "and", "or", "xor",
                    ]);
                    let a = self.expr(t, d);
                    let b = self.expr(t, d);
                    format!("{op}_{c}({a}, {b})")
                }
                5 => {
                    let op = self.r.pick(&["not", "neg", "popc", "clz", "ctz", "brev"]);
                    let a = self.expr(t, d);
                    format!("{op}_{c}({a})")
                }
                6 => {
                    let (x, a, b) = (self.expr(t, d), self.expr(t, d), self.expr(t, d));
                    format!("clamp_{c}({x}, {a}, {b})")
                }
                7 => {
                    let k = self.cond(d);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    format!("({k} ? {a} : {b})")
                }
                8 => {
                    let k = self.cond(d);
                    format!("(({c}){k})")
                }
                9 | 10 => {
                    // Plain conversion from another integer type (modular).
                    let s = self.r.pick(&INTS);
                    let a = self.expr(s, d);
                    format!("(({c}){a})")
                }
                11 | 12 => {
                    // Saturating conversion from an integer or a float.
                    let s = self.r.pick(&SCALARS);
                    let a = self.expr(s, d);
                    format!("sat_{}_{}({a})", c, s.c())
                }
                13 => self.bitcast(t, d),
                _ => self.leaf(t),
            }
        } else if t.is_float() {
            if t == F16 && self.f.f16fma && self.r.pct(10) {
                let (a, b, e) = (self.expr(t, d), self.expr(t, d), self.expr(t, d));
                return format!("fma_f16_t({a}, {b}, {e})");
            }
            match self.r.below(14) {
                0..=3 => {
                    let op = self.r.pick(&["+", "-", "*", "/"]);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    if op == "/" {
                        format!("div_{c}({a}, {b})")
                    } else {
                        format!("({a} {op} {b})")
                    }
                }
                4 if t != F16 => {
                    let (a, b, e) = (self.expr(t, d), self.expr(t, d), self.expr(t, d));
                    format!("__builtin_elementwise_fma({a}, {b}, {e})")
                }
                5 => {
                    let f = self
                        .r
                        .pick(&["sqrt", "floor", "ceil", "trunc", "rint", "abs", "neg"]);
                    let a = self.expr(t, d);
                    if f == "neg" {
                        format!("(-{a})")
                    } else {
                        format!("__builtin_elementwise_{f}({a})")
                    }
                }
                6 => {
                    let f = self.r.pick(&["min", "max", "copysign"]);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    format!("{f}_{c}({a}, {b})")
                }
                7 => {
                    let k = self.cond(d);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    format!("({k} ? {a} : {b})")
                }
                8..=10 => {
                    let s = self.r.pick(&SCALARS);
                    let a = self.expr(s, d);
                    format!("(({c}){a})")
                }
                11 => self.bitcast(t, d),
                _ => self.leaf(t),
            }
        } else if t.is_ivec() {
            match self.r.below(12) {
                0..=3 => {
                    let op = self.r.pick(&[
                        "add", "sub", "mul", "shl", "shr", "min", "max", "adds", "subs", "and",
                        "or", "xor",
                    ]);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    format!("{op}_{c}({a}, {b})")
                }
                4 => {
                    let op = self.r.pick(&["not", "popc", "brev"]);
                    let a = self.expr(t, d);
                    format!("{op}_{c}({a})")
                }
                5 => {
                    // Lane-wise conversion from another integer vector with as many lanes.
                    let src: Vec<Ty> = ALL
                        .iter()
                        .copied()
                        .filter(|s| s.is_ivec() && s.lanes() == t.lanes())
                        .collect();
                    let s = self.r.pick(&src);
                    let a = self.expr(s, d);
                    format!("__builtin_convertvector({a}, {c})")
                }
                6 => {
                    let a = self.expr(t.elem(), d);
                    format!("spl_{c}({a})")
                }
                7 => {
                    let a = self.expr(t, d);
                    let sw = if t.lanes() == 4 {
                        self.r.pick(&["wzyx", "yxwz", "xxzz", "zwxy"])
                    } else {
                        "yx"
                    };
                    format!("({a}).{sw}")
                }
                8 => self.bitcast(t, d),
                _ => self.leaf(t),
            }
        } else {
            // Float vectors.
            if self.f.vdiv && self.r.pct(25) {
                let (a, b) = (self.expr(t, d), self.expr(t, d));
                return format!("({a} / {b})");
            }
            if t == V2F16 && self.f.f16fma && self.r.pct(10) {
                let (a, b, e) = (self.expr(t, d), self.expr(t, d), self.expr(t, d));
                return format!("fma_v2f16({a}, {b}, {e})");
            }
            match self.r.below(10) {
                0..=3 => {
                    // Vector division: behind `Features::vdiv`, above.
                    let op = self.r.pick(&["+", "-", "*"]);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    format!("({a} {op} {b})")
                }
                4 if t == V4F32 => {
                    let (a, b, e) = (self.expr(t, d), self.expr(t, d), self.expr(t, d));
                    format!("__builtin_elementwise_fma({a}, {b}, {e})")
                }
                5 => {
                    let f = self
                        .r
                        .pick(&["sqrt", "floor", "ceil", "trunc", "rint", "abs"]);
                    let a = self.expr(t, d);
                    format!("__builtin_elementwise_{f}({a})")
                }
                6 => {
                    let src: Vec<Ty> = ALL
                        .iter()
                        .copied()
                        .filter(|s| s.is_vec() && s.lanes() == t.lanes() && *s != t)
                        .filter(|s| s.is_ivec() || *s == V2F16 || *s == V4F32)
                        .collect();
                    let s = self.r.pick(&src);
                    let a = self.expr(s, d);
                    format!("__builtin_convertvector({a}, {c})")
                }
                7 => {
                    let a = self.expr(t.elem(), d);
                    format!("spl_{c}({a})")
                }
                8 => self.bitcast(t, d),
                _ => self.leaf(t),
            }
        }
    }

    fn bitcast(&mut self, t: Ty, d: u32) -> String {
        let src: Vec<Ty> = ALL
            .iter()
            .copied()
            .filter(|s| s.bytes() == t.bytes() && *s != t)
            .collect();
        if src.is_empty() || (t.is_float() && self.r.pct(50)) {
            return self.leaf(t);
        }
        let s = self.r.pick(&src);
        let a = self.expr(s, d);
        if s.elem().is_float() {
            // The bits of a NaN differ between x86 and AMDGPU (sign and payload of the
            // default NaN): bit casts see NaN lanes made canonical first.
            format!("__builtin_bit_cast({}, canon_{}({a}))", t.c(), s.c())
        } else {
            format!("__builtin_bit_cast({}, ({})({a}))", t.c(), s.c())
        }
    }

    fn assign_target(&mut self) -> Option<Var> {
        let c: Vec<Var> = self.vars.iter().filter(|v| v.assignable).cloned().collect();
        if c.is_empty() {
            return None;
        }
        let i = self.r.below(c.len() as u64) as usize;
        Some(c[i].clone())
    }

    fn assign(&mut self) {
        if let Some(v) = self.assign_target() {
            let e = self.expr(v.ty, 3);
            self.line(&format!("{} = {e};", v.name));
        }
    }

    /// An atomic whose final value does not depend on the order: each counter is only
    /// ever updated by one operation (different operations on one counter do not commute).
    fn atomic(&mut self) {
        let v = self.expr(U32, 2);
        if self.r.pct(30) {
            let op = self.lds_op;
            self.line(&format!("atomic_{op}_wg(&ldsa[({v}) & 7u], ({v}) >> 3);"));
        } else if self.r.pct(25) {
            let w = self.expr(U64, 2);
            let (op, slot) = self.r.pick(&[
                ("add", 0),
                ("add", 1),
                ("add", 2),
                ("or", 3),
                ("or", 4),
                ("xor", 5),
                ("xor", 6),
                ("xor", 7),
            ]);
            self.line(&format!(
                "atomic_{op}_dev(&((GFX_GLOBAL u64_t *)(atom + 16))[{slot}], {w});"
            ));
        } else {
            let ops = ["add", "sub", "min", "max", "and", "or", "xor"];
            let k = self.r.below(ops.len() as u64) as usize;
            let slot = 2 * k as u64 + self.r.below(2);
            self.line(&format!("atomic_{}_dev(&atom[{slot}], {v});", ops[k]));
        }
    }

    /// A sub-group operation (top level only: every work-item of the sub-group is there).
    fn subgroup(&mut self) {
        match self.r.below(8) {
            0 => self.define(U32, "sub_group_id()".into()),
            1 => self.define(U32, "sub_group_size()".into()),
            2 => {
                let e = self.expr(U32, 2);
                let lane = if self.f.partial { 0 } else { self.r.below(4) };
                self.define(U32, format!("sub_group_broadcast_u32({e}, {lane}u)"));
            }
            _ => {
                let t = self.r.pick(&[U32, I32]);
                let op = self.r.pick(&["add", "min", "max"]);
                let mut e = self.expr(t, 2);
                if op == "add" {
                    // clang-22 (LLVM 22.1) constant-folds `llvm.amdgcn.wave.reduce.add` of a
                    // constant C to C (InstSimplify; `opt-22 -passes=instsimplify` on the IR
                    // alone shows it, `llc-22 -O0` emits the right `s_bcnt1` of EXEC times
                    // C), while the sum over the sub-group is C times its size (seed 11
                    // kernels 5, 20 and 39 with the subgroup switch). Fixed upstream after
                    // 22 (llvm-project PR 193142: add, sub and xor reductions unmarked for
                    // constant folding). An operand that is only ever constant after
                    // folding would hit it, so it is mixed with a word of the input
                    // buffer at a uniform index: still uniform (the `s_bcnt1` path), never
                    // a constant. min/max of a constant is that constant: no folding bug.
                    let k = self.r.below(256);
                    e = format!("xor_{c}({e}, (({c})ld_u32(in, {k}u)))", c = t.c());
                }
                self.define(t, format!("sub_group_reduce_{op}_{}({e})", t.c()));
            }
        }
    }

    fn stmt(&mut self, depth: u32) {
        let top = depth == 0;
        if top && self.f.subgroup && self.r.pct(15) {
            self.subgroup();
            return;
        }
        match self.r.below(12) {
            0..=4 if top => {
                let t = self.r.pick(&ALL);
                let e = self.expr(t, 3);
                self.define(t, e);
            }
            0..=4 => self.assign(),
            5 | 6 if depth < 2 => {
                let k = self.cond(2);
                self.line(&format!("if {k} {{"));
                self.ind += 1;
                for _ in 0..1 + self.r.below(3) {
                    self.stmt(depth + 1);
                }
                self.ind -= 1;
                if self.r.pct(50) {
                    self.line("} else {");
                    self.ind += 1;
                    for _ in 0..1 + self.r.below(2) {
                        self.stmt(depth + 1);
                    }
                    self.ind -= 1;
                }
                self.line("}");
            }
            7 if depth < 2 => {
                let i = format!("i{}", self.next);
                self.next += 1;
                let bound = if self.r.pct(50) {
                    format!("{}u", self.r.below(6))
                } else {
                    let e = self.expr(U32, 1);
                    format!("(({e}) & 7u)")
                };
                self.line(&format!("for (u32_t {i} = 0u; {i} < {bound}; ++{i}) {{"));
                self.vars.push(Var {
                    name: i.clone(),
                    ty: U32,
                    assignable: false,
                });
                self.ind += 1;
                for _ in 0..1 + self.r.below(2) {
                    self.stmt(depth + 1);
                }
                self.ind -= 1;
                self.vars.retain(|v| v.name != i);
                self.line("}");
            }
            8 if top => {
                // LDS exchange between work-items: barrier in uniform control flow.
                self.lds_used = true;
                let e = self.expr(U32, 2);
                self.line(&format!("lds[lid] = {e};"));
                self.line("barrier();");
                let off = self.r.below(self.wg as u64);
                let mask = self.wg - 1;
                let e2 = if self.f.partial {
                    // Only work-items that exist wrote their slot.
                    format!("lds[(lid + {off}u) % lsz]")
                } else {
                    format!("lds[(lid + {off}u) & {mask}u]")
                };
                self.define(U32, e2);
                self.line("barrier();");
            }
            9 | 10 => self.atomic(),
            _ => {
                if top {
                    let t = self.r.pick(&ALL);
                    let e = self.expr(t, 2);
                    self.define(t, e);
                } else {
                    self.assign();
                }
            }
        }
    }
}

/// The header every batch starts with (after the prelude): types and helper functions.
pub fn header() -> String {
    let mut h = String::new();
    h.push_str(
        r#"/* difftest batch: generated, do not edit (tools/difftest/src/gen.rs). */
typedef signed char i8_t; typedef uchar u8_t; typedef short i16_t; typedef ushort u16_t;
typedef int i32_t; typedef uint u32_t; typedef long i64_t; typedef ulong u64_t;
typedef half f16_t; typedef float f32_t; typedef double f64_t;
typedef uint v4u32 __attribute__((ext_vector_type(4)));
typedef int v2i32 __attribute__((ext_vector_type(2)));
typedef uint v2u32 __attribute__((ext_vector_type(2)));
typedef short v4i16 __attribute__((ext_vector_type(4)));
typedef ushort v4u16 __attribute__((ext_vector_type(4)));
typedef uchar v4u8 __attribute__((ext_vector_type(4)));
typedef half v2f16 __attribute__((ext_vector_type(2)));
typedef float v4f32 __attribute__((ext_vector_type(4)));
#define DT static inline __attribute__((always_inline))
DT u32_t ld_u32(GFX_GLOBAL const u32_t *p, u32_t i) { return p[i & 255u]; }
DT u64_t ld_u64(GFX_GLOBAL const u32_t *p, u32_t i) { return (u64_t)p[i & 255u] << 32 | p[(i + 1u) & 255u]; }
DT f32_t ld_f32(GFX_GLOBAL const u32_t *p, u32_t i) { return __builtin_bit_cast(f32_t, p[256u + (i & 255u)]); }
DT f64_t ld_f64(GFX_GLOBAL const u32_t *p, u32_t i) {
  u32_t k = 512u + 2u * (i & 127u);
  return __builtin_bit_cast(f64_t, (u64_t)p[k + 1u] << 32 | p[k]);
}
DT f16_t bits_to_f16(u32_t b) { return __builtin_bit_cast(f16_t, (u16_t)b); }
DT f16_t ld_f16(GFX_GLOBAL const u32_t *p, u32_t i) { return bits_to_f16(p[768u + ((i & 511u) >> 1)] >> (16u * (i & 1u))); }
DT u32_t bits_f32(f32_t x) { return x != x ? 0x7fc00000u : __builtin_bit_cast(u32_t, x); }
DT u64_t bits_f64(f64_t x) { return x != x ? 0x7ff8000000000000UL : __builtin_bit_cast(u64_t, x); }
DT u16_t bits_f16(f16_t x) { return x != x ? (u16_t)0x7e00u : __builtin_bit_cast(u16_t, x); }
/* The argument of a transcendental outside its domain (|x| > b, NaN; with dom_normal also
 * a nonzero |x| below 2^-122, whose product with 1/(2 pi) is subnormal): x's sign and mantissa with the exponent of 0.5, a value in +-[0.5, 1)
 * (exact bit operations, the same on both sides). */
DT f32_t unit_f32(f32_t x) { return __builtin_bit_cast(f32_t, (__builtin_bit_cast(u32_t, x) & 0x807fffffu) | 0x3f000000u); }
DT f32_t dom_unit(f32_t x, f32_t b) { return __builtin_fabsf(x) <= b ? x : unit_f32(x); }
DT f32_t dom_normal(f32_t x, f32_t b) {
  f32_t a = __builtin_fabsf(x);
  return a <= b && (a >= 0x1p-122f || a == 0.0f) ? x : unit_f32(x);
}
DT u32_t fold64(u64_t x) { return (u32_t)x ^ ((u32_t)(x >> 32) * 0x9e3779b1u); }
DT u32_t fold_v4u32(v4u32 x) { return x.x ^ (x.y * 3u) ^ (x.z * 5u) ^ (x.w * 7u); }
DT u32_t fold_v4f32(v4f32 x) { return bits_f32(x.x) ^ (bits_f32(x.y) * 3u) ^ (bits_f32(x.z) * 5u) ^ (bits_f32(x.w) * 7u); }
DT u32_t fold_v2i32(v2i32 x) { return (u32_t)x.x ^ ((u32_t)x.y * 3u); }
DT u32_t fold_v4i16(v4i16 x) { return (u32_t)(u16_t)x.x | (u32_t)(u16_t)x.y << 16 ^ ((u32_t)(u16_t)x.z * 5u) ^ ((u32_t)(u16_t)x.w * 7u << 8); }
DT u32_t fold_v4u8(v4u8 x) { return __builtin_bit_cast(u32_t, x); }
DT u32_t fold_v2f16(v2f16 x) { return (u32_t)bits_f16(x.x) | (u32_t)bits_f16(x.y) << 16; }
DT v4u32 mk_v4u32(u32_t a, u32_t b, u32_t c, u32_t d) { v4u32 r; r.x = a; r.y = b; r.z = c; r.w = d; return r; }
DT v4i16 mk_v4i16(i16_t a, i16_t b, i16_t c, i16_t d) { v4i16 r; r.x = a; r.y = b; r.z = c; r.w = d; return r; }
DT v4u8 mk_v4u8(u8_t a, u8_t b, u8_t c, u8_t d) { v4u8 r; r.x = a; r.y = b; r.z = c; r.w = d; return r; }
DT v4f32 mk_v4f32(f32_t a, f32_t b, f32_t c, f32_t d) { v4f32 r; r.x = a; r.y = b; r.z = c; r.w = d; return r; }
DT v2i32 mk_v2i32(i32_t a, i32_t b) { v2i32 r; r.x = a; r.y = b; return r; }
DT v2f16 mk_v2f16(f16_t a, f16_t b) { v2f16 r; r.x = a; r.y = b; return r; }
#ifdef __OPENCL_C_VERSION__
/* The actual size of this work-group, as ROCm's device library computes it (ockl's
 * get_local_size for code object v5/v6): the implicit arguments' hidden_block_count_x
 * (offset 0, the number of full groups), hidden_group_size_x (12) and hidden_remainder_x
 * (18). */
DT u32_t wi_local_size(void) {
  __constant uchar *ia = (__constant uchar *)__builtin_amdgcn_implicitarg_ptr();
  u32_t full = *(__constant u32_t *)ia;
  return get_group_id(0) < full ? (u32_t)*(__constant u16_t *)(ia + 12) : (u32_t)*(__constant u16_t *)(ia + 18);
}
DT f16_t fma_f16_t(f16_t a, f16_t b, f16_t c) { return __builtin_elementwise_fma(a, b, c); }
DT v2f16 fma_v2f16(v2f16 a, v2f16 b, v2f16 c) { return __builtin_elementwise_fma(a, b, c); }
/* Sub-groups (cl_khr_subgroups) are the waves: clang-22 with -nogpulib has no sub_group_*
 * functions for amdgcn; these use the wave builtins (reductions over the active lanes: at
 * the top level of a kernel, every work-item of the sub-group). */
DT u32_t sub_group_id(void) { return get_local_id(0) / __builtin_amdgcn_wavefrontsize(); }
/* Not wave_reduce_add(1u): clang-22 -O1 folds that call to 1 (the IR has no reduce left),
 * while wave_reduce_add(k) of a uniform k is k * popcount(exec) (seed 11 kernel 34 with
 * the subgroup switch: every build gave 1). */
DT u32_t sub_group_size(void) { return (u32_t)__builtin_popcountll(__builtin_amdgcn_read_exec()); }
DT u32_t sub_group_broadcast_u32(u32_t x, u32_t lane) { return __builtin_amdgcn_readlane(x, lane); }
DT u32_t sub_group_reduce_add_u32_t(u32_t x) { return __builtin_amdgcn_wave_reduce_add_u32(x, 0); }
DT u32_t sub_group_reduce_min_u32_t(u32_t x) { return __builtin_amdgcn_wave_reduce_min_u32(x, 0); }
DT u32_t sub_group_reduce_max_u32_t(u32_t x) { return __builtin_amdgcn_wave_reduce_max_u32(x, 0); }
DT i32_t sub_group_reduce_add_i32_t(i32_t x) { return (i32_t)__builtin_amdgcn_wave_reduce_add_u32((u32_t)x, 0); }
DT i32_t sub_group_reduce_min_i32_t(i32_t x) { return __builtin_amdgcn_wave_reduce_min_i32(x, 0); }
DT i32_t sub_group_reduce_max_i32_t(i32_t x) { return __builtin_amdgcn_wave_reduce_max_i32(x, 0); }
#else
DT u32_t wi_local_size(void) {
  u32_t left = get_global_size(0) - get_group_id(0) * get_local_size(0);
  return left < get_local_size(0) ? left : get_local_size(0);
}
/* half fma rounded once: a * b is exact in double; the sum is rounded to odd at double
 * precision (TwoSum gives the error of the one rounding), then to odd at float precision,
 * then to half (x86 without AVX512-FP16 would compute it in float and round twice). */
DT f16_t fma_f16_t(f16_t a, f16_t b, f16_t c) {
  double p = (double)a * (double)b, cc = (double)c, s = p + cc;
  if (s != s || s == 0.0 || s - s != 0.0) return (f16_t)s;
  double bv = s - p, err = (p - (s - bv)) + (cc - bv);
  if (err != 0.0) {
    u64_t u = __builtin_bit_cast(u64_t, s);
    if ((err < 0.0) != (s < 0.0)) u -= 1;
    s = __builtin_bit_cast(double, u | 1u);
  }
  float f = (float)s;
  if ((double)f != s && f - f == 0.0) {
    u32_t v = __builtin_bit_cast(u32_t, f);
    if (__builtin_fabs((double)f) > __builtin_fabs(s)) v -= 1u;
    f = __builtin_bit_cast(float, v | 1u);
  }
  return (f16_t)f;
}
DT v2f16 fma_v2f16(v2f16 a, v2f16 b, v2f16 c) { return mk_v2f16(fma_f16_t(a.x, b.x, c.x), fma_f16_t(a.y, b.y, c.y)); }
/* Sub-groups on the host: hc_wave (the device build's wave size, from the host program's
 * command line) consecutive work-items; a sub-group operation is an exchange through a
 * buffer between two barriers of the work-group (called at the top level only). */
extern unsigned hc_wave;
static u32_t hc_sg[256];
DT u32_t sub_group_id(void) { return get_local_id(0) / hc_wave; }
DT u32_t hc_sg_base(void) { return get_local_id(0) / hc_wave * hc_wave; }
DT u32_t hc_sg_n(void) {
  u32_t left = wi_local_size() - hc_sg_base();
  return left < hc_wave ? left : hc_wave;
}
DT u32_t sub_group_size(void) { return hc_sg_n(); }
DT u32_t hc_sg_op(u32_t x, int op, u32_t lane) {
  hc_sg[get_local_id(0)] = x;
  barrier();
  u32_t b = hc_sg_base(), n = hc_sg_n(), r = hc_sg[b + (op == 5 ? lane : 0u)];
  for (u32_t i = 1u; op != 5 && i < n; ++i) {
    u32_t v = hc_sg[b + i];
    switch (op) {
    case 0: r += v; break;
    case 1: r = v < r ? v : r; break;
    case 2: r = v > r ? v : r; break;
    case 3: r = (i32_t)v < (i32_t)r ? v : r; break;
    default: r = (i32_t)v > (i32_t)r ? v : r; break;
    }
  }
  barrier();
  return r;
}
DT u32_t sub_group_broadcast_u32(u32_t x, u32_t lane) { return hc_sg_op(x, 5, lane); }
DT u32_t sub_group_reduce_add_u32_t(u32_t x) { return hc_sg_op(x, 0, 0u); }
DT u32_t sub_group_reduce_min_u32_t(u32_t x) { return hc_sg_op(x, 1, 0u); }
DT u32_t sub_group_reduce_max_u32_t(u32_t x) { return hc_sg_op(x, 2, 0u); }
DT i32_t sub_group_reduce_add_i32_t(i32_t x) { return (i32_t)hc_sg_op((u32_t)x, 0, 0u); }
DT i32_t sub_group_reduce_min_i32_t(i32_t x) { return (i32_t)hc_sg_op((u32_t)x, 3, 0u); }
DT i32_t sub_group_reduce_max_i32_t(i32_t x) { return (i32_t)hc_sg_op((u32_t)x, 4, 0u); }
#endif
"#,
    );
    // Splats.
    for t in ALL.iter().filter(|t| t.is_vec()) {
        let (c, e) = (t.c(), t.elem().c());
        let args = vec!["x"; t.lanes() as usize].join(", ");
        let _ = writeln!(h, "DT {c} spl_{c}({e} x) {{ return mk_{c}({args}); }}");
    }
    // Integer scalar helpers: wrapping arithmetic in the unsigned type of at least 32 bits,
    // guarded division, masked shifts.
    for t in INTS {
        let c = t.c();
        let b = t.bits();
        let u = if b == 64 { "u64_t" } else { "u32_t" };
        let ut = t.unsigned().c();
        for (op, o) in [("add", "+"), ("sub", "-"), ("mul", "*")] {
            let _ = writeln!(
                h,
                "DT {c} {op}_{c}({c} a, {c} b) {{ return ({c})(({u})a {o} ({u})b); }}"
            );
        }
        for (op, o) in [("and", "&"), ("or", "|"), ("xor", "^")] {
            let _ = writeln!(
                h,
                "DT {c} {op}_{c}({c} a, {c} b) {{ return ({c})(a {o} b); }}"
            );
        }
        let (lo, _) = t.range();
        let guard = if t.is_signed() {
            format!("if (b == 0 || (a == {} && b == -1)) b = 1;", ilit(t, lo))
        } else {
            "if (b == 0) b = 1;".to_string()
        };
        let _ = writeln!(
            h,
            "DT {c} div_{c}({c} a, {c} b) {{ {guard} return ({c})(a / b); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} rem_{c}({c} a, {c} b) {{ {guard} return ({c})(a % b); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} shl_{c}({c} a, {c} b) {{ return ({c})(({u})a << (({u})b & {}u)); }}",
            b - 1
        );
        let _ = writeln!(
            h,
            "DT {c} shr_{c}({c} a, {c} b) {{ return ({c})(a >> (({u})b & {}u)); }}",
            b - 1
        );
        elementwise_min_max_sat(&mut h, c);
        let _ = writeln!(
            h,
            "DT {c} clamp_{c}({c} x, {c} a, {c} b) {{ return min_{c}(max_{c}(x, min_{c}(a, b)), max_{c}(a, b)); }}"
        );
        let _ = writeln!(h, "DT {c} not_{c}({c} a) {{ return ({c})~a; }}");
        let _ = writeln!(
            h,
            "DT {c} neg_{c}({c} a) {{ return ({c})(({u})0 - ({u})a); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} popc_{c}({c} a) {{ return ({c})__builtin_elementwise_popcount(({ut})a); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} clz_{c}({c} a) {{ return ({c})__builtin_clzg(({ut})a, {b}); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} ctz_{c}({c} a) {{ return ({c})__builtin_ctzg(({ut})a, {b}); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} brev_{c}({c} a) {{ return ({c})__builtin_elementwise_bitreverse(({ut})a); }}"
        );
        let _ = writeln!(h, "DT {c} rotl_{c}({c} a, {c} b) {{ return ({c})__builtin_rotateleft{b}(({ut})a, ({ut})b); }}");
        let mulhi = if b == 64 {
            // No 128-bit type on the device: the high half from 32-bit pieces.
            if t.is_signed() {
                "u64_t ua = (u64_t)a, ub = (u64_t)b; u64_t al = ua & 0xffffffffUL, ah = ua >> 32, bl = ub & 0xffffffffUL, bh = ub >> 32; \
                 u64_t mid = ah * bl + ((al * bl) >> 32); u64_t mid2 = al * bh + (mid & 0xffffffffUL); \
                 u64_t hi = ah * bh + (mid >> 32) + (mid2 >> 32); if (a < 0) hi -= ub; if (b < 0) hi -= ua; return (i64_t)hi;".to_string()
            } else {
                "u64_t al = a & 0xffffffffUL, ah = a >> 32, bl = b & 0xffffffffUL, bh = b >> 32; \
                 u64_t mid = ah * bl + ((al * bl) >> 32); u64_t mid2 = al * bh + (mid & 0xffffffffUL); \
                 return ah * bh + (mid >> 32) + (mid2 >> 32);".to_string()
            }
        } else {
            let w = if t.is_signed() { "i64_t" } else { "u64_t" };
            format!("return ({c})((({w})a * ({w})b) >> {b});")
        };
        let _ = writeln!(h, "DT {c} mulhi_{c}({c} a, {c} b) {{ {mulhi} }}");
        // Saturating conversions from every scalar type.
        let (lo, hi) = t.range();
        for s in SCALARS {
            let sc = s.c();
            let body = if s.is_float() {
                // Compare in double (exact for every f16/f32/f64 and for the limits
                // -2^(b-1), 2^(b-1) and 2^b); the plain cast only sees in-range values.
                let lo_d = if t.is_signed() {
                    format!("-0x1p{}", b - 1)
                } else {
                    "0.0".into()
                };
                let hi_d = if t.is_signed() {
                    format!("0x1p{}", b - 1)
                } else {
                    format!("0x1p{b}")
                };
                format!(
                    "f64_t d = (f64_t)x; return d != d ? ({c})0 : d < {lo_d} ? {} : d >= {hi_d} ? {} : ({c})x;",
                    ilit(t, lo),
                    ilit(t, hi)
                )
            } else {
                let (slo, shi) = s.range();
                let mut e = format!("({c})x");
                if shi > hi {
                    e = format!("x > {} ? {} : {e}", ilit(s, hi), ilit(t, hi));
                }
                if slo < lo {
                    e = format!("x < {} ? {} : {e}", ilit(s, lo), ilit(t, lo));
                }
                format!("return {e};")
            };
            let _ = writeln!(h, "DT {c} sat_{c}_{sc}({sc} x) {{ {body} }}");
        }
    }
    // Float scalar helpers: min/max as compare-select (C's fmin leaves the sign of a zero
    // result open), copysign.
    //
    // A zero min/max result is written as +0, so its sign is not compared: LLVM 22's AMDGPU
    // instruction selection turns `x < C ? x : C` with a constant C (the IR keeps the
    // `fcmp olt` + `select`, without `nsz`) into `v_min_f16/f32 C, x` (and `>` into
    // `v_max`), C = +0 included; for x = -0 the source gives +0, V_MIN gives -0 (the ISA
    // guides order -0 below +0; with C as S0 the plain `S0 < S1 ? S0 : S1` reading gives -0
    // too). So the device code differs from its source, not the executor from the
    // hardware (seed 12 kernel 23 with `--features all`; `llc-22 -O2` on
    // `select (fcmp olt float %x, 0.0), %x, 0.0` shows it). OpenCL's fmin/fmax leave the
    // sign of a zero result open too.
    for t in [F16, F32, F64] {
        let c = t.c();
        for (op, cmp) in [("min", "<"), ("max", ">")] {
            let _ = writeln!(
                h,
                "DT {c} {op}_{c}({c} a, {c} b) {{ {c} r = a {cmp} b ? a : b; return r == ({c})0 ? ({c})0 : r; }}"
            );
        }
        // NaN lanes canonical (the sign of a default NaN differs between x86 and AMDGPU).
        let nan = match t {
            F16 => "bits_to_f16(0x7e00u)",
            F32 => "__builtin_bit_cast(f32_t, 0x7fc00000u)",
            _ => "__builtin_bit_cast(f64_t, 0x7ff8000000000000UL)",
        };
        let _ = writeln!(
            h,
            "DT {c} canon_{c}({c} x) {{ return x != x ? {nan} : x; }}"
        );
        // copysign takes the sign of a NaN `b`: canonical first.
        let _ = writeln!(
            h,
            "DT {c} copysign_{c}({c} a, {c} b) {{ return __builtin_elementwise_copysign(a, canon_{c}(b)); }}"
        );
        // Division of any operands: extreme ones (quotients that overflow or underflow,
        // divisors above 2^126) were excluded until gpu-model's v_div_scale/v_div_fixup
        // handled them (seed 1 kernel 38 and `exec::float`'s division tests).
        let _ = writeln!(h, "DT {c} div_{c}({c} a, {c} b) {{ return a / b; }}");
    }
    // Splats of the unsigned twins used by shl.
    for (u, e, n) in [
        ("v4u32", "u32_t", 4),
        ("v2u32", "u32_t", 2),
        ("v4u16", "u16_t", 4),
        ("v4u8", "u8_t", 4),
    ] {
        let _ = writeln!(
            h,
            "DT {u} spl_{u}_({e} x) {{ {u} r; r.x = x; r.y = x;{} return r; }}",
            if n == 4 { " r.z = x; r.w = x;" } else { "" }
        );
    }
    let _ = writeln!(
        h,
        "DT v2f16 canon_v2f16(v2f16 x) {{ return mk_v2f16(canon_f16_t(x.x), canon_f16_t(x.y)); }}"
    );
    let _ = writeln!(
        h,
        "DT v4f32 canon_v4f32(v4f32 x) {{ return mk_v4f32(canon_f32_t(x.x), canon_f32_t(x.y), canon_f32_t(x.z), canon_f32_t(x.w)); }}"
    );
    // Integer vector helpers.
    for t in ALL.iter().copied().filter(|t| t.is_ivec()) {
        let c = t.c();
        let u = t.uvec();
        let b = t.bits();
        let e = t.elem().c();
        for (op, o) in [("add", "+"), ("sub", "-"), ("mul", "*")] {
            let _ = writeln!(
                h,
                "DT {c} {op}_{c}({c} a, {c} b) {{ return __builtin_convertvector(__builtin_convertvector(a, {u}) {o} __builtin_convertvector(b, {u}), {c}); }}"
            );
        }
        for (op, o) in [("and", "&"), ("or", "|"), ("xor", "^")] {
            let _ = writeln!(h, "DT {c} {op}_{c}({c} a, {c} b) {{ return a {o} b; }}");
        }
        let _ = writeln!(
            h,
            "DT {c} shl_{c}({c} a, {c} b) {{ return __builtin_convertvector(__builtin_convertvector(a, {u}) << (__builtin_convertvector(b, {u}) & spl_{u}_({}u)), {c}); }}",
            b - 1
        );
        let _ = writeln!(
            h,
            "DT {c} shr_{c}({c} a, {c} b) {{ return a >> (b & spl_{c}(({e}){})); }}",
            b - 1
        );
        elementwise_min_max_sat(&mut h, c);
        let _ = writeln!(h, "DT {c} not_{c}({c} a) {{ return ~a; }}");
        let _ = writeln!(
            h,
            "DT {c} popc_{c}({c} a) {{ return __builtin_convertvector(__builtin_elementwise_popcount(__builtin_convertvector(a, {u})), {c}); }}"
        );
        let _ = writeln!(
            h,
            "DT {c} brev_{c}({c} a) {{ return __builtin_convertvector(__builtin_elementwise_bitreverse(__builtin_convertvector(a, {u})), {c}); }}"
        );
    }
    h
}

/// `min_T`, `max_T`, `adds_T`, `subs_T` for a scalar or vector type `c`: clang's
/// element-wise builtins, the same text for both.
fn elementwise_min_max_sat(h: &mut String, c: &str) {
    for (op, builtin) in [
        ("min", "min"),
        ("max", "max"),
        ("adds", "add_sat"),
        ("subs", "sub_sat"),
    ] {
        let _ = writeln!(
            h,
            "DT {c} {op}_{c}({c} a, {c} b) {{ return __builtin_elementwise_{builtin}(a, b); }}"
        );
    }
}
