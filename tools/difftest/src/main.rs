//! `difftest`: random OpenCL C kernels, host against gpu-model. See the crate docs.
//!
//! ```text
//! difftest [--seed S] [--first I] [--count N] [--batch B] [--jobs J]
//!          [--builds gfx942-w64-O3,...] [--workdir DIR] [--print I]
//!          [--features partial,f16fma,vdiv,subgroup,transc|all]
//! ```
//! Exit status 1 when anything differed.

use std::path::PathBuf;
use std::process::ExitCode;

use difftest::{all_builds, gen, run, Options};

fn usage(msg: &str) -> ExitCode {
    eprintln!("difftest: {msg}");
    eprintln!("usage: difftest [--seed S] [--first I] [--count N] [--batch B] [--jobs J] [--builds LIST] [--workdir DIR] [--features LIST] [--print I]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut o = Options {
        seed: 1,
        first: 0,
        count: 200,
        batch: 50,
        builds: all_builds(),
        jobs: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2),
        workdir: std::env::temp_dir().join("difftest"),
        features: gen::Features::default(),
    };
    let mut print = None;
    let mut minimize = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let Some(v) = args.get(i + 1) else {
            return usage(&format!("{} needs a value", args[i]));
        };
        let num = || {
            v.parse::<u64>()
                .map_err(|_| format!("{}: not a number: {v}", args[i]))
        };
        let r = match args[i].as_str() {
            "--seed" => num().map(|n| o.seed = n),
            "--first" => num().map(|n| o.first = n),
            "--count" => num().map(|n| o.count = n),
            "--batch" => num().map(|n| o.batch = n.max(1)),
            "--jobs" => num().map(|n| o.jobs = n.max(1) as usize),
            "--print" => num().map(|n| print = Some(n)),
            "--minimize" => num().map(|n| minimize = Some(n)),
            "--features" => gen::Features::parse(v).map(|f| o.features = f),
            "--workdir" => {
                o.workdir = PathBuf::from(v);
                Ok(())
            }
            "--builds" => {
                let want: Vec<&str> = v.split(',').collect();
                o.builds = all_builds()
                    .into_iter()
                    .filter(|b| want.contains(&b.to_string().as_str()))
                    .collect();
                if o.builds.len() == want.len() {
                    Ok(())
                } else {
                    Err(format!(
                        "--builds: unknown build in {v} (names look like gfx1200-w32-O3)"
                    ))
                }
            }
            a => Err(format!("unknown argument {a}")),
        };
        if let Err(e) = r {
            return usage(&e);
        }
        i += 2;
    }
    if let Some(k) = print {
        let kern = gen::kernel_with(o.seed, k, o.features);
        println!("{}{}", gen::header(), kern.source);
        println!(
            "/* work-group {} x {} groups; input words: {:?} */",
            kern.wg,
            gen::GROUPS,
            gen::input(o.seed, k)
        );
        return ExitCode::SUCCESS;
    }
    if let Some(k) = minimize {
        let Some(&b) = o.builds.first() else {
            return usage("--minimize needs a build");
        };
        return match difftest::minimize(o.seed, k, o.features, b, &o.workdir) {
            Ok(Some(m)) => {
                println!(
                    "/* seed {} kernel {k}: differs on {b}; minimized */",
                    o.seed
                );
                println!("{}", m.source);
                println!(
                    "/* work-group {} x {} groups; input words: {:?} */",
                    m.wg,
                    gen::GROUPS,
                    gen::input(o.seed, k)
                );
                ExitCode::SUCCESS
            }
            Ok(None) => {
                println!("seed {} kernel {k} does not differ on {b}", o.seed);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("difftest: {e}");
                ExitCode::from(2)
            }
        };
    }
    let t = std::time::Instant::now();
    match run(&o) {
        Ok(rep) => {
            for m in &rep.mismatches {
                println!(
                    "MISMATCH seed {} kernel {} on {}: {}",
                    o.seed, m.kernel, m.build, m.detail
                );
            }
            println!(
                "difftest: seed {} kernels {}..{} x {} builds = {} dispatches, {} mismatches, {:.1} s",
                o.seed,
                o.first,
                o.first + o.count,
                rep.builds,
                rep.dispatches,
                rep.mismatches.len(),
                t.elapsed().as_secs_f64()
            );
            for (f, st) in difftest::gen::TRANSC_FNS.iter().zip(&rep.transc) {
                if st.compared > 0 {
                    println!(
                        "difftest: {:>5} ({} ulp allowed): {} results, {} not bit-identical to the host, largest {} ulp",
                        f.name, f.ulp, st.compared, st.inexact, st.max_ulp
                    );
                }
            }
            if rep.mismatches.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("difftest: {e}");
            ExitCode::from(2)
        }
    }
}
