//! Bad code objects are refused with errors that say what and where, and never panic.

use gpu_model::loader::{CodeObject, FeatureMode, LoadError};
use gpu_model::Target;
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn err(bytes: &[u8]) -> LoadError {
    CodeObject::parse(bytes).expect_err("parse should fail")
}

/// File offset of `.symtab` entry `name` (located with goblin, independently of the loader).
fn symtab_entry(bytes: &[u8], name: &str) -> usize {
    let elf = goblin::elf::Elf::parse(bytes).unwrap();
    let sh = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".symtab"))
        .unwrap();
    let idx = elf
        .syms
        .iter()
        .position(|s| elf.strtab.get_at(s.st_name) == Some(name))
        .unwrap();
    sh.sh_offset as usize + idx * 24
}

/// File offset of image address `vaddr` (through the PT_LOAD segments).
fn file_offset(bytes: &[u8], vaddr: u64) -> usize {
    let elf = goblin::elf::Elf::parse(bytes).unwrap();
    let p = elf
        .program_headers
        .iter()
        .find(|p| {
            p.p_type == goblin::elf::program_header::PT_LOAD
                && vaddr >= p.p_vaddr
                && vaddr < p.p_vaddr + p.p_filesz
        })
        .unwrap();
    (p.p_offset + vaddr - p.p_vaddr) as usize
}

#[test]
fn truncated_files_are_refused_at_every_length() {
    let bytes = fixture("kernels_gfx950_v5.hsaco");
    for len in 0..bytes.len() {
        let e = CodeObject::parse(&bytes[..len]);
        assert!(e.is_err(), "truncated to {len} bytes parsed");
    }
    assert_eq!(
        err(&bytes[..10]).to_string(),
        "truncated file: elf identification needs bytes 0x0..0x10 but the file has 10 bytes"
    );
    assert_eq!(
        err(&bytes[..40]).to_string(),
        "truncated file: elf64 header needs bytes 0x10..0x40 but the file has 40 bytes"
    );
}

#[test]
fn wrong_magic_class_machine_osabi_and_abi_version_name_the_field() {
    let good = fixture("kernels_gfx942_v6.hsaco");
    let patched = |at: usize, val: &[u8]| {
        let mut b = good.clone();
        b[at..at + val.len()].copy_from_slice(val);
        err(&b).to_string()
    };
    assert_eq!(
        patched(0, b"\x7fELG"),
        "elf header field EI_MAG at offset 0x0 is 0x474c457f: expected \\x7fELF"
    );
    assert_eq!(
        patched(4, &[1]),
        "elf header field EI_CLASS at offset 0x4 is 0x1: expected 2 (ELFCLASS64)"
    );
    assert_eq!(
        patched(7, &[0]),
        "elf header field EI_OSABI at offset 0x7 is 0x0: expected 64 (ELFOSABI_AMDGPU_HSA)"
    );
    assert_eq!(
        patched(8, &[1]),
        "elf header field EI_ABIVERSION at offset 0x8 is 0x1: expected 2, 3 or 4 (code object v4, v5 or v6)"
    );
    assert_eq!(
        patched(16, &[1, 0]),
        "elf header field e_type at offset 0x10 is 0x1: expected 3 (ET_DYN)"
    );
    assert_eq!(
        patched(18, &62u16.to_le_bytes()),
        "elf header field e_machine at offset 0x12 is 0x3e: expected 224 (EM_AMDGPU)"
    );
    // gfx1100's mach id: a real AMDGPU processor this project does not model.
    assert_eq!(
        patched(48, &[0x41]),
        "e_flags 0x541 (offset 0x30) names processor gfx1100, which is not supported (supported: gfx90a, gfx942, gfx950, gfx1200, gfx1201)"
    );
}

#[test]
fn generic_targets_are_refused_by_name() {
    // `clang-22 -mcpu=gfx9-4-generic`: e_flags 0x100055f per llvm-readelf-22 -h.
    assert_eq!(
        err(&fixture("generic_gfx9_4_v6.hsaco")).to_string(),
        "e_flags 0x100055f (offset 0x30) names processor gfx9-4-generic, which is not supported (supported: gfx90a, gfx942, gfx950, gfx1200, gfx1201)"
    );
}

#[test]
fn e_flags_that_disagree_with_the_metadata_target_are_refused() {
    let mut b = fixture("kernels_gfx950_v6.hsaco");
    b[48] = Target::Gfx942.elf_mach() as u8;
    assert_eq!(
        err(&b).to_string(),
        "metadata amdhsa.target: `amdgcn-amd-amdhsa--gfx950` names processor `gfx950` but e_flags says gfx942"
    );
}

#[test]
fn a_corrupt_note_or_metadata_names_where() {
    let good = fixture("kernels_gfx1201_v5.hsaco");
    let elf = goblin::elf::Elf::parse(&good).unwrap();
    let note = elf
        .program_headers
        .iter()
        .find(|p| p.p_type == goblin::elf::program_header::PT_NOTE)
        .unwrap();
    let off = note.p_offset as usize;
    drop(elf);
    // Descriptor size far beyond the segment.
    let mut b = good.clone();
    b[off + 4..off + 8].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    let e = err(&b).to_string();
    assert!(
        e.starts_with(&format!(
            "note at file offset {off:#x}: name size 0x7 and descriptor size 0x7fff0000 run past"
        )),
        "{e}"
    );
    // The msgpack root replaced by a string that claims more bytes than the note has.
    let desc = off + 12 + 8; // header + "AMDGPU\0" padded to 8
    let mut b = good.clone();
    b[desc..desc + 5].copy_from_slice(&[0xdb, 0xff, 0xff, 0xff, 0xff]);
    let e = err(&b).to_string();
    assert!(e.starts_with("metadata (root): invalid msgpack"), "{e}");
    // The root is valid msgpack but not a map (0xc0 is nil).
    let mut b = good.clone();
    b[desc] = 0xc0;
    assert_eq!(err(&b).to_string(), "metadata (root): expected a map");
}

#[test]
fn descriptor_and_entry_out_of_bounds_name_the_kernel() {
    let good = fixture("kernels_gfx90a_v6.hsaco");
    // Point `vadd.kd` (in .symtab, which the loader prefers) far outside the image.
    let mut b = good.clone();
    let st_value = symtab_entry(&b, "vadd.kd") + 8;
    b[st_value..st_value + 8].copy_from_slice(&0x4000_0000u64.to_le_bytes());
    assert_eq!(
        err(&b).to_string(),
        "kernel `vadd`: descriptor `vadd.kd` at 0x40000000..0x40000040 is not inside a loadable segment"
    );
    // Misaligned descriptor.
    let mut b = good.clone();
    let co = CodeObject::parse(&good).unwrap();
    let kd = co.kernel("vadd").unwrap().descriptor_address;
    b[st_value..st_value + 8].copy_from_slice(&(kd + 4).to_le_bytes());
    assert!(err(&b).to_string().contains("is not 64-byte aligned"));
    // Entry offset pointing outside any executable segment.
    let mut b = good.clone();
    let entry_field = file_offset(&good, kd) + 16;
    b[entry_field..entry_field + 8].copy_from_slice(&(-0x100000i64).to_le_bytes());
    assert_eq!(
        err(&b).to_string(),
        format!("kernel `vadd`: entry {kd:#x}-0x100000 (descriptor field kernel_code_entry_byte_offset) is not in an executable segment")
    );
}

#[test]
fn device_mismatch_names_both_targets() {
    use FeatureMode::*;
    let co = CodeObject::parse(&fixture("kernels_gfx950_v6.hsaco")).unwrap();
    assert_eq!((co.xnack(), co.sramecc()), (Any, Any));
    assert_eq!(
        co.check_device(Target::Gfx942, Off, On)
            .unwrap_err()
            .to_string(),
        "code object is for gfx950 but the device is gfx942:sramecc+:xnack-"
    );
    // Any matches every device setting.
    for (x, s) in [(On, On), (Off, Off), (On, Off)] {
        co.check_device(Target::Gfx950, x, s).unwrap();
    }
    let xnack_on = CodeObject::parse(&fixture("kernels_gfx950_xnack_on_v6.hsaco")).unwrap();
    assert_eq!(xnack_on.xnack(), On);
    assert_eq!(xnack_on.target_id(), "gfx950:xnack+");
    assert_eq!(
        xnack_on
            .check_device(Target::Gfx950, Off, On)
            .unwrap_err()
            .to_string(),
        "code object is for gfx950:xnack+ but the device is gfx950:sramecc+:xnack-"
    );
    xnack_on.check_device(Target::Gfx950, On, Off).unwrap();
    let both_off =
        CodeObject::parse(&fixture("kernels_gfx942_sramecc_off_xnack_off_v5.hsaco")).unwrap();
    assert_eq!(both_off.target_id(), "gfx942:sramecc-:xnack-");
    assert!(both_off.check_device(Target::Gfx942, Off, On).is_err());
    // RDNA4 supports neither feature.
    let rdna = CodeObject::parse(&fixture("kernels_gfx1201_v6.hsaco")).unwrap();
    assert_eq!((rdna.xnack(), rdna.sramecc()), (Unsupported, Unsupported));
    rdna.check_device(Target::Gfx1201, Unsupported, Unsupported)
        .unwrap();
    assert!(rdna
        .check_device(Target::Gfx1200, Unsupported, Unsupported)
        .is_err());
}

#[test]
fn a_kernel_without_metadata_is_described_by_its_descriptor() {
    let co = CodeObject::parse(&fixture("nometa_gfx950_v6.hsaco")).unwrap();
    assert_eq!(co.metadata_target(), None);
    let k = co.kernel("bare").unwrap();
    assert!(k.metadata.is_none());
    // As nometa.s asks: dispatch ptr then kernarg ptr, workgroup id y, work-item ids x,y,z.
    let l = k.descriptor.user_sgpr_layout();
    assert_eq!(
        (
            l.private_segment_buffer,
            l.dispatch_ptr,
            l.kernarg_segment_ptr,
            l.end
        ),
        (None, Some(0), Some(2), 4)
    );
    assert_eq!(k.descriptor.user_sgpr_count(), 4);
    assert_eq!(k.descriptor.kernarg_size, 8);
    assert!(k.descriptor.enable_workgroup_id_y());
    assert_eq!(k.descriptor.vgpr_workitem_id(), 2);
    assert_eq!(k.wave_size(co.target()), 64);
    // The entry is the `bare` function symbol, 256-byte aligned.
    let sym = co.symbols().iter().find(|s| s.name == "bare").unwrap();
    assert_eq!(k.entry_address, sym.address);
    // `echo 's_load_dword s2, s[0:1], 0x0' | llvm-mc-22 -arch=amdgcn -mcpu=gfx950 -show-encoding`
    assert_eq!(&co.text()[..8], &[0x80, 0x00, 0x02, 0xc0, 0, 0, 0, 0][..]);
    assert_eq!(co.text_address(), sym.address);
}

#[test]
fn preloaded_kernarg_kernels_enter_256_bytes_later_on_cdna() {
    let co = CodeObject::parse(&fixture("kernels_gfx950_preload_v6.hsaco")).unwrap();
    let k = co.kernel("vadd").unwrap();
    assert!(k.descriptor.kernarg_preload_length() > 0);
    assert_eq!(k.preload_entry_address(co.target()), k.entry_address + 256);
    let l = k.descriptor.user_sgpr_layout();
    assert_eq!(l.end as u32, k.descriptor.user_sgpr_count());
    let plain = CodeObject::parse(&fixture("kernels_gfx950_v6.hsaco")).unwrap();
    let k = plain.kernel("vadd").unwrap();
    assert_eq!(k.preload_entry_address(plain.target()), k.entry_address);
}

#[test]
fn the_user_sgpr_layout_accounts_for_every_user_sgpr() {
    // USER_SGPR_COUNT in rsrc2 is written by LLVM; our layout computed from the enable bits
    // (plus preloaded arguments) must reach the same count for every kernel.
    for name in [
        "kernels_gfx90a_v5.hsaco",
        "kernels_gfx90a_preload_v5.hsaco",
        "kernels_gfx942_v4.hsaco",
        "kernels_gfx1200_v6.hsaco",
        "kernels_gfx950_preload_v6.hsaco",
    ] {
        let co = CodeObject::parse(&fixture(name)).unwrap();
        for k in co.kernels() {
            let l = k.descriptor.user_sgpr_layout();
            assert_eq!(
                l.end as u32,
                k.descriptor.user_sgpr_count(),
                "{name} {}",
                k.name
            );
        }
    }
}

#[test]
fn random_corruption_never_panics() {
    // A deterministic stand-in for the fuzz target (fuzz/fuzz_targets/loader.rs), cheap
    // enough for every test run: flip bytes, overwrite words with boundary values and
    // truncate, across every fixture.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "hsaco"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    files.sort();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let mut b = files[next() as usize % files.len()].clone();
        for _ in 0..1 + next() % 4 {
            let at = next() as usize % b.len();
            match next() % 3 {
                0 => b[at] ^= 1 << (next() % 8),
                1 => {
                    let v = [0u64, u64::MAX, 0x8000_0000_0000_0000, 0x7fff_ffff, 64]
                        [next() as usize % 5];
                    let end = (at + 8).min(b.len());
                    b[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
                }
                _ => b.truncate(at.max(1)),
            }
        }
        match CodeObject::parse(&b) {
            Ok(co) => {
                ok += 1;
                // Whatever parsed must also be mappable or refused cleanly.
                let mut mem = gpu_model::memory::DeviceMemory::new();
                let _ = mem.load_code_object(&co);
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    eprintln!("{ok} corrupted objects still parsed, {refused} refused");
    assert!(refused > 1000);
}
