"""``out, tid = pl.spmd_submit(self.kernel, *args, core_num=N)`` (dev/01-statements, the submit form of
``pl.spmd``) and the capture form ``with pl.spmd(N, deps=[...]) as tid:`` in the ``@pl.program`` form: the
kernel runs on N blocks (its ``block_dim``), each addressing its rows by ``pl.tile.get_block_idx()``, and the
task id orders later submits. References are numpy, written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import NotSupportedError, ParseError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(3)
SRC = """
import tilefold.language as pl

@pl.program
class Spmd:
    @pl.function(type=pl.FunctionType.InCore)
    def blocks(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
               mid: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        blk = pl.tile.get_block_idx()
        ta = pl.load(a, [blk * {rows}, 0], [{rows}, 32])
        tb = pl.load(b, [blk * {rows}, 0], [{rows}, 32])
        mid = pl.store(pl.mul(ta, tb), [blk * {rows}, 0], mid)
        return mid

    @pl.function(type=pl.FunctionType.InCore)
    def finish(self, mid: pl.Tensor[[64, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        out = pl.store(pl.exp(pl.load(mid, [0, 0], [64, 32])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
             n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mid = pl.create_tensor([64, 32], dtype=pl.FP32)
{body}
        return out
"""
SUBMIT = ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num={blocks}, sync_start=True)\n"
          "out, _ = pl.submit(self.finish, mid, out, deps=[tid])")
CAPTURE = ("with pl.spmd({blocks}, allow_early_resolve=True) as tid:\n    mid = self.blocks(a, b, mid)\n"
           "out, _ = pl.submit(self.finish, mid, out, deps=[tid])")


def _source(body: str, blocks: int = 4) -> str:
    body = body.format(blocks=blocks)
    return SRC.format(rows=64 // blocks, body="\n".join("        " + ln for ln in body.splitlines()))


@pytest.mark.parametrize("form", [SUBMIT, CAPTURE], ids=["spmd_submit", "spmd_as_tid"])
@pytest.mark.parametrize("blocks", [2, 4, 8])
def test_blocks_each_compute_their_rows(form, blocks):
    program = pl.parse(_source(form, blocks))
    assert compile_program(program, "Ascend910B").pto.kernels["blocks"].block_dim == blocks
    a, b = RNG.standard_normal((64, 32)).astype(np.float32), RNG.standard_normal((64, 32)).astype(np.float32)
    report = run_and_compare(program, {"a": a, "b": b, "n": 0, "out": np.zeros((64, 32), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(a * b), rtol=1e-5)


def test_blocks_that_ignore_their_index_race():
    # every block writes the same rows: the simulator runs the 4 blocks as the device does and reports the race
    src = _source(SUBMIT, 4).replace("blk * 16", "0 * blk")
    report = run_and_compare(pl.parse(src), {"a": np.ones((64, 32), np.float32), "b": np.ones((64, 32), np.float32),
                                             "n": 0, "out": np.zeros((64, 32), np.float32)})
    assert report.fault is not None and "race" in str(report.fault).lower()


@pytest.mark.parametrize("body,error,message", [
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid)", ParseError, "needs core_num=N"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=0)", ParseError, "positive compile-time"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=n)", ParseError, "positive compile-time"),
    ("mid, tid = pl.submit(self.blocks, a, b, mid, core_num=4)", ParseError, "unknown keyword argument 'core_num'"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=4, sync_start=1)", ParseError, "True or False"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=4, predicate=n)", NotSupportedError, "predicate"),
    ("mid = pl.spmd_submit(self.blocks, a, b, mid, core_num=4)[0]", ParseError, "whole value of a tuple"),
    ("pl.spmd_submit(self.blocks, a, b, mid, core_num=4)", ParseError, "whole value of a tuple"),
    ("mid, tid = pl.spmd_submit(a, b, mid, core_num=4)", ParseError, "self.<kernel> first"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=4)\nmid = self.blocks(a, b, mid)", ParseError,
     "different pl.spmd block counts"),
    ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=4)\nout, _ = pl.submit(self.finish, mid, out, "
     "deps=[nope])", ParseError, "nope"),
])
def test_bad_spmd_submits_are_located(body, error, message):
    with pytest.raises(error, match=message) as info:
        pl.parse(_source(body))
    assert info.value.hint


def test_a_literal_count_and_a_device_query_for_one_kernel_are_refused_with_why():
    body = ("mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=48)\n"
            "mid, tid = pl.spmd_submit(self.blocks, a, b, mid, core_num=pl.system.available_aiv_count())")
    with pytest.raises(ParseError, match="different pl.spmd block counts") as info:
        pl.parse(_source(body))
    assert "available_*_count() query differ on some chip" in info.value.hint


JIT = """
import tilefold.language as pl

@pl.jit.incore
def kern(a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    out[:] = a
    return out

@pl.jit
def entry(a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
    out, tid = pl.spmd_submit(kern, a, out, core_num=4)
    return out
"""


def test_the_jit_form_is_pointed_at_its_spmd_blocks():
    with pytest.raises(ParseError, match="dispatches a self.<kernel> of a @pl.program class") as info:
        pl.parse(JIT)
    assert "with pl.spmd(N" in info.value.hint
