//! `Device` submits work through an AQL queue in its own memory, read by the SoC's packet
//! code: after each dispatch the ring slot is released (header back to INVALID), the
//! read and write dispatch ids of the `amd_queue_t` have advanced, the completion signal
//! was decremented to 0, and the kernel ran (checked against a CPU reference).

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::soc::queue::{self, PACKET_INVALID};
use gpu_model::Target;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn u64_at(dev: &Device, addr: u64) -> u64 {
    let mut b = [0u8; 8];
    dev.copy_out(addr, &mut b).unwrap();
    u64::from_le_bytes(b)
}

#[test]
fn dispatches_go_through_the_ring_and_signal() {
    let mut dev = Device::new(Target::Gfx942);
    let m = dev
        .load_code_object(&fixture("kernels_gfx942_v5.hsaco"))
        .unwrap();
    let q = dev.queue();
    let signal = dev.completion_signal();
    assert_eq!(u64_at(&dev, q.write_index), 0);
    let n = 300u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (da, db, dc) = (
        dev.alloc(4 * u64::from(n)).unwrap(),
        dev.alloc(4 * u64::from(n)).unwrap(),
        dev.alloc(4 * u64::from(n)).unwrap(),
    );
    dev.copy_in(da, &bytes(&a)).unwrap();
    dev.copy_in(db, &bytes(&b)).unwrap();
    for round in 1..=3u64 {
        let args = [
            ArgValue::ptr(da),
            ArgValue::ptr(db),
            ArgValue::ptr(dc),
            ArgValue::u32(n),
        ];
        let id = dev
            .dispatch(m, "vadd", &LaunchConfig::new([n, 1, 1], [64, 1, 1]), &args)
            .unwrap();
        // Dispatch ids are packet index + 1 (packet i of queue 0).
        assert_eq!(id.0, round);
        let stats = dev.wait(id).unwrap();
        assert!(stats.instructions > 0);
        // The producer's write index and the packet processor's read index advanced.
        assert_eq!(u64_at(&dev, q.write_index), round, "write_dispatch_id");
        assert_eq!(u64_at(&dev, q.read_index), round, "read_dispatch_id");
        // The consumed slot is INVALID again.
        let mut h = [0u8; 2];
        dev.copy_out(q.slot(round - 1), &mut h).unwrap();
        assert_eq!(h[0], PACKET_INVALID, "slot {} header", round - 1);
        // The completion signal went from 1 to 0.
        assert_eq!(u64_at(&dev, signal + queue::SIGNAL_VALUE), 0);
    }
    let mut out = vec![0u8; 4 * n as usize];
    dev.copy_out(dc, &mut out).unwrap();
    for (i, c) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        assert_eq!(got, a[i] + b[i], "c[{i}]");
    }
}
