//! printf from real kernels through the hostcall buffer (`fixtures/service/printf.hip`,
//! built by Debian's hipcc toolchain: clang-15 and ROCm 5.2.3's device libraries, code
//! object v4 and v5). The expected text is computed here from the same inputs with Rust's
//! formatting, written out per conversion the way C's printf defines it.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;

mod service_common;
use service_common::{fixture, read_i32s, run_one, small_soc};

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

/// The SoC serves hostcalls at its memory sync points: `print_values` on a small mi250x
/// (gfx90a) with 2 XCDs, on 1 and 2 threads. Waves on different CUs interleave, so the
/// line order is the SoC's own (the order requests reached the host), but it is the same
/// on any number of threads, every lane's line is there once, and each wave's lines come
/// out in lane order (one packet per wave carries every lane's END).
#[test]
fn soc_serves_hostcalls_at_sync_points_deterministically() {
    let (n, wgs) = (512i32, 128i32);
    let run = |threads: usize| {
        let (mut soc, m) = small_soc("mi250x", threads, "printf_clang15_gfx90a_v5.hsaco");
        let a: Vec<u8> = (0..n).flat_map(|i| a_of(i).to_le_bytes()).collect();
        let f: Vec<u8> = (0..n).flat_map(|i| f_of(i).to_le_bytes()).collect();
        let l: Vec<u8> = (0..n).flat_map(|i| l_of(i).to_le_bytes()).collect();
        let bufs: Vec<u64> = [&a, &f, &l]
            .iter()
            .map(|b| {
                let d = soc.alloc(b.len() as u64).unwrap();
                soc.write(d, b).unwrap();
                d
            })
            .collect();
        let args: Vec<Vec<u8>> = bufs.iter().map(|d| d.to_le_bytes().to_vec()).collect();
        let seq = run_one(&mut soc, m, "print_values", n as u32, wgs as u32, &args);
        let (out, failed) = soc.take_output(seq);
        assert_eq!(failed, None);
        (out.stdout_text(), bufs[2])
    };
    let (one, dl) = run(1);
    let (two, _) = run(2);
    assert_eq!(one, two, "the printed text depends on the thread count");
    let mut got: Vec<&str> = one.lines().collect();
    // Each wave's lines in lane order.
    let pos = |i: i32| {
        got.iter()
            .position(|g| *g == line(i / wgs, wgs, i % wgs, dl).trim_end())
            .unwrap_or_else(|| panic!("no line for lane {i}"))
    };
    for i in 0..n {
        if i % 64 != 63 {
            assert!(pos(i) < pos(i + 1), "lanes {i} and {} out of order", i + 1);
        }
    }
    let expected: String = (0..n).map(|i| line(i / wgs, wgs, i % wgs, dl)).collect();
    let mut want: Vec<&str> = expected.lines().collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn a_service_the_simulator_lacks_is_a_typed_fault_naming_it() {
    use gpu_model::device::DeviceError;
    use gpu_model::exec::FaultReason;
    use gpu_model::service::ServiceError;
    let mut dev = Device::new(Target::Gfx90a);
    let m = dev
        .load_code_object(&fixture("printf_clang15_gfx90a_v5.hsaco"))
        .unwrap();
    let out = dev.alloc(8 * 64).unwrap();
    let id = dev
        .dispatch(
            m,
            "call_host",
            &LaunchConfig::new([64, 1, 1], [64, 1, 1]),
            &[ArgValue::ptr(out)],
        )
        .unwrap();
    let Err(DeviceError::Fault(f)) = dev.wait(id) else {
        panic!("expected a fault");
    };
    assert_eq!(f.kernel, "call_host");
    assert_eq!(
        f.reason,
        FaultReason::Service(ServiceError::UnknownService { service: 1 })
    );
    // The report names the wave that waits for the answer and its PC (just past the
    // `s_sleep` where it stopped).
    let text = f.to_string();
    assert!(text.contains("service 1 (host function call)"), "{text}");
    assert!(
        text.contains("`call_host`") && text.contains("pc 0x"),
        "{text}"
    );
}

// ---- Buffered printf (`hidden_printf_buffer`): fixtures/service/printf_buffered.{cl,hip},
// built with clang-22 by fixtures/service/build.sh. ----

const F: f32 = 0.7;
const D: f64 = 2.5;
const L: i64 = -123_456_789_012;

/// The line `cl_printf` prints for work-item `i`, written out per conversion as C's printf
/// defines it (Rust's fixed-precision formatting rounds the exact binary value, as glibc
/// does).
fn cl_line(i: i32) -> String {
    let fi = F * i as f32;
    format!(
        "i={i} u={i} x={i:#x} f={:.2} e={} d={:.3} l={} c={} s=lit v={i},{},{},7 h={:.6},{:.6} %\n",
        f64::from(fi),
        c_exp(f64::from(F), 6),
        D * f64::from(i),
        L * i64::from(i),
        char::from(b'A' + (i % 26) as u8),
        -i,
        3 * i,
        f64::from(F),
        f64::from(i as f32),
    )
}

fn sorted_lines(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

fn opencl_printf_on(target: Target, file: &str) {
    let mut dev = Device::new(target);
    let m = dev.load_code_object(&fixture(file)).unwrap();
    let n = 256u32;
    let out = dev.alloc(4 * u64::from(n)).unwrap();
    let id = dev
        .dispatch(
            m,
            "cl_printf",
            &LaunchConfig::new([n, 1, 1], [64, 1, 1]),
            &[
                ArgValue::ptr(out),
                ArgValue::f32(F),
                ArgValue::f64(D),
                ArgValue::u64(L as u64),
            ],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let text = dev.take_output(id).stdout_text();
    let printing: Vec<i32> = (0..n as i32).filter(|i| i % 16 == 3).collect();
    let expected: String = printing.iter().map(|&i| cl_line(i)).collect();
    assert_eq!(sorted_lines(&text), sorted_lines(&expected), "{file}");
    // OpenCL printf returns 0 when it printed.
    let want: Vec<i32> = (0..n as i32)
        .map(|i| if i % 16 == 3 { 0 } else { 1 })
        .collect();
    assert_eq!(read_i32s(&dev, out, n as usize), want, "{file}");
}

#[test]
fn opencl_buffered_printf_gfx90a() {
    opencl_printf_on(Target::Gfx90a, "printf_buffered_cl_gfx90a.hsaco");
}

#[test]
fn opencl_buffered_printf_gfx942() {
    opencl_printf_on(Target::Gfx942, "printf_buffered_cl_gfx942.hsaco");
}

#[test]
fn opencl_buffered_printf_gfx1201_wave32() {
    opencl_printf_on(Target::Gfx1201, "printf_buffered_cl_gfx1201.hsaco");
}

/// More records than the 1 MB buffer holds: `__printf_alloc` refuses the ones that do not
/// fit, printf returns -1 for them, and exactly the records that fit are printed.
#[test]
fn a_full_printf_buffer_drops_records_and_printf_says_so() {
    let mut dev = Device::new(Target::Gfx942);
    let m = dev
        .load_code_object(&fixture("printf_buffered_cl_gfx942.hsaco"))
        .unwrap();
    let (n, lines) = (1024u32, 100i32);
    let out = dev.alloc(4 * u64::from(n)).unwrap();
    let id = dev
        .dispatch(
            m,
            "cl_flood",
            &LaunchConfig::new([n, 1, 1], [256, 1, 1]),
            &[ArgValue::ptr(out), ArgValue::u32(lines as u32)],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let text = dev.take_output(id).stdout_text();
    let ok = read_i32s(&dev, out, n as usize);
    // A record is the format id and two ints (12 bytes); __printf_alloc grants one while
    // offset + 12 + 8 <= 1 MiB: offsets 0, 12, ..., 1048548, 87380 records.
    let fit = 87_380;
    assert_eq!(ok.iter().sum::<i32>(), fit);
    assert_eq!(text.lines().count(), fit as usize);
    // Each work-item's printed lines are its first ones, in order.
    let mut per_item = vec![0i32; n as usize];
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let (i, k): (usize, i32) = (w[2].parse().unwrap(), w[4].parse().unwrap());
        assert_eq!(
            format!("{l}\n"),
            format!("flood work-item {i:6} line {k:4} padding padding padding\n")
        );
        assert_eq!(
            k, per_item[i],
            "work-item {i} printed line {k} out of order"
        );
        per_item[i] += 1;
    }
    assert_eq!(per_item, ok);
}

#[test]
fn hip_buffered_printf_with_constant_and_runtime_formats() {
    let mut dev = Device::new(Target::Gfx942);
    let m = dev
        .load_code_object(&fixture("printf_buffered_hip_gfx942.hsaco"))
        .unwrap();
    let n = 256u32;
    let cstr = |dev: &mut Device, s: &str| {
        let a = dev.alloc(s.len() as u64 + 1).unwrap();
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        dev.copy_in(a, &b).unwrap();
        a
    };
    let fmt = cstr(&mut dev, "runtime format: %d -> %d\n");
    let name = cstr(&mut dev, "a name longer than eight bytes");
    let out = dev.alloc(4 * u64::from(n)).unwrap();
    let (d, l, f) = (0.1f64, 1i64 << 40, 0.5f32);
    let id = dev
        .dispatch(
            m,
            "hip_printf",
            &LaunchConfig::new([n, 1, 1], [64, 1, 1]),
            &[
                ArgValue::ptr(out),
                ArgValue::ptr(fmt),
                ArgValue::ptr(name),
                ArgValue::f64(d),
                ArgValue::u64(l as u64),
                ArgValue::f32(f),
            ],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let text = dev.take_output(id).stdout_text();
    let mut expected = String::new();
    for i in (0..n as i32).filter(|i| i % 32 == 5) {
        expected += &format!(
            "hip i={i} d={:.4} l={} f=0.5 s=a name longer than eight bytes c={} lit=literal\n",
            d * f64::from(i),
            l - i64::from(i),
            char::from(b'a' + (i % 26) as u8)
        );
        expected += &format!("runtime format: {i} -> {}\n", 2 * i);
    }
    assert_eq!(sorted_lines(&text), sorted_lines(&expected));
    let want: Vec<i32> = (0..n as i32)
        .map(|i| if i % 32 == 5 { 0 } else { 1 })
        .collect();
    assert_eq!(read_i32s(&dev, out, n as usize), want);
}

/// On the SoC the buffer is printed when the dispatch retires: the same text on 1 and 2
/// threads, and the same lines as the Device path.
#[test]
fn soc_prints_the_printf_buffer_when_the_dispatch_retires() {
    let n = 512u32;
    let run = |threads: usize| {
        let (mut soc, m) = small_soc("mi300x", threads, "printf_buffered_cl_gfx942.hsaco");
        let out = soc.alloc(4 * u64::from(n)).unwrap();
        let args = [
            out.to_le_bytes().to_vec(),
            F.to_le_bytes().to_vec(),
            D.to_le_bytes().to_vec(),
            L.to_le_bytes().to_vec(),
        ];
        let seq = run_one(&mut soc, m, "cl_printf", n, 64, &args);
        let (text, failed) = soc.take_output(seq);
        assert_eq!(failed, None);
        text.stdout_text()
    };
    let one = run(1);
    assert_eq!(one, run(2), "the printed text depends on the thread count");
    let expected: String = (0..n as i32).filter(|i| i % 16 == 3).map(cl_line).collect();
    assert_eq!(sorted_lines(&one), sorted_lines(&expected));
}

/// Malformed `amdhsa.printf` entries are refused with the reason (the loader names the
/// entry); escapes in OpenCL formats are resolved.
#[test]
fn malformed_printf_metadata_is_refused_at_load() {
    use gpu_model::loader::PrintfFormat;
    assert!(PrintfFormat::parse("1:2:4:4:%d %d").is_ok());
    for bad in ["x:1:4:%d", "1:9:4:%d", "0:0:zz,%d", "0:0:12", "1:2:4"] {
        assert!(PrintfFormat::parse(bad).is_err(), "{bad}");
    }
    let Ok(PrintfFormat::Numbered { format, .. }) = PrintfFormat::parse("3:0:a\\tb\\n\\101") else {
        panic!()
    };
    assert_eq!(format, b"a\tb\nA");
}

/// A checkpoint cannot hold runtime-service state (the hostcall buffer a printf kernel
/// writes, the packets being served, text not yet printed): taken while such a dispatch
/// runs, it is a typed refusal naming the dispatch, and the run goes on as if it had not
/// been asked (every line printed once, as in an uninterrupted run). After the dispatch
/// completes, the checkpoint is taken and restores.
#[test]
fn checkpoint_while_printf_runs_is_refused_and_the_run_goes_on() {
    use gpu_model::soc::{LaunchRequest, SocError};
    let (n, wgs) = (256i32, 64i32);
    let (mut soc, m) = small_soc("mi250x", 1, "printf_clang15_gfx90a_v5.hsaco");
    let a: Vec<u8> = (0..n).flat_map(|i| a_of(i).to_le_bytes()).collect();
    let f: Vec<u8> = (0..n).flat_map(|i| f_of(i).to_le_bytes()).collect();
    let l: Vec<u8> = (0..n).flat_map(|i| l_of(i).to_le_bytes()).collect();
    let bufs: Vec<u64> = [&a, &f, &l]
        .iter()
        .map(|b| {
            let d = soc.alloc(b.len() as u64).unwrap();
            soc.write(d, b).unwrap();
            d
        })
        .collect();
    let args: Vec<Vec<u8>> = bufs.iter().map(|d| d.to_le_bytes().to_vec()).collect();
    let seq = soc
        .submit(
            m,
            &LaunchRequest {
                kernel: "print_values",
                grid: [n as u32, 1, 1],
                workgroup: [wgs as u32, 1, 1],
                dynamic_lds: 0,
                args: &args,
            },
        )
        .unwrap();
    // Run in slices of the dispatch's time (taken from an uninterrupted run of the same
    // launch) and ask for a checkpoint after each while it runs.
    let span = {
        let (mut r, rm) = small_soc("mi250x", 1, "printf_clang15_gfx90a_v5.hsaco");
        let mut rargs = Vec::new();
        for b in [&a, &f, &l] {
            let d = r.alloc(b.len() as u64).unwrap();
            r.write(d, b).unwrap();
            rargs.push(d.to_le_bytes().to_vec());
        }
        let rs = run_one(&mut r, rm, "print_values", n as u32, wgs as u32, &rargs);
        let c = r.completions().iter().find(|c| c.seq == rs).unwrap();
        c.completed.0 - c.submitted.0
    };
    let mut refused = 0;
    let mut t = soc.now();
    while soc.completions().is_empty() {
        t = simkit::time::Tick(t.0 + span / 8);
        soc.run_until(t).unwrap();
        if !soc.completions().is_empty() {
            break;
        }
        match soc.checkpoint() {
            Err(SocError::CheckpointMismatch(msg)) => {
                assert!(
                    msg.contains(&format!("dispatch {seq}")) && msg.contains("printf"),
                    "{msg}"
                );
                refused += 1;
            }
            Ok(_) => panic!("a checkpoint was taken while the printf dispatch ran"),
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert!(
        refused > 0,
        "no checkpoint was asked while the dispatch ran"
    );
    eprintln!("{refused} checkpoints refused");
    let done = soc.completions().iter().find(|c| c.seq == seq).unwrap();
    assert!(done.fault.is_none(), "{:?}", done.fault);
    let (out, failed) = soc.take_output(seq);
    assert_eq!(failed, None);
    let mut got: Vec<String> = out.stdout_text().lines().map(String::from).collect();
    let expected: String = (0..n)
        .map(|i| line(i / wgs, wgs, i % wgs, bufs[2]))
        .collect();
    let mut want: Vec<String> = expected.lines().map(String::from).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(
        got, want,
        "the refused checkpoints changed the printed text"
    );
    // Completed: the services are released and the checkpoint is taken.
    let bytes = soc.checkpoint().unwrap();
    let config = gpu_model::config::GpuConfig::preset("mi250x")
        .unwrap()
        .with_overrides_ron(r#"{"xcds": 2, "iods": 2, "xcd.active_cus": 2}"#)
        .unwrap();
    let mut fresh = gpu_model::soc::Soc::new(
        &config,
        &gpu_model::soc::SocOptions {
            threads: 2,
            ..Default::default()
        },
    )
    .unwrap();
    fresh.restore(&bytes).unwrap();
    assert_eq!(fresh.completions(), soc.completions());
}
