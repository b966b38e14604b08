//! Offload bundles: the containers HIP compilers put device code objects in, and picking the
//! entry for a target.
//!
//! Three forms reach the simulator besides a bare AMDGPU ELF:
//!
//! * a clang offload bundle (`.hipfb`, the contents of `.hip_fatbin`): the magic
//!   `__CLANG_OFFLOAD_BUNDLE__`, a `u64` entry count, then per entry a `u64` offset (from the
//!   bundle's start), a `u64` size, a `u64` id length and the id, e.g.
//!   `hipv4-amdgcn-amd-amdhsa--gfx942:xnack-` or `host-x86_64-unknown-linux-gnu-`
//!   (clang's `OffloadBundler.cpp`, `BinaryFileHandler`; HIP's `__ClangOffloadBundleInfo`);
//! * a compressed bundle (`clang --offload-compress`): the magic `CCOB`, a `u16` version, a
//!   `u16` method (`llvm::compression::Format`: 0 zlib, 1 zstd), then by version
//!   v1 `u32` uncompressed size; v2 `u32` total size, `u32` uncompressed size; v3 `u64` total
//!   size, `u64` uncompressed size; all followed by a `u64` truncated MD5 and the compressed
//!   bundle (LLVM's `llvm/lib/Object/OffloadBundle.cpp`, `RawCompressedBundleHeader`);
//! * a HIP host executable or shared library (x86-64 ELF) whose `.hip_fatbin` section holds
//!   one bundle per translation unit, each aligned to 4096 bytes (`-bundle-align=4096`).
//!
//! [`extract`] returns the code object for a target id. The entry chosen is the first one, in
//! bundle order, whose target id is compatible with the requested one (HIP's
//! `extractCodeObjectFromFatBinary` in `clr/hipamd/src/hip_code_object.cpp`). Compatibility
//! follows clang's `isCompatibleTargetID` (`clang/lib/Basic/TargetID.cpp`) and HIP's
//! `isCodeObjectCompatibleWithDevice`: the processors are equal, and every feature the code
//! object names (`xnack+`, `sramecc-`) the request names with the same value; a code object
//! that leaves a feature unnamed ("any") matches either setting.
//!
//! Parsing never panics and never allocates more than the input justifies: entry counts are
//! bounded by the bytes present, and decompression stops at the size the header declares
//! (at most [`MAX_UNCOMPRESSED`]).

use super::elf::EM_AMDGPU;
use super::{CodeObject, FeatureMode};
use crate::Target;
use std::borrow::Cow;
use std::fmt;
use std::io::Read;

/// Magic of an uncompressed clang offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed clang offload bundle.
pub const COMPRESSED_MAGIC: &[u8; 4] = b"CCOB";
/// Largest uncompressed bundle accepted (a larger size in a header is corrupt or hostile).
pub const MAX_UNCOMPRESSED: u64 = 1 << 30;
/// The section of a HIP host binary that holds the device bundles.
pub const FATBIN_SECTION: &str = ".hip_fatbin";

/// Why an offload bundle or HIP host binary yielded no code object.
///
/// Every variant is fatal for the file it names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BundleError {
    /// A structure runs past the end of the data that holds it.
    #[error(
        "truncated bundle: {what} needs bytes {offset:#x}..{end:#x} but {within} has {len} bytes"
    )]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Its offset in `within`.
        offset: u64,
        /// One past its last byte.
        end: u64,
        /// What the offsets count from (`the file`, `the decompressed bundle`).
        within: &'static str,
        /// Length of `within`.
        len: u64,
    },
    /// The bytes at an offset are not a bundle.
    #[error("bad magic at offset {offset:#x} of {within}: found {found}, expected `__CLANG_OFFLOAD_BUNDLE__` or `CCOB`")]
    BadMagic {
        /// Offset in `within`.
        offset: u64,
        /// What the offset counts from.
        within: &'static str,
        /// The first bytes found, escaped.
        found: String,
    },
    /// An entry's header is inconsistent (range outside the bundle, id not text).
    #[error("bundle at offset {bundle:#x}, entry {index}: {reason}")]
    BadEntry {
        /// Offset of the bundle in the file (or in the decompressed data).
        bundle: u64,
        /// Entry index.
        index: u64,
        /// What is wrong.
        reason: String,
    },
    /// A compressed bundle header this reader does not understand.
    #[error("compressed bundle at offset {offset:#x}: {reason}")]
    BadCompressedHeader {
        /// Offset of the `CCOB` magic in the file.
        offset: u64,
        /// What is wrong (version, method, sizes).
        reason: String,
    },
    /// The compressed payload did not decompress to the declared size.
    #[error("compressed bundle at offset {offset:#x}: {method} decompression failed: {reason}")]
    Decompress {
        /// Offset of the `CCOB` magic in the file.
        offset: u64,
        /// `zlib` or `zstd`.
        method: &'static str,
        /// The decoder's message or the size mismatch.
        reason: String,
    },
    /// A host ELF that is neither an AMDGPU code object nor carries `.hip_fatbin`.
    #[error("host elf (e_machine {machine}): {reason}")]
    HostElf {
        /// The host's `e_machine`.
        machine: u16,
        /// What is missing or malformed.
        reason: String,
    },
    /// A target id that does not parse.
    #[error("target id `{id}`: {reason}")]
    BadTargetId {
        /// The text.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// No entry is compatible with the requested target.
    #[error("no code object for target {target} (bundle entries: {})", list(.available))]
    NoEntry {
        /// The requested target id.
        target: String,
        /// Every entry id of the file.
        available: Vec<String>,
    },
    /// Several device entries and no target to choose between them.
    #[error("the bundle holds code objects for several targets ({}): name one (--target, or a gpu preset)", list(.available))]
    NeedTarget {
        /// The device entry ids.
        available: Vec<String>,
    },
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

type Result<T> = std::result::Result<T, BundleError>;

/// A target id: a processor and the xnack/sramecc settings it names (`gfx942:sramecc+:xnack-`).
/// An unnamed feature (`None`) means "any".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TargetId {
    /// The processor (`gfx942`, also ones the simulator does not model, such as `gfx1030`).
    pub processor: String,
    /// `sramecc+` / `sramecc-`, or unnamed.
    pub sramecc: Option<bool>,
    /// `xnack+` / `xnack-`, or unnamed.
    pub xnack: Option<bool>,
}

impl TargetId {
    /// Parses `processor(:feature[+-])*`. Features may come in any order but only once, and
    /// only `sramecc` and `xnack` exist (clang's `parseTargetIDWithFormatCheckingOnly`).
    pub fn parse(id: &str) -> Result<TargetId> {
        let bad = |reason: &str| BundleError::BadTargetId {
            id: id.to_string(),
            reason: reason.to_string(),
        };
        let mut parts = id.split(':');
        let processor = parts.next().unwrap_or_default();
        // Generic targets have dashes: `gfx9-4-generic`, `gfx12-generic`.
        let name_ok = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
        if processor.is_empty() || !processor.bytes().all(name_ok) {
            return Err(bad("expected a processor name such as gfx942"));
        }
        let mut t = TargetId {
            processor: processor.to_string(),
            sramecc: None,
            xnack: None,
        };
        for f in parts {
            let (name, on) = match f.as_bytes().last() {
                Some(b'+') => (&f[..f.len() - 1], true),
                Some(b'-') => (&f[..f.len() - 1], false),
                _ => return Err(bad("a feature must end in + or -")),
            };
            let slot = match name {
                "sramecc" => &mut t.sramecc,
                "xnack" => &mut t.xnack,
                _ => return Err(bad("unknown feature (expected sramecc or xnack)")),
            };
            if slot.replace(on).is_some() {
                return Err(bad("feature named twice"));
            }
        }
        Ok(t)
    }

    /// The target id of a device (or code object) with the given modes: On/Off are named,
    /// Any/Unsupported are not (as LLVM prints them).
    pub fn of(target: Target, xnack: FeatureMode, sramecc: FeatureMode) -> TargetId {
        let named = |m: FeatureMode| match m {
            FeatureMode::On => Some(true),
            FeatureMode::Off => Some(false),
            FeatureMode::Any | FeatureMode::Unsupported => None,
        };
        TargetId {
            processor: target.name().to_string(),
            sramecc: named(sramecc),
            xnack: named(xnack),
        }
    }

    /// The target id of a simulated device of `target` in its production settings (the
    /// modes [`crate::device::Device::new`] uses: xnack off and sramecc on where the target
    /// has them).
    pub fn production(target: Target) -> TargetId {
        let (xnack, sramecc) = production_modes(target);
        TargetId::of(target, xnack, sramecc)
    }

    /// Whether a code object built for `self` may run on (or be picked for) `requested`:
    /// same processor, and each feature `self` names is named alike in `requested`.
    pub fn is_compatible_with(&self, requested: &TargetId) -> bool {
        let ok = |provided: Option<bool>, req: Option<bool>| provided.is_none() || provided == req;
        self.processor == requested.processor
            && ok(self.sramecc, requested.sramecc)
            && ok(self.xnack, requested.xnack)
    }

    /// The simulated target of this processor, if it is one.
    pub fn target(&self) -> Option<Target> {
        Target::from_name(&self.processor)
    }
}

/// The xnack and sramecc modes of a production device of `target`: xnack off and sramecc
/// on on CDNA, neither feature on RDNA4.
pub fn production_modes(target: Target) -> (FeatureMode, FeatureMode) {
    match target.family() {
        crate::Family::Gfx9 => (FeatureMode::Off, FeatureMode::On),
        crate::Family::Gfx12 => (FeatureMode::Unsupported, FeatureMode::Unsupported),
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.processor)?;
        for (name, v) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(on) = v {
                write!(f, ":{name}{}", if on { '+' } else { '-' })?;
            }
        }
        Ok(())
    }
}

impl std::str::FromStr for TargetId {
    type Err = BundleError;
    fn from_str(s: &str) -> Result<TargetId> {
        TargetId::parse(s)
    }
}

/// What kind of file the bytes were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A bare AMDGPU code object.
    CodeObject,
    /// One or more uncompressed or compressed bundles, as a file of their own.
    Bundle,
    /// A host ELF with a `.hip_fatbin` section (at this file offset).
    HostElf {
        /// File offset of `.hip_fatbin`.
        section_offset: u64,
    },
}

/// How a bundle was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// Uncompressed.
    Plain,
    /// `CCOB` with this header version and method.
    Compressed {
        /// Header version (1 to 3).
        version: u16,
        /// `zlib` or `zstd`.
        method: &'static str,
    },
}

/// One entry of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntry {
    /// The entry id as written (`hipv4-amdgcn-amd-amdhsa--gfx942:xnack-`).
    pub id: String,
    /// Which bundle of the file (0 for the first) it came from.
    pub bundle: usize,
    /// How that bundle was stored.
    pub storage: Storage,
    /// The device target id, for AMDGPU entries of a HIP offload kind (`hipv4`, `hip`,
    /// `hcc`); `None` for host entries, others, and ids whose target id does not parse. For the pre-v4 kinds (`hip`, `hcc`) the
    /// id does not carry the target id, so it is read from the code object's `e_flags`, as
    /// HIP does.
    pub target: Option<TargetId>,
    /// The entry's bytes (empty for the host entry clang writes).
    pub bytes: Vec<u8>,
}

/// The entries of a file: every bundle it holds, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbin {
    /// The kind of file.
    pub container: Container,
    /// Entries of all bundles, in file order.
    pub entries: Vec<BundleEntry>,
}

/// A code object chosen from a file.
#[derive(Debug, Clone)]
pub struct Extracted<'a> {
    /// The code object's bytes.
    pub bytes: Cow<'a, [u8]>,
    /// The bundle entry id it came from; `None` for a bare code object.
    pub entry: Option<String>,
    /// Which bundle of the file (0 for the first) the entry came from: entries of different
    /// bundles (translation units) may have the same id.
    pub bundle: usize,
}

/// Whether `bytes` start like an offload bundle or a non-AMDGPU ELF (which may be a HIP
/// host binary), i.e. whether [`Fatbin::parse`] rather than [`CodeObject::parse`] applies.
pub fn is_container(bytes: &[u8]) -> bool {
    bytes.starts_with(BUNDLE_MAGIC)
        || bytes.starts_with(COMPRESSED_MAGIC)
        || (bytes.starts_with(b"\x7fELF")
            && bytes.len() >= 20
            && u16::from_le_bytes([bytes[18], bytes[19]]) != EM_AMDGPU)
}

/// The code object in `bytes` for `target`: `bytes` itself when it is not a container (a
/// bare code object, or something [`CodeObject::parse`] will reject with its own error), else
/// the first compatible entry. Without a target a container must hold exactly one device
/// entry.
pub fn extract<'a>(bytes: &'a [u8], target: Option<&TargetId>) -> Result<Extracted<'a>> {
    if !is_container(bytes) {
        return Ok(Extracted {
            bytes: Cow::Borrowed(bytes),
            entry: None,
            bundle: 0,
        });
    }
    let fb = Fatbin::parse(bytes)?;
    let e = fb.select(target)?;
    Ok(Extracted {
        bytes: Cow::Owned(e.bytes.clone()),
        entry: Some(e.id.clone()),
        bundle: e.bundle,
    })
}

/// The code object in `bytes` that HIP would run `kernel` from on a device of `target`.
/// HIP registers each bundle of `.hip_fatbin` (one per translation unit) on its own, taking
/// the first compatible entry of each (`__hipRegisterFatBinary`); the kernel is then found
/// in whichever of those defines it. When none defines it, the first one is returned (its
/// kernel list tells the user what there is). A bare code object is returned as it is.
pub fn extract_kernel<'a>(
    bytes: &'a [u8],
    target: &TargetId,
    kernel: &str,
) -> Result<Extracted<'a>> {
    if !is_container(bytes) {
        return extract(bytes, Some(target));
    }
    let fb = Fatbin::parse(bytes)?;
    let candidates = fb.candidates(target);
    let defines =
        |e: &BundleEntry| CodeObject::parse(&e.bytes).is_ok_and(|co| co.kernel(kernel).is_some());
    let e = match candidates
        .iter()
        .find(|e| defines(e))
        .or(candidates.first())
    {
        Some(e) => *e,
        None => fb.select(Some(target))?,
    };
    Ok(Extracted {
        bytes: Cow::Owned(e.bytes.clone()),
        entry: Some(e.id.clone()),
        bundle: e.bundle,
    })
}

impl Fatbin {
    /// The first entry compatible with `target` of each bundle, in file order: the code
    /// objects HIP loads for a device of that target.
    pub fn candidates(&self, target: &TargetId) -> Vec<&BundleEntry> {
        let mut out: Vec<&BundleEntry> = Vec::new();
        for e in self.device_entries() {
            let ok = e
                .target
                .as_ref()
                .is_some_and(|p| p.is_compatible_with(target));
            if ok && out.last().is_none_or(|l| l.bundle != e.bundle) {
                out.push(e);
            }
        }
        out
    }

    /// Reads every bundle of a bundle file or of a HIP host ELF's `.hip_fatbin`.
    pub fn parse(bytes: &[u8]) -> Result<Fatbin> {
        if bytes.starts_with(b"\x7fELF") {
            let (offset, section) = fatbin_section(bytes)?;
            let mut entries = Vec::new();
            read_bundles(section, offset, "the file", &mut entries)?;
            return Ok(Fatbin {
                container: Container::HostElf {
                    section_offset: offset,
                },
                entries,
            });
        }
        let mut entries = Vec::new();
        read_bundles(bytes, 0, "the file", &mut entries)?;
        Ok(Fatbin {
            container: Container::Bundle,
            entries,
        })
    }

    /// The ids of all entries.
    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.id.clone()).collect()
    }

    /// The AMDGPU device entries.
    pub fn device_entries(&self) -> impl Iterator<Item = &BundleEntry> {
        self.entries.iter().filter(|e| e.target.is_some())
    }

    /// The entry for `target` (the first compatible one), or the only device entry.
    pub fn select(&self, target: Option<&TargetId>) -> Result<&BundleEntry> {
        match target {
            Some(t) => self
                .device_entries()
                .find(|e| e.target.as_ref().is_some_and(|p| p.is_compatible_with(t)))
                .ok_or_else(|| BundleError::NoEntry {
                    target: t.to_string(),
                    available: self.ids(),
                }),
            None => {
                let mut dev = self.device_entries();
                match (dev.next(), dev.next()) {
                    (Some(e), None) => Ok(e),
                    (None, _) => Err(BundleError::NoEntry {
                        target: "any".to_string(),
                        available: self.ids(),
                    }),
                    (Some(_), Some(_)) => Err(BundleError::NeedTarget {
                        available: self.device_entries().map(|e| e.id.clone()).collect(),
                    }),
                }
            }
        }
    }
}

fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(s.try_into().ok()?))
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(s.try_into().ok()?))
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes(s.try_into().ok()?))
}

fn escaped(b: &[u8]) -> String {
    let head = &b[..b.len().min(8)];
    format!("\"{}\"", head.escape_ascii())
}

/// `.hip_fatbin` of a host ELF: its file offset and bytes.
fn fatbin_section(bytes: &[u8]) -> Result<(u64, &[u8])> {
    let machine = read_u16(bytes, 18).unwrap_or(0);
    let host = |reason: String| BundleError::HostElf { machine, reason };
    let elf = goblin::elf::Elf::parse(bytes).map_err(|e| host(e.to_string()))?;
    let sh = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(FATBIN_SECTION))
        .ok_or_else(|| {
            host(format!(
                "no {FATBIN_SECTION} section: not a HIP host binary (or it was stripped of section headers)"
            ))
        })?;
    let (off, size) = (sh.sh_offset, sh.sh_size);
    let end = off.saturating_add(size);
    let data = usize::try_from(off)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(a, b)| bytes.get(a..b))
        .ok_or(BundleError::Truncated {
            what: FATBIN_SECTION,
            offset: off,
            end,
            within: "the file",
            len: bytes.len() as u64,
        })?;
    Ok((off, data))
}

/// Reads the bundles laid end to end in `data` (zero padding between them), whose first
/// byte is at `base` in `within`.
fn read_bundles(
    data: &[u8],
    base: u64,
    within: &'static str,
    out: &mut Vec<BundleEntry>,
) -> Result<()> {
    let mut pos = 0usize;
    let mut bundle = 0usize;
    loop {
        // The linker pads each translation unit's bundle to the next 4096-byte boundary.
        while data.get(pos) == Some(&0) {
            pos += 1;
        }
        if pos >= data.len() {
            if bundle == 0 {
                return Err(BundleError::BadMagic {
                    offset: base,
                    within,
                    found: "no data".to_string(),
                });
            }
            return Ok(());
        }
        let rest = &data[pos..];
        let at = base + pos as u64;
        let used = if rest.starts_with(BUNDLE_MAGIC) {
            read_plain(rest, at, within, bundle, Storage::Plain, out)?
        } else if rest.starts_with(COMPRESSED_MAGIC) {
            read_compressed(rest, at, within, bundle, out)?
        } else {
            return Err(BundleError::BadMagic {
                offset: at,
                within,
                found: escaped(rest),
            });
        };
        pos += used.max(1);
        bundle += 1;
    }
}

/// Reads one uncompressed bundle at the start of `b` (at `base` in `within`); returns its
/// length (the end of its furthest entry).
fn read_plain(
    b: &[u8],
    base: u64,
    within: &'static str,
    bundle: usize,
    storage: Storage,
    out: &mut Vec<BundleEntry>,
) -> Result<usize> {
    let trunc = |what: &'static str, off: usize, n: usize| BundleError::Truncated {
        what,
        offset: base + off as u64,
        end: base + off as u64 + n as u64,
        within,
        len: base + b.len() as u64,
    };
    let n = read_u64(b, 24).ok_or_else(|| trunc("bundle entry count", 24, 8))?;
    // Each entry header takes at least 24 bytes: a count beyond that is a lie.
    if n > (b.len() as u64).saturating_sub(32) / 24 {
        return Err(BundleError::BadEntry {
            bundle: base,
            index: n,
            reason: format!("entry count {n} does not fit in the {} bytes left", b.len()),
        });
    }
    let mut at = 32usize;
    let mut end = at;
    for index in 0..n {
        let bad = |reason: String| BundleError::BadEntry {
            bundle: base,
            index,
            reason,
        };
        let off = read_u64(b, at).ok_or_else(|| trunc("bundle entry offset", at, 8))?;
        let size = read_u64(b, at + 8).ok_or_else(|| trunc("bundle entry size", at + 8, 8))?;
        let id_len =
            read_u64(b, at + 16).ok_or_else(|| trunc("bundle entry id length", at + 16, 8))?;
        at += 24;
        let id_end = usize::try_from(id_len)
            .ok()
            .and_then(|l| at.checked_add(l))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad(format!("id of {id_len} bytes runs past the bundle")))?;
        let id = std::str::from_utf8(&b[at..id_end])
            .map_err(|_| bad("id is not UTF-8".to_string()))?
            .to_string();
        at = id_end;
        let range = usize::try_from(off)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| Some(o..o.checked_add(s)?))
            .filter(|r| r.end <= b.len())
            .ok_or_else(|| {
                bad(format!(
                    "`{id}`: bytes {off:#x}+{size:#x} are outside the bundle ({} bytes)",
                    b.len()
                ))
            })?;
        end = end.max(range.end).max(at);
        let bytes = b[range].to_vec();
        // An entry whose target id does not parse is listed but never chosen, as HIP skips
        // it (`getTargetIDValue` fails: "Unsupported").
        let target = device_target(&id, &bytes).ok().flatten();
        out.push(BundleEntry {
            id,
            bundle,
            storage,
            target,
            bytes,
        });
    }
    Ok(end.max(at))
}

/// The device target id of an entry id, per LLVM's `OffloadTargetInfo`:
/// `<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]`.
fn device_target(id: &str, bytes: &[u8]) -> Result<Option<TargetId>> {
    let parts: Vec<&str> = id.splitn(6, '-').collect();
    let kind = parts[0];
    if !matches!(kind, "hipv4" | "hip" | "hcc") || parts.len() < 4 || parts[1] != "amdgcn" {
        return Ok(None);
    }
    match (kind, parts.get(5)) {
        ("hipv4", Some(t)) if !t.is_empty() => TargetId::parse(t).map(Some),
        // Before code object v4 the id names no target id; HIP reads it from the object.
        _ => Ok(CodeObject::parse(bytes)
            .ok()
            .map(|co| TargetId::of(co.target(), co.xnack(), co.sramecc()))),
    }
}

/// Reads one compressed bundle at the start of `b` (at `base` in `within`); returns its
/// length.
fn read_compressed(
    b: &[u8],
    base: u64,
    within: &'static str,
    bundle: usize,
    out: &mut Vec<BundleEntry>,
) -> Result<usize> {
    let header = |reason: String| BundleError::BadCompressedHeader {
        offset: base,
        reason,
    };
    let trunc = |n: usize| BundleError::Truncated {
        what: "compressed bundle header",
        offset: base,
        end: base + n as u64,
        within,
        len: base + b.len() as u64,
    };
    let version = read_u16(b, 4).ok_or_else(|| trunc(8))?;
    let method_id = read_u16(b, 6).ok_or_else(|| trunc(8))?;
    // (header length, total size, uncompressed size); v1 stores no total size.
    let (hlen, total, raw) = match version {
        1 => (20, None, read_u32(b, 8).map(u64::from)),
        2 => (
            24,
            read_u32(b, 8).map(u64::from),
            read_u32(b, 12).map(u64::from),
        ),
        3 => (32, read_u64(b, 8), read_u64(b, 16)),
        v => return Err(header(format!("unknown version {v} (known: 1, 2, 3)"))),
    };
    if b.len() < hlen {
        return Err(trunc(hlen));
    }
    let raw = raw.ok_or_else(|| trunc(hlen))?;
    let method = match method_id {
        0 => "zlib",
        1 => "zstd",
        m => {
            return Err(header(format!(
                "unknown compression method {m} (0 zlib, 1 zstd)"
            )))
        }
    };
    let total = match total {
        None => b.len(),
        Some(t) => {
            if t < hlen as u64 {
                return Err(header(format!(
                    "total size {t} is smaller than the {hlen}-byte header"
                )));
            }
            usize::try_from(t)
                .ok()
                .filter(|&t| t <= b.len())
                .ok_or(BundleError::Truncated {
                    what: "compressed bundle",
                    offset: base,
                    end: base.saturating_add(t),
                    within,
                    len: base + b.len() as u64,
                })?
        }
    };
    if raw > MAX_UNCOMPRESSED {
        return Err(header(format!(
            "uncompressed size {raw} exceeds the {MAX_UNCOMPRESSED}-byte limit"
        )));
    }
    let payload = &b[hlen..total];
    let fail = |reason: String| BundleError::Decompress {
        offset: base,
        method,
        reason,
    };
    let mut plain = Vec::new();
    // Read one byte past the declared size so that a longer stream is caught, not followed.
    let limit = raw + 1;
    let read = match method_id {
        0 => flate2::read::ZlibDecoder::new(payload)
            .take(limit)
            .read_to_end(&mut plain),
        _ => {
            let dec = ruzstd::decoding::StreamingDecoder::new(payload)
                .map_err(|e| fail(e.to_string()))?;
            dec.take(limit).read_to_end(&mut plain)
        }
    };
    read.map_err(|e| fail(e.to_string()))?;
    if plain.len() as u64 != raw {
        return Err(fail(format!(
            "produced {}{} bytes, the header says {raw}",
            plain.len().min(raw as usize),
            if plain.len() as u64 > raw {
                " or more"
            } else {
                ""
            }
        )));
    }
    if !plain.starts_with(BUNDLE_MAGIC) {
        return Err(BundleError::BadMagic {
            offset: 0,
            within: "the decompressed bundle",
            found: escaped(&plain),
        });
    }
    let storage = Storage::Compressed { version, method };
    read_plain(&plain, 0, "the decompressed bundle", bundle, storage, out)?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tid(s: &str) -> TargetId {
        TargetId::parse(s).unwrap()
    }

    #[test]
    fn target_ids_parse_and_print_in_llvm_order() {
        assert_eq!(
            tid("gfx942:xnack-:sramecc+").to_string(),
            "gfx942:sramecc+:xnack-"
        );
        assert_eq!(tid("gfx1201").to_string(), "gfx1201");
        assert_eq!(tid("gfx9-4-generic:xnack-").processor, "gfx9-4-generic");
        for bad in [
            "",
            "gfx942:",
            "gfx942:xnack",
            "gfx942:foo+",
            "gfx942:xnack+:xnack-",
            "gfx 942",
        ] {
            assert!(TargetId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn compatibility_follows_clang_target_id_rules() {
        let dev = tid("gfx942:sramecc+:xnack-");
        // Unnamed features in the code object match any device setting.
        assert!(tid("gfx942").is_compatible_with(&dev));
        assert!(tid("gfx942:xnack-").is_compatible_with(&dev));
        assert!(tid("gfx942:sramecc+:xnack-").is_compatible_with(&dev));
        // Named features must agree.
        assert!(!tid("gfx942:xnack+").is_compatible_with(&dev));
        assert!(!tid("gfx942:sramecc-").is_compatible_with(&dev));
        // A request that leaves a feature unnamed does not match an object that names it
        // (clang's isCompatibleTargetID: the requested map must hold the feature).
        assert!(!tid("gfx942:xnack-").is_compatible_with(&tid("gfx942")));
        assert!(!tid("gfx950").is_compatible_with(&tid("gfx942")));
    }

    /// A bundle in the documented layout, with the given entries.
    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut head = BUNDLE_MAGIC.to_vec();
        head.extend((entries.len() as u64).to_le_bytes());
        let hsize: usize = 32 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut off = hsize;
        let mut body = Vec::new();
        for (id, b) in entries {
            head.extend((off as u64).to_le_bytes());
            head.extend((b.len() as u64).to_le_bytes());
            head.extend((id.len() as u64).to_le_bytes());
            head.extend(id.as_bytes());
            body.extend_from_slice(b);
            off += b.len();
        }
        head.extend(body);
        head
    }

    #[test]
    fn picks_the_first_compatible_entry_and_lists_entries_otherwise() {
        let b = bundle(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx942:xnack+", b"A"),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", b"B"),
            ("hipv4-amdgcn-amd-amdhsa--gfx1201", b"C"),
        ]);
        let fb = Fatbin::parse(&b).unwrap();
        assert_eq!(fb.entries.len(), 4);
        let pick = |t: &str| fb.select(Some(&tid(t))).map(|e| e.bytes.clone());
        assert_eq!(pick("gfx942:sramecc+:xnack-").unwrap(), b"B");
        assert_eq!(pick("gfx942:xnack+").unwrap(), b"A");
        assert_eq!(pick("gfx1201").unwrap(), b"C");
        let err = pick("gfx950").unwrap_err().to_string();
        assert!(err.contains("no code object for target gfx950"), "{err}");
        assert!(err.contains("hipv4-amdgcn-amd-amdhsa--gfx1201"), "{err}");
        assert!(matches!(
            fb.select(None),
            Err(BundleError::NeedTarget { .. })
        ));
        // Generic targets, and entries whose target id does not parse (listed, never chosen).
        let b = bundle(&[
            ("hipv4-amdgcn-amd-amdhsa--gfx942:bogus+", b"A"),
            ("hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-", b"B"),
        ]);
        let fb = Fatbin::parse(&b).unwrap();
        assert_eq!(fb.entries[0].target, None);
        assert_eq!(fb.entries[1].target, Some(tid("gfx9-4-generic:xnack-")));
        assert!(fb.select(Some(&tid("gfx942:xnack-"))).is_err());
    }

    #[test]
    fn hostile_headers_are_errors() {
        let good = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"xyz")]);
        for cut in 0..good.len() {
            let _ = Fatbin::parse(&good[..cut]);
        }
        let mut huge = good.clone();
        huge[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&huge),
            Err(BundleError::BadEntry { .. })
        ));
        let mut off = good.clone();
        off[32..40].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&off),
            Err(BundleError::BadEntry { .. })
        ));
        let mut idl = good.clone();
        idl[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&idl),
            Err(BundleError::BadEntry { .. })
        ));
        let mut ccob = b"CCOB".to_vec();
        ccob.extend(3u16.to_le_bytes());
        ccob.extend(1u16.to_le_bytes());
        ccob.extend(1000u64.to_le_bytes());
        ccob.extend(10u64.to_le_bytes());
        ccob.extend(0u64.to_le_bytes());
        assert!(matches!(
            Fatbin::parse(&ccob),
            Err(BundleError::Truncated { .. })
        ));
        ccob[6] = 7;
        assert!(matches!(
            Fatbin::parse(&ccob),
            Err(BundleError::BadCompressedHeader { .. })
        ));
    }
}
