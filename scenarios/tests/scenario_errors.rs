//! Bad scenarios give errors a user can act on: position, field path, launch, argument.

use scenarios::scenario::{Scenario, ScenarioError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Parses and resolves `src` against the workspace root; returns the error text.
fn err(src: &str) -> String {
    let e = Scenario::parse(src, "t.ron")
        .and_then(|s| s.resolve("t.ron", &root()))
        .expect_err("scenario should be rejected");
    e.to_string()
}

/// A valid vadd scenario with `launch` spliced into the launch and `extra` into the top.
fn vadd(args: &str, extra: &str) -> String {
    format!(
        r#"(
    gpu: "mi300x",
    buffers: [
        (name: "a", elem: F32, len: 1000, init: Random(seed: 1, lo: -1.0, hi: 1.0)),
        (name: "b", elem: F32, len: 1000, init: Iota),
        (name: "c", elem: F32, len: 1000),
    ],
    launches: [(
        code_object: "corpus/build/gfx942/vadd.hsaco",
        kernel: "vadd",
        grid: (1000, 1, 1),
        workgroup: (256, 1, 1),
        args: [{args}],
    )],
    {extra}
)"#
    )
}

#[test]
fn a_valid_scenario_resolves() {
    let s = Scenario::parse(
        &vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, ""),
        "t.ron",
    )
    .unwrap();
    let w = s.resolve("t.ron", &root()).unwrap();
    assert_eq!(w.config.total_cus(), 304);
    assert_eq!(w.buffers.len(), 3);
    // A zero buffer holds nothing on the host.
    assert!(w.buffers[2].bytes.is_empty());
    assert_eq!(w.buffers[2].size(), 4000);
    // Iota in f32.
    assert_eq!(&w.buffers[1].bytes[4..8], &1.0f32.to_le_bytes());
    assert_eq!(w.launches[0].args.len(), 4);
}

#[test]
fn ron_syntax_error_has_line_and_column() {
    let e = err("(\n    gpu: \"mi300x\",\n    buffers: [ (name: \"a\" elem: F32) ],\n)");
    assert!(e.starts_with("t.ron:3:"), "{e}");
}

#[test]
fn unknown_field_names_the_field_path() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "").replace(
        "workgroup: (256, 1, 1),",
        "workgroup: (256, 1, 1), wokgroup: 3,",
    );
    let e = err(&src);
    assert!(e.contains("t.ron:"), "{e}");
    assert!(e.contains("wokgroup"), "{e}");
    assert!(e.contains("(at `launches[0]"), "{e}");
}

#[test]
fn wrong_type_names_the_field_path() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "")
        .replace("len: 1000, init: Iota", "len: \"many\", init: Iota");
    let e = err(&src);
    assert!(e.contains("(at `buffers[1].len`)"), "{e}");
}

#[test]
fn unknown_buffer_names_launch_and_argument() {
    let e = err(&vadd(
        r#"Buffer("a"), Buffer("x"), Buffer("c"), U32(1000)"#,
        "",
    ));
    assert_eq!(
        e,
        "launch 0 (`vadd`), argument 1: no buffer named `x` (buffers: a, b, c)"
    );
}

#[test]
fn buffer_for_scalar_names_the_argument() {
    let e = err(&vadd(
        r#"Buffer("a"), Buffer("b"), Buffer("c"), Buffer("b")"#,
        "",
    ));
    assert_eq!(
        e,
        "launch 0: argument 3 `n` of kernel `vadd` expects a 4-byte scalar, got buffer `b`"
    );
}

#[test]
fn scalar_of_wrong_size_is_refused() {
    let e = err(&vadd(
        r#"Buffer("a"), Buffer("b"), Buffer("c"), U64(1000)"#,
        "",
    ));
    assert_eq!(
        e,
        "launch 0: argument 3 `n` of kernel `vadd` expects a 4-byte scalar, got a 8-byte scalar"
    );
}

#[test]
fn scalar_for_buffer_is_refused() {
    let e = err(&vadd(r#"U32(0), Buffer("b"), Buffer("c"), U32(1000)"#, ""));
    assert_eq!(
        e,
        "launch 0: argument 0 `a` of kernel `vadd` expects a buffer (or U64(0), a null pointer), got a 4-byte scalar"
    );
}

#[test]
fn argument_count_lists_the_kernels_arguments() {
    let e = err(&vadd(r#"Buffer("a"), Buffer("b")"#, ""));
    assert_eq!(
        e,
        "launch 0: kernel `vadd` takes 4 arguments (a, b, c, n), got 2"
    );
}

#[test]
fn unknown_kernel_lists_the_kernels_present() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "")
        .replace("kernel: \"vadd\"", "kernel: \"vad\"");
    let e = err(&src);
    assert!(e.starts_with("launch 0: no kernel `vad` in "), "{e}");
    assert!(e.ends_with("(kernels: vadd)"), "{e}");
}

#[test]
fn buffer_too_small_for_the_grid() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "").replace(
        "grid: (1000, 1, 1),",
        "grid: (1024, 1, 1), elements_per_item: Some(1),",
    );
    let e = err(&src);
    assert_eq!(
        e,
        "launch 0 (`vadd`): buffer `a` (argument 0) has 1000 elements but the grid of 1024 work-items x 1 per item needs 1024"
    );
}

#[test]
fn workgroup_larger_than_the_kernel_allows() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "")
        .replace("workgroup: (256, 1, 1)", "workgroup: (512, 1, 1)");
    let e = err(&src);
    assert!(e.contains("compiled for at most 256"), "{e}");
}

#[test]
fn code_object_for_another_target_is_refused() {
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "")
        .replace("gpu: \"mi300x\"", "gpu: \"mi355x\"");
    let e = err(&src);
    assert!(e.contains("is for gfx942"), "{e}");
    assert!(e.contains("is gfx950"), "{e}");
}

#[test]
fn unknown_preset_and_bad_override() {
    let e = err(&vadd("", "").replace("gpu: \"mi300x\"", "gpu: \"mi999\""));
    assert!(e.contains("unknown gpu preset `mi999`"), "{e}");
    let e = err(&vadd("", r#"overrides: {"xcd.l3.size_bytes": 1},"#));
    assert!(e.contains("override `xcd.l3`: no such field"), "{e}");
}

#[test]
fn output_of_unknown_buffer() {
    let e = err(&vadd(
        r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#,
        r#"outputs: [(buffer: "d")],"#,
    ));
    assert_eq!(e, "output 0: no buffer named `d` (buffers: a, b, c)");
}

#[test]
fn duplicate_buffer_and_bad_random_range() {
    let src = vadd("", "").replace("(name: \"b\"", "(name: \"a\"");
    assert_eq!(err(&src), "buffer `a` is declared twice");
    let src = vadd("", "").replace("lo: -1.0, hi: 1.0", "lo: 1.0, hi: -1.0");
    assert_eq!(
        err(&src),
        "buffer `a`: random range 1..=-1 is empty or not finite"
    );
}

#[test]
fn init_file_of_wrong_size() {
    let dir = std::env::temp_dir().join(format!("gfxsim-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x.bin"), [0u8; 10]).unwrap();
    let s = Scenario::parse(
        r#"(gpu: "mi300x", buffers: [(name: "x", elem: U32, len: 4, init: File("x.bin"))])"#,
        "t.ron",
    )
    .unwrap();
    let e = s.resolve("t.ron", &dir).unwrap_err();
    assert!(matches!(e, ScenarioError::BadInit { .. }));
    assert!(
        e.to_string().contains("has 10 bytes, expected 4 x 4 = 16"),
        "{e}"
    );
}

#[test]
fn buffers_larger_than_the_gpus_memory_are_refused_before_anything_is_built() {
    // 192 GiB of HBM on an mi300x: 100 GiB fits, two of them do not. Random contents would
    // take the host 100 GiB to build: the refusal must come before that.
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "").replace(
        r#"(name: "c", elem: F32, len: 1000),"#,
        r#"(name: "c", elem: F32, len: 1000),
        (name: "big1", elem: U8, len: 107374182400),
        (name: "big2", elem: U8, len: 107374182400, init: Random(seed: 1, lo: 0.0, hi: 255.0)),"#,
    );
    let e = err(&src);
    assert!(
        e.contains("buffer `big2`") && e.contains("206158430208 bytes of device memory"),
        "{e}"
    );
    // A length whose byte size overflows is refused the same way.
    let e = err(&vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "").replace(
        r#"(name: "c", elem: F32, len: 1000),"#,
        r#"(name: "c", elem: F32, len: 1000), (name: "x", elem: F64, len: 18446744073709551615),"#,
    ));
    assert!(e.contains("buffer `x`"), "{e}");
}

#[test]
fn a_large_zero_buffer_costs_nothing_until_written() {
    // 60 GiB of zeros on a machine with less: resolving and placing it must not touch it.
    let src = vadd(r#"Buffer("a"), Buffer("b"), Buffer("c"), U32(1000)"#, "").replace(
        r#"(name: "c", elem: F32, len: 1000),"#,
        r#"(name: "c", elem: F32, len: 1000), (name: "z", elem: U32, len: 16106127360),"#,
    );
    let w = Scenario::parse(&src, "t.ron")
        .and_then(|s| s.resolve("t.ron", &root()))
        .unwrap();
    assert!(w.buffers[3].bytes.is_empty());
    let mut soc = gpu_model::soc::Soc::new(&w.config, &Default::default()).unwrap();
    let addrs = w.place_buffers(&mut soc).unwrap();
    let end = addrs[3] + w.buffers[3].size() - 4;
    soc.write(end, &7u32.to_le_bytes()).unwrap();
    let mut b = [0u8; 8];
    soc.read(end - 4, &mut b).unwrap();
    assert_eq!(b, [0, 0, 0, 0, 7, 0, 0, 0]);
}
