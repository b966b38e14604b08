#!/usr/bin/env python3
"""Builds the IREE corpus (see README.md): compiles kernels.mlir with iree-compile for the HIP
target of every CDNA target, keeps the dumped code object, writes fixed-seed inputs and numpy
references as binary files and manifest.ron, which the Rust test gpu-model/tests/iree_run.rs
runs.

    build.py               rebuild build/, data/ and manifest.ron (needs iree-base-compiler==3.13.0,
                           numpy)
    build.py --check       without IREE: every file the manifest lists has its recorded sha256,
                           no unlisted file exists, and kernels.mlir/build.py are the ones the
                           manifest was built from (CI)
    build.py --rebuild-check   with IREE: rebuild into a temp dir and compare byte for byte
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import pinned  # noqa: E402  (corpus/pinned.py: the manifest check both corpora share)

sha256 = pinned.sha256
IREE_VERSION = "3.13.0rc20261016"  # iree.compiler.version.VERSION of PyPI iree-base-compiler==3.13.0
TARGETS = ["gfx90a", "gfx942", "gfx950"]
# Sources whose hash the manifest records.
SOURCES = ["kernels.mlir", "build.py"]


def sources_hash():
    return pinned.sources_hash(HERE, SOURCES)


# ---------------------------------------------------------------------------------------------
# Inputs and numpy references

def rng(seed):
    import numpy as np
    return np.random.default_rng(seed)


def write(data_dir, name, arr):
    import numpy as np
    (data_dir / name).write_bytes(np.ascontiguousarray(arr).tobytes())
    return "data/" + name


class Case:
    """One function of kernels.mlir. `buffers` are the dispatch's bindings in order (the
    function's arguments, then its result): (name, elem, len, init file or None for zeros).
    Checks: (buffer, ref file, ref elem, rel, abs)."""

    def __init__(self, name, buffers, checks):
        self.name, self.buffers, self.checks = name, buffers, checks


def cases(data_dir):
    import numpy as np
    out = []

    # matmul_f32: 128x64 @ 64x96. Tolerance: f32 accumulation over K = 64 in any order
    # (K * 2^-24 * sum |a*b| < 1e-5 for inputs in [-1, 1]) plus 2^-24 relative.
    M, K, N = 128, 64, 96
    a = rng(1).uniform(-1, 1, (M, K)).astype(np.float32)
    b = rng(2).uniform(-1, 1, (K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    out.append(Case("matmul_f32",
                    [("a", "F32", M * K, write(data_dir, "matmul_f32.a.bin", a)),
                     ("b", "F32", K * N, write(data_dir, "matmul_f32.b.bin", b)),
                     ("c", "F32", M * N, None)],
                    [("c", write(data_dir, "matmul_f32.c.ref.bin", ref.astype(np.float32)), "F32", 1e-5, 1e-5)]))

    # matmul_f16: 128x128 @ 128x128 in f16, f32 accumulation and result: the products are
    # exact in f32, so only the accumulation order counts (K * 2^-24 * sum |a*b| < 1e-4).
    M = K = N = 128
    a = rng(3).uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng(4).uniform(-1, 1, (K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    out.append(Case("matmul_f16",
                    [("a", "F16", M * K, write(data_dir, "matmul_f16.a.bin", a)),
                     ("b", "F16", K * N, write(data_dir, "matmul_f16.b.bin", b)),
                     ("c", "F32", M * N, None)],
                    [("c", write(data_dir, "matmul_f16.c.ref.bin", ref.astype(np.float32)), "F32", 1e-5, 1e-4)]))

    # add_relu: relu(x + y), 1000 f32. One f32 add: exact against the f32-rounded reference.
    n = 1000
    x = rng(5).uniform(-1, 1, n).astype(np.float32)
    y = rng(6).uniform(-1, 1, n).astype(np.float32)
    ref = np.maximum(x + y, np.float32(0))
    out.append(Case("add_relu",
                    [("x", "F32", n, write(data_dir, "add_relu.x.bin", x)),
                     ("y", "F32", n, write(data_dir, "add_relu.y.bin", y)),
                     ("out", "F32", n, None)],
                    [("out", write(data_dir, "add_relu.out.ref.bin", ref), "F32", 0.0, 0.0)]))

    # row_sum: 64 rows of 300 f32; the order of the f32 sum is the kernel's (tolerance as
    # Triton's reduction: rel 1e-5, abs 1e-4 covers 300 * 2^-24 * sum |x|).
    rows, cols = 64, 300
    x = rng(7).uniform(-1, 1, (rows, cols)).astype(np.float32)
    ref = x.astype(np.float64).sum(axis=1)
    out.append(Case("row_sum",
                    [("x", "F32", rows * cols, write(data_dir, "row_sum.x.bin", x)),
                     ("out", "F32", rows, None)],
                    [("out", write(data_dir, "row_sum.out.ref.bin", ref.astype(np.float32)), "F32", 1e-5, 1e-4)]))
    return out


# ---------------------------------------------------------------------------------------------
# Compile

def iree_compile():
    import iree.compiler.version as v
    from iree.compiler.tools import binaries
    assert v.VERSION == IREE_VERSION, f"need IREE {IREE_VERSION}, have {v.VERSION}"
    return binaries.find_tool("iree-compile")


def flags(target):
    return [str(HERE / "kernels.mlir"), "--iree-hal-target-device=hip", f"--iree-rocm-target={target}"]


def exports(mlir):
    """The dispatches of `--compile-to=executable-targets` output: export name -> (workgroup
    count, workgroup size, wave size, binding count, constant count). The workgroup count is the export's
    `count` region, which for static shapes returns index constants."""
    out = {}
    pat = re.compile(r"hal\.executable\.export public @(\w+) ordinal\(\d+\) layout\((.*?)\) "
                     r"count\(%arg0: !hal\.device\) -> \(index, index, index\) \{\n(.*?)\n\s*\} "
                     r"<workgroup_size = \[(\d+) : index, (\d+) : index, (\d+) : index\], subgroup_size = (\d+)>", re.S)
    for m in pat.finditer(mlir):
        name, layout, body = m.group(1), m.group(2), m.group(3)
        consts = dict(re.findall(r"(%\w+) = arith\.constant (\d+) : index", body))
        ret = re.search(r"hal\.return (%\w+), (%\w+), (%\w+) : index, index, index", body)
        if ret is None or any(r not in consts for r in ret.groups()):
            raise SystemExit(f"{name}: the workgroup count is not constant:\n{body}")
        count = tuple(int(consts[r]) for r in ret.groups())
        size = tuple(int(m.group(i)) for i in (4, 5, 6))
        c = re.search(r"constants = (\d+)", layout)
        out[name] = (count, size, int(m.group(7)), layout.count("#hal.pipeline.binding<"), int(c.group(1)) if c else 0)
    return out


def compile_all(dest):
    sys.path.insert(0, str(HERE))
    tool = iree_compile()
    (dest / "data").mkdir(parents=True)
    all_cases = cases(dest / "data")
    manifest = []
    for t in TARGETS:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            subprocess.run([tool, *flags(t), f"--iree-hal-dump-executable-binaries-to={tmp}/bin",
                            "-o", str(tmp / "kernels.vmfb")], check=True)
            subprocess.run([tool, *flags(t), "--compile-to=executable-targets",
                            "-o", str(tmp / "targets.mlir")], check=True)
            objs = sorted((tmp / "bin").glob("*.hsaco"))
            # IREE links every dispatch of the module into one code object.
            if len(objs) != 1:
                raise SystemExit(f"{t}: expected one linked code object, got {[o.name for o in objs]}")
            (dest / "build" / t).mkdir(parents=True, exist_ok=True)
            rel = f"build/{t}/kernels.hsaco"
            shutil.copy(objs[0], dest / rel)
            ex = exports((tmp / "targets.mlir").read_text())
        for case in all_cases:
            names = [n for n in ex if n.startswith(case.name + "_dispatch_")]
            if len(names) != 1:
                raise SystemExit(f"{case.name}@{t}: expected one dispatch, got {names}")
            count, size, wave, bindings, constants = ex[names[0]]
            if bindings != len(case.buffers) or constants != 0:
                raise SystemExit(f"{names[0]}@{t}: {bindings} bindings and {constants} constants, "
                                 f"want {len(case.buffers)} and 0")
            manifest.append((case, t, names[0], count, size, wave, rel))
    return manifest


def ron_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_manifest(dest, manifest):
    lines = ["// Generated by corpus/iree/build.py: do not edit by hand.",
             "(", f"    iree: {ron_str(IREE_VERSION)},", f"    sources_sha256: {ron_str(sources_hash())},",
             "    cases: ["]
    for case, t, kernel, count, size, wave, rel in manifest:
        lines += [
            "        (",
            f"            name: {ron_str(case.name)},",
            f"            target: {ron_str(t)},",
            f"            object: {ron_str(rel)},",
            f"            kernel: {ron_str(kernel)},",
            "            abi: IreeHip,",
            f"            wave_size: {wave},",
            f"            num_warps: {size[0] * size[1] * size[2] // wave},",
            f"            programs: ({count[0]}, {count[1]}, {count[2]}),",
            f"            grid: ({count[0] * size[0]}, {count[1] * size[1]}, {count[2] * size[2]}),",
            f"            workgroup: ({size[0]}, {size[1]}, {size[2]}),",
            "            shared: 0,",
            "            buffers: [",
        ]
        for name, elem, n, init in case.buffers:
            init_s = "Zeros" if init is None else f"File({ron_str(init)})"
            lines.append(f"                (name: {ron_str(name)}, elem: {elem}, len: {n}, init: {init_s}),")
        lines += ["            ],",
                  "            args: [" + ", ".join(f"Buffer({ron_str(b[0])})" for b in case.buffers) + "],",
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
    write_manifest(dest, compile_all(dest))


def main():
    pinned.main(HERE, "iree", SOURCES, build_into, __doc__)


if __name__ == "__main__":
    main()
