"""Codegen of the partial-tile, element-write and atomic-store ops (@pl.program form): the PTO instructions,
their operands, the GM store coherence check and the refusal of a reduction over a partial tile; the program runs
on the simulator with the golden result."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.backend.pto import SWrite, TLoad, TStore, TVector
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError
from tilefold.testing import run_and_compare

SRC = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               s: pl.InOut[pl.Tensor[[16, 1], pl.FP32]], flag: pl.InOut[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], valid_shapes=[16, n], target_memory=pl.Mem.Vec)
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.zero)
        r = pl.tile.row_sum(p)
        s = pl.store(r, [0, 0], s, atomic=pl.AtomicType.Add)
        flag = pl.write(flag, [1], 1.0)
        return s
'''
OFF = {"enable_auto_bind_sub_block": False}


def _leaves(body):
    for ins in body:
        yield ins
        for field in ("body", "then_body", "else_body"):
            yield from _leaves(getattr(ins, field, None) or ())


def test_instructions_carry_the_valid_extents_the_pad_value_and_the_atomic_mode():
    compiled = compile(pl.parse(SRC), options=OFF)
    body = list(_leaves(compiled.pto.kernels["kernel"].body))
    load = next(i for i in body if isinstance(i, TLoad))
    fill = next(i for i in body if isinstance(i, TVector) and i.op == "tile.fillpad")
    store = next(i for i in body if isinstance(i, TStore))
    write = next(i for i in body if isinstance(i, SWrite))
    assert load.text() == "tload %t, @x[0, 0] valid[16, $n]"
    assert fill.text() == "tfillpad %p, %t, [16, $n], pad_value=PadValue.zero"
    assert store.atomic == "add" and store.text().endswith("atomic=add")
    assert write.text() == "swrite @flag[1], 1.0"


@pytest.mark.parametrize("n", [64, 20, 0])
def test_simulator_equals_golden_and_numpy(n):
    x = np.random.default_rng(n).standard_normal((16, 64)).astype(np.float32)
    s0, flag = np.full((16, 1), 2.0, np.float32), np.zeros(4, np.float32)
    report = run_and_compare(pl.parse(SRC), {"x": x, "n": n, "s": s0, "flag": flag}, options=OFF)
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["s"][:, 0], 2.0 + x[:, :n].sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(report.outputs["flag"], [0.0, 1.0, 0.0, 0.0])


def test_a_bulk_store_and_an_element_write_into_one_tensor_are_rejected():
    src = SRC.replace("flag = pl.write(flag, [1], 1.0)", "s = pl.write(s, [1, 0], 1.0)")
    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(src, "k.py"), options=OFF)
    err = info.value
    assert "writes GM tensor @s both with a bulk store (line 11) and with element writes" in err.message
    assert err.span.line == 12 and err.hint


def test_a_reduction_of_the_unpadded_tile_is_refused_at_compile_time():
    src = SRC.replace("r = pl.tile.row_sum(p)", "r = pl.tile.row_sum(t)")
    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(src, "k.py"), options=OFF)
    assert "tile.row_sum reads the tile 't', whose valid shape is smaller than its shape" in info.value.message
    assert "PadValue.zero before a sum" in info.value.hint and info.value.span.line == 10
