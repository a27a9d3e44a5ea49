"""A small Qwen3-style decode layer (PyPTO's qwen3_jit model, scaled down): for a batch of decode tokens that share
one cached prompt (parallel sampling), one transformer layer

    h   = x + Wo . attention(q_norm(rmsnorm(x) . Wq), K_cache, V_cache)
    y   = h + Wd . (silu(rmsnorm(h) . Wg) * (rmsnorm(h) . Wu))

with RMSNorm before attention and MLP, Qwen3's RMSNorm on the query (q_norm), softmax attention over the cached
keys / values and a SwiGLU MLP (SiLU composed from neg / exp / adds / recip / mul). On Ascend910B a matmul result
drains to GM, so every cube step and every vector step is its own InCore kernel; the entry chains them through GM
tensors. Matmul operands are FP16, accumulation FP32. Run: python examples/jit/qwen3_decode.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

BATCH, HIDDEN, HEAD_DIM, CACHE, INTER = 16, 128, 128, 64, 256
EPS = 1e-6
SCALE = 1.0 / np.sqrt(HEAD_DIM).item()


@pl.jit.inline
def rms_norm(x, gamma, inv_n):
    mean_sq = pl.muls(pl.row_sum(pl.mul(x, x)), inv_n)
    return pl.col_expand_mul(pl.row_expand_mul(x, pl.rsqrt(pl.adds(mean_sq, EPS))), gamma)


@pl.jit.incore
def input_norm(x: pl.Tensor, gamma: pl.Tensor, xn: pl.Out[pl.Tensor]):
    xn[:] = pl.cast(rms_norm(x, gamma, 1.0 / HIDDEN), target_type=pl.FP16)
    return xn


@pl.jit.incore
def project(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = pl.matmul(a, w, out_dtype=pl.FP32)
    return out


@pl.jit.incore
def query_norm(q: pl.Tensor, gamma: pl.Tensor, q16: pl.Out[pl.Tensor]):
    q16[:] = pl.cast(pl.muls(rms_norm(q, gamma, 1.0 / HEAD_DIM), SCALE), target_type=pl.FP16)
    return q16


@pl.jit.incore
def softmax(s: pl.Tensor, p: pl.Out[pl.Tensor]):
    e = pl.exp(pl.row_expand_sub(s, pl.row_max(s)))
    p[:] = pl.cast(pl.row_expand_div(e, pl.row_sum(e)), target_type=pl.FP16)
    return p


@pl.jit.incore
def to_fp16(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = pl.cast(a, target_type=pl.FP16)
    return out


@pl.jit.incore
def residual_norm(x: pl.Tensor, o: pl.Tensor, gamma: pl.Tensor, h: pl.Out[pl.Tensor], hn: pl.Out[pl.Tensor]):
    res = pl.add(x, o)
    h[:] = res
    hn[:] = pl.cast(rms_norm(res, gamma, 1.0 / HIDDEN), target_type=pl.FP16)
    return h, hn


@pl.jit.incore
def swiglu(gate: pl.Tensor, up: pl.Tensor, act: pl.Out[pl.Tensor]):
    sigmoid = pl.recip(pl.adds(pl.exp(pl.neg(gate)), 1.0))
    act[:] = pl.cast(pl.mul(pl.mul(gate, sigmoid), up), target_type=pl.FP16)
    return act


@pl.jit.incore
def residual(h: pl.Tensor, d: pl.Tensor, y: pl.Out[pl.Tensor]):
    y[:] = pl.add(h, d)
    return y


@pl.jit
def decode_layer(x: pl.Tensor, g_attn: pl.Tensor, wq: pl.Tensor, g_q: pl.Tensor, k_cache_t: pl.Tensor,
                 v_cache: pl.Tensor, wo: pl.Tensor, g_mlp: pl.Tensor, wg: pl.Tensor, wu: pl.Tensor, wd: pl.Tensor,
                 y: pl.Out[pl.Tensor]):
    xn = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP16)
    q = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.FP32)
    q16 = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.FP16)
    s = pl.create_tensor([BATCH, CACHE], dtype=pl.FP32)
    p = pl.create_tensor([BATCH, CACHE], dtype=pl.FP16)
    attn = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.FP32)
    attn16 = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.FP16)
    o = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
    h = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
    hn = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP16)
    gate = pl.create_tensor([BATCH, INTER], dtype=pl.FP32)
    up = pl.create_tensor([BATCH, INTER], dtype=pl.FP32)
    act = pl.create_tensor([BATCH, INTER], dtype=pl.FP16)
    down = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
    # attention
    xn = input_norm(x, g_attn, xn)
    q = project(xn, wq, q)
    q16 = query_norm(q, g_q, q16)
    s = project(q16, k_cache_t, s)
    p = softmax(s, p)
    attn = project(p, v_cache, attn)
    attn16 = to_fp16(attn, attn16)
    o = project(attn16, wo, o)
    h, hn = residual_norm(x, o, g_mlp, h, hn)
    # MLP
    gate = project(hn, wg, gate)
    up = project(hn, wu, up)
    act = swiglu(gate, up, act)
    down = project(act, wd, down)
    return residual(h, down, y)


def reference(x, g_attn, wq, g_q, k_cache_t, v_cache, wo, g_mlp, wg, wu, wd):
    """The layer in numpy, rounding to FP16 where the kernel feeds the cube."""
    f16 = lambda a: a.astype(np.float16).astype(np.float32)  # noqa: E731
    f32 = lambda a: a.astype(np.float32)  # noqa: E731

    def rms(a, g):
        return a / np.sqrt((a * a).mean(axis=1, keepdims=True) + EPS) * g

    q = f16(rms(x, g_attn)) @ f32(wq)
    s = f16(rms(q, g_q) * SCALE) @ f32(k_cache_t)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    attn = f16(e / e.sum(axis=1, keepdims=True)) @ f32(v_cache)
    h = x + f16(attn) @ f32(wo)
    hn = f16(rms(h, g_mlp))
    gate, up = hn @ f32(wg), hn @ f32(wu)
    act = f16(gate / (1.0 + np.exp(-gate)) * up)
    return h + act @ f32(wd)


def main() -> None:
    rng = np.random.default_rng(12)

    def w(*shape, scale=0.1):
        return (rng.standard_normal(shape) * scale).astype(np.float16)

    x = rng.standard_normal((BATCH, HIDDEN)).astype(np.float32)
    g_attn, g_mlp = (1 + 0.1 * rng.standard_normal((1, HIDDEN))).astype(np.float32), np.ones((1, HIDDEN), np.float32)
    g_q = (1 + 0.1 * rng.standard_normal((1, HEAD_DIM))).astype(np.float32)
    args = [x, g_attn, w(HIDDEN, HEAD_DIM), g_q, w(HEAD_DIM, CACHE, scale=1.0), w(CACHE, HEAD_DIM, scale=1.0),
            w(HEAD_DIM, HIDDEN), g_mlp, w(HIDDEN, INTER), w(HIDDEN, INTER), w(INTER, HIDDEN)]
    y = np.zeros((BATCH, HIDDEN), np.float32)
    decode_layer(*args, y, config=RunConfig(platform="a2a3sim"))
    ref = reference(*args)
    np.testing.assert_allclose(y, ref, rtol=2e-2, atol=2e-2)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:  # an independent reference: torch's own rms_norm / softmax / silu
        t = [torch.from_numpy(a).float() for a in args]
        tx, tg_attn, twq, tg_q, tkt, tv, two, tg_mlp, twg, twu, twd = t
        rms = torch.nn.functional.rms_norm
        tq = rms(tx, (HIDDEN,), tg_attn[0], eps=EPS) @ twq
        tp = torch.softmax(rms(tq, (HEAD_DIM,), tg_q[0], eps=EPS) * SCALE @ tkt, dim=-1)
        th = tx + (tp @ tv) @ two
        thn = rms(th, (HIDDEN,), tg_mlp[0], eps=EPS)
        ty = th + (torch.nn.functional.silu(thn @ twg) * (thn @ twu)) @ twd
        torch.testing.assert_close(torch.from_numpy(y), ty, rtol=5e-2, atol=5e-2)
    print(f"qwen3 decode layer matches numpy (max abs error {np.abs(y - ref).max():.2e})")


if __name__ == "__main__":
    main()
