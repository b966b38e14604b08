//! Device memory: allocation, typed and bulk accesses, faults, checkpoints, code objects.

use gpu_model::loader::CodeObject;
use gpu_model::memory::{
    Access, DeviceMemory, FaultKind, ImageError, MemFault, MemoryError, HEAP_START, MAX_ALLOCATION,
    PAGE_SIZE,
};
use std::path::Path;

#[test]
fn allocations_are_aligned_stable_and_zeroed() {
    let mut m = DeviceMemory::new();
    let a = m.allocate(100, 1).unwrap();
    let b = m.allocate(3 * PAGE_SIZE + 5, 1 << 20).unwrap();
    let c = m.allocate(8, 256).unwrap();
    assert_eq!(a, HEAP_START);
    assert_eq!(b % (1 << 20), 0);
    assert!(b >= a + PAGE_SIZE * 2, "guard page after a");
    assert!(c > b + 3 * PAGE_SIZE);
    for (base, size) in [(a, 100), (b, 3 * PAGE_SIZE + 5), (c, 8)] {
        let info = m.allocation_at(base + size - 1).unwrap();
        assert_eq!((info.base, info.size), (base, size));
        let mut buf = vec![0xffu8; size as usize];
        m.read(base, &mut buf).unwrap();
        assert!(buf.iter().all(|&x| x == 0));
    }
    assert_eq!(m.allocate(0, 1), Err(MemoryError::ZeroSize));
    assert_eq!(m.allocate(1, 3), Err(MemoryError::BadAlignment(3)));
    assert_eq!(
        m.allocate(1 << 62, 1),
        Err(MemoryError::TooLarge {
            size: 1 << 62,
            max: MAX_ALLOCATION
        })
    );
    // Alignment so large that no aligned base is left below the 48-bit limit.
    assert_eq!(
        m.allocate(16, 1 << 47),
        Err(MemoryError::OutOfAddressSpace {
            size: 16,
            align: 1 << 47
        })
    );
    // Exhausting the address space is an error, not a hang.
    let mut big = DeviceMemory::new();
    big.allocate_at(0x7fff_0000_0000, PAGE_SIZE).unwrap();
    let e = big.allocate(PAGE_SIZE, 1 << 46).unwrap(); // the only 64 TiB-aligned base left
    assert_eq!(e, 0x4000_0000_0000);
    assert!(big.allocate(PAGE_SIZE, 1 << 46).is_err());
}

#[test]
fn typed_accesses_are_little_endian_at_any_alignment_and_across_pages() {
    let mut m = DeviceMemory::new();
    let base = m.allocate(2 * PAGE_SIZE, 1).unwrap();
    let mut shadow = vec![0u8; 2 * PAGE_SIZE as usize];
    let mut seed = 7u64;
    for _ in 0..20_000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Offsets cluster around the page boundary to exercise the split path.
        let off = if seed & 1 == 0 {
            PAGE_SIZE - 20 + (seed >> 8) % 40
        } else {
            (seed >> 8) % (2 * PAGE_SIZE - 16)
        };
        let v = seed.rotate_left(29);
        let a = base + off;
        let o = off as usize;
        match (seed >> 40) % 7 {
            0 => {
                m.store_u8(a, v as u8).unwrap();
                shadow[o] = v as u8;
            }
            1 => {
                m.store_u16(a, v as u16).unwrap();
                shadow[o..o + 2].copy_from_slice(&(v as u16).to_le_bytes());
            }
            2 => {
                m.store_u32(a, v as u32).unwrap();
                shadow[o..o + 4].copy_from_slice(&(v as u32).to_le_bytes());
            }
            3 => {
                m.store_u64(a, v).unwrap();
                shadow[o..o + 8].copy_from_slice(&v.to_le_bytes());
            }
            4 => {
                let w = (v as u128) << 64 | !v as u128;
                m.store_u128(a, w).unwrap();
                shadow[o..o + 16].copy_from_slice(&w.to_le_bytes());
            }
            k => {
                // 1 to 4 dwords, through the memory or a cursor.
                let d = [
                    v as u32,
                    (v >> 32) as u32,
                    !v as u32,
                    v.rotate_left(7) as u32,
                ];
                let d = &d[..1 + (seed >> 50) as usize % 4];
                if k == 5 {
                    m.store_dwords(a, d).unwrap();
                } else {
                    m.cursor().store_dwords(a, d).unwrap();
                }
                for (i, x) in d.iter().enumerate() {
                    shadow[o + 4 * i..o + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
                }
            }
        }
        let r = (seed >> 16) % (2 * PAGE_SIZE - 16);
        let ro = r as usize;
        let s = &shadow[ro..ro + 16];
        assert_eq!(m.load_u8(base + r).unwrap(), s[0]);
        assert_eq!(
            m.load_u16(base + r).unwrap(),
            u16::from_le_bytes(s[..2].try_into().unwrap())
        );
        assert_eq!(
            m.load_u32(base + r).unwrap(),
            u32::from_le_bytes(s[..4].try_into().unwrap())
        );
        assert_eq!(
            m.load_u64(base + r).unwrap(),
            u64::from_le_bytes(s[..8].try_into().unwrap())
        );
        assert_eq!(
            m.load_u128(base + r).unwrap(),
            u128::from_le_bytes(s.try_into().unwrap())
        );
        let mut d = [0u32; 3];
        m.load_dwords(base + r, &mut d).unwrap();
        assert_eq!(d[2], u32::from_le_bytes(s[8..12].try_into().unwrap()));
    }
    let mut all = vec![0u8; shadow.len()];
    m.read(base, &mut all).unwrap();
    assert_eq!(all, shadow);
    // The cursor sees the same bytes.
    let mut c = m.cursor();
    for off in (0..2 * PAGE_SIZE - 8).step_by(4093) {
        let o = off as usize;
        assert_eq!(
            c.load_u64(base + off).unwrap(),
            u64::from_le_bytes(shadow[o..o + 8].try_into().unwrap())
        );
    }
}

#[test]
fn faults_say_what_where_and_why() {
    let mut m = DeviceMemory::new();
    let a = m.allocate(100, 1).unwrap();
    // Inside the allocation's page but past its end: exact to the byte.
    let f = m.load_u32(a + 98).unwrap_err();
    assert_eq!(
        f,
        MemFault {
            addr: a + 98,
            size: 4,
            access: Access::Read,
            kind: FaultKind::OutOfBounds { base: a, size: 100 }
        }
    );
    assert_eq!(
        f.to_string(),
        format!(
            "read of 4 bytes at {:#x}: runs past the end of allocation {a:#x}..{:#x}",
            a + 98,
            a + 100
        )
    );
    assert!(m.load_u32(a + 96).is_ok());
    assert_eq!(
        m.store_u8(a + 100, 1).unwrap_err().kind,
        FaultKind::OutOfBounds { base: a, size: 100 }
    );
    // Never mapped.
    let f = m.store_u64(0x1234_5678, 1).unwrap_err();
    assert_eq!(
        f.to_string(),
        "write of 8 bytes at 0x12345678: address is not mapped"
    );
    assert_eq!(m.load_u8(0).unwrap_err().kind, FaultKind::Unmapped);
    // Outside the 48-bit space.
    assert_eq!(
        m.load_u32(0xffff_8000_0000_0000).unwrap_err().kind,
        FaultKind::NonCanonical
    );
    // A bulk write that runs off the end changes nothing.
    m.store_u32(a + 96, 0x1111_1111).unwrap();
    assert!(m.write(a + 90, &[0xee; 20]).is_err());
    assert_eq!(m.load_u32(a + 96).unwrap(), 0x1111_1111);
    assert_eq!(m.load_u8(a + 90).unwrap(), 0);
    // Use after free.
    m.free(a).unwrap();
    let f = m.load_u32(a + 4).unwrap_err();
    assert_eq!(f.kind, FaultKind::Freed { base: a, size: 100 });
    assert_eq!(
        f.to_string(),
        format!(
            "read of 4 bytes at {:#x}: allocation {a:#x}..{:#x} was freed",
            a + 4,
            a + 100
        )
    );
    assert_eq!(m.free(a), Err(MemoryError::NotAllocated(a)));
    // Freed ranges are not handed out again.
    let b = m.allocate(100, 1).unwrap();
    assert_ne!(a, b);
    // Misaligned atomics fault; misaligned plain accesses do not.
    assert!(m.load_u32(b + 1).is_ok());
    let f = m
        .atomic_u32(b + 2, gpu_model::memory::AtomicOp::Add, 1, 0)
        .unwrap_err();
    assert_eq!(
        f.to_string(),
        format!("atomic of 4 bytes at {:#x}: not aligned to 4 bytes", b + 2)
    );
}

#[test]
fn an_access_cannot_run_from_one_allocation_into_the_next() {
    let mut m = DeviceMemory::new();
    let a = m.allocate_at(0x2000_0000_0000, PAGE_SIZE).unwrap();
    let b = m
        .allocate_at(0x2000_0000_0000 + PAGE_SIZE, PAGE_SIZE)
        .unwrap();
    assert_eq!(b, a + PAGE_SIZE);
    let f = m.load_u64(b - 4).unwrap_err();
    assert_eq!(
        f.kind,
        FaultKind::OutOfBounds {
            base: a,
            size: PAGE_SIZE
        }
    );
    assert!(matches!(
        m.allocate_at(a + 7, 10),
        Err(MemoryError::BadFixedAddress { .. })
    ));
    assert!(matches!(
        m.allocate_at(a, 10),
        Err(MemoryError::BadFixedAddress { .. })
    ));
    // The bump allocator skips fixed mappings in its way.
    let mut m = DeviceMemory::new();
    m.allocate_at(HEAP_START, 4 * PAGE_SIZE).unwrap();
    let c = m.allocate(10, 1).unwrap();
    assert!(c >= HEAP_START + 5 * PAGE_SIZE);
}

#[test]
fn copy_fill_and_overlapping_copy() {
    let mut m = DeviceMemory::new();
    let a = m.allocate(1000, 1).unwrap();
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 251) as u8).collect();
    m.write(a, &data).unwrap();
    m.copy(a + 10, a, 500).unwrap();
    let mut expect = data.clone();
    expect.copy_within(0..500, 10);
    let mut got = vec![0u8; 1000];
    m.read(a, &mut got).unwrap();
    assert_eq!(got, expect);
    m.fill(a + 3, 0xab, 7).unwrap();
    m.read(a, &mut got).unwrap();
    expect[3..10].fill(0xab);
    assert_eq!(got, expect);
    assert!(m.copy(a, a + 900, 200).is_err());
}

#[test]
fn snapshots_round_trip_through_serde() {
    let mut m = DeviceMemory::new();
    let a = m.allocate(3 * PAGE_SIZE, 1).unwrap();
    let b = m.allocate(16, 1).unwrap();
    let c = m.allocate(16, 1).unwrap();
    m.free(c).unwrap();
    m.store_u64(a + PAGE_SIZE + 8, 0x0102_0304_0506_0708)
        .unwrap();
    m.store_u32(b + 12, 0xcafe_f00d).unwrap();
    let json = serde_json::to_string(&m).unwrap();
    let r: DeviceMemory = serde_json::from_str(&json).unwrap();
    assert_eq!(r.snapshot(), m.snapshot());
    assert_eq!(
        r.load_u64(a + PAGE_SIZE + 8).unwrap(),
        0x0102_0304_0506_0708
    );
    assert_eq!(r.load_u32(b + 12).unwrap(), 0xcafe_f00d);
    assert_eq!(
        r.load_u32(c).unwrap_err().kind,
        FaultKind::Freed { base: c, size: 16 }
    );
    assert_eq!(r.allocation_at(a).unwrap(), m.allocation_at(a).unwrap());
    // Only the written page of `a` is stored.
    let s = m.snapshot();
    assert_eq!(s.allocations[0].pages.len(), 1);
    // Allocation continues where it left off.
    let mut r = r;
    assert_eq!(r.allocate(8, 1).unwrap(), m.allocate(8, 1).unwrap());
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

#[test]
fn loaded_code_objects_are_relocated_as_llvm_readelf_lists() {
    for name in ["globals_gfx942_v5.hsaco", "globals_gfx1201_v6.hsaco"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        let co = CodeObject::parse(&bytes).unwrap();
        let mut m = DeviceMemory::new();
        m.allocate(12345, 1).unwrap(); // so the image does not sit at a round address
        let lo = m.load_code_object(&co).unwrap();
        assert_eq!(lo.base % co.image().align, 0);
        // The oracle: llvm-readelf's list of dynamic relocations.
        let out = std::process::Command::new("llvm-readelf-22")
            .args(["--elf-output-style=JSON", "-r", path.to_str().unwrap()])
            .output()
            .expect("llvm-readelf-22 (see shared/TOOLCHAIN.md)");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let relocs: Vec<&serde_json::Value> = json[0]["Relocations"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["Relocs"].as_array().unwrap())
            .map(|r| &r["Relocation"])
            .collect();
        assert_eq!(relocs.len(), co.relocations().len());
        assert!(relocs.len() >= 3, "{name}");
        for r in relocs {
            assert_eq!(r["Type"]["Name"], "R_AMDGPU_RELATIVE64");
            let off = r["Offset"].as_u64().unwrap();
            let addend = r["Addend"].as_u64().unwrap();
            assert_eq!(
                m.load_u64(lo.base + off).unwrap(),
                lo.base + addend,
                "{name} reloc at {off:#x}"
            );
        }
        // Segments are in place: the kernel descriptor reads back from device memory.
        let k = &co.kernels()[0];
        let lk = lo.kernel(&k.name).unwrap();
        assert_eq!(lk.descriptor_address, lo.base + k.descriptor_address);
        assert_eq!(lk.entry_address, lo.base + k.entry_address);
        let mut kd = [0u8; 64];
        m.read(lk.descriptor_address, &mut kd).unwrap();
        assert_eq!(kd, k.descriptor.to_bytes());
        let mut text = vec![0u8; co.text().len()];
        m.read(lo.base + co.text_address(), &mut text).unwrap();
        assert_eq!(text, co.text());
        m.free(lo.base).unwrap();
    }
}

#[test]
fn unknown_relocation_types_are_refused_by_number() {
    let mut bytes = fixture("globals_gfx942_v5.hsaco");
    // Patch r_info's type of the first .rela.dyn entry (located with goblin) to 99.
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    let rela = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".rela.dyn"))
        .unwrap();
    let at = rela.sh_offset as usize + 8;
    drop(elf);
    bytes[at..at + 4].copy_from_slice(&99u32.to_le_bytes());
    let co = CodeObject::parse(&bytes).unwrap();
    let mut m = DeviceMemory::new();
    let e = m.load_code_object(&co).unwrap_err();
    assert!(matches!(
        e,
        ImageError::UnsupportedRelocation { r_type: 99, .. }
    ));
    assert_eq!(
        e.to_string(),
        format!("relocation at image offset {:#x} has type 99, which is not supported (supported: R_AMDGPU_ABS64 = 3, R_AMDGPU_RELATIVE64 = 13)", co.relocations()[0].offset)
    );
    // Nothing stays allocated.
    assert_eq!(m.allocations().count(), 0);
}

#[test]
fn allocations_are_bounded_by_the_device_capacity() {
    let mut m = DeviceMemory::with_capacity(4 * PAGE_SIZE);
    let a = m.allocate(PAGE_SIZE + 1, 1).unwrap(); // two pages
    let b = m.allocate(PAGE_SIZE, 1).unwrap();
    assert_eq!(m.in_use(), 3 * PAGE_SIZE);
    let e = m.allocate(PAGE_SIZE + 1, 1).unwrap_err();
    assert_eq!(
        e,
        MemoryError::OutOfMemory {
            size: PAGE_SIZE + 1,
            in_use: 3 * PAGE_SIZE,
            capacity: 4 * PAGE_SIZE
        }
    );
    assert!(e.to_string().contains("in use"), "{e}");
    let e = m.allocate_at(0x7000_0000_0000, 2 * PAGE_SIZE).unwrap_err();
    assert!(matches!(e, MemoryError::OutOfMemory { .. }), "{e}");
    // The refusals changed nothing; freeing makes room again.
    assert_eq!(m.in_use(), 3 * PAGE_SIZE);
    m.free(a).unwrap();
    m.allocate(3 * PAGE_SIZE, 1).unwrap();
    assert_eq!(m.in_use(), 4 * PAGE_SIZE);
    m.free(b).unwrap();
    // A snapshot round trip keeps the accounting (the capacity is the device's, set again).
    let mut r = DeviceMemory::from_snapshot(&m.snapshot()).unwrap();
    assert_eq!(r.in_use(), 3 * PAGE_SIZE);
    r.set_capacity(m.capacity());
    assert!(r.allocate(2 * PAGE_SIZE, 1).is_err());
    r.allocate(PAGE_SIZE, 1).unwrap();
}

#[test]
fn a_huge_allocation_is_lazy_and_a_larger_one_a_typed_error() {
    // 192 GiB, an mi300x: three 60 GiB allocations are bookkeeping only (this machine has
    // less memory than one of them); the fourth does not fit.
    let mut m = DeviceMemory::with_capacity(192 << 30);
    let bases: Vec<u64> = (0..3).map(|_| m.allocate(60 << 30, 1).unwrap()).collect();
    for &b in &bases {
        let last = b + (60 << 30) - 8;
        m.store_u64(last, 0x1234_5678_9abc_def0).unwrap();
        assert_eq!(m.load_u64(last).unwrap(), 0x1234_5678_9abc_def0);
        assert_eq!(m.load_u64(b).unwrap(), 0);
    }
    let e = m.allocate(60 << 30, 1).unwrap_err();
    assert!(matches!(e, MemoryError::OutOfMemory { .. }), "{e}");
    let e = m.allocate(1 << 50, 1).unwrap_err();
    assert!(matches!(e, MemoryError::TooLarge { .. }), "{e}");
}
