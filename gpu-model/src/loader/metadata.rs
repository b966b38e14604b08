//! The NT_AMDGPU_METADATA note: a msgpack map describing kernels and their arguments.

use super::{LoadError, Result};
use rmpv::Value;

/// How the dispatcher must fill an argument (`.value_kind`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum ValueKind {
    /// `by_value`: copied from the caller's bytes.
    ByValue,
    /// `global_buffer`: a device pointer.
    GlobalBuffer,
    /// `dynamic_shared_pointer`: an LDS offset of the dynamic allocation.
    DynamicSharedPointer,
    /// `sampler`.
    Sampler,
    /// `image`.
    Image,
    /// `pipe`.
    Pipe,
    /// `queue`.
    Queue,
    /// `hidden_global_offset_x`.
    HiddenGlobalOffsetX,
    /// `hidden_global_offset_y`.
    HiddenGlobalOffsetY,
    /// `hidden_global_offset_z`.
    HiddenGlobalOffsetZ,
    /// `hidden_none`: padding, filled with zeros.
    HiddenNone,
    /// `hidden_printf_buffer`.
    HiddenPrintfBuffer,
    /// `hidden_hostcall_buffer`.
    HiddenHostcallBuffer,
    /// `hidden_default_queue`.
    HiddenDefaultQueue,
    /// `hidden_completion_action`.
    HiddenCompletionAction,
    /// `hidden_multigrid_sync_arg`.
    HiddenMultigridSyncArg,
    /// `hidden_heap_v1`.
    HiddenHeapV1,
    /// `hidden_block_count_x`: workgroups in X.
    HiddenBlockCountX,
    /// `hidden_block_count_y`.
    HiddenBlockCountY,
    /// `hidden_block_count_z`.
    HiddenBlockCountZ,
    /// `hidden_group_size_x`: workgroup size in X.
    HiddenGroupSizeX,
    /// `hidden_group_size_y`.
    HiddenGroupSizeY,
    /// `hidden_group_size_z`.
    HiddenGroupSizeZ,
    /// `hidden_remainder_x`: size of the partial workgroup in X.
    HiddenRemainderX,
    /// `hidden_remainder_y`.
    HiddenRemainderY,
    /// `hidden_remainder_z`.
    HiddenRemainderZ,
    /// `hidden_grid_dims`.
    HiddenGridDims,
    /// `hidden_tool_correlation_id`.
    HiddenToolCorrelationId,
    /// `hidden_dynamic_lds_size`.
    HiddenDynamicLdsSize,
    /// `hidden_private_base`: the aperture base of private memory.
    HiddenPrivateBase,
    /// `hidden_shared_base`: the aperture base of LDS.
    HiddenSharedBase,
    /// `hidden_queue_ptr`.
    HiddenQueuePtr,
    /// A kind this loader does not know, kept verbatim.
    Unknown(String),
}

/// Every known value kind with its metadata spelling.
const VALUE_KINDS: &[(&str, ValueKind)] = &[
    ("by_value", ValueKind::ByValue),
    ("global_buffer", ValueKind::GlobalBuffer),
    ("dynamic_shared_pointer", ValueKind::DynamicSharedPointer),
    ("sampler", ValueKind::Sampler),
    ("image", ValueKind::Image),
    ("pipe", ValueKind::Pipe),
    ("queue", ValueKind::Queue),
    ("hidden_global_offset_x", ValueKind::HiddenGlobalOffsetX),
    ("hidden_global_offset_y", ValueKind::HiddenGlobalOffsetY),
    ("hidden_global_offset_z", ValueKind::HiddenGlobalOffsetZ),
    ("hidden_none", ValueKind::HiddenNone),
    ("hidden_printf_buffer", ValueKind::HiddenPrintfBuffer),
    ("hidden_hostcall_buffer", ValueKind::HiddenHostcallBuffer),
    ("hidden_default_queue", ValueKind::HiddenDefaultQueue),
    (
        "hidden_completion_action",
        ValueKind::HiddenCompletionAction,
    ),
    (
        "hidden_multigrid_sync_arg",
        ValueKind::HiddenMultigridSyncArg,
    ),
    ("hidden_heap_v1", ValueKind::HiddenHeapV1),
    ("hidden_block_count_x", ValueKind::HiddenBlockCountX),
    ("hidden_block_count_y", ValueKind::HiddenBlockCountY),
    ("hidden_block_count_z", ValueKind::HiddenBlockCountZ),
    ("hidden_group_size_x", ValueKind::HiddenGroupSizeX),
    ("hidden_group_size_y", ValueKind::HiddenGroupSizeY),
    ("hidden_group_size_z", ValueKind::HiddenGroupSizeZ),
    ("hidden_remainder_x", ValueKind::HiddenRemainderX),
    ("hidden_remainder_y", ValueKind::HiddenRemainderY),
    ("hidden_remainder_z", ValueKind::HiddenRemainderZ),
    ("hidden_grid_dims", ValueKind::HiddenGridDims),
    (
        "hidden_tool_correlation_id",
        ValueKind::HiddenToolCorrelationId,
    ),
    ("hidden_dynamic_lds_size", ValueKind::HiddenDynamicLdsSize),
    ("hidden_private_base", ValueKind::HiddenPrivateBase),
    ("hidden_shared_base", ValueKind::HiddenSharedBase),
    ("hidden_queue_ptr", ValueKind::HiddenQueuePtr),
];

impl ValueKind {
    /// Parses a `.value_kind` string; unknown kinds are kept as [`ValueKind::Unknown`].
    pub fn parse(s: &str) -> ValueKind {
        VALUE_KINDS
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, k)| k.clone())
            .unwrap_or_else(|| ValueKind::Unknown(s.to_string()))
    }

    /// The metadata spelling (`hidden_block_count_x`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            ValueKind::Unknown(s) => s,
            k => VALUE_KINDS
                .iter()
                .find(|(_, v)| v == k)
                .map(|(n, _)| *n)
                .unwrap_or("unknown"),
        }
    }

    /// Whether the dispatcher (not the caller) supplies this argument.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

/// `.address_space` of a pointer argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum AddressSpace {
    /// `private`.
    Private,
    /// `global`.
    Global,
    /// `constant`.
    Constant,
    /// `local` (LDS).
    Local,
    /// `generic` (flat).
    Generic,
    /// `region` (GDS).
    Region,
    /// Any other spelling, kept verbatim.
    Unknown(String),
}

impl AddressSpace {
    /// Parses an `.address_space` string.
    pub fn parse(s: &str) -> AddressSpace {
        match s {
            "private" => AddressSpace::Private,
            "global" => AddressSpace::Global,
            "constant" => AddressSpace::Constant,
            "local" => AddressSpace::Local,
            "generic" => AddressSpace::Generic,
            "region" => AddressSpace::Region,
            s => AddressSpace::Unknown(s.to_string()),
        }
    }

    /// The metadata spelling.
    pub fn as_str(&self) -> &str {
        match self {
            AddressSpace::Private => "private",
            AddressSpace::Global => "global",
            AddressSpace::Constant => "constant",
            AddressSpace::Local => "local",
            AddressSpace::Generic => "generic",
            AddressSpace::Region => "region",
            AddressSpace::Unknown(s) => s,
        }
    }
}

/// One kernel argument (`.args[i]`), explicit or hidden.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelArg {
    /// `.name`, if the producer kept names.
    pub name: Option<String>,
    /// `.type_name`, if present.
    pub type_name: Option<String>,
    /// `.size` in bytes.
    pub size: u32,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.value_kind`.
    pub value_kind: ValueKind,
    /// `.address_space`, for pointers.
    pub address_space: Option<AddressSpace>,
    /// `.pointee_align`, for dynamic shared pointers.
    pub pointee_align: Option<u32>,
    /// `.is_const`.
    pub is_const: bool,
}

/// One kernel's metadata (`amdhsa.kernels[i]`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelMetadata {
    /// `.name`.
    pub name: String,
    /// `.symbol` (the descriptor symbol, `<name>.kd`).
    pub symbol: String,
    /// `.args`, in metadata order.
    pub args: Vec<KernelArg>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: u32,
    /// `.kernarg_segment_align`.
    pub kernarg_segment_align: u32,
    /// `.group_segment_fixed_size` (static LDS bytes).
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size` (scratch bytes per work-item).
    pub private_segment_fixed_size: u32,
    /// `.wavefront_size`.
    pub wavefront_size: u32,
    /// `.sgpr_count`.
    pub sgpr_count: u32,
    /// `.vgpr_count`.
    pub vgpr_count: u32,
    /// `.agpr_count` (absent on targets without AGPRs: 0).
    pub agpr_count: u32,
    /// `.sgpr_spill_count`, if present.
    pub sgpr_spill_count: Option<u32>,
    /// `.vgpr_spill_count`, if present.
    pub vgpr_spill_count: Option<u32>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `.uses_dynamic_stack` (false when absent).
    pub uses_dynamic_stack: bool,
    /// `.reqd_workgroup_size`, if the source required one.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// `.language`, if present (`OpenCL C`, `HIP`, ...).
    pub language: Option<String>,
}

impl KernelMetadata {
    /// The explicit (caller-supplied) arguments.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.value_kind.is_hidden())
    }

    /// The hidden (dispatcher-supplied) arguments.
    pub fn hidden_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| a.value_kind.is_hidden())
    }
}

/// The decoded note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NoteMetadata {
    /// `amdhsa.version`.
    pub version: Option<(u64, u64)>,
    /// `amdhsa.target`.
    pub target: Option<String>,
    /// `amdhsa.kernels`.
    pub kernels: Vec<KernelMetadata>,
    /// `amdhsa.printf`, parsed.
    pub printf: Vec<PrintfFormat>,
}

/// One entry of `amdhsa.printf`: a format string that buffered printf records name.
///
/// Two producers write this list (measured with clang-22, see `service/printf_buffer.rs`):
/// * LLVM's printf runtime binding (OpenCL `printf`): `ID:N:S1:...:SN:FORMAT`, the id the
///   record starts with, the byte size of each of the N arguments, and the format with its
///   C escapes still written out (`\n` is a backslash and an `n`).
/// * clang's buffered printf for HIP (`-mprintf-kind=buffered`): `0:0:HASH,FORMAT`, the
///   low 64 bits of the format's MD5 in hexadecimal and the format as is. A module that
///   prints with a non-constant format lists `0:0:ffffffff,"Non const format string"`;
///   its records carry the format themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrintfFormat {
    /// An OpenCL-style entry.
    Numbered {
        /// The id the record's first word holds.
        id: u32,
        /// The byte size of each argument in the record, in order.
        arg_sizes: Vec<u32>,
        /// The format, escapes resolved.
        format: Vec<u8>,
    },
    /// A HIP buffered-printf entry.
    Hashed {
        /// The hash the record holds after its control word.
        hash: u64,
        /// The format.
        format: Vec<u8>,
    },
}

impl PrintfFormat {
    /// Parses one `amdhsa.printf` string; the error says what is wrong with it.
    pub fn parse(s: &str) -> std::result::Result<PrintfFormat, String> {
        if let Some(rest) = s.strip_prefix("0:0:") {
            let (hash, format) = rest
                .split_once(',')
                .ok_or("`0:0:` entry without `,` after its hash")?;
            let hash = u64::from_str_radix(hash, 16)
                .map_err(|_| format!("hash `{hash}` is not hexadecimal"))?;
            return Ok(PrintfFormat::Hashed {
                hash,
                format: format.as_bytes().to_vec(),
            });
        }
        let mut fields = s.splitn(3, ':');
        let (Some(id), Some(n), Some(mut rest)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err("expected `ID:N:SIZES...:FORMAT`".into());
        };
        let id: u32 = id
            .parse()
            .map_err(|_| format!("id `{id}` is not a number"))?;
        let n: usize = n
            .parse()
            .map_err(|_| format!("argument count `{n}` is not a number"))?;
        if n > rest.len() / 2 {
            return Err(format!("{n} arguments do not fit the entry"));
        }
        let mut arg_sizes = Vec::with_capacity(n);
        for i in 0..n {
            let (size, tail) = rest
                .split_once(':')
                .ok_or_else(|| format!("argument {i} has no size"))?;
            let size = size
                .parse()
                .map_err(|_| format!("argument {i}'s size `{size}` is not a number"))?;
            arg_sizes.push(size);
            rest = tail;
        }
        Ok(PrintfFormat::Numbered {
            id,
            arg_sizes,
            format: unescape(rest.as_bytes()),
        })
    }

    /// The format string.
    pub fn format(&self) -> &[u8] {
        match self {
            PrintfFormat::Numbered { format, .. } | PrintfFormat::Hashed { format, .. } => format,
        }
    }
}

/// Resolves the C escapes the printf runtime binding writes out (`\n`, `\t`, octal...),
/// as the OpenCL runtime does before printing.
fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' || i + 1 == s.len() {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let c = s[i + 1];
        i += 2;
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'0'..=b'7' => {
                // Up to three octal digits.
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            other => other,
        });
    }
    out
}

/// Nesting the metadata never needs more of; bounds recursion on hostile input.
const MAX_DEPTH: usize = 32;

/// Builds a metadata error at `path`.
fn bad(path: &str, reason: impl Into<String>) -> LoadError {
    LoadError::BadMetadata {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Decodes the note's msgpack descriptor.
pub(super) fn parse_note(desc: &[u8]) -> Result<NoteMetadata> {
    let mut rd = desc;
    let root = rmpv::decode::read_value_with_max_depth(&mut rd, MAX_DEPTH)
        .map_err(|e| bad("(root)", format!("invalid msgpack: {e}")))?;
    let root = Map::new(&root, "(root)")?;
    let version = match root.get("amdhsa.version") {
        None => None,
        Some(v) => {
            let a = v
                .as_array()
                .filter(|a| a.len() >= 2)
                .ok_or_else(|| bad("amdhsa.version", "expected [major, minor]"))?;
            let n = |i: usize| {
                a[i].as_u64().ok_or_else(|| {
                    bad(
                        &format!("amdhsa.version[{i}]"),
                        "expected an unsigned integer",
                    )
                })
            };
            Some((n(0)?, n(1)?))
        }
    };
    let target = root.opt_str("amdhsa.target")?;
    let mut kernels = Vec::new();
    if let Some(list) = root.get("amdhsa.kernels") {
        let list = list
            .as_array()
            .ok_or_else(|| bad("amdhsa.kernels", "expected an array"))?;
        for (i, k) in list.iter().enumerate() {
            kernels.push(parse_kernel(k, &format!("amdhsa.kernels[{i}]"))?);
        }
    }
    let mut printf = Vec::new();
    if let Some(list) = root.get("amdhsa.printf") {
        let list = list
            .as_array()
            .ok_or_else(|| bad("amdhsa.printf", "expected an array of strings"))?;
        for (i, v) in list.iter().enumerate() {
            let path = format!("amdhsa.printf[{i}]");
            let s = v
                .as_str()
                .ok_or_else(|| bad(&path, "expected a utf-8 string"))?;
            printf.push(PrintfFormat::parse(s).map_err(|e| bad(&path, e))?);
        }
    }
    Ok(NoteMetadata {
        version,
        target,
        kernels,
        printf,
    })
}

/// A msgpack map with typed getters that produce path-naming errors.
struct Map<'a> {
    entries: &'a [(Value, Value)],
    path: &'a str,
}

impl<'a> Map<'a> {
    fn new(v: &'a Value, path: &'a str) -> Result<Map<'a>> {
        match v {
            Value::Map(entries) => Ok(Map { entries, path }),
            _ => Err(bad(path, "expected a map")),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    fn field(&self, key: &str) -> String {
        format!("{}.{}", self.path, key.trim_start_matches('.'))
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| bad(&self.field(key), "expected a utf-8 string")),
        }
    }

    fn req_str(&self, key: &str) -> Result<String> {
        self.opt_str(key)?
            .ok_or_else(|| bad(&self.field(key), "required field is missing"))
    }

    fn opt_u32(&self, key: &str) -> Result<Option<u32>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    bad(
                        &self.field(key),
                        format!("expected a 32-bit unsigned integer, found {v}"),
                    )
                }),
        }
    }

    fn req_u32(&self, key: &str) -> Result<u32> {
        self.opt_u32(key)?
            .ok_or_else(|| bad(&self.field(key), "required field is missing"))
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            // LLVM writes booleans, some producers write 0/1.
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => match v.as_u64() {
                Some(n @ (0 | 1)) => Ok(Some(n == 1)),
                _ => Err(bad(
                    &self.field(key),
                    format!("expected a boolean, found {v}"),
                )),
            },
        }
    }
}

/// Decodes one `amdhsa.kernels[i]` map.
fn parse_kernel(v: &Value, path: &str) -> Result<KernelMetadata> {
    let m = Map::new(v, path)?;
    let mut args = Vec::new();
    if let Some(list) = m.get(".args") {
        let list = list
            .as_array()
            .ok_or_else(|| bad(&m.field(".args"), "expected an array"))?;
        for (i, a) in list.iter().enumerate() {
            let apath = format!("{path}.args[{i}]");
            let am = Map::new(a, &apath)?;
            args.push(KernelArg {
                name: am.opt_str(".name")?,
                type_name: am.opt_str(".type_name")?,
                size: am.req_u32(".size")?,
                offset: am.req_u32(".offset")?,
                value_kind: ValueKind::parse(&am.req_str(".value_kind")?),
                address_space: am
                    .opt_str(".address_space")?
                    .map(|s| AddressSpace::parse(&s)),
                pointee_align: am.opt_u32(".pointee_align")?,
                is_const: am.opt_bool(".is_const")?.unwrap_or(false),
            });
        }
    }
    let reqd_workgroup_size = match m.get(".reqd_workgroup_size") {
        None => None,
        Some(v) => {
            let f = m.field(".reqd_workgroup_size");
            let a = v
                .as_array()
                .filter(|a| a.len() == 3)
                .ok_or_else(|| bad(&f, "expected [x, y, z]"))?;
            let mut out = [0u32; 3];
            for (o, x) in out.iter_mut().zip(a) {
                *o = x
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(&f, "expected unsigned integers"))?;
            }
            Some(out)
        }
    };
    Ok(KernelMetadata {
        name: m.req_str(".name")?,
        symbol: m.req_str(".symbol")?,
        args,
        kernarg_segment_size: m.req_u32(".kernarg_segment_size")?,
        kernarg_segment_align: m.req_u32(".kernarg_segment_align")?,
        group_segment_fixed_size: m.req_u32(".group_segment_fixed_size")?,
        private_segment_fixed_size: m.req_u32(".private_segment_fixed_size")?,
        wavefront_size: m.req_u32(".wavefront_size")?,
        sgpr_count: m.req_u32(".sgpr_count")?,
        vgpr_count: m.req_u32(".vgpr_count")?,
        agpr_count: m.opt_u32(".agpr_count")?.unwrap_or(0),
        sgpr_spill_count: m.opt_u32(".sgpr_spill_count")?,
        vgpr_spill_count: m.opt_u32(".vgpr_spill_count")?,
        max_flat_workgroup_size: m.req_u32(".max_flat_workgroup_size")?,
        uses_dynamic_stack: m.opt_bool(".uses_dynamic_stack")?.unwrap_or(false),
        reqd_workgroup_size,
        language: m.opt_str(".language")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_kinds_round_trip_and_unknown_kinds_are_kept() {
        for (name, kind) in VALUE_KINDS {
            assert_eq!(ValueKind::parse(name), *kind);
            assert_eq!(kind.as_str(), *name);
        }
        let k = ValueKind::parse("hidden_future_thing");
        assert_eq!(k, ValueKind::Unknown("hidden_future_thing".into()));
        assert!(k.is_hidden());
        assert!(!ValueKind::GlobalBuffer.is_hidden());
    }

    #[test]
    fn missing_required_field_names_its_path() {
        let v = Value::Map(vec![(
            Value::from("amdhsa.kernels"),
            Value::Array(vec![Value::Map(vec![(
                Value::from(".name"),
                Value::from("k"),
            )])]),
        )]);
        let mut buf = Vec::new();
        rmpv::encode::write_value(&mut buf, &v).unwrap();
        let e = parse_note(&buf).unwrap_err().to_string();
        assert_eq!(
            e,
            "metadata amdhsa.kernels[0].symbol: required field is missing"
        );
    }
}
