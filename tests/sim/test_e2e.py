"""Small kernels compiled with the default pipeline and run on the simulator, checked against golden."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import register_custom_op, unregister_custom_op
from tilefold.testing import run_and_compare

HEAD = "import tilefold.language as pl\n\n@pl.program\nclass P:\n"


def _run(src, inputs="random", **kw):
    rep = run_and_compare(pl.parse(HEAD + src), inputs, **kw)
    assert rep.fault is None, rep.summary()
    assert rep.matches, rep.summary()
    assert rep.cycles > 0 and rep.instructions > 0
    return rep


def test_elementwise_reduction_and_broadcast():
    _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        m = pl.tile.row_max(t)
        e = pl.tile.exp(pl.tile.row_expand_sub(t, m))
        s = pl.tile.row_sum(e)
        y = pl.tile.row_expand_div(e, s)
        out = pl.store(y, [0, 0], out)
        return out
""")


def test_column_broadcast_and_casts():
    _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP16], g: pl.Tensor[[1, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        f = pl.tile.cast(t, target_type=pl.FP32)
        gt = pl.tile.load(g, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        y = pl.tile.col_expand_mul(f, gt)
        out = pl.store(y, [0, 0], out)
        return out
""")


def test_loop_carried_vector_accumulation():
    _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0 = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=0.0, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 4, init_values=(acc0,)):
            t = pl.tile.load(x, [i * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
            nxt = pl.tile.add(acc, t)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
""")


def test_k_loop_matmul_accumulates_in_acc():
    _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 128], pl.BF16], b: pl.Tensor[[128, 32], pl.BF16],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [32, 128], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
        a0 = pl.tile.extract(am, 0, 0, shape=[32, 32], target_memory=pl.Mem.Left)
        b0 = pl.tile.extract(bm, 0, 0, shape=[32, 32], target_memory=pl.Mem.Right)
        c0 = pl.tile.matmul(a0, b0)
        for k, (c,) in pl.range(32, 128, 32, init_values=(c0,)):
            ak = pl.tile.extract(am, 0, k, shape=[32, 32], target_memory=pl.Mem.Left)
            bk = pl.tile.extract(bm, k, 0, shape=[32, 32], target_memory=pl.Mem.Right)
            c2 = pl.tile.matmul_acc(c, ak, bk)
            cr = pl.yield_(c2)
        out = pl.store(cr, [0, 0], out)
        return out
""")


def test_multi_block_with_block_idx():
    rep = _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [b * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        y = pl.tile.muls(t, 3.0)
        out = pl.store(y, [b * 16, 0], out)
        return out
""", block_dim=4)
    assert len(rep.unit_cycles) >= 4
    assert rep.cycles == max(rep.unit_cycles.values())


def test_if_else_with_yield():
    src = """
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        if flag > 0:
            a = pl.tile.muls(t, 2.0)
            r = pl.yield_(a)
        else:
            b = pl.tile.adds(t, 1.0)
            r = pl.yield_(b)
        out = pl.store(r, [0, 0], out)
        return out
"""
    x = np.random.default_rng(1).uniform(-1, 1, (16, 64)).astype(np.float32)
    for flag in (0, 1):
        _run(src, {"x": x, "flag": flag})


def test_custom_op_call():
    register_custom_op("e2e_scale_add", lambda a, b: (a * 2 + b).astype(np.float32), replace=True)
    try:
        _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b = pl.tile.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        o = pl.tile.create(shape=[16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        r = pl.tile.custom("e2e_scale_add", ins=[a, b], outs=[o],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(r, [0, 0], out)
        return out
""", options={"enable_auto_bind_sub_block": False})
    finally:
        unregister_custom_op("e2e_scale_add")


@pytest.mark.parametrize("split", [True, False])
def test_sub_block_split_and_baseline_agree(split):
    rep = _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [32, 128], target_memory=pl.Mem.Vec)
        h = pl.tile.muls(t, 0.5)
        y = pl.tile.exp(h)
        out = pl.store(y, [0, 0], out)
        return out
""", options={"enable_auto_bind_sub_block": split})
    units = set(rep.unit_cycles)
    assert (rep.compiled.pto.entry_kernel.func_type == "AIV") == split
    if split:
        assert units == {"core0.aiv0", "core0.aiv1"}
    else:
        assert units == {"core0"}


def test_orchestration_launches_kernels_in_sequence():
    rep = _run("""
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [b * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        y = pl.tile.muls(t, s)
        out = pl.store(y, [b * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def shift(self, x: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        b = pl.tile.get_block_idx()
        t = pl.tile.load(x, [b * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
        y = pl.tile.adds(t, 1.0)
        out = pl.store(y, [b * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], s: pl.Scalar[pl.FP32], tmp: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        tmp = self.scale(x, s, tmp)
        out = self.shift(tmp, out)
        return out
""", {"x": np.ones((32, 64), np.float32), "s": 3.0}, block_dim=2)
    assert "launch @scale" in rep.compiled.pto.text()
    np.testing.assert_array_equal(rep.outputs["out"], 4.0)
