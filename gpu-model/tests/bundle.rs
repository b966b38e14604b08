//! Offload bundles and HIP host binaries built by clang-22 and hipcc 5.2.3
//! (`tests/fixtures/bundles/build.sh`): the entries gfxsim reads are the bytes LLVM's own
//! `clang-offload-bundler` unbundles, each is a code object of the target its id names, the
//! entry picked for a target follows the target-id rules, and malformed bundles are typed
//! errors, never panics.

use gpu_model::loader::bundle::{self, BundleError, Container, Fatbin, Storage, TargetId};
use gpu_model::loader::{CodeObject, LoadError};
use gpu_model::Target;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap()
}

const HOST22: &str = "host-x86_64-unknown-linux-gnu-";

/// Every fixture with its entry ids in file order.
fn fixtures() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "app_clang22",
            vec![
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx942",
            ],
        ),
        (
            "app_two_tu_clang22",
            vec![
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx942",
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx942",
            ],
        ),
        (
            "libapp_clang22_zstd.so",
            vec![
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1200",
                "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-",
                "hipv4-amdgcn-amd-amdhsa--gfx950",
            ],
        ),
        (
            "app_gfx90a_gfx1201.hipfb",
            vec![
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx90a",
            ],
        ),
        (
            "app_v2_zstd.hipfb",
            vec![
                HOST22,
                "hipv4-amdgcn-amd-amdhsa--gfx1201",
                "hipv4-amdgcn-amd-amdhsa--gfx942",
            ],
        ),
        (
            "app_hipcc523",
            vec![
                "host-x86_64-unknown-linux",
                "hipv4-amdgcn-amd-amdhsa--gfx1030",
                "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
                "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
            ],
        ),
    ]
}

/// LLVM's bundler: Debian installs LLVM 22's only under its bin folder.
const BUNDLER: &str = "/usr/lib/llvm-22/bin/clang-offload-bundler";

/// The bundle `clang-offload-bundler` should read: the file itself, or the `.hip_fatbin`
/// section dumped by llvm-objcopy-22 for host binaries.
fn bundle_file(name: &str, tmp: &Path) -> PathBuf {
    let src = dir().join(name);
    if !read(name).starts_with(b"\x7fELF") {
        return src;
    }
    let out = tmp.join(format!("{name}.hipfb"));
    let st = Command::new("llvm-objcopy-22")
        .arg(format!("--dump-section=.hip_fatbin={}", out.display()))
        .arg(&src)
        .arg(tmp.join("scratch"))
        .status()
        .expect("llvm-objcopy-22 runs (scripts/install-deps.sh installs llvm-22)");
    assert!(st.success());
    out
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gfxsim-bundle-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn entries_are_what_clang_offload_bundler_unbundles() {
    let tmp = tmpdir("oracle");
    for (name, ids) in fixtures() {
        let fb = Fatbin::parse(&read(name)).unwrap();
        assert_eq!(fb.ids(), ids, "{name}");
        let host = matches!(fb.container, Container::HostElf { .. });
        assert_eq!(host, !name.ends_with(".hipfb"), "{name}");
        // LLVM 22's bundler refuses the bundle clang 15 wrote ("invalid bundle id": its host
        // id `host-x86_64-unknown-linux` has one triple component too few); HIP and gfxsim
        // only look at the device entries. Those are checked against their e_flags below.
        if name == "app_hipcc523" {
            continue;
        }
        let input = bundle_file(name, &tmp);
        // The bundler reads the first bundle of a file; the second translation unit's is
        // checked by the kernels it defines (below).
        for e in fb.device_entries().filter(|e| e.bundle == 0) {
            let out = tmp.join("entry.co");
            let st = Command::new(BUNDLER)
                .args(["--unbundle", "--type=o"])
                .arg(format!("--input={}", input.display()))
                .arg(format!("--targets={}", e.id))
                .arg(format!("--output={}", out.display()))
                .status()
                .expect(
                    "clang-offload-bundler runs (scripts/install-deps.sh installs clang-tools-22)",
                );
            assert!(st.success(), "{name} {}", e.id);
            assert_eq!(e.bytes, std::fs::read(&out).unwrap(), "{name} {}", e.id);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn each_entry_is_a_code_object_of_the_target_its_id_names() {
    for (name, _) in fixtures() {
        let fb = Fatbin::parse(&read(name)).unwrap();
        for e in fb.device_entries() {
            let t = e.target.as_ref().unwrap();
            if t.target().is_none() {
                assert_eq!(t.processor, "gfx1030", "{name}");
                continue;
            }
            let co = CodeObject::parse(&e.bytes).unwrap();
            assert_eq!(
                &TargetId::of(co.target(), co.xnack(), co.sramecc()),
                t,
                "{name} {}",
                e.id
            );
            let kernel = if e.bundle == 1 { "negate" } else { "scale" };
            assert!(co.kernel(kernel).is_some(), "{name} {}", e.id);
            // hipcc 5.2.3 (clang 15) writes code object v4, clang 22 v6.
            let v = if name.contains("hipcc") { 4 } else { 6 };
            assert_eq!(co.version(), v, "{name} {}", e.id);
        }
    }
}

#[test]
fn storage_is_reported() {
    let st = |n: &str| Fatbin::parse(&read(n)).unwrap().entries[1].storage;
    assert_eq!(st("app_clang22"), Storage::Plain);
    let v3 = Storage::Compressed {
        version: 3,
        method: "zstd",
    };
    assert_eq!(st("libapp_clang22_zstd.so"), v3);
    let v2 = Storage::Compressed {
        version: 2,
        method: "zstd",
    };
    assert_eq!(st("app_v2_zstd.hipfb"), v2);
}

#[test]
fn the_entry_for_a_target_follows_the_target_id_rules() {
    let pick = |name: &str, t: Option<TargetId>| {
        bundle::extract(&read(name), t.as_ref()).map(|x| x.entry.unwrap())
    };
    let prod = |t: Target| Some(TargetId::production(t));
    let id = |s: &str| Some(TargetId::parse(s).unwrap());
    let e = |s: &str| format!("hipv4-amdgcn-amd-amdhsa--{s}");
    // A device in production modes (xnack off) gets the xnack- entry, not the xnack+ one
    // that comes first.
    assert_eq!(
        pick("app_hipcc523", prod(Target::Gfx90a)).unwrap(),
        e("gfx90a:xnack-")
    );
    assert_eq!(
        pick("app_hipcc523", id("gfx90a:xnack+")).unwrap(),
        e("gfx90a:xnack+")
    );
    assert_eq!(pick("app_hipcc523", id("gfx1030")).unwrap(), e("gfx1030"));
    // `gfx942:xnack-` suits an xnack-off device but not a request that leaves xnack open.
    let lib = "libapp_clang22_zstd.so";
    assert_eq!(pick(lib, prod(Target::Gfx942)).unwrap(), e("gfx942:xnack-"));
    assert_eq!(pick(lib, id("gfx942:xnack-")).unwrap(), e("gfx942:xnack-"));
    assert!(matches!(
        pick(lib, id("gfx942")),
        Err(BundleError::NoEntry { ref target, ref available }) if target == "gfx942" && available.len() == 4
    ));
    assert!(pick(lib, prod(Target::Gfx1201)).is_err());
    // Entries without features suit any mode.
    assert_eq!(
        pick("app_clang22", prod(Target::Gfx942)).unwrap(),
        e("gfx942")
    );
    assert_eq!(
        pick("app_clang22", id("gfx942:sramecc-:xnack+")).unwrap(),
        e("gfx942")
    );
    assert_eq!(
        pick("app_clang22", prod(Target::Gfx1201)).unwrap(),
        e("gfx1201")
    );
    // No target and several device entries: the error lists them.
    let err = pick("app_clang22", None).unwrap_err().to_string();
    assert!(
        err.contains(&e("gfx1201")) && err.contains(&e("gfx942")),
        "{err}"
    );
    // A bare code object is passed through untouched.
    let bare = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kernels_gfx942_v5.hsaco"),
    )
    .unwrap();
    let x = bundle::extract(&bare, prod(Target::Gfx950).as_ref()).unwrap();
    assert!(x.entry.is_none() && x.bytes.as_ref() == bare.as_slice());
}

/// The uncompressed bundle held by a fixture.
fn plain_bundle() -> Vec<u8> {
    read("app_gfx90a_gfx1201.hipfb")
}

/// A `CCOB` of `plain` with the given header version, method (0 zlib, 1 zstd) and
/// declared sizes (`None`: the true ones).
fn ccob(plain: &[u8], version: u16, method: u16, total: Option<u64>, raw: Option<u64>) -> Vec<u8> {
    let payload = if method == 0 {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(plain).unwrap();
        z.finish().unwrap()
    } else {
        ruzstd::encoding::compress_to_vec(plain, ruzstd::encoding::CompressionLevel::Fastest)
    };
    let hlen = [0, 20, 24, 32][version as usize];
    let total = total.unwrap_or((hlen + payload.len()) as u64);
    let raw = raw.unwrap_or(plain.len() as u64);
    let mut b = b"CCOB".to_vec();
    b.extend(version.to_le_bytes());
    b.extend(method.to_le_bytes());
    match version {
        1 => b.extend((raw as u32).to_le_bytes()),
        2 => {
            b.extend((total as u32).to_le_bytes());
            b.extend((raw as u32).to_le_bytes());
        }
        _ => {
            b.extend(total.to_le_bytes());
            b.extend(raw.to_le_bytes());
        }
    }
    b.extend(0x5eed_u64.to_le_bytes()); // the truncated MD5, which readers do not check
    b.extend(payload);
    b
}

#[test]
fn zlib_and_zstd_in_every_header_version() {
    let plain = plain_bundle();
    let want = Fatbin::parse(&plain).unwrap();
    for version in 1..=3u16 {
        for (method, name) in [(0u16, "zlib"), (1, "zstd")] {
            let fb = Fatbin::parse(&ccob(&plain, version, method, None, None)).unwrap();
            assert_eq!(fb.entries.len(), want.entries.len());
            for (a, b) in fb.entries.iter().zip(&want.entries) {
                assert_eq!((&a.id, &a.bytes), (&b.id, &b.bytes));
                assert_eq!(
                    a.storage,
                    Storage::Compressed {
                        version,
                        method: name
                    }
                );
            }
        }
    }
}

/// Two translation units' bundles in one `.hip_fatbin`, padded to 4096 bytes as the
/// linker lays them out: entries of both are read, the first compatible one wins.
#[test]
fn several_bundles_in_a_row() {
    let plain = plain_bundle();
    let mut two = plain.clone();
    two.resize(plain.len().div_ceil(4096) * 4096, 0);
    two.extend(ccob(&read_entries_bundle(), 3, 1, None, None));
    let fb = Fatbin::parse(&two).unwrap();
    assert_eq!(fb.entries.len(), 6);
    assert_eq!(fb.entries[3].bundle, 1);
    let gfx942 = fb
        .select(Some(&TargetId::production(Target::Gfx942)))
        .unwrap();
    assert_eq!(gfx942.bundle, 1);
}

fn read_entries_bundle() -> Vec<u8> {
    // app_v2_zstd.hipfb decompressed: rebuild an uncompressed bundle of its entries.
    let fb = Fatbin::parse(&read("app_v2_zstd.hipfb")).unwrap();
    let mut head = bundle::BUNDLE_MAGIC.to_vec();
    head.extend((fb.entries.len() as u64).to_le_bytes());
    let mut off = 32 + fb.entries.iter().map(|e| 24 + e.id.len()).sum::<usize>();
    let mut body: Vec<u8> = Vec::new();
    for e in &fb.entries {
        head.extend((off as u64).to_le_bytes());
        head.extend((e.bytes.len() as u64).to_le_bytes());
        head.extend((e.id.len() as u64).to_le_bytes());
        head.extend(e.id.as_bytes());
        body.extend(&e.bytes);
        off += e.bytes.len();
    }
    head.extend(body);
    head
}

#[test]
fn truncated_files_are_errors_not_panics() {
    for (name, _) in fixtures() {
        let b = read(name);
        let step = (b.len() / 300).max(1);
        for cut in (0..b.len()).step_by(step) {
            let r = Fatbin::parse(&b[..cut]);
            // A plain bundle cut anywhere before its last entry's end is an error.
            if name == "app_gfx90a_gfx1201.hipfb" {
                assert!(r.is_err(), "{name} cut at {cut}");
            }
            let _ = bundle::extract(&b[..cut], Some(&TargetId::production(Target::Gfx942)));
        }
    }
    // Compressed payload cut short.
    let c = read("app_v2_zstd.hipfb");
    for cut in [8, 20, 27, 40, c.len() / 2, c.len() - 1] {
        assert!(Fatbin::parse(&c[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn corrupt_offsets_and_counts_are_bad_entries() {
    let plain = plain_bundle();
    let set = |at: usize, v: u64| {
        let mut b = plain.clone();
        b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        Fatbin::parse(&b).map(|f| f.ids())
    };
    let fb = Fatbin::parse(&plain).unwrap();
    // The second entry's header (the first is the empty host entry).
    let second = 32 + 24 + fb.entries[0].id.len();
    // Entry count, and the second entry's offset, size and id length.
    for (at, v) in [
        (24, 1 << 40),
        (24, u64::MAX),
        (second, plain.len() as u64),
        (second, u64::MAX - 4),
        (second + 8, plain.len() as u64),
        (second + 16, 1 << 33),
        (second + 16, 5000),
    ] {
        let r = set(at, v);
        assert!(
            matches!(r, Err(BundleError::BadEntry { .. })),
            "{at} {v:#x}: {r:?}"
        );
    }
    // The second entry's range running one byte past the end.
    let off = u64::from_le_bytes(plain[second..second + 8].try_into().unwrap());
    let msg = set(second + 8, plain.len() as u64 - off + 1)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("entry 1") && msg.contains("outside the bundle"),
        "{msg}"
    );
    // Trailing garbage after the bundle.
    let mut b = plain.clone();
    b.extend(b"garbage!");
    assert!(matches!(
        Fatbin::parse(&b),
        Err(BundleError::BadMagic { .. })
    ));
    // An id that is not text.
    let mut b = plain.clone();
    b[56] = 0xff;
    assert!(matches!(
        Fatbin::parse(&b),
        Err(BundleError::BadEntry { .. })
    ));
}

#[test]
fn bad_compressed_sizes_and_headers() {
    let plain = plain_bundle();
    let n = plain.len() as u64;
    let is = |b: Vec<u8>, f: fn(&BundleError) -> bool| {
        let r = Fatbin::parse(&b).map(|f| f.ids());
        assert!(r.as_ref().is_err_and(f), "{r:?}");
    };
    for method in [0, 1] {
        // Declared uncompressed size one too small, one too large.
        is(ccob(&plain, 3, method, None, Some(n - 1)), |e| {
            matches!(e, BundleError::Decompress { .. })
        });
        is(ccob(&plain, 2, method, None, Some(n + 1)), |e| {
            matches!(e, BundleError::Decompress { .. })
        });
        // Total size past the end of the file, or smaller than the header.
        is(ccob(&plain, 3, method, Some(1 << 40), None), |e| {
            matches!(e, BundleError::Truncated { .. })
        });
        is(ccob(&plain, 2, method, Some(10), None), |e| {
            matches!(e, BundleError::BadCompressedHeader { .. })
        });
        // Total size that cuts the payload short.
        let good = ccob(&plain, 3, method, None, None);
        is(
            ccob(&plain, 3, method, Some(good.len() as u64 - 16), None),
            |e| matches!(e, BundleError::Decompress { .. }),
        );
        // A hostile uncompressed size is refused before anything is allocated.
        is(ccob(&plain, 3, method, None, Some(1 << 50)), |e| {
            matches!(e, BundleError::BadCompressedHeader { .. })
        });
        // Corrupt payload bytes.
        let mut b = good.clone();
        for x in &mut b[40..60] {
            *x ^= 0x5a;
        }
        assert!(Fatbin::parse(&b).is_err());
    }
    // Unknown version and method.
    let mut b = ccob(&plain, 3, 1, None, None);
    b[4] = 4;
    is(b, |e| matches!(e, BundleError::BadCompressedHeader { .. }));
    is(ccob(&plain, 3, 2, None, None), |e| {
        matches!(e, BundleError::BadCompressedHeader { .. })
    });
    // A compressed bundle that decompresses to something else.
    let mut not = plain.clone();
    not[0] = b'X';
    is(ccob(&not, 3, 0, None, None), |e| {
        matches!(e, BundleError::BadMagic { .. })
    });
}

#[test]
fn host_binaries_without_a_fatbin_are_typed_errors() {
    // This test program is an x86-64 ELF without .hip_fatbin.
    let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let r = bundle::extract(&me, None).map(|x| x.entry);
    assert!(
        matches!(r, Err(BundleError::HostElf { machine: 62, .. })),
        "{r:?}"
    );
    // Renaming the section hides it.
    let mut b = read("app_clang22");
    let at = b.windows(11).position(|w| w == b".hip_fatbin").unwrap();
    b[at + 10] = b'X';
    assert!(matches!(
        Fatbin::parse(&b),
        Err(BundleError::HostElf { .. })
    ));
    // The loader error carries the bundle error.
    let e: LoadError = BundleError::NeedTarget { available: vec![] }.into();
    assert!(matches!(e, LoadError::Bundle(_)));
}

#[test]
fn each_translation_unit_bundle_is_searched_for_the_kernel() {
    let app = read("app_two_tu_clang22");
    let fb = Fatbin::parse(&app).unwrap();
    for t in [Target::Gfx942, Target::Gfx1201] {
        let dev = TargetId::production(t);
        let c = fb.candidates(&dev);
        assert_eq!(c.iter().map(|e| e.bundle).collect::<Vec<_>>(), [0, 1]);
        for (kernel, bundle) in [("scale", 0), ("square_plus_index", 0), ("negate", 1)] {
            let x = bundle::extract_kernel(&app, &dev, kernel).unwrap();
            let co = CodeObject::parse(&x.bytes).unwrap();
            assert_eq!(co.target(), t);
            assert!(co.kernel(kernel).is_some(), "{kernel} on {t:?}");
            assert_eq!(x.bytes.as_ref(), c[bundle].bytes.as_slice());
            assert_eq!(x.bundle, bundle);
        }
        // A kernel no bundle defines: the first candidate, whose kernels the caller lists.
        let x = bundle::extract_kernel(&app, &dev, "nope").unwrap();
        assert_eq!(x.bytes.as_ref(), c[0].bytes.as_slice());
    }
    let none = bundle::extract_kernel(&app, &TargetId::production(Target::Gfx950), "scale");
    assert!(matches!(none, Err(BundleError::NoEntry { .. })));
}

/// Random byte corruption of every fixture (and of zlib/zstd CCOBs of all versions) never
/// panics; the reader answers with an error or with entries.
#[test]
fn random_corruption_never_panics() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let plain = plain_bundle();
    let mut inputs: Vec<Vec<u8>> = fixtures().iter().map(|(n, _)| read(n)).collect();
    for v in 1..=3 {
        for m in 0..=1 {
            inputs.push(ccob(&plain, v, m, None, None));
        }
    }
    let dev = TargetId::production(Target::Gfx942);
    for input in &inputs {
        for _ in 0..150 {
            let mut b = input.clone();
            for _ in 0..1 + next() % 4 {
                // Mostly in the headers, where the structure is.
                let span = if next() % 2 == 0 {
                    b.len().min(160)
                } else {
                    b.len()
                };
                let at = (next() % span as u64) as usize;
                b[at] = next() as u8;
            }
            let _ = Fatbin::parse(&b).map(|f| f.ids());
            let _ = bundle::extract_kernel(&b, &dev, "scale").map(|x| x.entry);
        }
    }
}
