//! corpus/manifest.ron: schema, input generators and buffer values, and the launch of
//! one case on a `Device` (shared by gpu-model/tests/corpus_run.rs, dbt/tests/corpus.rs
//! and dbt/tests/rdna.rs, which include this file by path).

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
pub struct Manifest {
    pub kernels: Vec<Case>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct Case {
    pub name: String,
    pub stem: String,
    pub symbol: String,
    #[allow(dead_code)]
    pub language: Language,
    pub variants: Vec<String>,
    pub args: Vec<Arg>,
    pub grid: (u32, u32, u32),
    pub workgroup: (u32, u32, u32),
    pub dynamic_lds: u32,
    #[serde(default)]
    pub extra_private_bytes: u32,
    pub tolerance: Tolerance,
    #[allow(dead_code)]
    pub computes: String,
}

#[derive(Debug, Deserialize, Clone, Copy)]
pub enum Language {
    OpenCL,
    Hip,
    Asm,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq)]
pub enum Tolerance {
    Exact,
    Float { rel: f64, abs: f64 },
    Custom,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    F16,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl Elem {
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 | Elem::F16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            _ => 8,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F16 | Elem::F32 | Elem::F64)
    }
    pub fn signed(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    In,
    Out,
    InOut,
}

#[derive(Debug, Deserialize, Clone)]
pub enum Init {
    Zero,
    Iota,
    Fill(f64),
    Values(Vec<f64>),
    Bits { seed: u32 },
    Rand { seed: u32, lo: f64, hi: f64 },
    RandInt { seed: u32, lo: f64, hi: f64 },
}

#[derive(Debug, Deserialize, Clone, Copy)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    F16(f32),
    U32(u32),
    I32(i32),
    F32(f32),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Value {
    pub fn bytes(self) -> Vec<u8> {
        match self {
            Value::U8(v) => vec![v],
            Value::I8(v) => vec![v as u8],
            Value::U16(v) => v.to_le_bytes().to_vec(),
            Value::I16(v) => v.to_le_bytes().to_vec(),
            Value::F16(v) => half::f16::from_f32(v).to_le_bytes().to_vec(),
            Value::U32(v) => v.to_le_bytes().to_vec(),
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::U64(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::F64(v) => v.to_le_bytes().to_vec(),
        }
    }
    /// As f64 (floats) or integer value.
    pub fn f(self) -> f64 {
        match self {
            Value::U8(v) => v as f64,
            Value::I8(v) => v as f64,
            Value::U16(v) => v as f64,
            Value::I16(v) => v as f64,
            Value::F16(v) | Value::F32(v) => v as f64,
            Value::U32(v) => v as f64,
            Value::I32(v) => v as f64,
            Value::U64(v) => v as f64,
            Value::I64(v) => v as f64,
            Value::F64(v) => v,
        }
    }
    pub fn i(self) -> i128 {
        match self {
            Value::U8(v) => v as i128,
            Value::I8(v) => v as i128,
            Value::U16(v) => v as i128,
            Value::I16(v) => v as i128,
            Value::U32(v) => v as i128,
            Value::I32(v) => v as i128,
            Value::U64(v) => v as i128,
            Value::I64(v) => v as i128,
            Value::F16(v) | Value::F32(v) => v as i128,
            Value::F64(v) => v as i128,
        }
    }
}

#[derive(Debug, Deserialize, Clone, Copy)]
pub struct Field {
    pub offset: u32,
    pub value: Value,
}

#[derive(Debug, Deserialize, Clone)]
pub enum Arg {
    Buffer {
        name: String,
        elem: Elem,
        len: usize,
        init: Init,
        role: Role,
    },
    Scalar {
        name: String,
        value: Value,
    },
    LocalPtr {
        #[allow(dead_code)]
        name: String,
        bytes: u32,
    },
    Struct {
        #[allow(dead_code)]
        name: String,
        size: u32,
        #[allow(dead_code)]
        align: u32,
        fields: Vec<Field>,
    },
}

pub fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

pub fn hash(seed: u32, k: u32) -> u32 {
    lowbias32(k ^ seed.wrapping_mul(0x9e37_79b9))
}

/// A buffer's elements as raw integer bits (floats: their bit patterns).
#[derive(Debug, Clone)]
pub struct Buf {
    pub elem: Elem,
    pub raw: Vec<u64>,
}

fn int_to_raw(elem: Elem, v: i128) -> u64 {
    let bits = 8 * elem.size() as u32;
    (v as u128 as u64)
        & if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
}

/// `x` rounded once to the nearest f16 (ties to even). Not `half::f16::from_f64`: with
/// F16C it converts through f32, rounding twice, and its fallback ignores the low 32
/// mantissa bits as a sticky bit (an f16 tie made by the first rounding
/// goes to even; gpu-model's `exec::float::d2h` had the same bug: tools/difftest seed 13
/// kernel 37). Rounding to odd at f32 first keeps the information the second rounding
/// needs (24 bits >= 11 + 2).
pub fn f16_once(x: f64) -> half::f16 {
    let t = x as f32;
    if !t.is_finite() || t as f64 == x {
        return half::f16::from_f32(t);
    }
    let mut b = t.to_bits();
    if (t as f64).abs() > x.abs() {
        b -= 1;
    }
    half::f16::from_f32(f32::from_bits(b | 1))
}

pub fn float_to_raw(elem: Elem, v: f64) -> u64 {
    match elem {
        Elem::F16 => f16_once(v).to_bits() as u64,
        Elem::F32 => (v as f32).to_bits() as u64,
        Elem::F64 => v.to_bits(),
        _ => int_to_raw(elem, v as i128),
    }
}

/// Raw element from a value in the element's domain.
pub fn to_raw(elem: Elem, v: f64) -> u64 {
    if elem.is_float() {
        float_to_raw(elem, v)
    } else {
        int_to_raw(elem, v as i128)
    }
}

pub fn raw_to_f64(elem: Elem, r: u64) -> f64 {
    match elem {
        Elem::F16 => half::f16::from_bits(r as u16).to_f64(),
        Elem::F32 => f32::from_bits(r as u32) as f64,
        Elem::F64 => f64::from_bits(r),
        _ => r as f64,
    }
}

pub fn generate(elem: Elem, len: usize, init: &Init) -> Buf {
    let raw = (0..len)
        .map(|i| {
            let i = i as u32;
            match init {
                Init::Zero => 0,
                Init::Iota => to_raw(elem, i as f64),
                Init::Fill(v) => to_raw(elem, *v),
                Init::Values(v) => to_raw(elem, v.get(i as usize).copied().unwrap_or(0.0)),
                Init::Bits { seed } => {
                    if elem.size() == 8 {
                        (hash(*seed, 2 * i) as u64) << 32 | hash(*seed, 2 * i + 1) as u64
                    } else {
                        int_to_raw(elem, hash(*seed, i) as i128)
                    }
                }
                Init::Rand { seed, lo, hi } | Init::RandInt { seed, lo, hi }
                    if !elem.is_float() || matches!(init, Init::RandInt { .. }) =>
                {
                    let (lo, hi) = (*lo as i128, *hi as i128);
                    let h: i128 = if elem.size() == 8 {
                        ((hash(*seed, 2 * i) as u64) << 32 | hash(*seed, 2 * i + 1) as u64) as i128
                    } else {
                        hash(*seed, i) as i128
                    };
                    let v = lo + h.rem_euclid(hi - lo + 1);
                    if elem.is_float() {
                        float_to_raw(elem, v as f64)
                    } else {
                        int_to_raw(elem, v)
                    }
                }
                Init::Rand { seed, lo, hi } | Init::RandInt { seed, lo, hi } => {
                    let u = (hash(*seed, i) >> 8) as f64 / 16_777_216.0;
                    float_to_raw(elem, lo + (hi - lo) * u)
                }
            }
        })
        .collect();
    Buf { elem, raw }
}

impl Buf {
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.elem.size();
        self.raw
            .iter()
            .flat_map(|r| r.to_le_bytes()[..n].to_vec())
            .collect()
    }
    pub fn from_bytes(elem: Elem, b: &[u8]) -> Buf {
        let n = elem.size();
        let raw = b
            .chunks_exact(n)
            .map(|c| {
                let mut x = [0u8; 8];
                x[..n].copy_from_slice(c);
                u64::from_le_bytes(x)
            })
            .collect();
        Buf { elem, raw }
    }
    /// Signed or unsigned integer values.
    pub fn ints(&self) -> Vec<i128> {
        let bits = 8 * self.elem.size() as u32;
        self.raw
            .iter()
            .map(|&r| {
                if self.elem.signed() && bits < 128 {
                    ((r as i128) << (128 - bits)) >> (128 - bits)
                } else {
                    r as i128
                }
            })
            .collect()
    }
    pub fn floats(&self) -> Vec<f64> {
        self.raw.iter().map(|&r| raw_to_f64(self.elem, r)).collect()
    }
}

/// Named inputs of a case (initial buffer contents) and scalars.
#[derive(Debug, Default)]
pub struct Inputs {
    pub bufs: HashMap<String, Buf>,
    pub scalars: HashMap<String, Value>,
}

impl Inputs {
    pub fn u32s(&self, n: &str) -> Vec<u32> {
        self.bufs[n].raw.iter().map(|&r| r as u32).collect()
    }
    pub fn i32s(&self, n: &str) -> Vec<i32> {
        self.bufs[n].raw.iter().map(|&r| r as u32 as i32).collect()
    }
    pub fn u64s(&self, n: &str) -> Vec<u64> {
        self.bufs[n].raw.clone()
    }
    pub fn f32s(&self, n: &str) -> Vec<f32> {
        self.bufs[n]
            .raw
            .iter()
            .map(|&r| f32::from_bits(r as u32))
            .collect()
    }
    pub fn f64s(&self, n: &str) -> Vec<f64> {
        self.bufs[n].floats()
    }
    pub fn u(&self, n: &str) -> u32 {
        self.scalars[n].i() as u32
    }
    pub fn i(&self, n: &str) -> i128 {
        self.scalars[n].i()
    }
    pub fn f(&self, n: &str) -> f64 {
        self.scalars[n].f()
    }
}

/// What one run of a case gave.
pub struct Launched {
    /// The generated inputs (buffers and scalars), for the CPU reference.
    pub inputs: Inputs,
    /// The output and in-out buffers after the run, by name.
    pub outputs: HashMap<String, Buf>,
    /// Wave-instructions retired (the dbt tests compare them; corpus_run does not).
    #[allow(dead_code)]
    pub instructions: u64,
}

/// Runs `case` from the code object `bytes` on a `target` device: generates its inputs,
/// lays out its arguments (the manifest's dynamic LDS includes the `__local` pointer
/// arguments' bytes; those go to the arguments, which the dispatch lays out, the rest is
/// HIP-style dynamic LDS), dispatches and reads the outputs back.
pub fn launch(case: &Case, bytes: &[u8], target: Target) -> Result<Launched, String> {
    let mut dev = Device::new(target);
    let module = dev.load_code_object(bytes).map_err(|e| e.to_string())?;
    let mut inputs = Inputs::default();
    let mut args = Vec::new();
    let mut outs: Vec<(String, u64, Elem, usize)> = Vec::new();
    let mut local_arg_bytes = 0u32;
    for a in &case.args {
        match a {
            Arg::Buffer {
                name,
                elem,
                len,
                init,
                role,
            } => {
                let buf = generate(*elem, *len, init);
                let data = buf.to_bytes();
                let addr = dev
                    .alloc(data.len().max(4) as u64)
                    .map_err(|e| e.to_string())?;
                dev.copy_in(addr, &data).map_err(|e| e.to_string())?;
                if *role != Role::In {
                    outs.push((name.clone(), addr, *elem, *len));
                }
                inputs.bufs.insert(name.clone(), buf);
                args.push(ArgValue::ptr(addr));
            }
            Arg::Scalar { name, value } => {
                inputs.scalars.insert(name.clone(), *value);
                args.push(ArgValue::bytes(&value.bytes()));
            }
            Arg::LocalPtr { bytes, .. } => {
                local_arg_bytes += *bytes;
                args.push(ArgValue::lds(*bytes));
            }
            Arg::Struct { size, fields, .. } => {
                let mut b = vec![0u8; *size as usize];
                for f in fields {
                    let v = f.value.bytes();
                    let o = f.offset as usize;
                    b[o..o + v.len()].copy_from_slice(&v);
                }
                args.push(ArgValue::bytes(&b));
            }
        }
    }
    let cfg = LaunchConfig {
        grid: [case.grid.0, case.grid.1, case.grid.2],
        workgroup: [case.workgroup.0, case.workgroup.1, case.workgroup.2],
        dynamic_lds: case.dynamic_lds.saturating_sub(local_arg_bytes),
        extra_private: case.extra_private_bytes,
    };
    let id = dev
        .dispatch(module, &case.symbol, &cfg, &args)
        .map_err(|e| e.to_string())?;
    let stats = dev.wait(id).map_err(|e| e.to_string())?;
    let mut outputs = HashMap::new();
    for (name, addr, elem, len) in &outs {
        let mut b = vec![0u8; len * elem.size()];
        dev.copy_out(*addr, &mut b).map_err(|e| e.to_string())?;
        outputs.insert(name.clone(), Buf::from_bytes(*elem, &b));
    }
    Ok(Launched {
        inputs,
        outputs,
        instructions: stats.instructions,
    })
}
