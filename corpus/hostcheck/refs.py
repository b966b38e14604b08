"""Python references written from the manifest's `computes` statements (one function per case).

Each takes (inputs, scalars, got): initial buffer contents by name, scalar values by name, and
the host run's outputs (used only by order-dependent cases to check invariants), and returns
the expected contents of the compared buffers.
"""
import math
import struct
from fractions import Fraction

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def fma(a, b, c):
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def fma32(a, b, c):
    return f32(fma(a, b, c))


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def s64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def bits32(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trem(a, b):
    return a - b * tdiv(a, b)


def vadd(i, s, g):
    n = s["n"]
    return {"c": [f32(i["a"][k] + i["b"][k]) if k < n else 0.0 for k in range(1000)]}


def saxpy(i, s, g):
    return {"y": [fma32(s["a"], x, y) for x, y in zip(i["x"], i["y"])]}


def daxpy(i, s, g):
    return {"y": [fma(s["a"], x, y) for x, y in zip(i["x"], i["y"])]}


def int64_math(i, s, g):
    out = []
    for x, y in zip(i["a"], i["b"]):
        d = y | 1
        sx, sd = s64(x), (y >> 3) | 1
        sh = y & 63
        out += [(x * y + (x >> 7) - (y << 13)) & M64, (x * y) >> 64, x // d, x % d,
                tdiv(sx, sd) & M64, trem(sx, sd) & M64,
                ((x << sh) | (x >> ((64 - sh) & 63))) & M64,
                ((sx >> sh) & M64) ^ (0x0123456789ABCDEF if x < y else 0xFEDCBA9876543210)]
    return {"out": out}


def reduce_lds(i, s, g):
    n = s["n"]
    return {"partial": [sum(i["in"][256 * k:min(256 * k + 256, n)]) & M32 for k in range(40)]}


def scan_wg(i, s, g):
    out = []
    for k in range(s["n"]):
        base = 256 * (k // 256)
        out.append(sum(i["in"][base:k + 1]) & M32)
    return {"out": out}


def histogram(i, s, g):
    bins = list(i["bins"])
    for v in i["in"][:s["n"]]:
        bins[v & 255] += 1
    return {"bins": bins}


def _matmul(A, B, M, N, K):
    C = []
    for r in range(M):
        for c in range(N):
            acc = 0.0
            for k in range(K):
                acc = fma32(A[r * K + k], B[k * N + c], acc)
            C.append(acc)
    return C


def matmul_naive(i, s, g):
    return {"C": _matmul(i["A"], i["B"], s["M"], s["N"], s["K"])}


def matmul_tiled(i, s, g):
    return {"C": _matmul(i["A"], i["B"], s["M"], s["N"], s["K"])}


def transpose_lds(i, s, g):
    rows, cols = s["rows"], s["cols"]
    out = list(i["out"])
    for y in range(rows):
        for x in range(cols):
            out[x * rows + y] = i["in"][y * cols + x]
    return {"out": out}


def softmax(i, s, g):
    cols = s["cols"]
    out = []
    for r in range(24):
        row = i["in"][r * cols:(r + 1) * cols]
        m = max(row)
        e = [math.exp(v - m) for v in row]
        tot = sum(e)
        out += [v / tot for v in e]
    return {"out": out}


def divergent(i, s, g):
    out = []
    for v in i["in"][:s["n"]]:
        acc = 0
        if v & 1:
            for a in range(v & 7):
                for b in range((a ^ ((v >> 3) & 3)) + 1):
                    acc = (acc + a * 3 + b + (v >> 5)) & M32
        elif v & 2:
            x = v
            while x > 1:
                x = (3 * x + 1) & M32 if x & 1 else x >> 1
                acc += 1
                if acc > 64:
                    break
        else:
            sel = (v >> 2) & 3
            if sel == 0:
                acc = (v * 7) & M32
            elif sel == 1:
                acc = v ^ 0x5A5A5A5A
            elif sel == 2:
                for k in range(5):
                    acc = (acc * 31 + (v >> k)) & M32
            else:
                acc = ~v & M32
        out.append(acc)
    return {"out": out}


def early_return(i, s, g):
    out = list(i["out"])
    for k in range(s["n"]):
        v = i["in"][k]
        if v < 0:
            continue
        if v % 3 == 0:
            out[k] = v // 3
            continue
        for b in range(8):
            if (v >> b) & 3 == 3:
                out[k] = 1000 + b
                break
        else:
            out[k] = -v
    return {"out": out}


def _mix_table(seed, rounds):
    t = [((seed * (k + 1)) ^ (k << 8)) & M32 for k in range(24)]
    h = seed
    for r in range(rounds):
        j = h % 24
        t[j] = (t[j] * 2654435761 + r) & M32
        h ^= (t[(j + 7) % 24] + (h << 5) + (h >> 2)) & M32
    return h


def _fold(a, b, c):
    sarr = [(a + k * b) & M32 for k in range(16)]
    return sarr[c & 15] ^ _mix_table(a ^ b, 3 + (c & 7)) ^ sarr[(c >> 4) & 15]


def stack_calls(i, s, g):
    out = [0] * 1024
    for k in range(s["n"]):
        v = i["in"][k]
        out[k] = (_fold(v, k, v >> 3) + _mix_table(v, 5 + (v & 15))) & M32
    return {"out": out}


def f16_packed(i, s, g):
    out = []
    for k in range(2 * s["n"]):
        x, y = i["a"][k], i["b"][k]
        p = f16(x * y)
        f = f16(fma(x, y, p))
        m = max(x, y)
        out.append(f16(f16(f + m) - (0.5 if k % 2 == 0 else 0.25)))
    return {"out": out}


def dyn_lds_cl(i, s, g):
    return {"out": [(i["in"][256 * (k // 256) + 255 - k % 256] * 3 + 1) & M32 for k in range(1024)]}


def grid3d(i, s, g):
    nx, ny, nz = s["nx"], s["ny"], s["nz"]
    out = list(i["out"])
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                idx = (z * ny + y) * nx + x
                out[2 * idx] = (x % 8) | (y % 4) << 8 | (z % 2) << 16
                out[2 * idx + 1] = (x // 8) | (y // 4) << 8 | (z // 2) << 16
    return {"out": out}


def stencil2d(i, s, g):
    w, h = s["w"], s["h"]
    a = i["in"]
    out = []
    for y in range(h):
        for x in range(w):
            v = 4 * a[y * w + x] - a[y * w + max(x - 1, 0)] - a[y * w + min(x + 1, w - 1)] \
                - a[max(y - 1, 0) * w + x] - a[min(y + 1, h - 1) * w + x]
            out.append(s32(v))
    return {"out": out}


def _wg_any(i, gx, gy, wx, wy):
    ngx = gx // wx
    out = [0] * (3 * ngx * (gy // wy))
    for y in range(gy):
        for x in range(gx):
            g = x // wx + (y // wy) * ngx
            lid = x % wx + (y % wy) * wx
            v = i["in"][x + y * gx]
            out[3 * g] += 1
            out[3 * g + 1] = (out[3 * g + 1] + v) & M32
            out[3 * g + 2] = max(out[3 * g + 2], v ^ lid)
    return {"out": out}


def wg_any_1(i, s, g):
    return _wg_any(i, 16, 1, 1, 1)


def wg_any_64(i, s, g):
    return _wg_any(i, 640, 1, 64, 1)


def wg_any_1024(i, s, g):
    return _wg_any(i, 4096, 1, 1024, 1)


def wg_any_2d(i, s, g):
    return _wg_any(i, 64, 16, 32, 8)


def wg1_serial(i, s, g):
    out = []
    for gi in range(37):
        h = 2166136261
        for j in range(gi, s["n"], 37):
            h = ((h ^ i["in"][j]) * 16777619) & M32
        out.append(h)
    return {"out": out}


def alu_loop(i, s, g):
    ou, of = [], []
    for k in range(4096):
        a = (k * 2654435761 + 1) & M32
        b = k ^ 0x9E3779B9
        x = f32((k & 1023) * 0.0009765625)
        y = 1.0
        for _ in range(s["iters"]):
            a = (a * 1664525 + 1013904223) & M32
            b ^= a >> 7
            b = ((b << 3) | (b >> 29)) & M32
            a = (a + (b & 0xFFFF)) & M32
            x = fma32(x, f32(0.999), f32(0.001))
            y = fma32(-x, y, 1.0)
            y = min(max(y, -4.0), 4.0)
        ou.append(a ^ b)
        of.append(f32(x + y))
    return {"out_u": ou, "out_f": of}


def mem_stream(i, s, g):
    return {"out": [(v * s["k"] + (j % 4) + 1) & M32 for j, v in enumerate(i["in"])]}


def bitops(i, s, g):
    out = []
    for k in range(s["n"]):
        x, y = i["a"][k], i["b"][k]
        v64 = (x << 32) | y
        sel = 0x07020500 + (k & 3)
        perm = 0
        for b in range(4):
            perm |= ((v64 >> (8 * ((sel >> (8 * b)) & 0xFF))) & 0xFF) << (8 * b)
        out += [bin(x).count("1") + (bin(y).count("1") << 8),
                32 - x.bit_length(),
                (y & -y).bit_length() - 1 if y else 32,
                int(f"{x:032b}"[::-1], 2),
                perm,
                (v64 >> (y & 31)) & M32,
                (x * y) >> 32,
                (((x >> (y & 15)) & 0xFFF) + (x & 0xFFFFFF) * (y & 0xFFFFFF)) & M32]
    return {"out": out}


def _round_half_even(v):
    return float(round(v))


def convert(i, s, g):
    out = []
    for k in range(s["n"]):
        f = i["in"][k]
        h = struct.unpack("<H", struct.pack("<e", f))[0]
        out += [int(f) & M32, int(abs(f)) & M32, bits32(float(int(f32(f * 3.0)))),
                bits32(f32(f * 1.0000001)), h, bits32(f16(f32(f * 0.5))),
                bits32(_round_half_even(f32(f * 10.0))), bits32(math.floor(f32(f * 10.0))),
                bits32(math.ceil(f32(f * 10.0))), bits32(f32(float((k * 2654435761) & M32)))]
    return {"out": out}


def fp_math(i, s, g):
    out = []
    for x in i["in"][:s["n"]]:
        out += [1 / x, math.sqrt(x), 1 / math.sqrt(x), 2 ** x, math.log2(x),
                math.sin(2 * math.pi * x / 8), math.cos(2 * math.pi * x / 8), math.exp(-x)]
    return {"out": out}


def histogram_lds(i, s, g):
    bins = list(i["bins"])
    for v in i["in"][:s["n"]]:
        bins[(v >> 4) & 63] += 1
    return {"bins": bins}


def atomic_minmax(i, s, g):
    r = list(i["r32"])
    r64 = list(i["r64"])
    for k in range(s["n"]):
        v = i["in"][k]
        u = v & M32
        r[0] = min(r[0], v)
        r[1] = max(r[1], v)
        r[2] = s32(min(r[2] & M32, u))
        r[3] = s32(max(r[3] & M32, u))
        r[4] = s32((r[4] & M32) & ((u | (1 << (k & 31))) & M32))
        r[5] = s32((r[5] & M32) | (u & 0x00F0F0F0))
        r[6] = s32((r[6] & M32) ^ u)
        r[7] = s32(r[7] - v)
        r64[0] = (r64[0] + u * 0x100000001) & M64
        r64[1] = max(r64[1], (u << 32) | k)
    return {"r32": r, "r64": r64}


def atomic_fadd(i, s, g):
    sums = list(i["sums"])
    for k in range(s["n"]):
        sums[k % 8] += i["in"][k]
    return {"sums": sums}


def kernarg_struct(i, s, g):
    tag, scale, bias, shift, mask = 5, 0.5, -100, 7, 0x0000FFFFFFFF0000
    out = []
    for k in range(s["n"]):
        v = i["in"][k] + bias + s["s"] + s["c"] + tag
        m = (((i["in"][k] & M32) << shift) & mask)
        out += [v * scale + s["f"], float(m ^ s["big"])]
    return {"out": out}


def const_table(i, s, g):
    import zlib
    d = bytes(i["data"])
    return {"out": [zlib.crc32(d[16 * k:16 * k + 16]) for k in range(s["n"])]}


def bitonic_sort(i, s, g):
    k = i["keys"]
    return {"keys": [v for b in range(4) for v in sorted(k[512 * b:512 * b + 512])]}


def collatz(i, s, g):
    out = []
    for k in range(s["n"]):
        x, n = s["start"] + k, 0
        while x != 1:
            x = 3 * x + 1 if x & 1 else x >> 1
            n += 1
        out.append(n)
    return {"steps": out}


def atomic_cas(i, s, g):
    n = s["n"]
    mx = max((((k * 2654435761) & M32) << 20) ^ k for k in range(n))
    slots = g["slots"]
    ok = all((v - 1) % 16 == k and 0 < v <= n for k, v in enumerate(slots))
    ok &= (g["swapped_sum"][0] + sum(slots)) & M32 == (n * (n + 1) // 2) & M32
    return {"counter": [n], "max64": [mx], "slots": slots if ok else [None] * 16,
            "swapped_sum": g["swapped_sum"] if ok else [None]}


def _dyn_lds(i, bs, groups):
    out = []
    for gi in range(groups):
        for t in range(bs):
            out.append(f32(i["in"][2 * bs * gi + t] + i["in"][2 * bs * gi + 2 * bs - 1 - t]))
    return {"out": out}


def dyn_lds(i, s, g):
    return _dyn_lds(i, 256, 4)


def dyn_lds_1024(i, s, g):
    return _dyn_lds(i, 1024, 2)


def template_scale_f32(i, s, g):
    return {"out": [v * s["s"] - k for k, v in enumerate(i["in"])]}


def template_scale_f64(i, s, g):
    return {"out": [v * s["s"] - k for k, v in enumerate(i["in"])]}


def indirect_call(i, s, g):
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a ^ (b << 1), lambda a, b: a - b]
    return {"out": [ops[sl & 3](a, b) & M32 for sl, a, b in zip(i["sel"], i["a"], i["b"])]}


def _f(d, x):
    if d == 0:
        return (2 * x + 1) & M32
    k = [x, x ^ d, (x + d) & M32, (x * d) & M32]
    r = _f(d - 1, k[x & 3] & 0xFFFF)
    return (r + k[(r >> 1) & 3]) & M32


def recursion(i, s, g):
    return {"out": [_f(v & 7, v) for v in i["in"]]}


def device_global(i, s, g):
    t = [3, 1, 4, 1, 5, 9, 2, 6]
    return {"out": [(v * t[v & 7]) & M32 for v in i["in"]]}


def device_global_read(i, s, g):
    return {"out": [0]}


def stencil3d(i, s, g):
    nx, ny, nz = s["nx"], s["ny"], s["nz"]
    a = i["in"]
    out = []
    for z in range(nz):
        for y in range(ny):
            for x in range(nx):
                c = (z * ny + y) * nx + x
                acc = -6.0 * a[c]
                if x > 0:
                    acc += a[c - 1]
                if x + 1 < nx:
                    acc += a[c + 1]
                if y > 0:
                    acc += a[c - nx]
                if y + 1 < ny:
                    acc += a[c + nx]
                if z > 0:
                    acc += a[c - nx * ny]
                if z + 1 < nz:
                    acc += a[c + nx * ny]
                out.append(acc)
    return {"out": out}


def mandel_fixed(i, s, g):
    w, h, mi = s["w"], s["h"], s["max_iter"]
    F = 1 << 28
    out = []
    for py in range(h):
        for px in range(w):
            cr = -2 * F + tdiv(px * 3 * F, w)
            ci = -F + tdiv(py * 2 * F, h)
            zr = zi = it = 0
            while it < mi:
                zr2, zi2 = (zr * zr) >> 28, (zi * zi) >> 28
                if zr2 + zi2 > 4 * F:
                    break
                nzr = zr2 - zi2 + cr
                zi = ((2 * zr * zi) >> 28) + ci
                zr = nzr
                it += 1
            out.append(it)
    return {"out": out}


def matvec_f64(i, s, g):
    rows, cols = s["rows"], s["cols"]
    out = []
    for r in range(rows):
        acc = 0.0
        for c in range(cols):
            acc = fma(i["A"][r * cols + c], i["x"][c], acc)
        out.append(acc)
    return {"y": out}


def f16_hip(i, s, g):
    o32, o16 = [], []
    for x, y in zip(i["a"], i["b"]):
        f = f16(fma(x, y, 1.0))
        m = min(x, y)
        o16.append(f16(f - m))
        o32.append(f32(f * m))
    return {"out": o32, "out16": o16}
