//! The SoC library API: submissions from another thread while the simulation runs, stepping.

use gpu_model::config::GpuConfig;
use gpu_model::soc::{LaunchRequest, Soc, SocOptions};
use std::path::Path;

fn vadd() -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/build/gfx942/vadd.hsaco");
    std::fs::read(p).unwrap()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn dispatches_submitted_from_another_thread_while_running() {
    let cfg = GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "xcd.active_cus": 4}"#)
        .unwrap();
    let mut soc = Soc::new(
        &cfg,
        &SocOptions {
            threads: 2,
            ..SocOptions::default()
        },
    )
    .unwrap();
    let m = soc.load_code_object(&vadd()).unwrap();
    let n = 3000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let [pa, pb, pc, pd] = [0; 4].map(|_| soc.alloc(4 * n as u64).unwrap());
    soc.write(pa, &bytes(&a)).unwrap();
    soc.write(pb, &bytes(&b)).unwrap();

    let sub = soc.submitter();
    let guard = sub.hold();
    let sim = std::thread::spawn(move || {
        let status = soc.run().unwrap();
        (soc, status)
    });
    // Two dispatches: c = a + b, then d = c + a, each injected while the run is open.
    let args = |x: u64, y: u64, z: u64| {
        vec![
            x.to_le_bytes().to_vec(),
            y.to_le_bytes().to_vec(),
            z.to_le_bytes().to_vec(),
            (n as u32).to_le_bytes().to_vec(),
        ]
    };
    let req = |args: &[Vec<u8>]| -> u64 {
        sub.submit(
            m,
            &LaunchRequest {
                kernel: "vadd",
                grid: [n as u32, 1, 1],
                workgroup: [256, 1, 1],
                dynamic_lds: 0,
                args,
            },
        )
        .unwrap()
    };
    let s1 = req(&args(pa, pb, pc));
    // The second reads the first's output: only correct if dispatches run in order.
    let s2 = req(&args(pc, pa, pd));
    drop(guard);
    let (soc, _status) = sim.join().unwrap();
    let done = soc.completions();
    assert_eq!(done.iter().map(|c| c.seq).collect::<Vec<_>>(), [s1, s2]);
    assert!(done.iter().all(|c| c.fault.is_none()));
    let mut out = vec![0u8; 4 * n];
    soc.read(pd, &mut out).unwrap();
    let want: Vec<f32> = (0..n).map(|i| (a[i] + b[i]) + a[i]).collect();
    assert_eq!(f32s(&out), want);
}

#[test]
fn stepping_reaches_the_same_end_as_running() {
    let cfg = GpuConfig::preset("mi300x")
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "xcd.active_cus": 2}"#)
        .unwrap();
    let run = |step: bool| {
        let mut soc = Soc::new(&cfg, &SocOptions::default()).unwrap();
        let m = soc.load_code_object(&vadd()).unwrap();
        let n = 1000usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let [pa, pc] = [0; 2].map(|_| soc.alloc(4 * n as u64).unwrap());
        soc.write(pa, &bytes(&a)).unwrap();
        let args = [pa, pa, pc]
            .iter()
            .map(|p| p.to_le_bytes().to_vec())
            .chain([(n as u32).to_le_bytes().to_vec()])
            .collect::<Vec<_>>();
        soc.submit(
            m,
            &LaunchRequest {
                kernel: "vadd",
                grid: [n as u32, 1, 1],
                workgroup: [64, 1, 1],
                dynamic_lds: 0,
                args: &args,
            },
        )
        .unwrap();
        let mut steps = 0;
        if step {
            while soc.step().unwrap().is_some() {
                steps += 1;
            }
        } else {
            soc.run().unwrap();
        }
        let mut out = vec![0u8; 4 * n];
        soc.read(pc, &mut out).unwrap();
        assert_eq!(f32s(&out), a.iter().map(|x| x + x).collect::<Vec<_>>());
        (soc.completions()[0].completed, steps)
    };
    let (t_run, _) = run(false);
    let (t_step, steps) = run(true);
    assert_eq!(t_run, t_step);
    assert!(steps > 1);
}
