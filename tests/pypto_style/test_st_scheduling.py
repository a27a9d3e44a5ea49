"""Multi-block dispatch in PyPTO's program form: ``with pl.spmd(n): out = self.kernel(...)`` (Scopes page, the
dispatch form), each block addressing its rows with ``pl.tile.get_block_idx()``; the launch counts it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, PL, rand, run_case

import tilefold.language as pl
from tilefold.errors import ParseError


def get_spmd_program(blocks: int, rows: int, cols: int, dtype: str):
    dt = PL[dtype]
    per = rows // blocks

    @pl.program
    class SpmdAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt],
                   out: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            blk = pl.tile.get_block_idx()
            ta = pl.load(a, [blk * per, 0], [per, cols])
            tb = pl.load(b, [blk * per, 0], [per, cols])
            out = pl.store(pl.add(ta, tb), [blk * per, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt],
                         out: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            with pl.spmd(blocks):
                out = self.kernel(a, b, out)
            return out

    return SpmdAdd


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("blocks,rows", [(4, 128), (2, 64), (8, 128)])
def test_spmd_dispatch_form(dtype, blocks, rows):
    a, b = rand((rows, 64), dtype, 1), rand((rows, 64), dtype, 2)
    run_case(get_spmd_program(blocks, rows, 64, dtype), {"a": a, "b": b}, {"out": np.zeros((rows, 64), NP[dtype])},
             lambda x: {"out": x["a"] + x["b"]}, dtype)


def test_spmd_block_count_reaches_the_kernel():
    from tilefold.compiler import compile as compile_program

    pto = compile_program(get_spmd_program(4, 128, 64, "fp32"), "Ascend910B").pto
    assert pto.kernels["kernel"].block_dim == 4


BAD = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
{body}
        return out
"""


@pytest.mark.parametrize("body,message", [
    ("with pl.spmd(2):\n    out = self.kernel(a, out)\nout = self.kernel(a, out)", "different pl.spmd block counts"),
    ("with pl.spmd(n):\n    out = self.kernel(a, out)", "one positive compile-time integer"),
    ("with pl.spmd(0):\n    out = self.kernel(a, out)", "one positive compile-time integer"),
    ("with pl.spmd(2):\n    m = n + 1", "launches no kernel"),
])
def test_bad_spmd_dispatch_is_located(body, message):
    with pytest.raises(ParseError, match=message) as info:
        pl.parse(BAD.format(body="\n".join("        " + ln for ln in body.splitlines())))
    assert info.value.hint


def get_submit_program(m: int, n: int):
    @pl.program
    class Submitted:
        @pl.function(type=pl.FunctionType.InCore)
        def producer(self, a: pl.Tensor[[m, n], pl.FP32],
                     mid: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            mid = pl.store(pl.exp(pl.load(a, [0, 0], [m, n])), [0, 0], mid)
            return mid

        @pl.function(type=pl.FunctionType.InCore)
        def consumer(self, mid: pl.Tensor[[m, n], pl.FP32],
                     out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            out = pl.store(pl.add(pl.load(mid, [0, 0], [m, n]), 1.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], pl.FP32],
                         out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            mid = pl.create_tensor([m, n], dtype=pl.FP32)
            mid, first = pl.submit(self.producer, a, mid)
            out, _ = pl.submit(self.consumer, mid, out, deps=[first])
            return out

    return Submitted


def test_submit_with_deps():
    a = rand((32, 64), "fp32", 3)
    run_case(get_submit_program(32, 64), {"a": a}, {"out": np.zeros((32, 64), np.float32)},
             lambda x: {"out": np.exp(x["a"]) + 1.0}, "fp32")


@pytest.mark.parametrize("body,message", [
    ("out, tid = pl.submit(a, out)", "self.<kernel> first"),
    ("out, tid = pl.submit(self.kernel, a, out, deps=[a])", "is not a task id"),
    ("out, tid = pl.submit(self.kernel, a, out, priority=1)", "unknown keyword argument 'priority'"),
])
def test_bad_submit_is_located(body, message):
    """(``predicate=`` is refused as NotSupportedError, tested below.)"""
    with pytest.raises(ParseError, match=message) as info:
        pl.parse(BAD.format(body="\n".join("        " + ln for ln in body.splitlines())))
    assert info.value.hint


def test_submit_predicate_is_refused():
    from tilefold.errors import NotSupportedError

    with pytest.raises(NotSupportedError, match="predicate"):
        pl.parse(BAD.format(body="        out, tid = pl.submit(self.kernel, a, out, predicate=True)"))
