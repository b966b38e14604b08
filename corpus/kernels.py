"""The corpus test cases: one entry per kernel test case (manifest.py renders manifest.ron).

Each case says which code object (stem) and kernel symbol to run, the arguments in order
with their sizes and initial contents, the launch shape, and in `computes` a statement
precise enough to write the CPU reference from. Init generators, roles and tolerance
classes are defined in README.md ("Manifest schema").
"""

EXACT = ("Exact",)


def flt(rel, abs_):
    return ("Float", rel, abs_)


def buf(name, elem, length, init, role):
    return {"kind": "Buffer", "name": name, "elem": elem, "len": length, "init": init, "role": role}


def sc(name, ty, value):
    return {"kind": "Scalar", "name": name, "ty": ty, "value": value}


def local(name, nbytes):
    return {"kind": "LocalPtr", "name": name, "bytes": nbytes}


def struct(name, size, align, fields):
    return {"kind": "Struct", "name": name, "size": size, "align": align, "fields": fields}


ZERO = ("Zero",)
IOTA = ("Iota",)


def fill(v):
    return ("Fill", v)


def bits(seed):
    return ("Bits", seed)


def rand(seed, lo, hi):
    return ("Rand", seed, lo, hi)


def randint(seed, lo, hi):
    return ("RandInt", seed, lo, hi)


def values(*vs):
    return ("Values",) + tuple(vs)


CUSTOM = ("Custom",)


def case(name, lang, args, grid, wg, tol, computes, stem=None, symbol=None, lds=0, private=0):
    return {"name": name, "stem": stem or name, "symbol": symbol or name, "lang": lang,
            "args": args, "grid": grid, "wg": wg, "lds": lds, "private": private, "tol": tol,
            "computes": computes}


CASES = [
    case("vadd", "OpenCL",
         [buf("a", "F32", 1000, rand(1, -1, 1), "In"), buf("b", "F32", 1000, rand(2, -1, 1), "In"),
          buf("c", "F32", 1000, ZERO, "Out"), sc("n", "U32", 1000)],
         (1000, 1, 1), (256, 1, 1), EXACT,
         "c[i] = a[i] + b[i] (f32) for i < n; the grid (1000) is not a multiple of the workgroup (256): the last workgroup is partial"),
    case("saxpy", "OpenCL",
         [sc("a", "F32", 2.5), buf("x", "F32", 4096, rand(3, -4, 4), "In"),
          buf("y", "F32", 4096, rand(4, -4, 4), "InOut"), sc("n", "U32", 4096)],
         (4096, 1, 1), (64, 1, 1), EXACT,
         "y[i] = fma(a, x[i], y[i]) (f32, one rounding) for i < n"),
    case("daxpy", "OpenCL",
         [sc("a", "F64", -1.75), buf("x", "F64", 777, rand(5, -100, 100), "In"),
          buf("y", "F64", 777, rand(6, -100, 100), "InOut"), sc("n", "U32", 777)],
         (777, 1, 1), (128, 1, 1), EXACT,
         "y[i] = fma(a, x[i], y[i]) (f64, one rounding) for i < n; grid 777 with workgroups of 128 (last one partial)"),
    case("int64_math", "OpenCL",
         [buf("a", "U64", 512, bits(7), "In"), buf("b", "U64", 512, bits(8), "In"),
          buf("out", "U64", 4096, ZERO, "Out"), sc("n", "U32", 512)],
         (512, 1, 1), (64, 1, 1), EXACT,
         "for i < n with x=a[i], y=b[i] (u64, wrapping): out[8i+0] = x*y + (x>>7) - (y<<13); "
         "out[8i+1] = high 64 bits of the 128-bit product x*y; out[8i+2] = x / (y|1); out[8i+3] = x % (y|1); "
         "with sd = ((y>>3) as i64) | 1: out[8i+4] = ((x as i64) / sd) as u64 and out[8i+5] = ((x as i64) % sd) as u64 (truncating, Rust semantics); "
         "out[8i+6] = x.rotate_left(y & 63); out[8i+7] = ((x as i64) >> (y & 63)) as u64 ^ (if x < y {0x0123456789abcdef} else {0xfedcba9876543210})"),
    case("reduce_lds", "OpenCL",
         [buf("in", "U32", 10000, rand(9, 0, 1000), "In"), buf("partial", "U32", 40, ZERO, "Out"),
          sc("n", "U32", 10000)],
         (10240, 1, 1), (256, 1, 1), EXACT,
         "partial[g] = wrapping u32 sum of in[j] for 256g <= j < min(256g + 256, n), for each of the 40 workgroups g (LDS tree reduction with barriers; workgroup size must be 256)"),
    case("scan_wg", "OpenCL",
         [buf("in", "U32", 1000, rand(10, 0, 100000), "In"), buf("out", "U32", 1000, ZERO, "Out"),
          sc("n", "U32", 1000)],
         (1024, 1, 1), (256, 1, 1), EXACT,
         "inclusive prefix sum within each workgroup of 256: out[i] = wrapping u32 sum of in[j] for 256*floor(i/256) <= j <= i, for i < n"),
    case("histogram", "OpenCL",
         [buf("in", "U32", 5000, bits(11), "In"), buf("bins", "U32", 256, ZERO, "InOut"),
          sc("n", "U32", 5000)],
         (5000, 1, 1), (128, 1, 1), EXACT,
         "bins[b] += number of i < n with (in[i] & 255) == b, using global atomic adds; grid 5000 with workgroups of 128 (last one partial)"),
    case("matmul_naive", "OpenCL",
         [buf("A", "F32", 37 * 29, rand(12, -1, 1), "In"), buf("B", "F32", 29 * 45, rand(13, -1, 1), "In"),
          buf("C", "F32", 37 * 45, ZERO, "Out"), sc("M", "U32", 37), sc("N", "U32", 45), sc("K", "U32", 29)],
         (45, 37, 1), (16, 16, 1), EXACT,
         "row-major C[M][N] = A[M][K] * B[K][N] in f32: for each row r < M, column c < N, acc = 0.0 then for k = 0..K ascending acc = fma(A[r*K+k], B[k*N+c], acc); C[r*N+c] = acc. "
         "2D grid (45, 37) = (N, M) with 16x16 workgroups, partial at both edges"),
    case("matmul_tiled", "OpenCL",
         [buf("A", "F32", 50 * 40, rand(14, -1, 1), "In"), buf("B", "F32", 40 * 70, rand(15, -1, 1), "In"),
          buf("C", "F32", 50 * 70, ZERO, "Out"), sc("M", "U32", 50), sc("N", "U32", 70), sc("K", "U32", 40)],
         (80, 64, 1), (16, 16, 1), flt(1e-6, 1e-6),
         "row-major C[M][N] = A[M][K] * B[K][N] in f32 through 16x16 LDS tiles: for each r < M, c < N, acc = 0.0 then for k = 0..K ascending acc = fma(A[r*K+k], B[k*N+c], acc) "
         "(out-of-range tile entries are zeros and leave acc unchanged up to the sign of zero); C[r*N+c] = acc. Grid covers ceil(N/16) x ceil(M/16) full workgroups (required: barriers)"),
    case("transpose_lds", "OpenCL",
         [buf("in", "U32", 50 * 70, IOTA, "In"), buf("out", "U32", 50 * 70, fill(0xFFFFFFFF), "Out"),
          sc("rows", "U32", 50), sc("cols", "U32", 70)],
         (80, 64, 1), (16, 16, 1), EXACT,
         "in is rows x cols row-major, out is cols x rows row-major: out[x*rows + y] = in[y*cols + x] for y < rows, x < cols, through a padded 16x17 LDS tile. "
         "Grid = (16*ceil(cols/16), 16*ceil(rows/16)) full workgroups (required: barriers)"),
    case("hidden_args", "Hip",
         [buf("out", "U32", 16 * 64 * 16, ZERO, "Out")],
         (100, 3, 2), (32, 2, 1), EXACT,
         "per work-item, with groups (ngx, ngy, ngz) = (ceil(100/32), ceil(3/2), ceil(2/1)) = (4, 2, 2), g = gx + ngx*(gy + ngy*gz), l = lx + 32*(ly + 2*lz), o = out + 16*(64*g + l): "
         "o[0..3] = hidden_block_count_x/y/z = the number of FULL workgroups per dimension, grid / workgroup rounded down = (3, 1, 2) (what ROCm's runtime writes: the device libraries "
         "take group_id < block_count as a full group); o[3..6] = hidden_group_size_x/y/z = (32, 2, 1); o[6..9] = hidden_remainder_x/y/z = grid % workgroup per dimension = (4, 1, 0); "
         "o[9] = hidden_grid_dims = 3; o[10] = dispatch packet workgroup_size_x = 32; o[11..14] = packet grid_size_x/y/z = (100, 3, 2); "
         "o[14] = sx*65536 + sy*256 + sz with s_d = gd < block_count_d ? group_size_d : remainder_d (this group's size as the device libraries compute it: 4 in x for gx = 3, 1 in y for gy = 1); "
         "o[15] = packet setup dimensions = 3. "
         "Work-items outside the grid do not exist (partial groups in x and y), their 16 words stay 0. Code object v5/v6 only"),
]

CASES += [
    case("softmax", "OpenCL",
         [buf("in", "F32", 24 * 300, rand(30, -8, 8), "In"), buf("out", "F32", 24 * 300, ZERO, "Out"),
          sc("cols", "U32", 300)],
         (24 * 128, 1, 1), (128, 1, 1), flt(2e-5, 1e-7),
         "24 rows of 300 f32, one workgroup of 128 per row: out[r][c] = exp(in[r][c] - m_r) * (1 / s_r) with m_r = max_c in[r][c] and s_r = sum_c exp(in[r][c] - m_r) "
         "(exp from __builtin_expf, i.e. v_exp_f32 with range reduction; the sum is strided partials then an LDS tree)"),
    case("divergent", "OpenCL",
         [buf("in", "U32", 3000, bits(31), "In"), buf("out", "U32", 3000, ZERO, "Out"), sc("n", "U32", 3000)],
         (3000, 1, 1), (64, 1, 1), EXACT,
         "for i < n, all u32 wrapping, v = in[i], acc = 0: if v & 1 != 0 { for a in 0..(v & 7) { for b in 0..=(a ^ ((v >> 3) & 3)) { acc += a*3 + b + (v >> 5) } } } "
         "else if v & 2 != 0 { x = v; while x > 1 { x = if x & 1 != 0 { 3x + 1 } else { x >> 1 }; acc += 1; if acc > 64 { break } } } "
         "else { match (v >> 2) & 3 { 0 => acc = v*7, 1 => acc = v ^ 0x5a5a5a5a, 2 => for k in 0..5 { acc = acc*31 + (v >> k) }, _ => acc = !v } }; out[i] = acc"),
    case("early_return", "OpenCL",
         [buf("in", "I32", 2000, rand(32, -1000, 1000), "In"), buf("out", "I32", 2000, fill(-7777), "InOut"),
          sc("n", "U32", 1900)],
         (2000, 1, 1), (256, 1, 1), EXACT,
         "for i < n with v = in[i]: v < 0 leaves out[i] unchanged; else if v % 3 == 0 then out[i] = v / 3; else if some k in 0..8 has (v >> k) & 3 == 3, the first such k gives out[i] = 1000 + k; "
         "else out[i] = -v. out[i] for i >= n stays -7777"),
    case("stack_calls", "OpenCL",
         [buf("in", "U32", 1024, bits(33), "In"), buf("out", "U32", 1024, ZERO, "Out"), sc("n", "U32", 1000)],
         (1024, 1, 1), (64, 1, 1), EXACT,
         "all u32 wrapping. mix_table(seed, rounds) { t[k] = (seed*(k+1)) ^ (k << 8) for k < 24; h = seed; for r in 0..rounds { j = h % 24; t[j] = t[j]*2654435761 + r; h ^= t[(j+7) % 24] + (h << 5) + (h >> 2) }; h } "
         "fold(a, b, c) { s[k] = a + k*b for k < 16; s[c & 15] ^ mix_table(a ^ b, 3 + (c & 7)) ^ s[(c >> 4) & 15] }. "
         "For i < n with v = in[i]: out[i] = fold(v, i, v >> 3) + mix_table(v, 5 + (v & 15)); out[i] for i >= n stays 0. The helpers are noinline calls with arrays in scratch"),
    case("f16_packed", "OpenCL",
         [buf("a", "F16", 1024, rand(34, -2, 2), "In"), buf("b", "F16", 1024, rand(35, -2, 2), "In"),
          buf("out", "F16", 1024, ZERO, "Out"), sc("n", "U32", 512)],
         (512, 1, 1), (64, 1, 1), flt(1e-3, 1e-3),
         "buffers are half2 pairs (element 2j, 2j+1 = pair j); for each pair j < n and component c, with x = a[2j+c], y = b[2j+c], all f16 single-rounded ops: "
         "p = x*y; f = fma(x, y, p); m = max(x, y); out[2j+c] = (f + m) - (c == 0 ? 0.5 : 0.25)"),
    case("dyn_lds_cl", "OpenCL",
         [buf("in", "U32", 1024, IOTA, "In"), buf("out", "U32", 1024, ZERO, "Out"), local("tmp", 1024)],
         (1024, 1, 1), (256, 1, 1), EXACT,
         "dynamic LDS of 1024 bytes (4 per work-item) through a __local pointer argument; with base = 256*group: out[base + l] = in[base + 255 - l]*3 + 1 (u32)",
         lds=1024),
    case("grid3d", "OpenCL",
         [buf("out", "U32", 2 * 20 * 10 * 6, fill(0xFFFFFFFF), "InOut"), sc("nx", "U32", 20), sc("ny", "U32", 10), sc("nz", "U32", 6)],
         (20, 10, 6), (8, 4, 2), EXACT,
         "3D grid (20, 10, 6) with 8x4x2 workgroups (partial in x and y): for each work-item (x, y, z), idx = (z*ny + y)*nx + x: "
         "out[2idx] = lx | ly << 8 | lz << 16 (local ids), out[2idx+1] = gx | gy << 8 | gz << 16 (workgroup ids)"),
    case("stencil2d", "OpenCL",
         [buf("in", "I32", 70 * 45, rand(36, -1000, 1000), "In"), buf("out", "I32", 70 * 45, ZERO, "Out"),
          sc("w", "U32", 70), sc("h", "U32", 45)],
         (70, 45, 1), (16, 16, 1), EXACT,
         "image w x h row-major, clamped neighbours: out[y*w+x] = 4*in[y][x] - in[y][max(x-1,0)] - in[y][min(x+1,w-1)] - in[max(y-1,0)][x] - in[min(y+1,h-1)][x] (i32 wrapping); 2D grid partial at both edges"),
] + [
    case(name, "OpenCL",
         [buf("in", "U32", gx * gy, rand(37, 0, 1000000), "In"),
          buf("out", "U32", 3 * (gx // wx) * (gy // wy), ZERO, "Out")],
         (gx, gy, 1), (wx, wy, 1), EXACT,
         f"workgroups of {wx}x{wy}: for each workgroup (gx, gy), g = gx + gy * (grid_x / wg_x), over its work-items with local linear id lid = lx + ly*wg_x and j = global_x + global_y*grid_x: "
         "out[3g] = number of work-items, out[3g+1] = wrapping u32 sum of in[j], out[3g+2] = max of (in[j] ^ lid) (LDS atomics)",
         stem="wg_any", symbol="wg_any")
    for name, gx, gy, wx, wy in [("wg_any_1", 16, 1, 1, 1), ("wg_any_64", 640, 1, 64, 1),
                                 ("wg_any_1024", 4096, 1, 1024, 1), ("wg_any_2d", 64, 16, 32, 8)]
] + [
    case("wg1_serial", "OpenCL",
         [buf("in", "U32", 1000, bits(38), "In"), buf("out", "U32", 37, ZERO, "Out"), sc("n", "U32", 1000)],
         (37, 1, 1), (1, 1, 1), EXACT,
         "37 workgroups of one work-item: out[g] = h after h = 2166136261; for j = g, g+37, g+74, ... < n { h = (h ^ in[j]) * 16777619 } (u32 wrapping)"),
    case("alu_loop", "OpenCL",
         [buf("out_u", "U32", 4096, ZERO, "Out"), buf("out_f", "F32", 4096, ZERO, "Out"), sc("iters", "U32", 1000)],
         (4096, 1, 1), (256, 1, 1), EXACT,
         "benchmark (a). For each i: a = i*2654435761 + 1, b = i ^ 0x9e3779b9 (u32 wrapping), x = (i & 1023) as f32 * 0.0009765625, y = 1.0; iters times: "
         "a = a*1664525 + 1013904223; b ^= a >> 7; b = b.rotate_left(3); a += b & 0xffff; x = fma(x, 0.999, 0.001); y = fma(-x, y, 1.0); y = min(max(y, -4.0), 4.0) (f32, fma single-rounded). "
         "out_u[i] = a ^ b; out_f[i] = x + y"),
    case("mem_stream", "OpenCL",
         [buf("in", "U32", 4 * 65536, bits(39), "In"), buf("out", "U32", 4 * 65536, ZERO, "Out"),
          sc("n4", "U32", 65536), sc("k", "U32", 3)],
         (16384, 1, 1), (256, 1, 1), EXACT,
         "benchmark (b), grid-stride loop over n4 16-byte elements: out[4j+c] = in[4j+c]*k + (c+1) (u32 wrapping) for j < n4, c < 4"),
    case("bitops", "OpenCL",
         [buf("a", "U32", 1000, bits(40), "In"), buf("b", "U32", 1000, bits(41), "In"),
          buf("out", "U32", 8000, ZERO, "Out"), sc("n", "U32", 1000)],
         (1000, 1, 1), (64, 1, 1), EXACT,
         "for i < n, x = a[i], y = b[i], o = out[8i..]: o[0] = popcount(x) + (popcount(y) << 8); o[1] = leading_zeros(x) (32 for 0); o[2] = trailing_zeros(y) (32 for 0); o[3] = reverse_bits(x); "
         "o[4] = v_perm_b32(x, y, 0x07020500 + (i & 3)): result byte k = byte s_k of the u64 (x << 32 | y), s_k = byte k of the selector (all selectors < 8); "
         "o[5] = ((x << 32 | y) >> (y & 31)) as u32 (v_alignbit); o[6] = ((x as u64 * y as u64) >> 32); o[7] = ((x >> (y & 15)) & 0xfff) + (x & 0xffffff)*(y & 0xffffff) (u32 wrapping)"),
    case("convert", "OpenCL",
         [buf("in", "F32", 1000, rand(42, -1000, 1000), "In"), buf("out", "U32", 10000, ZERO, "Out"), sc("n", "U32", 1000)],
         (1000, 1, 1), (64, 1, 1), EXACT,
         "for i < n, f = in[i], o = out[10i..], round-to-nearest-even unless said: o[0] = (f as i32) as u32 (truncate); o[1] = |f| as u32 (truncate); o[2] = bits((((f*3.0) as i32) as f32)); "
         "o[3] = bits(((f as f64) * 1.0000001f64) as f32); o[4] = f16 bits of f; o[5] = bits(((f*0.5) as f16) as f32); o[6] = bits(round_half_even(f*10.0)); o[7] = bits(floor(f*10.0)); "
         "o[8] = bits(ceil(f*10.0)); o[9] = bits((i*2654435761 wrapping u32) as f32)"),
    case("fp_math", "OpenCL",
         [buf("in", "F32", 1000, rand(43, 0.5, 8), "In"), buf("out", "F32", 8000, ZERO, "Out"), sc("n", "U32", 1000)],
         (1000, 1, 1), (64, 1, 1), flt(2e-5, 2e-5),
         "for i < n, x = in[i] in [0.5, 8), o = out[8i..]: o[0] = 1/x; o[1] = sqrt(x); o[2] = 1/sqrt(x) (v_rsq); o[3] = 2^x (v_exp); o[4] = log2(x) (v_log); "
         "o[5] = sin(2*pi*x/8) (v_sin takes revolutions); o[6] = cos(2*pi*x/8); o[7] = exp(-x). Hardware approximations: compare with the tolerance"),
    case("histogram_lds", "OpenCL",
         [buf("in", "U32", 20000, bits(44), "In"), buf("bins", "U32", 64, ZERO, "InOut"), sc("n", "U32", 20000)],
         (2048, 1, 1), (256, 1, 1), EXACT,
         "grid-stride: bins[b] += number of i < n with ((in[i] >> 4) & 63) == b (LDS atomics per workgroup, then global atomic adds)"),
    case("wave_reduce", "OpenCL",
         [buf("in", "U32", 1024, rand(45, 0, 1000), "In"), buf("out", "U32", 4, ZERO, "Out")],
         (1024, 1, 1), (256, 1, 1), EXACT,
         "out[g] = wrapping u32 sum of in[256g .. 256g+256) (ds_bpermute butterflies over the whole wave, 32 or 64 lanes, then an LDS atomic per wave)"),
    case("wave_reduce_1024", "OpenCL",
         [buf("in", "U32", 2048, rand(46, 0, 1000), "In"), buf("out", "U32", 2, ZERO, "Out")],
         (2048, 1, 1), (1024, 1, 1), EXACT,
         "out[g] = wrapping u32 sum of in[1024g .. 1024g+1024) (same kernel as wave_reduce with 1024-wide workgroups)",
         stem="wave_reduce", symbol="wave_reduce"),
    case("dpp_row_scan", "OpenCL",
         [buf("in", "U32", 512, rand(47, 0, 1000), "In"), buf("out", "U32", 512, ZERO, "Out")],
         (512, 1, 1), (64, 1, 1), EXACT,
         "inclusive prefix sum within aligned groups of 16 lanes (DPP row_shr 1, 2, 4, 8): out[i] = sum of in[j] for 16*floor(i/16) <= j <= i"),
    case("atomic_minmax", "OpenCL",
         [buf("in", "I32", 3000, rand(48, -1000000, 1000000), "In"),
          buf("r32", "I32", 8, values(2147483647, -2147483648, -1, 0, -1, 0, 0, 0), "InOut"),
          buf("r64", "U64", 2, ZERO, "InOut"), sc("n", "U32", 3000)],
         (3000, 1, 1), (256, 1, 1), EXACT,
         "over i < n with v = in[i], starting from the initial values: r32[0] = min(v) (signed), r32[1] = max(v) (signed), r32[2] = min(v as u32), r32[3] = max(v as u32), "
         "r32[4] &= v | (1 << (i & 31)), r32[5] |= v & 0x00f0f0f0, r32[6] ^= v, r32[7] -= v (wrapping), r64[0] += (v as u32 as u64) * 0x100000001 (wrapping), "
         "r64[1] = max(r64[1], (v as u32 as u64) << 32 | i)"),
    case("atomic_fadd", "OpenCL",
         [buf("in", "F32", 4096, randint(49, -100, 100), "In"), buf("sums", "F32", 8, ZERO, "InOut"), sc("n", "U32", 4096)],
         (4096, 1, 1), (256, 1, 1), EXACT,
         "sums[k] += sum of in[i] for i < n with i % 8 == k (f32 atomic add; inputs are integers in [-100, 100] so every partial sum is exact)"),
    case("kernarg_struct", "OpenCL",
         [sc("c", "U8", 3),
          struct("p", 32, 8, [(0, "U8", 5), (8, "F64", 0.5), (16, "I32", -100), (20, "U16", 7), (24, "U64", 0x0000FFFFFFFF0000)]),
          buf("in", "I32", 500, rand(50, -1000000, 1000000), "In"), sc("s", "I16", -2),
          buf("out", "F64", 1000, ZERO, "Out"), sc("f", "F32", 1.25), sc("big", "U64", 0x0123456789ABCDEF), sc("n", "U32", 500)],
         (500, 1, 1), (64, 1, 1), EXACT,
         "p is struct { u8 tag @0, f64 scale @8, i32 bias @16, u16 shift @20, u64 mask @24 } (32 bytes, align 8). For i < n: v = in[i] as i64 + bias + s + c + tag; "
         "m = ((in[i] as u32 as u64) << shift) & mask; out[2i] = (v as f64) * scale + (f as f64) (scale 0.5: exact with or without fma); out[2i+1] = (m ^ big) as f64 (round to nearest)"),
    case("const_table", "OpenCL",
         [buf("data", "U8", 16 * 300, bits(51), "In"), buf("out", "U32", 300, ZERO, "Out"), sc("n", "U32", 300)],
         (300, 1, 1), (64, 1, 1), EXACT,
         "out[i] = CRC-32 (IEEE 802.3, reflected poly 0xEDB88320, init and final xor 0xFFFFFFFF: zlib's crc32) of the 16 bytes data[16i .. 16i+16], via a table in __constant memory"),
    case("bitonic_sort", "OpenCL",
         [buf("keys", "U32", 2048, bits(52), "InOut")],
         (1024, 1, 1), (256, 1, 1), EXACT,
         "each block of 512 keys, keys[512g .. 512g+512), is sorted ascending in place (u32), one workgroup of 256 per block"),
    case("collatz", "OpenCL",
         [buf("steps", "U32", 1000, ZERO, "Out"), sc("start", "U32", 1), sc("n", "U32", 1000)],
         (1000, 1, 1), (64, 1, 1), EXACT,
         "steps[i] = number of Collatz steps (x -> x/2 if even, 3x+1 if odd, in u64) from x = start + i down to 1, for i < n"),
]

CASES += [
    case("mfma_f32", "OpenCL",
         [buf("A", "F32", 4 * 16 * 32, rand(53, -1, 1), "In"), buf("B", "F32", 4 * 32 * 16, rand(54, -1, 1), "In"),
          buf("C", "F32", 4 * 256, ZERO, "Out"), sc("K", "U32", 32)],
         (256, 1, 1), (64, 1, 1), flt(1e-5, 1e-5),
         "CDNA only. 4 workgroups of 64 (one wave each); workgroup g: C[256g + 16r + c] = sum over k < K of A[16Kg + rK + k] * B[16Kg + 16k + c] for r, c < 16 "
         "(row-major 16xK times Kx16 per g) through v_mfma_f32_16x16x4f32, 4 k-steps per instruction: the summation order inside the matrix core is not specified"),
    case("mfma_more", "OpenCL",
         [buf("a1", "F32", 32 * 4, randint(55, -4, 4), "In"), buf("b1", "F32", 4 * 32, randint(56, -4, 4), "In"),
          buf("a2", "F16", 16 * 32, randint(57, -4, 4), "In"), buf("b2", "F16", 32 * 16, randint(58, -4, 4), "In"),
          buf("a3", "F16", 32 * 16, randint(59, -4, 4), "In"), buf("b3", "F16", 16 * 32, randint(60, -4, 4), "In"),
          buf("c1", "F32", 32 * 32, ZERO, "Out"), buf("c2", "F32", 16 * 16, ZERO, "Out"), buf("c3", "F32", 32 * 32, ZERO, "Out")],
         (64, 1, 1), (64, 1, 1), EXACT,
         "CDNA only. One wave; row-major matrices: c1 = a1 (32x4) * b1 (4x32) via v_mfma_f32_32x32x2f32, c2 = a2 (16x32, f16) * b2 (32x16) via v_mfma_f32_16x16x16f16, "
         "c3 = a3 (32x16, f16) * b3 (16x32) via v_mfma_f32_32x32x8f16; inputs are small integers, so every product and sum is exact in f32"),
]

# ------------------------------------------------------------------ HIP
CASES += [
    case("atomic_cas", "Hip",
         [buf("counter", "U32", 1, ZERO, "InOut"), buf("max64", "U64", 1, ZERO, "InOut"),
          buf("slots", "U32", 16, ZERO, "InOut"), buf("swapped_sum", "U32", 1, ZERO, "InOut"), sc("n", "U32", 2000)],
         (2000, 1, 1), (128, 1, 1), CUSTOM,
         "exact: counter[0] = n (CAS retry loop); max64[0] = max over i < n of ((i*2654435761 wrapping u32) as u64) << 20 ^ i (CAS loop). "
         "Order dependent, check the invariants: for each k < 16, slots[k] = i + 1 for some i < n with i % 16 == k (atomic exchange); "
         "swapped_sum[0] + sum(slots) = n(n+1)/2 (u32 wrapping), since every exchanged-out value is added to swapped_sum"),
    case("dyn_lds", "Hip",
         [buf("in", "F32", 2048, rand(60, -10, 10), "In"), buf("out", "F32", 1024, ZERO, "Out")],
         (1024, 1, 1), (256, 1, 1), EXACT,
         "extern __shared__ (dynamic LDS 2048 bytes = 2*256 f32): with bs = 256, g the group, t the local id: out[bs*g + t] = in[2bs*g + t] + in[2bs*g + 2bs - 1 - t] (f32 add)",
         lds=2048),
    case("dyn_lds_1024", "Hip",
         [buf("in", "F32", 4096, rand(61, -10, 10), "In"), buf("out", "F32", 2048, ZERO, "Out")],
         (2048, 1, 1), (1024, 1, 1), EXACT,
         "as dyn_lds with bs = 1024 and 8192 bytes of dynamic LDS: out[bs*g + t] = in[2bs*g + t] + in[2bs*g + 2bs - 1 - t]",
         stem="dyn_lds", symbol="dyn_lds", lds=8192),
    case("block_reduce", "Hip",
         [buf("in", "U32", 4096, rand(62, 0, 1000), "In"), buf("out", "U32", 4, ZERO, "Out")],
         (4096, 1, 1), (1024, 1, 1), EXACT,
         "workgroups of 1024: out[g] = wrapping u32 sum over t < 1024 of in[1024g + t] * (t | 1) (ds_swizzle xor butterflies within 32 lanes, readlane 0 + 32 on wave64, LDS partials)"),
] + [
    case(f"template_scale_{t.lower()}", "Hip",
         [buf("out", t, 1000, ZERO, "Out"), buf("in", t, 1000, rand(63, -100, 100), "In"), sc("s", t, 1.5), sc("n", "U32", 1000)],
         (1000, 1, 1), (128, 1, 1), flt(1e-6 if t == "F32" else 1e-14, 2e-5 if t == "F32" else 1e-13),
         f"template instantiation for {'float' if t == 'F32' else 'double'}: out[i] = in[i]*s - (i as {t.lower()}) for i < n (HIP contracts to fma by default)",
         stem="template_scale", symbol=sym)
    for t, sym in [("F32", "_Z14template_scaleIfEvPT_PKS0_S0_j"), ("F64", "_Z14template_scaleIdEvPT_PKS0_S0_j")]
] + [
    case("indirect_call", "Hip",
         [buf("sel", "U32", 1000, bits(64), "In"), buf("a", "U32", 1000, bits(65), "In"), buf("b", "U32", 1000, bits(66), "In"),
          buf("out", "U32", 1000, ZERO, "Out"), sc("n", "U32", 1000)],
         (1000, 1, 1), (64, 1, 1), EXACT,
         "for i < n: out[i] = op(a[i], b[i]) with op chosen by sel[i] & 3 through a function pointer table: 0 a+b, 1 a*b, 2 a ^ (b << 1), 3 a-b (u32 wrapping). "
         "The table is in .data.rel.ro with R_AMDGPU_RELATIVE64 relocations the loader must apply",
         private=1024),
    case("recursion", "Hip",
         [buf("in", "U32", 256, bits(67), "In"), buf("out", "U32", 256, ZERO, "Out"), sc("n", "U32", 256)],
         (256, 1, 1), (64, 1, 1), EXACT,
         "f(d, x) = if d == 0 { 2x + 1 } else { k = [x, x ^ d, x + d, x * d]; r = f(d - 1, k[x & 3] & 0xffff); r + k[(r >> 1) & 3] } (u32 wrapping); out[i] = f(in[i] & 7, in[i]) for i < n. "
         "Recursive: .uses_dynamic_stack is true, dispatch with at least extra_private_bytes of scratch per work-item",
         private=1024),
    case("device_global", "Hip",
         [buf("in", "U32", 500, bits(68), "In"), buf("out", "U32", 500, ZERO, "Out"), sc("n", "U32", 500)],
         (500, 1, 1), (64, 1, 1), EXACT,
         "for i < n: out[i] = in[i] * T[in[i] & 7] with T = [3, 1, 4, 1, 5, 9, 2, 6] read from the code object's .data (program-scope __device__ array); "
         "also adds 1 per work-item to the .bss counter g_counter (see device_global_read)"),
    case("device_global_read", "Hip",
         [buf("out", "U32", 1, fill(0xFFFFFFFF), "InOut")],
         (1, 1, 1), (1, 1, 1), EXACT,
         "out[0] = g_counter, a zero-initialised .bss variable of the same code object: 0 on a freshly loaded object "
         "(n after one dispatch of device_global with the same loaded object)",
         stem="device_global", symbol="device_global_read"),
    case("stencil3d", "Hip",
         [buf("in", "F32", 24 * 10 * 7, rand(69, -1, 1), "In"), buf("out", "F32", 24 * 10 * 7, ZERO, "Out"),
          sc("nx", "U32", 24), sc("ny", "U32", 10), sc("nz", "U32", 7)],
         (24, 10, 7), (8, 8, 4), flt(1e-5, 1e-6),
         "3D grid (24, 10, 7), 8x8x4 workgroups (partial in y and z), volume index c = (z*ny + y)*nx + x: out[c] = -6*in[c] + in[x-1] + in[x+1] + in[y-1] + in[y+1] + in[z-1] + in[z+1] "
         "in that order, neighbours outside the volume omitted (f32; the first multiply-add may be contracted to fma)"),
    case("mandel_fixed", "Hip",
         [buf("out", "U32", 64 * 48, ZERO, "Out"), sc("w", "U32", 64), sc("h", "U32", 48), sc("max_iter", "U32", 200)],
         (64, 48, 1), (16, 16, 1), EXACT,
         "i64 fixed point with F = 2^28 (>> is arithmetic, / truncates): cr = -2F + (px*3F)/w, ci = -F + (py*2F)/h, zr = zi = 0, it = 0; while it < max_iter { zr2 = (zr*zr) >> 28; zi2 = (zi*zi) >> 28; "
         "if zr2 + zi2 > 4F break; nzr = zr2 - zi2 + cr; zi = ((2*zr*zi) >> 28) + ci; zr = nzr; it += 1 }; out[py*w + px] = it"),
    case("matvec_f64", "Hip",
         [buf("A", "F64", 300 * 77, rand(70, -1, 1), "In"), buf("x", "F64", 77, rand(71, -1, 1), "In"),
          buf("y", "F64", 300, ZERO, "Out"), sc("rows", "U32", 300), sc("cols", "U32", 77)],
         (300, 1, 1), (64, 1, 1), EXACT,
         "y[r] = acc after acc = 0.0; for c in 0..cols ascending { acc = fma(A[r*cols + c], x[c], acc) } (f64), for r < rows"),
    case("f16_hip", "Hip",
         [buf("a", "F16", 800, rand(72, -4, 4), "In"), buf("b", "F16", 800, rand(73, -4, 4), "In"),
          buf("out", "F32", 800, ZERO, "Out"), buf("out16", "F16", 800, ZERO, "Out"), sc("n", "U32", 800)],
         (800, 1, 1), (128, 1, 1), flt(1e-3, 1e-3),
         "for i < n, x = a[i], y = b[i] (f16, single-rounded ops): f = fma(x, y, 1.0); m = min(x, y); out16[i] = f - m; out[i] = (f as f32) * (m as f32)"),
    case("hidden_args_uniform", "Hip",
         [buf("out", "U32", 16 * 64 * 16, ZERO, "Out")],
         (64, 2, 2), (32, 2, 1), EXACT,
         "same kernel as hidden_args with a grid that is a multiple of the workgroup: groups (2, 1, 2), all full; o[0..3] = (2, 1, 2); o[3..6] = (32, 2, 1); o[6..9] = remainders (0, 0, 0); "
         "o[9] = 3; o[10] = 32; o[11..14] = (64, 2, 2); o[14] = 32*65536 + 2*256 + 1; o[15] = 3; index o = out + 16*(64*g + l) as in hidden_args (unused words stay 0)",
         stem="hidden_args", symbol="hidden_args"),
]

# ------------------------------------------------------------------ hand-written assembly
CASES += [
    case("asm_salu", "Asm",
         [buf("out", "U32", 64, ZERO, "Out"), sc("x", "U32", 997)],
         (256, 1, 1), (32, 1, 1), EXACT,
         "8 workgroups of 32; lane 0 of workgroup g writes out[8g..8g+8] from x_g = x + g (u32): [0] sum of k*k for k in 0..=(x_g & 15); [1] (x_g >> 4) & 0xff; [2] (x_g << 3) ^ (x_g >> 5); "
         "[3] ((x_g as u64 * 0x9e3779b9) >> 32); [4] max(x_g, 1000); [5] reverse_bits(x_g); [6] trailing_zeros(x_g) (0xffffffff for 0); [7] popcount(x_g) + (leading_zeros(x_g) << 8) (wrapping; lz = 0xffffffff for 0)"),
    case("asm_callret", "Asm",
         [buf("in", "U32", 256, rand(80, 0, 1000000), "In"), buf("out", "U32", 256, ZERO, "Out")],
         (256, 1, 1), (64, 1, 1), EXACT,
         "workgroups of exactly 64: t = in[i]*3 + 1 (subroutine through s_swappc); out[i] = t + 100 if i/64 is even else t ^ 0xff (computed s_setpc jump) (u32 wrapping)"),
    case("asm_lanes", "Asm",
         [buf("out", "U32", 4 * 256, ZERO, "Out")],
         (256, 1, 1), (64, 1, 1), EXACT,
         "workgroups of exactly 64, W = wave size of the variant (64 on gfx9 and -w64, else 32), lane = i % W, wb = i - lane, v(j) = 7j: out[4i] = lane; out[4i+1] = v(i ^ 1) (ds_bpermute); "
         "out[4i+2] = if lane == 7 { v(wb) } else { v(wb + 5) } (readlane 5, readfirstlane, writelane 7); out[4i+3] = v((i & !3) | (3 - (i & 3))) (ds_swizzle quad reverse)"),
    case("asm_buffer", "Asm",
         [buf("src", "U32", 256, bits(41), "In"), buf("out", "U32", 16 * 128, ZERO, "Out"),
          buf("ctr", "U32", 385, bits(42), "InOut")],
         (128, 1, 1), (64, 1, 1), EXACT,
         "buffer loads/stores/atomics through descriptors built in the kernel (see the source header; GFX9 MUBUF and GFX12 VBUFFER layouts). "
         "i = global id, row = out[16i..16i+16], all zero for i >= 120 (stores out of range); for i < 120: row[0] = src[i+1] if i <= 98 else 0; row[1] = src[i+3]; "
         "j = i ^ 5: row[2], row[3] = src[2j+2], src[2j+3] if j < 100 else 0, 0; row[4] = src[i+1]; b = i & 3, y = (src[i] >> 8b) & 0xff: "
         "row[5] = y | y << 8 | (src[i] >> 16) << 16; row[6] = sext16(src[i] >> 16); row[7] = (src[i] & 0xffff) << 16 | 0x1234; row[8] = ctr0[i]; row[9] = ctr0[128+i]; rest 0. "
         "ctr[i] = ctr0[i] + i + 1; ctr[128+i] = src[i+3] for even i, else unchanged; ctr[256+i] = max_i32(ctr0[256+i], src[i+1] if i <= 98 else 0); ctr[384] = ctr0[384] + 128"),
    case("asm_dpp", "Asm",
         [buf("in", "U32", 256, bits(43), "In"), buf("out", "U32", 6 * 256, ZERO, "Out")],
         (256, 1, 1), (64, 1, 1), EXACT,
         "workgroups of 64, i = global id: out[6i] = in[i ^ 7] (DPP8 reverse within groups of 8); out[6i+1] = in[i ^ 1] + i (VOP2 DPP8); out[6i+4] = in[i ^ 5] (row_xmask:5); "
         "for i & 3 == 3 (EXEC off): out[6i+2] = out[6i+3] = out[6i+5] = 0xdeadbeef; otherwise out[6i+2] = 0 (DPP8 from an inactive lane, fi:0), out[6i+3] = in[(i & !7) | 3] (fi:1), "
         "out[6i+5] = in[(i & !15) | 3] (row_share:3 fi:1). GFX9 builds compute the same with ds_bpermute"),
    case("asm_t16", "Asm",
         [buf("in", "F16", 512, randint(44, -8, 8), "In"), buf("out", "U32", 8 * 256, ZERO, "Out")],
         (256, 1, 1), (64, 1, 1), EXACT,
         "16-bit operations on VGPR halves (GFX12 true16 .l/.h operands of VOP1/VOP2/VOPC and DPP8; GFX9 builds use SDWA). Workgroups of 64, i = global id, j = i ^ 1, "
         "a = in[2i], b = in[2i+1], c = in[2j], d = in[2j+1] (bits A, B, C, D; f16 arithmetic on small integers is exact): "
         "out[8i] = A | f16(b + c) << 16; out[8i+1] = f16(a * d) | D << 16; out[8i+2] = f32 bits of b; out[8i+3] = 0x5678 | B << 16; out[8i+4] = (b < d) as u32; "
         "out[8i+5] = f16(max(a, b)) | D << 16; out[8i+6] = f16(c + d) << 16; out[8i+7] = f16(a * 2^(i & 3))"),
    case("asm_semaphore", "Asm",
         [buf("data", "U32", 32, ZERO, "InOut"), buf("flag", "U32", 3, ZERO, "InOut"), buf("out", "U32", 32 * 8, ZERO, "Out")],
         (256, 1, 1), (32, 1, 1), EXACT,
         "8 workgroups of 32 (one wave each). Workgroup 0 (producer) writes data[l] = l*l + 1 then flag[0] += 1. Workgroups g >= 1 spin (coherent loads, s_sleep, at most 65536 polls) until flag[0] != 0, "
         "then flag[1] = max(flag[1], g), flag[2] += 1, out[32g + l] = data[l] + g; a consumer that times out writes 0xdead0000 | g instead. "
         "Expected: data[l] = l*l + 1, flag = [1, 7, 7], out[0..32] = 0, out[32g + l] = l*l + 1 + g. Needs workgroup 0 to make progress while others spin"),
]
