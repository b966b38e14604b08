//! Explicit arguments of every kind the metadata declares, with real clang-22 objects
//! (`fixtures/abi/args.cl`): OpenCL `__local` pointer arguments get LDS offsets after the
//! static LDS, each aligned to its pointee type, one after another (ROCclr's
//! `processMemObjects`); structs pass by value as raw bytes; wrong sizes and LDS beyond a
//! workgroup's are typed errors that name the kernel.

use gpu_model::device::{ArgValue, Device, DeviceError, LaunchConfig};
use gpu_model::dispatch::kernarg::KernargError;
use gpu_model::Target;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/abi/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn words(dev: &Device, addr: u64, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; n * 4];
    dev.copy_out(addr, &mut b).unwrap();
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn align(x: u32, a: u32) -> u32 {
    x.div_ceil(a) * a
}

/// One workgroup of 64 with `__local uchar *a` (align 1), `__local float4 *b` (16) and
/// `__local double *c` (8) of the given byte sizes after `__local uint stat[10]`.
fn lds_args(target: Target, file: &str, sizes: [u32; 3]) {
    let mut dev = Device::new(target);
    let m = dev.load_code_object(&fixture(file)).unwrap();
    let stat = dev
        .kernel(m, "lds_args")
        .unwrap()
        .descriptor
        .group_segment_fixed_size;
    // The static array is the kernel's only static LDS: 10 words.
    assert_eq!(stat, 40, "{file}");
    let out = dev.alloc(4 * (4 + 4 * 64)).unwrap();
    let args = [
        ArgValue::ptr(out),
        ArgValue::lds(sizes[0]),
        ArgValue::lds(sizes[1]),
        ArgValue::lds(sizes[2]),
    ];
    let id = dev
        .dispatch(
            m,
            "lds_args",
            &LaunchConfig::new([64, 1, 1], [64, 1, 1]),
            &args,
        )
        .unwrap();
    dev.wait(id).unwrap();
    let got = words(&dev, out, 4 + 4 * 64);
    // Alignments from the C types of args.cl, not from the metadata.
    let a = align(stat, 1);
    let b = align(a + sizes[0], 16);
    let c = align(b + sizes[1], 8);
    assert_eq!(
        &got[..4],
        &[0, a, b, c],
        "{file}: LDS offsets of stat, a, b, c"
    );
    for l in 0..64u32 {
        let r = 63 - l;
        let want = [
            1000 + r % 10,
            (r * 7) & 0xff,
            ((r as f32 + 0.5) + 2.0 * r as f32).to_bits(),
            r,
        ];
        let i = (4 + 4 * l) as usize;
        assert_eq!(&got[i..i + 4], &want, "{file}: work-item {l}");
    }
}

#[test]
fn local_pointer_arguments_are_laid_out_after_static_lds_gfx942_v5() {
    // Exact fits, then sizes that need padding before b (40 + 67 -> 112) and c
    // (112 + 1028 = 1140 -> 1144).
    lds_args(Target::Gfx942, "args_gfx942_v5.hsaco", [64, 1024, 512]);
    lds_args(Target::Gfx942, "args_gfx942_v5.hsaco", [67, 1028, 513]);
}

#[test]
fn local_pointer_arguments_are_laid_out_after_static_lds_gfx1201_v6() {
    lds_args(Target::Gfx1201, "args_gfx1201_v6.hsaco", [64, 1024, 512]);
    lds_args(Target::Gfx1201, "args_gfx1201_v6.hsaco", [67, 1028, 513]);
}

#[test]
fn lds_beyond_a_workgroup_is_a_typed_error_naming_the_kernel() {
    let mut dev = Device::new(Target::Gfx942);
    let m = dev
        .load_code_object(&fixture("args_gfx942_v5.hsaco"))
        .unwrap();
    let out = dev.alloc(4096).unwrap();
    let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
    // 40 static + 64 + pad to 112 + 65000 + 512: over gfx942's 64 KiB.
    let args = [
        ArgValue::ptr(out),
        ArgValue::lds(64),
        ArgValue::lds(65000),
        ArgValue::lds(512),
    ];
    let e = dev.dispatch(m, "lds_args", &cfg, &args).unwrap_err();
    match &e {
        DeviceError::Kernarg {
            kernel,
            source:
                KernargError::LdsTooLarge {
                    static_lds,
                    total,
                    limit,
                    ..
                },
        } => {
            assert_eq!(kernel, "lds_args");
            assert_eq!(
                (*static_lds, *total, *limit),
                (40, 112 + 65000 + 512, 65536)
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(e.to_string().contains("lds_args"), "{e}");
    // The HIP-style dynamic LDS counts too: exactly the limit fits, one byte more does not.
    let small = [
        ArgValue::ptr(out),
        ArgValue::lds(64),
        ArgValue::lds(1024),
        ArgValue::lds(512),
    ];
    let used = 1136 + 512;
    let fits = LaunchConfig {
        dynamic_lds: 65536 - used,
        ..cfg
    };
    let id = dev.dispatch(m, "lds_args", &fits, &small).unwrap();
    dev.wait(id).unwrap();
    let over = LaunchConfig {
        dynamic_lds: 65536 - used + 1,
        ..cfg
    };
    assert!(matches!(
        dev.dispatch(m, "lds_args", &over, &small),
        Err(DeviceError::Kernarg {
            source: KernargError::LdsTooLarge { .. },
            ..
        })
    ));
    // An LDS size must have the argument's size (4 bytes for an LDS pointer).
    let wide = [
        ArgValue::ptr(out),
        ArgValue::u64(64),
        ArgValue::lds(1024),
        ArgValue::lds(512),
    ];
    assert!(matches!(
        dev.dispatch(m, "lds_args", &cfg, &wide),
        Err(DeviceError::ArgSize {
            index: 1,
            expected: 4,
            got: 8,
            ..
        })
    ));
}

/// `params_t` of args.cl in memory order: f32, u32, f64, 3 x u8 (+1 pad), u16 (+2 pad).
fn params(f: f32, u: u32, d: f64, c: [u8; 3], h: u16) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&f.to_le_bytes());
    b.extend_from_slice(&u.to_le_bytes());
    b.extend_from_slice(&d.to_le_bytes());
    b.extend_from_slice(&c);
    b.push(0);
    b.extend_from_slice(&h.to_le_bytes());
    b.extend_from_slice(&[0, 0]);
    b
}

#[test]
fn structs_pass_by_value_as_raw_bytes() {
    for (target, file) in [
        (Target::Gfx942, "args_gfx942_v5.hsaco"),
        (Target::Gfx1201, "args_gfx1201_v6.hsaco"),
    ] {
        let mut dev = Device::new(target);
        let m = dev.load_code_object(&fixture(file)).unwrap();
        let out = dev.alloc(64).unwrap();
        let d = -1234.5678f64;
        let p = params(2.5, 0xdead_beef, d, [1, 2, 3], 0xabcd);
        assert_eq!(p.len(), 24);
        let cfg = LaunchConfig::new([64, 1, 1], [64, 1, 1]);
        let args = [ArgValue::ptr(out), ArgValue::bytes(&p), ArgValue::u32(77)];
        let id = dev.dispatch(m, "by_struct", &cfg, &args).unwrap();
        dev.wait(id).unwrap();
        let bits = d.to_bits();
        assert_eq!(
            words(&dev, out, 7),
            [
                2.5f32.to_bits(),
                0xdead_beef,
                bits as u32,
                (bits >> 32) as u32,
                0x03_02_01,
                0xabcd,
                77
            ],
            "{file}"
        );
        // A struct of the wrong size is refused, naming the kernel and the argument.
        let short = [
            ArgValue::ptr(out),
            ArgValue::bytes(&p[..20]),
            ArgValue::u32(77),
        ];
        let e = dev.dispatch(m, "by_struct", &cfg, &short).unwrap_err();
        assert!(
            matches!(
                &e,
                DeviceError::ArgSize { kernel, index: 1, expected: 24, got: 20 } if kernel == "by_struct"
            ),
            "{e:?}"
        );
    }
}

#[test]
fn kernarg_segment_of_a_real_v5_kernel_matches_rocclr() {
    use gpu_model::dispatch::kernarg::{build_kernargs, LaunchShape};
    use gpu_model::loader::{CodeObject, ValueKind};
    let co = CodeObject::parse(&fixture("args_gfx942_v5.hsaco")).unwrap();
    let k = co.kernel("lds_args").unwrap();
    let md = k.metadata.as_ref().unwrap();
    // 1-D grid of 1000 in groups of 256, 300 bytes of HIP-style dynamic LDS.
    let shape = LaunchShape {
        grid: [1000, 1, 1],
        workgroup: [256, 1, 1],
        dynamic_lds: 300,
    };
    let args: [&[u8]; 4] = [
        &0x1234_5678_9abc_def0u64.to_le_bytes(),
        &100u32.to_le_bytes(),
        &16u32.to_le_bytes(),
        &8u32.to_le_bytes(),
    ];
    let built = build_kernargs(md, &k.descriptor, &shape, 0x7000, args.into_iter(), 65536).unwrap();
    // Static 40; a at 40 (+100 = 140); b at 144 (+16 = 160); c at 160 (+8 = 168); then
    // the 300 dynamic bytes: group_segment_size = ldsUsage + sharedMemBytes.
    assert_eq!(built.group_segment_size, 168 + 300);
    let at = |kind: ValueKind| {
        let a = md.args.iter().find(|a| a.value_kind == kind).unwrap();
        let mut v = [0u8; 8];
        let n = a.size as usize;
        v[..n].copy_from_slice(&built.bytes[a.offset as usize..a.offset as usize + n]);
        u64::from_le_bytes(v)
    };
    let explicit: Vec<_> = md.explicit_args().collect();
    let word = |i: usize| {
        let o = explicit[i].offset as usize;
        u32::from_le_bytes(built.bytes[o..o + 4].try_into().unwrap())
    };
    assert_eq!((word(1), word(2), word(3)), (40, 144, 160));
    // ROCclr: block count = global / local rounded down, remainder = global % local, group
    // size = local, 1 / 1 and 0 in unused dimensions; hidden_dynamic_lds_size is the
    // launch's sharedMemBytes only.
    assert_eq!(at(ValueKind::HiddenBlockCountX), 3);
    assert_eq!(at(ValueKind::HiddenBlockCountY), 1);
    assert_eq!(at(ValueKind::HiddenBlockCountZ), 1);
    assert_eq!(at(ValueKind::HiddenGroupSizeX), 256);
    assert_eq!(at(ValueKind::HiddenGroupSizeY), 1);
    assert_eq!(at(ValueKind::HiddenRemainderX), 232);
    assert_eq!(at(ValueKind::HiddenRemainderY), 0);
    assert_eq!(at(ValueKind::HiddenGridDims), 1);
    assert_eq!(at(ValueKind::HiddenGlobalOffsetX), 0);
    assert_eq!(at(ValueKind::HiddenDynamicLdsSize), 300);
}
