//! SoC checkpoints: stop mid-kernel, save, restore into a fresh SoC (1 and 2 threads),
//! finish, and get exactly the uninterrupted run; bad checkpoints are typed errors.

use gpu_model::cache::CacheStats;
use gpu_model::config::GpuConfig;
use gpu_model::soc::{
    Completion, CuActivity, LaunchRequest, LevelStats, Soc, SocError, SocOptions, WaveRecord,
};
use simkit::time::Tick;
use std::path::Path;

const M: usize = 96;
const N: usize = 80;
const K: usize = 64;
const R: usize = 5000;

fn config() -> GpuConfig {
    GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "iods": 2, "xcd.active_cus": 4}"#)
        .unwrap()
}

fn code_object(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/build/gfx942")
        .join(format!("{name}.hsaco"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A small deterministic generator (xorshift), for inputs.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

struct Inputs {
    a: Vec<f32>,
    b: Vec<f32>,
    v: Vec<u32>,
}

fn inputs() -> Inputs {
    let mut r = rng(0x9e37_79b9_7f4a_7c15);
    let mut f = || ((r() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
    let a = (0..M * K).map(|_| f()).collect();
    let b = (0..K * N).map(|_| f()).collect();
    let mut r = rng(7);
    let v = (0..R).map(|_| (r() % 100_000) as u32).collect();
    Inputs { a, b, v }
}

/// Device addresses of the output buffers.
#[derive(Clone, Copy)]
struct Outs {
    c: u64,
    partial: u64,
    scan: u64,
}

fn launch<'a>(
    kernel: &'a str,
    grid: [u32; 3],
    workgroup: [u32; 3],
    args: &'a [Vec<u8>],
) -> LaunchRequest<'a> {
    LaunchRequest {
        kernel,
        grid,
        workgroup,
        dynamic_lds: 0,
        args,
    }
}

fn le<T: Copy>(v: &[T], f: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

/// A SoC with matmul_tiled, reduce_lds and scan_wg submitted, in that order.
fn setup(threads: usize, inp: &Inputs) -> (Soc, Outs) {
    let opts = SocOptions {
        threads,
        trace: true,
        ..SocOptions::default()
    };
    let mut soc = Soc::new(&config(), &opts).unwrap();
    let mm = soc.load_code_object(&code_object("matmul_tiled")).unwrap();
    let red = soc.load_code_object(&code_object("reduce_lds")).unwrap();
    let scan = soc.load_code_object(&code_object("scan_wg")).unwrap();
    let groups = R.div_ceil(256);
    let [pa, pb, pc, pv, pp, ps] =
        [M * K, K * N, M * N, R, groups, R].map(|n| soc.alloc(4 * n as u64).unwrap());
    soc.write(pa, &le(&inp.a, f32::to_le_bytes)).unwrap();
    soc.write(pb, &le(&inp.b, f32::to_le_bytes)).unwrap();
    soc.write(pv, &le(&inp.v, u32::to_le_bytes)).unwrap();
    let u = |x: usize| (x as u32).to_le_bytes().to_vec();
    let p = |x: u64| x.to_le_bytes().to_vec();
    let mm_args = [p(pa), p(pb), p(pc), u(M), u(N), u(K)];
    let grid = [
        N.next_multiple_of(16) as u32,
        M.next_multiple_of(16) as u32,
        1,
    ];
    soc.submit(mm, &launch("matmul_tiled", grid, [16, 16, 1], &mm_args))
        .unwrap();
    let red_args = [p(pv), p(pp), u(R)];
    let grid = [(groups * 256) as u32, 1, 1];
    soc.submit(red, &launch("reduce_lds", grid, [256, 1, 1], &red_args))
        .unwrap();
    let scan_args = [p(pv), p(ps), u(R)];
    soc.submit(scan, &launch("scan_wg", grid, [256, 1, 1], &scan_args))
        .unwrap();
    (
        soc,
        Outs {
            c: pc,
            partial: pp,
            scan: ps,
        },
    )
}

/// Everything observable at the end of a run.
#[derive(Debug, PartialEq)]
struct Outcome {
    c: Vec<u8>,
    partial: Vec<u8>,
    scan: Vec<u8>,
    completions: Vec<Completion>,
    activity: Vec<(CuActivity, [u64; 4], CacheStats, CacheStats)>,
    records: Vec<Vec<WaveRecord>>,
    levels: LevelStats,
    now: Tick,
    trace: u64,
}

fn outcome(soc: &Soc, o: Outs) -> Outcome {
    let read = |addr, n: usize| {
        let mut b = vec![0u8; 4 * n];
        soc.read(addr, &mut b).unwrap();
        b
    };
    let cus: Vec<_> = soc.cus().iter().map(|p| soc.cu(p).unwrap()).collect();
    Outcome {
        c: read(o.c, M * N),
        partial: read(o.partial, R.div_ceil(256)),
        scan: read(o.scan, R),
        completions: soc.completions().to_vec(),
        activity: cus
            .iter()
            .map(|c| {
                (
                    c.activity,
                    c.memory_instructions(),
                    *c.l1().0.stats(),
                    *c.l1().1.stats(),
                )
            })
            .collect(),
        records: cus.iter().map(|c| c.records.clone()).collect(),
        levels: soc.level_stats(),
        now: soc.now(),
        trace: soc.simulation().trace_hash(),
    }
}

/// The fields in which two outcomes differ (for failure messages).
fn differences(a: &Outcome, b: &Outcome) -> Vec<&'static str> {
    let mut d = Vec::new();
    let mut check = |same: bool, name| {
        if !same {
            d.push(name);
        }
    };
    check(a.c == b.c, "matmul output");
    check(a.partial == b.partial, "reduce output");
    check(a.scan == b.scan, "scan output");
    check(a.completions == b.completions, "completions");
    check(a.activity == b.activity, "cu activity / l1 statistics");
    check(a.records == b.records, "wave records");
    check(a.levels == b.levels, "cache level statistics");
    check(a.now == b.now, "end time");
    check(a.trace == b.trace, "event trace hash");
    d
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The uninterrupted run, checked against CPU references.
fn baseline(inp: &Inputs) -> Outcome {
    let (mut soc, outs) = setup(1, inp);
    soc.run().unwrap();
    let out = outcome(&soc, outs);
    assert_eq!(out.completions.len(), 3);
    assert!(out.completions.iter().all(|c| c.fault.is_none()));
    // matmul_tiled accumulates with one fma per k in k order (padding adds fma(0, 0, acc)).
    let mut c = vec![0f32; M * N];
    for row in 0..M {
        for col in 0..N {
            let mut acc = 0f32;
            for k in 0..K {
                acc = inp.a[row * K + k].mul_add(inp.b[k * N + col], acc);
            }
            c[row * N + col] = acc;
        }
    }
    assert_eq!(
        out.c,
        le(&c, f32::to_le_bytes),
        "matmul_tiled against the cpu"
    );
    let partial: Vec<u32> = inp.v.chunks(256).map(|c| c.iter().sum()).collect();
    assert_eq!(u32s(&out.partial), partial, "reduce_lds against the cpu");
    let scan: Vec<u32> = inp
        .v
        .chunks(256)
        .flat_map(|c| {
            c.iter().scan(0u32, |s, &x| {
                *s += x;
                Some(*s)
            })
        })
        .collect();
    assert_eq!(u32s(&out.scan), scan, "scan_wg against the cpu");
    out
}

#[test]
fn restored_mid_kernel_runs_exactly_like_the_uninterrupted_run() {
    let inp = inputs();
    let want = baseline(&inp);
    // Stop halfway through each kernel in turn (all three are submitted at once; each
    // starts when the one before completes).
    for (k, done) in want.completions.iter().enumerate() {
        let start = match k {
            0 => done.submitted,
            _ => want.completions[k - 1].completed,
        };
        let stop = Tick(start.0 + (done.completed.0 - start.0) / 2);
        for saved_on in [1, 2] {
            let (mut soc, outs) = setup(saved_on, &inp);
            soc.run_until(stop).unwrap();
            // Step on to a time with a message in flight: one quantum timer per busy CU,
            // anything beyond that is a message.
            let busy_cus = |soc: &Soc| {
                soc.cus()
                    .iter()
                    .filter(|p| soc.cu(p).unwrap().resident_waves() > 0)
                    .count()
            };
            let mut steps = 0;
            while soc.simulation().pending_events() <= busy_cus(&soc) {
                soc.step().unwrap().expect("the kernel is still running");
                steps += 1;
                assert!(steps < 10_000, "kernel {k}: no message in flight");
            }
            assert_eq!(
                soc.completions().len(),
                k,
                "kernel {k} still runs at {stop:?}"
            );
            assert!(busy_cus(&soc) > 0, "kernel {k}: waves resident at {stop:?}");
            let bytes = soc.checkpoint().unwrap();
            eprintln!("kernel {k}: checkpoint of {} bytes", bytes.len());
            for restored_on in [1, 2] {
                let mut fresh = Soc::new(
                    &config(),
                    &SocOptions {
                        threads: restored_on,
                        trace: true,
                        ..SocOptions::default()
                    },
                )
                .unwrap();
                fresh.restore(&bytes).unwrap();
                assert_eq!(fresh.now(), soc.now());
                assert_eq!(fresh.completions(), soc.completions());
                fresh.run().unwrap();
                let got = outcome(&fresh, outs);
                assert_eq!(
                    differences(&got, &want),
                    Vec::<&str>::new(),
                    "kernel {k}, saved on {saved_on} thread(s), restored on {restored_on}"
                );
            }
            // The interrupted SoC itself also continues unchanged by the checkpoint.
            soc.run().unwrap();
            let got = outcome(&soc, outs);
            assert_eq!(
                differences(&got, &want),
                Vec::<&str>::new(),
                "kernel {k}: original"
            );
        }
    }
}

#[test]
fn checkpoint_file_round_trip_and_submissions_after_restore() {
    let inp = inputs();
    let want = baseline(&inp);
    let (mut soc, outs) = setup(2, &inp);
    let first = &want.completions[0];
    soc.run_until(Tick(
        first.submitted.0 + (first.completed.0 - first.submitted.0) / 4,
    ))
    .unwrap();
    let path = std::env::temp_dir().join(format!("soc_checkpoint_{}.ckpt", std::process::id()));
    soc.save_checkpoint(&path).unwrap();
    let mut fresh = Soc::new(
        &config(),
        &SocOptions {
            trace: true,
            ..SocOptions::default()
        },
    )
    .unwrap();
    fresh.restore_checkpoint(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    fresh.run().unwrap();
    let got = outcome(&fresh, outs);
    assert_eq!(differences(&got, &want), Vec::<&str>::new());
    // The restored modules serve new dispatches: scan the scan's output once more.
    let out2 = fresh.alloc(4 * R as u64).unwrap();
    let args = [outs.scan, out2]
        .map(|a| a.to_le_bytes().to_vec())
        .into_iter()
        .chain([(R as u32).to_le_bytes().to_vec()])
        .collect::<Vec<_>>();
    let grid = [R.next_multiple_of(256) as u32, 1, 1];
    let req = LaunchRequest {
        kernel: "scan_wg",
        grid,
        workgroup: [256, 1, 1],
        dynamic_lds: 0,
        args: &args,
    };
    let seq = fresh.submit(gpu_model::soc::ModuleId(2), &req).unwrap();
    assert_eq!(seq, 4);
    fresh.run().unwrap();
    let mut b = vec![0u8; 4 * R];
    fresh.read(out2, &mut b).unwrap();
    let want2: Vec<u32> = u32s(&want.scan)
        .chunks(256)
        .flat_map(|c| {
            c.iter().scan(0u32, |s, &x| {
                *s = s.wrapping_add(x);
                Some(*s)
            })
        })
        .collect();
    assert_eq!(u32s(&b), want2);
}

#[test]
fn bad_checkpoints_are_typed_errors() {
    let inp = inputs();
    let (mut soc, _) = setup(1, &inp);
    soc.run_until(Tick(200_000)).unwrap();
    let bytes = soc.checkpoint().unwrap();
    let mut fresh = Soc::new(&config(), &SocOptions::default()).unwrap();
    for bad in [
        &bytes[..bytes.len() / 2],
        &bytes[..3],
        b"not a checkpoint".as_slice(),
        &[],
    ] {
        let e = fresh.restore(bad).unwrap_err();
        assert!(matches!(e, SocError::Checkpoint(_)), "{e}");
    }
    // Another config (a different L2 size: same topology, different caches).
    let other = config()
        .with_overrides_ron(r#"{"xcd.l2.size_bytes": 2097152}"#)
        .unwrap();
    let mut foreign = Soc::new(&other, &SocOptions::default()).unwrap();
    let e = foreign.restore(&bytes).unwrap_err();
    assert!(matches!(e, SocError::CheckpointMismatch(_)), "{e}");
    assert!(e.to_string().contains("differs"), "{e}");
    // A refused checkpoint changed nothing: the fresh SoC still restores the good one.
    fresh.restore(&bytes).unwrap();
    fresh.run().unwrap();
    assert_eq!(fresh.completions().len(), 3);
}

#[test]
fn faults_in_flight_and_completed_survive_a_checkpoint() {
    // vadd storing to an unmapped address: every workgroup faults at its store.
    let n = 4096usize;
    let run = |stop: Option<Tick>, threads: usize| {
        let opts = SocOptions {
            threads,
            ..SocOptions::default()
        };
        let mut soc = Soc::new(&config(), &opts).unwrap();
        let m = soc.load_code_object(&code_object("vadd")).unwrap();
        let a = soc.alloc(4 * n as u64).unwrap();
        let args = [a, a, 0x40]
            .map(|x| x.to_le_bytes().to_vec())
            .into_iter()
            .chain([(n as u32).to_le_bytes().to_vec()])
            .collect::<Vec<_>>();
        soc.submit(m, &launch("vadd", [n as u32, 1, 1], [64, 1, 1], &args))
            .unwrap();
        if let Some(t) = stop {
            soc.run_until(t).unwrap();
            let bytes = soc.checkpoint().unwrap();
            soc = Soc::new(&config(), &SocOptions::default()).unwrap();
            soc.restore(&bytes).unwrap();
        }
        soc.run().unwrap();
        soc.completions().to_vec()
    };
    let want = run(None, 1);
    assert_eq!(want.len(), 1);
    let fault = want[0].fault.as_ref().expect("the store faults");
    assert!(
        matches!(fault.reason, gpu_model::exec::FaultReason::Memory { .. }),
        "{fault}"
    );
    // Stop at several points of the kernel: before, while and after faults are reported.
    let end = want[0].completed.0;
    for k in 1..8 {
        assert_eq!(run(Some(Tick(end * k / 8)), 2), want, "stopped at {k}/8");
    }
    assert_eq!(run(Some(Tick(end)), 1), want, "stopped at the end");
}
