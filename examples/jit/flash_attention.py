"""Flash attention for one head in a single pl.at scope (PyPTO's flash-attention example pattern): the key
blocks are walked by a pl.range loop that carries the running row max m, row sum l and unnormalised output o;
the first block initialises them in an if branch, later blocks rescale (online softmax). QK^T reads the keys as
stored through b_trans=True. On Ascend910B the scores cross from the cube to the vector unit through GM (no
L0C -> UB path) and the probabilities cross back through GM and L1.
Run: python examples/jit/flash_attention.py"""

import numpy as np

import tilefold.language as pl
from tilefold.runtime import RunConfig

SQ, SK, D, BLOCK = 64, 512, 64, 128
SCALE = 1.0 / 8.0  # 1 / sqrt(D)


@pl.jit
def flash_attention(q: pl.Tensor[[SQ, D], pl.FP16], k: pl.Tensor[[SK, D], pl.FP16],
                    v: pl.Tensor[[SK, D], pl.FP16], out: pl.Out[pl.Tensor[[SQ, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flash_attention"):
        m = pl.full([SQ, 1], dtype=pl.FP32, value=0.0)
        l = pl.full([SQ, 1], dtype=pl.FP32, value=0.0)
        o = pl.full([SQ, D], dtype=pl.FP32, value=0.0)
        for j in pl.range(SK // BLOCK):
            k_j = k[j * BLOCK:(j + 1) * BLOCK, :]
            v_j = v[j * BLOCK:(j + 1) * BLOCK, :]
            s = pl.mul(pl.matmul(q, k_j, b_trans=True, out_dtype=pl.FP32), SCALE)
            if j == 0:  # the first block starts the running statistics
                m0 = pl.row_max(s)
                p0 = pl.exp(pl.row_expand_sub(s, m0))
                o0 = pl.matmul(pl.cast(p0, target_type=pl.FP16), v_j, out_dtype=pl.FP32)
                m_new, l_new, o_new = pl.yield_(m0, pl.row_sum(p0), o0)
            else:  # later blocks rescale what came before by exp(m_old - m_new)
                m1 = pl.maximum(m, pl.row_max(s))
                p1 = pl.exp(pl.row_expand_sub(s, m1))
                alpha = pl.exp(pl.sub(m, m1))
                pv = pl.matmul(pl.cast(p1, target_type=pl.FP16), v_j, out_dtype=pl.FP32)
                m_new, l_new, o_new = pl.yield_(m1, pl.add(pl.mul(l, alpha), pl.row_sum(p1)),
                                                pl.add(pl.row_expand_mul(o, alpha), pv))
            m, l, o = m_new, l_new, o_new  # rebinding in the loop body: carried to the next block
        out[:] = pl.row_expand_div(o, l)
    return out


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    s = q.astype(np.float32) @ k.astype(np.float32).T * SCALE
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float32)


def main() -> None:
    rng = np.random.default_rng(5)
    q = rng.standard_normal((SQ, D)).astype(np.float16)
    k = rng.standard_normal((SK, D)).astype(np.float16)
    v = rng.standard_normal((SK, D)).astype(np.float16)
    for platform in ("a2a3sim", "a5sim"):
        out = np.zeros((SQ, D), np.float32)
        flash_attention(q, k, v, out, config=RunConfig(platform=platform))
        np.testing.assert_allclose(out, reference(q, k, v), rtol=2e-2, atol=2e-2)
    print(f"flash attention ({SK // BLOCK} key blocks, online softmax) matches numpy on Ascend910B and Ascend950")


if __name__ == "__main__":
    main()
