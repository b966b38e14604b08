//! Placing a code object's loadable image in device memory, with its relocations applied.

use super::{DeviceMemory, MemFault, MemoryError};
use crate::loader::{CodeObject, RelocKind};

/// Why a code object could not be mapped into device memory. The code object is not
/// loaded (any memory taken for it is freed again).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// Allocating the image failed.
    #[error("allocating {size:#x} bytes for the code object image: {source}")]
    Allocate {
        /// Image size.
        size: u64,
        /// The allocator's reason.
        source: MemoryError,
    },
    /// Writing the image faulted (cannot happen for a freshly allocated image; reported
    /// rather than assumed).
    #[error("writing the code object image: {0}")]
    Write(#[from] MemFault),
    /// A relocation type this loader does not implement.
    #[error("relocation at image offset {offset:#x} has type {r_type}, which is not supported (supported: R_AMDGPU_ABS64 = 3, R_AMDGPU_RELATIVE64 = 13)")]
    UnsupportedRelocation {
        /// Image address of the relocation.
        offset: u64,
        /// Its `r_type`.
        r_type: u32,
    },
    /// A relocation that patches bytes outside the image.
    #[error("relocation at image offset {offset:#x} patches 8 bytes outside the {image_size:#x}-byte image")]
    RelocationOutOfImage {
        /// Image address of the relocation.
        offset: u64,
        /// The image size.
        image_size: u64,
    },
    /// An R_AMDGPU_ABS64 relocation against a symbol this object does not define.
    #[error("relocation at image offset {offset:#x} refers to undefined symbol `{symbol}`")]
    UndefinedSymbol {
        /// Image address of the relocation.
        offset: u64,
        /// The symbol.
        symbol: String,
    },
}

/// A kernel of a loaded code object, at its device addresses.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadedKernel {
    /// The kernel name.
    pub name: String,
    /// Device address of its kernel descriptor (what an AQL packet's `kernel_object` holds).
    pub descriptor_address: u64,
    /// Device address of its first instruction.
    pub entry_address: u64,
}

/// A code object placed in device memory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadedCodeObject {
    /// Device address of image offset 0.
    pub base: u64,
    /// Bytes mapped for the image.
    pub size: u64,
    /// The kernels, in [`CodeObject::kernels`] order.
    pub kernels: Vec<LoadedKernel>,
}

impl LoadedCodeObject {
    /// The loaded kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&LoadedKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl DeviceMemory {
    /// Allocates room for `co`'s image, copies its segments in (zero-filling past each
    /// segment's file data), applies its dynamic relocations and returns where its kernels
    /// are. Free it with [`DeviceMemory::free`]`(loaded.base)`.
    pub fn load_code_object(&mut self, co: &CodeObject) -> Result<LoadedCodeObject, ImageError> {
        let image = co.image();
        let size = image.load_size.max(1);
        let base = self
            .allocate(size, image.align)
            .map_err(|source| ImageError::Allocate { size, source })?;
        match self.place(co, base, size) {
            Ok(kernels) => Ok(LoadedCodeObject {
                base,
                size,
                kernels,
            }),
            Err(e) => {
                // The allocation was made above, so freeing it cannot fail.
                let _ = self.free(base);
                Err(e)
            }
        }
    }

    fn place(
        &self,
        co: &CodeObject,
        base: u64,
        size: u64,
    ) -> Result<Vec<LoadedKernel>, ImageError> {
        for seg in &co.image().segments {
            self.write(base + seg.vaddr, &seg.data)?;
        }
        for r in co.relocations() {
            let value = match r.kind {
                RelocKind::Relative64 => base.wrapping_add_signed(r.addend),
                RelocKind::Abs64 => match r.symbol_value {
                    Some(v) => base.wrapping_add(v).wrapping_add_signed(r.addend),
                    None => {
                        return Err(ImageError::UndefinedSymbol {
                            offset: r.offset,
                            symbol: r.symbol.clone(),
                        })
                    }
                },
                RelocKind::Other(r_type) => {
                    return Err(ImageError::UnsupportedRelocation {
                        offset: r.offset,
                        r_type,
                    })
                }
            };
            if r.offset.checked_add(8).is_none_or(|end| end > size) {
                return Err(ImageError::RelocationOutOfImage {
                    offset: r.offset,
                    image_size: size,
                });
            }
            self.store_u64(base + r.offset, value)?;
        }
        Ok(co
            .kernels()
            .iter()
            .map(|k| LoadedKernel {
                name: k.name.clone(),
                descriptor_address: base + k.descriptor_address,
                entry_address: base + k.entry_address,
            })
            .collect())
    }
}
