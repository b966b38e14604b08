//! Hidden kernel arguments as ROCm's runtime writes them, seen through ROCm's own device
//! library: `fixtures/abi/workitem.cl` calls every OpenCL work-item function (the
//! implementations of rocm-device-libs 5.2.3, linked into clang-22 objects for code object
//! v4, v5 and v6 on all five targets). v4 reads sizes from the dispatch packet and the
//! global offsets from the hidden arguments; v5/v6 read hidden_block_count, group_size,
//! remainder and grid_dims. The expected values come from the OpenCL 2.0 specification
//! (section 6.13.1) applied to the launch shape, computed here without the model.

use gpu_model::device::{ArgValue, Device, LaunchConfig};
use gpu_model::Target;

const WORDS: usize = 32;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/abi/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The 32 words work-item (x, y, z) of the grid writes, from the spec: the work
/// dimension is the packet's (the highest dimension with more than one work-item), the
/// last group of a dimension holds the remainder, the global offset is 0.
fn expected(grid: [u32; 3], wg: [u32; 3], item: [u32; 3]) -> [u32; WORDS] {
    let dims = if grid[2] > 1 || wg[2] > 1 {
        3
    } else if grid[1] > 1 || wg[1] > 1 {
        2
    } else {
        1
    };
    let mut o = [0u32; WORDS];
    o[0] = dims;
    for d in 0..3 {
        let group = item[d] / wg[d];
        let groups = grid[d].div_ceil(wg[d]);
        let local = if (group + 1) * wg[d] <= grid[d] {
            wg[d]
        } else {
            grid[d] - group * wg[d]
        };
        o[1 + d] = grid[d];
        o[4 + d] = local;
        o[7 + d] = wg[d];
        o[10 + d] = groups;
        o[13 + d] = 0;
        o[16 + d] = group;
        o[19 + d] = item[d];
        o[22 + d] = item[d] % wg[d];
    }
    o[25] = 0x600d;
    o
}

fn check(target: Target, file: &str, grid: [u32; 3], wg: [u32; 3]) {
    let mut dev = Device::new(target);
    let m = dev.load_code_object(&fixture(file)).unwrap();
    let items = grid.iter().product::<u32>() as usize;
    let out = dev.alloc((items * WORDS * 4) as u64).unwrap();
    let id = dev
        .dispatch(
            m,
            "workitem_fns",
            &LaunchConfig::new(grid, wg),
            &[ArgValue::ptr(out)],
        )
        .unwrap();
    dev.wait(id).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut bytes = vec![0u8; items * WORDS * 4];
    dev.copy_out(out, &mut bytes).unwrap();
    let got: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                // get_global_linear_id with a zero offset.
                let i = ((z * grid[1] + y) * grid[0] + x) as usize;
                let want = expected(grid, wg, [x, y, z]);
                let g = &got[i * WORDS..(i + 1) * WORDS];
                assert_eq!(
                    g,
                    &want[..],
                    "{file} grid {grid:?} wg {wg:?} work-item ({x}, {y}, {z}): words are \
                     [dim, global size xyz, local size xyz, enqueued xyz, groups xyz, \
                     offset xyz, group id xyz, global id xyz, local id xyz, 0x600d]"
                );
            }
        }
    }
}

fn all_versions(target: Target) {
    for v in [4, 5, 6] {
        let file = format!("workitem_{target}_v{v}.hsaco");
        // 1-D, the case: the last of 4 groups holds 1000 - 3*256 = 232.
        check(target, &file, [1000, 1, 1], [256, 1, 1]);
        // 2-D and 3-D with partial groups in every dimension that has more than one.
        check(target, &file, [100, 30, 1], [32, 8, 1]);
        check(target, &file, [20, 10, 6], [8, 4, 4]);
    }
}

#[test]
fn gfx90a_work_item_functions_v4_v5_v6() {
    all_versions(Target::Gfx90a);
}

#[test]
fn gfx942_work_item_functions_v4_v5_v6() {
    all_versions(Target::Gfx942);
}

#[test]
fn gfx950_work_item_functions_v4_v5_v6() {
    all_versions(Target::Gfx950);
}

#[test]
fn gfx1200_work_item_functions_v4_v5_v6() {
    all_versions(Target::Gfx1200);
}

#[test]
fn gfx1201_work_item_functions_v4_v5_v6() {
    all_versions(Target::Gfx1201);
}
