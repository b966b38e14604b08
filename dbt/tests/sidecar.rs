//! Virtual-LDS sidecars: a gfx950 kernel compiled by clang-22 that keeps 96 KiB of LDS
//! per workgroup (gfx942 has 64 KiB) translates to gfx942 with a sidecar, which the
//! runtime selects at dispatch time; run on the gfx942 model it writes what the original
//! writes on the gfx950 model and what the CPU reference computes. A kernel of the same
//! object whose LDS fits gets no sidecar and runs through its normal translation. The
//! LLVM tools are required: a missing tool fails the test.

mod common;

use gpu_model::loader::CodeObject;
use gpu_model::Target;

const BIG: u32 = 24576;
const SMALL: u32 = 4096;
const WG: u32 = 256;
const GROUPS: u32 = 3;

/// dbt/tests/sidecar/big_lds.cl built for gfx950 by clang-22 with the corpus prelude.
fn guest() -> Vec<u8> {
    build("big_lds")
}

/// dbt/tests/sidecar/`stem`.cl built for gfx950 by clang-22 with the corpus prelude.
fn build(stem: &str) -> Vec<u8> {
    build_with(stem, &[])
}

/// [`build`] with extra clang-22 arguments.
fn build_with(stem: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        "-mcpu=gfx950",
        "-cl-kernel-arg-info",
        "-nogpulib",
        "-O2",
    ];
    args.extend_from_slice(extra);
    common::clang(
        &args,
        &format!("tests/sidecar/{stem}.cl"),
        &format!("sidecar-{stem}"),
    )
}

/// The kernels' computation on the CPU: per workgroup `g`, `lds[i] = in[g n + i] * 3 + i`,
/// then `out[g n + i] = lds[n - 1 - i] ^ (lds[(7 i) % n] + g)`.
fn reference(input: &[u32], n: u32) -> Vec<u32> {
    let mut out = vec![0u32; (n * GROUPS) as usize];
    for g in 0..GROUPS {
        let lds: Vec<u32> = (0..n)
            .map(|i| input[(g * n + i) as usize].wrapping_mul(3).wrapping_add(i))
            .collect();
        for i in 0..n {
            let j = i.wrapping_mul(7) % n;
            out[(g * n + i) as usize] = lds[(n - 1 - i) as usize] ^ lds[j as usize].wrapping_add(g);
        }
    }
    out
}

fn input(n: u32) -> Vec<u32> {
    (0..n * GROUPS)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ i >> 3)
        .collect()
}

fn run(bytes: &[u8], target: Target, kernel: &str, n: u32) -> Vec<u32> {
    let input = input(n);
    common::run_words(
        bytes,
        target,
        kernel,
        [WG * GROUPS, WG],
        Some(&input),
        (n * GROUPS) as usize,
        &[],
    )
}

#[test]
fn a_kernel_over_the_hosts_lds_runs_through_its_sidecar() {
    let guest = guest();
    let t = dbt::translate(&guest, Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts(&t.object, "big_lds");
    let co = CodeObject::parse(&t.object).unwrap();
    let big = co.kernel("big_lds").unwrap();
    let small = co.kernel("small_lds").unwrap();
    // One sidecar, for the kernel over 64 KiB: no hardware LDS, its dispatch state after
    // the 16 kernarg bytes and the wrapper's pointer slot.
    assert_eq!(co.sidecars().len(), 1);
    let sc = co
        .sidecar(big.descriptor_address)
        .expect("big_lds has a sidecar");
    assert!(co.sidecar(small.descriptor_address).is_none());
    assert_eq!(big.descriptor.group_segment_fixed_size, BIG * 4);
    assert_eq!(sc.descriptor.group_segment_fixed_size, 0);
    assert_eq!(sc.state_offset, 24);
    assert_eq!(sc.lds_limit, Target::Gfx950.lds_bytes_per_workgroup());
    let r = t.kernels.iter().find(|k| k.name == "big_lds").unwrap();
    let sidecar_bytes = r.sidecar.expect("reported");
    eprintln!(
        "big_lds: code {} -> {} bytes, sidecar {} bytes; vgprs {:?}, sgprs {:?}",
        r.code_before, r.code_after, sidecar_bytes, r.vgprs, r.sgprs
    );
    // The sidecar's code holds no LDS storage access.
    let dis = common::llvm_accepts(&t.object, "big_lds-dis");
    let sidecar_entry = sc
        .descriptor_address
        .wrapping_add_signed(sc.descriptor.kernel_code_entry_byte_offset);
    let sidecar_text: Vec<&str> = dis
        .lines()
        .filter(|l| {
            l.rsplit("// ")
                .next()
                .and_then(|a| u64::from_str_radix(a.split(':').next()?.trim(), 16).ok())
                .is_some_and(|a| a >= sidecar_entry && a < sidecar_entry + sidecar_bytes as u64)
        })
        .collect();
    assert!(
        !sidecar_text.is_empty(),
        "sidecar code at {sidecar_entry:#x} not found"
    );
    assert!(
        sidecar_text
            .iter()
            .all(|l| !l.contains("ds_read") && !l.contains("ds_write")),
        "the sidecar still uses hardware LDS"
    );

    for (kernel, n) in [("big_lds", BIG), ("small_lds", SMALL)] {
        let want = reference(&input(n), n);
        let native = run(&guest, Target::Gfx950, kernel, n);
        assert_eq!(native, want, "{kernel}: gfx950 model vs CPU reference");
        let got = run(&t.object, Target::Gfx942, kernel, n);
        assert_eq!(got, want, "{kernel}: translated on the gfx942 model");
    }
}

/// The same object translated for gfx1201 (RDNA4: 64 KiB of LDS per workgroup, LLVM's
/// `getAddressableLocalMemorySize` for GFX12, as the gfx1201 preset has): `big_lds` gets
/// a sidecar, re-encoded for GFX12 behind the TTMP workgroup-id prologue, and the
/// runtime selects it at dispatch; both kernels run on the gfx1201 model as the CPU
/// reference says.
#[test]
fn a_kernel_over_the_hosts_lds_runs_through_its_sidecar_on_gfx1201() {
    let guest = guest();
    let t = dbt::translate(&guest, Target::Gfx1201);
    assert!(t.translated, "{:?}", t.diagnostics);
    common::llvm_accepts_as(&t.object, "big_lds-1201", "gfx1201");
    let co = CodeObject::parse(&t.object).unwrap();
    let big = co.kernel("big_lds").unwrap();
    let small = co.kernel("small_lds").unwrap();
    assert_eq!(co.sidecars().len(), 1);
    let sc = co
        .sidecar(big.descriptor_address)
        .expect("big_lds has a sidecar");
    assert!(co.sidecar(small.descriptor_address).is_none());
    assert_eq!(sc.descriptor.group_segment_fixed_size, 0);
    assert_eq!(sc.state_offset, 24);
    let r = t.kernels.iter().find(|k| k.name == "big_lds").unwrap();
    eprintln!(
        "big_lds on gfx1201: code {} -> {} bytes, sidecar {} bytes; vgprs {:?}",
        r.code_before,
        r.code_after,
        r.sidecar.expect("reported"),
        r.vgprs
    );
    for (kernel, n) in [("big_lds", BIG), ("small_lds", SMALL)] {
        let want = reference(&input(n), n);
        let got = run(&t.object, Target::Gfx1201, kernel, n);
        assert_eq!(got, want, "{kernel}: translated on the gfx1201 model");
    }
}

/// `big_lds` built with both kernel arguments preloaded into SGPRs (two hardware entries
/// 256 bytes apart): its sidecar clears the preload and enters at the compatibility
/// entry, which loads the arguments from the kernarg wrapper; on both hosts both
/// kernels compute the CPU reference, as on the gfx950 model.
#[test]
fn a_kernarg_preload_kernel_over_the_hosts_lds_runs_through_its_sidecar() {
    let guest = build_with("big_lds", &["-mllvm", "-amdgpu-kernarg-preload-count=2"]);
    let co = CodeObject::parse(&guest).unwrap();
    let k = co.kernel("big_lds").unwrap();
    assert!(
        k.descriptor.kernarg_preload != 0,
        "clang-22 preloads the arguments"
    );
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(t.translated, "{host}: {:?}", t.diagnostics);
        common::llvm_accepts_as(&t.object, &format!("big_lds-pre-{host}"), host.name());
        let co = CodeObject::parse(&t.object).unwrap();
        let big = co.kernel("big_lds").unwrap();
        let sc = co
            .sidecar(big.descriptor_address)
            .expect("big_lds has a sidecar");
        assert_eq!(sc.descriptor.kernarg_preload, 0, "{host}");
        for (kernel, n) in [("big_lds", BIG), ("small_lds", SMALL)] {
            let want = reference(&input(n), n);
            assert_eq!(
                run(&guest, Target::Gfx950, kernel, n),
                want,
                "{kernel}: gfx950 model"
            );
            assert_eq!(
                run(&t.object, host, kernel, n),
                want,
                "{kernel}: translated on {host}"
            );
        }
    }
}

/// A kernel whose LDS is a `__local` pointer argument (no static LDS: its descriptor fits
/// gfx942 and gfx1201) gets a sidecar too; dispatched with 96 KiB of LDS on the gfx942 or
/// gfx1201 model it runs through it and writes what the gfx950 run and the CPU reference
/// write, and with 16 KiB it runs through its normal translation.
#[test]
fn a_kernel_with_dynamic_lds_gets_a_sidecar_for_dispatches_over_the_hosts_lds() {
    use gpu_model::device::ArgValue;
    let guest = build("dyn_lds");
    for host in [Target::Gfx942, Target::Gfx1201] {
        let t = dbt::translate(&guest, host);
        assert!(t.translated, "{host}: {:?}", t.diagnostics);
        common::llvm_accepts_as(&t.object, &format!("dyn_lds-{host}"), host.name());
        let co = CodeObject::parse(&t.object).unwrap();
        let k = co.kernel("dyn_lds").unwrap();
        assert_eq!(k.descriptor.group_segment_fixed_size, 0);
        let sc = co
            .sidecar(k.descriptor_address)
            .expect("dyn_lds has a sidecar");
        assert_eq!(sc.descriptor.group_segment_fixed_size, 0);
        let r = &t.kernels[0];
        assert!(
            r.sidecar.is_some() && r.no_sidecar.is_none(),
            "{host}: {r:?}"
        );
        for n in [BIG, SMALL] {
            let input = input(n);
            let run = |bytes: &[u8], target| {
                common::run_words(
                    bytes,
                    target,
                    "dyn_lds",
                    [WG * GROUPS, WG],
                    Some(&input),
                    (n * GROUPS) as usize,
                    &[ArgValue::u32(n), ArgValue::lds(4 * n)],
                )
            };
            let want = reference(&input, n);
            assert_eq!(
                run(&guest, Target::Gfx950),
                want,
                "{n} words: gfx950 model vs CPU reference"
            );
            assert_eq!(
                run(&t.object, host),
                want,
                "{n} words: translated on the {host} model"
            );
        }
    }
}

/// The SoC's launch path frees a sidecar dispatch's virtual-LDS backing (96 KiB per
/// workgroup here) when the dispatch completes: repeated dispatches leave the device
/// memory in use where the first left it, and each computes the reference.
#[test]
fn repeated_sidecar_dispatches_on_the_soc_do_not_grow_device_memory() {
    use gpu_model::config::GpuConfig;
    use gpu_model::soc::{LaunchRequest, Soc, SocOptions};
    let t = dbt::translate(&guest(), Target::Gfx942);
    assert!(t.translated, "{:?}", t.diagnostics);
    let cfg = GpuConfig::preset("mi300x").unwrap();
    assert_eq!(cfg.target, Target::Gfx942);
    let mut soc = Soc::new(&cfg, &SocOptions::default()).unwrap();
    let m = soc.load_code_object(&t.object).unwrap();
    let input = input(BIG);
    let bytes = 4 * u64::from(BIG * GROUPS);
    let (ia, oa) = (soc.alloc(bytes).unwrap(), soc.alloc(bytes).unwrap());
    let words: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    soc.write(ia, &words).unwrap();
    let args = vec![ia.to_le_bytes().to_vec(), oa.to_le_bytes().to_vec()];
    let want = reference(&input, BIG);
    let mut in_use = Vec::new();
    for _ in 0..3 {
        soc.write(oa, &vec![0u8; bytes as usize]).unwrap();
        soc.submit(
            m,
            &LaunchRequest {
                kernel: "big_lds",
                grid: [WG * GROUPS, 1, 1],
                workgroup: [WG, 1, 1],
                dynamic_lds: 0,
                args: &args,
            },
        )
        .unwrap();
        let status = soc.run().unwrap();
        let c = soc.completions().last().cloned().unwrap_or_else(|| {
            panic!(
                "no completion ({status:?}): {:?} {:?}",
                soc.queue_error(gpu_model::soc::QueueId(0)),
                soc.events()
            )
        });
        assert!(c.fault.is_none(), "{:?}", c.fault);
        let mut out = vec![0u8; bytes as usize];
        soc.read(oa, &mut out).unwrap();
        let got: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(got, want, "translated big_lds on the SoC");
        in_use.push(soc.memory_in_use());
    }
    assert!(
        in_use.windows(2).all(|w| w[0] == w[1]),
        "device memory in use grew across dispatches: {in_use:?}"
    );
}
