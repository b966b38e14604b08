//! Image resource descriptors (T#) of both families, decoded for the image instructions
//! without a sampler, and the texel address of LINEAR (unswizzled) images.
//!
//! GFX9 T# (ROCr `resource_ai.h`, the layout ROCr's `image_manager_ai.cpp` writes for
//! gfx9 images): base = (word0 | word1[7:0] << 32) << 8, DATA_FORMAT = word1[25:20],
//! NUM_FORMAT = word1[29:26], WIDTH = word2[13:0] + 1, HEIGHT = word2[27:14] + 1,
//! DST_SEL_X..W = word3[11:0], BASE_LEVEL = word3[15:12], LAST_LEVEL = word3[19:16],
//! SW_MODE = word3[24:20], TYPE = word3[31:28], DEPTH = word4[12:0] (depth - 1 of a 3D
//! image, the last accessible layer of an array: Mesa "Depth is the last accessible layer
//! on Gfx9"), PITCH = word4[28:13], BASE_ARRAY = word5[12:0], MAX_MIP = word5[31:28].
//!
//! GFX12 T# (ROCr `resource_gfx12.h`, `image_manager_gfx12.cpp`): base as GFX9,
//! MAX_MIP = word1[16:12], FORMAT = word1[24:17] (the unified format enumeration of the
//! buffer descriptors), BASE_LEVEL = word1[29:25], WIDTH - 1 = word1[31:30] |
//! word2[13:0] << 2, HEIGHT - 1 = word2[29:14], DST_SEL = word3[11:0], LAST_LEVEL =
//! word3[19:15], SW_MODE = word3[24:20], TYPE = word3[31:28], DEPTH = word4[13:0],
//! PITCH_MSB = word4[15:14], BASE_ARRAY = word4[28:16]; "for 1d, 2d and 2d-msaa, fields
//! DEPTH+PITCH_MSB encode pitch-1" (ROCr). A `r128` instruction reads words 0-3 only
//! (words 4-7 read as 0).
//!
//! TYPE (both; ROCr `SQ_RSRC_IMG_*`): 8 1D, 9 2D, 10 3D, 11 cube, 12 1D array, 13 2D
//! array, 14 2D MSAA, 15 2D MSAA array. SW_MODE 0 is LINEAR on both families (addrlib's
//! `ADDR_SW_LINEAR`, `ADDR3_LINEAR`).
//!
//! LINEAR layout. GFX9, from AMD's addrlib (`Lib::ComputeSurfaceLinearPadding`, the
//! driver-side mirror of the hardware layout): one slice holds the mip chain, every level
//! with the pitch of level 0, level `L` starting `sum(max(1, height >> j), j < L)` rows
//! in; with one level the pitch is PITCH + 1 elements and a slice HEIGHT rows; with more
//! levels (`epitchIsHeight`) PITCH + 1 is the slice's row count and the pitch is the
//! width aligned to 256 bytes. GFX12: 1D/2D images of one level with the encoded pitch.
//!
//! Decisions (refusals name themselves): a descriptor whose TYPE is not an image type or
//! whose format is `INVALID` is unbound (loads 0, stores and atomics do nothing, resinfo
//! 0); swizzled tile modes, MSAA types, image-only formats (5_6_5, sRGB, compressed, ...),
//! GFX12 arrays and 3D images (their pitch is not in the T#) and GFX12 mip chains
//! (addrlib3 orders levels by a tail layout not modelled here) are refused. A texel outside
//! the level's width/height/depth, a layer outside BASE_ARRAY..=DEPTH, or a level outside
//! BASE_LEVEL..=LAST_LEVEL (and beyond MAX_MIP) is out of range.

use crate::exec::format::{self, Decoded, Fmt};
use crate::exec::inst::{Img, Inst};
use crate::exec::wave::Wave;
use crate::exec::FaultReason;
use crate::Family;

/// A decoded, bound image resource.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Desc {
    base: u64,
    /// Element format.
    pub fmt: Fmt,
    /// Destination selects of the four channels (0 zero, 1 one, 4..7 x..w).
    pub sel: [u8; 4],
    /// TYPE (8..=13).
    pub ty: u8,
    pub width: u32,
    pub height: u32,
    /// DEPTH field: depth - 1 (3D) or the last layer (arrays, cube).
    pub depth: u32,
    pub base_array: u32,
    pub base_level: u32,
    pub last_level: u32,
    pub max_mip: u32,
    /// Row pitch in elements.
    pitch: u64,
    /// Rows of one slice (GFX9 mip chain height).
    slice_rows: u64,
    /// More than one level in the chain (GFX9 layout).
    chain: bool,
}

fn refuse(why: &'static str) -> FaultReason {
    FaultReason::UnsupportedForm(why)
}

/// Coordinates an address of image TYPE `ty` has (without the mip level).
pub(crate) fn coords(ty: u8) -> usize {
    match ty {
        8 => 1,
        9 | 12 => 2,
        _ => 3,
    }
}

/// Reads the T# of instruction `i`; `None` when the resource is unbound.
pub(crate) fn read(
    w: &Wave,
    i: &Inst,
    family: Family,
    target: crate::Target,
) -> Result<Option<Desc>, FaultReason> {
    let s = i.mem.sbase as usize;
    let n = if i.mem.img.has(Img::R128) { 4 } else { 8 };
    let mut d = [0u32; 8];
    for (k, v) in d.iter_mut().enumerate().take(n) {
        *v = w.sgpr(s + k);
    }
    let base = (d[0] as u64 | ((d[1] & 0xff) as u64) << 32) << 8;
    let ty = (d[3] >> 28) as u8;
    let sw_mode = (d[3] >> 20) & 0x1f;
    let sel = [0, 3, 6, 9].map(|b| ((d[3] >> b) & 7) as u8);
    let (decoded, width, height, depth, base_array, base_level, last_level, max_mip) = match family
    {
        Family::Gfx9 => {
            let dfmt = (d[1] >> 20) & 0x3f;
            let nfmt = (d[1] >> 26) & 0xf;
            let decoded = match (dfmt, nfmt) {
                (0, _) => Decoded::Null,
                (1..=14, 0..=5 | 7) => format::gfx9(dfmt, nfmt)?,
                _ => {
                    return Err(refuse(
                        "gfx9 image data/numeric format other than the buffer-style \
                             ones (image-only formats, sRGB, reserved codes)",
                    ))
                }
            };
            (
                decoded,
                (d[2] & 0x3fff) + 1,
                ((d[2] >> 14) & 0x3fff) + 1,
                d[4] & 0x1fff,
                d[5] & 0x1fff,
                (d[3] >> 12) & 0xf,
                (d[3] >> 16) & 0xf,
                d[5] >> 28,
            )
        }
        Family::Gfx12 => {
            let code = (d[1] >> 17) & 0xff;
            let decoded = match code {
                0 => Decoded::Null,
                1..=63 => {
                    let f = super::super::tbuf::gfx12_format(target, code);
                    if f == 0 {
                        return Err(refuse("gfx12 image format code without a format"));
                    }
                    format::gfx9(u32::from(f & 0xf), u32::from(f >> 4))?
                }
                _ => {
                    return Err(refuse(
                        "gfx12 image-only format (codes 64 and up: packed 16-bit, sRGB, \
                             compressed, ...)",
                    ))
                }
            };
            (
                decoded,
                ((d[1] >> 30) | (d[2] & 0x3fff) << 2) + 1,
                ((d[2] >> 14) & 0xffff) + 1,
                d[4] & 0x3fff,
                (d[4] >> 16) & 0x1fff,
                (d[1] >> 25) & 0x1f,
                (d[3] >> 15) & 0x1f,
                (d[1] >> 12) & 0x1f,
            )
        }
    };
    let Decoded::Fmt(fmt) = decoded else {
        return Ok(None);
    };
    if !(8..=15).contains(&ty) {
        return Ok(None);
    }
    if ty >= 14 {
        return Err(refuse("msaa image resource (2D MSAA types)"));
    }
    if sw_mode != 0 {
        return Err(refuse(
            "image with a swizzled tile mode (SW_MODE other than LINEAR): layout not modelled",
        ));
    }
    let bpe = fmt.bytes as u64;
    let (pitch, slice_rows, chain) = match family {
        Family::Gfx9 if max_mip == 0 => (((d[4] >> 13) & 0xffff) as u64 + 1, height as u64, false),
        Family::Gfx9 => {
            let align = 256 / bpe;
            (
                (width as u64).div_ceil(align) * align,
                ((d[4] >> 13) & 0xffff) as u64 + 1,
                true,
            )
        }
        Family::Gfx12 => {
            if ty != 8 && ty != 9 {
                return Err(refuse(
                    "gfx12 linear array, cube or 3D image (row pitch not in the T#)",
                ));
            }
            if max_mip != 0 {
                return Err(refuse(
                    "gfx12 linear image with a mip chain (layout not modelled)",
                ));
            }
            let p = (d[4] & 0x3fff) | ((d[4] >> 14) & 3) << 14;
            (p as u64 + 1, height as u64, false)
        }
    };
    Ok(Some(Desc {
        base,
        fmt,
        sel,
        ty,
        width,
        height,
        depth,
        base_array,
        base_level,
        last_level,
        max_mip,
        pitch,
        slice_rows,
        chain,
    }))
}

impl Desc {
    /// Whether `level` (absolute) is one the resource holds.
    pub(crate) fn level_ok(&self, level: u32) -> bool {
        level >= self.base_level && level <= self.last_level && level <= self.max_mip
    }

    /// Width, height and depth (3D) of `level`.
    pub(crate) fn extent(&self, level: u32) -> (u32, u32, u32) {
        let sh = |v: u32| (v.checked_shr(level).unwrap_or(0)).max(1);
        (sh(self.width), sh(self.height), sh(self.depth + 1))
    }

    /// The device address of the texel at coordinates `c` (x, then y / slice / face /
    /// z as TYPE orders them) of absolute level `level`, `None` when out of range.
    pub(crate) fn texel(&self, c: [u32; 3], level: u32) -> Option<u64> {
        if !self.level_ok(level) {
            return None;
        }
        let (lw, lh, ld) = self.extent(level);
        let layer = |s: u32| {
            let l = self.base_array.checked_add(s)?;
            (l <= self.depth).then_some(l as u64)
        };
        let (x, y, slice) = match self.ty {
            8 => (c[0], 0, Some(0)),
            9 => (c[0], c[1], Some(0)),
            10 => (c[0], c[1], (c[2] < ld).then_some(c[2] as u64)),
            12 => (c[0], 0, layer(c[1])),
            // 11 cube (face = layer) and 13 2D array.
            _ => (c[0], c[1], layer(c[2])),
        };
        let slice = slice?;
        if x >= lw || y >= lh {
            return None;
        }
        let row0: u64 = if self.chain {
            (0..level).map(|j| self.extent(j).1 as u64).sum()
        } else {
            0
        };
        let rows = if self.chain {
            self.slice_rows
        } else {
            // One level: a slice is HEIGHT rows (1D types: 1).
            if matches!(self.ty, 8 | 12) {
                1
            } else {
                self.slice_rows
            }
        };
        let row = slice * rows + row0 + y as u64;
        let elem = row * self.pitch + x as u64;
        Some(
            self.base
                .wrapping_add(elem.wrapping_mul(self.fmt.bytes as u64)),
        )
    }
}
