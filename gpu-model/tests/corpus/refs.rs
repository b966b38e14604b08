//! CPU references, one per corpus case, written from the manifest's `computes` statements.
// The loops mirror the index arithmetic of the `computes` statements on purpose.
#![allow(clippy::needless_range_loop)]

use super::manifest::{Buf, Inputs};
use std::collections::HashMap;

/// Expected contents of an output buffer.
#[derive(Debug, Clone)]
pub enum Exp {
    /// Integer values (compared bit-exactly after wrapping to the element type).
    Ints(Vec<i128>),
    /// Float values (compared per the case's tolerance).
    Floats(Vec<f64>),
}

pub type Out = HashMap<&'static str, Exp>;

fn ints<T: Into<i128> + Copy>(v: &[T]) -> Exp {
    Exp::Ints(v.iter().map(|&x| x.into()).collect())
}

fn floats<T: Into<f64> + Copy>(v: &[T]) -> Exp {
    Exp::Floats(v.iter().map(|&x| x.into()).collect())
}

fn out(pairs: Vec<(&'static str, Exp)>) -> Out {
    pairs.into_iter().collect()
}

fn fma32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `x` rounded once to f16 (see [`crate::manifest::f16_once`]).
fn h(x: f64) -> f64 {
    crate::manifest::f16_once(x).to_f64()
}

/// The reference of case `name`, or `None` when there is none.
pub fn reference(name: &str, i: &Inputs, got: &HashMap<String, Buf>) -> Option<Out> {
    Some(match name {
        "vadd" => {
            let (a, b, n) = (i.f32s("a"), i.f32s("b"), i.u("n") as usize);
            let c: Vec<f32> = (0..a.len())
                .map(|k| if k < n { a[k] + b[k] } else { 0.0 })
                .collect();
            out(vec![("c", floats(&c))])
        }
        "saxpy" => {
            let (a, x, y) = (i.f("a") as f32, i.f32s("x"), i.f32s("y"));
            let r: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| fma32(a, x, y)).collect();
            out(vec![("y", floats(&r))])
        }
        "daxpy" => {
            let (a, x, y) = (i.f("a"), i.f64s("x"), i.f64s("y"));
            let r: Vec<f64> = x.iter().zip(&y).map(|(&x, &y)| a.mul_add(x, y)).collect();
            out(vec![("y", floats(&r))])
        }
        "int64_math" => {
            let (a, b) = (i.u64s("a"), i.u64s("b"));
            let mut o = Vec::new();
            for (&x, &y) in a.iter().zip(&b) {
                let d = y | 1;
                let sd = ((y >> 3) as i64) | 1;
                let sh = (y & 63) as u32;
                o.push(x.wrapping_mul(y).wrapping_add(x >> 7).wrapping_sub(y << 13));
                o.push(((x as u128 * y as u128) >> 64) as u64);
                o.push(x / d);
                o.push(x % d);
                o.push((x as i64).wrapping_div(sd) as u64);
                o.push((x as i64).wrapping_rem(sd) as u64);
                o.push(x.rotate_left(sh));
                o.push(
                    ((x as i64) >> sh) as u64
                        ^ if x < y {
                            0x0123456789abcdef
                        } else {
                            0xfedcba9876543210
                        },
                );
            }
            out(vec![("out", ints(&o))])
        }
        "reduce_lds" => {
            let (v, n) = (i.u32s("in"), i.u("n") as usize);
            let p: Vec<u32> = (0..40)
                .map(|g| {
                    v[(256 * g).min(n)..(256 * g + 256).min(n)]
                        .iter()
                        .fold(0u32, |s, &x| s.wrapping_add(x))
                })
                .collect();
            out(vec![("partial", ints(&p))])
        }
        "scan_wg" => {
            let (v, n) = (i.u32s("in"), i.u("n") as usize);
            let mut o = vec![0u32; v.len()];
            for k in 0..n {
                let base = 256 * (k / 256);
                o[k] = v[base..=k].iter().fold(0u32, |s, &x| s.wrapping_add(x));
            }
            out(vec![("out", ints(&o))])
        }
        "histogram" => {
            let mut bins = i.u32s("bins");
            for &v in &i.u32s("in")[..i.u("n") as usize] {
                bins[(v & 255) as usize] += 1;
            }
            out(vec![("bins", ints(&bins))])
        }
        "histogram_lds" => {
            let mut bins = i.u32s("bins");
            for &v in &i.u32s("in")[..i.u("n") as usize] {
                bins[((v >> 4) & 63) as usize] += 1;
            }
            out(vec![("bins", ints(&bins))])
        }
        "matmul_naive" | "matmul_tiled" => {
            let (a, b) = (i.f32s("A"), i.f32s("B"));
            let (m, n, k) = (i.u("M") as usize, i.u("N") as usize, i.u("K") as usize);
            let mut c = vec![0f32; m * n];
            for r in 0..m {
                for col in 0..n {
                    let mut acc = 0f32;
                    for kk in 0..k {
                        acc = fma32(a[r * k + kk], b[kk * n + col], acc);
                    }
                    c[r * n + col] = acc;
                }
            }
            out(vec![("C", floats(&c))])
        }
        "mfma_more" => {
            let mm = |a: &[f64], b: &[f64], m: usize, k: usize, n: usize| -> Vec<f64> {
                let mut c = vec![0f64; m * n];
                for r in 0..m {
                    for col in 0..n {
                        c[r * n + col] = (0..k).map(|kk| a[r * k + kk] * b[kk * n + col]).sum();
                    }
                }
                c
            };
            let f = |n: &str| i.f64s(n);
            out(vec![
                ("c1", floats(&mm(&f("a1"), &f("b1"), 32, 4, 32))),
                ("c2", floats(&mm(&f("a2"), &f("b2"), 16, 32, 16))),
                ("c3", floats(&mm(&f("a3"), &f("b3"), 32, 16, 32))),
            ])
        }
        "mfma_f32" => {
            let (a, b, k) = (i.f32s("A"), i.f32s("B"), i.u("K") as usize);
            let mut c = vec![0f64; 1024];
            for g in 0..4 {
                for r in 0..16 {
                    for col in 0..16 {
                        c[256 * g + 16 * r + col] = (0..k)
                            .map(|kk| {
                                a[16 * k * g + r * k + kk] as f64
                                    * b[16 * k * g + 16 * kk + col] as f64
                            })
                            .sum();
                    }
                }
            }
            out(vec![("C", floats(&c))])
        }
        "transpose_lds" => {
            let (v, rows, cols) = (i.u32s("in"), i.u("rows") as usize, i.u("cols") as usize);
            let mut o = i.u32s("out");
            for y in 0..rows {
                for x in 0..cols {
                    o[x * rows + y] = v[y * cols + x];
                }
            }
            out(vec![("out", ints(&o))])
        }
        "softmax" => {
            let (v, cols) = (i.f32s("in"), i.u("cols") as usize);
            let mut o = Vec::new();
            for r in 0..24 {
                let row: Vec<f64> = v[r * cols..(r + 1) * cols]
                    .iter()
                    .map(|&x| x as f64)
                    .collect();
                let m = row.iter().cloned().fold(f64::MIN, f64::max);
                let e: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
                let t: f64 = e.iter().sum();
                o.extend(e.iter().map(|x| x / t));
            }
            out(vec![("out", floats(&o))])
        }
        "divergent" => {
            let v = i.u32s("in");
            let o: Vec<u32> = v[..i.u("n") as usize]
                .iter()
                .map(|&v| {
                    let mut acc = 0u32;
                    if v & 1 != 0 {
                        for a in 0..(v & 7) {
                            for b in 0..=(a ^ ((v >> 3) & 3)) {
                                acc = acc.wrapping_add(a * 3 + b + (v >> 5));
                            }
                        }
                    } else if v & 2 != 0 {
                        let mut x = v;
                        while x > 1 {
                            x = if x & 1 != 0 {
                                x.wrapping_mul(3).wrapping_add(1)
                            } else {
                                x >> 1
                            };
                            acc += 1;
                            if acc > 64 {
                                break;
                            }
                        }
                    } else {
                        match (v >> 2) & 3 {
                            0 => acc = v.wrapping_mul(7),
                            1 => acc = v ^ 0x5a5a5a5a,
                            2 => {
                                for k in 0..5 {
                                    acc = acc.wrapping_mul(31).wrapping_add(v >> k);
                                }
                            }
                            _ => acc = !v,
                        }
                    }
                    acc
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "early_return" => {
            let v = i.i32s("in");
            let mut o = i.i32s("out");
            for k in 0..i.u("n") as usize {
                let x = v[k];
                if x < 0 {
                    continue;
                }
                if x % 3 == 0 {
                    o[k] = x / 3;
                    continue;
                }
                o[k] = (0..8)
                    .find(|b| (x >> b) & 3 == 3)
                    .map(|b| 1000 + b)
                    .unwrap_or(-x);
            }
            out(vec![("out", ints(&o))])
        }
        "stack_calls" => {
            fn mix(seed: u32, rounds: u32) -> u32 {
                let mut t: Vec<u32> = (0..24u32)
                    .map(|k| seed.wrapping_mul(k + 1) ^ (k << 8))
                    .collect();
                let mut h = seed;
                for r in 0..rounds {
                    let j = (h % 24) as usize;
                    t[j] = t[j].wrapping_mul(2654435761).wrapping_add(r);
                    h ^= t[(j + 7) % 24].wrapping_add(h << 5).wrapping_add(h >> 2);
                }
                h
            }
            fn fold(a: u32, b: u32, c: u32) -> u32 {
                let s: Vec<u32> = (0..16u32)
                    .map(|k| a.wrapping_add(k.wrapping_mul(b)))
                    .collect();
                s[(c & 15) as usize] ^ mix(a ^ b, 3 + (c & 7)) ^ s[((c >> 4) & 15) as usize]
            }
            let v = i.u32s("in");
            let mut o = vec![0u32; 1024];
            for k in 0..i.u("n") as usize {
                let x = v[k];
                o[k] = fold(x, k as u32, x >> 3).wrapping_add(mix(x, 5 + (x & 15)));
            }
            out(vec![("out", ints(&o))])
        }
        "f16_packed" => {
            let (a, b) = (i.f64s("a"), i.f64s("b"));
            let mut o = vec![0f64; a.len()];
            for k in 0..2 * i.u("n") as usize {
                let (x, y) = (a[k], b[k]);
                let p = h(x * y);
                let f = h(x.mul_add(y, p));
                let m = x.max(y);
                o[k] = h(h(f + m) - if k % 2 == 0 { 0.5 } else { 0.25 });
            }
            out(vec![("out", floats(&o))])
        }
        "dyn_lds_cl" => {
            let v = i.u32s("in");
            let o: Vec<u32> = (0..1024)
                .map(|k| {
                    v[256 * (k / 256) + 255 - k % 256]
                        .wrapping_mul(3)
                        .wrapping_add(1)
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "grid3d" => {
            let (nx, ny, nz) = (i.u("nx"), i.u("ny"), i.u("nz"));
            let mut o = i.u32s("out");
            for z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        let idx = ((z * ny + y) * nx + x) as usize;
                        o[2 * idx] = (x % 8) | (y % 4) << 8 | (z % 2) << 16;
                        o[2 * idx + 1] = (x / 8) | (y / 4) << 8 | (z / 2) << 16;
                    }
                }
            }
            out(vec![("out", ints(&o))])
        }
        "stencil2d" => {
            let (a, w, hh) = (i.i32s("in"), i.u("w") as usize, i.u("h") as usize);
            let mut o = Vec::new();
            for y in 0..hh {
                for x in 0..w {
                    let v = 4i32
                        .wrapping_mul(a[y * w + x])
                        .wrapping_sub(a[y * w + x.saturating_sub(1)])
                        .wrapping_sub(a[y * w + (x + 1).min(w - 1)])
                        .wrapping_sub(a[y.saturating_sub(1) * w + x])
                        .wrapping_sub(a[(y + 1).min(hh - 1) * w + x]);
                    o.push(v);
                }
            }
            out(vec![("out", ints(&o))])
        }
        "wg_any_1" | "wg_any_64" | "wg_any_1024" | "wg_any_2d" => {
            let (gx, gy, wx, wy) = match name {
                "wg_any_1" => (16, 1, 1, 1),
                "wg_any_64" => (640, 1, 64, 1),
                "wg_any_1024" => (4096, 1, 1024, 1),
                _ => (64, 16, 32, 8),
            };
            let v = i.u32s("in");
            let ngx = gx / wx;
            let mut o = vec![0u32; 3 * ngx * (gy / wy)];
            for y in 0..gy {
                for x in 0..gx {
                    let g = x / wx + (y / wy) * ngx;
                    let lid = (x % wx + (y % wy) * wx) as u32;
                    let val = v[x + y * gx];
                    o[3 * g] += 1;
                    o[3 * g + 1] = o[3 * g + 1].wrapping_add(val);
                    o[3 * g + 2] = o[3 * g + 2].max(val ^ lid);
                }
            }
            out(vec![("out", ints(&o))])
        }
        "wg1_serial" => {
            let v = i.u32s("in");
            let n = i.u("n") as usize;
            let o: Vec<u32> = (0..37)
                .map(|g| {
                    let mut h = 2166136261u32;
                    for j in (g..n).step_by(37) {
                        h = (h ^ v[j]).wrapping_mul(16777619);
                    }
                    h
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "alu_loop" => {
            let iters = i.u("iters");
            let (mut ou, mut of) = (Vec::new(), Vec::new());
            for k in 0..4096u32 {
                let mut a = k.wrapping_mul(2654435761).wrapping_add(1);
                let mut b = k ^ 0x9e3779b9;
                let mut x = (k & 1023) as f32 * 0.0009765625;
                let mut y = 1.0f32;
                for _ in 0..iters {
                    a = a.wrapping_mul(1664525).wrapping_add(1013904223);
                    b ^= a >> 7;
                    b = b.rotate_left(3);
                    a = a.wrapping_add(b & 0xffff);
                    x = fma32(x, 0.999, 0.001);
                    y = fma32(-x, y, 1.0);
                    y = y.clamp(-4.0, 4.0);
                }
                ou.push(a ^ b);
                of.push(x + y);
            }
            out(vec![("out_u", ints(&ou)), ("out_f", floats(&of))])
        }
        "mem_stream" => {
            let (v, k) = (i.u32s("in"), i.u("k"));
            let o: Vec<u32> = v
                .iter()
                .enumerate()
                .map(|(j, &x)| x.wrapping_mul(k).wrapping_add((j % 4) as u32 + 1))
                .collect();
            out(vec![("out", ints(&o))])
        }
        "bitops" => {
            let (a, b) = (i.u32s("a"), i.u32s("b"));
            let mut o = Vec::new();
            for k in 0..i.u("n") as usize {
                let (x, y) = (a[k], b[k]);
                let v64 = (x as u64) << 32 | y as u64;
                let sel = 0x07020500u32 + (k as u32 & 3);
                let mut perm = 0u32;
                for bb in 0..4 {
                    perm |= (((v64 >> (8 * ((sel >> (8 * bb)) & 0xff))) & 0xff) as u32) << (8 * bb);
                }
                o.extend([
                    x.count_ones() + (y.count_ones() << 8),
                    x.leading_zeros(),
                    y.trailing_zeros(),
                    x.reverse_bits(),
                    perm,
                    (v64 >> (y & 31)) as u32,
                    ((x as u64 * y as u64) >> 32) as u32,
                    ((x >> (y & 15)) & 0xfff)
                        .wrapping_add((x & 0xffffff).wrapping_mul(y & 0xffffff)),
                ]);
            }
            out(vec![("out", ints(&o))])
        }
        "convert" => {
            let v = i.f32s("in");
            let mut o = Vec::new();
            for k in 0..i.u("n") as usize {
                let f = v[k];
                o.extend([
                    f as i32 as u32,
                    f.abs() as u32,
                    (((f * 3.0) as i32) as f32).to_bits(),
                    ((f as f64 * 1.0000001f64) as f32).to_bits(),
                    half::f16::from_f32(f).to_bits() as u32,
                    half::f16::from_f32(f * 0.5).to_f32().to_bits(),
                    (f * 10.0).round_ties_even().to_bits(),
                    (f * 10.0).floor().to_bits(),
                    (f * 10.0).ceil().to_bits(),
                    ((k as u32).wrapping_mul(2654435761) as f32).to_bits(),
                ]);
            }
            out(vec![("out", ints(&o))])
        }
        "fp_math" => {
            let v = i.f32s("in");
            let mut o = Vec::new();
            for &x in &v[..i.u("n") as usize] {
                let x = x as f64;
                let t = std::f64::consts::TAU * x / 8.0;
                o.extend([
                    1.0 / x,
                    x.sqrt(),
                    1.0 / x.sqrt(),
                    x.exp2(),
                    x.log2(),
                    t.sin(),
                    t.cos(),
                    (-x).exp(),
                ]);
            }
            out(vec![("out", floats(&o))])
        }
        "wave_reduce" | "wave_reduce_1024" | "block_reduce" => {
            let v = i.u32s("in");
            let bs = if name == "wave_reduce" { 256 } else { 1024 };
            let o: Vec<u32> = v
                .chunks(bs)
                .map(|c| {
                    c.iter().enumerate().fold(0u32, |s, (t, &x)| {
                        s.wrapping_add(if name == "block_reduce" {
                            x.wrapping_mul(t as u32 | 1)
                        } else {
                            x
                        })
                    })
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "dpp_row_scan" => {
            let v = i.u32s("in");
            let o: Vec<u32> = (0..v.len())
                .map(|k| {
                    v[16 * (k / 16)..=k]
                        .iter()
                        .fold(0u32, |s, &x| s.wrapping_add(x))
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "atomic_minmax" => {
            let v = i.i32s("in");
            let mut r = i.i32s("r32");
            let mut r64 = i.u64s("r64");
            for k in 0..i.u("n") as usize {
                let x = v[k];
                let u = x as u32;
                r[0] = r[0].min(x);
                r[1] = r[1].max(x);
                r[2] = (r[2] as u32).min(u) as i32;
                r[3] = (r[3] as u32).max(u) as i32;
                r[4] = ((r[4] as u32) & (u | (1 << (k & 31)))) as i32;
                r[5] = ((r[5] as u32) | (u & 0x00f0f0f0)) as i32;
                r[6] = ((r[6] as u32) ^ u) as i32;
                r[7] = r[7].wrapping_sub(x);
                r64[0] = r64[0].wrapping_add(u as u64 * 0x100000001);
                r64[1] = r64[1].max((u as u64) << 32 | k as u64);
            }
            out(vec![("r32", ints(&r)), ("r64", ints(&r64))])
        }
        "atomic_fadd" => {
            let v = i.f32s("in");
            let mut s = i.f32s("sums");
            for k in 0..i.u("n") as usize {
                s[k % 8] += v[k];
            }
            out(vec![("sums", floats(&s))])
        }
        "kernarg_struct" => {
            let (tag, scale, bias, shift, mask) =
                (5i64, 0.5f64, -100i64, 7u32, 0x0000ffffffff0000u64);
            let v = i.i32s("in");
            let mut o = Vec::new();
            for k in 0..i.u("n") as usize {
                let x = v[k] as i64 + bias + i.i("s") as i64 + i.i("c") as i64 + tag;
                let m = ((v[k] as u32 as u64) << shift) & mask;
                o.push((x as f64) * scale + i.f("f"));
                o.push((m ^ i.i("big") as u64) as f64);
            }
            out(vec![("out", floats(&o))])
        }
        "const_table" => {
            let d: Vec<u8> = i.bufs["data"].raw.iter().map(|&r| r as u8).collect();
            let crc = |b: &[u8]| {
                let mut c = 0xffff_ffffu32;
                for &x in b {
                    c ^= x as u32;
                    for _ in 0..8 {
                        c = if c & 1 != 0 {
                            (c >> 1) ^ 0xedb88320
                        } else {
                            c >> 1
                        };
                    }
                }
                !c
            };
            let o: Vec<u32> = (0..i.u("n") as usize)
                .map(|k| crc(&d[16 * k..16 * k + 16]))
                .collect();
            out(vec![("out", ints(&o))])
        }
        "bitonic_sort" => {
            let mut k = i.u32s("keys");
            for c in k.chunks_mut(512) {
                c.sort_unstable();
            }
            out(vec![("keys", ints(&k))])
        }
        "collatz" => {
            let o: Vec<u32> = (0..i.u("n") as u64)
                .map(|k| {
                    let (mut x, mut n) = (i.u("start") as u64 + k, 0u32);
                    while x != 1 {
                        x = if x & 1 != 0 { 3 * x + 1 } else { x >> 1 };
                        n += 1;
                    }
                    n
                })
                .collect();
            out(vec![("steps", ints(&o))])
        }
        "atomic_cas" => {
            let n = i.u("n");
            let mx = (0..n)
                .map(|k| ((k.wrapping_mul(2654435761) as u64) << 20) ^ k as u64)
                .max()
                .unwrap_or(0);
            let slots = got.get("slots")?.ints();
            let swapped = got.get("swapped_sum")?.ints();
            let ok = slots
                .iter()
                .enumerate()
                .all(|(k, &v)| v > 0 && v <= n as i128 && (v - 1) % 16 == k as i128)
                && (swapped[0] + slots.iter().sum::<i128>()) as u32
                    == (n as u64 * (n as u64 + 1) / 2) as u32;
            let poison = Exp::Ints(vec![-1; 16]);
            out(vec![
                ("counter", ints(&[n])),
                ("max64", ints(&[mx])),
                (
                    "slots",
                    if ok {
                        Exp::Ints(slots.clone())
                    } else {
                        poison.clone()
                    },
                ),
                ("swapped_sum", if ok { Exp::Ints(swapped) } else { poison }),
            ])
        }
        "dyn_lds" | "dyn_lds_1024" => {
            let v = i.f32s("in");
            let (bs, groups) = if name == "dyn_lds" {
                (256, 4)
            } else {
                (1024, 2)
            };
            let mut o = Vec::new();
            for g in 0..groups {
                for t in 0..bs {
                    o.push(v[2 * bs * g + t] + v[2 * bs * g + 2 * bs - 1 - t]);
                }
            }
            out(vec![("out", floats(&o))])
        }
        "template_scale_f32" => {
            let v = i.f32s("in");
            let s = i.f("s") as f32;
            let o: Vec<f32> = v
                .iter()
                .enumerate()
                .map(|(k, &x)| x.mul_add(s, -(k as f32)))
                .collect();
            out(vec![("out", floats(&o))])
        }
        "template_scale_f64" => {
            let v = i.f64s("in");
            let s = i.f("s");
            let o: Vec<f64> = v
                .iter()
                .enumerate()
                .map(|(k, &x)| x.mul_add(s, -(k as f64)))
                .collect();
            out(vec![("out", floats(&o))])
        }
        "indirect_call" => {
            let (sel, a, b) = (i.u32s("sel"), i.u32s("a"), i.u32s("b"));
            let o: Vec<u32> = (0..sel.len())
                .map(|k| match sel[k] & 3 {
                    0 => a[k].wrapping_add(b[k]),
                    1 => a[k].wrapping_mul(b[k]),
                    2 => a[k] ^ (b[k] << 1),
                    _ => a[k].wrapping_sub(b[k]),
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "recursion" => {
            fn f(d: u32, x: u32) -> u32 {
                if d == 0 {
                    return x.wrapping_mul(2).wrapping_add(1);
                }
                let k = [x, x ^ d, x.wrapping_add(d), x.wrapping_mul(d)];
                let r = f(d - 1, k[(x & 3) as usize] & 0xffff);
                r.wrapping_add(k[((r >> 1) & 3) as usize])
            }
            let o: Vec<u32> = i.u32s("in").iter().map(|&v| f(v & 7, v)).collect();
            out(vec![("out", ints(&o))])
        }
        "device_global" => {
            let t = [3u32, 1, 4, 1, 5, 9, 2, 6];
            let o: Vec<u32> = i
                .u32s("in")
                .iter()
                .map(|&v| v.wrapping_mul(t[(v & 7) as usize]))
                .collect();
            out(vec![("out", ints(&o))])
        }
        "device_global_read" => out(vec![("out", ints(&[0u32]))]),
        "stencil3d" => {
            let a = i.f32s("in");
            let (nx, ny, nz) = (i.u("nx") as usize, i.u("ny") as usize, i.u("nz") as usize);
            let mut o = Vec::new();
            for z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        let c = (z * ny + y) * nx + x;
                        let mut acc = -6.0 * a[c];
                        if x > 0 {
                            acc += a[c - 1];
                        }
                        if x + 1 < nx {
                            acc += a[c + 1];
                        }
                        if y > 0 {
                            acc += a[c - nx];
                        }
                        if y + 1 < ny {
                            acc += a[c + nx];
                        }
                        if z > 0 {
                            acc += a[c - nx * ny];
                        }
                        if z + 1 < nz {
                            acc += a[c + nx * ny];
                        }
                        o.push(acc);
                    }
                }
            }
            out(vec![("out", floats(&o))])
        }
        "mandel_fixed" => {
            let (w, hh, mi) = (i.u("w") as i64, i.u("h") as i64, i.u("max_iter"));
            let f = 1i64 << 28;
            let mut o = Vec::new();
            for py in 0..hh {
                for px in 0..w {
                    let cr = -2 * f + (px * 3 * f) / w;
                    let ci = -f + (py * 2 * f) / hh;
                    let (mut zr, mut zi, mut it) = (0i64, 0i64, 0u32);
                    while it < mi {
                        let (zr2, zi2) = ((zr * zr) >> 28, (zi * zi) >> 28);
                        if zr2 + zi2 > 4 * f {
                            break;
                        }
                        let nzr = zr2 - zi2 + cr;
                        zi = ((2 * zr * zi) >> 28) + ci;
                        zr = nzr;
                        it += 1;
                    }
                    o.push(it);
                }
            }
            out(vec![("out", ints(&o))])
        }
        "matvec_f64" => {
            let (a, x) = (i.f64s("A"), i.f64s("x"));
            let (rows, cols) = (i.u("rows") as usize, i.u("cols") as usize);
            let o: Vec<f64> = (0..rows)
                .map(|r| (0..cols).fold(0.0, |acc, c| a[r * cols + c].mul_add(x[c], acc)))
                .collect();
            out(vec![("y", floats(&o))])
        }
        "f16_hip" => {
            let (a, b) = (i.f64s("a"), i.f64s("b"));
            let (mut o32, mut o16) = (Vec::new(), Vec::new());
            for (&x, &y) in a.iter().zip(&b) {
                let f = h(x.mul_add(y, 1.0));
                let m = x.min(y);
                o16.push(h(f - m));
                o32.push((f as f32 * m as f32) as f64);
            }
            out(vec![("out", floats(&o32)), ("out16", floats(&o16))])
        }
        "hidden_args" | "hidden_args_uniform" => {
            let (grid, wg) = if name == "hidden_args" {
                ([100u32, 3, 2], [32u32, 2, 1])
            } else {
                ([64, 2, 2], [32, 2, 1])
            };
            let ng: [u32; 3] = std::array::from_fn(|d| grid[d].div_ceil(wg[d]));
            // ROCm's hidden_block_count: full workgroups (rounded down).
            let full: [u32; 3] = std::array::from_fn(|d| grid[d] / wg[d]);
            let mut o = vec![0u32; 16384];
            for z in 0..grid[2] {
                for y in 0..grid[1] {
                    for x in 0..grid[0] {
                        let (gx, gy, gz) = (x / wg[0], y / wg[1], z / wg[2]);
                        let (lx, ly, lz) = (x % wg[0], y % wg[1], z % wg[2]);
                        let g = gx + ng[0] * (gy + ng[1] * gz);
                        let l = lx + 32 * (ly + 2 * lz);
                        let base = (16 * (64 * g + l)) as usize;
                        let size = |d: usize, gd: u32| {
                            if gd < full[d] {
                                wg[d]
                            } else {
                                grid[d] % wg[d]
                            }
                        };
                        let vals = [
                            full[0],
                            full[1],
                            full[2],
                            wg[0],
                            wg[1],
                            wg[2],
                            grid[0] % wg[0],
                            grid[1] % wg[1],
                            grid[2] % wg[2],
                            3,
                            32,
                            grid[0],
                            grid[1],
                            grid[2],
                            size(0, gx) * 65536 + size(1, gy) * 256 + size(2, gz),
                            3,
                        ];
                        o[base..base + 16].copy_from_slice(&vals);
                    }
                }
            }
            out(vec![("out", ints(&o))])
        }
        "asm_salu" => {
            let x = i.u("x");
            let mut o = vec![0u32; 64];
            for g in 0..8u32 {
                let xg = x.wrapping_add(g);
                let lz = if xg == 0 {
                    u32::MAX
                } else {
                    xg.leading_zeros()
                };
                let vals = [
                    (0..=(xg & 15)).map(|k| k * k).sum::<u32>(),
                    (xg >> 4) & 0xff,
                    (xg << 3) ^ (xg >> 5),
                    ((xg as u64 * 0x9e3779b9) >> 32) as u32,
                    xg.max(1000),
                    xg.reverse_bits(),
                    if xg == 0 {
                        u32::MAX
                    } else {
                        xg.trailing_zeros()
                    },
                    xg.count_ones().wrapping_add(lz << 8),
                ];
                o[8 * g as usize..8 * g as usize + 8].copy_from_slice(&vals);
            }
            out(vec![("out", ints(&o))])
        }
        "asm_callret" => {
            let v = i.u32s("in");
            let o: Vec<u32> = (0..256)
                .map(|k| {
                    let t = v[k].wrapping_mul(3).wrapping_add(1);
                    if (k / 64) % 2 == 0 {
                        t.wrapping_add(100)
                    } else {
                        t ^ 0xff
                    }
                })
                .collect();
            out(vec![("out", ints(&o))])
        }
        "asm_buffer" => {
            let (src, ctr0) = (i.u32s("src"), i.u32s("ctr"));
            let mut o = vec![0u32; 16 * 128];
            let mut ctr = ctr0.clone();
            for k in 0..128usize {
                let r0 = if k <= 98 { src[k + 1] } else { 0 };
                if k < 120 {
                    let j = k ^ 5;
                    let (y, hi) = ((src[k] >> (8 * (k & 3))) & 0xff, src[k] >> 16);
                    let row = [
                        r0,
                        src[k + 3],
                        if j < 100 { src[2 * j + 2] } else { 0 },
                        if j < 100 { src[2 * j + 3] } else { 0 },
                        src[k + 1],
                        y | y << 8 | hi << 16,
                        hi as u16 as i16 as i32 as u32,
                        (src[k] & 0xffff) << 16 | 0x1234,
                        ctr0[k],
                        ctr0[128 + k],
                    ];
                    o[16 * k..16 * k + 10].copy_from_slice(&row);
                }
                ctr[k] = ctr0[k].wrapping_add(k as u32 + 1);
                if k % 2 == 0 {
                    ctr[128 + k] = src[k + 3];
                }
                ctr[256 + k] = (ctr0[256 + k] as i32).max(r0 as i32) as u32;
            }
            ctr[384] = ctr0[384].wrapping_add(128);
            out(vec![("out", ints(&o)), ("ctr", ints(&ctr))])
        }
        "asm_dpp" => {
            let x = i.u32s("in");
            let mut o = vec![0u32; 6 * 256];
            for k in 0..256usize {
                let off = k & 3 == 3;
                let m = |v: u32| if off { 0xdead_beef } else { v };
                let row = [
                    x[k ^ 7],
                    x[k ^ 1].wrapping_add(k as u32),
                    m(0),
                    m(x[(k & !7) | 3]),
                    x[k ^ 5],
                    m(x[(k & !15) | 3]),
                ];
                o[6 * k..6 * k + 6].copy_from_slice(&row);
            }
            out(vec![("out", ints(&o))])
        }
        "asm_t16" => {
            let x = i.u32s("in");
            let f = |bits: u32| half::f16::from_bits(bits as u16).to_f64();
            let b16 = |v: f64| crate::manifest::f16_once(v).to_bits() as u32;
            let mut o = vec![0u32; 8 * 256];
            for k in 0..256usize {
                let j = k ^ 1;
                let (ba, bb, bc, bd) = (x[2 * k], x[2 * k + 1], x[2 * j], x[2 * j + 1]);
                let (a, b, c, d) = (f(ba), f(bb), f(bc), f(bd));
                let row = [
                    ba | b16(b + c) << 16,
                    b16(a * d) | bd << 16,
                    (b as f32).to_bits(),
                    0x5678 | bb << 16,
                    (b < d) as u32,
                    b16(a.max(b)) | bd << 16,
                    b16(c + d) << 16,
                    b16(a * f64::from(1u32 << (k & 3))),
                ];
                o[8 * k..8 * k + 8].copy_from_slice(&row);
            }
            out(vec![("out", ints(&o))])
        }
        "asm_semaphore" => {
            let data: Vec<u32> = (0..32).map(|l| l * l + 1).collect();
            let mut o = vec![0u32; 256];
            for g in 1..8u32 {
                for l in 0..32u32 {
                    o[(32 * g + l) as usize] = l * l + 1 + g;
                }
            }
            out(vec![
                ("data", ints(&data)),
                ("flag", ints(&[1u32, 7, 7])),
                ("out", ints(&o)),
            ])
        }
        _ => return None,
    })
}

/// `asm_lanes` depends on the wave size of the variant.
pub fn asm_lanes(wave: u32) -> Out {
    let v = |j: u32| 7 * j;
    let mut o = vec![0u32; 1024];
    for i in 0..256u32 {
        let lane = i % wave;
        let wb = i - lane;
        o[4 * i as usize] = lane;
        o[4 * i as usize + 1] = v(i ^ 1);
        o[4 * i as usize + 2] = if lane == 7 { v(wb) } else { v(wb + 5) };
        o[4 * i as usize + 3] = v((i & !3) | (3 - (i & 3)));
    }
    out(vec![("out", ints(&o))])
}
