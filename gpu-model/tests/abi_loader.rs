//! The loader accepts the target strings real compilers write. Here: clang-15 as Debian's
//! `hipcc` (ROCm 5.2.3) runs it, for gfx90a with every xnack/sramecc setting, code object
//! v4 (its default) and v5 (`fixtures/abi/build.sh`); clang-22's forms (v4 to v6, feature
//! variants) are covered by loader_oracle.rs and abi_hidden.rs. Each object loads on a
//! device whose modes it allows, is refused (typed, naming both) where it does not, and
//! computes the right values with ROCm 5.2.3's device library.

use gpu_model::device::{ArgValue, Device, DeviceError, LaunchConfig};
use gpu_model::loader::{CodeObject, FeatureMode, LoadError};
use gpu_model::Target;

fn fixture(name: &str) -> Vec<u8> {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/abi/");
    std::fs::read(format!("{p}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs `scale(x, 0.5, 1000)` as HIP launches it: 4 blocks of 256 (HIP grids are whole
/// blocks; the kernel guards `i < n`): x[i] = x[i]*0.5 + hipGridDim_x, hipGridDim_x = 4.
/// (A non-uniform AQL grid of 1000 would not be a HIP launch: the device library's
/// blockDim.x is then 232 in the last block and `blockIdx.x * blockDim.x` overlaps.)
fn run_scale(dev: &mut Device, bytes: &[u8]) -> Result<(), DeviceError> {
    let m = dev.load_code_object(bytes)?;
    let n = 1000u32;
    let x0: Vec<f32> = (0..n).map(|i| i as f32 - 300.0).collect();
    let x = dev.alloc(4 * u64::from(n))?;
    let raw: Vec<u8> = x0.iter().flat_map(|v| v.to_le_bytes()).collect();
    dev.copy_in(x, &raw)?;
    let args = [ArgValue::ptr(x), ArgValue::f32(0.5), ArgValue::u32(n)];
    let id = dev.dispatch(
        m,
        "scale",
        &LaunchConfig::new([1024, 1, 1], [256, 1, 1]),
        &args,
    )?;
    dev.wait(id)?;
    let mut out = vec![0u8; raw.len()];
    dev.copy_out(x, &mut out)?;
    for (i, c) in out.chunks_exact(4).enumerate() {
        let got = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        assert_eq!(got, x0[i] * 0.5 + 4.0, "x[{i}]");
    }
    Ok(())
}

#[test]
fn clang15_hipcc_objects_load_and_run_with_every_feature_setting() {
    use FeatureMode::{Any, Off, On};
    // (file, amdhsa.target clang-15 wrote, code object version, xnack, sramecc)
    let cases = [
        (
            "scale_clang15_gfx90a_v4.hsaco",
            "amdgcn-amd-amdhsa--gfx90a",
            4,
            Any,
            Any,
        ),
        (
            "scale_clang15_gfx90a_v5.hsaco",
            "amdgcn-amd-amdhsa--gfx90a",
            5,
            Any,
            Any,
        ),
        (
            "scale_clang15_gfx90a_xnackoff_v4.hsaco",
            "amdgcn-amd-amdhsa--gfx90a:xnack-",
            4,
            Off,
            Any,
        ),
        (
            "scale_clang15_gfx90a_xnackon_v4.hsaco",
            "amdgcn-amd-amdhsa--gfx90a:xnack+",
            4,
            On,
            Any,
        ),
        (
            "scale_clang15_gfx90a_srameccon_xnackoff_v4.hsaco",
            "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
            4,
            Off,
            On,
        ),
        (
            "scale_clang15_gfx90a_srameccoff_v4.hsaco",
            "amdgcn-amd-amdhsa--gfx90a:sramecc-",
            4,
            Any,
            Off,
        ),
    ];
    for (file, target_str, version, xnack, sramecc) in cases {
        let bytes = fixture(file);
        let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(co.target(), Target::Gfx90a, "{file}");
        assert_eq!(co.metadata_target(), Some(target_str), "{file}");
        assert_eq!(co.version(), version, "{file}");
        assert_eq!((co.xnack(), co.sramecc()), (xnack, sramecc), "{file}");
        // A device with the modes the object asks for (Any: either) runs it.
        let pick = |m: FeatureMode, other: FeatureMode| if m == Any { other } else { m };
        let mut dev = Device::with_modes(Target::Gfx90a, pick(xnack, On), pick(sramecc, Off));
        run_scale(&mut dev, &bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        // A device with the opposite setting of a fixed feature refuses it.
        let flip = |m: FeatureMode| match m {
            On => Some(Off),
            Off => Some(On),
            _ => None,
        };
        if let Some(x) = flip(xnack) {
            let mut dev = Device::with_modes(Target::Gfx90a, x, pick(sramecc, On));
            let e = run_scale(&mut dev, &bytes).unwrap_err();
            assert!(
                matches!(e, DeviceError::Load(LoadError::TargetMismatch { .. })),
                "{file}: {e}"
            );
        }
        if let Some(s) = flip(sramecc) {
            let mut dev = Device::with_modes(Target::Gfx90a, pick(xnack, Off), s);
            let e = run_scale(&mut dev, &bytes).unwrap_err();
            assert!(
                matches!(e, DeviceError::Load(LoadError::TargetMismatch { .. })),
                "{file}: {e}"
            );
        }
    }
}

#[test]
fn clang15_gfx940_is_refused_by_name() {
    // clang-15 knows gfx940 but not gfx942; gfx940 is not a supported target.
    let e = CodeObject::parse(&fixture("scale_clang15_gfx940_v5.hsaco")).unwrap_err();
    match e {
        LoadError::UnsupportedProcessor { name, .. } => assert_eq!(name, "gfx940"),
        other => panic!("unexpected {other}"),
    }
}
