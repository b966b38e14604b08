//! Functional execution throughput: simulated wave-instructions per second per host thread
//! on (a) the ALU loop kernel, (b) the memory-streaming kernel, (c) the LDS-tiled matmul,
//! all real corpus code objects for gfx942; plus the slowdown of the simulated vector add
//! against a native Rust vector add; (d) matrix-core instructions (`matrix`): host time per
//! instruction, multiply-accumulates per second and the time a 1024^3 GEMM made of that
//! instruction would take.
//!
//!     cargo bench -p gfxsim-benches --bench exec
//!
//! Optional argument: a target name (default gfx942; gfx90a and gfx950 also work).

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::exec::{ExecCtx, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::Target;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn code(target: Target, stem: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build")
        .join(target.name())
        .join(format!("{stem}.hsaco"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn buffer(dev: &mut Device, words: &[u32]) -> u64 {
    let a = dev.alloc(4 * words.len() as u64).expect("alloc");
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.copy_in(a, &b).expect("copy in");
    a
}

/// Runs a dispatch `reps` times; returns (wave-instructions per run, seconds of the fastest
/// run). The fastest run is the one least disturbed by whatever else the host was doing
/// (a shared machine's noise only ever adds time).
fn measure(
    dev: &mut Device,
    stem: &str,
    cfg: LaunchConfig,
    args: &[ArgValue],
    reps: u32,
) -> (u64, f64) {
    let module = dev
        .load_code_object(&code(dev.target(), stem))
        .expect("load");
    let mut insts = 0;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let start = Instant::now();
        let id = dev.dispatch(module, stem, &cfg, args).expect("dispatch");
        insts = dev.wait(id).expect("kernel ran").instructions;
        best = best.min(start.elapsed().as_secs_f64());
    }
    (insts, best)
}

fn report(name: &str, insts: u64, secs: f64) {
    println!(
        "{name:<14} {insts:>12} wave-instructions in {:>9.3} ms: {:>8.2} M wave-instructions/s",
        secs * 1e3,
        insts as f64 / secs / 1e6
    );
}

fn main() {
    let target = std::env::args()
        .skip(1)
        .find_map(|a| Target::from_name(&a))
        .unwrap_or(Target::Gfx942);
    println!("exec throughput on {target} (one host thread)");
    // Optional case filter: `-- alu_loop` runs only that case.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && Target::from_name(a).is_none())
        .collect();
    let want = |name: &str| filter.is_empty() || filter.iter().any(|f| f == name);

    // (a) ALU loop: 4096 work-items, 1000 iterations.
    if want("alu_loop") {
        let mut dev = Device::new(target);
        let out_u = buffer(&mut dev, &[0; 4096]);
        let out_f = buffer(&mut dev, &[0; 4096]);
        let args = [
            ArgValue::ptr(out_u),
            ArgValue::ptr(out_f),
            ArgValue::u32(1000),
        ];
        let (i, s) = measure(
            &mut dev,
            "alu_loop",
            LaunchConfig::new([4096, 1, 1], [256, 1, 1]),
            &args,
            10,
        );
        report("alu_loop", i, s);
    }

    // (b) memory streaming: 1 MiB in, 1 MiB out, 16-byte accesses.
    if want("mem_stream") {
        let mut dev = Device::new(target);
        let input: Vec<u32> = (0..262_144u32)
            .map(|x| x.wrapping_mul(2_654_435_761))
            .collect();
        let src = buffer(&mut dev, &input);
        let dst = buffer(&mut dev, &[0; 262_144]);
        let args = [
            ArgValue::ptr(src),
            ArgValue::ptr(dst),
            ArgValue::u32(65_536),
            ArgValue::u32(3),
        ];
        let (i, s) = measure(
            &mut dev,
            "mem_stream",
            LaunchConfig::new([16384, 1, 1], [256, 1, 1]),
            &args,
            10,
        );
        report("mem_stream", i, s);
    }

    // (c) LDS-tiled matmul, 128x128x128.
    if want("matmul_tiled") {
        let mut dev = Device::new(target);
        let n = 128u32;
        let a: Vec<u32> = (0..n * n)
            .map(|k| ((k % 7) as f32 * 0.25).to_bits())
            .collect();
        let (ba, bb) = (buffer(&mut dev, &a), buffer(&mut dev, &a));
        let bc = buffer(&mut dev, &vec![0; (n * n) as usize]);
        let args = [
            ArgValue::ptr(ba),
            ArgValue::ptr(bb),
            ArgValue::ptr(bc),
            ArgValue::u32(n),
            ArgValue::u32(n),
            ArgValue::u32(n),
        ];
        let (i, s) = measure(
            &mut dev,
            "matmul_tiled",
            LaunchConfig::new([n, n, 1], [16, 16, 1]),
            &args,
            10,
        );
        report("matmul_tiled", i, s);
    }
    if want("matrix") {
        matrix();
    }
    if !want("vadd") {
        return;
    }

    // Vector add: simulated vs native, 1M f32.
    let len = 1 << 20;
    let mut dev = Device::new(target);
    let x: Vec<f32> = (0..len).map(|k| k as f32 * 0.5).collect();
    let y: Vec<f32> = (0..len).map(|k| 1.0 - k as f32).collect();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let (bx, by) = (buffer(&mut dev, &bits(&x)), buffer(&mut dev, &bits(&y)));
    let bz = buffer(&mut dev, &vec![0; len]);
    let args = [
        ArgValue::ptr(bx),
        ArgValue::ptr(by),
        ArgValue::ptr(bz),
        ArgValue::u32(len as u32),
    ];
    let (i, sim) = measure(
        &mut dev,
        "vadd",
        LaunchConfig::new([len as u32, 1, 1], [256, 1, 1]),
        &args,
        10,
    );
    report("vadd", i, sim);
    let mut z = vec![0f32; len];
    // The fastest of 200 runs, as for the simulated side.
    let mut native = f64::INFINITY;
    for _ in 0..200 {
        let start = Instant::now();
        for ((o, a), b) in z.iter_mut().zip(black_box(&x)).zip(black_box(&y)) {
            *o = a + b;
        }
        black_box(&mut z);
        native = native.min(start.elapsed().as_secs_f64());
    }
    println!(
        "vadd native   {:>9.3} ms, simulated {:>9.3} ms: slowdown {:.0}x",
        native * 1e3,
        sim * 1e3,
        sim / native
    );
}

/// (d) One wave running 2000 copies of a matrix instruction (encodings from llvm-mc-22
/// `-show-encoding`), operands of random bits.
fn matrix() {
    // (target, wave size, text, encoding, multiply-accumulates)
    let cases: &[(Target, u32, &str, &[u8], u64)] = &[
        (
            Target::Gfx942,
            64,
            "v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[16:17], v[18:19], v[0:15]",
            &[0x00, 0x00, 0xf7, 0xd3, 0x10, 0x25, 0x02, 0x04],
            32 * 32 * 16,
        ),
        (
            Target::Gfx950,
            64,
            "v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[0:15]",
            &[0x00, 0x00, 0xae, 0xd3, 0x10, 0x31, 0x02, 0x04],
            32 * 32 * 64,
        ),
        (
            Target::Gfx950,
            64,
            "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v24, v25",
            &[
                0x00, 0x00, 0xac, 0xd3, 0x18, 0x33, 0x02, 0x00, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19,
                0x02, 0x04,
            ],
            16 * 16 * 128,
        ),
        (
            Target::Gfx1201,
            32,
            "v_wmma_f32_16x16x16_fp8_fp8 v[0:7], v[8:9], v[12:13], v[0:7]",
            &[0x00, 0x40, 0x46, 0xcc, 0x08, 0x19, 0x02, 0x1c],
            16 * 16 * 16,
        ),
    ];
    const N: usize = 2000;
    for &(target, wave, text, enc, macs) in cases {
        let mut code: Vec<u8> = enc.repeat(N);
        // s_endpgm
        code.extend_from_slice(if target.family() == gpu_model::Family::Gfx12 {
            &[0x00, 0x00, 0xb0, 0xbf]
        } else {
            &[0x00, 0x00, 0x81, 0xbf]
        });
        let prog = Program::new(target, 0x1000, &code);
        let mem = DeviceMemory::new();
        let mut lds = vec![0u8; 64];
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let mut w = Wave::new(wave, 0x1000);
            w.set_exec(u64::MAX);
            for r in 0..32 {
                for l in 0..64 {
                    // Small exponents: finite sums however many instructions accumulate.
                    let x = (r * 64 + l) as u32;
                    w.set_vgpr(r, l, x.wrapping_mul(0x9e37_79b9) & 0x3f3f_3f3f);
                }
            }
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: (&mem).into(),
                lds: &mut lds,
                observer: None,
                group: None,
            };
            let start = Instant::now();
            let stop = w.run(&mut ctx, N as u64 + 1);
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(stop, Stop::Endpgm, "{text}");
        }
        let per = best / N as f64;
        println!(
            "{:<8} {text}: {:>7.2} us/instruction, {:>6.2} G MAC/s, 1024^3 GEMM {:>6.2} s",
            target.name(),
            per * 1e6,
            macs as f64 / per / 1e9,
            (1u64 << 30) as f64 / macs as f64 * per
        );
    }
}
