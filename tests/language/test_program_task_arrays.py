"""Task-id arrays in the ``@pl.program`` form (tutorials/04, step 5): ``tids = pl.array.create(n, pl.TASK_ID)``
filled from ``pl.submit`` in an orchestration loop and passed whole in ``deps=[tids]``. tilefold runs the
orchestration in program order, so the edges are checked (a task id, an index inside the array), never
needed. References are numpy, written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

SRC = """
import tilefold.language as pl

@pl.program
class Join:
    @pl.function(type=pl.FunctionType.InCore)
    def producer(self, data: pl.Tensor[[64, 32], pl.FP32], branch: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        t = pl.load(data, [branch * 16, 0], [16, 32])
        out = pl.store(pl.exp(t), [branch * 16, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def consumer(self, mid: pl.Tensor[[64, 32], pl.FP32],
                 res: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        res = pl.store(pl.adds(pl.load(mid, [0, 0], [64, 32]), 1.0), [0, 0], res)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, data: pl.Tensor[[64, 32], pl.FP32],
             res: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mid = pl.create_tensor([64, 32], dtype=pl.FP32)
        tids = pl.array.create(4, pl.TASK_ID)
        for branch in pl.range(4):
            mid, tid = pl.submit(self.producer, data, branch, mid)
            {store}
        res, _ = pl.submit(self.consumer, mid, res, deps=[tids])
        return res
"""


def test_a_consumer_waits_on_a_task_array():
    program = pl.parse(SRC.format(store="tids[branch] = tid"))
    data = np.random.default_rng(4).standard_normal((64, 32)).astype(np.float32)
    report = run_and_compare(program, {"data": data, "res": np.zeros_like(data)})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["res"], np.exp(data) + 1.0, rtol=1e-5)


@pytest.mark.parametrize("store,message", [
    ("tids[4] = tid", r"index 4 out of range \[0, 4\)"),
    ("tids[branch] = data", "is not a task id"),
])
def test_bad_task_array_stores_are_located(store, message):
    with pytest.raises(TilefoldError, match=message) as info:
        pl.parse(SRC.format(store=store))
    assert info.value.hint
