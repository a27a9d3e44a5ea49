"""The catalog operators of tilefold.ops.catalog_ops in AIV kernels (the @pl.program form, PyPTO's tile spellings),
with TileAndBindSubBlock on: the work is split 1:2 across the vector sub-blocks where the op's kind allows it
(element-wise, reductions along the kept axis, broadcasts) and kept whole otherwise (partial arithmetic); either
way the simulated result equals golden and a numpy reference computed here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.testing import run_and_compare, sub_block_evidence

RNG = np.random.default_rng(5)

KERNEL = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
               ints: pl.Tensor[[64, 64], pl.INT32], sel: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
               arg: pl.Out[pl.Tensor[[64, 1], pl.INT32]], bits: pl.Out[pl.Tensor[[64, 64], pl.INT32]],
               soft: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64])
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 64])
        n: pl.Tile[[64, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(ints, [0, 0], [64, 64])
        mask: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cmp(x, y, cmp_type=3)
        picked: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(mask, x, y)
        mixed: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.addsc(picked, 1.0, pl.tile.lrelu(y, 0.2))
        sel = pl.store(mixed, [0, 0], sel)
        idx: pl.Tile[[64, 1], pl.INT32, pl.Mem.Vec] = pl.tile.row_argmax(x)
        arg = pl.store(idx, [0, 0], arg)
        shifted: pl.Tile[[64, 64], pl.INT32, pl.Mem.Vec] = pl.tile.shrs(pl.tile.xors(n, 255), 1)
        bits = pl.store(pl.tile.not_(shifted), [0, 0], bits)
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_expdif(x, pl.tile.row_max(x))
        soft = pl.store(pl.tile.row_expand_div(e, pl.tile.row_sum(e)), [0, 0], soft)
        return sel
'''

PARTIAL = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], s: pl.Tensor[[32, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64])
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [0, 0], [32, 64])
        out = pl.store(pl.tile.part_max(x, y), [0, 0], out)
        return out
'''


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_catalog_ops_split_across_sub_blocks(target):
    a, b = RNG.standard_normal((64, 64)).astype(np.float32), RNG.standard_normal((64, 64)).astype(np.float32)
    ints = RNG.integers(-5000, 5000, (64, 64)).astype(np.int32)
    outs = {"sel": np.zeros((64, 64), np.float32), "arg": np.zeros((64, 1), np.int32),
            "bits": np.zeros((64, 64), np.int32), "soft": np.zeros((64, 64), np.float32)}
    rep = run_and_compare(pl.parse(KERNEL), {"a": a, "b": b, "ints": ints, **outs}, target=target,
                          options={"enable_auto_bind_sub_block": True})
    assert rep.result == "correct", rep.summary()
    evidence = sub_block_evidence(rep.compiled.ir)
    assert evidence.split, evidence.problems  # the catalog ops did not stop the 1:2 split
    lrelu = np.where(b > 0, b, 0.2 * b)
    np.testing.assert_allclose(rep.outputs["sel"], np.where(a <= b, a, b) + 1.0 + lrelu, rtol=1e-6)
    np.testing.assert_array_equal(rep.outputs["arg"][:, 0], a.argmax(axis=1))
    np.testing.assert_array_equal(rep.outputs["bits"], -((ints ^ 255) >> 1) - 1)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(rep.outputs["soft"], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_partial_arithmetic_in_an_aiv_kernel_is_correct_with_the_pass_on():
    a, s = RNG.standard_normal((64, 64)).astype(np.float32), RNG.standard_normal((32, 64)).astype(np.float32)
    rep = run_and_compare(pl.parse(PARTIAL), {"a": a, "s": s, "out": np.zeros((64, 64), np.float32)},
                          options={"enable_auto_bind_sub_block": True})
    assert rep.result == "correct", rep.summary()
    ref = a.copy()
    ref[:32] = np.maximum(a[:32], s)
    np.testing.assert_array_equal(rep.outputs["out"], ref)
