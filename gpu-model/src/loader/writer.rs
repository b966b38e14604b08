//! The code-object writer: rewrites a parsed AMDGPU code object in place of a linker.
//!
//! A binary translator (the `dbt` crate) replaces `.text` with code for another processor
//! and has to keep everything else of the object consistent. [`rewrite`] takes the
//! original bytes and a [`Rewrite`] and returns a new object in which:
//!
//! * `.text` holds the new bytes; when it grows, everything behind it in the file and in
//!   the address space moves by one delta, a multiple of the largest `p_align`, so every
//!   LOAD segment keeps `p_offset ≡ p_vaddr (mod p_align)` (LLVM AMDGPUUsage, "ELF Code
//!   Object": loaders map segments page-wise);
//! * section headers, program headers, `.symtab`/`.dynsym` values, `.dynamic` address
//!   entries and relocation offsets/addends that point behind `.text` follow that delta;
//!   addresses inside the old `.text` go through the caller's map (new entry points);
//! * kernel descriptors are replaced (64 bytes at their symbol's address);
//! * `e_flags` is replaced (the caller keeps or clears the feature bits);
//! * the NT_AMDGPU_METADATA payload is replaced: in place when the new payload needs the
//!   same padded size, otherwise as a new note at the end of the file that the PT_NOTE
//!   segment and the `.note` section then describe (the old bytes stay in the first LOAD
//!   segment, unreferenced). [`retarget_metadata`] builds such a payload.
//!
//! Only ELF64 little-endian objects whose `.text` is the last section of its LOAD segment
//! are accepted (what `ld.lld` writes for every AMDGPU code object we have seen); anything
//! else is a [`WriteError`] that names what is in the way. Nothing here panics on input.

use super::elf::{find_note_range, NT_AMDGPU_METADATA};
use super::{CodeObject, LoadError};
use goblin::elf::{program_header as ph, section_header as sh, Elf};
use rmpv::Value;

/// Why a code object could not be rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The input does not load.
    #[error("input code object: {0}")]
    Load(#[from] LoadError),
    /// The input's layout is one the writer does not handle.
    #[error("unsupported layout: {0}")]
    Layout(String),
    /// The new `.text` is shorter than the old one.
    #[error("new .text has {new} bytes, fewer than the original {old}: pad it")]
    TextShrinks {
        /// Original size.
        old: u64,
        /// New size.
        new: u64,
    },
    /// A descriptor to patch is not inside an allocated section.
    #[error("kernel descriptor at {address:#x} is not inside an allocated PROGBITS section")]
    DescriptorOutside {
        /// Its (original) image address.
        address: u64,
    },
    /// The metadata note cannot be rewritten.
    #[error("metadata note: {0}")]
    Metadata(String),
}

/// What to change. Every field is optional: `Rewrite::default()` rewrites nothing and
/// reproduces the input byte for byte.
#[derive(Default)]
pub struct Rewrite<'a> {
    /// New `.text` contents (at least as long as the old `.text`).
    pub text: Option<Vec<u8>>,
    /// Maps an address inside the old `.text` to its place in the new one (symbols and
    /// relocations that point into `.text`); `None` keeps the address.
    pub text_map: Option<&'a dyn Fn(u64) -> Option<u64>>,
    /// New `st_size` for symbols, by name (translated functions change size).
    pub symbol_sizes: Vec<(String, u64)>,
    /// New 64-byte kernel descriptors by their original image address.
    pub descriptors: Vec<(u64, [u8; 64])>,
    /// The new `e_flags`.
    pub e_flags: Option<u32>,
    /// The new NT_AMDGPU_METADATA payload (msgpack).
    pub metadata: Option<Vec<u8>>,
    /// Loaded bytes placed right after the new `.text` (at its end rounded up to 64) in
    /// the same LOAD segment, as a new allocated, non-executable section
    /// [`TEXT_TAIL_SECTION`] (a binary translator's sidecar descriptors). Its image
    /// address is `.text`'s address plus the new `.text` length rounded up to 64.
    pub text_tail: Vec<u8>,
    /// Non-allocated sections (name, contents) appended at the end of the file.
    pub sections: Vec<(String, Vec<u8>)>,
}

/// Name of the section that holds [`Rewrite::text_tail`].
pub const TEXT_TAIL_SECTION: &str = ".rocjitsu.kd";

impl std::fmt::Debug for Rewrite<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rewrite")
            .field("text", &self.text.as_ref().map(Vec::len))
            .field("text_map", &self.text_map.is_some())
            .field("symbol_sizes", &self.symbol_sizes)
            .field("descriptors", &self.descriptors.len())
            .field("e_flags", &self.e_flags)
            .field("metadata", &self.metadata.as_ref().map(Vec::len))
            .field("text_tail", &self.text_tail.len())
            .field("sections", &self.sections.len())
            .finish()
    }
}

/// The raw NT_AMDGPU_METADATA payload of a code object, if it has one.
pub fn metadata_payload(bytes: &[u8]) -> Result<Option<Vec<u8>>, WriteError> {
    let elf = Elf::parse(bytes).map_err(|e| LoadError::Elf(e.to_string()))?;
    Ok(note_location(&elf, bytes)?.map(|n| bytes[n.desc_start..n.desc_end].to_vec()))
}

/// Register counts of one kernel, as the metadata note states them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelCounts {
    /// `.vgpr_count`.
    pub vgpr: u32,
    /// `.sgpr_count`.
    pub sgpr: u32,
    /// `.agpr_count`.
    pub agpr: u32,
}

/// Rewrites a metadata payload for another processor: `amdhsa.target` becomes `target`
/// (the whole string, e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`) and the counts
/// of each kernel named in `counts` (by `.symbol`, the `.kd` name) are replaced.
/// Everything else is kept as it was.
pub fn retarget_metadata(
    payload: &[u8],
    target: &str,
    counts: &[(String, KernelCounts)],
) -> Result<Vec<u8>, WriteError> {
    let bad = |why: String| WriteError::Metadata(why);
    let mut v = rmpv::decode::read_value(&mut &payload[..])
        .map_err(|e| bad(format!("payload is not msgpack: {e}")))?;
    let Value::Map(top) = &mut v else {
        return Err(bad("payload is not a map".into()));
    };
    for (k, val) in top.iter_mut() {
        match k.as_str() {
            Some("amdhsa.target") => *val = Value::from(target),
            Some("amdhsa.kernels") => {
                let Value::Array(ks) = val else {
                    return Err(bad("amdhsa.kernels is not an array".into()));
                };
                for kv in ks.iter_mut() {
                    let Value::Map(km) = kv else { continue };
                    let sym = km
                        .iter()
                        .find(|(k, _)| k.as_str() == Some(".symbol"))
                        .and_then(|(_, v)| v.as_str())
                        .map(str::to_string);
                    let Some(c) = sym.and_then(|s| counts.iter().find(|(n, _)| *n == s)) else {
                        continue;
                    };
                    for (k, v) in km.iter_mut() {
                        match k.as_str() {
                            Some(".vgpr_count") => *v = Value::from(c.1.vgpr),
                            Some(".sgpr_count") => *v = Value::from(c.1.sgpr),
                            Some(".agpr_count") => *v = Value::from(c.1.agpr),
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(payload.len());
    rmpv::encode::write_value(&mut out, &v).map_err(|e| bad(format!("re-encoding: {e}")))?;
    Ok(out)
}

/// Where the metadata note is in the file.
#[derive(Debug, Clone, Copy)]
struct NoteLocation {
    /// File offset of the note header.
    start: usize,
    /// File offset of the payload.
    desc_start: usize,
    /// One past the payload.
    desc_end: usize,
    /// Index of the PT_NOTE program header holding it, if any.
    phdr: Option<usize>,
    /// Index of the SHT_NOTE section holding it, if any.
    shdr: Option<usize>,
}

fn note_location(elf: &Elf<'_>, bytes: &[u8]) -> Result<Option<NoteLocation>, WriteError> {
    let ranges = elf
        .program_headers
        .iter()
        .enumerate()
        .filter(|(_, p)| p.p_type == ph::PT_NOTE)
        .map(|(i, p)| (Some(i), None, p.p_offset, p.p_filesz))
        .chain(
            elf.section_headers
                .iter()
                .enumerate()
                .filter(|(_, s)| s.sh_type == sh::SHT_NOTE)
                .map(|(i, s)| (None, Some(i), s.sh_offset, s.sh_size)),
        );
    for (phdr, shdr, off, size) in ranges {
        let Some(data) = off
            .checked_add(size)
            .and_then(|e| bytes.get(off as usize..e as usize))
        else {
            continue;
        };
        if let Some(r) = find_note_range(data, off)? {
            let base = off as usize;
            let mut loc = NoteLocation {
                start: base + r.start,
                desc_start: base + r.desc_start,
                desc_end: base + r.desc_end,
                phdr,
                shdr,
            };
            // Find the other header describing the same bytes.
            if loc.shdr.is_none() {
                loc.shdr = elf.section_headers.iter().position(|s| {
                    s.sh_type == sh::SHT_NOTE
                        && s.sh_offset <= loc.start as u64
                        && loc.desc_end as u64 <= s.sh_offset + s.sh_size
                });
            }
            if loc.phdr.is_none() {
                loc.phdr = elf.program_headers.iter().position(|p| {
                    p.p_type == ph::PT_NOTE
                        && p.p_offset <= loc.start as u64
                        && loc.desc_end as u64 <= p.p_offset + p.p_filesz
                });
            }
            return Ok(Some(loc));
        }
    }
    Ok(None)
}

fn rd_u16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn rd_u32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn rd_u64(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}
fn wr_u32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}
fn wr_u64(b: &mut [u8], o: usize, v: u64) {
    b[o..o + 8].copy_from_slice(&v.to_le_bytes());
}

/// `.dynamic` tags whose value is an image address (ELF gABI; DT_GNU_HASH and the
/// versioning tags from the GNU extensions).
const DT_ADDRESS_TAGS: &[u64] = &[
    3,
    4,
    5,
    6,
    7,
    12,
    13,
    17,
    23,
    25,
    26,
    32,
    36,
    0x6fff_fef5,
    0x6fff_fff0,
    0x6fff_fffc,
    0x6fff_fffe,
];

/// Rewrites `bytes` as `rw` says (see the module documentation).
pub fn rewrite(bytes: &[u8], rw: &Rewrite<'_>) -> Result<Vec<u8>, WriteError> {
    CodeObject::parse(bytes)?;
    let elf = Elf::parse(bytes).map_err(|e| LoadError::Elf(e.to_string()))?;
    if !elf.is_64 || !elf.little_endian {
        return Err(WriteError::Layout(
            "only ELF64 little-endian is written".into(),
        ));
    }
    let layout = |why: String| WriteError::Layout(why);
    let phoff = elf.header.e_phoff as usize;
    let shoff = elf.header.e_shoff as usize;
    let (phnum, shnum) = (elf.program_headers.len(), elf.section_headers.len());
    if usize::from(elf.header.e_phentsize) != 56 && phnum > 0
        || usize::from(elf.header.e_shentsize) != 64 && shnum > 0
    {
        return Err(layout(
            "unexpected program/section header entry size".into(),
        ));
    }
    let tables_in_file = phoff
        .checked_add(phnum * 56)
        .is_some_and(|e| e <= bytes.len())
        && shoff
            .checked_add(shnum * 64)
            .is_some_and(|e| e <= bytes.len());
    if !tables_in_file {
        return Err(layout("header tables run past the end of the file".into()));
    }
    let text_index = elf
        .section_headers
        .iter()
        .position(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".text"))
        .ok_or_else(|| layout("no .text section".into()))?;
    let text_sh = &elf.section_headers[text_index];
    let (old_off, old_addr, old_len) = (text_sh.sh_offset, text_sh.sh_addr, text_sh.sh_size);
    let (end_off, end_addr) = (old_off + old_len, old_addr + old_len);
    let text_len = rw.text.as_ref().map_or(old_len, |t| t.len() as u64);
    // The tail starts at the text's end rounded up to 64 bytes.
    let tail_at = text_len.next_multiple_of(64);
    let new_len = if rw.text_tail.is_empty() {
        text_len
    } else {
        tail_at + rw.text_tail.len() as u64
    };
    if new_len < old_len {
        return Err(WriteError::TextShrinks {
            old: old_len,
            new: new_len,
        });
    }
    let grow = new_len - old_len;
    let text_seg = elf
        .program_headers
        .iter()
        .position(|p| {
            p.p_type == ph::PT_LOAD && p.p_offset <= old_off && end_off <= p.p_offset + p.p_filesz
        })
        .ok_or_else(|| layout(".text is not inside a LOAD segment".into()))?;
    let ts = &elf.program_headers[text_seg];
    if grow > 0 && (ts.p_offset + ts.p_filesz != end_off || ts.p_filesz != ts.p_memsz) {
        return Err(layout(
            ".text is not the last section of its LOAD segment: it cannot grow".into(),
        ));
    }
    let align = elf
        .program_headers
        .iter()
        .filter(|p| p.p_type == ph::PT_LOAD)
        .map(|p| p.p_align.max(1))
        .chain(elf.section_headers.iter().map(|s| s.sh_addralign.max(1)))
        .max()
        .unwrap_or(1);
    if !align.is_power_of_two() || align > 1 << 24 {
        return Err(layout(format!(
            "alignment {align:#x} is not a sane power of two"
        )));
    }
    let delta = grow.next_multiple_of(align);
    let shift_off = |o: u64| {
        if o >= end_off && delta > 0 {
            o + delta
        } else {
            o
        }
    };
    // Section and segment addresses only shift; the text map is for what points into code.
    let shift_addr = |a: u64| {
        if a >= end_addr && delta > 0 {
            a + delta
        } else {
            a
        }
    };
    let map = |a: u64| -> u64 {
        if a >= end_addr && delta > 0 {
            a + delta
        } else if a >= old_addr && a < end_addr {
            rw.text_map.and_then(|f| f(a)).unwrap_or(a)
        } else {
            a
        }
    };

    // The new file: old bytes before .text end, new .text, padding, the rest shifted.
    let mut out = Vec::with_capacity(bytes.len() + delta as usize);
    out.extend_from_slice(&bytes[..old_off as usize]);
    match &rw.text {
        Some(t) => out.extend_from_slice(t),
        None => out.extend_from_slice(&bytes[old_off as usize..end_off as usize]),
    }
    if !rw.text_tail.is_empty() {
        out.resize(old_off as usize + tail_at as usize, 0);
        out.extend_from_slice(&rw.text_tail);
    }
    out.resize(out.len() + (delta - grow) as usize, 0);
    out.extend_from_slice(&bytes[end_off as usize..]);

    // ELF header.
    let new_shoff = shift_off(shoff as u64);
    wr_u64(&mut out, 0x28, new_shoff);
    if let Some(f) = rw.e_flags {
        wr_u32(&mut out, 0x30, f);
    }
    let new_phoff = shift_off(phoff as u64) as usize;
    let new_shoff = new_shoff as usize;

    // Program headers.
    for i in 0..phnum {
        let o = new_phoff + i * 56;
        let p = &elf.program_headers[i];
        wr_u64(&mut out, o + 8, shift_off(p.p_offset));
        if p.p_memsz > 0 || p.p_vaddr > 0 {
            wr_u64(&mut out, o + 16, shift_addr(p.p_vaddr));
            wr_u64(&mut out, o + 24, shift_addr(p.p_paddr));
        }
        if i == text_seg {
            wr_u64(&mut out, o + 32, p.p_filesz + grow);
            wr_u64(&mut out, o + 40, p.p_memsz + grow);
        }
    }
    // Section headers.
    for i in 0..shnum {
        let o = new_shoff + i * 64;
        let s = &elf.section_headers[i];
        if s.sh_type != sh::SHT_NULL {
            wr_u64(&mut out, o + 24, shift_off(s.sh_offset));
        }
        if s.sh_flags & u64::from(sh::SHF_ALLOC) != 0 {
            wr_u64(&mut out, o + 16, shift_addr(s.sh_addr));
        }
        if i == text_index {
            wr_u64(&mut out, o + 32, text_len);
        }
    }
    // Symbols, dynamic entries and relocations, read from the original and written to
    // their shifted place.
    let section_data = |s: &goblin::elf::SectionHeader| -> Result<(usize, usize), WriteError> {
        let start = s.sh_offset as usize;
        let end = s
            .sh_offset
            .checked_add(s.sh_size)
            .filter(|&e| e <= bytes.len() as u64)
            .ok_or_else(|| layout(format!("section at {:#x} runs past the file", s.sh_offset)))?;
        Ok((start, end as usize))
    };
    for s in &elf.section_headers {
        let new_base = shift_off(s.sh_offset) as usize;
        match s.sh_type {
            sh::SHT_SYMTAB | sh::SHT_DYNSYM => {
                let (start, end) = section_data(s)?;
                let strtab = elf.section_headers.get(s.sh_link as usize);
                for e in (start..end.saturating_sub(23)).step_by(24) {
                    let shndx = rd_u16(bytes, e + 6);
                    let value = rd_u64(bytes, e + 8);
                    let no = e - start + new_base;
                    // SHN_UNDEF (0) and the reserved range (SHN_ABS, SHN_COMMON, ...) hold
                    // no image address.
                    if shndx != 0 && shndx < 0xff00 {
                        wr_u64(&mut out, no + 8, map(value));
                    }
                    if rw.symbol_sizes.is_empty() {
                        continue;
                    }
                    let name = strtab.and_then(|t| {
                        let at = t.sh_offset as usize + rd_u32(bytes, e) as usize;
                        let tail = bytes.get(at..)?;
                        let n = tail.iter().position(|&c| c == 0)?;
                        std::str::from_utf8(&tail[..n]).ok()
                    });
                    if let Some((_, size)) =
                        name.and_then(|n| rw.symbol_sizes.iter().find(|(s, _)| s.as_str() == n))
                    {
                        wr_u64(&mut out, no + 16, *size);
                    }
                }
            }
            sh::SHT_DYNAMIC => {
                let (start, end) = section_data(s)?;
                for e in (start..end.saturating_sub(15)).step_by(16) {
                    let tag = rd_u64(bytes, e);
                    if DT_ADDRESS_TAGS.contains(&tag) {
                        wr_u64(
                            &mut out,
                            e - start + new_base + 8,
                            map(rd_u64(bytes, e + 8)),
                        );
                    }
                }
            }
            sh::SHT_RELA | sh::SHT_REL => {
                let (start, end) = section_data(s)?;
                let size = if s.sh_type == sh::SHT_RELA { 24 } else { 16 };
                for e in (start..end.saturating_sub(size - 1)).step_by(size) {
                    let no = e - start + new_base;
                    wr_u64(&mut out, no, map(rd_u64(bytes, e)));
                    // R_AMDGPU_RELATIVE64 (13): B + A, the addend is an image address.
                    if size == 24 && rd_u64(bytes, e + 8) as u32 == 13 {
                        wr_u64(&mut out, no + 16, map(rd_u64(bytes, e + 16)));
                    }
                }
            }
            _ => {}
        }
    }
    // Kernel descriptors: at their (mapped) address inside an allocated section.
    for (addr, kd) in &rw.descriptors {
        let s = elf
            .section_headers
            .iter()
            .find(|s| {
                s.sh_flags & u64::from(sh::SHF_ALLOC) != 0
                    && s.sh_type == sh::SHT_PROGBITS
                    && *addr >= s.sh_addr
                    && addr.saturating_add(64) <= s.sh_addr + s.sh_size
            })
            .ok_or(WriteError::DescriptorOutside { address: *addr })?;
        let o = (shift_off(s.sh_offset) + (addr - s.sh_addr)) as usize;
        out.get_mut(o..o.saturating_add(64))
            .ok_or(WriteError::DescriptorOutside { address: *addr })?
            .copy_from_slice(kd);
    }
    // The metadata note.
    if let Some(payload) = &rw.metadata {
        let loc = note_location(&elf, bytes)?
            .ok_or_else(|| WriteError::Metadata("the object has no metadata note".into()))?;
        let old_padded = (loc.desc_end - loc.desc_start).next_multiple_of(4);
        let new_padded = payload.len().next_multiple_of(4);
        if new_padded == old_padded {
            let ds = shift_off(loc.desc_start as u64) as usize;
            let st = shift_off(loc.start as u64) as usize;
            wr_u32(&mut out, st + 4, payload.len() as u32);
            let desc = out.get_mut(ds..ds + old_padded).ok_or_else(|| {
                WriteError::Metadata("the note's padding runs past the file".into())
            })?;
            desc.fill(0);
            desc[..payload.len()].copy_from_slice(payload);
        } else {
            // A new note at the end of the file; PT_NOTE and `.note` point at it.
            let at = out.len().next_multiple_of(4);
            out.resize(at, 0);
            out.extend_from_slice(&7u32.to_le_bytes());
            out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            out.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
            out.extend_from_slice(b"AMDGPU\0\0");
            out.extend_from_slice(payload);
            out.resize(out.len().next_multiple_of(4), 0);
            let size = (out.len() - at) as u64;
            if let Some(i) = loc.phdr {
                let o = new_phoff + i * 56;
                wr_u64(&mut out, o + 8, at as u64);
                wr_u64(&mut out, o + 16, 0);
                wr_u64(&mut out, o + 24, 0);
                wr_u64(&mut out, o + 32, size);
                wr_u64(&mut out, o + 40, size);
            }
            if let Some(i) = loc.shdr {
                let o = new_shoff + i * 64;
                let flags = rd_u64(&out, o + 8) & !u64::from(sh::SHF_ALLOC);
                wr_u64(&mut out, o + 8, flags);
                wr_u64(&mut out, o + 16, 0);
                wr_u64(&mut out, o + 24, at as u64);
                wr_u64(&mut out, o + 32, size);
            }
        }
    }
    if !rw.text_tail.is_empty() || !rw.sections.is_empty() {
        append_sections(&mut out, &elf, bytes, rw, (old_off, old_addr, tail_at))?;
    }
    CodeObject::parse(&out)
        .map_err(|e| layout(format!("the rewritten object does not load: {e}")))?;
    Ok(out)
}

/// Appends [`Rewrite::text_tail`]'s section header and [`Rewrite::sections`] at the end of
/// `out`: their contents, a copy of the section-name table grown by their names, and a
/// copy of the section header table grown by their headers (the ELF header then points at
/// the copies; the old tables stay, unreferenced). `text` is `.text`'s file offset, image
/// address and the tail's offset from them.
fn append_sections(
    out: &mut Vec<u8>,
    elf: &Elf<'_>,
    bytes: &[u8],
    rw: &Rewrite<'_>,
    (text_off, text_addr, tail_at): (u64, u64, u64),
) -> Result<(), WriteError> {
    let layout = |why: &str| WriteError::Layout(why.to_string());
    let shnum = elf.section_headers.len();
    let strndx = usize::from(elf.header.e_shstrndx);
    let strsh = elf
        .section_headers
        .get(strndx)
        .filter(|s| s.sh_type == sh::SHT_STRTAB)
        .ok_or_else(|| layout("no section-name table to add sections to"))?;
    let mut names = strsh
        .sh_offset
        .checked_add(strsh.sh_size)
        .and_then(|e| bytes.get(strsh.sh_offset as usize..e as usize))
        .ok_or_else(|| layout("the section-name table runs past the file"))?
        .to_vec();
    // (name offset, type, flags, address, file offset, size, alignment)
    let mut headers: Vec<[u64; 7]> = Vec::new();
    let name = |n: &str, names: &mut Vec<u8>| {
        let at = names.len() as u64;
        names.extend_from_slice(n.as_bytes());
        names.push(0);
        at
    };
    if !rw.text_tail.is_empty() {
        let n = name(TEXT_TAIL_SECTION, &mut names);
        headers.push([
            n,
            u64::from(sh::SHT_PROGBITS),
            u64::from(sh::SHF_ALLOC),
            text_addr + tail_at,
            text_off + tail_at,
            rw.text_tail.len() as u64,
            64,
        ]);
    }
    for (n, data) in &rw.sections {
        let n = name(n, &mut names);
        let at = out.len().next_multiple_of(8);
        out.resize(at, 0);
        out.extend_from_slice(data);
        headers.push([
            n,
            u64::from(sh::SHT_PROGBITS),
            0,
            0,
            at as u64,
            data.len() as u64,
            8,
        ]);
    }
    let names_at = out.len() as u64;
    out.extend_from_slice(&names);
    let table = rd_u64(out, 0x28) as usize;
    let old = out
        .get(table..table + shnum * 64)
        .ok_or_else(|| layout("the section header table runs past the file"))?
        .to_vec();
    let at = out.len().next_multiple_of(8);
    out.resize(at, 0);
    out.extend_from_slice(&old);
    for h in &headers {
        let o = out.len();
        out.resize(o + 64, 0);
        wr_u32(out, o, h[0] as u32);
        wr_u32(out, o + 4, h[1] as u32);
        for (k, v) in h[2..].iter().enumerate() {
            // sh_flags, sh_addr, sh_offset, sh_size at 8..40; sh_addralign at 48.
            let f = if k == 4 { 48 } else { 8 + 8 * k };
            wr_u64(out, o + f, *v);
        }
    }
    let count = u16::try_from(shnum + headers.len()).map_err(|_| layout("too many sections"))?;
    wr_u64(out, 0x28, at as u64);
    out[0x3c..0x3e].copy_from_slice(&count.to_le_bytes());
    let s = at + strndx * 64;
    wr_u64(out, s + 24, names_at);
    wr_u64(out, s + 32, names.len() as u64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(path: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/build")
            .join(path);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn no_change_is_byte_identical() {
        for f in [
            "gfx950/vadd.hsaco",
            "gfx950/const_table.hsaco",
            "gfx942/indirect_call.hsaco",
        ] {
            let b = corpus(f);
            assert_eq!(rewrite(&b, &Rewrite::default()).unwrap(), b, "{f}");
        }
    }

    #[test]
    fn grown_text_keeps_everything_loadable() {
        let b = corpus("gfx950/const_table.hsaco");
        let co = CodeObject::parse(&b).unwrap();
        let mut text = co.text().to_vec();
        text.resize(text.len() + 0x1234, 0);
        // Symbols into .text follow the map; .text itself does not move.
        let moved = |a: u64| Some(a + 8);
        let out = rewrite(
            &b,
            &Rewrite {
                text: Some(text.clone()),
                text_map: Some(&moved),
                ..Rewrite::default()
            },
        )
        .unwrap();
        let n = CodeObject::parse(&out).unwrap();
        assert_eq!(n.text(), &text[..]);
        assert_eq!(n.text_address(), co.text_address());
        let f = |c: &CodeObject| {
            c.symbols()
                .iter()
                .find(|s| s.name == "__clang_ocl_kern_imp_const_table")
                .map(|s| s.address)
                .unwrap()
        };
        assert_eq!(f(&n), f(&co) + 8);
        assert_eq!(n.kernels().len(), co.kernels().len());
        // The descriptor did not move (it is before .text), so neither did the entry.
        assert_eq!(n.kernels()[0].entry_address, co.kernels()[0].entry_address);
        for s in &n.image().segments {
            assert_eq!(s.file_offset % s.align, s.vaddr % s.align, "congruence");
        }
        // The data behind .text moved by a multiple of the page alignment.
        let d_old = co
            .symbols()
            .iter()
            .find(|s| s.name == "_DYNAMIC")
            .unwrap()
            .address;
        let d_new = n
            .symbols()
            .iter()
            .find(|s| s.name == "_DYNAMIC")
            .unwrap()
            .address;
        assert_eq!((d_new - d_old) % 0x1000, 0);
        assert!(d_new - d_old >= 0x1234);
    }

    #[test]
    fn metadata_retargets_and_moves_when_it_grows() {
        let b = corpus("gfx950/vadd.hsaco");
        let p = metadata_payload(&b).unwrap().unwrap();
        let same = retarget_metadata(&p, "amdgcn-amd-amdhsa--gfx942", &[]).unwrap();
        // Same length target: rewritten in place.
        let out = rewrite(
            &b,
            &Rewrite {
                metadata: Some(same),
                e_flags: Some((co_flags(&b) & !0xff) | 0x4c),
                ..Rewrite::default()
            },
        )
        .unwrap();
        assert_eq!(out.len(), b.len());
        let n = CodeObject::parse(&out).unwrap();
        assert_eq!(n.target(), crate::Target::Gfx942);
        assert_eq!(n.metadata_target(), Some("amdgcn-amd-amdhsa--gfx942"));
        let long = retarget_metadata(
            &p,
            "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
            &[(
                "vadd.kd".into(),
                KernelCounts {
                    vgpr: 300,
                    sgpr: 100,
                    agpr: 0,
                },
            )],
        )
        .unwrap();
        let out = rewrite(
            &b,
            &Rewrite {
                metadata: Some(long),
                e_flags: Some((co_flags(&b) & !0xff) | 0x4c),
                ..Rewrite::default()
            },
        )
        .unwrap();
        let n = CodeObject::parse(&out).unwrap();
        assert_eq!(
            n.metadata_target(),
            Some("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-")
        );
        let m = n.kernels()[0].metadata.as_ref().unwrap();
        assert_eq!((m.vgpr_count, m.sgpr_count), (300, 100));
    }

    fn co_flags(b: &[u8]) -> u32 {
        CodeObject::parse(b).unwrap().e_flags()
    }
}
