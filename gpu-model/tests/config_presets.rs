//! Presets load, validate and carry the published totals; overrides and RON errors name
//! what went wrong and where.

use gpu_model::config::{ConfigError, DramKind, GpuConfig, WritePolicy, PRESET_NAMES};
use gpu_model::Target;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

#[test]
fn every_preset_loads_and_validates() {
    for name in PRESET_NAMES {
        let cfg = GpuConfig::preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        cfg.validate().unwrap();
        // The embedded text is the file in scenarios/presets (same bytes).
        let path = format!(
            "{}/../scenarios/presets/{name}.ron",
            env!("CARGO_MANIFEST_DIR")
        );
        let on_disk = std::fs::read_to_string(&path).unwrap();
        assert_eq!(GpuConfig::preset_source(name), Some(on_disk.as_str()));
        // Round trip through RON.
        let again = GpuConfig::from_ron(&cfg.to_ron().unwrap(), "roundtrip").unwrap();
        assert_eq!(again, cfg, "{name}");
        assert_eq!(cfg.quantum, 1024);
    }
}

#[test]
fn mi300x_published_totals() {
    // AMD CDNA 3 whitepaper / MI300X data sheet.
    let c = GpuConfig::preset("mi300x").unwrap();
    assert_eq!(c.target, Target::Gfx942);
    assert_eq!(c.total_cus(), 304);
    assert_eq!(c.xcds, 8);
    assert_eq!(c.xcd.active_cus, 38);
    assert_eq!(c.xcd.cu.lds_bytes, 64 * 1024);
    assert_eq!(c.xcd.l2.size_bytes, 4 * MIB);
    assert_eq!(c.xcd.l2.ways, 16);
    assert_eq!(c.xcd.l2.line_bytes, 128);
    assert_eq!(c.xcd.l2.write_policy, WritePolicy::WriteBack);
    assert_eq!(c.total_l2_bytes(), 32 * MIB);
    assert_eq!(c.total_mall_bytes(), 256 * MIB);
    assert_eq!(c.dram.kind, DramKind::Hbm3);
    assert_eq!(c.dram.capacity_bytes, 192 * GIB);
    assert_eq!(c.dram.bandwidth_gbytes_per_s, 5300);
    assert_eq!(c.xcd.cu.vector_cache.size_bytes, 32 * 1024);
    assert_eq!(c.xcd.cu.scalar_cache.size_bytes, 16 * 1024);
    assert_eq!(c.xcd.cu.scalar_cache.shared_by, 2);
    // 512 KiB of vector registers per CU.
    assert_eq!(c.xcd.cu.vgpr_file_bytes * c.xcd.cu.simds, 512 * 1024);
    // 38 CUs over 4 shader engines: 10 + 10 + 9 + 9.
    let per_se: Vec<u32> = (0..4).map(|se| c.xcd.cus_in_se(se)).collect();
    assert_eq!(per_se, [10, 10, 9, 9]);
    assert_eq!(per_se.iter().sum::<u32>(), 38);
}

#[test]
fn other_presets_published_totals() {
    let mi355 = GpuConfig::preset("mi355x").unwrap();
    assert_eq!(mi355.target, Target::Gfx950);
    assert_eq!(mi355.total_cus(), 256);
    assert_eq!(mi355.xcd.cu.lds_bytes, 160 * 1024);
    assert_eq!(mi355.dram.capacity_bytes, 288 * GIB);
    assert_eq!(mi355.total_mall_bytes(), 256 * MIB);

    let mi250x = GpuConfig::preset("mi250x").unwrap();
    assert_eq!(mi250x.target, Target::Gfx90a);
    assert_eq!(mi250x.total_cus(), 220);
    assert_eq!(mi250x.total_mall_bytes(), 0);
    assert_eq!(mi250x.dram.capacity_bytes, 128 * GIB);

    let mi210 = GpuConfig::preset("MI210").unwrap();
    assert_eq!(mi210.total_cus(), 104);
    assert_eq!(mi210.dram.capacity_bytes, 64 * GIB);

    let n48 = GpuConfig::preset("rx9070xt").unwrap();
    assert_eq!(n48.target, Target::Gfx1201);
    assert_eq!(n48.total_cus(), 64);
    assert_eq!(n48.total_mall_bytes(), 64 * MIB);
    assert!(n48.supports_wave_size(32) && n48.supports_wave_size(64));
    // 1536 wave32 VGPRs per SIMD, 768 at wave64, granules 24 and 12 (LLVM 22).
    assert_eq!(n48.xcd.cu.vgprs_per_simd(32), 1536);
    assert_eq!(n48.xcd.cu.vgprs_per_simd(64), 768);
    assert_eq!(n48.xcd.cu.vgpr_granule(32), 24);
    assert_eq!(n48.xcd.cu.vgpr_granule(64), 12);

    let n44 = GpuConfig::preset("rx9060xt").unwrap();
    assert_eq!(n44.target, Target::Gfx1200);
    assert_eq!(n44.total_cus(), 32);
    assert_eq!(n44.dram.bandwidth_gbytes_per_s, 320);
}

#[test]
fn unknown_preset_lists_names() {
    let err = GpuConfig::preset("mi400").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ConfigError::UnknownPreset { .. }));
    for name in PRESET_NAMES {
        assert!(msg.contains(name), "{msg}");
    }
}

#[test]
fn override_by_path_and_by_partial_struct() {
    let base = GpuConfig::preset("mi300x").unwrap();
    let c = base
        .with_overrides_ron(r#"{"xcd.l2.size_bytes": 8388608, "quantum": 64}"#)
        .unwrap();
    assert_eq!(c.xcd.l2.size_bytes, 8 * MIB);
    assert_eq!(c.quantum, 64);
    assert_eq!(c.xcd.l2.ways, base.xcd.l2.ways);
    c.validate().unwrap();

    let c = base
        .with_overrides_ron(
            r#"{"xcd": (active_cus: 20, cu: (lds_bytes: 32768)), "dram.kind": "Hbm3e"}"#,
        )
        .unwrap();
    assert_eq!(c.total_cus(), 160);
    assert_eq!(c.xcd.cu.lds_bytes, 32768);
    assert_eq!(c.xcd.cu.simds, base.xcd.cu.simds);
    assert_eq!(c.dram.kind, DramKind::Hbm3e);

    // List elements by index, options set whole.
    let c = base.with_overrides_ron(r#"{"iod.mall": None}"#).unwrap();
    assert_eq!(c.total_mall_bytes(), 0);
    let c = GpuConfig::preset("mi250x")
        .unwrap()
        .with_overrides_ron(
            r#"{"iod.mall": Some((size_bytes: 1048576, line_bytes: 64, ways: 16, latency_cycles: 9))}"#,
        )
        .unwrap();
    assert_eq!(c.total_mall_bytes(), 2 * MIB);
    c.validate().unwrap();
}

#[test]
fn override_errors_name_the_field_path() {
    let base = GpuConfig::preset("mi300x").unwrap();
    match base
        .with_overrides_ron(r#"{"xcd.l2.sise_bytes": 1}"#)
        .unwrap_err()
    {
        ConfigError::UnknownField { path, hint } => {
            assert_eq!(path, "xcd.l2.sise_bytes");
            assert!(hint.contains("size_bytes"), "{hint}");
        }
        e => panic!("{e}"),
    }
    match base
        .with_overrides_ron(r#"{"xcd": (cu: (ldss: 1))}"#)
        .unwrap_err()
    {
        ConfigError::UnknownField { path, .. } => assert_eq!(path, "xcd.cu.ldss"),
        e => panic!("{e}"),
    }
    match base
        .with_overrides_ron(r#"{"xcd.l2.ways": "many"}"#)
        .unwrap_err()
    {
        ConfigError::BadOverride { path, message } => {
            assert_eq!(path, "xcd.l2.ways");
            assert!(message.contains("invalid type"), "{message}");
        }
        e => panic!("{e}"),
    }
    match base
        .with_overrides_ron(r#"{"dram.kind": Hbm3e}"#)
        .unwrap_err()
    {
        ConfigError::BadOverride { path, message } => {
            assert_eq!(path, "dram.kind");
            assert!(message.contains("as strings"), "{message}");
        }
        e => panic!("{e}"),
    }
    let mi250x = GpuConfig::preset("mi250x").unwrap();
    match mi250x
        .with_overrides_ron(r#"{"iod.mall.size_bytes": 1}"#)
        .unwrap_err()
    {
        ConfigError::BadOverride { path, message } => {
            assert_eq!(path, "iod.mall.size_bytes");
            assert!(message.contains("`iod.mall` is None"), "{message}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn ron_errors_carry_line_and_column() {
    // Override text with a syntax error on line 2, column 18 (the stray `:`).
    let base = GpuConfig::preset("mi300x").unwrap();
    let err = base
        .with_overrides_ron("{\n  \"quantum\": 64 : 3,\n}")
        .unwrap_err();
    match &err {
        ConfigError::Ron {
            origin,
            line,
            column,
            ..
        } => {
            assert_eq!(origin, "override");
            assert_eq!((*line, *column), (2, 17), "{err}");
        }
        e => panic!("{e}"),
    }
    assert!(err.to_string().starts_with("override:2:17: "), "{err}");

    // A whole config with an unknown field: the position points at it.
    let src = GpuConfig::preset_source("mi300x").unwrap();
    let bad = src.replacen("quantum: 1024,", "quantum: 1024,\n    quantun: 1,", 1);
    let line = bad.lines().position(|l| l.contains("quantun")).unwrap() + 1;
    match GpuConfig::from_ron(&bad, "bad.ron").unwrap_err() {
        ConfigError::Ron {
            line: l,
            column,
            message,
            ..
        } => {
            assert_eq!(l, line);
            assert_eq!(column, 5);
            assert!(message.contains("quantun"), "{message}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn validation_names_the_field() {
    let base = GpuConfig::preset("mi300x").unwrap();
    let check = |ovr: &str| {
        base.with_overrides_ron(ovr)
            .unwrap()
            .validate()
            .unwrap_err()
    };

    assert_eq!(
        check(r#"{"xcd.active_cus": 0}"#),
        ConfigError::Zero {
            field: "xcd.active_cus".into()
        }
    );
    assert_eq!(
        check(r#"{"xcd.cu.vector_cache.line_bytes": 96}"#),
        ConfigError::NotPowerOfTwo {
            field: "xcd.cu.vector_cache.line_bytes".into(),
            value: 96
        }
    );
    assert_eq!(
        check(r#"{"xcd.l2.size_bytes": 4194305}"#),
        ConfigError::CacheGeometry {
            field: "xcd.l2".into(),
            size: 4194305,
            line: 128,
            ways: 16
        }
    );
    assert!(matches!(
        check(r#"{"xcd.l2.write_policy": "WriteThrough"}"#),
        ConfigError::Invalid { field, .. } if field == "xcd.l2.write_policy"
    ));
    assert!(matches!(
        check(r#"{"wave_sizes": [32]}"#),
        ConfigError::Invalid { field, .. } if field == "wave_sizes.0"
    ));
    assert!(matches!(
        check(r#"{"xcd.cu.lds_bytes": 1000}"#),
        ConfigError::Invalid { field, .. } if field == "xcd.cu.lds_bytes"
    ));
    assert!(matches!(
        check(r#"{"max_workgroup_size": 2048}"#),
        ConfigError::Invalid { field, .. } if field == "max_workgroup_size"
    ));
}
