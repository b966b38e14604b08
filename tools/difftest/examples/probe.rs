//! Runs one hand-edited kernel (a file holding one `k`-named kernel function, without the
//! batch header) on the host and on one build, and prints the words that differ:
//! `probe FILE NAME WG SEED INDEX BUILD` (input words from seed/index as in the run).
use difftest::{all_builds, batch_source, compile_device, gen, host_reference, run_device};
use std::path::Path;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let k = gen::Kernel {
        name: a[2].clone(),
        wg: a[3].parse().unwrap(),
        tail: 0,
        source: std::fs::read_to_string(&a[1]).unwrap(),
        transc: Vec::new(),
    };
    let input = gen::input(a[4].parse().unwrap(), a[5].parse().unwrap());
    let b = all_builds()
        .into_iter()
        .find(|b| b.to_string() == a[6])
        .unwrap();
    let dir = Path::new("/tmp/difftest-probe");
    std::fs::create_dir_all(dir).unwrap();
    let ks = std::slice::from_ref(&k);
    let src = batch_source(ks);
    let host = host_reference(dir, &src, ks, &input).unwrap();
    std::fs::write(dir.join("p.cl"), &src).unwrap();
    let obj = compile_device(&dir.join("p.cl"), b, &dir.join("p.hsaco")).unwrap();
    let dev = run_device(b, &obj, ks, &input).pop().unwrap().unwrap();
    for (i, (h, d)) in host[0].iter().zip(&dev).enumerate() {
        if h != d {
            println!(
                "word {i} (item {} slot {}): host {h:#010x} device {d:#010x}",
                i / 8,
                i % 8
            );
        }
    }
}
