//! The ELF layer: header checks, e_flags, segments, symbols, notes and relocations.

use super::descriptor::{KernelDescriptor, KERNEL_DESCRIPTOR_SIZE};
use super::metadata::{self, NoteMetadata};
use super::{CodeObject, Kernel, KernelMetadata, LoadError, Result};
use crate::Target;
use goblin::elf::{program_header as ph, section_header as sh, Elf};

/// `e_machine` of AMDGPU code objects.
pub const EM_AMDGPU: u16 = 224;
/// `EI_OSABI` of AMDGPU HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// Note type of the msgpack metadata note (name "AMDGPU").
pub(super) const NT_AMDGPU_METADATA: u32 = 32;
/// Largest image (sum of segment extents) the loader accepts: bigger is a corrupt header.
const MAX_IMAGE_SIZE: u64 = 1 << 32;

/// An XNACK or SRAMECC setting, of a code object (from `e_flags`) or of a device.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, Default,
)]
pub enum FeatureMode {
    /// The target does not have the feature (gfx12), or the object does not say.
    #[default]
    Unsupported,
    /// Built to run with the feature on or off.
    Any,
    /// Built for the feature off (`xnack-`).
    Off,
    /// Built for the feature on (`xnack+`).
    On,
}

impl FeatureMode {
    /// Decodes the two-bit field of `e_flags` (v4+ layout).
    pub const fn from_bits(bits: u32) -> FeatureMode {
        match bits & 3 {
            0 => FeatureMode::Unsupported,
            1 => FeatureMode::Any,
            2 => FeatureMode::Off,
            _ => FeatureMode::On,
        }
    }

    /// The two-bit `e_flags` encoding.
    pub const fn bits(self) -> u32 {
        match self {
            FeatureMode::Unsupported => 0,
            FeatureMode::Any => 1,
            FeatureMode::Off => 2,
            FeatureMode::On => 3,
        }
    }
}

/// A PT_LOAD segment: bytes to place at `vaddr` (relative to the load base).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Virtual address relative to the load base.
    pub vaddr: u64,
    /// Size in memory; bytes past `data.len()` are zero (`.bss`, `.relro_padding`).
    pub mem_size: u64,
    /// File offset the data came from.
    pub file_offset: u64,
    /// The file bytes (`p_filesz` of them).
    pub data: Vec<u8>,
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
    /// Executable.
    pub execute: bool,
    /// `p_align`.
    pub align: u64,
}

/// The loadable image of a code object: its PT_LOAD segments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadImage {
    /// The segments, in program header order.
    pub segments: Vec<Segment>,
    /// Bytes of device memory the image needs from the load base: the end of the
    /// highest segment.
    pub load_size: u64,
    /// The alignment the load base needs (largest `p_align`, at least 256).
    pub align: u64,
}

impl LoadImage {
    /// Reads `out.len()` bytes at image address `addr` (zeros past a segment's file data).
    /// Returns `None` unless the range lies within one segment.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Option<()> {
        let end = addr.checked_add(out.len() as u64)?;
        let seg = self
            .segments
            .iter()
            .find(|s| addr >= s.vaddr && end <= s.vaddr.saturating_add(s.mem_size))?;
        let start = (addr - seg.vaddr) as usize;
        for (i, b) in out.iter_mut().enumerate() {
            *b = seg.data.get(start + i).copied().unwrap_or(0);
        }
        Some(())
    }

    /// The segment containing image address `addr`, if any.
    pub fn segment_at(&self, addr: u64) -> Option<&Segment> {
        self.segments
            .iter()
            .find(|s| addr >= s.vaddr && addr < s.vaddr.saturating_add(s.mem_size))
    }
}

/// The ELF symbol type, as far as the simulator cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// STT_NOTYPE (labels in hand-written assembly).
    NoType,
    /// STT_OBJECT (data, kernel descriptors).
    Object,
    /// STT_FUNC (kernels and functions).
    Func,
    /// STT_SECTION.
    Section,
    /// STT_FILE.
    File,
    /// Any other type.
    Other(u8),
}

/// A symbol of the code object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name.
    pub name: String,
    /// The value: an image address for defined symbols, the value itself for ABS ones.
    pub address: u64,
    /// `st_size`.
    pub size: u64,
    /// The type.
    pub kind: SymbolKind,
    /// Whether it is defined in this object (`st_shndx != SHN_UNDEF`).
    pub defined: bool,
    /// Whether it is absolute (`st_shndx == SHN_ABS`): its value is not an address.
    pub absolute: bool,
    /// Whether binding is global or weak (not local).
    pub global: bool,
}

/// The kind of a dynamic relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelocKind {
    /// R_AMDGPU_ABS64 (3): S + A.
    Abs64,
    /// R_AMDGPU_RELATIVE64 (13): B + A.
    Relative64,
    /// Any other type, kept so that mapping the image can refuse it by number.
    Other(u32),
}

impl RelocKind {
    /// Classifies an `r_type`.
    pub const fn from_type(r_type: u32) -> RelocKind {
        match r_type {
            3 => RelocKind::Abs64,
            13 => RelocKind::Relative64,
            t => RelocKind::Other(t),
        }
    }
}

/// A dynamic relocation (from `.rela.dyn` / `.rel.dyn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynReloc {
    /// Image address to patch.
    pub offset: u64,
    /// The type.
    pub kind: RelocKind,
    /// The addend (0 for REL entries without one).
    pub addend: i64,
    /// The symbol's name (empty when `r_sym` is 0).
    pub symbol: String,
    /// The symbol's value (image address), when it is defined in this object.
    pub symbol_value: Option<u64>,
}

/// Reads a little-endian integer of `N` bytes at `offset`, or a [`LoadError::Truncated`].
fn read_le<const N: usize>(bytes: &[u8], offset: usize, what: &'static str) -> Result<[u8; N]> {
    bytes
        .get(offset..offset.saturating_add(N))
        .and_then(|s| s.try_into().ok())
        .ok_or(LoadError::Truncated {
            what,
            offset: offset as u64,
            end: offset as u64 + N as u64,
            len: bytes.len() as u64,
        })
}

/// Name of an EF_AMDGPU_MACH value that is not a supported target, for error messages.
fn mach_name(mach: u32) -> String {
    let known = match mach {
        0x051 => "gfx9-generic",
        0x052 => "gfx10-1-generic",
        0x053 => "gfx10-3-generic",
        0x054 => "gfx11-generic",
        0x059 => "gfx12-generic",
        0x05f => "gfx9-4-generic",
        0x040 => "gfx940",
        0x04b => "gfx941",
        0x041 => "gfx1100",
        0x030 => "gfx908",
        0x02c => "gfx906",
        0x036 => "gfx1030",
        _ => "",
    };
    if known.is_empty() {
        format!("mach {mach:#x}")
    } else {
        known.to_string()
    }
}

/// Checks the ELF identification and header fields before handing the file to goblin,
/// so that a wrong file is refused with a precise message. Returns (version, e_flags).
fn check_header(bytes: &[u8]) -> Result<(u8, u32)> {
    let ident: [u8; 16] = read_le(bytes, 0, "elf identification")?;
    // The rest of the 64-byte ELF64 header must be there too.
    read_le::<48>(bytes, 16, "elf64 header")?;
    if ident[0..4] != *b"\x7fELF" {
        return Err(LoadError::BadHeader {
            field: "EI_MAG",
            offset: 0,
            found: u32::from_le_bytes([ident[0], ident[1], ident[2], ident[3]]) as u64,
            expected: "\\x7fELF",
        });
    }
    let field = |field, offset: usize, found: u64, expected| {
        Err(LoadError::BadHeader {
            field,
            offset: offset as u64,
            found,
            expected,
        })
    };
    if ident[4] != 2 {
        return field("EI_CLASS", 4, ident[4] as u64, "2 (ELFCLASS64)");
    }
    if ident[5] != 1 {
        return field("EI_DATA", 5, ident[5] as u64, "1 (little endian)");
    }
    if ident[7] != ELFOSABI_AMDGPU_HSA {
        return field("EI_OSABI", 7, ident[7] as u64, "64 (ELFOSABI_AMDGPU_HSA)");
    }
    let version = match ident[8] {
        2 => 4,
        3 => 5,
        4 => 6,
        v => {
            return field(
                "EI_ABIVERSION",
                8,
                v as u64,
                "2, 3 or 4 (code object v4, v5 or v6)",
            )
        }
    };
    let e_type = u16::from_le_bytes(read_le(bytes, 16, "e_type")?);
    if e_type != 3 {
        return field("e_type", 16, e_type as u64, "3 (ET_DYN)");
    }
    let e_machine = u16::from_le_bytes(read_le(bytes, 18, "e_machine")?);
    if e_machine != EM_AMDGPU {
        return field("e_machine", 18, e_machine as u64, "224 (EM_AMDGPU)");
    }
    let e_flags = u32::from_le_bytes(read_le(bytes, 48, "e_flags")?);
    Ok((version, e_flags))
}

/// Parses a whole code object (see [`CodeObject::parse`]).
pub(super) fn parse(bytes: &[u8]) -> Result<CodeObject> {
    let (version, e_flags) = check_header(bytes)?;
    let mach = e_flags & 0xff;
    let target = Target::from_elf_mach(mach).ok_or_else(|| LoadError::UnsupportedProcessor {
        e_flags,
        name: mach_name(mach),
    })?;
    let xnack = FeatureMode::from_bits(e_flags >> 8);
    let sramecc = FeatureMode::from_bits(e_flags >> 10);
    let generic_version = match (version, (e_flags >> 24) as u8) {
        (6, g) if g != 0 => Some(g),
        _ => None,
    };

    let elf = Elf::parse(bytes).map_err(|e| LoadError::Elf(e.to_string()))?;
    let image = load_image(&elf, bytes)?;
    let (text, text_address) = text_section(&elf, bytes, &image)?;
    let symbols = symbols(&elf)?;
    let relocations = relocations(&elf)?;
    let note = metadata_note(&elf, bytes)?;

    if let Some(t) = note.as_ref().and_then(|n| n.target.as_deref()) {
        check_metadata_target(t, target)?;
    }
    let kernels = kernels(&symbols, &image, note.as_ref())?;
    let sidecars = sidecars(&elf, bytes, &image, &kernels)?;
    Ok(CodeObject {
        target,
        xnack,
        sramecc,
        version,
        generic_version,
        e_flags,
        image,
        text,
        text_address,
        symbols,
        relocations,
        metadata_target: note.as_ref().and_then(|n| n.target.clone()),
        metadata_version: note.as_ref().and_then(|n| n.version),
        kernels,
        printf: note.map(|n| n.printf).unwrap_or_default().into(),
        sidecars,
    })
}

/// The records of the virtual-LDS section ([`super::VIRTUAL_LDS_SECTION`]), each checked:
/// the normal descriptor is a kernel's, the sidecar's is 64-byte aligned inside the image
/// with its entry in an executable segment.
fn sidecars(
    elf: &Elf<'_>,
    bytes: &[u8],
    image: &LoadImage,
    kernels: &[Kernel],
) -> Result<Vec<super::VirtualLdsSidecar>> {
    let mut out = Vec::new();
    for (index, s) in elf.section_headers.iter().enumerate() {
        if elf.shdr_strtab.get_at(s.sh_name) != Some(super::VIRTUAL_LDS_SECTION) {
            continue;
        }
        let bad = |reason: String| LoadError::BadTable {
            what: "section",
            index,
            offset: elf.header.e_shoff + index as u64 * 64,
            reason,
        };
        let data = s
            .sh_offset
            .checked_add(s.sh_size)
            .and_then(|e| bytes.get(s.sh_offset as usize..e as usize))
            .ok_or_else(|| bad("virtual-LDS records run past the file".into()))?;
        let n = super::VIRTUAL_LDS_RECORD_BYTES;
        if !data.len().is_multiple_of(n) {
            return Err(bad(format!(
                "virtual-LDS section of {} bytes is not whole {n}-byte records",
                data.len()
            )));
        }
        for r in data.chunks_exact(n) {
            let u64_at = |o: usize| u64::from_le_bytes(r[o..o + 8].try_into().unwrap_or([0; 8]));
            let u32_at = |o: usize| u32::from_le_bytes(r[o..o + 4].try_into().unwrap_or([0; 4]));
            let (normal, kd) = (u64_at(0), u64_at(8));
            if !kernels.iter().any(|k| k.descriptor_address == normal) {
                return Err(bad(format!(
                    "virtual-LDS record names {normal:#x}, which is no kernel's descriptor"
                )));
            }
            let mut raw = [0u8; KERNEL_DESCRIPTOR_SIZE];
            if !kd.is_multiple_of(64) || image.read(kd, &mut raw).is_none() {
                return Err(bad(format!(
                    "sidecar descriptor {kd:#x} is not 64-byte aligned inside the image"
                )));
            }
            let descriptor = KernelDescriptor::from_bytes(&raw);
            let entry_ok = kd
                .checked_add_signed(descriptor.kernel_code_entry_byte_offset)
                .and_then(|e| image.segment_at(e))
                .is_some_and(|s| s.execute);
            if !entry_ok {
                return Err(bad(format!(
                    "sidecar descriptor {kd:#x}: its entry is not in an executable segment"
                )));
            }
            out.push(super::VirtualLdsSidecar {
                normal,
                descriptor_address: kd,
                descriptor,
                state_offset: u32_at(16),
                lds_limit: u32_at(20),
            });
        }
    }
    Ok(out)
}

/// Collects and checks the PT_LOAD segments.
fn load_image(elf: &Elf<'_>, bytes: &[u8]) -> Result<LoadImage> {
    let phoff = elf.header.e_phoff;
    let phentsize = elf.header.e_phentsize as u64;
    let mut image = LoadImage {
        align: 256,
        ..LoadImage::default()
    };
    for (index, p) in elf.program_headers.iter().enumerate() {
        if p.p_type != ph::PT_LOAD {
            continue;
        }
        let bad = |reason: String| LoadError::BadTable {
            what: "program header",
            index,
            offset: phoff.saturating_add(phentsize.saturating_mul(index as u64)),
            reason,
        };
        let data = p
            .p_offset
            .checked_add(p.p_filesz)
            .and_then(|end| bytes.get(p.p_offset as usize..end as usize))
            .ok_or_else(|| {
                bad(format!(
                    "PT_LOAD file range {:#x}+{:#x} is outside the file ({} bytes)",
                    p.p_offset,
                    p.p_filesz,
                    bytes.len()
                ))
            })?;
        if p.p_filesz > p.p_memsz {
            return Err(bad(format!(
                "p_filesz {:#x} exceeds p_memsz {:#x}",
                p.p_filesz, p.p_memsz
            )));
        }
        let end = p
            .p_vaddr
            .checked_add(p.p_memsz)
            .filter(|&e| e <= MAX_IMAGE_SIZE)
            .ok_or_else(|| {
                bad(format!(
                    "segment {:#x}+{:#x} ends beyond the {MAX_IMAGE_SIZE:#x}-byte image limit",
                    p.p_vaddr, p.p_memsz
                ))
            })?;
        if p.p_align > 1 && !p.p_align.is_power_of_two() {
            return Err(bad(format!(
                "p_align {:#x} is not a power of two",
                p.p_align
            )));
        }
        if let Some(other) = image
            .segments
            .iter()
            .find(|s| p.p_vaddr < s.vaddr + s.mem_size && s.vaddr < end)
        {
            return Err(bad(format!(
                "segment {:#x}..{end:#x} overlaps the segment at {:#x}",
                p.p_vaddr, other.vaddr
            )));
        }
        image.load_size = image.load_size.max(end);
        image.align = image.align.max(p.p_align.min(MAX_IMAGE_SIZE));
        image.segments.push(Segment {
            vaddr: p.p_vaddr,
            mem_size: p.p_memsz,
            file_offset: p.p_offset,
            data: data.to_vec(),
            read: p.p_flags & ph::PF_R != 0,
            write: p.p_flags & ph::PF_W != 0,
            execute: p.p_flags & ph::PF_X != 0,
            align: p.p_align,
        });
    }
    if image.segments.is_empty() {
        return Err(LoadError::Elf("no PT_LOAD segment".into()));
    }
    Ok(image)
}

/// Finds the `.text` section (or, without section headers, the executable segment).
fn text_section(elf: &Elf<'_>, bytes: &[u8], image: &LoadImage) -> Result<(Vec<u8>, u64)> {
    let shoff = elf.header.e_shoff;
    let shentsize = elf.header.e_shentsize as u64;
    for (index, s) in elf.section_headers.iter().enumerate() {
        if elf.shdr_strtab.get_at(s.sh_name) != Some(".text") {
            continue;
        }
        let bad = |reason: String| LoadError::BadTable {
            what: "section",
            index,
            offset: shoff.saturating_add(shentsize.saturating_mul(index as u64)),
            reason,
        };
        if s.sh_type != sh::SHT_PROGBITS {
            return Err(bad(format!(".text has type {}, not PROGBITS", s.sh_type)));
        }
        let data = s
            .sh_offset
            .checked_add(s.sh_size)
            .and_then(|end| bytes.get(s.sh_offset as usize..end as usize))
            .ok_or_else(|| {
                bad(format!(
                    ".text file range {:#x}+{:#x} is outside the file ({} bytes)",
                    s.sh_offset,
                    s.sh_size,
                    bytes.len()
                ))
            })?;
        return Ok((data.to_vec(), s.sh_addr));
    }
    match image.segments.iter().find(|s| s.execute) {
        Some(seg) => Ok((seg.data.clone(), seg.vaddr)),
        None => Ok((Vec::new(), 0)),
    }
}

/// Reads the symbol table: `.symtab` when present, else `.dynsym`.
fn symbols(elf: &Elf<'_>) -> Result<Vec<Symbol>> {
    let (table, strtab) = if !elf.syms.is_empty() {
        (&elf.syms, &elf.strtab)
    } else {
        (&elf.dynsyms, &elf.dynstrtab)
    };
    let mut out = Vec::with_capacity(table.len());
    for (index, s) in table.iter().enumerate() {
        if index == 0 {
            continue; // the null symbol
        }
        let name = strtab
            .get_at(s.st_name)
            .ok_or_else(|| LoadError::BadSymbol {
                index,
                reason: format!(
                    "name offset {:#x} is outside the string table or not valid utf-8",
                    s.st_name
                ),
            })?;
        out.push(Symbol {
            name: name.to_string(),
            address: s.st_value,
            size: s.st_size,
            kind: match s.st_type() {
                0 => SymbolKind::NoType,
                1 => SymbolKind::Object,
                2 => SymbolKind::Func,
                3 => SymbolKind::Section,
                4 => SymbolKind::File,
                t => SymbolKind::Other(t),
            },
            defined: s.st_shndx != 0,
            absolute: s.st_shndx == sh::SHN_ABS as usize,
            global: s.st_bind() != 0,
        });
    }
    Ok(out)
}

/// Reads the dynamic relocations (RELA and REL), resolving symbols through `.dynsym`.
fn relocations(elf: &Elf<'_>) -> Result<Vec<DynReloc>> {
    let mut out = Vec::new();
    for r in elf.dynrelas.iter().chain(elf.dynrels.iter()) {
        let (symbol, symbol_value) = if r.r_sym == 0 {
            (String::new(), None)
        } else {
            let s = elf.dynsyms.get(r.r_sym).ok_or_else(|| {
                LoadError::Elf(format!(
                    "relocation at {:#x} names symbol {}, beyond .dynsym ({} entries)",
                    r.r_offset,
                    r.r_sym,
                    elf.dynsyms.len()
                ))
            })?;
            let name = elf.dynstrtab.get_at(s.st_name).unwrap_or("").to_string();
            (name, (s.st_shndx != 0).then_some(s.st_value))
        };
        out.push(DynReloc {
            offset: r.r_offset,
            kind: RelocKind::from_type(r.r_type),
            addend: r.r_addend.unwrap_or(0),
            symbol,
            symbol_value,
        });
    }
    Ok(out)
}

/// Finds the NT_AMDGPU_METADATA note (in PT_NOTE segments, else SHT_NOTE sections) and
/// decodes it. Notes are walked by hand: goblin's note iterator divides by `p_align`.
fn metadata_note(elf: &Elf<'_>, bytes: &[u8]) -> Result<Option<NoteMetadata>> {
    let mut ranges: Vec<(u64, u64)> = elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == ph::PT_NOTE)
        .map(|p| (p.p_offset, p.p_filesz))
        .collect();
    if ranges.is_empty() {
        ranges = elf
            .section_headers
            .iter()
            .filter(|s| s.sh_type == sh::SHT_NOTE)
            .map(|s| (s.sh_offset, s.sh_size))
            .collect();
    }
    for (offset, size) in ranges {
        let data = offset
            .checked_add(size)
            .and_then(|end| bytes.get(offset as usize..end as usize))
            .ok_or_else(|| LoadError::BadNote {
                offset,
                reason: format!(
                    "note range {offset:#x}+{size:#x} is outside the file ({} bytes)",
                    bytes.len()
                ),
            })?;
        if let Some(desc) = find_note(data, offset)? {
            return metadata::parse_note(desc).map(Some);
        }
    }
    Ok(None)
}

/// Walks the notes in `data` (which starts at file offset `base`) and returns the
/// descriptor of the first "AMDGPU" NT_AMDGPU_METADATA note.
fn find_note(data: &[u8], base: u64) -> Result<Option<&[u8]>> {
    Ok(find_note_range(data, base)?.map(|r| &data[r.desc_start..r.desc_end]))
}

/// Where the metadata note sits inside a note segment: byte offsets into its data.
#[derive(Debug, Clone, Copy)]
pub(super) struct NoteRange {
    /// The note header (namesz, descsz, type).
    pub(super) start: usize,
    /// The first descriptor byte.
    pub(super) desc_start: usize,
    /// One past the last descriptor byte.
    pub(super) desc_end: usize,
}

/// Like [`find_note`], but says where the note is (for the code-object writer).
pub(super) fn find_note_range(data: &[u8], base: u64) -> Result<Option<NoteRange>> {
    let mut pos = 0usize;
    while pos < data.len() {
        let at = base + pos as u64;
        let bad = |reason: String| LoadError::BadNote { offset: at, reason };
        let word = |o: usize| {
            data.get(pos + o..pos + o + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
                .ok_or_else(|| bad("note header runs past the end of the note segment".into()))
        };
        let (namesz, descsz, n_type) = (word(0)?, word(4)?, word(8)? as u32);
        let name_start = pos + 12;
        let desc_start = name_start
            .checked_add(namesz.next_multiple_of(4))
            .ok_or_else(|| bad(format!("name size {namesz:#x} overflows")))?;
        let desc_end = desc_start
            .checked_add(descsz)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                bad(format!(
                    "name size {namesz:#x} and descriptor size {descsz:#x} run past the end of the note segment ({:#x} bytes)",
                    data.len()
                ))
            })?;
        let name = &data[name_start..name_start + namesz];
        if name == b"AMDGPU\0" && n_type == NT_AMDGPU_METADATA {
            return Ok(Some(NoteRange {
                start: pos,
                desc_start,
                desc_end,
            }));
        }
        pos = desc_end.next_multiple_of(4);
    }
    Ok(None)
}

/// The processor of an `amdhsa.target` string. The string is a target triple of four
/// components (`arch-vendor-os-environment`, the environment often empty) followed by the
/// target ID (`processor[:feature+|-]...`; LLVM AMDGPUUsage, "Target Triple" and "Target
/// ID"): clang writes `amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-`, Triton 3.9 writes
/// `amdgcn-amd-amdhsa-unknown-gfx942` and names the architecture by version on newer
/// LLVMs (`amdgpu9.42-amd-amdhsa-unknown-gfx942`). Features may contain `-` (`xnack-`),
/// so only the first four `-` separate components.
fn metadata_processor(target_str: &str) -> &str {
    let mut parts = target_str.splitn(5, '-');
    let id = parts.nth(4).unwrap_or("");
    id.split(':').next().unwrap_or("")
}

/// Checks that `amdhsa.target` names the same processor as `e_flags`.
fn check_metadata_target(target_str: &str, target: Target) -> Result<()> {
    let processor = metadata_processor(target_str);
    if processor != target.name() {
        return Err(LoadError::BadMetadata {
            path: "amdhsa.target".into(),
            reason: format!(
                "`{target_str}` names processor `{processor}` but e_flags says {target}"
            ),
        });
    }
    Ok(())
}

/// Finds each kernel's descriptor through its `.kd` symbol and decodes it.
fn kernels(
    symbols: &[Symbol],
    image: &LoadImage,
    note: Option<&NoteMetadata>,
) -> Result<Vec<Kernel>> {
    let mut out: Vec<Kernel> = Vec::new();
    let kd_symbol = |name: &str| {
        symbols
            .iter()
            .find(|s| s.name == name && s.defined && !s.absolute)
    };
    if let Some(note) = note {
        for (i, m) in note.kernels.iter().enumerate() {
            let sym = kd_symbol(&m.symbol).ok_or_else(|| LoadError::BadMetadata {
                path: format!("amdhsa.kernels[{i}].symbol"),
                reason: format!(
                    "kernel `{}` names descriptor symbol `{}`, which the object does not define",
                    m.name, m.symbol
                ),
            })?;
            out.push(kernel(&m.name, sym, Some(m), image)?);
        }
    }
    // Descriptors without a metadata entry (assembly linked without `.amdgpu_metadata`).
    for sym in symbols.iter().filter(|s| s.defined && !s.absolute) {
        let Some(name) = sym.name.strip_suffix(".kd") else {
            continue;
        };
        let described = note.is_some_and(|n| n.kernels.iter().any(|m| m.symbol == sym.name));
        if !described && !out.iter().any(|k| k.descriptor_address == sym.address) {
            out.push(kernel(name, sym, None, image)?);
        }
    }
    Ok(out)
}

/// Decodes one kernel's descriptor at its symbol and checks its entry point.
fn kernel(
    name: &str,
    sym: &Symbol,
    meta: Option<&KernelMetadata>,
    image: &LoadImage,
) -> Result<Kernel> {
    let bad = |reason: String| LoadError::BadKernel {
        kernel: name.to_string(),
        reason,
    };
    if !sym.address.is_multiple_of(64) {
        return Err(bad(format!(
            "descriptor `{}` at {:#x} is not 64-byte aligned",
            sym.name, sym.address
        )));
    }
    let mut raw = [0u8; KERNEL_DESCRIPTOR_SIZE];
    image.read(sym.address, &mut raw).ok_or_else(|| {
        bad(format!(
            "descriptor `{}` at {:#x}..{:#x} is not inside a loadable segment",
            sym.name,
            sym.address,
            sym.address.saturating_add(KERNEL_DESCRIPTOR_SIZE as u64)
        ))
    })?;
    let descriptor = KernelDescriptor::from_bytes(&raw);
    let offset = descriptor.kernel_code_entry_byte_offset;
    let entry = sym
        .address
        .checked_add_signed(offset)
        .filter(|&e| image.segment_at(e).is_some_and(|s| s.execute))
        .ok_or_else(|| {
            bad(format!(
                "entry {:#x}{}{:#x} (descriptor field kernel_code_entry_byte_offset) is not in an executable segment",
                sym.address,
                if offset < 0 { '-' } else { '+' },
                offset.unsigned_abs()
            ))
        })?;
    if !entry.is_multiple_of(256) {
        return Err(bad(format!("entry {entry:#x} is not 256-byte aligned")));
    }
    Ok(Kernel {
        name: name.to_string(),
        descriptor_address: sym.address,
        descriptor,
        entry_address: entry,
        metadata: meta.cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::metadata_processor;

    #[test]
    fn target_strings_of_every_producer() {
        assert_eq!(
            metadata_processor("amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"),
            "gfx950"
        );
        assert_eq!(metadata_processor("amdgcn-amd-amdhsa--gfx1201"), "gfx1201");
        assert_eq!(
            metadata_processor("amdgcn-amd-amdhsa-unknown-gfx942"),
            "gfx942"
        );
        assert_eq!(
            metadata_processor("amdgpu9.42-amd-amdhsa-unknown-gfx942"),
            "gfx942"
        );
        assert_eq!(
            metadata_processor("amdgcn-amd-amdhsa--gfx90a:xnack-"),
            "gfx90a"
        );
        assert_eq!(metadata_processor("gfx942"), "");
    }
}
