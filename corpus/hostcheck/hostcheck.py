#!/usr/bin/env python3
"""Checks the manifest's `computes` statements against the kernel sources, on the CPU.

For every test case whose kernel can run on the host (no lane-level builtins, no assembly),
this compiles the kernel source with hostcheck/prelude.h (x86, clang-22), runs each
workgroup with one thread per work-item, and compares the outputs with an independent
Python reference written from the manifest statement (refs.py). It also implements the
manifest's init generators (README.md, "Manifest schema"), so it doubles as their reference.

    python3 corpus/hostcheck/hostcheck.py [CASE ...]
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)
sys.path.insert(0, CORPUS)
sys.path.insert(0, HERE)
import kernels  # noqa: E402
import refs  # noqa: E402

CLANG = "clang" + os.environ.get("LLVM_SUFFIX", "-22")
FMT = {"U8": "B", "I8": "b", "U16": "H", "I16": "h", "F16": "e", "U32": "I", "I32": "i",
       "F32": "f", "U64": "Q", "I64": "q", "F64": "d"}
CTYPE = {"U8": "uint8_t", "I8": "int8_t", "U16": "uint16_t", "I16": "int16_t", "F16": "_Float16",
         "U32": "uint32_t", "I32": "int32_t", "F32": "float", "U64": "uint64_t", "I64": "int64_t",
         "F64": "double"}
BITS = {"U8": 8, "I8": 8, "U16": 16, "I16": 16, "F16": 16, "U32": 32, "I32": 32, "F32": 32,
        "U64": 64, "I64": 64, "F64": 64}
FLOATS = {"F16", "F32", "F64"}
# Kernels that need the GPU's lanes (bpermute, DPP, swizzle, readlane), its dispatch packet,
# or are assembly: not runnable on the host.
NOT_HOST = {"wave_reduce", "dpp_row_scan", "block_reduce", "hidden_args", "mfma_f32", "asm_salu",
            "asm_callret", "asm_lanes", "asm_semaphore", "asm_buffer", "asm_dpp", "asm_t16", "mfma_more"}
STRUCT_TYPES = {"kernarg_struct": "params_t"}
# C++ names of kernels whose symbol is mangled.
HOST_NAMES = {"_Z14template_scaleIfEvPT_PKS0_S0_j": "template_scale<float>",
              "_Z14template_scaleIdEvPT_PKS0_S0_j": "template_scale<double>"}
DYN_LDS_SYMBOL = {"dyn_lds": "dyn"}


# ---------------------------------------------------------------- init generators
def lowbias32(x):
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def hash32(seed, k):
    return lowbias32((k ^ (seed * 0x9E3779B9)) & 0xFFFFFFFF)


def hash_elem(seed, i, bits):
    if bits == 64:
        return (hash32(seed, 2 * i) << 32) | hash32(seed, 2 * i + 1)
    return hash32(seed, i) & ((1 << bits) - 1)


def to_elem(elem, v):
    """Converts a Python number to the element type's value (wrapping integers, rounding floats)."""
    if elem in FLOATS:
        return struct.unpack("<" + FMT[elem], struct.pack("<" + FMT[elem], float(v)))[0]
    bits = BITS[elem]
    v = int(v) & ((1 << bits) - 1)
    if elem.startswith("I") and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def init_values(arg):
    elem, n, init = arg["elem"], arg["len"], arg["init"]
    kind = init[0]
    if kind == "Zero":
        return [to_elem(elem, 0)] * n
    if kind == "Fill":
        return [to_elem(elem, init[1])] * n
    if kind == "Iota":
        return [to_elem(elem, i) for i in range(n)]
    if kind == "Values":
        assert len(init) - 1 == n
        return [to_elem(elem, v) for v in init[1:]]
    if kind == "Bits":
        vals = [hash_elem(init[1], i, BITS[elem]) for i in range(n)]
        if elem in FLOATS:
            raise SystemExit("Bits for float buffers is not used")
        return [to_elem(elem, v) for v in vals]
    if kind in ("Rand", "RandInt"):
        seed, lo, hi = init[1], init[2], init[3]
        if elem in FLOATS and kind == "Rand":
            return [to_elem(elem, lo + (hi - lo) * ((hash32(seed, i) >> 8) / 16777216.0)) for i in range(n)]
        lo, hi = int(lo), int(hi)
        bits = 64 if BITS[elem] == 64 else 32
        return [to_elem(elem, lo + hash_elem(seed, i, bits) % (hi - lo + 1)) for i in range(n)]
    raise SystemExit(f"unknown init {init}")


# ---------------------------------------------------------------- host driver
RUNTIME = r"""
#include <stdio.h>
#include <stdlib.h>
__thread hc_wi_t hc_wi;
pthread_barrier_t hc_barrier;
static uint hc_grid[3], hc_wg[3];
static void hc_call(void);
static void *hc_thread(void *p) { hc_wi = *(hc_wi_t *)p; hc_call(); return 0; }
static void hc_run(void) {
  uint ng[3];
  for (int d = 0; d < 3; ++d) ng[d] = (hc_grid[d] + hc_wg[d] - 1) / hc_wg[d];
  hc_wi_t *wis = (hc_wi_t *)calloc(1024, sizeof(hc_wi_t));
  pthread_t *th = (pthread_t *)calloc(1024, sizeof(pthread_t));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 18);
  for (uint gz = 0; gz < ng[2]; ++gz) for (uint gy = 0; gy < ng[1]; ++gy) for (uint gx = 0; gx < ng[0]; ++gx) {
    uint g[3] = {gx, gy, gz}, cnt = 0;
    for (uint z = 0; z < hc_wg[2]; ++z) for (uint y = 0; y < hc_wg[1]; ++y) for (uint x = 0; x < hc_wg[0]; ++x) {
      uint l[3] = {x, y, z};
      int inside = 1;
      for (int d = 0; d < 3; ++d) inside &= g[d] * hc_wg[d] + l[d] < hc_grid[d];
      if (!inside) continue;
      for (int d = 0; d < 3; ++d) { wis[cnt].lid[d] = l[d]; wis[cnt].gid[d] = g[d]; wis[cnt].lsz[d] = hc_wg[d]; wis[cnt].gsz[d] = hc_grid[d]; }
      cnt++;
    }
    pthread_barrier_init(&hc_barrier, 0, cnt);
    for (uint k = 0; k < cnt; ++k) if (pthread_create(&th[k], &attr, hc_thread, &wis[k])) { perror("pthread_create"); exit(1); }
    for (uint k = 0; k < cnt; ++k) pthread_join(th[k], 0);
    pthread_barrier_destroy(&hc_barrier);
  }
}
"""

ANYPTR = "struct hc_any { void *p; template <class T> operator T *() const { return (T *)p; } };\n"


def scalar_literal(ty, v):
    if ty in FLOATS:
        return f"(({CTYPE[ty]}){float(v)!r})"
    return f"(({CTYPE[ty]}){int(v)}{'ULL' if ty == 'U64' else 'LL' if ty == 'I64' else ''})"


def driver(case, buffers, tmp):
    lang = case["lang"]
    src = os.path.join(CORPUS, "src", "cl" if lang == "OpenCL" else "hip", case["stem"] + (".cl" if lang == "OpenCL" else ".hip"))
    cxx = lang == "Hip"
    lines = [f'#include "{src}"', RUNTIME]
    if cxx:
        lines.append(ANYPTR)
    if case["stem"] in DYN_LDS_SYMBOL:
        lines.append(f"float {DYN_LDS_SYMBOL[case['stem']]}[65536];")
    lines.append("static void *hc_bufs[16]; static unsigned char hc_local[65536];")
    call_args = []
    bi = 0
    for a in case["args"]:
        if a["kind"] == "Buffer":
            call_args.append(f"hc_any{{hc_bufs[{bi}]}}" if cxx else f"(void *)hc_bufs[{bi}]")
            bi += 1
        elif a["kind"] == "Scalar":
            call_args.append(scalar_literal(a["ty"], a["value"]))
        elif a["kind"] == "LocalPtr":
            call_args.append("(void *)hc_local")
        elif a["kind"] == "Struct":
            blob = bytearray(a["size"])
            for off, ty, v in a["fields"]:
                struct.pack_into("<" + FMT[ty], blob, off, to_elem(ty, v))
            init = ", ".join(str(b) for b in blob)
            lines.append(f"static const unsigned char hc_struct_{a['name']}[] = {{{init}}};")
            call_args.append(f"(*({STRUCT_TYPES[case['stem']]} *)hc_struct_{a['name']})")
    fn = HOST_NAMES.get(case["symbol"], case["symbol"])
    lines.append(f"static void hc_call(void) {{ {fn}({', '.join(call_args)}); }}")
    g, w = case["grid"], case["wg"]
    body = [f"  hc_grid[0] = {g[0]}; hc_grid[1] = {g[1]}; hc_grid[2] = {g[2]};",
            f"  hc_wg[0] = {w[0]}; hc_wg[1] = {w[1]}; hc_wg[2] = {w[2]};"]
    for k, (a, data) in enumerate(buffers):
        body.append(f"  hc_bufs[{k}] = malloc({len(data)} + 16); if (fread(hc_bufs[{k}], 1, {len(data)}, stdin) != {len(data)}) return 2;")
    body.append("  hc_run();")
    for k, (a, data) in enumerate(buffers):
        body.append(f"  fwrite(hc_bufs[{k}], 1, {len(data)}, stdout);")
    lines.append("int main(void) {\n" + "\n".join(body) + "\n  return 0;\n}")
    path = os.path.join(tmp, case["name"] + (".cpp" if cxx else ".c"))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    exe = path + ".exe"
    cmd = [CLANG, "-O1", "-w", "-I", HERE, "-include", os.path.join(HERE, "prelude.h"), "-x", "c++" if cxx else "c",
           path, "-o", exe, "-lpthread", "-lm"]
    subprocess.run(cmd, check=True)
    return exe


def run_case(case, tmp):
    bufs = [(a, init_values(a)) for a in case["args"] if a["kind"] == "Buffer"]
    packed = [(a, struct.pack(f"<{len(v)}{FMT[a['elem']]}", *v)) for a, v in bufs]
    exe = driver(case, packed, tmp)
    out = subprocess.run([exe], input=b"".join(p for _, p in packed), capture_output=True, check=True).stdout
    got, off = {}, 0
    for a, data in packed:
        n = len(data)
        got[a["name"]] = list(struct.unpack(f"<{a['len']}{FMT[a['elem']]}", out[off:off + n]))
        off += n
    inputs = {a["name"]: list(v) for a, v in bufs}
    scalars = {a["name"]: a["value"] for a in case["args"] if a["kind"] == "Scalar"}
    return inputs, scalars, got


def close(a, b, rel, abs_):
    if a == b:
        return True
    if isinstance(a, float) and a != a and b != b:
        return True
    return abs(a - b) <= abs_ + rel * abs(b)


def main():
    only = set(sys.argv[1:])
    fails = checked = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in kernels.CASES:
            if only and case["name"] not in only:
                continue
            if case["stem"] in NOT_HOST or case["lang"] == "Asm":
                skipped += 1
                continue
            ref = getattr(refs, case["name"], None)
            if ref is None:
                print(f"{case['name']}: no Python reference")
                fails += 1
                continue
            try:
                inputs, scalars, got = run_case(case, tmp)
            except subprocess.CalledProcessError as e:
                print(f"{case['name']}: host build or run failed: {e}")
                fails += 1
                continue
            # Host floats are not the GPU's: compare floats with a small tolerance here.
            tol = case["tol"]
            rel, abs_ = (tol[1], tol[2]) if tol[0] == "Float" else (1e-6, 1e-6)
            if case["name"] == "f16_packed" or case["name"] == "f16_hip":
                rel, abs_ = 2e-3, 2e-3
            want = ref(inputs, scalars, got)
            bad = []
            for name, vals in want.items():
                g = got[name]
                for i, (x, y) in enumerate(zip(g, vals)):
                    if not close(x, y, rel, abs_):
                        bad.append(f"{name}[{i}] got {x} want {y}")
                if len(vals) != len(g):
                    bad.append(f"{name}: reference has {len(vals)} elements, buffer {len(g)}")
            checked += 1
            if bad:
                fails += 1
                print(f"{case['name']}: {len(bad)} mismatches, first: {'; '.join(bad[:3])}")
            else:
                print(f"{case['name']}: ok")
    print(f"hostcheck: {checked} cases checked, {fails} failing, {skipped} not host-runnable")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
