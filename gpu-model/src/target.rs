//! The GPU targets the project supports, and the facts about them that every layer shares.

use std::fmt;

/// An ISA family: targets within a family share instruction encodings (with per-target
/// opcode tables).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Family {
    /// GCN/CDNA encodings: gfx90a (CDNA2), gfx942 (CDNA3), gfx950 (CDNA4).
    Gfx9,
    /// RDNA4 encodings: gfx1200, gfx1201.
    Gfx12,
}

/// A concrete GPU target (a `-mcpu=` name).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// CDNA2 (MI200 series).
    Gfx90a,
    /// CDNA3 (MI300 series).
    Gfx942,
    /// CDNA4 (MI350 series).
    Gfx950,
    /// RDNA4 (Navi 44, RX 9060 XT).
    Gfx1200,
    /// RDNA4 (Navi 48, RX 9070 XT).
    Gfx1201,
}

impl Target {
    /// Every supported target, in a fixed order.
    pub const ALL: [Target; 5] = [
        Target::Gfx90a,
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1201,
    ];

    /// The LLVM processor name (`-mcpu=`).
    pub const fn name(self) -> &'static str {
        match self {
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
            Target::Gfx950 => "gfx950",
            Target::Gfx1200 => "gfx1200",
            Target::Gfx1201 => "gfx1201",
        }
    }

    /// Parses an LLVM processor name.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The ISA family whose encodings this target uses.
    pub const fn family(self) -> Family {
        match self {
            Target::Gfx90a | Target::Gfx942 | Target::Gfx950 => Family::Gfx9,
            Target::Gfx1200 | Target::Gfx1201 => Family::Gfx12,
        }
    }

    /// EF_AMDGPU_MACH value (`e_flags & 0xff`), from ../shared/CODE-OBJECT.md.
    pub const fn elf_mach(self) -> u32 {
        match self {
            Target::Gfx90a => 0x03f,
            Target::Gfx942 => 0x04c,
            Target::Gfx950 => 0x04f,
            Target::Gfx1200 => 0x048,
            Target::Gfx1201 => 0x04e,
        }
    }

    /// The target whose EF_AMDGPU_MACH is `mach`.
    pub fn from_elf_mach(mach: u32) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.elf_mach() == mach)
    }

    /// Whether scratch is architected (flat scratch base set by hardware, no
    /// PRIVATE_SEGMENT_BUFFER user SGPRs): gfx942, gfx950 and gfx12.
    pub const fn architected_flat_scratch(self) -> bool {
        !matches!(self, Target::Gfx90a)
    }

    /// Most LDS bytes one workgroup may allocate: 160 KiB on gfx950 (CDNA4), 64 KiB on
    /// gfx90a/gfx942 and on RDNA4 (whose WGP holds 128 KiB, of which a workgroup gets at
    /// most 64 KiB); the presets' `xcd.cu.lds_bytes` carry the same figures.
    pub const fn lds_bytes_per_workgroup(self) -> u32 {
        match self {
            Target::Gfx950 => 160 * 1024,
            _ => 64 * 1024,
        }
    }

    /// Whether the target has accumulation VGPRs (AGPRs) and MFMA.
    pub const fn has_agprs(self) -> bool {
        matches!(self.family(), Family::Gfx9)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_mach_ids_round_trip() {
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Some(t));
            assert_eq!(Target::from_elf_mach(t.elf_mach()), Some(t));
        }
        assert_eq!(Target::from_name("gfx1100"), None);
        assert_eq!(Target::from_elf_mach(0x41), None);
    }
}
