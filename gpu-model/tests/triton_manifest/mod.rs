//! The Triton corpus manifest (corpus/triton/manifest.ron, written by corpus/triton/build.py):
//! its types and reader, shared by the tests that run the corpus (gpu-model/tests/triton_run.rs,
//! dbt/tests/triton.rs and dbt/tests/rdna_triton.rs, which include this file by path), and the
//! launch of one case. The IREE corpus (corpus/iree/manifest.ron, gpu-model/tests/iree_run.rs)
//! writes its cases in the same form, with `abi: IreeHip`.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // The IREE tests read `IreeManifest` instead.
pub struct Manifest {
    pub triton: String,
    pub sources_sha256: String,
    pub cases: Vec<Case>,
    pub files: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
pub struct Case {
    pub name: String,
    pub target: String,
    pub object: String,
    pub kernel: String,
    /// The launcher whose kernel-argument convention the object follows.
    #[serde(default)]
    pub abi: Abi,
    #[allow(dead_code)]
    pub wave_size: u32,
    #[allow(dead_code)]
    pub num_warps: u32,
    pub programs: (u32, u32, u32),
    pub grid: (u32, u32, u32),
    pub workgroup: (u32, u32, u32),
    pub shared: u32,
    #[serde(default)]
    pub global_scratch: Scratch,
    #[serde(default)]
    pub profile_scratch: Scratch,
    pub buffers: Vec<Buffer>,
    pub args: Vec<Arg>,
    pub checks: Vec<Check>,
}

/// Which launcher's kernel arguments a case's object expects after its own `args`.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq)]
pub enum Abi {
    /// Triton 3.9's HIP launcher: the `global_scratch` and `profile_scratch` pointers follow.
    #[default]
    Triton,
    /// IREE's HIP HAL: the binding pointers then the push constants as i32, nothing after
    /// (IREE's samples/custom_dispatch/hip: "a dense list of ([ordered bindings...], [push
    /// constants...])"); the objects carry only these in their kernel-argument metadata.
    IreeHip,
}

#[derive(Debug, Deserialize, Default)]
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

/// The IREE corpus manifest (corpus/iree/manifest.ron, written by corpus/iree/build.py): its
/// cases have this file's form.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // Only the IREE tests read it.
pub struct IreeManifest {
    pub iree: String,
    pub sources_sha256: String,
    pub cases: Vec<Case>,
    pub files: Vec<(String, String)>,
}

/// The directory of the IREE corpus.
#[allow(dead_code)] // Only the IREE tests read it.
pub fn iree_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/iree")
}

#[allow(dead_code)] // Only the IREE tests read it.
pub fn iree_manifest() -> IreeManifest {
    let text = std::fs::read_to_string(iree_dir().join("manifest.ron")).expect("manifest.ron");
    ron::from_str(&text).expect("corpus/iree/manifest.ron parses")
}

#[allow(dead_code)] // The IREE tests read `iree_manifest` instead.
pub fn manifest() -> Manifest {
    let text = std::fs::read_to_string(dir().join("manifest.ron")).expect("manifest.ron");
    ron::from_str(&text).expect("manifest.ron parses")
}

/// Runs `case` from the code object `bytes` on a `target` device and checks every output
/// against its reference within the manifest's tolerance; returns the checked buffers'
/// bytes, in the order of the checks.
#[allow(dead_code)] // Some of the test crates that include this module count instructions.
pub fn run(case: &Case, bytes: &[u8], target: Target) -> Result<Vec<Vec<u8>>, String> {
    run_counted(case, bytes, target).map(|r| r.0)
}

/// [`run`], also returning the wave-instructions the dispatch retired.
#[allow(dead_code)] // Used by some of the test crates that include this module.
pub fn run_counted(
    case: &Case,
    bytes: &[u8],
    target: Target,
) -> Result<(Vec<Vec<u8>>, u64), String> {
    run_counted_in(&dir(), case, bytes, target)
}

/// [`run_counted`] for a case of the corpus in `root` (its data files are relative to it).
pub fn run_counted_in(
    root: &Path,
    case: &Case,
    bytes: &[u8],
    target: Target,
) -> Result<(Vec<Vec<u8>>, u64), String> {
    let mut dev = Device::new(target);
    let module = dev.load_code_object(bytes).map_err(|e| e.to_string())?;
    let mut addrs = HashMap::new();
    for b in &case.buffers {
        let data = match &b.init {
            Init::Zeros => vec![0u8; b.len * b.elem.size()],
            Init::File(f) => std::fs::read(root.join(f)).map_err(|e| format!("{f}: {e}"))?,
        };
        if data.len() != b.len * b.elem.size() {
            return Err(format!(
                "{}: {} bytes, want {}",
                b.name,
                data.len(),
                b.len * b.elem.size()
            ));
        }
        let addr = dev.alloc(data.len() as u64).map_err(|e| e.to_string())?;
        dev.copy_in(addr, &data).map_err(|e| e.to_string())?;
        addrs.insert(b.name.clone(), (addr, b.elem, b.len));
    }
    let mut args = Vec::new();
    for a in &case.args {
        args.push(match a {
            Arg::Buffer(n) => ArgValue::ptr(addrs.get(n).ok_or(format!("no buffer {n}"))?.0),
            Arg::I32(v) => ArgValue::bytes(&v.to_le_bytes()),
            Arg::F32(v) => ArgValue::bytes(&v.to_le_bytes()),
        });
    }
    // Triton: global_scratch, profile_scratch: null when unused, else programs * size bytes.
    let programs = case.programs.0 as u64 * case.programs.1 as u64 * case.programs.2 as u64;
    let scratch = match case.abi {
        Abi::Triton => [&case.global_scratch, &case.profile_scratch].to_vec(),
        Abi::IreeHip => Vec::new(),
    };
    for s in scratch {
        if s.size == 0 {
            args.push(ArgValue::u64(0));
        } else {
            let addr = dev.alloc(programs * s.size).map_err(|e| e.to_string())?;
            args.push(ArgValue::ptr(addr));
        }
    }
    let cfg = LaunchConfig {
        grid: [case.grid.0, case.grid.1, case.grid.2],
        workgroup: [case.workgroup.0, case.workgroup.1, case.workgroup.2],
        dynamic_lds: case.shared,
        extra_private: 0,
    };
    let id = dev
        .dispatch(module, &case.kernel, &cfg, &args)
        .map_err(|e| e.to_string())?;
    let stats = dev.wait(id).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for c in &case.checks {
        let (addr, elem, len) = *addrs.get(&c.buffer).ok_or("no such buffer")?;
        let mut got = vec![0u8; len * elem.size()];
        dev.copy_out(addr, &mut got).map_err(|e| e.to_string())?;
        let want = std::fs::read(root.join(&c.reference)).map_err(|e| e.to_string())?;
        if want.len() != len * c.ref_elem.size() {
            return Err(format!("{}: reference has the wrong size", c.reference));
        }
        let mut bad = Vec::new();
        let mut worst = 0.0f64;
        for i in 0..len {
            let (g, w) = (elem.get(&got, i), c.ref_elem.get(&want, i));
            let err = (g - w).abs();
            let lim = c.abs + c.rel * w.abs();
            worst = worst.max(err / lim.max(f64::MIN_POSITIVE));
            if err > lim || g.is_nan() != w.is_nan() {
                bad.push(format!("[{i}] got {g} want {w}"));
            }
        }
        if !bad.is_empty() {
            return Err(format!(
                "{}: {} of {len} elements out of tolerance (rel {}, abs {}): {}",
                c.buffer,
                bad.len(),
                c.rel,
                c.abs,
                bad[..bad.len().min(4)].join(", ")
            ));
        }
        eprintln!(
            "  {}@{} {}: ok (worst error {:.3} of the tolerance)",
            case.name, case.target, c.buffer, worst
        );
        out.push(got);
    }
    Ok((out, stats.instructions))
}

/// Runs every case of `cases` built for `target` (objects and data relative to `root`) on
/// that target and checks its outputs; a case without checks (the speed anchor's GEMMs) is
/// only loaded. A host panic counts as that case's failure. Fails listing every case that
/// did not pass, or when fewer than `at_least` cases ran.
#[allow(dead_code)] // Only the tests that run a whole corpus use it.
pub fn run_target_cases(root: &Path, cases: &[Case], target: &str, what: &str, at_least: usize) {
    let t = Target::from_name(target).expect("a target the model knows");
    let mut problems = Vec::new();
    let mut ran = 0;
    for case in cases.iter().filter(|c| c.target == target) {
        let bytes = match std::fs::read(root.join(&case.object)) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{}@{target}: {}: {e}", case.name, case.object));
                continue;
            }
        };
        if case.checks.is_empty() {
            if let Err(e) = Device::new(t).load_code_object(&bytes) {
                problems.push(format!("{}@{target}: load: {e}", case.name));
            }
            continue;
        }
        ran += 1;
        let r = std::panic::catch_unwind(|| run_counted_in(root, case, &bytes, t).map(|_| ()))
            .unwrap_or_else(|_| Err("host panic".to_string()));
        if let Err(e) = r {
            problems.push(format!("{}@{target}: {e}", case.name));
        }
    }
    eprintln!("{target}: {ran} {what} run, {} problems", problems.len());
    assert!(
        ran >= at_least,
        "{target}: only {ran} cases in the manifest"
    );
    assert!(problems.is_empty(), "{target}:\n{}", problems.join("\n"));
}
