//! printf from real kernels through the hostcall buffer (`fixtures/service/printf.hip`,
//! built by Debian's hipcc toolchain: clang-15 and ROCm 5.2.3's device libraries, code
//! object v4 and v5). The expected text is computed here from the same inputs with Rust's
//! formatting, written out per conversion the way C's printf defines it.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/service/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn a_of(i: i32) -> i32 {
    let v = i * 37 - 500;
    if i % 2 == 1 {
        v
    } else {
        -v * 1000
    }
}

fn f_of(i: i32) -> f32 {
    i as f32 * 0.25 - 3.0
}

fn l_of(i: i32) -> i64 {
    i64::from(i) * -1_000_000_007
}

/// C's `%.<p>e`: Rust's mantissa, the exponent signed and at least two digits.
fn c_exp(v: f64, p: usize) -> String {
    let t = format!("{v:.p$e}");
    let (m, e) = t.split_once('e').unwrap();
    let e: i32 = e.parse().unwrap();
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// The line lane `i` of workgroup `wg` (workgroup size `wgs`) prints; `l_addr` is the
/// address of the `l` buffer.
fn line(wg: i32, wgs: i32, t: i32, l_addr: u64) -> String {
    let i = wg * wgs + t;
    let (a, f, l) = (a_of(i), f64::from(f_of(i)), l_of(i));
    // %g of these values (quarters between -3 and 100, at most 6 significant digits and
    // exponents in [-4, 6)) is the shortest decimal, which is what Rust's Display prints.
    format!(
        "wg {wg} t {t}: a={a} u={} x={:x} f={f:.6} e={} g={f} s={} c={} w=[{a:5}|{i:<4}|{f:06.2}] l={l} p={:#x}\n",
        a as u32,
        a as u32,
        c_exp(f, 3),
        if i & 1 == 1 { "odd" } else { "even" },
        char::from(b'A' + (i % 26) as u8),
        l_addr + 8 * i as u64,
    )
}

fn print_values(file: &str) {
    let mut dev = Device::new(Target::Gfx90a);
    let m = dev.load_code_object(&fixture(file)).unwrap();
    // Two workgroups of 128 (two waves each). Full groups: in a partial one HIP's
    // blockDim.x is the remainder (ROCm's device libraries), which this kernel's index
    // arithmetic does not expect.
    let (n, wgs) = (256i32, 128i32);
    let a: Vec<u8> = (0..n).flat_map(|i| a_of(i).to_le_bytes()).collect();
    let f: Vec<u8> = (0..n).flat_map(|i| f_of(i).to_le_bytes()).collect();
    let l: Vec<u8> = (0..n).flat_map(|i| l_of(i).to_le_bytes()).collect();
    let (da, df, dl) = (
        dev.alloc(a.len() as u64).unwrap(),
        dev.alloc(f.len() as u64).unwrap(),
        dev.alloc(l.len() as u64).unwrap(),
    );
    dev.copy_in(da, &a).unwrap();
    dev.copy_in(df, &f).unwrap();
    dev.copy_in(dl, &l).unwrap();
    let id = dev
        .dispatch(
            m,
            "print_values",
            &LaunchConfig::new([n as u32, 1, 1], [wgs as u32, 1, 1]),
            &[ArgValue::ptr(da), ArgValue::ptr(df), ArgValue::ptr(dl)],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let out = dev.take_output(id);
    assert!(out.stderr.is_empty());
    // Workgroups run one after another; within one, the waves take turns at every
    // hostcall, so wave 0's lines end first, then wave 1's, each in lane order.
    let expected: String = (0..n).map(|i| line(i / wgs, wgs, i % wgs, dl)).collect();
    let got = out.stdout_text();
    if got != expected {
        for (g, e) in got.lines().zip(expected.lines()) {
            assert_eq!(g, e);
        }
        assert_eq!(got.lines().count(), expected.lines().count());
    }
    // Taken once.
    assert!(dev.take_output(id).is_empty());
}

#[test]
fn hostcall_printf_code_object_v4() {
    print_values("printf_clang15_gfx90a_v4.hsaco");
}

#[test]
fn hostcall_printf_code_object_v5() {
    print_values("printf_clang15_gfx90a_v5.hsaco");
}

#[test]
fn printf_from_some_lanes_returns_the_byte_count() {
    let mut dev = Device::new(Target::Gfx90a);
    let m = dev
        .load_code_object(&fixture("printf_clang15_gfx90a_v5.hsaco"))
        .unwrap();
    let (n, limit) = (128u32, 90i32);
    let ret = dev.alloc(4 * u64::from(n)).unwrap();
    let id = dev
        .dispatch(
            m,
            "print_some",
            &LaunchConfig::new([n, 1, 1], [64, 1, 1]),
            &[ArgValue::ptr(ret), ArgValue::u32(limit as u32)],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let mut expected = String::new();
    let mut want = Vec::new();
    for i in 0..n as i32 {
        if i % 3 == 0 && i < limit {
            let s = format!("lane {i} of {limit} says hello\n");
            want.push(s.len() as i32);
            expected.push_str(&s);
        } else {
            want.push(-2);
        }
    }
    assert_eq!(dev.take_output(id).stdout_text(), expected);
    let mut got = vec![0u8; 4 * n as usize];
    dev.copy_out(ret, &mut got).unwrap();
    let got: Vec<i32> = got
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn dispatches_print_the_same_text_every_time() {
    let run = || {
        let mut dev = Device::new(Target::Gfx90a);
        let m = dev
            .load_code_object(&fixture("printf_clang15_gfx90a_v4.hsaco"))
            .unwrap();
        let ret = dev.alloc(4 * 256).unwrap();
        let id = dev
            .dispatch(
                m,
                "print_some",
                &LaunchConfig::new([256, 1, 1], [256, 1, 1]),
                &[ArgValue::ptr(ret), ArgValue::u32(256)],
            )
            .unwrap();
        dev.wait(id).unwrap();
        dev.take_output(id)
    };
    let first = run();
    assert_eq!(first.stdout_text().lines().count(), 86);
    assert_eq!(first, run());
}

#[test]
fn kernels_without_services_are_unaffected() {
    // A kernel whose metadata has no hostcall buffer gets none, and prints nothing.
    let mut dev = Device::new(Target::Gfx90a);
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/abi/");
    let co = std::fs::read(format!("{p}scale_clang15_gfx90a_v5.hsaco")).unwrap();
    let m = dev.load_code_object(&co).unwrap();
    let x = dev.alloc(4 * 64).unwrap();
    let id = dev
        .dispatch(
            m,
            "scale",
            &LaunchConfig::new([64, 1, 1], [64, 1, 1]),
            &[ArgValue::ptr(x), ArgValue::f32(2.0), ArgValue::u32(64)],
        )
        .unwrap();
    dev.wait(id).unwrap();
    assert!(dev.take_output(id).is_empty());
}
