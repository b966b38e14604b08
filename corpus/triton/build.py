#!/usr/bin/env python3
"""Builds the Triton corpus (see README.md): compiles kernels.py ahead of time with Triton 3.9
for every target, writes fixed-seed inputs and numpy references as binary files and
manifest.ron, which the Rust test gpu-model/tests/triton_run.rs runs.

    build.py               rebuild build/, data/ and manifest.ron (needs triton==3.9.0, numpy)
    build.py --check       without Triton: every file the manifest lists has its recorded
                           sha256, no unlisted file exists, and kernels.py/build.py are the
                           ones the manifest was built from (CI)
    build.py --rebuild-check   with Triton: rebuild into a temp dir and compare byte for byte
"""
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import pinned  # noqa: E402  (corpus/pinned.py: the manifest check both corpora share)

sha256 = pinned.sha256
TRITON_VERSION = "3.9.0"
TARGETS = [("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1200", 32), ("gfx1201", 32)]
# fp8 dot operands the target runs natively (Triton 3.9 HIPOptions: "native support for OCP
# fp8 variants since CDNA4/RDNA4", the UZ variants natively on CDNA3; gfx90a emulates both).
FP8 = {"gfx942": "fp8e4b8", "gfx950": "fp8e4nv", "gfx1200": "fp8e4nv", "gfx1201": "fp8e4nv"}
# Sources whose hash the manifest records.
SOURCES = ["kernels.py", "build.py"]


def sources_hash():
    return pinned.sources_hash(HERE, SOURCES)


# ---------------------------------------------------------------------------------------------
# Inputs and numpy references

def rng(seed):
    import numpy as np
    return np.random.default_rng(seed)


def to_bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even (inputs are finite)."""
    import numpy as np
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def bf16_bits_to_f64(b):
    import numpy as np
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def fp8_values(seed, shape):
    """Random e4m3 values sign * 2^e * (1 + m/8), e in [-4, 2]: representable in both e4m3fn
    (OCP, bias 7) and e4m3fnuz (bias 8) as normal numbers, and products of two of them sum
    exactly in f32 over K <= 256 (8-bit products, exponents within 2^-8 .. 2^4)."""
    import numpy as np
    r = rng(seed)
    s = r.integers(0, 2, shape)
    e = r.integers(-4, 3, shape)
    m = r.integers(0, 8, shape)
    val = np.where(s == 1, -1.0, 1.0) * np.ldexp(1.0 + m / 8.0, e)
    return val, s, e, m


def fp8_encode(s, e, m, fmt):
    import numpy as np
    bias = {"fp8e4nv": 7, "fp8e4b8": 8}[fmt]
    return ((s << 7) | ((e + bias) << 3) | m).astype(np.uint8)


def write(data_dir, name, arr):
    import numpy as np
    p = data_dir / name
    p.write_bytes(np.ascontiguousarray(arr).tobytes())
    return "data/" + name


class Case:
    def __init__(self, name, fn, signature, constexprs, programs, num_warps, args, buffers, checks,
                 targets):
        self.name, self.fn, self.signature, self.constexprs = name, fn, signature, constexprs
        self.programs, self.num_warps, self.args = programs, num_warps, args
        self.buffers, self.checks, self.targets = buffers, checks, targets


def cases(data_dir, with_bench):
    """The corpus cases. Buffers: (name, elem, len, init file or None for zeros).
    Checks: (buffer, ref file, ref elem, rel, abs)."""
    import numpy as np
    import kernels as k
    out = []
    all_targets = [t for t, _ in TARGETS]

    # vadd: f32 add, 1000 elements in blocks of 256 (last block masked). Exact.
    n = 1000
    x = rng(1).uniform(-1, 1, n).astype(np.float32)
    y = rng(2).uniform(-1, 1, n).astype(np.float32)
    out.append(Case("vadd", k.vadd, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                     "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256},
                    (4, 1, 1), 4, ["x", "y", "out", ("I32", n)],
                    [("x", "F32", n, write(data_dir, "vadd.x.bin", x)),
                     ("y", "F32", n, write(data_dir, "vadd.y.bin", y)), ("out", "F32", n, None)],
                    [("out", write(data_dir, "vadd.out.ref.bin", x + y), "F32", 0.0, 0.0)],
                    all_targets))

    # softmax: 64 rows of 100 (block 128, masked). exp is v_exp_f32 (1 ulp) after a multiply.
    rows, cols = 64, 100
    a = rng(3).uniform(-4, 4, (rows, cols)).astype(np.float32)
    a64 = a.astype(np.float64)
    e = np.exp(a64 - a64.max(axis=1, keepdims=True))
    sm = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    out.append(Case("softmax", k.softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32",
                                           "BLOCK": "constexpr"}, {"BLOCK": 128},
                    (rows, 1, 1), 4, ["out", "inp", ("I32", cols)],
                    [("out", "F32", rows * cols, None),
                     ("inp", "F32", rows * cols, write(data_dir, "softmax.in.bin", a))],
                    [("out", write(data_dir, "softmax.out.ref.bin", sm), "F32", 2e-6, 1e-7)],
                    all_targets))

    # layernorm: 32 rows of 300 (three blocks of 128, the last masked).
    rows, cols, eps = 32, 300, 1e-5
    x = rng(4).uniform(-2, 2, (rows, cols)).astype(np.float32)
    w = rng(5).uniform(0.5, 1.5, cols).astype(np.float32)
    b = rng(6).uniform(-0.5, 0.5, cols).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    var = ((x64 - mean[:, None]) ** 2).mean(axis=1)
    rstd = 1.0 / np.sqrt(var + np.float64(np.float32(eps)))
    yref = (x64 - mean[:, None]) * rstd[:, None] * w + b
    out.append(Case("layernorm", k.layernorm,
                    {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                     "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "n": "i32", "eps": "fp32",
                     "BLOCK": "constexpr"}, {"BLOCK": 128},
                    (rows, 1, 1), 4, ["x", "y", "w", "b", "mean", "rstd", ("I32", cols), ("F32", eps)],
                    [("x", "F32", rows * cols, write(data_dir, "layernorm.x.bin", x)),
                     ("y", "F32", rows * cols, None),
                     ("w", "F32", cols, write(data_dir, "layernorm.w.bin", w)),
                     ("b", "F32", cols, write(data_dir, "layernorm.b.bin", b)),
                     ("mean", "F32", rows, None), ("rstd", "F32", rows, None)],
                    [("y", write(data_dir, "layernorm.y.ref.bin", yref.astype(np.float32)), "F32", 1e-5, 1e-5),
                     ("mean", write(data_dir, "layernorm.mean.ref.bin", mean.astype(np.float32)), "F32", 1e-5, 1e-6),
                     ("rstd", write(data_dir, "layernorm.rstd.ref.bin", rstd.astype(np.float32)), "F32", 1e-5, 0.0)],
                    all_targets))

    # matmul (tl.dot): M x K times K x N, M and N not multiples of the 64x64 tile.
    M, N, K = 120, 136, 128
    sig = {"a_ptr": None, "b_ptr": None, "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    progs = ((M + 63) // 64) * ((N + 63) // 64)
    # f16: random inputs, f32 accumulation, f16 result; tolerance: one f16 rounding of the result
    # (2^-11 relative) plus the f32 accumulation order (K * 2^-24 * sum |a*b|, below 1e-4 here).
    a = rng(7).uniform(-1, 1, (M, K)).astype(np.float16)
    bm = rng(8).uniform(-1, 1, (K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ bm.astype(np.float64)
    out.append(Case("matmul_f16", k.matmul, dict(sig, a_ptr="*fp16", b_ptr="*fp16"),
                    {"BM": 64, "BN": 64, "BK": 32}, (progs, 1, 1), 4,
                    ["a", "b", "c", ("I32", M), ("I32", N), ("I32", K)],
                    [("a", "F16", M * K, write(data_dir, "matmul_f16.a.bin", a)),
                     ("b", "F16", K * N, write(data_dir, "matmul_f16.b.bin", bm)),
                     ("c", "F16", M * N, None)],
                    [("c", write(data_dir, "matmul_f16.c.ref.bin", ref.astype(np.float32)), "F32", 1e-3, 1e-4)],
                    all_targets))
    # bf16: bf16 inputs and result (2^-8 relative rounding of the result).
    a32 = rng(9).uniform(-1, 1, (M, K)).astype(np.float32)
    b32 = rng(10).uniform(-1, 1, (K, N)).astype(np.float32)
    abits, bbits = to_bf16_bits(a32), to_bf16_bits(b32)
    ref = bf16_bits_to_f64(abits) @ bf16_bits_to_f64(bbits)
    out.append(Case("matmul_bf16", k.matmul, dict(sig, a_ptr="*bf16", b_ptr="*bf16", c_ptr="*bf16"),
                    {"BM": 64, "BN": 64, "BK": 32}, (progs, 1, 1), 4,
                    ["a", "b", "c", ("I32", M), ("I32", N), ("I32", K)],
                    [("a", "BF16", M * K, write(data_dir, "matmul_bf16.a.bin", abits)),
                     ("b", "BF16", K * N, write(data_dir, "matmul_bf16.b.bin", bbits)),
                     ("c", "BF16", M * N, None)],
                    [("c", write(data_dir, "matmul_bf16.c.ref.bin", ref.astype(np.float32)), "F32", 8e-3, 1e-4)],
                    all_targets))
    # fp8 e4m3 (OCP on gfx950/gfx12, FNUZ on gfx942), f16 result: the products sum exactly, so
    # the result is the exact sum rounded once to f16 (tolerance: that rounding).
    av, as_, ae, am = fp8_values(11, (M, K))
    bv, bs, be, bmm = fp8_values(12, (K, N))
    ref = av @ bv
    refname = write(data_dir, "matmul_fp8.c.ref.bin", ref.astype(np.float32))
    for fmt in sorted(set(FP8.values())):
        fa = write(data_dir, f"matmul_{fmt}.a.bin", fp8_encode(as_, ae, am, fmt))
        fb = write(data_dir, f"matmul_{fmt}.b.bin", fp8_encode(bs, be, bmm, fmt))
        out.append(Case(f"matmul_{fmt}", k.matmul, dict(sig, a_ptr=f"*{fmt}", b_ptr=f"*{fmt}"),
                        {"BM": 64, "BN": 64, "BK": 64}, (progs, 1, 1), 4,
                        ["a", "b", "c", ("I32", M), ("I32", N), ("I32", K)],
                        [("a", "U8", M * K, fa), ("b", "U8", K * N, fb), ("c", "F16", M * N, None)],
                        [("c", refname, "F32", 4.9e-4, 0.0)],
                        [t for t, f in FP8.items() if f == fmt]))

    # Flash attention forward: 2 heads, 128 positions, head dim 64, f16; p is rounded to f16
    # before the second dot (as in Triton's tutorial), hence the tolerance.
    H, S, D = 2, 128, 64
    q = rng(13).uniform(-1, 1, (H, S, D)).astype(np.float16)
    kk = rng(14).uniform(-1, 1, (H, S, D)).astype(np.float16)
    v = rng(15).uniform(-1, 1, (H, S, D)).astype(np.float16)
    scale = 0.125
    s_ = np.einsum("hmd,hnd->hmn", q.astype(np.float64), kk.astype(np.float64)) * scale
    p = np.exp(s_ - s_.max(axis=2, keepdims=True))
    o = np.einsum("hmn,hnd->hmd", p / p.sum(axis=2, keepdims=True), v.astype(np.float64))
    out.append(Case("attn_fwd", k.attn_fwd,
                    {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                     "sm_scale": "fp32", "n_ctx": "i32", "BLOCK_M": "constexpr",
                     "BLOCK_N": "constexpr", "HEAD_DIM": "constexpr"},
                    {"BLOCK_M": 64, "BLOCK_N": 32, "HEAD_DIM": D}, (S // 64, H, 1), 4,
                    ["q", "k", "v", "o", ("F32", scale), ("I32", S)],
                    [("q", "F16", H * S * D, write(data_dir, "attn.q.bin", q)),
                     ("k", "F16", H * S * D, write(data_dir, "attn.k.bin", kk)),
                     ("v", "F16", H * S * D, write(data_dir, "attn.v.bin", v)),
                     ("o", "F16", H * S * D, None)],
                    [("o", write(data_dir, "attn.o.ref.bin", o.astype(np.float32)), "F32", 1e-2, 2e-3)],
                    all_targets))

    # Reduction with atomics: 10000 elements, blocks of 512, one f32 and one i32 atomic add
    # per program. The f32 sum depends on the order (20 partial sums): tolerance.
    n = 10000
    x = rng(16).uniform(-1, 1, n).astype(np.float32)
    out.append(Case("reduce_atomic", k.reduce_atomic,
                    {"x_ptr": "*fp32", "sum_ptr": "*fp32", "count_ptr": "*i32", "n": "i32",
                     "BLOCK": "constexpr"}, {"BLOCK": 512}, ((n + 511) // 512, 1, 1), 4,
                    ["x", "sum", "count", ("I32", n)],
                    [("x", "F32", n, write(data_dir, "reduce.x.bin", x)), ("sum", "F32", 1, None),
                     ("count", "I32", 1, None)],
                    [("sum", write(data_dir, "reduce.sum.ref.bin",
                                   np.array([x.astype(np.float64).sum()], np.float32)), "F32", 1e-5, 1e-4),
                     ("count", write(data_dir, "reduce.count.ref.bin",
                                     np.array([(x > 0).sum()], np.int32)), "I32", 0.0, 0.0)],
                    all_targets))

    if with_bench:
        # Speed anchor (not run by the test): 1024^3 GEMM, 128x128 tiles, f16 on gfx942 and
        # fp8 (OCP e4m3) on gfx950. Inputs come from the scenario; only objects are built.
        S = 1024
        out.append(Case("gemm1024_f16", k.matmul, dict(sig, a_ptr="*fp16", b_ptr="*fp16"),
                        {"BM": 128, "BN": 128, "BK": 64}, ((S // 128) ** 2, 1, 1), 4,
                        ["a", "b", "c", ("I32", S), ("I32", S), ("I32", S)], [], [], ["gfx942"]))
        out.append(Case("gemm1024_fp8", k.matmul, dict(sig, a_ptr="*fp8e4nv", b_ptr="*fp8e4nv"),
                        {"BM": 128, "BN": 128, "BK": 128}, ((S // 128) ** 2, 1, 1), 4,
                        ["a", "b", "c", ("I32", S), ("I32", S), ("I32", S)], [], [], ["gfx950"]))
    return out


# ---------------------------------------------------------------------------------------------
# Compile

def attrs_for(case):
    """What Triton's JIT would specialize on a real launch with small torch tensors: pointers
    16-byte aligned ("D": tt.divisibility 16) and within 2 GB ("S": tt.pointer_range 32, AMD
    buffer ops), ints divisible by 16 get "D" (triton/backends/compiler.py parse_attr,
    backends/amd/compiler.py get_tensor_specialization)."""
    attrs = {}
    values = [a for a in case.args]
    for i, (name, ty) in enumerate(case.signature.items()):
        if ty == "constexpr":
            continue
        if ty.startswith("*"):
            attrs[(i,)] = [["tt.divisibility", 16], ["tt.pointer_range", 32]]
        elif ty == "i32":
            v = values[i]
            if isinstance(v, tuple) and v[1] % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]
    return attrs


def compile_all(dest, with_bench=True):
    import triton
    from triton.backends.compiler import GPUTarget
    assert triton.__version__ == TRITON_VERSION, f"need triton {TRITON_VERSION}, have {triton.__version__}"
    sys.path.insert(0, str(HERE))
    (dest / "data").mkdir(parents=True)
    manifest = []
    for case in cases(dest / "data", with_bench):
        for t, wave in TARGETS:
            if t not in case.targets:
                continue
            src = triton.compiler.ASTSource(case.fn, case.signature, case.constexprs, attrs_for(case))
            kern = triton.compile(src, target=GPUTarget("hip", t, wave),
                                  options={"num_warps": case.num_warps})
            md = kern.metadata
            (dest / "build" / t).mkdir(parents=True, exist_ok=True)
            rel = f"build/{t}/{case.name}.hsaco"
            (dest / rel).write_bytes(kern.asm["hsaco"])
            manifest.append((case, t, md, rel))
    return manifest


def ron_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ron_arg(a):
    if isinstance(a, str):
        return f"Buffer({ron_str(a)})"
    kind, v = a
    if kind == "F32":
        return f"F32({float(v)!r})"
    return f"{kind}({v})"


def write_manifest(dest, manifest):
    lines = ["// Generated by corpus/triton/build.py: do not edit by hand.",
             "(", f"    triton: {ron_str(TRITON_VERSION)},", f"    sources_sha256: {ron_str(sources_hash())},",
             "    cases: ["]
    for case, t, md, rel in manifest:
        block = md.num_warps * md.warp_size
        gx, gy, gz = case.programs
        lines += [
            "        (",
            f"            name: {ron_str(case.name)},",
            f"            target: {ron_str(t)},",
            f"            object: {ron_str(rel)},",
            f"            kernel: {ron_str(md.name)},",
            f"            wave_size: {md.warp_size},",
            f"            num_warps: {md.num_warps},",
            f"            programs: ({gx}, {gy}, {gz}),",
            f"            grid: ({gx * block}, {gy}, {gz}),",
            f"            workgroup: ({block}, 1, 1),",
            f"            shared: {md.shared},",
            f"            global_scratch: (size: {md.global_scratch_size}, align: {md.global_scratch_align}),",
            f"            profile_scratch: (size: {md.profile_scratch_size}, align: {md.profile_scratch_align}),",
            "            buffers: [",
        ]
        for name, elem, n, init in case.buffers:
            init_s = "Zeros" if init is None else f"File({ron_str(init)})"
            lines.append(f"                (name: {ron_str(name)}, elem: {elem}, len: {n}, init: {init_s}),")
        lines += ["            ],", "            args: [" + ", ".join(ron_arg(a) for a in case.args) + "],",
                  "            checks: ["]
        for buf, ref, elem, rel_tol, abs_tol in case.checks:
            lines.append(f"                (buffer: {ron_str(buf)}, reference: {ron_str(ref)}, ref_elem: {elem}, "
                         f"rel: {float(rel_tol)!r}, abs: {float(abs_tol)!r}),")
        lines += ["            ],", "        ),"]
    lines += ["    ],", "    files: ["]
    for p in sorted(list((dest / "build").rglob("*.hsaco")) + list((dest / "data").glob("*.bin"))):
        lines.append(f"        ({ron_str(str(p.relative_to(dest)))}, {ron_str(sha256(p))}),")
    lines += ["    ],", ")", ""]
    (dest / "manifest.ron").write_text("\n".join(lines))


def build_into(dest):
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    with tempfile.TemporaryDirectory() as cache:
        # A private, empty cache: every object is compiled from source now.
        os.environ["TRITON_CACHE_DIR"] = cache
        write_manifest(dest, compile_all(dest))


def main():
    pinned.main(HERE, "triton", SOURCES, build_into, __doc__)


if __name__ == "__main__":
    main()
