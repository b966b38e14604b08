//! gfx950 MFMA -> gfx1201 (wave64) WMMA, with lane fix-ups.
//!
//! GFX12 has one dense matrix shape, 16x16x16 (`v_wmma_f32_16x16x16_{f16,bf16}`, A and B
//! two VGPRs, C/D four in wave64; llvm-mc-22 `-mcpu=gfx1201 -mattr=+wavefrontsize64`).
//! The guest's f16/bf16 MFMAs are rebuilt from it. Lane layouts are the ones the models
//! execute (`gpu-model/src/exec/matrix/layout.rs`, transcribed from AMD's matrix
//! instruction calculator: `cdna`, `cdna_out`, `gfx12`, `gfx12_out`); below, a lane is
//! written `(h, b, x)` for `32h + 16b + x`, `x < 16`, and `A[i][k]` / `B[k][j]` / `D[i][j]`.
//!
//! * CDNA dense A of an `M x M x K` MFMA with `kl = K * M / 64` values per lane: `A[i][k]`
//!   in lane `M * (k / kl) + i`, bits `16 * (k % kl)` of the register tuple (B alike with
//!   `j` for `i`). CDNA 32-bit D: `D[i][j]` in register `(i / 8) * 4 + i % 4`, lane
//!   `32 * ((i / 4) % 2) + j` for M = 32, and register `i % 4`, lane `16 * (i / 4) + j`
//!   for M = 16.
//! * GFX12 wave64 16-bit A: `A[i][k]` in lane `(k / 8 % 2, k / 4 % 2, i)`, register
//!   `k / 2 % 2`, bits `16 * (k % 2)`, i.e. lane group `g = k / 4` holds k `4g .. 4g + 3`
//!   in two registers, exactly the CDNA 16x16x16 A. GFX12 wave64 32-bit D: `D[i][j]` in
//!   register `i % 4`, lane `(i / 4 % 2, i / 8, j)`.
//!
//! The sum over k is the same whatever bijection assigns the guest's k to WMMA k slots,
//! as long as A and B use the same one; every rule below moves A and B by the same
//! (register, lane group) map, so the only difference from the guest is the order of
//! the f32 additions (the f32 reordering tolerance of the gfx942 wide-K split,
//! `crate::rules`), and each WMMA adds 16 products to its C as the MFMA does.
//!
//! **16x16xK** (`v_mfma_f32_16x16x16_{f16,bf16}`, `v_mfma_f32_16x16x32_{f16,bf16}`):
//! the two D layouts differ only in which lane group holds rows 4..7 and 8..11 (CDNA:
//! groups 1 and 2; GFX12: groups 2 and 1). Feeding the WMMA an A whose rows 4..7 and
//! 8..11 are exchanged puts every `D[i][j]` (and reads every `C[i][j]`) where the CDNA
//! layout has it, so C and D stay in the guest's registers. The exchange is inside each
//! 16-lane row: `v_permlane16_b32 t, A[r], s104, s105` with the nibble selects
//! `0xba983210` / `0xfedc7654` (lane x reads lane x for x < 4 and x >= 12, x + 4 for
//! 4..7, x - 4 for 8..11; RDNA4 ISA guide V_PERMLANE16_B32 as the model implements it,
//! `exec::lane::permlane16`). K = 32 (4 registers, `kl` = 8) is two WMMAs on register
//! pairs 0-1 then 2-3, the second accumulating into the first's D (same k pairing as
//! the gfx942 split). B registers that D overlaps are copied first.
//!
//! **32x32xK** (`v_mfma_f32_32x32x8_{f16,bf16}`, `v_mfma_f32_32x32x16_{f16,bf16}`): four
//! 16x16 tiles `T[I][J]` (rows `16I..`, columns `16J..`), each one WMMA into scratch
//! VGPRs. CDNA D register `4t + r`, lane `(h, c, x)` holds row `8t + 4h + r`, column
//! `16c + x`; tile `(t / 2, c)` holds the same element in register `r`, lane
//! `(h, t % 2, x)`. So each guest D register takes half of its lanes from one tile's
//! register in place and the other half from the other tile (same `I`) across the
//! 16-lane rows of each 32-lane half (`v_permlanex16_b32` with identity selects
//! `0x76543210` / `0xfedcba98`, lane `l` reads `l ^ 16`), merged by `v_cndmask_b32`
//! under the lane mask `0xffff0000ffff0000` (lanes with bit 4 set). C goes into the tiles
//! by the inverse map. A for tile I: CDNA lane `(h, c, x)` holds row `16c + x`, k
//! `kl * h ..`; the WMMA A of tile I is built from lanes `(h, I, x)`: with `kl` = 8,
//! WMMA register r of lane group `(h, b)` takes guest register `2b + r` (moved across
//! rows when `b != I`); with `kl` = 4 (K = 8) lane groups `(h, 0)` take guest register r
//! and groups `(h, 1)` are zero (half the WMMA's k slots carry zeros in both A and B, so
//! they add exact zeros). B for tile J alike. The selects and the mask live in s104/s105
//! (the expansions' carry pair, free between guest instructions: `reencode`'s module
//! doc); scratch: 4 + 4 + 16 VGPRs.
//!
//! ASSUMPTION: EXEC is all ones at every MFMA. The permutes do not write inactive lanes
//! and read inactive source lanes as nothing (the model's `exec::lane::permlane16`), so
//! a partial EXEC would feed the WMMAs stale scratch lanes; a partial-EXEC MFMA is not
//! matched. The LLVM MFMA intrinsics are convergent and compilers emit them in
//! wave-uniform control flow, as in every corpus kernel.
//!
//! Hazard: on gfx1200/gfx1201 a WMMA whose A or B overlaps the previous WMMA's D needs
//! one independent instruction between them (AMD rocRoller's WMMA1201 observer tests:
//! one `v_nop`; an overlapping C, the accumulation chain, needs none). It cannot arise
//! here: every sequence starts with VALU permutes of A, each WMMA reads A (and in the
//! 32x32 rule B) from scratch that no WMMA writes, and the 16x16 rule reads B from a copy
//! when D overlaps it.
//!
//! Refused by name: f32/f64/integer/fp8/f8f6f4 MFMAs (GFX12 WMMA has no f32 or f64
//! inputs; the others are not done yet), the multi-block shapes, and CBSZ/ABID/BLGP.

use super::reencode::{self, Ctx, CARRY};
use crate::error::TranslateError;
use gpu_model::isa::layout::{Format, F};
use gpu_model::isa::{Inst, Op, Operand};

/// The shape of a translatable MFMA.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// M = N: 16 or 32.
    m: u16,
    /// A/B registers per lane (`kl / 2`): 2 or 4.
    ab: u16,
    /// The GFX12 WMMA.
    wmma: Op,
}

fn shape(o: Op) -> Option<Shape> {
    use Op::*;
    let (m, ab, wmma) = match o {
        VMfmaF3216x16x16F16 => (16, 2, VWmmaF3216x16x16F16),
        VMfmaF3216x16x32F16 => (16, 4, VWmmaF3216x16x16F16),
        VMfmaF3216x16x16Bf16 => (16, 2, VWmmaF3216x16x16Bf16),
        VMfmaF3216x16x32Bf16 => (16, 4, VWmmaF3216x16x16Bf16),
        VMfmaF3232x32x8F16 => (32, 2, VWmmaF3216x16x16F16),
        VMfmaF3232x32x16F16 => (32, 4, VWmmaF3216x16x16F16),
        VMfmaF3232x32x8Bf16 => (32, 2, VWmmaF3216x16x16Bf16),
        VMfmaF3232x32x16Bf16 => (32, 4, VWmmaF3216x16x16Bf16),
        _ => return None,
    };
    Some(Shape { m, ab, wmma })
}

/// `v_permlane16_b32` selects exchanging lanes 4..7 and 8..11 of every 16-lane row.
const ROWS_4_8: (u32, u32) = (0xba98_3210, 0xfedc_7654);
/// `v_permlanex16_b32` identity selects: lane `l` reads lane `l ^ 16`.
const ACROSS: (u32, u32) = (0x7654_3210, 0xfedc_ba98);
/// Lanes with bit 4 set, one half of the mask per SGPR.
const ODD_ROWS: (u32, u32) = (0xffff_0000, 0xffff_0000);

/// The gfx1201 sequence for the guest MFMA `g` (see the module doc).
pub(crate) fn lower(g: &Inst, cx: &mut Ctx<'_>) -> Result<Vec<Inst>, TranslateError> {
    let Some(s) = shape(g.op) else {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: gfx1201 has no WMMA for this shape (only f16/bf16 16x16xK and 32x32xK are translated)",
        ));
    };
    if g.format != Format::Mai
        || g.field(F::Cbsz) != 0
        || g.field(F::Abid) != 0
        || g.field(F::Blgp) != 0
    {
        return Err(unsupported(
            cx,
            g,
            "MFMA -> WMMA: cbsz/abid/blgp are not translated",
        ));
    }
    let reg = |i: usize, n: u16, cx: &Ctx<'_>| -> Result<u16, TranslateError> {
        match g.operand(i).map(|o| reencode::map_operand(g, o, cx)) {
            Some(Ok(Operand::Vgpr { first, count })) if u16::from(count) == n => Ok(first),
            Some(Err(e)) => Err(e),
            _ => Err(unsupported(
                cx,
                g,
                "MFMA -> WMMA: unexpected operand (A, B and D must be registers)",
            )),
        }
    };
    let dregs = s.m * s.m / 64;
    let (d, a, b) = (reg(0, dregs, cx)?, reg(1, s.ab, cx)?, reg(2, s.ab, cx)?);
    let c = match g.operand(3).map(|o| reencode::map_operand(g, o, cx)) {
        Some(Ok(Operand::Vgpr { first, count })) if u16::from(count) == dregs => Src::Reg(first),
        Some(Ok(o @ Operand::Inline(_))) => Src::Const(o),
        Some(Err(e)) => return Err(e),
        _ => {
            return Err(unsupported(
                cx,
                g,
                "MFMA -> WMMA: C must be registers or an inline constant",
            ))
        }
    };
    let mut e = Emit {
        out: Vec::new(),
        cx,
    };
    if s.m == 16 {
        e.tile16(s, d, a, b, c)?;
    } else {
        e.tile32(s, d, a, b, c)?;
    }
    Ok(e.out)
}

/// An MFMA C operand.
#[derive(Debug, Clone, Copy)]
enum Src {
    Reg(u16),
    Const(Operand),
}

fn unsupported(cx: &Ctx<'_>, g: &Inst, reason: &'static str) -> TranslateError {
    TranslateError::UnsupportedForm {
        kernel: cx.kernel.to_string(),
        pc: cx.pc,
        text: g.to_string(),
        reason,
    }
}

fn v(first: u16, count: u8) -> Operand {
    Operand::Vgpr { first, count }
}

fn s1(r: u16) -> Operand {
    Operand::Sgpr { first: r, count: 1 }
}

/// The host sequence being built.
struct Emit<'a, 'b> {
    out: Vec<Inst>,
    cx: &'a mut Ctx<'b>,
}

impl Emit<'_, '_> {
    /// A scratch VGPR block of `n` at `off` above the kernel's registers.
    fn scratch(&mut self, off: u16, n: u16) -> u16 {
        self.cx.scratch_used = self.cx.scratch_used.max(off + n);
        self.cx.scratch_first + off
    }

    fn push(&mut self, o: Op, f: Format, ops: &[Operand]) -> Result<(), TranslateError> {
        let mut i = reencode::build(o, f, self.cx)?;
        for (k, x) in ops.iter().enumerate() {
            i.set_operand(k, *x).map_err(|e| self.cx.enc(e))?;
        }
        self.out.push(i);
        Ok(())
    }

    /// s104/s105 = the two words.
    fn pair(&mut self, (lo, hi): (u32, u32)) -> Result<(), TranslateError> {
        for (r, x) in [(CARRY, lo), (CARRY + 1, hi)] {
            self.push(Op::SMovB32, Format::Sop1, &[s1(r), Operand::Literal(x)])?;
        }
        Ok(())
    }

    /// `v_permlane{,x}16_b32 d, src, s104, s105`.
    fn permlane(&mut self, across: bool, d: u16, src: u16) -> Result<(), TranslateError> {
        let o = if across {
            Op::VPermlanex16B32
        } else {
            Op::VPermlane16B32
        };
        self.push(
            o,
            Format::Vop3,
            &[v(d, 1), v(src, 1), s1(CARRY), s1(CARRY + 1)],
        )
    }

    /// `v_cndmask_b32 d, f, t, s[104:105]`: `t` in lanes with bit 4 set, `f` elsewhere.
    fn select(&mut self, d: u16, f: Operand, t: Operand) -> Result<(), TranslateError> {
        self.push(
            Op::VCndmaskB32,
            Format::Vop3,
            &[
                v(d, 1),
                f,
                t,
                Operand::Sgpr {
                    first: CARRY,
                    count: 2,
                },
            ],
        )
    }

    fn wmma(&mut self, o: Op, d: u16, a: u16, b: u16, c: Operand) -> Result<(), TranslateError> {
        self.push(o, Format::Vop3p, &[v(d, 4), v(a, 2), v(b, 2), c])
    }

    /// 16x16xK: A's rows 4..7 and 8..11 exchanged, one WMMA per register pair.
    fn tile16(
        &mut self,
        s: Shape,
        d: u16,
        a: u16,
        mut b: u16,
        c: Src,
    ) -> Result<(), TranslateError> {
        let t = self.scratch(0, s.ab);
        self.pair(ROWS_4_8)?;
        for r in 0..s.ab {
            self.permlane(false, t + r, a + r)?;
        }
        // A WMMA reading B registers that D (written by an earlier or the same WMMA)
        // overlaps reads a copy.
        if b < d + 4 && d < b + s.ab {
            let u = self.scratch(s.ab, s.ab);
            for r in 0..s.ab {
                self.push(Op::VMovB32, Format::Vop1, &[v(u + r, 1), v(b + r, 1)])?;
            }
            b = u;
        }
        let mut acc = match c {
            Src::Reg(r) => v(r, 4),
            Src::Const(o) => o,
        };
        for p in (0..s.ab).step_by(2) {
            self.wmma(s.wmma, d, t + p, b + p, acc)?;
            acc = v(d, 4);
        }
        Ok(())
    }

    /// 32x32xK: four 16x16 tiles (see the module doc).
    fn tile32(&mut self, s: Shape, d: u16, a: u16, b: u16, c: Src) -> Result<(), TranslateError> {
        // Scratch: A' for I = 0, 1 (2 each), B' for J = 0, 1, then the tiles T[I][J].
        let ap = self.scratch(0, 4);
        let bp = self.scratch(4, 4);
        let tiles = self.scratch(8, 16);
        let tile = |i: u16, j: u16| tiles + 4 * (2 * i + j);
        // Phase 1 (selects ACROSS): everything that crosses the 16-lane rows.
        self.pair(ACROSS)?;
        for (src, dst) in [(a, ap), (b, bp)] {
            for i in 0..2u16 {
                for r in 0..2u16 {
                    // Lane group b = 1 - i reads guest register 2(1 - i) + r across
                    // (kl = 8); with kl = 4 tile 1 reads register r across.
                    let from = if s.ab == 4 { 2 * (1 - i) + r } else { r };
                    if s.ab == 4 || i == 1 {
                        self.permlane(true, dst + 2 * i + r, src + from)?;
                    }
                }
            }
        }
        if let Src::Reg(cr) = c {
            for i in 0..2u16 {
                for j in 0..2u16 {
                    for r in 0..4u16 {
                        // T[I][J] lane group b != J: C register 4(2I + 1 - J) + r across.
                        self.permlane(true, tile(i, j) + r, cr + 4 * (2 * i + 1 - j) + r)?;
                    }
                }
            }
        }
        // Phase 2 (mask ODD_ROWS): merge the in-place halves.
        self.pair(ODD_ROWS)?;
        let zero = Operand::Inline(128);
        for (src, dst) in [(a, ap), (b, bp)] {
            for i in 0..2u16 {
                for r in 0..2u16 {
                    let w = dst + 2 * i + r;
                    if s.ab == 4 {
                        // Lanes b == I: guest register 2I + r in place.
                        let here = v(src + 2 * i + r, 1);
                        if i == 0 {
                            self.select(w, here, v(w, 1))?;
                        } else {
                            self.select(w, v(w, 1), here)?;
                        }
                    } else {
                        // Lane groups b = 0 hold the data, b = 1 zero.
                        let x = if i == 0 { v(src + r, 1) } else { v(w, 1) };
                        self.select(w, x, zero)?;
                    }
                }
            }
        }
        if let Src::Reg(cr) = c {
            for i in 0..2u16 {
                for j in 0..2u16 {
                    for r in 0..4u16 {
                        let w = tile(i, j) + r;
                        let here = v(cr + 4 * (2 * i + j) + r, 1);
                        if j == 0 {
                            self.select(w, here, v(w, 1))?;
                        } else {
                            self.select(w, v(w, 1), here)?;
                        }
                    }
                }
            }
        }
        for i in 0..2u16 {
            for j in 0..2u16 {
                let acc = match c {
                    Src::Reg(_) => v(tile(i, j), 4),
                    Src::Const(o) => o,
                };
                self.wmma(s.wmma, tile(i, j), ap + 2 * i, bp + 2 * j, acc)?;
            }
        }
        // D register 4t + r, t = 2I + u: lanes with bit 4 == u from T[I][u] in place,
        // the others from T[I][1 - u] across.
        self.pair(ACROSS)?;
        for i in 0..2u16 {
            for u in 0..2u16 {
                for r in 0..4u16 {
                    self.permlane(true, d + 4 * (2 * i + u) + r, tile(i, 1 - u) + r)?;
                }
            }
        }
        self.pair(ODD_ROWS)?;
        for i in 0..2u16 {
            for u in 0..2u16 {
                for r in 0..4u16 {
                    let w = d + 4 * (2 * i + u) + r;
                    let here = v(tile(i, u) + r, 1);
                    if u == 0 {
                        self.select(w, here, v(w, 1))?;
                    } else {
                        self.select(w, v(w, 1), here)?;
                    }
                }
            }
        }
        Ok(())
    }
}
