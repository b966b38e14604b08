//! The executor's operation list and its GFX9 (gfx90a, gfx942, gfx950) opcode numbers.
//!
//! Why the executor has its own table: the shared decoder (`crate::isa`) was not available
//! when the execution core was written. The numbers below were read from
//! `llvm-objdump-22`/`llvm-mc-22 -show-encoding` output, and `tests/exec_decode_oracle.rs`
//! checks every instruction of every GFX9 corpus object against llvm-objdump's mnemonic.
//! When `isa::decode` lands, [`Op`] can be produced from its `Op` instead.

/// Which encoding an opcode number belongs to. VOP1/VOP2/VOPC operations also have a
/// VOP3 form whose VOP3 opcode is derived (VOPC + 0, VOP2 + 0x100, VOP1 + 0x140).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Enc {
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar compare.
    Sopc,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector, one source.
    Vop1,
    /// Vector, two sources.
    Vop2,
    /// Vector compare.
    Vopc,
    /// Vector, VOP3-only operation (or the VOP3 form of a VOP1/VOP2/VOPC one).
    Vop3,
    /// Packed / mixed precision.
    Vop3p,
    /// LDS.
    Ds,
    /// FLAT, GLOBAL and SCRATCH (one opcode table, the segment is a field).
    Flat,
    /// Untyped buffer.
    Mubuf,
    /// GFX12 dual-issue VALU pair (VOPD): `op` is the X half, [`super::Inst::y`] the Y half.
    Vopd,
}

/// On which GFX9 targets an opcode means this operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Avail {
    /// gfx90a, gfx942, gfx950.
    A,
    /// gfx90a only.
    P,
    /// gfx942 and gfx950.
    C,
    /// gfx950 only.
    N,
    /// GFX12 only: not in the GFX9 opcode tables; the GFX12 front end finds it by name.
    G,
    /// GFX9 MTBUF: decoded by hand (`super::decode`), not through the opcode tables
    /// (its opcode numbers would collide with MUBUF's).
    T,
}

macro_rules! ops {
    ($( $v:ident = $name:literal, $enc:ident, $code:literal, $avail:ident; )*) => {
        /// A machine operation (one variant per mnemonic, without `_e32`/`_e64`/`_sdwa`/
        /// `_dpp` suffixes, which are encodings of the same operation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs, non_camel_case_types)]
        #[non_exhaustive]
        pub enum Op { $($v,)* }

        impl Op {
            /// The LLVM mnemonic.
            pub const fn name(self) -> &'static str {
                match self { $(Op::$v => $name,)* }
            }
        }

        /// (operation, encoding, opcode, availability) for every GFX9 operation.
        pub(crate) const GFX9: &[(Op, Enc, u16, Avail)] = &[
            $((Op::$v, Enc::$enc, $code, Avail::$avail),)*
        ];
    };
}

mod table;
pub use table::Op;
pub(crate) use table::GFX9;
