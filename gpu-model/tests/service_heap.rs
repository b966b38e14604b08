//! Device-side `malloc`/`free` from real HIP kernels (`fixtures/service/heap.hip`, built by
//! Debian's hipcc toolchain: clang-15 and ROCm 5.2.3's device libraries, code object v4
//! and v5): the device libraries' allocator gets its memory through the hostcall
//! device-memory service and, in v5, its state through `hidden_heap_v1`.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;

mod service_common;
use service_common::{fixture, i32s, read_i32s, run_one, small_soc};

/// What `heap_sum` computes for work-item `i`: the sum of `i * 1000 + k` over `k < n`.
fn sum_of(i: i32, n: i32) -> i32 {
    (0..n).fold(0i32, |s, k| {
        s.wrapping_add(i.wrapping_mul(1000).wrapping_add(k))
    })
}

fn heap_sum(file: &str, n: i32) {
    let mut dev = Device::new(Target::Gfx90a);
    let m = dev.load_code_object(&fixture(file)).unwrap();
    let items = 256u32;
    let out = dev.alloc(4 * u64::from(items)).unwrap();
    let id = dev
        .dispatch(
            m,
            "heap_sum",
            &LaunchConfig::new([items, 1, 1], [64, 1, 1]),
            &[ArgValue::ptr(out), ArgValue::u32(n as u32)],
        )
        .unwrap();
    dev.wait(id).unwrap();
    let want: Vec<i32> = (0..items as i32).map(|i| sum_of(i, n)).collect();
    assert_eq!(read_i32s(&dev, out, items as usize), want, "{file} n={n}");
}

#[test]
fn small_blocks_from_slabs_v4() {
    heap_sum("heap_clang15_gfx90a_v4.hsaco", 16);
}

#[test]
fn small_blocks_from_slabs_v5() {
    heap_sum("heap_clang15_gfx90a_v5.hsaco", 16);
}

/// 4 KiB blocks: above the allocator's 3 KiB slab limit, each one a host request.
#[test]
fn large_blocks_from_the_host_v4() {
    heap_sum("heap_clang15_gfx90a_v4.hsaco", 1024);
}

#[test]
fn large_blocks_from_the_host_v5() {
    heap_sum("heap_clang15_gfx90a_v5.hsaco", 1024);
}

/// Blocks allocated by one kernel are read and freed by the next: the heap lives as long
/// as the device. The addresses are distinct and none is null.
#[test]
fn blocks_outlive_the_kernel_that_allocated_them() {
    for (file, n) in [
        ("heap_clang15_gfx90a_v5.hsaco", 8),
        ("heap_clang15_gfx90a_v4.hsaco", 2000),
    ] {
        let mut dev = Device::new(Target::Gfx90a);
        let m = dev.load_code_object(&fixture(file)).unwrap();
        let items = 128u32;
        let cfg = LaunchConfig::new([items, 1, 1], [64, 1, 1]);
        let ptrs = dev.alloc(8 * u64::from(items)).unwrap();
        let out = dev.alloc(4 * u64::from(items)).unwrap();
        let id = dev
            .dispatch(
                m,
                "heap_keep",
                &cfg,
                &[ArgValue::ptr(ptrs), ArgValue::u32(n as u32)],
            )
            .unwrap();
        dev.wait(id).unwrap();
        let mut b = vec![0u8; 8 * items as usize];
        dev.copy_out(ptrs, &mut b).unwrap();
        let mut addrs: Vec<u64> = b
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(addrs.iter().all(|&a| a != 0), "{file}: a null block");
        addrs.sort_unstable();
        addrs.dedup();
        assert_eq!(addrs.len(), items as usize, "{file}: blocks shared");
        let id = dev
            .dispatch(
                m,
                "heap_take",
                &cfg,
                &[
                    ArgValue::ptr(ptrs),
                    ArgValue::ptr(out),
                    ArgValue::u32(n as u32),
                ],
            )
            .unwrap();
        dev.wait(id).unwrap();
        let want: Vec<i32> = (0..items as i32)
            .map(|i| (0..n).fold(0i32, |s, k| s.wrapping_add(i - k)))
            .collect();
        assert_eq!(read_i32s(&dev, out, items as usize), want, "{file}");
    }
}

/// On the SoC the device-memory requests are served at memory sync points: the same
/// results on 1 and 2 threads.
#[test]
fn soc_serves_the_heap_on_any_thread_count() {
    let (items, n) = (512u32, 900i32);
    let run = |threads: usize| {
        let (mut soc, m) = small_soc("mi250x", threads, "heap_clang15_gfx90a_v5.hsaco");
        let out = soc.alloc(4 * u64::from(items)).unwrap();
        let args = [out.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
        run_one(&mut soc, m, "heap_sum", items, 128, &args);
        let mut b = vec![0u8; 4 * items as usize];
        soc.read(out, &mut b).unwrap();
        b
    };
    let one = run(1);
    assert_eq!(one, run(2));
    let got = i32s(&one);
    let want: Vec<i32> = (0..items as i32).map(|i| sum_of(i, n)).collect();
    assert_eq!(got, want);
}

/// Runtime-service state in SoC checkpoints: a checkpoint taken between dispatches of a
/// program that uses `malloc` restores into a fresh SoC (on 1 and 2 threads) and continues
/// identically. The next dispatches free the blocks the first one kept and allocate new
/// ones: the device libraries' allocator state is device memory, but the pool the
/// device-memory service hands slabs out of, and which ranges of it are live, are host
/// state (`service::devmem`); without it a restored SoC reserved a second pool and handed
/// out other addresses.
#[test]
fn a_checkpoint_between_malloc_dispatches_continues_identically() {
    let (items, n) = (128u32, 8i32);
    let file = "heap_clang15_gfx90a_v5.hsaco";
    let (mut soc, m) = small_soc("mi250x", 1, file);
    let ptrs = soc.alloc(8 * u64::from(items)).unwrap();
    let out = soc.alloc(4 * u64::from(items)).unwrap();
    let ptrs2 = soc.alloc(8 * u64::from(items)).unwrap();
    let nb = n.to_le_bytes().to_vec();
    let keep = |p: u64| [p.to_le_bytes().to_vec(), nb.clone()];
    run_one(&mut soc, m, "heap_keep", items, 64, &keep(ptrs));
    let ckpt = soc.checkpoint().unwrap();
    let cont = |soc: &mut gpu_model::soc::Soc| -> (Vec<u8>, Vec<u8>) {
        let take = [
            ptrs.to_le_bytes().to_vec(),
            out.to_le_bytes().to_vec(),
            nb.clone(),
        ];
        run_one(soc, m, "heap_take", items, 64, &take);
        run_one(soc, m, "heap_keep", items, 64, &keep(ptrs2));
        let mut o = vec![0u8; 4 * items as usize];
        soc.read(out, &mut o).unwrap();
        let mut p = vec![0u8; 8 * items as usize];
        soc.read(ptrs2, &mut p).unwrap();
        (o, p)
    };
    let want = cont(&mut soc);
    let sums: Vec<i32> = (0..items as i32)
        .map(|i| (0..n).fold(0i32, |s, k| s.wrapping_add(i - k)))
        .collect();
    assert_eq!(i32s(&want.0), sums);
    let mut addrs: Vec<u64> = want
        .1
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert!(addrs.iter().all(|&a| a != 0), "a null block");
    addrs.sort_unstable();
    addrs.dedup();
    assert_eq!(addrs.len(), items as usize, "blocks shared");
    for threads in [1, 2] {
        let (mut r, _) = small_soc("mi250x", threads, file);
        r.restore(&ckpt).unwrap();
        assert_eq!(cont(&mut r), want, "restored on {threads} threads");
    }
}
