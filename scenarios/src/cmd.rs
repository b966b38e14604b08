//! One module per `gfxsim` subcommand, and the code-object reading they share.

pub mod coverage;
pub mod dbt;
pub mod disasm;
pub mod exec;
pub mod info;
pub mod run;
pub mod sweep;

use crate::CliError;
use gpu_model::loader::bundle::{self, Fatbin};
use gpu_model::loader::{CodeObject, LoadError, TargetId};
use std::path::Path;

/// A code object read from a file, and where in the file it was.
#[derive(Debug)]
pub struct Loaded {
    /// The parsed code object.
    pub co: CodeObject,
    /// The bundle entry id it came from (`None` for a bare code object).
    pub entry: Option<String>,
}

/// Reads a file's bytes.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Parses `--target`.
pub fn parse_target(t: Option<&str>) -> Result<Option<TargetId>, CliError> {
    t.map(|t| TargetId::parse(t).map_err(|e| CliError::BadInput(format!("--target: {e}"))))
        .transpose()
}

/// The code object in a file for `target`: the file itself when it is an AMDGPU ELF, else
/// the compatible entry of the offload bundle or HIP host binary (the only device entry
/// when no target is given).
pub fn read_code_object(path: &Path, target: Option<&TargetId>) -> Result<Loaded, CliError> {
    let bytes = read_file(path)?;
    let bad = |e: LoadError| CliError::BadInput(format!("{}: {e}", path.display()));
    let x = bundle::extract(&bytes, target).map_err(|e| bad(e.into()))?;
    let co = CodeObject::parse(&x.bytes).map_err(|e| match &x.entry {
        Some(id) => bad_entry(path, id, e),
        None => bad(e),
    })?;
    Ok(Loaded { co, entry: x.entry })
}

fn bad_entry(path: &Path, id: &str, e: LoadError) -> CliError {
    CliError::BadInput(format!("{}: bundle entry {id}: {e}", path.display()))
}

/// Every code object of a file that the simulator has a target for: the file itself, or
/// each device entry of a bundle (entries for other processors are skipped; their ids
/// are returned second).
pub fn read_all_code_objects(path: &Path) -> Result<(Vec<Loaded>, Vec<String>), CliError> {
    let bytes = read_file(path)?;
    let bad = |e: LoadError| CliError::BadInput(format!("{}: {e}", path.display()));
    if !bundle::is_container(&bytes) {
        let co = CodeObject::parse(&bytes).map_err(bad)?;
        return Ok((vec![Loaded { co, entry: None }], Vec::new()));
    }
    let fb = Fatbin::parse(&bytes).map_err(|e| bad(e.into()))?;
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for e in fb.device_entries() {
        if e.target.as_ref().and_then(TargetId::target).is_none() {
            skipped.push(e.id.clone());
            continue;
        }
        let co = CodeObject::parse(&e.bytes).map_err(|err| bad_entry(path, &e.id, err))?;
        out.push(Loaded {
            co,
            entry: Some(e.id.clone()),
        });
    }
    Ok((out, skipped))
}

/// The code objects of a file for `target`: the file itself when it is an AMDGPU ELF, else
/// the first compatible entry of each bundle (one per translation unit, as HIP loads them).
pub fn read_candidates(path: &Path, target: &TargetId) -> Result<Vec<Loaded>, CliError> {
    let bytes = read_file(path)?;
    if !bundle::is_container(&bytes) {
        return Ok(vec![read_code_object(path, Some(target))?]);
    }
    let bad = |e: LoadError| CliError::BadInput(format!("{}: {e}", path.display()));
    let fb = Fatbin::parse(&bytes).map_err(|e| bad(e.into()))?;
    let candidates = fb.candidates(target);
    if candidates.is_empty() {
        fb.select(Some(target)).map_err(|e| bad(e.into()))?;
    }
    candidates
        .into_iter()
        .map(|e| {
            let co = CodeObject::parse(&e.bytes).map_err(|err| bad_entry(path, &e.id, err))?;
            Ok(Loaded {
                co,
                entry: Some(e.id.clone()),
            })
        })
        .collect()
}
