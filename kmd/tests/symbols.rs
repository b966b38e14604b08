//! Kernel names from loaded code objects (`kmd::symbols`): real clang-22 gfx90a code
//! objects of the corpus are laid out the way ROCr's loader puts them in device memory
//! (each PT_LOAD at base + p_vaddr, zero-filled to p_memsz) and every kernel descriptor
//! must be named as the file's own symbol table (read with goblin) names it; garbage and
//! unmapped memory give no name and no panic.

use std::collections::BTreeMap;
use std::path::Path;

use kmd::symbols::kernel_name;

/// Sparse device memory: pages at addresses.
#[derive(Default)]
struct Mem {
    bytes: BTreeMap<u64, u8>,
}

impl Mem {
    fn put(&mut self, at: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            self.bytes.insert(at + i as u64, b);
        }
    }

    fn read(&self, at: u64, buf: &mut [u8]) -> bool {
        for (i, b) in buf.iter_mut().enumerate() {
            match self.bytes.get(&(at + i as u64)) {
                Some(v) => *b = *v,
                None => return false,
            }
        }
        true
    }
}

/// Loads `file` at `base` as ROCr does; returns the descriptors (address, kernel name)
/// the file's symbol table lists.
fn load(mem: &mut Mem, file: &[u8], base: u64) -> Vec<(u64, String)> {
    let elf = goblin::elf::Elf::parse(file).unwrap();
    for ph in &elf.program_headers {
        if ph.p_type != goblin::elf::program_header::PT_LOAD {
            continue;
        }
        let mut seg = vec![0u8; ph.p_memsz as usize];
        let off = ph.p_offset as usize;
        seg[..ph.p_filesz as usize].copy_from_slice(&file[off..off + ph.p_filesz as usize]);
        mem.put(base + ph.p_vaddr, &seg);
    }
    elf.syms
        .iter()
        .filter_map(|s| {
            let name = elf.strtab.get_at(s.st_name)?;
            Some((base + s.st_value, name.strip_suffix(".kd")?.to_string()))
        })
        .collect()
}

fn corpus(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn names_every_descriptor_of_loaded_code_objects() {
    let mut mem = Mem::default();
    let mut all = Vec::new();
    // Two images side by side (as ROCr sub-allocates code-object memory), v4 and v5.
    for (i, name) in [
        "gfx90a-v4/reduce_lds.hsaco",
        "gfx90a-v5/stack_calls.hsaco",
        "gfx90a-v4/vadd.hsaco",
    ]
    .iter()
    .enumerate()
    {
        let base = 0x7f00_1234_0000 + i as u64 * 0x10_0000;
        let kds = load(&mut mem, &corpus(name), base);
        assert!(!kds.is_empty(), "{name} has kernels");
        all.extend(kds);
    }
    let read = |a: u64, b: &mut [u8]| mem.read(a, b);
    for (addr, want) in &all {
        assert_eq!(kernel_name(&read, *addr).as_deref(), Some(want.as_str()));
    }
    // Not a descriptor (a byte inside one, the ELF header, unmapped memory): no name.
    let (addr, _) = &all[0];
    assert_eq!(kernel_name(&read, addr + 8), None);
    assert_eq!(kernel_name(&read, 0x7f00_1234_0000), None);
    assert_eq!(kernel_name(&read, 0x1000), None);
    assert_eq!(kernel_name(&read, 0), None);
    assert_eq!(kernel_name(&read, u64::MAX - 3), None);
}

#[test]
fn garbage_images_give_no_name() {
    let file = corpus("gfx90a-v4/vadd.hsaco");
    let mut mem = Mem::default();
    let base = 0x5000_0000;
    let kds = load(&mut mem, &file, base);
    let (kd, _) = kds[0].clone();
    // Corrupt each header byte and dynamic/symbol word in turn: any answer but a panic
    // is fine, and the intact image still names the kernel afterwards.
    for at in (0..0x1000u64).step_by(7) {
        let mut orig = [0u8; 1];
        if !mem.read(base + at, &mut orig) {
            continue;
        }
        for v in [0u8, 0xff, 0x80] {
            mem.put(base + at, &[v]);
            let read = |a: u64, b: &mut [u8]| mem.read(a, b);
            let _ = kernel_name(&read, kd);
        }
        mem.put(base + at, &orig);
    }
    let read = |a: u64, b: &mut [u8]| mem.read(a, b);
    assert!(kernel_name(&read, kd).is_some());
    // Random bytes where an image would be: nothing.
    let mut noise = Mem::default();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut page = vec![0u8; 0x3000];
    for b in page.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    page[..4].copy_from_slice(b"\x7fELF");
    noise.put(0x9000_0000, &page);
    let read = |a: u64, b: &mut [u8]| noise.read(a, b);
    assert_eq!(kernel_name(&read, 0x9000_0900), None);
}
