//! Kernel names for dispatch records, found in the code object the runtime loaded.
//!
//! ROCr loads a code object by copying its `PT_LOAD` segments into device memory at one
//! base, segment `p_vaddr` at `base + p_vaddr` (the AMDGPU loader of ROCr's
//! `amd_hsa_loader`; lld links the first segment at vaddr 0 from file offset 0, so the ELF
//! header and program headers are at the base). A dispatch packet only carries the kernel
//! descriptor's address, but the dynamic symbol table travels with the loaded segments
//! (`.dynsym`, `.dynstr` and `.hash` are in the first, read-only segment; `PT_DYNAMIC`
//! points at them): the descriptor is the `STT_OBJECT` symbol `<kernel>.kd` whose value is
//! the descriptor's offset from the base (AMDGPUUsage, "Kernel Descriptor"; the symbol
//! naming of LLVM's AMDGPU code objects).
//!
//! [`kernel_name`] scans back from the descriptor, page by page, for the image's ELF header
//! and looks the descriptor up there. Everything is read through a fallible reader and
//! bounded, so garbage in device memory gives `None`, never a panic.

/// Reads `buf.len()` bytes at a device address; false when any of them is not mapped.
pub trait Reader {
    /// Fills `buf` from `addr`.
    fn read(&self, addr: u64, buf: &mut [u8]) -> bool;
}

impl<F: Fn(u64, &mut [u8]) -> bool> Reader for F {
    fn read(&self, addr: u64, buf: &mut [u8]) -> bool {
        self(addr, buf)
    }
}

const PAGE: u64 = 4096;
/// How far before a descriptor the image's ELF header may be (a library like rocSPARSE
/// has thousands of kernels: megabytes of dynamic symbols and strings before `.rodata`).
const MAX_SCAN: u64 = 64 << 20;
/// Symbols and program headers looked at, at most.
const MAX_SYMBOLS: u64 = 1 << 20;
const MAX_PHDRS: u64 = 64;
const MAX_NAME: usize = 1024;

/// `EM_AMDGPU`.
const EM_AMDGPU: u16 = 224;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const DT_NULL: u64 = 0;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const DT_STRSZ: u64 = 10;
const DT_GNU_HASH: u64 = 0x6fff_fef5;
const STT_OBJECT: u8 = 1;

fn u16_at(r: &dyn Reader, a: u64) -> Option<u16> {
    let mut b = [0u8; 2];
    r.read(a, &mut b).then(|| u16::from_le_bytes(b))
}

fn u32_at(r: &dyn Reader, a: u64) -> Option<u32> {
    let mut b = [0u8; 4];
    r.read(a, &mut b).then(|| u32::from_le_bytes(b))
}

fn u64_at(r: &dyn Reader, a: u64) -> Option<u64> {
    let mut b = [0u8; 8];
    r.read(a, &mut b).then(|| u64::from_le_bytes(b))
}

/// The loaded image whose ELF header is at `base`.
struct Image<'a> {
    r: &'a dyn Reader,
    base: u64,
}

impl Image<'_> {
    fn at(&self, vaddr: u64) -> Option<u64> {
        self.base.checked_add(vaddr)
    }

    /// An AMDGPU ELF64 little-endian header?
    fn is_elf(&self) -> bool {
        let mut id = [0u8; 6];
        self.r.read(self.base, &mut id)
            && id == [0x7f, b'E', b'L', b'F', 2, 1]
            && u16_at(self.r, self.base + 18) == Some(EM_AMDGPU)
    }

    /// The program headers: (type, vaddr, memsz).
    fn phdrs(&self) -> Option<Vec<(u32, u64, u64)>> {
        let phoff = u64_at(self.r, self.base + 32)?;
        let phentsize = u64::from(u16_at(self.r, self.base + 54)?);
        let phnum = u64::from(u16_at(self.r, self.base + 56)?);
        if phentsize < 56 || phnum > MAX_PHDRS {
            return None;
        }
        (0..phnum)
            .map(|i| {
                let p = self.at(phoff.checked_add(i * phentsize)?)?;
                Some((
                    u32_at(self.r, p)?,
                    u64_at(self.r, p + 16)?,
                    u64_at(self.r, p + 40)?,
                ))
            })
            .collect()
    }

    /// The symbol at image offset `value` that is an object named `*.kd`, without `.kd`.
    fn descriptor_name(&self, value: u64) -> Option<String> {
        let phdrs = self.phdrs()?;
        let inside = phdrs
            .iter()
            .any(|&(t, va, sz)| t == PT_LOAD && value >= va && value - va < sz);
        if !inside {
            return None;
        }
        let &(_, dynamic, dynsz) = phdrs.iter().find(|p| p.0 == PT_DYNAMIC)?;
        let (mut symtab, mut strtab, mut strsz, mut hash, mut gnu_hash) =
            (None, None, 0, None, None);
        for i in 0..(dynsz / 16).min(256) {
            let e = self.at(dynamic + i * 16)?;
            let (tag, val) = (u64_at(self.r, e)?, u64_at(self.r, e + 8)?);
            match tag {
                DT_NULL => break,
                DT_SYMTAB => symtab = Some(val),
                DT_STRTAB => strtab = Some(val),
                DT_STRSZ => strsz = val,
                DT_HASH => hash = Some(val),
                DT_GNU_HASH => gnu_hash = Some(val),
                _ => {}
            }
        }
        let (symtab, strtab) = (self.at(symtab?)?, self.at(strtab?)?);
        let count = match (hash, gnu_hash) {
            // DT_HASH: nbucket, nchain; nchain is the number of symbols.
            (Some(h), _) => u64::from(u32_at(self.r, self.at(h)? + 4)?),
            (None, Some(g)) => self.gnu_hash_count(self.at(g)?)?,
            (None, None) => return None,
        };
        for i in 1..count.min(MAX_SYMBOLS) {
            let s = symtab.checked_add(i * 24)?;
            let mut sym = [0u8; 24];
            if !self.r.read(s, &mut sym) {
                return None;
            }
            let st_value = u64::from_le_bytes(sym[8..16].try_into().ok()?);
            if st_value != value || sym[4] & 0xf != STT_OBJECT {
                continue;
            }
            let st_name = u64::from(u32::from_le_bytes(sym[0..4].try_into().ok()?));
            if strsz != 0 && st_name >= strsz {
                continue;
            }
            if let Some(name) = self.string(strtab.checked_add(st_name)?) {
                if let Some(kernel) = name.strip_suffix(".kd") {
                    return Some(kernel.to_string());
                }
            }
        }
        None
    }

    /// The number of symbols a DT_GNU_HASH table covers: past the highest bucket's chain.
    fn gnu_hash_count(&self, g: u64) -> Option<u64> {
        let nbuckets = u64::from(u32_at(self.r, g)?);
        let symoffset = u64::from(u32_at(self.r, g + 4)?);
        let bloom_size = u64::from(u32_at(self.r, g + 8)?);
        if nbuckets > MAX_SYMBOLS || bloom_size > MAX_SYMBOLS {
            return None;
        }
        let buckets = g + 16 + bloom_size * 8;
        let mut last = 0u64;
        for b in 0..nbuckets {
            last = last.max(u64::from(u32_at(self.r, buckets + b * 4)?));
        }
        if last < symoffset {
            return Some(symoffset);
        }
        let chains = buckets + nbuckets * 4;
        let mut i = last;
        while i - symoffset < MAX_SYMBOLS {
            if u32_at(self.r, chains + (i - symoffset) * 4)? & 1 == 1 {
                return Some(i + 1);
            }
            i += 1;
        }
        None
    }

    fn string(&self, at: u64) -> Option<String> {
        let mut out = Vec::new();
        let mut chunk = [0u8; 64];
        while out.len() < MAX_NAME {
            let a = at.checked_add(out.len() as u64)?;
            // Read up to the end of the page, so a string near unmapped memory still reads.
            let n = (PAGE - a % PAGE).min(chunk.len() as u64) as usize;
            if !self.r.read(a, &mut chunk[..n]) {
                return None;
            }
            if let Some(end) = chunk[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..end]);
                return String::from_utf8(out).ok();
            }
            out.extend_from_slice(&chunk[..n]);
        }
        None
    }
}

/// The name of the kernel whose descriptor is at `kernel_object`, from the dynamic symbols
/// of the code object loaded around it; `None` when no loaded image names it.
pub fn kernel_name(r: &dyn Reader, kernel_object: u64) -> Option<String> {
    let mut base = kernel_object - kernel_object % PAGE;
    let lowest = kernel_object.saturating_sub(MAX_SCAN);
    let mut magic = [0u8; 4];
    loop {
        if !r.read(base, &mut magic) {
            // The image is contiguous: an unmapped page ends the search.
            return None;
        }
        if magic == *b"\x7fELF" {
            let image = Image { r, base };
            if image.is_elf() {
                if let Some(name) = image.descriptor_name(kernel_object - base) {
                    return Some(name);
                }
            }
        }
        if base < lowest + PAGE || base < PAGE {
            return None;
        }
        base -= PAGE;
    }
}
