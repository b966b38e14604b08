//! Why a code object or one of its kernels could not be translated.

use gpu_model::isa::{DecodeError, EncodeError};
use gpu_model::loader::writer::WriteError;
use gpu_model::loader::LoadError;
use gpu_model::Target;

/// A translation failure. Every variant that concerns code names the kernel and the
/// image address (`pc`) of the source instruction. Any of them makes [`crate::translate`]
/// return the original object unchanged, with the error among its diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TranslateError {
    /// The input is not a loadable code object.
    #[error("input: {0}")]
    Load(#[from] LoadError),
    /// The translated object could not be written.
    #[error("writing the translated object: {0}")]
    Write(#[from] WriteError),
    /// No rule set exists for this direction.
    #[error("translation from {guest} to {host} is not supported (supported: gfx950 -> gfx942, gfx950 -> gfx1201)")]
    UnsupportedPair {
        /// The object's processor.
        guest: Target,
        /// The requested host.
        host: Target,
    },
    /// A kernel's entry (or kernarg-preload entry) is not inside `.text`.
    #[error("kernel `{kernel}`: entry {entry:#x} is outside .text {start:#x}..{end:#x}")]
    EntryOutsideText {
        /// Kernel name.
        kernel: String,
        /// The entry address.
        entry: u64,
        /// `.text` start.
        start: u64,
        /// `.text` end.
        end: u64,
    },
    /// Two kernels share a descriptor range or an entry.
    #[error("kernels `{first}` and `{second}` overlap: {what}")]
    OverlappingKernels {
        /// One kernel.
        first: String,
        /// The other.
        second: String,
        /// Descriptors or entries.
        what: &'static str,
    },
    /// Reachable bytes do not decode on the guest.
    #[error("kernel `{kernel}` pc {pc:#x}: {source}")]
    Undecodable {
        /// Kernel name.
        kernel: String,
        /// Image address.
        pc: u64,
        /// The decoder's error.
        source: DecodeError,
    },
    /// A control transfer leaves `.text` or lands inside another instruction.
    #[error("kernel `{kernel}` pc {pc:#x}: {what} target {target:#x} {reason}")]
    BadTarget {
        /// Kernel name.
        kernel: String,
        /// The transfer's image address.
        pc: u64,
        /// `branch`, `call`, `fallthrough`, `recovered jump`.
        what: &'static str,
        /// The target address.
        target: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An indirect transfer whose target set could not be recovered statically, in a
    /// kernel whose code moves.
    #[error("kernel `{kernel}` pc {pc:#x}: `{mnemonic}` jumps to a target that could not be recovered (no s_getpc/s_add_u32/s_addc_u32 builder)")]
    UnrecoveredIndirect {
        /// Kernel name.
        kernel: String,
        /// Image address.
        pc: u64,
        /// The instruction.
        mnemonic: &'static str,
    },
    /// A guest instruction that has no host equivalent and no semantic rule.
    #[error(
        "kernel `{kernel}` pc {pc:#x}: `{text}` has no {host} equivalent and no translation rule"
    )]
    NoRule {
        /// Kernel name.
        kernel: String,
        /// Image address.
        pc: u64,
        /// The instruction as disassembled.
        text: String,
        /// The host.
        host: Target,
    },
    /// A semantic rule does not handle this form of the instruction.
    #[error("kernel `{kernel}` pc {pc:#x}: `{text}`: {reason}")]
    UnsupportedForm {
        /// Kernel name.
        kernel: String,
        /// Image address.
        pc: u64,
        /// The instruction as disassembled.
        text: String,
        /// What the rule cannot do.
        reason: &'static str,
    },
    /// Building a host instruction failed (a rule bug or an operand the host cannot hold).
    #[error("kernel `{kernel}` pc {pc:#x}: encoding the host instruction: {source}")]
    Encode {
        /// Kernel name.
        kernel: String,
        /// Image address.
        pc: u64,
        /// The encoder's error.
        source: EncodeError,
    },
    /// Scratch VGPRs do not fit the register file (256 arch VGPRs, 512 with AGPRs).
    #[error("kernel `{kernel}`: needs VGPRs up to v{need} for scratch but at most {limit} are available")]
    NoScratch {
        /// Kernel name.
        kernel: String,
        /// One past the highest VGPR needed.
        need: u32,
        /// The most arch VGPRs the kernel can have.
        limit: u32,
    },
    /// A relocated branch does not reach its target with a 16-bit SOPP offset (long
    /// branches through a scratch SGPR pair are not implemented).
    #[error(
        "kernel `{kernel}` pc {pc:#x}: branch distance {distance} bytes exceeds the SOPP range"
    )]
    BranchOutOfRange {
        /// Kernel name.
        kernel: String,
        /// Image address of the source branch.
        pc: u64,
        /// Distance in bytes.
        distance: i64,
    },
    /// The kernel needs a resource the host lacks.
    #[error("kernel `{kernel}`: {reason}")]
    Unsupported {
        /// Kernel name.
        kernel: String,
        /// What is missing (virtual-LDS sidecars, preload entry stubs, ...).
        reason: String,
    },
    /// Data in the image points into `.text`, which moves, and not every code pointer in
    /// data names a function entry (when all do, they name the functions' shared copy).
    #[error("relocation at {offset:#x} points into .text at {target:#x}: code pointers in data follow relocated code only when every one names a function symbol's entry")]
    TextPointer {
        /// The relocation's image address.
        offset: u64,
        /// Where it points.
        target: u64,
    },
}
