//! Image instructions without a sampler (gfx90a MIMG, GFX12 VIMAGE in wave32 and wave64),
//! assembled by llvm-mc-22 and run on LINEAR images described by T#s built here from the
//! descriptor layouts AMD's ROCr writes (`resource_ai.h` for gfx9: base >> 8 in word0,
//! DATA_FORMAT word1[25:20], NUM_FORMAT word1[29:26], WIDTH/HEIGHT - 1 in word2,
//! DST_SEL/BASE_LEVEL/LAST_LEVEL/SW_MODE/TYPE in word3, DEPTH and PITCH - 1 in word4,
//! BASE_ARRAY and MAX_MIP in word5; `resource_gfx12.h` for GFX12: MAX_MIP, FORMAT,
//! BASE_LEVEL, WIDTH[1:0] in word1, WIDTH[15:2] and HEIGHT in word2, DEPTH + PITCH_MSB =
//! pitch - 1 of a 1D/2D image in word4).
//!
//! Reference: texel address `base + ((slice * slice_rows + level_row + y) * pitch + x) *
//! bytes` (gfx9 linear mip chains: levels stacked in a slice with the pitch of level 0
//! aligned to 256 bytes, addrlib), the format conversions and destination selects as for
//! buffers, out-of-range texels read as zero and are not written, atomics per the RDNA4
//! pseudocode returning the old value, `image_get_resinfo` = (width, height, depth,
//! levels) of the level.

#[path = "exec_util/asm.rs"]
mod asm;

use gpu_model::exec::{ExecCtx, FaultReason, Program, Stop, Wave};
use gpu_model::memory::DeviceMemory;
use gpu_model::{Family, Target};

/// A T# (see the module doc).
#[derive(Clone, Copy)]
struct Tex {
    base: u64,
    /// GFX9 `dfmt | nfmt << 4`, or the GFX12 format code.
    fmt: u32,
    width: u32,
    height: u32,
    depth: u32,
    pitch: u32,
    ty: u32,
    sel: [u32; 4],
    base_level: u32,
    last_level: u32,
    max_mip: u32,
    base_array: u32,
    sw_mode: u32,
}

impl Tex {
    fn new(base: u64, fmt: u32, width: u32, height: u32, pitch: u32) -> Tex {
        Tex {
            base,
            fmt,
            width,
            height,
            depth: 0,
            pitch,
            ty: 9,
            sel: [4, 5, 6, 7],
            base_level: 0,
            last_level: 0,
            max_mip: 0,
            base_array: 0,
            sw_mode: 0,
        }
    }

    fn words(&self, fam: Family) -> [u32; 8] {
        let sel = self.sel[0] | self.sel[1] << 3 | self.sel[2] << 6 | self.sel[3] << 9;
        let w0 = (self.base >> 8) as u32;
        let hi = ((self.base >> 40) & 0xff) as u32;
        let (w, h) = (self.width - 1, self.height - 1);
        match fam {
            Family::Gfx9 => [
                w0,
                hi | (self.fmt & 0xf) << 20 | (self.fmt >> 4) << 26,
                w | h << 14,
                sel | self.base_level << 12
                    | self.last_level << 16
                    | self.sw_mode << 20
                    | self.ty << 28,
                self.depth | (self.pitch - 1) << 13,
                self.base_array | self.max_mip << 28,
                0,
                0,
            ],
            _ => [
                w0,
                hi | self.max_mip << 12 | self.fmt << 17 | self.base_level << 25 | (w & 3) << 30,
                w >> 2 | h << 14,
                sel | self.last_level << 15 | self.sw_mode << 20 | self.ty << 28,
                (self.pitch - 1) & 0xffff | self.base_array << 16,
                0,
                0,
                0,
            ],
        }
    }
}

/// The format code llvm-mc-22 encodes (GFX9 `dfmt | nfmt << 4`, GFX12 unified code).
fn code(t: Target, d: &str, n: &str) -> u32 {
    let (f, soff) = match t.family() {
        Family::Gfx9 => (format!("[BUF_DATA_FORMAT_{d},BUF_NUM_FORMAT_{n}]"), "0"),
        _ => (format!("[BUF_FMT_{d}_{n}]"), "s0"),
    };
    let b = asm::assemble(
        t,
        &format!("tbuffer_load_format_x v0, off, s[0:3], {soff} format:{f}"),
    );
    let w0 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let w1 = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    match t.family() {
        Family::Gfx9 => (w0 >> 19) & 0xf | ((w0 >> 23) & 7) << 4,
        _ => (w1 >> 23) & 0x7f,
    }
}

fn set_tex(w: &mut Wave, s: usize, t: &Tex, fam: Family) {
    for (k, v) in t.words(fam).into_iter().enumerate() {
        w.set_sgpr(s + k, v);
    }
}

/// Address operand text of `n` consecutive coordinates from v4 (GFX12: NSA list).
fn vaddr(t: Target, n: usize) -> String {
    match (t.family(), n) {
        (_, 1) => "v4".into(),
        (Family::Gfx9, _) => format!("v[4:{}]", 3 + n),
        _ => format!(
            "[{}]",
            (0..n)
                .map(|k| format!("v{}", 4 + k))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn dim(t: Target, d: &str) -> String {
    match t.family() {
        Family::Gfx9 => String::new(),
        _ => format!(" dim:SQ_RSRC_IMG_{d}"),
    }
}

fn ret(t: Target) -> &'static str {
    match t.family() {
        Family::Gfx9 => "glc",
        _ => "th:TH_ATOMIC_RETURN",
    }
}

fn unorm8(b: u8) -> u32 {
    (b as f32 / 255.0).to_bits()
}

fn targets() -> Vec<(Target, u32)> {
    vec![
        (Target::Gfx90a, 64),
        (Target::Gfx1200, 32),
        (Target::Gfx1200, 64),
        (Target::Gfx1201, 32),
        (Target::Gfx1201, 64),
    ]
}

const EXEC: u64 = 0xffff_fbff_ffff_ff7f;

#[test]
fn loads_stores_and_atomics_on_2d_images() {
    for (t, wave) in targets() {
        let fam = t.family();
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x10000, 256).unwrap();
        let data: Vec<u8> = (0..0x10000u32).map(|i| asm::hash(i ^ 0x55) as u8).collect();
        mem.write(base, &data).unwrap();
        let (a_off, b_off, c_off, d_off, e_off): (usize, usize, usize, usize, usize) =
            (0x0, 0x1000, 0x2000, 0x3000, 0x4000);
        // A: 8_8_8_8 unorm, 13x7, pitch 16, BGRA selects. B: 16_16_16_16 float, 9x5,
        // pitch 12. C: 32_32 uint store target, 11x3. D: 32 uint, 14x4 (add). E: 32_32
        // uint, 16x4 (64-bit max).
        let mut a = Tex::new(base + a_off as u64, code(t, "8_8_8_8", "UNORM"), 13, 7, 16);
        a.sel = [6, 5, 4, 7];
        let b = Tex::new(
            base + b_off as u64,
            code(t, "16_16_16_16", "FLOAT"),
            9,
            5,
            12,
        );
        let c = Tex::new(base + c_off as u64, code(t, "32_32", "UINT"), 11, 3, 11);
        let d = Tex::new(base + d_off as u64, code(t, "32", "UINT"), 14, 4, 16);
        let e = Tex::new(base + e_off as u64, code(t, "32_32", "UINT"), 16, 4, 16);
        let (add, max) = match fam {
            Family::Gfx9 => ("image_atomic_add", "image_atomic_umax"),
            _ => ("image_atomic_add_uint", "image_atomic_max_uint"),
        };
        let two = vaddr(t, 2);
        let d2 = dim(t, "2D");
        let r = ret(t);
        let src = format!(
            "image_load v[10:13], {two}, s[8:15] dmask:0xf{d2}\n\
             image_load v[14:15], {two}, s[16:23] dmask:0xb{d2} d16\n\
             image_load v16, {two}, s[8:15] dmask:0x8{d2}\n\
             image_store v[20:21], {two}, s[24:31] dmask:0x3{d2}\n\
             {add} v22, {two}, s[32:39] dmask:0x1{d2} {r}\n\
             {max} v[24:25], {two}, s[40:47] dmask:0x3{d2} {r}\n\
             image_get_resinfo v[26:29], v7, s[8:15] dmask:0xf{d2}\n"
        );
        let code_bytes = asm::assemble_wave(t, wave, &src);
        let exec = if wave == 32 { EXEC & 0xffff_ffff } else { EXEC };
        let init = |v: usize, l: usize| asm::hash(5000 + 64 * v as u32 + l as u32);
        let w = asm::run_with(
            t,
            wave,
            &code_bytes,
            &mem,
            &mut [0u8; 64],
            |w: &mut Wave| {
                for (s, x) in [(8, &a), (16, &b), (24, &c), (32, &d), (40, &e)] {
                    set_tex(w, s, x, fam);
                }
                for l in 0..64 {
                    for v in 4..32 {
                        w.set_vgpr(v, l, init(v, l));
                    }
                    w.set_vgpr(4, l, l as u32 % 16);
                    w.set_vgpr(5, l, l as u32 / 16);
                    w.set_vgpr(7, l, 0);
                }
                w.set_exec(exec);
            },
        );
        let n = format!("{} w{wave}", t.name());
        let word = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
        let mut after = vec![0u8; 0x10000];
        mem.read(base, &mut after).unwrap();
        let aword = |o: usize| u32::from_le_bytes(after[o..o + 4].try_into().unwrap());
        for l in 0..wave as usize {
            let (x, y) = (l % 16, l / 16);
            let on = exec >> l & 1 != 0;
            let keep = |v: usize| init(v, l);
            // A: channels (z, y, x, w) of the texel, unorm.
            let texel_a = (x < 13 && y < 7).then(|| a_off + (y * 16 + x) * 4);
            let comp = |c: usize| texel_a.map_or(0, |o| data[o + c]);
            let want = [
                unorm8(comp(2)),
                unorm8(comp(1)),
                unorm8(comp(0)),
                unorm8(comp(3)),
            ];
            for (j, &v) in want.iter().enumerate() {
                let w_ = if on { v } else { keep(10 + j) };
                assert_eq!(w.vgpr(10 + j, l), w_, "{n} A lane {l} channel {j}");
            }
            let w_ = if on { unorm8(comp(3)) } else { keep(16) };
            assert_eq!(w.vgpr(16, l), w_, "{n} A dmask 0x8 lane {l}");
            // B d16 dmask 0xb: (x | y << 16), (w | kept high half).
            let texel_b = (x < 9 && y < 5).then(|| b_off + (y * 12 + x) * 8);
            let h = |c: usize| {
                texel_b.map_or(0, |o| {
                    u16::from_le_bytes([data[o + 2 * c], data[o + 2 * c + 1]]) as u32
                })
            };
            let (w0, w1) = if on {
                (h(0) | h(1) << 16, h(3) | (keep(15) & 0xffff_0000))
            } else {
                (keep(14), keep(15))
            };
            assert_eq!(w.vgpr(14, l), w0, "{n} B d16 lane {l}");
            assert_eq!(w.vgpr(15, l), w1, "{n} B d16 lane {l} reg 1");
            // C: stored (v20, v21) at in-range texels.
            if x < 11 && y < 3 {
                let o = c_off + (y * 11 + x) * 8;
                let want = if on {
                    [keep(20), keep(21)]
                } else {
                    [word(o), word(o + 4)]
                };
                assert_eq!([aword(o), aword(o + 4)], want, "{n} C store lane {l}");
            }
            // D: add returns the old value; out of range returns 0.
            let o = d_off + (y * 16 + x) * 4;
            if x < 14 && y < 4 {
                let old = word(o);
                let want_mem = if on { old.wrapping_add(keep(22)) } else { old };
                assert_eq!(aword(o), want_mem, "{n} D add lane {l}");
                assert_eq!(
                    w.vgpr(22, l),
                    if on { old } else { keep(22) },
                    "{n} D returned"
                );
            } else {
                assert_eq!(aword(o), word(o), "{n} D out-of-range texel untouched");
                assert_eq!(
                    w.vgpr(22, l),
                    if on { 0 } else { keep(22) },
                    "{n} D OOB returns 0"
                );
            }
            // E: 64-bit unsigned max.
            let o = e_off + (y * 16 + x) * 8;
            let old = word(o) as u64 | (word(o + 4) as u64) << 32;
            let src = keep(24) as u64 | (keep(25) as u64) << 32;
            let want = if on { old.max(src) } else { old };
            assert_eq!(
                aword(o) as u64 | (aword(o + 4) as u64) << 32,
                want,
                "{n} E max lane {l}"
            );
            if on {
                assert_eq!(
                    [w.vgpr(24, l), w.vgpr(25, l)],
                    [old as u32, (old >> 32) as u32]
                );
                // resinfo of level 0: 13 x 7, depth 1, one level.
                assert_eq!(
                    [26, 27, 28, 29].map(|v| w.vgpr(v, l)),
                    [13, 7, 1, 1],
                    "{n} resinfo"
                );
            }
        }
        // Nothing but the written texels changed in C's rows.
        for o in (c_off..c_off + 3 * 11 * 8).step_by(8) {
            let tx = (o - c_off) / 8;
            let (x, y) = (tx % 11, tx / 11);
            let l = y * 16 + x;
            if l >= wave as usize || exec >> l & 1 == 0 {
                assert_eq!(aword(o), word(o), "{n} C texel {x},{y} untouched");
            }
        }
    }
}

/// GFX9 linear mip chains, arrays, 3D images, `_pck_sgn`, resinfo of a level.
#[test]
fn gfx9_levels_layers_and_raw_loads() {
    let t = Target::Gfx90a;
    let fam = Family::Gfx9;
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x20000, 256).unwrap();
    let data: Vec<u8> = (0..0x20000u32)
        .map(|i| asm::hash(i ^ 0x1234) as u8)
        .collect();
    mem.write(base, &data).unwrap();
    // M: 32 float, 20x9, 3 levels (chain height 9 + 4 + 2 = 15 rows), base level 0.
    let mut m = Tex::new(base, code(t, "32", "FLOAT"), 20, 9, 15);
    m.max_mip = 2;
    m.last_level = 2;
    // L: 2D array 16_16 uint 6x5, pitch 8, layers 1..=3 (BASE_ARRAY 1, DEPTH 3).
    let mut arr = Tex::new(base + 0x4000, code(t, "16_16", "UINT"), 6, 5, 8);
    arr.ty = 13;
    arr.base_array = 1;
    arr.depth = 3;
    // V: 3D 32 sint 4x3x5, pitch 4.
    let mut vol = Tex::new(base + 0x8000, code(t, "32", "SINT"), 4, 3, 4);
    vol.ty = 10;
    vol.depth = 4;
    // S: 8_8_8_8 snorm 16x4 pitch 16 for image_load_pck_sgn.
    let s = Tex::new(base + 0xc000, code(t, "8_8_8_8", "SNORM"), 16, 4, 16);
    let src = "image_load_mip v10, v[4:6], s[8:15] dmask:0x1\n\
               image_load v[12:13], v[4:6], s[16:23] dmask:0x3 da\n\
               image_load v11, v[4:6], s[24:31] dmask:0x1\n\
               image_load_pck_sgn v[16:19], v[4:5], s[32:39] dmask:0xf\n\
               image_get_resinfo v[20:23], v6, s[8:15] dmask:0xf\n\
               image_get_resinfo v[24:26], v6, s[16:23] dmask:0x7\n";
    let code_bytes = asm::assemble(t, src);
    let w = asm::run_with(t, 64, &code_bytes, &mem, &mut [0u8; 64], |w: &mut Wave| {
        for (sg, x) in [(8, &m), (16, &arr), (24, &vol), (32, &s)] {
            set_tex(w, sg, x, fam);
        }
        for l in 0..64 {
            w.set_vgpr(4, l, l as u32 % 11);
            w.set_vgpr(5, l, l as u32 / 11 % 6);
            w.set_vgpr(6, l, l as u32 % 4);
        }
    });
    let word = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
    for l in 0..64 {
        let (x, y, z) = (l % 11, l / 11 % 6, l % 4);
        // M level z: pitch align(20, 64) = 64 elements; level rows 0, 9, 13; extents
        // 20x9, 10x4, 5x2; level 3 is beyond LAST_LEVEL.
        let (lw, lh, row0) = [(20, 9, 0), (10, 4, 9), (5, 2, 13), (0, 0, 0)][z];
        let want = if x < lw && y < lh && z < 3 {
            word(((row0 + y) * 64 + x) * 4)
        } else {
            0
        };
        assert_eq!(w.vgpr(10, l), want, "mip lane {l} ({x},{y}) level {z}");
        // Array: layer = 1 + z (valid up to 3), slice stride 5 rows of pitch 8.
        let want = if x < 6 && y < 5 && z < 3 {
            let o = 0x4000 + (((1 + z) * 5 + y) * 8 + x) * 4;
            [word(o) & 0xffff, word(o) >> 16]
        } else {
            [0, 0]
        };
        assert_eq!([w.vgpr(12, l), w.vgpr(13, l)], want, "array lane {l}");
        // 3D: z < 5, slice stride 3 rows.
        let want = if x < 4 && y < 3 {
            word(0x8000 + ((z * 3 + y) * 4 + x) * 4)
        } else {
            0
        };
        assert_eq!(w.vgpr(11, l), want, "3d lane {l}");
        // pck_sgn: raw bytes sign-extended (x = l % 11, y = l / 11 % 6, 4 rows).
        let o = 0xc000 + (y * 16 + x) * 4;
        for c in 0..4 {
            let want = if y < 4 {
                data[o + c] as i8 as i32 as u32
            } else {
                0
            };
            assert_eq!(w.vgpr(16 + c, l), want, "pck_sgn lane {l} c{c}");
        }
        // resinfo level z of M: (20 >> z, 9 >> z (min 1), 1, 3 levels).
        let info = [(20u32 >> z).max(1), (9u32 >> z).max(1), 1, 3];
        assert_eq!(
            [20, 21, 22, 23].map(|v| w.vgpr(v, l)),
            info,
            "resinfo lane {l}"
        );
        // resinfo of the array: 6x5 (>> z, min 1), 3 layers.
        let info = [(6u32 >> z).max(1), (5u32 >> z).max(1), 3];
        assert_eq!(
            [24, 25, 26].map(|v| w.vgpr(v, l)),
            info,
            "array resinfo lane {l}"
        );
    }
}

/// An unbound descriptor (INVALID format) loads zeros and stores nothing; a swizzled
/// tile mode is refused with a typed reason.
#[test]
fn unbound_and_swizzled_images() {
    for (t, wave) in targets() {
        let fam = t.family();
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x1000, 256).unwrap();
        mem.write(base, &[0x77; 0x1000]).unwrap();
        let tex = Tex::new(base, 0, 16, 16, 16);
        let two = vaddr(t, 2);
        let d2 = dim(t, "2D");
        let tfe = if fam == Family::Gfx9 { "" } else { " tfe" };
        let status = if fam == Family::Gfx9 {
            "v[10:13]"
        } else {
            "v[10:14]"
        };
        let src = format!(
            "image_load {status}, {two}, s[8:15] dmask:0xf{d2}{tfe}\nimage_store v[20:23], {two}, s[8:15] dmask:0xf{d2}\n"
        );
        let code_bytes = asm::assemble_wave(t, wave, &src);
        let w = asm::run_with(
            t,
            wave,
            &code_bytes,
            &mem,
            &mut [0u8; 16],
            |w: &mut Wave| {
                set_tex(w, 8, &tex, fam);
                for l in 0..64 {
                    for v in 10..24 {
                        w.set_vgpr(v, l, 0xabcd);
                    }
                    w.set_vgpr(4, l, l as u32 % 16);
                    w.set_vgpr(5, l, 0);
                }
            },
        );
        for l in 0..wave as usize {
            for v in 10..if fam == Family::Gfx9 { 14 } else { 15 } {
                assert_eq!(w.vgpr(v, l), 0, "{} unbound load lane {l} v{v}", t.name());
            }
        }
        let mut after = vec![0u8; 0x1000];
        mem.read(base, &mut after).unwrap();
        assert!(
            after.iter().all(|&b| b == 0x77),
            "{}: unbound store wrote",
            t.name()
        );
        // A bound image with SW_MODE 1: refused.
        let mut tex = Tex::new(base, code(t, "32", "UINT"), 16, 16, 16);
        tex.sw_mode = 1;
        let code_bytes = asm::assemble_wave(
            t,
            wave,
            &format!("image_load v10, {two}, s[8:15] dmask:0x1{d2}"),
        );
        let prog = Program::new(t, asm::BASE, &code_bytes);
        let mut lds = [0u8; 16];
        let mut ctx = ExecCtx {
            prog: &prog,
            mem: (&mem).into(),
            lds: &mut lds,
            observer: None,
        };
        let mut w = Wave::new(wave, asm::BASE);
        w.set_exec(u64::MAX);
        set_tex(&mut w, 8, &tex, fam);
        assert!(matches!(
            w.run(&mut ctx, 10),
            Stop::Fault(FaultReason::UnsupportedForm(_))
        ));
    }
}

/// Under a buffering memory view an image atomic is deferred to the sync point: the wave
/// waits (`Stop::SyncWait`), the sync performs it, and the re-executed instruction returns
/// the recorded old values (the coherence protocol of `memory/coherence.rs`).
#[test]
fn image_atomics_follow_the_deferred_atomic_protocol() {
    use gpu_model::memory::coherence::Coherence;
    use gpu_model::memory::MemView;
    for (t, wave) in targets() {
        let fam = t.family();
        let mut mem = DeviceMemory::new();
        let base = mem.allocate(0x1000, 256).unwrap();
        let old: Vec<u32> = (0..64).map(|l| asm::hash(l + 40)).collect();
        for (l, v) in old.iter().enumerate() {
            mem.write(base + 4 * l as u64, &v.to_le_bytes()).unwrap();
        }
        let tex = Tex::new(base, code(t, "32", "UINT"), 64, 1, 64);
        let src = format!(
            "image_atomic_xor v1, {}, s[8:15] dmask:0x1{} {}",
            vaddr(t, 2),
            dim(t, "2D"),
            ret(t)
        );
        let code_bytes = asm::assemble_wave(t, wave, &src);
        let prog = Program::new(t, asm::BASE, &code_bytes);
        let coh = Coherence::new(1);
        let mut w = Wave::new(wave, asm::BASE);
        w.set_exec(u64::MAX);
        set_tex(&mut w, 8, &tex, fam);
        for l in 0..64 {
            w.set_vgpr(1, l, 1 << (l % 32));
            w.set_vgpr(4, l, l as u32);
            w.set_vgpr(5, l, 0);
        }
        let mut lds = [0u8; 16];
        {
            let d = coh.domain(0).unwrap();
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: MemView::buffered(&mem, &d, 0, 1),
                lds: &mut lds,
                observer: None,
            };
            assert_eq!(w.run(&mut ctx, 10), Stop::SyncWait, "{}", t.name());
        }
        coh.sync(&mem);
        {
            let d = coh.domain(0).unwrap();
            let mut ctx = ExecCtx {
                prog: &prog,
                mem: MemView::buffered(&mem, &d, 0, 2),
                lds: &mut lds,
                observer: None,
            };
            assert_eq!(w.run(&mut ctx, 10), Stop::Endpgm, "{}", t.name());
        }
        for (l, &o) in old.iter().enumerate().take(wave as usize) {
            assert_eq!(w.vgpr(1, l), o, "{} returned old value lane {l}", t.name());
            let mut b = [0u8; 4];
            mem.read(base + 4 * l as u64, &mut b).unwrap();
            assert_eq!(
                u32::from_le_bytes(b),
                o ^ 1 << (l % 32),
                "{} lane {l}",
                t.name()
            );
        }
    }
}

/// The cache observer sees one record per image instruction: its kind, the texel size,
/// and the in-range lanes with their texel addresses.
#[test]
fn image_accesses_reach_the_cache_observer() {
    use gpu_model::exec::{AccessKind, MemObserver, MemRecord};
    #[derive(Default)]
    struct Seen(Vec<(AccessKind, u32, u64, u64)>);
    impl MemObserver for Seen {
        fn access(&mut self, r: &MemRecord<'_>) {
            self.0.push((r.kind, r.bytes, r.exec, r.addrs[5]));
        }
    }
    let t = Target::Gfx90a;
    let mut mem = DeviceMemory::new();
    let base = mem.allocate(0x1000, 256).unwrap();
    let tex = Tex::new(base, code(t, "32_32", "UINT"), 40, 1, 40);
    let code_bytes = asm::assemble(
        t,
        "image_load v[10:11], v[4:5], s[8:15] dmask:0x3\nimage_store v[10:11], v[4:5], s[8:15] dmask:0x3",
    );
    let prog = Program::new(t, asm::BASE, &code_bytes);
    let mut lds = [0u8; 16];
    let mut seen = Seen::default();
    let mut ctx = ExecCtx {
        prog: &prog,
        mem: (&mem).into(),
        lds: &mut lds,
        observer: Some(&mut seen),
    };
    let mut w = Wave::new(64, asm::BASE);
    w.set_exec(u64::MAX);
    set_tex(&mut w, 8, &tex, Family::Gfx9);
    for l in 0..64 {
        w.set_vgpr(4, l, l as u32);
        w.set_vgpr(5, l, 0);
    }
    assert_eq!(w.run(&mut ctx, 10), Stop::Endpgm);
    let lanes = (1u64 << 40) - 1;
    assert_eq!(
        seen.0,
        [
            (AccessKind::Load, 8, lanes, base + 40),
            (AccessKind::Store, 8, lanes, base + 40)
        ]
    );
}
