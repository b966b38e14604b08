"""Triton kernels of the Triton corpus (see README.md). Imported by build.py only.

Written after the patterns of Triton's tutorials (vector add, fused softmax, layer norm,
matmul, fused attention), as a user would write them; not copied from them.
"""
import triton
import triton.language as tl


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


@triton.jit
def softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * n_cols + offs, num / den, mask=m)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * n
    y_ptr += row * n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    mean = tl.sum(acc, axis=0) / n
    var_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
        d = tl.where(cols < n, x - mean, 0.0)
        var_acc += d * d
    var = tl.sum(var_acc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = cols < n
        w = tl.load(w_ptr + cols, mask=m)
        b = tl.load(b_ptr + cols, mask=m)
        x = tl.load(x_ptr + cols, mask=m, other=0.0)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=m)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A is M x K row-major, B is K x N row-major, C is M x N row-major.
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_m[:, None] % M) * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + (offs_n[None, :] % N)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, n_ctx, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Q, K, V, O: [heads, n_ctx, HEAD_DIM] f16, non-causal; online softmax in base 2.
    start_m = tl.program_id(0)
    base = tl.program_id(1) * n_ctx * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, n_ctx, BLOCK_N):
        kt = tl.load(k_ptr + base + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kt)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + base + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def reduce_atomic(x_ptr, sum_ptr, count_ptr, n, BLOCK: tl.constexpr):
    # Sum of x into sum_ptr[0] (f32 atomic add, order-dependent rounding) and the number of
    # positive elements into count_ptr[0] (i32 atomic add, exact).
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))
    tl.atomic_add(count_ptr, tl.sum((x > 0).to(tl.int32), axis=0))
