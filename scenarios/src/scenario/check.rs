//! Resolving a scenario (buffers, code objects, arguments against kernel metadata) and
//! checking output buffers against expectations.

use super::init::initial_bytes;
use super::{
    Arg, ArgValue, Buffer, Check, ElemType, Launch, Output, Scenario, ScenarioError, Tolerance,
    Workload,
};
use gpu_model::config::GpuConfig;
use gpu_model::dispatch::kernarg::{build_kernargs, LaunchShape};
use gpu_model::loader::{bundle, CodeObject, LoadError, TargetId, ValueKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(super) fn resolve(
    s: &Scenario,
    origin: &str,
    base_dir: &Path,
    embedded: &[(&str, &[u8])],
) -> Result<Workload, ScenarioError> {
    let mut config = GpuConfig::preset(&s.gpu)?.with_overrides(&s.overrides)?;
    if let Some(m) = s.exec_mode {
        config.exec_mode = m;
    }
    config.validate()?;

    let mut buffers = Vec::with_capacity(s.buffers.len());
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    // Checked before any initial contents are made: a buffer the device cannot hold is
    // refused, not built on the host. Counted in whole pages, as the device allocates.
    let page = gpu_model::memory::PAGE_SIZE;
    let mut total = 0u64;
    for b in &s.buffers {
        let bytes = b.len.saturating_mul(b.elem.size() as u64);
        total = total.saturating_add(bytes.div_ceil(page).saturating_mul(page));
        if total > config.dram.capacity_bytes {
            return Err(ScenarioError::OutOfDeviceMemory {
                name: b.name.clone(),
                total,
                capacity: config.dram.capacity_bytes,
                gpu: s.gpu.clone(),
            });
        }
    }
    for b in &s.buffers {
        if by_name.insert(&b.name, buffers.len()).is_some() {
            return Err(ScenarioError::DuplicateBuffer {
                name: b.name.clone(),
            });
        }
        if b.len == 0 {
            return Err(ScenarioError::EmptyBuffer {
                name: b.name.clone(),
            });
        }
        buffers.push(Buffer {
            name: b.name.clone(),
            elem: b.elem,
            len: b.len,
            bytes: initial_bytes(&b.name, b.elem, b.len, &b.init, base_dir)?,
        });
    }
    let available = || {
        let names: Vec<&str> = s.buffers.iter().map(|b| b.name.as_str()).collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };

    let mut files: HashMap<PathBuf, Vec<u8>> = HashMap::new();
    let mut objects: HashMap<(PathBuf, Option<String>), Object> = HashMap::new();
    // A bundle or HIP binary gives the entry for the GPU's target id (in the production
    // xnack/sramecc modes the device runs with) that defines the kernel.
    let device = TargetId::production(config.target);
    let mut launches = Vec::with_capacity(s.launches.len());
    for (li, l) in s.launches.iter().enumerate() {
        let path = base_dir.join(&l.code_object);
        let failed = |source: LoadError| ScenarioError::CodeObject {
            launch: li,
            path: path.display().to_string(),
            source,
        };
        if !files.contains_key(&path) {
            let file = match embedded.iter().find(|(name, _)| *name == l.code_object) {
                Some((_, bytes)) => bytes.to_vec(),
                None => std::fs::read(&path).map_err(|e| ScenarioError::io(&path, e))?,
            };
            files.insert(path.clone(), file);
        }
        let file = &files[&path];
        let (co, bytes, translation, key) = match &l.translate {
            super::Translate::None => {
                let picked = bundle::extract_kernel(file, &device, &l.kernel)
                    .map_err(|e| failed(e.into()))?;
                let entry = picked
                    .entry
                    .as_ref()
                    .map(|id| format!("{id} (bundle {})", picked.bundle));
                let key = (path.clone(), entry);
                let (co, bytes, _) = match objects.get(&key) {
                    Some(v) => v.clone(),
                    None => {
                        let bytes = picked.bytes.into_owned();
                        let co = CodeObject::parse(&bytes).map_err(failed)?;
                        let v = (Arc::new(co), Arc::new(bytes), None);
                        objects.insert(key.clone(), v.clone());
                        v
                    }
                };
                (co, bytes, None, key)
            }
            super::Translate::Some { host } => {
                let key = (path.clone(), Some(format!("translated to {host}")));
                let (co, bytes, tr) = match objects.get(&key) {
                    Some(v) => v.clone(),
                    None => {
                        let v = translated(li, &path, file, host, &config)?;
                        objects.insert(key.clone(), v.clone());
                        v
                    }
                };
                (co, bytes, tr, key)
            }
        };
        if co.target() != config.target {
            return Err(ScenarioError::WrongTarget {
                launch: li,
                path: path.display().to_string(),
                found: co.target_id(),
                gpu: config.name.clone(),
                expected: config.target.to_string(),
            });
        }
        let Some(kernel) = co.kernel(&l.kernel) else {
            let names: Vec<&str> = co.kernels().iter().map(|k| k.name.as_str()).collect();
            return Err(ScenarioError::UnknownKernel {
                launch: li,
                kernel: l.kernel.clone(),
                path: path.display().to_string(),
                available: names.join(", "),
            });
        };
        let Some(meta) = &kernel.metadata else {
            return Err(ScenarioError::NoMetadata {
                launch: li,
                kernel: l.kernel.clone(),
            });
        };
        check_geometry(
            li,
            l.kernel.as_str(),
            l.grid,
            l.workgroup,
            &config,
            meta.max_flat_workgroup_size,
        )?;

        let explicit: Vec<_> = meta.explicit_args().collect();
        if explicit.len() != l.args.len() {
            let names: Vec<String> = explicit
                .iter()
                .enumerate()
                .map(|(i, a)| a.name.clone().unwrap_or_else(|| format!("#{i}")))
                .collect();
            return Err(ScenarioError::ArgCount {
                launch: li,
                kernel: l.kernel.clone(),
                expected: explicit.len(),
                names: names.join(", "),
                got: l.args.len(),
            });
        }
        let items: u64 = l.grid.iter().map(|&d| u64::from(d)).product();
        let mut args = Vec::with_capacity(l.args.len());
        for (ai, (arg, m)) in l.args.iter().zip(&explicit).enumerate() {
            let mismatch = |expected: String| ScenarioError::ArgMismatch {
                launch: li,
                arg: ai,
                name: m.name.clone().unwrap_or_else(|| "?".into()),
                kernel: l.kernel.clone(),
                expected,
                got: arg.describe(),
            };
            let value = match (&m.value_kind, arg) {
                (ValueKind::GlobalBuffer, Arg::Buffer(name)) => {
                    let Some(&bi) = by_name.get(name.as_str()) else {
                        return Err(ScenarioError::UnknownBuffer {
                            launch: li,
                            kernel: l.kernel.clone(),
                            arg: ai,
                            name: name.clone(),
                            available: available(),
                        });
                    };
                    if let Some(per) = l.elements_per_item {
                        let needed = items.saturating_mul(per);
                        if buffers[bi].len < needed {
                            return Err(ScenarioError::BufferTooSmall {
                                launch: li,
                                kernel: l.kernel.clone(),
                                arg: ai,
                                buffer: name.clone(),
                                len: buffers[bi].len,
                                items,
                                per_item: per,
                                needed,
                            });
                        }
                    }
                    ArgValue::Buffer(bi)
                }
                // A null pointer: what Triton 3.9's launcher passes for its trailing
                // global_scratch/profile_scratch arguments when their metadata sizes are 0
                // (triton/backends/amd/driver.py, `allocate_scratch` returns None).
                (ValueKind::GlobalBuffer, Arg::U64(0)) => ArgValue::Bytes(vec![0; 8]),
                (ValueKind::GlobalBuffer, _) => {
                    return Err(mismatch("a buffer (or U64(0), a null pointer)".into()))
                }
                (ValueKind::ByValue, Arg::Buffer(_)) => {
                    return Err(mismatch(by_value(m.size)))
                }
                (ValueKind::ByValue, Arg::Lds(_)) => return Err(mismatch(by_value(m.size))),
                (ValueKind::ByValue, a) if a.scalar_size() != Some(m.size) => {
                    return Err(mismatch(by_value(m.size)))
                }
                (ValueKind::ByValue, a) => ArgValue::Bytes(a.scalar_bytes()),
                // The LDS size travels as an integer of the argument's size, the way
                // clSetKernelArg(size, NULL) leaves it for ROCclr to replace by the offset.
                (ValueKind::DynamicSharedPointer, Arg::Lds(n)) => {
                    let bytes = u64::from(*n).to_le_bytes();
                    ArgValue::Bytes(bytes[..(m.size as usize).min(8)].to_vec())
                }
                (ValueKind::DynamicSharedPointer, _) => {
                    return Err(mismatch("an LDS size (`Lds(bytes)`)".into()))
                }
                (other, _) => {
                    return Err(ScenarioError::Unsupported(format!(
                        "launch {li}: argument {ai} of kernel `{}` has value kind `{}`; scenarios pass buffers, by-value values and LDS sizes only",
                        l.kernel,
                        other.as_str()
                    )))
                }
            };
            args.push(value);
        }
        // Lay the arguments out now, as the dispatch will (buffers at a dummy address), so
        // sizes and LDS are checked before anything runs.
        let probe: Vec<Vec<u8>> = args
            .iter()
            .map(|a| match a {
                ArgValue::Buffer(_) => vec![0; 8],
                ArgValue::Bytes(b) => b.clone(),
            })
            .collect();
        let shape = LaunchShape {
            grid: l.grid,
            workgroup: l.workgroup,
            dynamic_lds: l.dynamic_lds,
        };
        build_kernargs(
            meta,
            &kernel.descriptor,
            &shape,
            0,
            probe.iter().map(Vec::as_slice),
            config.xcd.cu.lds_bytes,
        )
        .map_err(|source| ScenarioError::Kernarg {
            launch: li,
            kernel: l.kernel.clone(),
            source,
        })?;
        let translated = translation.as_ref().and_then(|t| {
            let k = t.kernels.iter().find(|k| k.name == l.kernel)?;
            Some(super::Translated {
                guest: CodeObject::parse(file).ok()?.target(),
                host: config.target,
                code_bytes: (k.code_before, k.code_after),
                expanded: k.expanded,
            })
        });
        launches.push(Launch {
            translated,
            code_object_path: path,
            code_object_entry: key.1,
            code_object: co,
            code_object_bytes: bytes,
            kernel: l.kernel.clone(),
            grid: l.grid,
            workgroup: l.workgroup,
            dynamic_lds: l.dynamic_lds,
            args,
        });
    }

    let mut outputs = Vec::with_capacity(s.outputs.len());
    for (oi, o) in s.outputs.iter().enumerate() {
        let Some(&bi) = by_name.get(o.buffer.as_str()) else {
            return Err(ScenarioError::UnknownOutputBuffer {
                output: oi,
                name: o.buffer.clone(),
                available: available(),
            });
        };
        let check = match &o.check {
            Some(Check::File { path, tolerance }) => {
                match embedded.iter().find(|(name, _)| *name == path.as_str()) {
                    Some((_, bytes)) => Some(Check::Expected {
                        path: path.clone(),
                        bytes: Arc::from(*bytes),
                        tolerance: *tolerance,
                    }),
                    None => Some(Check::File {
                        path: base_dir.join(path).display().to_string(),
                        tolerance: *tolerance,
                    }),
                }
            }
            Some(Check::Fnv1a(h)) => {
                parse_hex(h).ok_or_else(|| ScenarioError::BadInit {
                    name: o.buffer.clone(),
                    message: format!("output {oi}: checksum {h:?} is not a 64-bit hex number"),
                })?;
                Some(Check::Fnv1a(h.clone()))
            }
            other => other.clone(),
        };
        outputs.push(Output {
            buffer: bi,
            write: o.write.as_ref().map(|w| base_dir.join(w)),
            check,
        });
    }

    Ok(Workload {
        origin: origin.to_string(),
        base_dir: base_dir.to_path_buf(),
        config,
        threads: s.threads.unwrap_or(1).max(1),
        partition: s.partition,
        buffers,
        launches,
        outputs,
    })
}

/// How a by-value argument of `size` bytes reads in a mismatch: scalars up to 8 bytes,
/// larger ones are structs (`Bytes([..])`).
fn by_value(size: u32) -> String {
    if size <= 8 {
        format!("a {size}-byte scalar")
    } else {
        format!("a {size}-byte value (`Bytes([..])`)")
    }
}

fn check_geometry(
    li: usize,
    kernel: &str,
    grid: [u32; 3],
    wg: [u32; 3],
    config: &GpuConfig,
    kernel_max: u32,
) -> Result<(), ScenarioError> {
    let bad = |message: String| ScenarioError::BadGeometry {
        launch: li,
        kernel: kernel.to_string(),
        message,
    };
    if grid.contains(&0) {
        return Err(bad(format!("grid {grid:?} has a zero dimension")));
    }
    if wg.contains(&0) {
        return Err(bad(format!("workgroup {wg:?} has a zero dimension")));
    }
    let size: u64 = wg.iter().map(|&d| u64::from(d)).product();
    if size > u64::from(config.max_workgroup_size) {
        return Err(bad(format!(
            "workgroup {wg:?} has {size} work-items; the gpu allows at most {}",
            config.max_workgroup_size
        )));
    }
    if kernel_max != 0 && size > u64::from(kernel_max) {
        return Err(bad(format!(
            "workgroup {wg:?} has {size} work-items; the kernel was compiled for at most {kernel_max} (.max_flat_workgroup_size)"
        )));
    }
    Ok(())
}

fn parse_hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// FNV-1a 64 of `bytes` (the scenario checksum; chosen for being specified in a line).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The result of one output check.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CheckOutcome {
    /// Whether it passed.
    pub passed: bool,
    /// What was compared and, on failure, the first difference.
    pub detail: String,
}

/// Compares `bytes` (a buffer of `elem`) with `check`.
pub fn compare(check: &Check, elem: ElemType, bytes: &[u8]) -> Result<CheckOutcome, ScenarioError> {
    let n = bytes.len() / elem.size();
    Ok(match check {
        Check::Fnv1a(h) => {
            let want = parse_hex(h).unwrap_or(0);
            let got = checksum(bytes);
            CheckOutcome {
                passed: got == want,
                detail: format!("fnv1a {got:#018x}, expected {want:#018x}"),
            }
        }
        Check::Sum { value, rel, abs } => {
            let got: f64 = (0..n).map(|i| elem.read_f64(bytes, i)).sum();
            let ok = (got - value).abs() <= abs + rel * value.abs();
            CheckOutcome {
                passed: ok,
                detail: format!("sum {got}, expected {value} (rel {rel}, abs {abs})"),
            }
        }
        Check::File { path, tolerance } => {
            let p = PathBuf::from(path);
            let want = std::fs::read(&p).map_err(|e| ScenarioError::io(&p, e))?;
            elementwise(elem, bytes, &want, path, *tolerance)
        }
        Check::Expected {
            path,
            bytes: want,
            tolerance,
        } => elementwise(elem, bytes, want, path, *tolerance),
    })
}

/// `bytes` against the expected elements `want` (from `path`), element by element.
fn elementwise(
    elem: ElemType,
    bytes: &[u8],
    want: &[u8],
    path: &str,
    tolerance: Tolerance,
) -> CheckOutcome {
    if want.len() != bytes.len() {
        return CheckOutcome {
            passed: false,
            detail: format!(
                "{path} has {} bytes, the buffer {}",
                want.len(),
                bytes.len()
            ),
        };
    }
    let (s, n) = (elem.size(), bytes.len() / elem.size());
    let mut bad = 0usize;
    let mut first = None;
    for i in 0..n {
        let ok = match tolerance {
            Tolerance::Exact => bytes[i * s..(i + 1) * s] == want[i * s..(i + 1) * s],
            Tolerance::Float { rel, abs } => {
                let (g, w) = (elem.read_f64(bytes, i), elem.read_f64(want, i));
                (g - w).abs() <= abs + rel * w.abs() || (g.is_nan() && w.is_nan())
            }
        };
        if !ok {
            bad += 1;
            first.get_or_insert((i, elem.read_f64(bytes, i), elem.read_f64(want, i)));
        }
    }
    CheckOutcome {
        passed: bad == 0,
        detail: match first {
            None => format!("{n} elements match {path}"),
            Some((i, g, w)) => {
                format!("{bad} of {n} elements differ from {path}; first at [{i}]: got {g}, expected {w}")
            }
        },
    }
}

/// A parsed code object, its bytes, and the translation that made them (if any).
type Object = (Arc<CodeObject>, Arc<Vec<u8>>, Option<Arc<dbt::Translation>>);

/// The host code object of a launch with `translate:` (see
/// [`super::LaunchSpec::translate`]): `file` (a bare code object) translated by `dbt` for
/// the GPU's processor, which `host` must name. An object already for the host is used as
/// it is (no translation).
fn translated(
    launch: usize,
    path: &Path,
    file: &[u8],
    host: &str,
    config: &GpuConfig,
) -> Result<Object, ScenarioError> {
    let refuse = |why: String| ScenarioError::Translate {
        launch,
        path: path.display().to_string(),
        host: host.to_string(),
        why,
    };
    let h = gpu_model::Target::from_name(host)
        .ok_or_else(|| refuse(format!("`{host}` is not a processor name")))?;
    if h != config.target {
        return Err(refuse(format!(
            "the gpu `{}` is {}; translate to its processor",
            config.name, config.target
        )));
    }
    let guest = CodeObject::parse(file).map_err(|source| ScenarioError::CodeObject {
        launch,
        path: path.display().to_string(),
        source,
    })?;
    if guest.target() == h {
        return Ok((Arc::new(guest), Arc::new(file.to_vec()), None));
    }
    let t = dbt::translate(file, h);
    if !t.translated {
        let why: Vec<String> = t.diagnostics.iter().map(ToString::to_string).collect();
        return Err(refuse(why.join("; ")));
    }
    let co = CodeObject::parse(&t.object).map_err(|source| ScenarioError::CodeObject {
        launch,
        path: path.display().to_string(),
        source,
    })?;
    let bytes = Arc::new(t.object.clone());
    Ok((Arc::new(co), bytes, Some(Arc::new(t))))
}
