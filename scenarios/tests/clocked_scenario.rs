//! `exec_mode: Some(Clocked)` in a scenario file selects the clocked mode: the GEMM example
//! gives the same C as its functional twin, takes more simulated cycles (memory latency is
//! now exposed), and the same on 1 and 2 threads; checkpointed mid-kernel with `gfxsim run
//! --checkpoint-at` and continued with `--restore` on 2 threads, it ends at the same tick.

use scenarios::scenario::{RunOptions, Scenario};
use std::path::Path;

fn run(name: &str, threads: usize) -> (Vec<Vec<u8>>, u64) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let w = Scenario::load(&dir.join(name))
        .unwrap()
        .resolve(name, &dir)
        .unwrap();
    let opts = RunOptions {
        threads: Some(threads),
        ..RunOptions::default()
    };
    let out = w.run(&opts, &mut |_, _| {}).unwrap();
    let cycles = out.report.kernels.iter().map(|k| k.cycles).sum();
    (out.buffers, cycles)
}

#[test]
fn clocked_gemm_scenario_matches_functional() {
    let (f, fc) = run("gemm_functional.ron", 1);
    let (c, cc) = run("gemm_clocked.ron", 1);
    assert_eq!(f, c, "same C in both modes");
    assert!(cc > fc, "clocked {cc} cycles, functional {fc}");
    assert_eq!(run("gemm_clocked.ron", 2), (c, cc), "1 and 2 threads");
}

fn gfxsim(args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gfxsim"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    text
}

/// The number after `word ` in `s`.
fn number_after(s: &str, word: &str) -> u64 {
    let rest = &s[s.find(word).unwrap_or_else(|| panic!("no `{word}` in {s}")) + word.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn clocked_gemm_checkpoint_restores_on_two_threads() {
    let dir = std::env::temp_dir().join(format!("gfxsim_clocked_ckpt_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/gemm_clocked.ron");
    let scenario = scenario.to_str().unwrap();
    let file = dir.join("mid.ckpt");
    let file = file.to_str().unwrap();
    // The uninterrupted run: a checkpoint tick past the end runs everything.
    let out = gfxsim(&[
        "run",
        scenario,
        "--checkpoint-at",
        "1000000000",
        "--checkpoint-file",
        file,
    ]);
    assert!(out.contains("1 of 1 launches complete"), "{out}");
    let end = number_after(&out, "checkpoint at tick");
    let stop = (end / 2).to_string();
    let out = gfxsim(&[
        "run",
        scenario,
        "--checkpoint-at",
        &stop,
        "--checkpoint-file",
        file,
    ]);
    assert!(out.contains("0 of 1 launches complete"), "{out}");
    let out = gfxsim(&["run", scenario, "--threads", "2", "--restore", file]);
    assert_eq!(number_after(&out, "completed at tick"), end, "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gfxsim sweep --kind latency` (the README's documented command) writes the CSV and the
/// SVG plot, and its curve has the MI300X's plateaus with the edge at the configured 32 KiB
/// vector L1: rings up to 32 KiB at the mt4g vector L1 latency (116 cycles), larger ones at
/// the L2's (288), each within 10%.
#[test]
fn sweep_writes_the_latency_curve_and_its_plot() {
    let dir = std::env::temp_dir().join(format!("gfxsim_sweep_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ubench = root.join("gpu-model/tests/ubench/ubench_gfx942.hsaco");
    let prefix = dir.join("lat");
    gfxsim(&[
        "sweep",
        "--kind",
        "latency",
        "--gpu",
        "mi300x",
        "--ubench",
        ubench.to_str().unwrap(),
        "--max-bytes",
        "65536",
        "--out",
        prefix.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(prefix.with_extension("csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("working_set_(bytes),cycles_per_load"));
    let rows: Vec<(u64, f64)> = lines
        .map(|l| {
            let (x, y) = l.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    let sizes: Vec<u64> = rows.iter().map(|r| r.0).collect();
    assert_eq!(sizes, [4096, 8192, 16384, 32768, 65536]);
    for (bytes, cycles) in rows {
        let want = if bytes <= 32 << 10 { 116.0 } else { 288.0 };
        assert!(
            (cycles - want).abs() <= want * 0.1,
            "{bytes} B: {cycles} cycles per load, want {want} (10%)"
        );
    }
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert_eq!(svg.matches("<circle").count(), 5, "one marker per point");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The figures of one `#` line of the `cus` sweep: `{cus} CUs: {cycles} cycles; L2 {l2} of
/// {peak} B/cycle ({pct}%), {hits}% L2 hits, HBM {hbm} of {peak} B/cycle ({pct}%), {ipc} of
/// {peak} instructions per CU per cycle, {waits} wait-counter stalls per instruction:
/// {verdict}`.
struct Why {
    cus: u32,
    cycles: f64,
    l2_pct: f64,
    l2_hits: f64,
    hbm_pct: f64,
    ipc: f64,
    ipc_peak: f64,
    verdict: String,
}

fn why(line: &str) -> Why {
    let bad = format!("not a cus-sweep line: {line}");
    let line = line.strip_prefix("# ").expect(&bad);
    let (cus, rest) = line.split_once(" CUs: ").expect(&bad);
    let (figures, verdict) = rest.split_once(": ").expect(&bad);
    let w: Vec<&str> = figures.split_whitespace().collect();
    let shape = [
        (1, "cycles;"),
        (2, "L2"),
        (10, "hits,"),
        (11, "HBM"),
        (20, "instructions"),
    ];
    assert!(
        w.len() > 20 && shape.iter().all(|&(i, s)| w[i] == s),
        "{bad}"
    );
    let num = |i: usize| -> f64 {
        w[i].trim_matches(|c: char| !c.is_ascii_digit() && c != '.')
            .parse()
            .unwrap_or_else(|_| panic!("`{}` in {line}", w[i]))
    };
    Why {
        cus: cus.parse().expect(&bad),
        cycles: num(0),
        l2_pct: num(7),
        l2_hits: num(8),
        hbm_pct: num(16),
        ipc: num(17),
        ipc_peak: num(19),
        verdict: verdict.to_string(),
    }
}

/// `gfxsim sweep --kind cus` (the README's documented command: the 256^3 GEMM, 256
/// workgroups, on 76, 152 and 304 CUs of the MI300X) writes the CSV and the SVG, and each
/// CU count's reason agrees with its figures and with how the time scales:
/// - the verdict follows the sweep's rule (a level at 70% of its bandwidth is
///   memory-bound, else 70% of the issue peak is issue-bound, else latency-bound), and the
///   idle CUs are those beyond the workgroups;
/// - every run issued the same instructions (IPC x CUs x cycles: the same GEMM);
/// - where the smaller GPU is issue-bound, doubling the CUs saves time (at least 10%);
/// - where it is latency-bound, doubling does not help (10%), and fewer CUs never take
///   less time unless their L2 hit rate is higher: with more XCDs each L2 serves fewer of
///   the workgroups that share a tile, so more loads wait for the MALL or DRAM.
#[test]
fn cus_sweep_time_scales_as_its_reasons_say() {
    let dir = std::env::temp_dir().join(format!("gfxsim_cus_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let gemm = root.join("corpus/build/gfx942/matmul_tiled.hsaco");
    let prefix = dir.join("cus");
    let workgroups = (256 / 16) * (256 / 16);
    let out = gfxsim(&[
        "sweep",
        "--kind",
        "cus",
        "--gpu",
        "mi300x",
        "--gemm",
        gemm.to_str().unwrap(),
        "--out",
        prefix.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(prefix.with_extension("csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("CUs,cycles"));
    let rows: Vec<(u32, f64)> = lines
        .map(|l| {
            let (x, y) = l.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), [76, 152, 304]);
    let svg = std::fs::read_to_string(prefix.with_extension("svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert_eq!(svg.matches("<circle").count(), 3, "one marker per CU count");
    let whys: Vec<Why> = out
        .lines()
        .filter(|l| l.starts_with("# "))
        .map(why)
        .collect();
    assert_eq!(whys.len(), 3, "{out}");
    let issued = |w: &Why| w.ipc * f64::from(w.cus) * w.cycles;
    for (w, &(cus, cycles)) in whys.iter().zip(&rows) {
        assert_eq!(w.cus, cus);
        assert!((w.cycles - cycles).abs() <= 1.0, "{} vs {cycles}", w.cycles);
        let rule = if w.l2_pct.max(w.hbm_pct) >= 70.0 {
            "memory-bound"
        } else if w.ipc >= 0.7 * w.ipc_peak {
            "issue-bound"
        } else {
            "latency-bound"
        };
        assert!(
            w.verdict.starts_with(rule),
            "{cus} CUs: {rule} by the figures: {out}"
        );
        let idle = format!("; {} of {cus} CUs idle", cus.saturating_sub(workgroups));
        assert_eq!(w.verdict.ends_with(&idle), workgroups < cus, "{out}");
        // The IPC is printed to 2 decimals: 0.005 of error, plus 1%.
        let (a, b) = (issued(w), issued(&whys[0]));
        let tol = 0.01 + 0.005 / w.ipc + 0.005 / whys[0].ipc;
        assert!(
            (a - b).abs() <= tol * b,
            "{cus} CUs issued {a:.0}, 76 CUs {b:.0}: {out}"
        );
    }
    for pair in whys.windows(2) {
        let (few, many) = (&pair[0], &pair[1]);
        let (t_few, t_many) = (few.cycles, many.cycles);
        let what = format!(
            "{} CUs {t_few} cycles, {} CUs {t_many}: {out}",
            few.cus, many.cus
        );
        if few.verdict.starts_with("issue-bound") {
            assert!(t_few >= 1.1 * t_many, "issue-bound: {what}");
        } else if few.verdict.starts_with("latency-bound") {
            assert!(
                (t_few - t_many).abs() <= 0.1 * t_many,
                "latency-bound: {what}"
            );
        }
        assert!(
            t_few >= t_many || few.l2_hits > many.l2_hits,
            "fewer CUs faster without more L2 hits: {what}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
