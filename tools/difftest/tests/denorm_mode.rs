//! The comparison is bit for bit with denormals kept on both sides: x86-64 SSE code keeps
//! them (no fast-math flags), and clang-22 gives the generated OpenCL kernels IEEE denormal
//! handling on every build. This checks the second half from the kernel descriptors
//! (FLOAT_DENORM_MODE_32 and FLOAT_DENORM_MODE_16_64 = 3: neither inputs nor outputs
//! flushed; AMDGPUUsage, "compute_pgm_rsrc1").

use difftest::{all_builds, batch_source, compile_device, gen};
use gpu_model::loader::CodeObject;

#[test]
fn every_build_keeps_denormals() {
    let dir = std::env::temp_dir().join(format!("difftest-denorm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kernels: Vec<gen::Kernel> = (0..2).map(|i| gen::kernel(1, i)).collect();
    let src = dir.join("k.cl");
    std::fs::write(&src, batch_source(&kernels)).unwrap();
    for b in all_builds() {
        let obj = compile_device(&src, b, &dir.join(format!("{b}.hsaco"))).expect("clang-22");
        let co = CodeObject::parse(&obj).expect("code object");
        for k in &kernels {
            let d = &co.kernel(&k.name).expect("kernel").descriptor;
            assert_eq!(
                d.float_denorm_mode_32(),
                3,
                "{b} {}: f32 denormal mode",
                k.name
            );
            assert_eq!(
                d.float_denorm_mode_16_64(),
                3,
                "{b} {}: f16/f64 denormal mode",
                k.name
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
