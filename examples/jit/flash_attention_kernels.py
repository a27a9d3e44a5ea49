"""Flash attention as separate @pl.jit.incore kernels launched per key block (single head): the multi-kernel
form of examples/jit/flash_attention.py, which does the same in one pl.at scope.

O = softmax(Q K^T * scale) V, one key block at a time: per block the cube computes the scores S_j and P_j V_j,
the vector units keep the running row max m and row sum l and rescale the partial output; each step is its own
kernel, chained through GM tensors, and the orchestration's `pl.range` loop (unrolled) launches them block after
block. Run: python examples/jit/flash_attention_kernels.py"""

import numpy as np

import tilefold.language as pl

SQ, SK, D, BLOCK = 64, 512, 64, 128
SCALE = 1.0 / 8.0  # 1 / sqrt(D)


@pl.jit.incore
def scores(q: pl.Tensor, kt: pl.Tensor, j: pl.Scalar[pl.INDEX], s: pl.Out[pl.Tensor]):
    tq = pl.load(q, [0, 0], [SQ, D], target_memory=pl.MemorySpace.Mat)
    tk = pl.load(kt, [0, j * BLOCK], [D, BLOCK], target_memory=pl.MemorySpace.Mat)
    pl.store(pl.matmul(tq, tk), [0, 0], s)
    return s


@pl.jit.incore
def online_softmax(s: pl.Tensor, m: pl.InOut[pl.Tensor], l: pl.InOut[pl.Tensor], p: pl.Out[pl.Tensor],
                   alpha: pl.Out[pl.Tensor]):
    scaled = pl.muls(s, SCALE)
    m_new = pl.maximum(m, pl.row_max(scaled))
    p_exp = pl.exp(pl.row_expand_sub(scaled, m_new))
    rescale = pl.exp(pl.sub(m, m_new))
    l[:] = pl.add(pl.mul(l, rescale), pl.row_sum(p_exp))
    m[:] = m_new
    alpha[:] = rescale
    p[:] = pl.cast(p_exp, target_type=pl.FP16)
    return p


@pl.jit.incore
def probs_times_values(p: pl.Tensor, v: pl.Tensor, j: pl.Scalar[pl.INDEX], pv: pl.Out[pl.Tensor]):
    tp = pl.load(p, [0, 0], [SQ, BLOCK], target_memory=pl.MemorySpace.Mat)
    tv = pl.load(v, [j * BLOCK, 0], [BLOCK, D], target_memory=pl.MemorySpace.Mat)
    pl.store(pl.matmul(tp, tv), [0, 0], pv)
    return pv


@pl.jit.incore
def accumulate(o: pl.InOut[pl.Tensor], alpha: pl.Tensor, pv: pl.Tensor):
    o[:] = pl.add(pl.row_expand_mul(o, alpha), pv)
    return o


@pl.jit.incore
def finish(o: pl.Tensor, l: pl.Tensor, out: pl.Out[pl.Tensor]):
    out[:] = pl.row_expand_div(o, l)
    return out


@pl.jit
def flash_attention(q: pl.Tensor, kt: pl.Tensor, v: pl.Tensor, m: pl.InOut[pl.Tensor], l: pl.InOut[pl.Tensor],
                    o: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor]):
    s = pl.create_tensor([SQ, BLOCK], dtype=pl.FP32)
    p = pl.create_tensor([SQ, BLOCK], dtype=pl.FP16)
    alpha = pl.create_tensor([SQ, 1], dtype=pl.FP32)
    pv = pl.create_tensor([SQ, D], dtype=pl.FP32)
    for j in pl.range(SK // BLOCK):  # unrolled: one launch of each kernel per key block
        s = scores(q, kt, j, s)
        p = online_softmax(s, m, l, p, alpha)
        pv = probs_times_values(p, v, j, pv)
        o = accumulate(o, alpha, pv)
    return finish(o, l, out)


def main() -> None:
    rng = np.random.default_rng(5)
    q = rng.standard_normal((SQ, D)).astype(np.float16)
    k = rng.standard_normal((SK, D)).astype(np.float16)
    v = rng.standard_normal((SK, D)).astype(np.float16)
    kt = np.ascontiguousarray(k.T)
    m = np.full((SQ, 1), -1e30, np.float32)  # running row max, l running row sum, o unnormalised output
    l, o, out = np.zeros((SQ, 1), np.float32), np.zeros((SQ, D), np.float32), np.zeros((SQ, D), np.float32)
    flash_attention(q, kt, v, m, l, o, out)
    s = (q.astype(np.float32) @ k.astype(np.float32).T) * SCALE
    w = np.exp(s - s.max(axis=1, keepdims=True))
    ref = (w / w.sum(axis=1, keepdims=True)) @ v.astype(np.float32)
    np.testing.assert_allclose(out, ref, rtol=2e-2, atol=2e-2)  # P is rounded to FP16 for the cube
    print(f"flash attention over {SK // BLOCK} key blocks matches numpy (max abs error "
          f"{np.abs(out - ref).max():.2e})")


if __name__ == "__main__":
    main()
