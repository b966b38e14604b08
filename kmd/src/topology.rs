//! The KFD sysfs topology of one simulated GPU, generated from a gpu-model preset.
//!
//! The thunk (libhsakmt 5.2.3) reads `/sys/devices/virtual/kfd/kfd/topology/` with
//! fopen/opendir and parses each `properties` file as `"%s %llu"` lines. The emulation
//! writes this tree into a private directory ([`Topology::write`]) and the interposer
//! redirects the sysfs paths there, so readdir, stat and fopen behave exactly like real
//! files (a per-run directory also keeps two emulated processes apart). Which fields must
//! be present and nonzero was measured against ROCr 5.2.3 (`../shared/KFD-NOTES.md`); the
//! field names and their order are those of the kernel's `kfd_topology.c` `node_show`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use gpu_model::config::GpuConfig;
use gpu_model::loader::bundle::production_modes;
use gpu_model::loader::FeatureMode;
use gpu_model::target::Target;

/// sysfs directory of the KFD topology (what the thunk opens).
pub const SYSFS_KFD: &str = "/sys/devices/virtual/kfd/kfd";
/// The class link to it (what `rocm_agent_enumerator` reads).
pub const SYSFS_CLASS_KFD: &str = "/sys/class/kfd";
/// The DRM render minor of the simulated GPU (the thunk requires 128..=255).
pub const RENDER_MINOR: u32 = 128;
/// The KFD gpu_id of the simulated GPU. ASSUMPTION: the real driver derives it from a
/// hash of PCI location and properties; any nonzero 32-bit value is accepted by the thunk.
pub const GPU_ID: u32 = 0x9a1d;

/// Why a preset cannot be presented as a KFD device.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// Debian's ROCr 5.2.3 drops any agent that is not one of its known targets; of ours
    /// only gfx90a (mi210, mi250x) qualifies.
    #[error(
        "preset `{preset}` is {target}: ROCm 5.2.3 accepts only gfx90a here (use mi210 or mi250x)"
    )]
    UnsupportedTarget { preset: String, target: Target },
    /// The preset does not give a PCI device id we know (from libdrm's amdgpu.ids).
    #[error("preset `{preset}` ({name}) has no known PCI device id")]
    UnknownDevice { preset: String, name: String },
    /// The preset itself failed to load.
    #[error(transparent)]
    Config(#[from] gpu_model::config::ConfigError),
}

/// The simulated GPU as the driver describes it: what the topology and the ioctls report.
#[derive(Debug, Clone)]
pub struct GpuNode {
    /// The preset it was made from (`mi210`).
    pub preset: String,
    /// Marketing name (`AMD Instinct MI210`), the preset's name.
    pub marketing_name: String,
    /// KFD gpu id.
    pub gpu_id: u32,
    /// PCI device id and revision (`/usr/share/libdrm/amdgpu.ids`).
    pub device_id: u32,
    /// `gfx_target_version`: major*10000 + minor*100 + stepping.
    pub gfx_target_version: u32,
    /// Compute units in the device.
    pub compute_units: u32,
    /// SIMDs per CU.
    pub simds_per_cu: u32,
    /// Shader engines (one shader array each).
    pub shader_engines: u32,
    /// Wave slots per SIMD.
    pub waves_per_simd: u32,
    /// Wavefront size.
    pub wave_size: u32,
    /// LDS per CU in bytes.
    pub lds_bytes: u32,
    /// Device memory in bytes.
    pub vram_bytes: u64,
    /// Engine clock in MHz.
    pub engine_mhz: u32,
    /// Memory clock in MHz.
    pub memory_mhz: u32,
    /// Vector L1 per CU in bytes.
    pub l1_bytes: u64,
    /// Scalar cache in bytes.
    pub scalar_cache_bytes: u64,
    /// L2 in bytes (all of it).
    pub l2_bytes: u64,
    /// L2 line size.
    pub l2_line: u32,
    /// SRAM ECC on: the project's production mode for gfx9 (`bundle::production_modes`);
    /// ROCr then names the ISA `gfx90a:sramecc+:xnack-` as on a real MI210/MI250X.
    pub sramecc: bool,
}

/// PCI device ids of the gfx90a presets, from `/usr/share/libdrm/amdgpu.ids` (the table
/// libdrm's `amdgpu_get_marketing_name` uses): `740F, 02, AMD Instinct MI210` and
/// `7408, 00, AMD Instinct MI250X`.
fn device_id(name: &str) -> Option<u32> {
    match name {
        "AMD Instinct MI210" => Some(0x740F),
        "AMD Instinct MI250X" => Some(0x7408),
        _ => None,
    }
}

impl GpuNode {
    /// The KFD view of built-in preset `preset`.
    pub fn from_preset(preset: &str) -> Result<GpuNode, TopologyError> {
        let cfg = GpuConfig::preset(preset)?;
        Self::from_config(preset, &cfg)
    }

    /// The KFD view of `cfg` (named `preset` in errors).
    pub fn from_config(preset: &str, cfg: &GpuConfig) -> Result<GpuNode, TopologyError> {
        if cfg.target != Target::Gfx90a {
            return Err(TopologyError::UnsupportedTarget {
                preset: preset.to_string(),
                target: cfg.target,
            });
        }
        let device_id = device_id(&cfg.name).ok_or_else(|| TopologyError::UnknownDevice {
            preset: preset.to_string(),
            name: cfg.name.clone(),
        })?;
        Ok(GpuNode {
            preset: preset.to_string(),
            marketing_name: cfg.name.clone(),
            gpu_id: GPU_ID,
            device_id,
            // gfx90a = 9.0.10 (KFD-NOTES: 90010).
            gfx_target_version: 90010,
            compute_units: cfg.total_cus(),
            simds_per_cu: cfg.xcd.cu.simds,
            shader_engines: cfg.xcd.shader_engines * cfg.xcds,
            waves_per_simd: cfg.xcd.cu.wave_slots_per_simd,
            wave_size: cfg.wave_sizes.first().copied().unwrap_or(64),
            lds_bytes: cfg.xcd.cu.lds_bytes,
            vram_bytes: cfg.dram.capacity_bytes,
            engine_mhz: cfg.clocks.shader_mhz,
            memory_mhz: cfg.clocks.memory_mhz,
            l1_bytes: cfg.xcd.cu.vector_cache.size_bytes,
            scalar_cache_bytes: cfg.xcd.cu.scalar_cache.size_bytes,
            l2_bytes: cfg.total_l2_bytes(),
            l2_line: cfg.xcd.l2.line_bytes,
            sramecc: production_modes(cfg.target).1 == FeatureMode::On,
        })
    }

    /// `simd_id_base` of the GPU node. ASSUMPTION: the value real KFD gives the first GPU
    /// (0x80001000); caches name their processor by it.
    const SIMD_ID_BASE: u64 = 0x8000_1000;

    /// The GPU node's `properties` lines.
    pub fn properties(&self, caches: usize) -> Vec<(&'static str, u64)> {
        let arrays = self.shader_engines.max(1);
        let simd_count = u64::from(self.compute_units) * u64::from(self.simds_per_cu);
        vec![
            // A dGPU: cpu_cores_count 0 (APU mode breaks queue creation; KFD-NOTES).
            ("cpu_cores_count", 0),
            ("simd_count", simd_count),
            ("mem_banks_count", 1),
            ("caches_count", caches as u64),
            ("io_links_count", 1),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", Self::SIMD_ID_BASE),
            ("max_waves_per_simd", u64::from(self.waves_per_simd)),
            ("lds_size_in_kb", u64::from(self.lds_bytes / 1024)),
            ("gds_size_in_kb", 0),
            ("num_gws", 0),
            ("wave_front_size", u64::from(self.wave_size)),
            ("array_count", u64::from(arrays)),
            // One shader array per engine on gfx90a (rocminfo: "Shader Arrs. per Eng.: 1").
            ("simd_arrays_per_engine", 1),
            (
                "cu_per_simd_array",
                u64::from(self.compute_units.div_ceil(arrays)),
            ),
            ("simd_per_cu", u64::from(self.simds_per_cu)),
            ("max_slots_scratch_cu", 32),
            ("gfx_target_version", u64::from(self.gfx_target_version)),
            ("vendor_id", 0x1002),
            ("device_id", u64::from(self.device_id)),
            // ASSUMPTION: a PCI location (bus 3, device 0) and domain 0.
            ("location_id", 0x300),
            ("domain", 0),
            ("drm_render_minor", u64::from(RENDER_MINOR)),
            ("hive_id", 0),
            // No SDMA engine is simulated: ROCr then copies with its blit kernels.
            ("num_sdma_engines", 0),
            ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", 0),
            // ASSUMPTION: the hardware-queue count KFD reports for gfx9 MEC (24).
            ("num_cp_queues", 24),
            ("max_engine_clk_fcompute", u64::from(self.engine_mhz)),
            ("local_mem_size", self.vram_bytes),
            // ASSUMPTION: a MEC firmware version; ROCr only compares it to old minimums.
            ("fw_version", 78),
            // DoorbellType 2 (bits 12-13), AQLQueueDoubleMap (bit 14) and SRAM_EDCSupport
            // (bit 26): HSA_CAPABILITY in hsakmttypes.h.
            (
                "capability",
                (2 << 12) | (1 << 14) | (u64::from(self.sramecc) << 26),
            ),
            ("debug_prop", 0),
            ("sdma_fw_version", 0),
            (
                "unique_id",
                0x0ddc_0ffe_e000_0000 | u64::from(self.device_id),
            ),
        ]
    }

    /// The caches of the GPU node: (level, size in bytes, line size).
    fn caches(&self) -> [(u32, u64, u32); 3] {
        [
            (1, self.l1_bytes, 64),
            (1, self.scalar_cache_bytes, 64),
            (2, self.l2_bytes, self.l2_line),
        ]
    }
}

/// Writes `key value` lines.
fn props_text(props: &[(&str, u64)]) -> String {
    let mut s = String::new();
    for (k, v) in props {
        let _ = writeln!(s, "{k} {v}");
    }
    s
}

/// Writes the sysfs tree, `/dev` placeholders and the `lsmod` script under `root`:
/// `root/sys/devices/virtual/kfd/kfd/topology/...`, `root/sys/class/kfd/kfd` (a link, as
/// in real sysfs), `root/dev/kfd`, `root/dev/dri/renderD128`, `root/bin/lsmod`.
pub fn write(root: &Path, gpu: &GpuNode) -> io::Result<()> {
    let topo = root.join(&SYSFS_KFD[1..]).join("topology");
    std::fs::create_dir_all(topo.join("nodes"))?;
    std::fs::write(topo.join("generation_id"), "1\n")?;
    std::fs::write(
        topo.join("system_properties"),
        "platform_oem 0\nplatform_id 0\nplatform_rev 0\n",
    )?;

    // Node 0: the CPU.
    let cpu = topo.join("nodes/0");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    // SAFETY: sysconf has no preconditions.
    let host_bytes = unsafe {
        (libc::sysconf(libc::_SC_PHYS_PAGES).max(1) as u64)
            * (libc::sysconf(libc::_SC_PAGESIZE).max(1) as u64)
    };
    write_node(
        &cpu,
        0,
        "",
        &[
            ("cpu_cores_count", cores),
            ("simd_count", 0),
            ("mem_banks_count", 1),
            ("caches_count", 0),
            ("io_links_count", 1),
            ("p2p_links_count", 0),
            ("cpu_core_id_base", 0),
            ("simd_id_base", 0),
            ("max_waves_per_simd", 0),
            ("lds_size_in_kb", 0),
            ("gds_size_in_kb", 0),
            ("num_gws", 0),
            ("wave_front_size", 0),
            ("array_count", 0),
            ("simd_arrays_per_engine", 0),
            ("cu_per_simd_array", 0),
            ("simd_per_cu", 0),
            ("max_slots_scratch_cu", 0),
            ("gfx_target_version", 0),
            ("vendor_id", 0),
            ("device_id", 0),
            ("location_id", 0),
            ("domain", 0),
            ("drm_render_minor", 0),
            ("hive_id", 0),
            ("num_sdma_engines", 0),
            ("num_sdma_xgmi_engines", 0),
            ("num_sdma_queues_per_engine", 0),
            ("num_cp_queues", 0),
            ("max_engine_clk_ccompute", 2000), // ASSUMPTION: the thunk reads /proc/cpuinfo too
            ("local_mem_size", 0),
            ("fw_version", 0),
            ("capability", 0),
            ("debug_prop", 0),
            ("sdma_fw_version", 0),
            ("unique_id", 0),
        ],
    )?;
    write_bank(&cpu, 0, host_bytes, 0)?;
    write_link(&cpu, 0, 1)?;

    // Node 1: the simulated GPU.
    let gpu_dir = topo.join("nodes/1");
    let caches = gpu.caches();
    write_node(
        &gpu_dir,
        gpu.gpu_id,
        "gfx90a",
        &gpu.properties(caches.len()),
    )?;
    // Device memory, 4096-bit HBM2e interface. kfd_crat.c (kfd_fill_gpu_memory_affinity's
    // caller) reports HSA_MEM_HEAP_TYPE_FB_PUBLIC (1) when no VRAM is CPU-invisible
    // (local_mem_size_private == 0, a large BAR) and FB_PRIVATE (2) otherwise. Every
    // simulated VRAM buffer is CPU-mappable (a range of the render memfd), so PUBLIC:
    // ROCr then allocates VRAM with host access, which HIP relies on: ROCclr treats a
    // device pool the CPU may be granted access to as a large BAR and writes small
    // hipMemcpy's straight into device memory.
    write_bank(&gpu_dir, 1, gpu.vram_bytes, gpu.memory_mhz)?;
    for (i, (level, size, line)) in caches.iter().enumerate() {
        let dir = gpu_dir.join(format!("caches/{i}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("properties"),
            props_text(&[
                ("processor_id_low", GpuNode::SIMD_ID_BASE),
                ("level", u64::from(*level)),
                ("size", size / 1024),
                ("cache_line_size", u64::from(*line)),
                ("cache_lines_per_tag", 1),
                ("association", 16),
                ("latency", 1),
                // HSA cache type bits (hsakmttypes.h): Data (1) | HSACU (8).
                ("type", 1 | 8),
            ]),
        )?;
    }
    write_link(&gpu_dir, 1, 0)?;

    // Real sysfs has /sys/class/kfd/kfd -> ../../devices/virtual/kfd/kfd.
    let class = root.join(&SYSFS_CLASS_KFD[1..]);
    std::fs::create_dir_all(&class)?;
    let link = class.join("kfd");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink("../../devices/virtual/kfd/kfd", &link)?;
    }

    std::fs::create_dir_all(root.join("dev/dri"))?;
    std::fs::write(root.join("dev/kfd"), "")?;
    std::fs::write(root.join(format!("dev/dri/renderD{RENDER_MINOR}")), "")?;

    // rocminfo runs `lsmod | grep amdgpu` and stops when nothing matches.
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin)?;
    let lsmod = bin.join("lsmod");
    std::fs::write(
        &lsmod,
        "#!/bin/sh\n# gfxsim: the emulated KFD stands in for the amdgpu module.\n\
         echo 'Module                  Size  Used by'\n\
         echo 'amdgpu               9437184  0'\n",
    )?;
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&lsmod, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

fn write_node(dir: &Path, gpu_id: u32, name: &str, props: &[(&str, u64)]) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("gpu_id"), format!("{gpu_id}\n"))?;
    std::fs::write(dir.join("name"), format!("{name}\n"))?;
    std::fs::write(dir.join("properties"), props_text(props))?;
    std::fs::create_dir_all(dir.join("caches"))?;
    Ok(())
}

fn write_bank(node: &Path, heap_type: u64, size: u64, mem_clk_max: u32) -> io::Result<()> {
    let dir = node.join("mem_banks/0");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("properties"),
        props_text(&[
            ("heap_type", heap_type),
            ("size_in_bytes", size),
            ("flags", 0),
            ("width", if heap_type == 0 { 64 } else { 4096 }),
            ("mem_clk_max", u64::from(mem_clk_max)),
        ]),
    )
}

fn write_link(node: &Path, from: u32, to: u32) -> io::Result<()> {
    let dir = node.join("io_links/0");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("properties"),
        props_text(&[
            // HSA_IOLINKTYPE_PCIEXPRESS (2).
            ("type", 2),
            ("version_major", 0),
            ("version_minor", 0),
            ("node_from", u64::from(from)),
            ("node_to", u64::from(to)),
            ("weight", 20),
            ("min_latency", 0),
            ("max_latency", 0),
            ("min_bandwidth", 312),
            ("max_bandwidth", 64000),
            ("recommended_transfer_size", 0),
            ("flags", 1),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx90a_presets_become_nodes_and_others_are_refused() {
        let n = GpuNode::from_preset("mi210").unwrap();
        assert_eq!(n.compute_units, 104);
        assert_eq!(n.device_id, 0x740F);
        let props = n.properties(3);
        for key in [
            "drm_render_minor",
            "simd_per_cu",
            "simd_arrays_per_engine",
            "lds_size_in_kb",
        ] {
            assert!(
                props.iter().any(|(k, v)| *k == key && *v != 0),
                "{key} must be nonzero"
            );
        }
        let e = GpuNode::from_preset("mi300x").unwrap_err();
        assert!(e.to_string().contains("gfx942"), "{e}");
    }

    #[test]
    fn the_tree_has_the_files_the_thunk_reads() {
        let dir = std::env::temp_dir().join(format!("kmd-topo-test-{}", std::process::id()));
        let n = GpuNode::from_preset("mi250x").unwrap();
        write(&dir, &n).unwrap();
        let t = dir.join("sys/devices/virtual/kfd/kfd/topology");
        let props = std::fs::read_to_string(t.join("nodes/1/properties")).unwrap();
        assert!(props.contains("simd_count 880\n"), "{props}");
        assert!(props.contains("gfx_target_version 90010\n"));
        assert_eq!(
            std::fs::read_to_string(t.join("nodes/1/gpu_id")).unwrap(),
            "39453\n"
        );
        assert!(dir
            .join("sys/class/kfd/kfd/topology/nodes/0/properties")
            .exists());
        assert!(dir.join("bin/lsmod").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
