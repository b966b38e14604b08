//! The loader against LLVM: every code object in tests/fixtures (and the project corpus,
//! when it has been built) is parsed and compared with `llvm-readelf-22` (header, symbols,
//! metadata note) and `llvm-objdump-22` (kernel descriptors printed as `.amdhsa_*`
//! directives).

use gpu_model::loader::{CodeObject, FeatureMode, SymbolKind, UserSgpr};
use gpu_model::{Family, Target};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Code objects to check: the committed fixtures and, when present, the corpus.
fn inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    collect(&root.join("tests/fixtures"), &mut out);
    let fixtures = out.len();
    assert!(
        fixtures >= 20,
        "fixtures missing: run tests/fixtures/build.sh"
    );
    collect(&root.join("../corpus/build"), &mut out);
    eprintln!(
        "{} fixtures, {} corpus code objects",
        fixtures,
        out.len() - fixtures
    );
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "hsaco")
            // Generic-target objects are refused by design (see loader_errors.rs), so are
            // clang-15's gfx940 ones (an unsupported processor, see abi_loader.rs).
            && !p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("generic_") || n.contains("_gfx940_")
            })
        {
            out.push(p);
        }
    }
}

fn run(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool).args(args).output().unwrap_or_else(|e| {
        panic!("{tool} not runnable ({e}): install LLVM 22, see shared/TOOLCHAIN.md")
    });
    assert!(
        out.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Files per llvm-readelf/llvm-objdump process: one process per file is most of the
/// test's time with a few hundred corpus objects.
const BATCH: usize = 64;

/// `llvm-readelf-22 --elf-output-style=JSON -h -s --notes` for every path, in order.
fn readelf_all(paths: &[PathBuf]) -> Vec<Json> {
    let mut out = Vec::new();
    for chunk in paths.chunks(BATCH) {
        let mut args = vec!["--elf-output-style=JSON", "-h", "-s", "--notes"];
        args.extend(chunk.iter().map(|p| p.to_str().unwrap()));
        let json: Json = serde_json::from_str(&run("llvm-readelf-22", &args)).unwrap();
        let files = json.as_array().unwrap();
        assert_eq!(files.len(), chunk.len());
        out.extend(files.iter().cloned());
    }
    out
}

/// `llvm-objdump-22 -D --disassemble-symbols=<every .kd>` for every path, split per file.
///
/// Oracle hazard: given several files, llvm-objdump 22 prints `.amdhsa_kernel` blocks only
/// for files of the first file's target, and a descriptor symbol name only once. So files
/// go into batches of one target in which no `.kd` name repeats.
fn objdump_all(paths: &[PathBuf], cos: &[CodeObject]) -> Vec<String> {
    let names = |co: &CodeObject| -> Vec<String> {
        co.kernels()
            .iter()
            .map(|k| format!("{}.kd", k.name))
            .collect()
    };
    type Batch = (Target, Vec<usize>, std::collections::BTreeSet<String>);
    let mut batches: Vec<Batch> = Vec::new();
    for (i, co) in cos.iter().enumerate() {
        let mine = names(co);
        let slot = batches.iter().position(|(t, files, used)| {
            *t == co.target() && files.len() < BATCH && mine.iter().all(|n| !used.contains(n))
        });
        let slot = slot.unwrap_or_else(|| {
            batches.push((co.target(), Vec::new(), Default::default()));
            batches.len() - 1
        });
        batches[slot].1.push(i);
        batches[slot].2.extend(mine);
    }
    let mut out = vec![String::new(); paths.len()];
    for (_, files, used) in batches {
        if used.is_empty() {
            continue;
        }
        let syms: Vec<&str> = used.iter().map(String::as_str).collect();
        let sym_arg = format!("--disassemble-symbols={}", syms.join(","));
        let mut args = vec!["-D", sym_arg.as_str()];
        args.extend(files.iter().map(|&i| paths[i].to_str().unwrap()));
        let text = run("llvm-objdump-22", &args);
        // Each file's listing starts with "<path>:\tfile format elf64-amdgpu".
        let mut n = 0;
        for line in text.lines() {
            if line.ends_with("file format elf64-amdgpu") {
                let want = paths[files[n]].to_str().unwrap();
                assert!(line.starts_with(want), "{line} is not {want}");
                n += 1;
            } else if n > 0 {
                let cur = &mut out[files[n - 1]];
                cur.push_str(line);
                cur.push('\n');
            }
        }
        assert_eq!(n, files.len());
    }
    out
}

/// A node of the YAML subset LLVM prints for the metadata note.
#[derive(Debug, Clone)]
enum Yaml {
    Scalar(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Yaml::Scalar(s) => Some(s),
            _ => None,
        }
    }
    fn num(&self, key: &str) -> Option<u64> {
        self.str(key).map(|s| s.parse().unwrap())
    }
    fn list(&self, key: &str) -> &[Yaml] {
        match self.get(key) {
            Some(Yaml::List(l)) => l,
            _ => &[],
        }
    }
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// Parses the block starting at `lines[*i]` whose lines are indented by `ind`.
/// List items are handled by blanking their "- " so the item reads as a map at ind + 2.
fn parse_block(lines: &mut Vec<String>, i: &mut usize, ind: usize) -> Yaml {
    if lines[*i][ind..].starts_with("- ") {
        let mut items = Vec::new();
        while *i < lines.len() && indent(&lines[*i]) == ind && lines[*i][ind..].starts_with("- ") {
            lines[*i].replace_range(ind..ind + 2, "  ");
            items.push(parse_block(lines, i, ind + 2));
        }
        return Yaml::List(items);
    }
    if !lines[*i].contains(':') {
        let s = lines[*i].trim().trim_matches('\'').to_string();
        *i += 1;
        return Yaml::Scalar(s);
    }
    let mut map = Vec::new();
    while *i < lines.len() && indent(&lines[*i]) == ind && !lines[*i][ind..].starts_with("- ") {
        let line = lines[*i].clone();
        let (k, v) = line.trim().split_once(':').unwrap();
        *i += 1;
        let v = v.trim();
        if v.is_empty() {
            let child = indent(&lines[*i]);
            map.push((k.to_string(), parse_block(lines, i, child)));
        } else {
            map.push((
                k.to_string(),
                Yaml::Scalar(v.trim_matches('\'').to_string()),
            ));
        }
    }
    Yaml::Map(map)
}

fn parse_yaml(text: &str) -> Yaml {
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && *l != "---" && *l != "...")
        .map(str::to_string)
        .collect();
    parse_block(&mut lines, &mut 0, 0)
}

fn feature(flags: &[String], name: &str) -> FeatureMode {
    let has = |m: &str| {
        flags
            .iter()
            .any(|f| f == &format!("EF_AMDGPU_FEATURE_{name}_{m}_V4"))
    };
    if has("ON") {
        FeatureMode::On
    } else if has("OFF") {
        FeatureMode::Off
    } else if has("ANY") {
        FeatureMode::Any
    } else {
        FeatureMode::Unsupported
    }
}

#[test]
fn headers_symbols_and_metadata_match_llvm_readelf() {
    let mut kernels = 0;
    let mut targets = BTreeMap::new();
    let all = inputs();
    let jsons = readelf_all(&all);
    for (path, j) in all.iter().zip(&jsons) {
        let p = path.to_str().unwrap();
        let bytes = std::fs::read(path).unwrap();
        let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(j["FileSummary"]["File"].as_str(), Some(p));
        let h = &j["ElfHeader"];

        // Header.
        assert_eq!(
            co.version() as u64,
            h["Ident"]["ABIVersion"].as_u64().unwrap() + 2,
            "{p}"
        );
        assert_eq!(
            co.e_flags() as u64,
            h["Flags"]["Value"].as_u64().unwrap(),
            "{p}"
        );
        let flags: Vec<String> = h["Flags"]["Flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["Name"].as_str().unwrap().to_string())
            .collect();
        let mach = format!(
            "EF_AMDGPU_MACH_AMDGCN_{}",
            co.target().name().to_uppercase()
        );
        assert!(flags.contains(&mach), "{p}: {flags:?} lacks {mach}");
        assert_eq!(co.xnack(), feature(&flags, "XNACK"), "{p} xnack");
        assert_eq!(co.sramecc(), feature(&flags, "SRAMECC"), "{p} sramecc");
        *targets.entry((co.target(), co.version())).or_insert(0) += 1;

        // Symbols (.symtab, without the null symbol).
        let syms: Vec<&Json> = j["Symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["Symbol"])
            .skip(1)
            .collect();
        assert_eq!(co.symbols().len(), syms.len(), "{p}: symbol count");
        for (ours, s) in co.symbols().iter().zip(&syms) {
            assert_eq!(ours.name, s["Name"]["Name"].as_str().unwrap(), "{p}");
            assert_eq!(
                ours.address,
                s["Value"].as_u64().unwrap(),
                "{p} {}",
                ours.name
            );
            assert_eq!(ours.size, s["Size"].as_u64().unwrap(), "{p} {}", ours.name);
            let kind = match s["Type"]["Value"].as_u64().unwrap() {
                0 => SymbolKind::NoType,
                1 => SymbolKind::Object,
                2 => SymbolKind::Func,
                3 => SymbolKind::Section,
                4 => SymbolKind::File,
                t => SymbolKind::Other(t as u8),
            };
            assert_eq!(ours.kind, kind, "{p} {}", ours.name);
        }

        // Kernels: one per `.kd` symbol, entry at the kernel's function symbol if it has one.
        let mut kd: Vec<&str> = syms
            .iter()
            .filter_map(|s| s["Name"]["Name"].as_str())
            .filter(|n| n.ends_with(".kd"))
            .collect();
        kd.sort();
        kd.dedup();
        let mut ours: Vec<String> = co
            .kernels()
            .iter()
            .map(|k| format!("{}.kd", k.name))
            .collect();
        ours.sort();
        assert_eq!(ours, kd, "{p}: kernels");
        for k in co.kernels() {
            let value = |name: &str| {
                syms.iter()
                    .find(|s| s["Name"]["Name"] == name)
                    .map(|s| s["Value"].as_u64().unwrap())
            };
            assert_eq!(
                Some(k.descriptor_address),
                value(&format!("{}.kd", k.name)),
                "{p} {}",
                k.name
            );
            if let Some(entry) = value(&k.name) {
                assert_eq!(k.entry_address, entry, "{p} {}: entry", k.name);
            }
        }
        kernels += co.kernels().len();

        // Metadata note.
        let note = j["NoteSections"].as_array().and_then(|n| {
            n.iter()
                .flat_map(|s| s["NoteSection"]["Notes"].as_array().unwrap())
                .find_map(|n| n["AMDGPU Metadata"].as_str())
        });
        let Some(note) = note else {
            assert!(co.kernels().iter().all(|k| k.metadata.is_none()), "{p}");
            assert_eq!(co.metadata_target(), None, "{p}");
            continue;
        };
        let y = parse_yaml(note);
        assert_eq!(co.metadata_target(), y.str("amdhsa.target"), "{p}");
        let v: Vec<u64> = y
            .list("amdhsa.version")
            .iter()
            .map(|x| match x {
                Yaml::Scalar(s) => s.parse().unwrap(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(co.metadata_version(), Some((v[0], v[1])), "{p}");
        let ymk = y.list("amdhsa.kernels");
        let with_meta: Vec<_> = co
            .kernels()
            .iter()
            .filter(|k| k.metadata.is_some())
            .collect();
        assert_eq!(with_meta.len(), ymk.len(), "{p}");
        for (k, yk) in with_meta.iter().zip(ymk) {
            let m = k.metadata.as_ref().unwrap();
            let ctx = format!("{p} kernel {}", k.name);
            assert_eq!(Some(m.name.as_str()), yk.str(".name"), "{ctx}");
            assert_eq!(Some(m.symbol.as_str()), yk.str(".symbol"), "{ctx}");
            for (ours, key) in [
                (m.kernarg_segment_size, ".kernarg_segment_size"),
                (m.kernarg_segment_align, ".kernarg_segment_align"),
                (m.group_segment_fixed_size, ".group_segment_fixed_size"),
                (m.private_segment_fixed_size, ".private_segment_fixed_size"),
                (m.wavefront_size, ".wavefront_size"),
                (m.sgpr_count, ".sgpr_count"),
                (m.vgpr_count, ".vgpr_count"),
                (m.max_flat_workgroup_size, ".max_flat_workgroup_size"),
            ] {
                assert_eq!(Some(ours as u64), yk.num(key), "{ctx} {key}");
            }
            assert_eq!(
                m.agpr_count as u64,
                yk.num(".agpr_count").unwrap_or(0),
                "{ctx}"
            );
            assert_eq!(
                m.sgpr_spill_count.map(u64::from),
                yk.num(".sgpr_spill_count"),
                "{ctx}"
            );
            assert_eq!(
                m.uses_dynamic_stack,
                yk.str(".uses_dynamic_stack") == Some("true"),
                "{ctx}"
            );
            assert_eq!(m.language.as_deref(), yk.str(".language"), "{ctx}");
            // The metadata agrees with the descriptor where both say the same thing.
            assert_eq!(m.kernarg_segment_size, k.descriptor.kernarg_size, "{ctx}");
            assert_eq!(
                m.group_segment_fixed_size, k.descriptor.group_segment_fixed_size,
                "{ctx}"
            );
            assert_eq!(m.wavefront_size, k.wave_size(co.target()), "{ctx}");
            let yargs = yk.list(".args");
            assert_eq!(m.args.len(), yargs.len(), "{ctx}");
            for (a, ya) in m.args.iter().zip(yargs) {
                assert_eq!(Some(a.offset as u64), ya.num(".offset"), "{ctx}");
                assert_eq!(Some(a.size as u64), ya.num(".size"), "{ctx}");
                assert_eq!(Some(a.value_kind.as_str()), ya.str(".value_kind"), "{ctx}");
                assert!(
                    !matches!(a.value_kind, gpu_model::loader::ValueKind::Unknown(_)),
                    "{ctx}: unknown kind {:?}",
                    a.value_kind
                );
                assert_eq!(a.name.as_deref(), ya.str(".name"), "{ctx}");
                assert_eq!(a.type_name.as_deref(), ya.str(".type_name"), "{ctx}");
                assert_eq!(
                    a.address_space.as_ref().map(|s| s.as_str()),
                    ya.str(".address_space"),
                    "{ctx}"
                );
                assert_eq!(
                    a.pointee_align.map(u64::from),
                    ya.num(".pointee_align"),
                    "{ctx}"
                );
                assert_eq!(a.is_const, ya.str(".is_const") == Some("true"), "{ctx}");
            }
        }
    }
    eprintln!("{kernels} kernels; per (target, version): {targets:?}");
    // Every target and code object version is covered by the fixtures.
    for t in Target::ALL {
        for v in [4, 5, 6] {
            assert!(targets.contains_key(&(t, v)), "no {t} v{v} code object");
        }
    }
}

/// The value LLVM prints for descriptor directive `name`, computed from our decoding.
/// `None` for directives that are not descriptor fields (LLVM prints them as 0).
fn directive(d: &gpu_model::loader::KernelDescriptor, t: Target, name: &str) -> Option<u64> {
    let b = |x: bool| Some(x as u64);
    let exc = |bit: u32| b(d.exception_enables() >> bit & 1 != 0);
    Some(match name {
        "reserve_vcc" | "reserve_xnack_mask" | "reserve_flat_scratch" => return None,
        "group_segment_fixed_size" => d.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => d.private_segment_fixed_size.into(),
        "kernarg_size" => d.kernarg_size.into(),
        "accum_offset" => d.first_agpr().into(),
        "tg_split" => return b(d.tg_split()),
        "next_free_vgpr" => d.allocated_vgprs(t).into(),
        "next_free_sgpr" => ((d.granulated_wavefront_sgpr_count() + 1) * 8).into(),
        "float_round_mode_32" => d.float_round_mode_32().into(),
        "float_round_mode_16_64" => d.float_round_mode_16_64().into(),
        "float_denorm_mode_32" => d.float_denorm_mode_32().into(),
        "float_denorm_mode_16_64" => d.float_denorm_mode_16_64().into(),
        "dx10_clamp" => return b(d.dx10_clamp(t.family())),
        "ieee_mode" => return b(d.ieee_mode(t.family())),
        "round_robin_scheduling" => return b(t.family() == Family::Gfx12 && d.rsrc1_bit21()),
        "fp16_overflow" => return b(d.fp16_ovfl()),
        "workgroup_processor_mode" => return b(d.wgp_mode()),
        "memory_ordered" => return b(d.mem_ordered()),
        "forward_progress" => return b(d.fwd_progress()),
        "inst_pref_size" => d.inst_pref_size().into(),
        "enable_private_segment" | "system_sgpr_private_segment_wavefront_offset" => {
            return b(d.enable_private_segment())
        }
        "system_sgpr_workgroup_id_x" => return b(d.enable_workgroup_id_x()),
        "system_sgpr_workgroup_id_y" => return b(d.enable_workgroup_id_y()),
        "system_sgpr_workgroup_id_z" => return b(d.enable_workgroup_id_z()),
        "system_sgpr_workgroup_info" => return b(d.enable_workgroup_info()),
        "system_vgpr_workitem_id" => d.vgpr_workitem_id().into(),
        "exception_fp_ieee_invalid_op" => return exc(0),
        "exception_fp_denorm_src" => return exc(1),
        "exception_fp_ieee_div_zero" => return exc(2),
        "exception_fp_ieee_overflow" => return exc(3),
        "exception_fp_ieee_underflow" => return exc(4),
        "exception_fp_ieee_inexact" => return exc(5),
        "exception_int_div_zero" => return exc(6),
        "user_sgpr_private_segment_buffer" => return b(d.enables(UserSgpr::PrivateSegmentBuffer)),
        "user_sgpr_dispatch_ptr" => return b(d.enables(UserSgpr::DispatchPtr)),
        "user_sgpr_queue_ptr" => return b(d.enables(UserSgpr::QueuePtr)),
        "user_sgpr_kernarg_segment_ptr" => return b(d.enables(UserSgpr::KernargSegmentPtr)),
        "user_sgpr_dispatch_id" => return b(d.enables(UserSgpr::DispatchId)),
        "user_sgpr_flat_scratch_init" => return b(d.enables(UserSgpr::FlatScratchInit)),
        "user_sgpr_private_segment_size" => return b(d.enables(UserSgpr::PrivateSegmentSize)),
        "user_sgpr_kernarg_preload_length" => d.kernarg_preload_length().into(),
        "user_sgpr_kernarg_preload_offset" => d.kernarg_preload_offset().into(),
        "user_sgpr_count" => d.user_sgpr_count().into(),
        "wavefront_size32" => return b(d.wavefront_size32()),
        "uses_dynamic_stack" => return b(d.uses_dynamic_stack()),
        other => {
            panic!("llvm-objdump printed directive .amdhsa_{other}, which this test does not map")
        }
    })
}

#[test]
fn kernel_descriptors_match_llvm_objdump() {
    let mut checked = 0;
    let all = inputs();
    let cos: Vec<CodeObject> = all
        .iter()
        .map(|p| CodeObject::parse(&std::fs::read(p).unwrap()).unwrap())
        .collect();
    let texts = objdump_all(&all, &cos);
    for ((path, co), text) in all.iter().zip(&cos).zip(&texts) {
        let p = path.to_str().unwrap();
        // Directives per kernel, in `.amdhsa_kernel NAME` ... `.end_amdhsa_kernel` blocks.
        let mut blocks: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
        let mut cur: Option<String> = None;
        for line in text.lines().map(str::trim) {
            if let Some(n) = line.strip_prefix(".amdhsa_kernel ") {
                cur = Some(n.to_string());
            } else if line == ".end_amdhsa_kernel" {
                cur = None;
            } else if let (Some(k), Some(rest)) = (&cur, line.strip_prefix(".amdhsa_")) {
                let (name, v) = rest.split_once(' ').unwrap();
                blocks
                    .entry(k.clone())
                    .or_default()
                    .push((name.to_string(), v.parse().unwrap()));
            }
        }
        for k in co.kernels() {
            let dirs = blocks
                .get(&k.name)
                .unwrap_or_else(|| panic!("{p}: objdump printed no descriptor for {}", k.name));
            assert!(dirs.len() > 20, "{p}: {}", k.name);
            for (name, v) in dirs {
                if let Some(ours) = directive(&k.descriptor, co.target(), name) {
                    assert_eq!(ours, *v, "{p} kernel {} .amdhsa_{name}", k.name);
                }
            }
            // Fields LLVM prints only when non-zero.
            let printed = |n: &str| dirs.iter().any(|(d, _)| d == n);
            if !printed("user_sgpr_kernarg_preload_length") {
                assert_eq!(k.descriptor.kernarg_preload_length(), 0, "{p} {}", k.name);
            }
            checked += 1;
        }
    }
    eprintln!("{checked} kernel descriptors checked against llvm-objdump-22");
}
