//! The AMDGPU ISA layer: decode, encode and disassemble machine code for gfx90a, gfx942,
//! gfx950 (GFX9 family) and gfx1200, gfx1201 (GFX12 family).
//!
//! ```
//! use gpu_model::{isa, Target};
//! // v_add_f32_e32 v0, v1, v2 (gfx942)
//! let inst = isa::decode(Target::Gfx942, &[0x01, 0x05, 0x00, 0x02], false).unwrap();
//! assert_eq!(inst.to_string(), "v_add_f32_e32 v0, v1, v2");
//! assert_eq!(inst.op, isa::Op::VAddF32);
//! let mut out = [0u8; 16];
//! assert_eq!(isa::encode(&inst, &mut out).unwrap(), 4);
//! ```
//!
//! # How the tables are made
//!
//! The bit layouts of the encoding formats are written by hand once per family in
//! [`layout`] (from ../shared/ISA-ENCODINGS.md). Everything per opcode is *learned from
//! LLVM 22* by `tools/isa-gen`, which builds probe words from those layouts and
//! disassembles them with `llvm-mc-22 --disassemble` (batched, one `[ ... ]` line per
//! probe, a sentinel line after each, crashes bisected down to "no answer"):
//!
//! 1. for every format and every opcode value, a probe with distinct register numbers in
//!    every field gives the mnemonic and, by matching printed registers back to field
//!    values, the operand syntax (which field, register class, tuple size, fixed text
//!    such as `vcc` or `off`); formats whose syntax depends on addressing bits (GLOBAL
//!    `saddr`, MUBUF `offen/idxen`, SMEM `imm/soe`) are probed once per variant;
//! 2. every scalar operand field is probed with all of its codes (and literal samples),
//!    which gives the exact text LLVM prints for each code (SGPR tuples, special
//!    registers, inline constants per operand type) and which codes it rejects; the
//!    distinct results become operand classes;
//! 3. every modifier bit is set on its own, recording whether LLVM prints it, ignores it
//!    or rejects the word, in every operand-syntax variant (e.g. GFX9 `lds` buffer forms
//!    reject the acc bit; GFX12 `s_buffer_load_*` reject a negative offset, probes and
//!    prefetches an sdata number above 31, VBUFFER words bits 48-49);
//! 4. every VOP1/VOP2/VOPC opcode (and GFX12 VOP3 opcode) is probed with a DPP16, DPP8
//!    (GFX12) and SDWA (GFX9) extension dword and each of its modifiers
//!    (`layout::EXT_PROBES`), recording which forms and modifiers LLVM accepts and prints;
//! 5. GFX9 register tuples are probed at an odd first register, recording the
//!    `..._Align2` register class LLVM names in its "Invalid register" comment;
//! 6. GFX12 VOPD words are probed for every (X, Y) opcode pair (module `vopd` of the
//!    generator), giving each half's mnemonic and operand syntax;
//! 7. GFX12 VSAMPLE opcodes are probed for every dim with and without a16, with the
//!    first 1-4 address fields set, giving the address length and how many address
//!    fields may be nonzero (module `refine` of the generator);
//! 8. gfx950 VOP3PX2 (`v_mfma_scale_*`, [`Format::Vop3px2`]): 16-byte probes, a
//!    `v_mfma_ld_scale_b32` word pair followed by an MFMA word pair with every MFMA
//!    opcode, learned like a format of its own (keyed by the MFMA's opcode);
//! 9. MFMA source tuples whose size follows the `cbsz`/`blgp` format selectors (gfx950
//!    `*_f8f6f4`: fp8/bf8 8 registers, fp6/bf6 6, fp4 4): every selector value is
//!    probed, giving the size and the operand class at that size (LLVM accepts other
//!    scalar codes at 6 and 4 registers);
//! 10. GFX12 BVH ray intersection (`image_bvh*_intersect_ray`): VIMAGE opcodes
//!     without an entry are probed in the one shape LLVM accepts (r128, dmask 0xF, dim
//!     0), with and without a16, giving each address tuple's size (module `refine`).
//! 11. what each opcode does (module `meta` of the generator): every entry's probe is
//!     given to `llvm-mca-22` as assembly text (module `mca` of `llvm-oracle`), whose
//!     scheduling model tells the issue class, how many registers the instruction
//!     defines and, by the cycles a dependent sequence takes, which registers it reads
//!     and writes (implicit SCC, VCC, EXEC and MODE included); the rest (M0, wait
//!     counters, the graphics flag, what the latencies hide) follows documented rules.
//!     Read it with [`Inst::accesses`], [`Inst::issue_class`], [`Inst::wait_counters`]
//!     and [`Inst::is_graphics`].
//!
//! The result is written to `gpu-model/src/isa/generated/` ("generated, do not edit").
//! A single cross-target [`Op`] enum has one variant per distinct mnemonic (encoding
//! suffixes `_e32`/`_e64` removed). GFX12 is learned twice (wave32 and wave64 print
//! lane masks differently). Rerun with `cargo run --release -p isa-gen` (needs
//! `llvm-mc-22`; from scratch about 25 minutes on two cores, dominated by bisecting the
//! oracle's crashes on GFX9; with `ISA_GEN_CACHE=<dir>` the oracle's answers are kept
//! between runs and a rerun takes seconds). `cargo run --release -p isa-gen -- --check`
//! regenerates in memory and fails if the checked-in tables differ (CI). Remaining
//! differences from LLVM are listed in `src/isa/KNOWN-DIFFERENCES.md`.
//!
//! Decoding ([`decode`]) identifies the format from dword0 (a 512-entry table on its top
//! nine bits says where the first-match search starts), looks the opcode up in a dense
//! per-format array (the generator writes one slot per [`Format`], so that is an index,
//! not a search), reads fields through a per-layout name-to-position map, checks the
//! operands against their classes and attaches a literal; it never allocates or panics.
//! Plain valid words take a fast path (module `plan`): per target, the tables are
//! compiled once, on first use, into one 64-byte slot per opcode and operand-syntax
//! variant (a mask of the bits that must be zero, the operand fields with a 512-bit
//! validity set per class), so a decode is an opcode index, one slot and a few masks.
//! Anything the slot does not accept (errors, extension dwords, VOPD, images) goes
//! through the full decoder, which gives the same result (tested on random words).
//! A few operands print in a symbolic syntax the tables hold one sample of (module
//! `sym`: `hwreg(...)`, GFX9 MTBUF `format:[...]`, GFX12 SMEM `offset:`/`nv`, GFX12
//! `export`, whose operands depend on its enable mask: read them with `F::ExpEn`,
//! `F::ExpTgt`, `F::ExpDone`, `F::ExpRow`, `F::ExpV0`..`F::ExpV3`; GFX12 VDSDIR
//! `ds_param_load`/`ds_direct_load`: `F::Vdst`, `F::Attr`, `F::AttrChan`,
//! `F::WaitVaVdst`, `F::WaitVmVsrc`). GFX12 VINTERP (`v_interp_*`,
//! [`Format::Vinterp`]) reads like VOP3 (`F::Src0`..`F::Src2`, `F::Neg`, `F::OpSel`,
//! `F::Clamp`) plus `F::WaitExp`. GFX12 VSAMPLE (`image_sample*`/`image_gather4*`,
//! [`Format::Vsample`], module `image`): `F::Vdata`, `F::Vaddr`..`F::Vaddr3`,
//! `F::ImgRsrc`, `F::ImgSamp`, `F::Dim`, `F::Dmask`, `F::D16`, `F::A16`, `F::R128`,
//! `F::Tfe`, `F::Lwe`, `F::Unorm`, `F::Th`, `F::Scope`, `F::Nv`. GFX9 MIMG (gfx90a,
//! [`Format::Mimg`], module `mimg`): `F::Vdata`, `F::Vaddr`, `F::Srsrc`, `F::ImgSamp`,
//! `F::Dmask`, `F::Unorm`, `F::Glc`, `F::Slc`, `F::Scc`, `F::A16`, `F::Lwe`, `F::Da`,
//! `F::D16`, `F::Acc`. GFX12 VIMAGE (`image_load*`/`image_store*`/`image_atomic_*`,
//! [`Format::Vimage`], module `image`) reads like VSAMPLE without the sampler, plus
//! `F::Vaddr4`; its BVH operations (`image_bvh_intersect_ray`,
//! `image_bvh64_intersect_ray`, `image_bvh_dual_intersect_ray`,
//! `image_bvh8_intersect_ray`) read `F::Vdata`, `F::Vaddr`..`F::Vaddr4` (tuples of
//! their own sizes, printed by [`Inst`]'s `Display`), `F::ImgRsrc` and `F::A16`.
//! gfx950 VOP3PX2 (`v_mfma_scale_f32_16x16x128_f8f6f4`, `..._32x32x64_f8f6f4`,
//! [`Format::Vop3px2`], 16 bytes) reads like MAI (`F::Vdst`, `F::Src0`..`F::Src2`,
//! `F::Cbsz`, `F::Blgp`, `F::AccCd`, `F::Acc`) plus the scale operands `F::ScaleSrc0`,
//! `F::ScaleSrc1` and their `F::OpSel` / `F::OpSelHi`; [`Inst::operand`] lists the
//! MFMA operands then the two scales. The `*_f8f6f4` MFMAs (MAI and VOP3PX2) size
//! src0 by cbsz and src1 by blgp (in [`Inst::operand`] counts and in the text).
//! [`Inst`] keeps the encoding bits, so
//! [`encode`] is exact; [`Inst::build`] and [`Inst::set_operand`] encode from typed
//! [`Operand`]s. `Display` prints the text `llvm-objdump-22 -d` prints.
//! [`Inst::instances`] builds every instruction form of a target's tables (one per
//! entry and operand-syntax variant), which `gfxsim coverage --isa` executes.
//!
//! # One vocabulary for the whole workspace
//!
//! [`Op`] is the only operation vocabulary: the executor lowers [`Inst`] once per program
//! and matches on `Op`. What the executor needs to know across names is data here, not a
//! second table there: [`Op::canonical`] maps operations that compute the same thing
//! under different names (AMD's GFX12 renames, which llvm-mc-22 accepts as aliases;
//! GLOBAL/SCRATCH onto FLAT) to one representative (module `equiv`), and [`Op::compare`]
//! reads a vector compare's condition, type and EXEC behaviour from its name.
//!
//! # Extension dwords and dual issue
//!
//! * **DPP16 / DPP8 / SDWA** (a VOP1/VOP2/VOPC word whose src0 is 250, GFX12 233/234,
//!   GFX9 249, plus one dword): [`Inst::format`] stays `Vop1`/`Vop2`/`Vopc` and
//!   [`Inst::op`] the operation; [`Inst::ext`] says which extension, [`Inst::field`] reads
//!   its controls (`F::DppCtrl`, `F::RowMask`, `F::BankMask`, `F::BoundCtrl`, `F::Fi`,
//!   `F::Dpp8Sel`, `F::SdwaDstSel`, `F::SdwaDstUnused`, `F::SdwaSrc0Sel`,
//!   `F::SdwaSrc1Sel`, `F::Src0Neg`/`Abs`/`Sext`, `F::Src1Neg`/`Abs`/`Sext`,
//!   `F::SdwaS0`, `F::SdwaS1`, SDWA `F::Clamp`/`F::Omod`, SDWA VOPC `F::Sdst`/`F::SdwaSd`).
//!   `F::Src0` keeps the marker code; [`Inst::operand`] gives the real sources and
//!   `F::ExtSrc0` the raw extension src0. GFX12 VOP3/VOP3B with src0 = 250/233/234 (12
//!   bytes, `v_add3_u32_e64_dpp`): the same, with the DPP dword third and the source
//!   modifiers in the VOP3 fields (which opcodes take it is learned like the others).
//! * **VOPD** (GFX12 wave32 dual issue, [`Format::Vopd`]): [`Inst::op`] and
//!   [`Inst::operand`] are the X half; [`Inst::vopd`] gives `(x, y)` operations,
//!   [`Inst::operand_y`] / [`Inst::num_operands_y`] / [`Inst::mnemonic_y`] the Y half
//!   and `F::OpY`, `F::Src0Y`, `F::Vsrc1Y`, `F::VdstY` its fields (`F::VdstY` reads as
//!   the whole register). One literal dword serves both halves. The VOPD opcode tables
//!   are learned by `tools/isa-gen` (module `vopd`) like every other table.
//! * Returning FLAT/GLOBAL/SCRATCH atomics (GFX9 glc/sc0, GFX12 `TH_ATOMIC_RETURN`) print
//!   their destination first; [`Inst::operand`] lists the non-returning syntax, the
//!   destination is `F::Vdst`. gfx950 `v_bitop3_*` truth tables: [`Inst::bitop3`].

mod decode;
mod encode;
mod equiv;
mod ext;
#[allow(missing_docs)]
mod generated;
mod image;
pub mod layout;
mod meta;
mod mimg;
mod operand;
mod plan;
mod print;
mod sym;
pub(crate) mod table;

pub use decode::{decode, DecodeError, Inst};
pub use encode::{encode, EncodeError};
pub use equiv::{CmpType, Compare};
pub use ext::Ext;
pub use generated::Op;
pub use layout::Format;
pub use meta::{
    samples, Access, AccessKind, Accesses, Counter, Counters, IssueClass, RegFile, Special,
};
pub use operand::Operand;

impl Op {
    /// The operation's name (the mnemonic without encoding suffix).
    pub fn name(self) -> &'static str {
        generated::OP_NAMES[self as usize]
    }
}

/// GFX12 MTBUF `format:` operand text of 7-bit format code `code` as llvm-mc-22 prints it
/// (`format:[BUF_FMT_32_FLOAT]`, `format:104`; empty for the default code 1, which LLVM
/// omits), learned by `tools/isa-gen`. `None` on GFX9 targets (their `dfmt`/`nfmt` fields
/// are separate) and for codes past 127.
pub fn mtbuf_format_text(target: crate::Target, code: u32) -> Option<&'static str> {
    decode::table(target, false)
        .mtbuf_formats
        .get(code as usize)
        .copied()
}

/// Every operation the target's opcode tables hold (GFX12: both wave sizes), sorted and
/// without duplicates: the size of the target's ISA, for coverage reports.
pub fn ops(target: crate::Target) -> Vec<Op> {
    let mut v: Vec<Op> = [true, false]
        .iter()
        .flat_map(|&w32| decode::table(target, w32).entries.iter().map(|e| e.op))
        .collect();
    v.sort();
    v.dedup();
    v
}
