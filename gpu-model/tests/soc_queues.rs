//! The command processor reads real AQL queues from memory: kernel-dispatch packets of
//! clang-22 code objects (the corpus' vadd and saxpy, results checked against the CPU),
//! barrier-AND/OR packets, the vendor PM4 packet, completion signals decremented in memory
//! with mailbox events, several queues, invalid packets reported as typed errors, queues in
//! host memory, and a checkpoint of a queue run that continues identically.

use gpu_model::config::GpuConfig;
use gpu_model::dispatch::kernarg::{build_kernargs, LaunchShape, KERNARG_PAD};
use gpu_model::loader::CodeObject;
use gpu_model::memory::{FaultKind, PAGE_SIZE};
use gpu_model::soc::queue::{
    packet_header, PACKET_BARRIER_AND, PACKET_BARRIER_OR, PACKET_KERNEL_DISPATCH,
    PACKET_VENDOR_SPECIFIC, SIGNAL_END_TS, SIGNAL_EVENT_ID, SIGNAL_EVENT_MAILBOX, SIGNAL_START_TS,
    SIGNAL_VALUE, TIMESTAMP_PERIOD_PS,
};
use gpu_model::soc::{PacketErrorKind, QueueDesc, QueueEvent, QueueId, Soc, SocOptions};
use simkit::time::Tick;
use std::path::Path;
use std::sync::{Arc, Mutex};

const N: u32 = 1000;

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

fn soc(threads: usize) -> Soc {
    let opts = SocOptions {
        threads,
        ..SocOptions::default()
    };
    Soc::new(&config(), &opts).unwrap()
}

/// A queue: its amd_queue_t (write index at +0x38, read index at +0x80) and ring.
struct Q {
    id: QueueId,
    desc: QueueDesc,
    next: u64,
}

fn queue(soc: &mut Soc, slots: u64, doorbell: u32) -> Q {
    let amd = soc.alloc(256).unwrap();
    let ring = soc.alloc(slots * 64).unwrap();
    let desc = QueueDesc::amd_queue(amd, ring, slots * 64, doorbell);
    let id = soc.create_queue(desc).unwrap();
    Q { id, desc, next: 0 }
}

/// Writes a packet the way a producer does (body, then header, then the write index).
fn publish(soc: &mut Soc, q: &mut Q, mut bytes: [u8; 64], header: u16) -> u64 {
    let index = q.next;
    let slot = q.desc.slot(index);
    bytes[0..2].copy_from_slice(&1u16.to_le_bytes());
    soc.write(slot, &bytes).unwrap();
    soc.write(slot, &header.to_le_bytes()).unwrap();
    q.next += 1;
    soc.write(q.desc.write_index, &q.next.to_le_bytes())
        .unwrap();
    index
}

/// An amd_signal_t with `value` and an optional mailbox.
fn signal(soc: &mut Soc, value: i64, mailbox: u64, event_id: u32) -> u64 {
    let s = soc.alloc(64).unwrap();
    soc.write(s + SIGNAL_VALUE, &value.to_le_bytes()).unwrap();
    soc.write(s + SIGNAL_EVENT_MAILBOX, &mailbox.to_le_bytes())
        .unwrap();
    soc.write(s + SIGNAL_EVENT_ID, &event_id.to_le_bytes())
        .unwrap();
    s
}

fn signal_value(soc: &Soc, s: u64) -> i64 {
    let mut b = [0u8; 8];
    soc.read(s + SIGNAL_VALUE, &mut b).unwrap();
    i64::from_le_bytes(b)
}

fn read_u64(soc: &Soc, a: u64) -> u64 {
    let mut b = [0u8; 8];
    soc.read(a, &mut b).unwrap();
    u64::from_le_bytes(b)
}

/// A kernel of a code object: its kernel object and what a runtime needs to lay out its
/// kernargs.
struct Kernel {
    co: CodeObject,
    name: &'static str,
    kernel_object: u64,
}

/// Kernargs for `k` (explicit `args`, hidden ones per the metadata) in fresh memory.
fn kernargs(soc: &mut Soc, k: &Kernel, q: &Q, args: &[Vec<u8>]) -> u64 {
    let kernel = k.co.kernel(k.name).unwrap();
    let shape = LaunchShape {
        grid: [N.next_multiple_of(64), 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds: 0,
    };
    let built = build_kernargs(
        kernel.metadata.as_ref().unwrap(),
        &kernel.descriptor,
        &shape,
        q.desc.queue_address,
        args.iter().map(Vec::as_slice),
        65536,
    )
    .unwrap();
    let a = soc.alloc(built.bytes.len() as u64 + KERNARG_PAD).unwrap();
    soc.write(a, &built.bytes).unwrap();
    a
}

/// A kernel-dispatch packet body (1-D, 64-wide workgroups over N rounded up).
fn dispatch_packet(kernel_object: u64, kernarg: u64, signal: u64) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[2..4].copy_from_slice(&1u16.to_le_bytes());
    b[4..6].copy_from_slice(&64u16.to_le_bytes());
    b[6..8].copy_from_slice(&1u16.to_le_bytes());
    b[8..10].copy_from_slice(&1u16.to_le_bytes());
    b[12..16].copy_from_slice(&N.next_multiple_of(64).to_le_bytes());
    b[16..20].copy_from_slice(&1u32.to_le_bytes());
    b[20..24].copy_from_slice(&1u32.to_le_bytes());
    b[32..40].copy_from_slice(&kernel_object.to_le_bytes());
    b[40..48].copy_from_slice(&kernarg.to_le_bytes());
    b[56..64].copy_from_slice(&signal.to_le_bytes());
    b
}

fn barrier_packet(deps: &[u64], signal: u64) -> [u8; 64] {
    let mut b = [0u8; 64];
    for (k, d) in deps.iter().enumerate() {
        b[8 + 8 * k..16 + 8 * k].copy_from_slice(&d.to_le_bytes());
    }
    b[56..64].copy_from_slice(&signal.to_le_bytes());
    b
}

fn floats(soc: &mut Soc, v: &[f32]) -> u64 {
    let a = soc.alloc(4 * v.len() as u64).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    soc.write(a, &bytes).unwrap();
    a
}

fn read_floats(soc: &Soc, a: u64, n: usize) -> Vec<f32> {
    let mut b = vec![0u8; 4 * n];
    soc.read(a, &mut b).unwrap();
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn inputs(seed: u32) -> Vec<f32> {
    (0..N)
        .map(|i| ((i * 37 + seed * 11) % 101) as f32 * 0.25 - 7.0)
        .collect()
}

fn p(a: u64) -> Vec<u8> {
    a.to_le_bytes().to_vec()
}

fn vadd(soc: &mut Soc) -> Kernel {
    let bytes = code_object("vadd");
    let m = soc.load_code_object(&bytes).unwrap();
    Kernel {
        kernel_object: soc.kernel_object(m, "vadd").unwrap(),
        co: CodeObject::parse(&bytes).unwrap(),
        name: "vadd",
    }
}

/// vadd of `a` and `b` on queue `q`: returns the output buffer.
fn enqueue_vadd(
    soc: &mut Soc,
    k: &Kernel,
    q: &mut Q,
    a: u64,
    b: u64,
    sig: u64,
    barrier: bool,
) -> u64 {
    let c = soc.alloc(4 * u64::from(N)).unwrap();
    let ka = kernargs(soc, k, q, &[p(a), p(b), p(c), N.to_le_bytes().to_vec()]);
    let h = packet_header(PACKET_KERNEL_DISPATCH, barrier);
    publish(soc, q, dispatch_packet(k.kernel_object, ka, sig), h);
    c
}

fn sum(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

#[test]
fn dispatches_from_two_queues_run_and_decrement_their_signals() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let (mut q1, mut q2) = (queue(&mut soc, 8, 1), queue(&mut soc, 8, 2));
    let (x, y, z) = (inputs(1), inputs(2), inputs(3));
    let (px, py, pz) = (
        floats(&mut soc, &x),
        floats(&mut soc, &y),
        floats(&mut soc, &z),
    );
    // One signal counts both dispatches down (2 -> 0); each queue's second has its own.
    let both = signal(&mut soc, 2, 0, 0);
    let own = signal(&mut soc, 5, 0, 0);
    let c1 = enqueue_vadd(&mut soc, &k, &mut q1, px, py, both, false);
    let c2 = enqueue_vadd(&mut soc, &k, &mut q2, py, pz, both, false);
    let c3 = enqueue_vadd(&mut soc, &k, &mut q2, px, pz, own, false);
    soc.ring_doorbell(Some(q1.id)).unwrap();
    soc.ring_doorbell(Some(q2.id)).unwrap();
    soc.run().unwrap();
    assert_eq!(read_floats(&soc, c1, N as usize), sum(&x, &y));
    assert_eq!(read_floats(&soc, c2, N as usize), sum(&y, &z));
    assert_eq!(read_floats(&soc, c3, N as usize), sum(&x, &z));
    assert_eq!(signal_value(&soc, both), 0);
    assert_eq!(signal_value(&soc, own), 4);
    // Read indices advanced past every packet; consumed headers are INVALID again.
    assert_eq!(read_u64(&soc, q1.desc.read_index), 1);
    assert_eq!(read_u64(&soc, q2.desc.read_index), 2);
    assert_eq!(read_u64(&soc, q2.desc.slot(1)) & 0xff, 1);
    assert_eq!(soc.completions().len(), 3);
    assert!(soc.completions().iter().all(|c| c.fault.is_none()));
    // q2's two packets had no barrier bit: both ran at once.
    let done = soc.completions();
    let q2s: Vec<_> = done
        .iter()
        .filter(|c| c.seq >> 44 == u64::from(q2.id.0))
        .collect();
    assert_eq!(q2s.len(), 2);
    assert!(q2s[1].submitted < q2s[0].completed);
    assert!(soc.events().is_empty());
}

/// A signal's profiling timestamps (`start_ts`, `end_ts`).
fn ts(soc: &Soc, s: u64) -> (u64, u64) {
    (
        read_u64(soc, s + SIGNAL_START_TS),
        read_u64(soc, s + SIGNAL_END_TS),
    )
}

/// The packet processor writes profiling timestamps into completion signals (ROCr's
/// `amd_signal_t.start_ts` at +32, `end_ts` at +40) in counts of the GPU timestamp clock:
/// launch and completion in simulated time, so `end_ts - start_ts` is the dispatch's
/// simulated duration; a barrier's are both its completion time. An origin the host sets
/// shifts later timestamps, never backwards.
#[test]
fn completion_signals_carry_profiling_timestamps_in_simulated_time() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let mut q = queue(&mut soc, 4, 1);
    let (x, y) = (inputs(6), inputs(7));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let (s1, s2, sb) = (
        signal(&mut soc, 1, 0, 0),
        signal(&mut soc, 1, 0, 0),
        signal(&mut soc, 1, 0, 0),
    );
    enqueue_vadd(&mut soc, &k, &mut q, px, py, s1, true);
    enqueue_vadd(&mut soc, &k, &mut q, px, py, s2, true);
    let h = packet_header(PACKET_BARRIER_AND, true);
    publish(&mut soc, &mut q, barrier_packet(&[s2], sb), h);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    let done = soc.completions().to_vec();
    assert_eq!(done.len(), 2);
    for (c, s) in done.iter().zip([s1, s2]) {
        assert_eq!(signal_value(&soc, s), 0);
        let (start, end) = ts(&soc, s);
        assert_eq!(start, c.submitted.0 / TIMESTAMP_PERIOD_PS, "start_ts");
        assert_eq!(end, c.completed.0 / TIMESTAMP_PERIOD_PS, "end_ts");
        assert!(end > start, "a dispatch takes time: {start}..{end}");
    }
    // In order: the second dispatch starts after the first ended (barrier bit).
    assert!(ts(&soc, s2).0 >= ts(&soc, s1).1);
    // The barrier completed when s2 reached 0, at the second dispatch's completion.
    assert_eq!(signal_value(&soc, sb), 0);
    let (bs, be) = ts(&soc, sb);
    assert_eq!(bs, be);
    assert_eq!(be, ts(&soc, s2).1);

    // The host anchors timestamps at its clock counter: the next dispatch's start at it.
    let origin = 5_000_000_000u64;
    soc.set_timestamp_origin(origin);
    let at = soc.now().0;
    let s3 = signal(&mut soc, 1, 0, 0);
    enqueue_vadd(&mut soc, &k, &mut q, px, py, s3, true);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    let c = soc.completions().last().unwrap().clone();
    let (start, end) = ts(&soc, s3);
    assert_eq!(start, origin + (c.submitted.0 - at) / TIMESTAMP_PERIOD_PS);
    assert_eq!(end, origin + (c.completed.0 - at) / TIMESTAMP_PERIOD_PS);
    assert!(end > start);
    // An origin in the past does not move timestamps back.
    soc.set_timestamp_origin(1);
    let s4 = signal(&mut soc, 1, 0, 0);
    enqueue_vadd(&mut soc, &k, &mut q, px, py, s4, true);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    assert!(ts(&soc, s4).0 >= end, "{:?} after {end}", ts(&soc, s4));
}

#[test]
fn barrier_and_orders_work_across_queues_and_waits_for_the_host() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let (mut qa, mut qb) = (queue(&mut soc, 4, 1), queue(&mut soc, 4, 2));
    let (x, y) = (inputs(4), inputs(5));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let host = signal(&mut soc, 1, 0, 0);
    let first = signal(&mut soc, 1, 0, 0);
    let bar = signal(&mut soc, 1, 0, 0);
    let last = signal(&mut soc, 1, 0, 0);
    // qb: c1 = x + y.  qa: barrier-AND(host, first), then c2 = c1 + y.
    let c1 = enqueue_vadd(&mut soc, &k, &mut qb, px, py, first, false);
    let h = packet_header(PACKET_BARRIER_AND, true);
    publish(&mut soc, &mut qa, barrier_packet(&[host, first], bar), h);
    let c2 = enqueue_vadd(&mut soc, &k, &mut qa, c1, py, last, true);
    soc.ring_doorbell(None).unwrap();
    soc.run().unwrap();
    // The host has not released its signal: the barrier holds qa.
    assert_eq!(signal_value(&soc, first), 0);
    assert_eq!(signal_value(&soc, bar), 1);
    assert_eq!(read_u64(&soc, qa.desc.read_index), 0);
    assert!(read_floats(&soc, c2, N as usize).iter().all(|&v| v == 0.0));
    soc.write(host + SIGNAL_VALUE, &0i64.to_le_bytes()).unwrap();
    soc.ring_doorbell(Some(qa.id)).unwrap();
    assert!(soc.run_until_signal(last, 0).unwrap());
    assert_eq!(signal_value(&soc, bar), 0);
    let want: Vec<f32> = sum(&sum(&x, &y), &y);
    assert_eq!(read_floats(&soc, c2, N as usize), want);
    assert_eq!(read_u64(&soc, qa.desc.read_index), 2);
}

#[test]
fn barrier_or_needs_one_satisfied_dependency() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let (mut qa, mut qb) = (queue(&mut soc, 4, 1), queue(&mut soc, 4, 2));
    let (x, y) = (inputs(6), inputs(7));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let never = signal(&mut soc, 1, 0, 0);
    let first = signal(&mut soc, 1, 0, 0);
    let last = signal(&mut soc, 1, 0, 0);
    let c1 = enqueue_vadd(&mut soc, &k, &mut qb, px, py, first, false);
    let h = packet_header(PACKET_BARRIER_OR, true);
    publish(&mut soc, &mut qa, barrier_packet(&[never, first], 0), h);
    let c2 = enqueue_vadd(&mut soc, &k, &mut qa, c1, px, last, true);
    soc.ring_doorbell(None).unwrap();
    soc.run().unwrap();
    assert_eq!(signal_value(&soc, never), 1);
    assert_eq!(signal_value(&soc, last), 0);
    assert_eq!(read_floats(&soc, c2, N as usize), sum(&sum(&x, &y), &x));
}

#[test]
fn a_signal_with_a_mailbox_delivers_its_event() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let mut q = queue(&mut soc, 4, 3);
    let (x, y) = (inputs(8), inputs(9));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let mailbox = soc.alloc(8).unwrap();
    soc.write(mailbox, &u64::MAX.to_le_bytes()).unwrap();
    let sig = signal(&mut soc, 1, mailbox, 42);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    soc.set_event_sink(Some(Arc::new(move |e: &QueueEvent| {
        sink.lock().unwrap().push(e.clone());
    })));
    let c = enqueue_vadd(&mut soc, &k, &mut q, px, py, sig, true);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    assert_eq!(read_floats(&soc, c, N as usize), sum(&x, &y));
    assert_eq!(signal_value(&soc, sig), 0);
    // event_id (u32) written over the low half of the slot.
    assert_eq!(read_u64(&soc, mailbox), 0xffff_ffff_0000_002a);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    match &seen[0] {
        QueueEvent::Signal {
            signal,
            value,
            mailbox: m,
            event_id,
            tick,
        } => {
            assert_eq!((*signal, *value, *m, *event_id), (sig, 0, mailbox, 42));
            assert_eq!(*tick, soc.completions()[0].completed.0);
        }
        e => panic!("unexpected event {e:?}"),
    }
    assert_eq!(soc.events(), seen);
}

#[test]
fn invalid_packets_stop_their_queue_with_typed_errors_and_others_go_on() {
    let mut soc = soc(1);
    let k = vadd(&mut soc);
    let (x, y) = (inputs(10), inputs(11));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    // Unknown packet type 7.
    let mut q1 = queue(&mut soc, 4, 1);
    publish(&mut soc, &mut q1, [0; 64], 7);
    // A kernel object in unmapped memory.
    let mut q2 = queue(&mut soc, 4, 2);
    let ka = kernargs(
        &mut soc,
        &k,
        &q2,
        &[p(px), p(py), p(px), N.to_le_bytes().to_vec()],
    );
    let h = packet_header(PACKET_KERNEL_DISPATCH, true);
    publish(
        &mut soc,
        &mut q2,
        dispatch_packet(0x7000_0000_0000, ka, 0),
        h,
    );
    // A kernel object whose descriptor is all zeros (no code entry).
    let mut q3 = queue(&mut soc, 4, 3);
    let zeros = soc.alloc(64).unwrap();
    publish(&mut soc, &mut q3, dispatch_packet(zeros, ka, 0), h);
    // A vendor packet of an unknown format.
    let mut q4 = queue(&mut soc, 4, 4);
    let mut vendor = [0u8; 64];
    vendor[2..4].copy_from_slice(&9u16.to_le_bytes());
    publish(
        &mut soc,
        &mut q4,
        vendor,
        packet_header(PACKET_VENDOR_SPECIFIC, true),
    );
    // A healthy queue.
    let mut q5 = queue(&mut soc, 4, 5);
    let sig = signal(&mut soc, 1, 0, 0);
    let c = enqueue_vadd(&mut soc, &k, &mut q5, px, py, sig, true);
    // A packet behind the bad one is never read.
    let behind = signal(&mut soc, 1, 0, 0);
    enqueue_vadd(&mut soc, &k, &mut q1, px, py, behind, false);
    soc.ring_doorbell(None).unwrap();
    soc.run().unwrap();
    assert_eq!(read_floats(&soc, c, N as usize), sum(&x, &y));
    assert_eq!(signal_value(&soc, sig), 0);
    assert_eq!(signal_value(&soc, behind), 1);
    let e1 = soc.queue_error(q1.id).unwrap();
    assert_eq!(
        (e1.queue, e1.index, e1.field.as_str()),
        (q1.id.0, 0, "header")
    );
    assert_eq!(e1.kind, PacketErrorKind::UnsupportedType(7));
    let e2 = soc.queue_error(q2.id).unwrap();
    assert_eq!((e2.index, e2.field.as_str()), (0, "kernel_object"));
    match &e2.kind {
        PacketErrorKind::Memory(f) => {
            assert_eq!((f.addr, f.kind), (0x7000_0000_0000, FaultKind::Unmapped))
        }
        k => panic!("{k:?}"),
    }
    let e3 = soc.queue_error(q3.id).unwrap();
    assert_eq!(e3.field, "kernel_object");
    assert!(
        e3.to_string().contains("kernel_code_entry_byte_offset"),
        "{e3}"
    );
    let e4 = soc.queue_error(q4.id).unwrap();
    assert_eq!(e4.kind, PacketErrorKind::UnsupportedVendorFormat(9));
    assert!(soc.queue_error(q5.id).is_none());
    let errors = soc
        .events()
        .iter()
        .filter(|e| matches!(e, QueueEvent::Error(_)))
        .count();
    assert_eq!(errors, 4);
    assert_eq!(read_u64(&soc, q1.desc.read_index), 0);
}

/// Places a code object's loadable segments at `base` the way a runtime copies them into
/// VRAM (no relocations: these kernels have none); returns the kernel object of `name`.
fn place_raw(soc: &mut Soc, base: u64, bytes: &[u8], name: &str) -> (u64, CodeObject) {
    let co = CodeObject::parse(bytes).unwrap();
    assert!(co.relocations().is_empty());
    for seg in &co.image().segments {
        soc.write(base + seg.vaddr, &seg.data).unwrap();
    }
    let ko = base + co.kernel(name).unwrap().descriptor_address;
    (ko, co)
}

#[test]
fn code_copied_into_memory_runs_and_the_vendor_packet_invalidates_decoded_code() {
    let mut soc = soc(1);
    let mut q = queue(&mut soc, 8, 1);
    let (x, y) = (inputs(12), inputs(13));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let image = soc.alloc(4 * PAGE_SIZE).unwrap();
    // vadd, copied in by the "runtime".
    let (ko, co) = place_raw(&mut soc, image, &code_object("vadd"), "vadd");
    let k = Kernel {
        co,
        name: "vadd",
        kernel_object: ko,
    };
    let s1 = signal(&mut soc, 1, 0, 0);
    let c = enqueue_vadd(&mut soc, &k, &mut q, px, py, s1, true);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    assert_eq!(read_floats(&soc, c, N as usize), sum(&x, &y));
    // saxpy copied over the same memory, then ROCr's PM4 packet, then a saxpy dispatch.
    soc.write(image, &vec![0u8; 4 * PAGE_SIZE as usize])
        .unwrap();
    let (ko, co) = place_raw(&mut soc, image, &code_object("saxpy"), "saxpy");
    let s2 = signal(&mut soc, 1, 0, 0);
    let mut vendor = [0u8; 64];
    vendor[2..4].copy_from_slice(&1u16.to_le_bytes());
    vendor[56..64].copy_from_slice(&s2.to_le_bytes());
    publish(
        &mut soc,
        &mut q,
        vendor,
        packet_header(PACKET_VENDOR_SPECIFIC, true),
    );
    let k = Kernel {
        co,
        name: "saxpy",
        kernel_object: ko,
    };
    let yy = floats(&mut soc, &y);
    let a = 1.5f32;
    let ka = kernargs(
        &mut soc,
        &k,
        &q,
        &[
            a.to_le_bytes().to_vec(),
            p(px),
            p(yy),
            N.to_le_bytes().to_vec(),
        ],
    );
    let s3 = signal(&mut soc, 1, 0, 0);
    let h = packet_header(PACKET_KERNEL_DISPATCH, true);
    publish(&mut soc, &mut q, dispatch_packet(ko, ka, s3), h);
    soc.ring_doorbell(Some(q.id)).unwrap();
    soc.run().unwrap();
    assert_eq!((signal_value(&soc, s2), signal_value(&soc, s3)), (0, 0));
    let got = read_floats(&soc, yy, N as usize);
    for i in 0..N as usize {
        let want = a.mul_add(x[i], y[i]);
        let plain = a * x[i] + y[i];
        assert!(
            got[i] == want || got[i] == plain,
            "{i}: {} vs {want}",
            got[i]
        );
    }
    assert!(soc.completions().iter().all(|c| c.fault.is_none()));
}

#[test]
fn rings_signals_kernargs_and_buffers_in_host_memory() {
    let mut soc = soc(2);
    let k = vadd(&mut soc);
    // One host buffer (8-byte aligned words) the process owns: amd_queue_t, ring, signal,
    // kernargs, inputs and output, mapped at GPU VA == CPU VA.
    let mut host = vec![0u64; 8192 + 512];
    // Page aligned, as the runtime's USERPTR allocations are.
    let skew = (host.as_ptr() as u64).next_multiple_of(4096) - host.as_ptr() as u64;
    let base = host.as_ptr() as u64 + skew;
    let len = 8 * 8192;
    // SAFETY: `host` outlives its mapping (unmapped below) and is only read here after
    // the run, when the model no longer touches it.
    unsafe {
        let ptr = host.as_mut_ptr().cast::<u8>().add(skew as usize);
        soc.map_host(base, ptr, len).unwrap()
    };
    let (amd, ring, sig, ka, pa, pb, pc) = (
        base,
        base + 256,
        base + 256 + 4 * 64,
        base + 1024,
        base + 4096,
        base + 4096 * 3,
        base + 4096 * 5,
    );
    let (x, y) = (inputs(14), inputs(15));
    let bx: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let by: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    soc.write(pa, &bx).unwrap();
    soc.write(pb, &by).unwrap();
    soc.write(sig + SIGNAL_VALUE, &1i64.to_le_bytes()).unwrap();
    let desc = QueueDesc::amd_queue(amd, ring, 4 * 64, 7);
    let id = soc.create_queue(desc).unwrap();
    let mut q = Q { id, desc, next: 0 };
    let kernel = k.co.kernel("vadd").unwrap();
    let shape = LaunchShape {
        grid: [N.next_multiple_of(64), 1, 1],
        workgroup: [64, 1, 1],
        dynamic_lds: 0,
    };
    let args = [p(pa), p(pb), p(pc), N.to_le_bytes().to_vec()];
    let built = build_kernargs(
        kernel.metadata.as_ref().unwrap(),
        &kernel.descriptor,
        &shape,
        amd,
        args.iter().map(Vec::as_slice),
        65536,
    )
    .unwrap();
    soc.write(ka, &built.bytes).unwrap();
    let h = packet_header(PACKET_KERNEL_DISPATCH, true);
    publish(
        &mut soc,
        &mut q,
        dispatch_packet(k.kernel_object, ka, sig),
        h,
    );
    assert!(soc.checkpoint().is_err(), "host memory is not checkpointed");
    soc.ring_doorbell(Some(id)).unwrap();
    assert!(soc.run_until_signal(sig, 0).unwrap());
    soc.run().unwrap();
    soc.unmap_host(base).unwrap();
    // Read the host memory itself.
    let word = |a: u64| host[((a - base + skew) / 8) as usize];
    assert_eq!(word(sig + SIGNAL_VALUE), 0);
    assert_eq!(word(amd + 0x80), 1, "read_dispatch_id");
    let out: Vec<f32> = (0..N as u64)
        .map(|i| {
            let w = word(pc + 4 * (i & !1));
            f32::from_bits((w >> (32 * (i & 1))) as u32)
        })
        .collect();
    assert_eq!(out, sum(&x, &y));
}

/// What a queue run leaves behind: outputs, signal values, (key, launched, completed).
type RunEnd = (Vec<Vec<f32>>, Vec<i64>, Vec<(u64, u64, u64)>);

/// Queues with barrier packets, several dispatches in flight; what the run leaves behind.
fn queue_run(threads: usize, stop: Option<Tick>) -> RunEnd {
    let mut soc = soc(threads);
    let k = vadd(&mut soc);
    let (mut qa, mut qb) = (queue(&mut soc, 8, 1), queue(&mut soc, 8, 2));
    let (x, y) = (inputs(16), inputs(17));
    let (px, py) = (floats(&mut soc, &x), floats(&mut soc, &y));
    let sigs: Vec<u64> = (0..4).map(|_| signal(&mut soc, 1, 0, 0)).collect();
    let c1 = enqueue_vadd(&mut soc, &k, &mut qa, px, py, sigs[0], false);
    let c2 = enqueue_vadd(&mut soc, &k, &mut qb, py, py, sigs[1], false);
    let h = packet_header(PACKET_BARRIER_AND, true);
    publish(&mut soc, &mut qa, barrier_packet(&[sigs[1]], sigs[2]), h);
    let c3 = enqueue_vadd(&mut soc, &k, &mut qa, c1, c2, sigs[3], true);
    soc.ring_doorbell(None).unwrap();
    if let Some(t) = stop {
        soc.run_until(t).unwrap();
        let bytes = soc.checkpoint().unwrap();
        let mut fresh = self::soc(if threads == 1 { 2 } else { 1 });
        fresh.restore(&bytes).unwrap();
        soc = fresh;
    }
    soc.run().unwrap();
    let outs = [c1, c2, c3]
        .iter()
        .map(|&c| read_floats(&soc, c, N as usize))
        .collect();
    let values = sigs.iter().map(|&s| signal_value(&soc, s)).collect();
    let done = soc
        .completions()
        .iter()
        .map(|c| (c.seq, c.submitted.0, c.completed.0))
        .collect();
    (outs, values, done)
}

#[test]
fn a_checkpointed_queue_run_continues_identically() {
    let want = queue_run(1, None);
    assert_eq!(want.1, [0, 0, 0, 0]);
    let (x, y) = (inputs(16), inputs(17));
    assert_eq!(want.0[2], sum(&sum(&x, &y), &sum(&y, &y)));
    assert_eq!(queue_run(2, None), want, "1 and 2 threads");
    // Stop while the first two run, and while the last one runs.
    let first = want.2[0];
    let last = want.2[2];
    for t in [
        first.1 + (first.2 - first.1) / 2,
        last.1 + (last.2 - last.1) / 2,
    ] {
        assert_eq!(queue_run(1, Some(Tick(t))), want, "stopped at {t}");
    }
}
