//! The Triton corpus manifest (corpus/triton/manifest.ron, written by corpus/triton/build.py):
//! its types and reader, shared by the tests that run the corpus (gpu-model/tests/triton_run.rs
//! and dbt/tests/triton.rs, which include this file by path).

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Deserialize)]
pub struct Manifest {
    #[allow(dead_code)]
    pub triton: String,
    #[allow(dead_code)]
    pub sources_sha256: String,
    pub cases: Vec<Case>,
    #[allow(dead_code)]
    pub files: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
pub struct Case {
    pub name: String,
    pub target: String,
    pub object: String,
    pub kernel: String,
    #[allow(dead_code)]
    pub wave_size: u32,
    #[allow(dead_code)]
    pub num_warps: u32,
    pub programs: (u32, u32, u32),
    pub grid: (u32, u32, u32),
    pub workgroup: (u32, u32, u32),
    pub shared: u32,
    pub global_scratch: Scratch,
    pub profile_scratch: Scratch,
    pub buffers: Vec<Buffer>,
    pub args: Vec<Arg>,
    pub checks: Vec<Check>,
}

#[derive(Debug, Deserialize)]
pub struct Scratch {
    pub size: u64,
    #[allow(dead_code)]
    pub align: u64,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq)]
pub enum Elem {
    U8,
    I32,
    F16,
    BF16,
    F32,
}

impl Elem {
    pub fn size(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::F16 | Elem::BF16 => 2,
            Elem::I32 | Elem::F32 => 4,
        }
    }

    /// Element `i` of little-endian `b` as f64.
    pub fn get(self, b: &[u8], i: usize) -> f64 {
        let s = &b[i * self.size()..(i + 1) * self.size()];
        match self {
            Elem::U8 => s[0] as f64,
            Elem::I32 => i32::from_le_bytes(s.try_into().unwrap()) as f64,
            Elem::F16 => half::f16::from_bits(u16::from_le_bytes(s.try_into().unwrap())).to_f64(),
            Elem::BF16 => half::bf16::from_bits(u16::from_le_bytes(s.try_into().unwrap())).to_f64(),
            Elem::F32 => f32::from_le_bytes(s.try_into().unwrap()) as f64,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub elem: Elem,
    pub len: usize,
    pub init: Init,
}

#[derive(Debug, Deserialize)]
pub enum Init {
    Zeros,
    File(String),
}

#[derive(Debug, Deserialize)]
pub enum Arg {
    Buffer(String),
    I32(i32),
    F32(f32),
}

#[derive(Debug, Deserialize)]
pub struct Check {
    pub buffer: String,
    pub reference: String,
    pub ref_elem: Elem,
    pub rel: f64,
    pub abs: f64,
}

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/triton")
}

pub fn manifest() -> Manifest {
    let text = std::fs::read_to_string(dir().join("manifest.ron")).expect("manifest.ron");
    ron::from_str(&text).expect("manifest.ron parses")
}
