"""PyPTO keywords and operand forms of tile ops (issue 19, item 3), run on the simulator against numpy:
``matmul(b_trans=True)``, ``matmul_acc(init_cond=...)`` (the MMAD init flag), the ``tmp`` scratch operand of the
reductions / rsqrt, and ``row_expand`` / ``col_expand`` of a created target (only its shape is read)."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.analysis.uninitialized_reads import find_uninitialized_reads
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare


def _run(program, inputs):
    report = run_and_compare(program, inputs)
    assert report.fault is None and report.matches, report.summary()
    return report


@pl.program
class TransposedRhs:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        ta = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tb = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(ta, tb, b_trans=True)
        out = pl.store(c, [0, 0], out)
        return out


def test_tile_matmul_b_trans():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 64)).astype(np.float16)
    b = rng.standard_normal((128, 64)).astype(np.float16)
    out = _run(TransposedRhs, {"a": a, "b": b, "out": np.zeros((32, 128), np.float32)}).outputs["out"]
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-3, atol=1e-3)


@pl.program
class InitCondK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        acc0 = pl.tile.create([32, 64], pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            ta = pl.tile.load(a, [0, k * 32], [32, 32], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [k * 32, 0], [32, 64], target_memory=pl.Mem.Mat)
            acc2 = pl.tile.matmul_acc(acc, ta, tb, init_cond=(k == 0))
            acc3 = pl.yield_(acc2)
        out = pl.store(acc3, [0, 0], out)
        return out


def test_matmul_acc_init_cond_starts_the_accumulator_on_the_first_step():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((32, 128)).astype(np.float16)
    b = rng.standard_normal((128, 64)).astype(np.float16)
    report = _run(InitCondK, {"a": a, "b": b, "out": np.zeros((32, 64), np.float32)})
    np.testing.assert_allclose(report.outputs["out"], a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    assert "init=" in report.compiled.pto.text()  # one instruction with its run-time init flag


def test_init_cond_on_a_later_step_still_reads_the_created_accumulator():
    text = InitCondK.as_python().replace("k == 0", "k == 1")
    program = pl.parse(text)
    assert find_uninitialized_reads(program.function("kernel"))  # iteration 0 accumulates into garbage


@pl.program
class ScratchAndExpand:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.tile.create([16, 64], pl.FP32)
        s = pl.tile.row_sum(t, tmp)             # tmp: the instruction's workspace
        r = pl.tile.rsqrt(pl.tile.adds(s, 1.0), tmp=tmp)
        target = pl.tile.create([16, 64], pl.FP32)
        wide = pl.tile.row_expand(target, r)    # only the target's shape is used
        out = pl.store(pl.tile.mul(t, wide), [0, 0], out)
        return out


def test_tmp_scratch_operand_and_row_expand_of_a_created_target():
    a = np.random.default_rng(2).random((16, 64)).astype(np.float32)
    out = _run(ScratchAndExpand, {"a": a, "out": np.zeros_like(a)}).outputs["out"]
    np.testing.assert_allclose(out, a / np.sqrt(a.sum(axis=1, keepdims=True) + 1), rtol=1e-5, atol=1e-6)


def test_scratch_operand_must_be_a_tile():
    text = ScratchAndExpand.as_python().replace("pl.tile.row_sum(t)", "pl.tile.row_sum(t, 3)")
    with pytest.raises(TilefoldError, match="scratch operand"):
        pl.parse(text)


@pl.program
class FillpadInPlace:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) \
            -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64], valid_shapes=[10, 64])
        pl.tile.fillpad_inplace(t, pad_value=pl.PadValue.zero)  # a statement: t holds the padded tile
        out = pl.store(t, [0, 0], out)
        return out


def test_fillpad_inplace_as_a_statement_updates_its_operand():
    a = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    out = _run(FillpadInPlace, {"a": a, "out": np.full((16, 64), 7.0, np.float32)}).outputs["out"]
    expected = a.copy()
    expected[10:] = 0.0
    np.testing.assert_array_equal(out, expected)


# (sort32, mscatter, random, prefetch, ci, expand_clone, scatter_update, fillpad_expand, gather, gather_row,
# paged_gather, gatherb, tri and matmul_mx are modelled since issue 19: tests/sim/test_index_ops.py,
# tests/sim/test_gather_row.py, tests/backend/test_tri.py, tests/backend/test_matmul_mx.py; what PyPTO has and
# tilefold still refuses is listed here)
# (load / move transpose=True are modelled since issue 19: tests/language/test_transposed_load.py; the pipe set-up
# ops and dump_tag too: tests/cross_core/test_ring_setup.py, tests/jit/test_dump_tag.py. The refusal list is empty;
# the test below keeps its mechanism honest with an entry of its own.)
def test_a_catalog_operator_on_the_refusal_list_is_a_located_refusal(monkeypatch):
    from tilefold.errors import NotSupportedError
    from tilefold.frontend import jit_form

    monkeypatch.setitem(jit_form.CATALOG_UNSUPPORTED, "frobnicate", "frobnication has no semantics here")
    text = ("import tilefold.language as pl\n\n@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], "
            "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        out[:] = pl.frobnicate(a)\n"
            "    return out\n")
    with pytest.raises(NotSupportedError) as info:
        pl.parse(text, "<refused>")
    assert info.value.span is not None and info.value.span.line == 6
    assert "frobnication has no semantics here" in info.value.message and "docs/ops.md" in (info.value.hint or "")


def test_tensor_slice_valid_shape_in_an_incore_function_is_a_partial_tile():
    """Once refused; now the valid shape of a slice (tests/jit/test_slice_valid_shape.py has the full set)."""
    src = FillpadInPlace.as_python().replace(
        "t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[10, 64])] = "
        "pl.tile.load(a, [0, 0], [16, 64], [10, 64], target_memory=pl.Mem.Vec)",
        "t = pl.tensor.slice(a, [16, 64], [0, 0], valid_shape=[8, 64])")
    assert "valid_shape=[8, 64]" in src
    a = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    out = _run(pl.parse(src), {"a": a, "out": np.full((16, 64), 7.0, np.float32)}).outputs["out"]
    expected = a.copy()
    expected[8:] = 0.0
    np.testing.assert_array_equal(out, expected)


IF_FORM = '''
import tilefold.language as pl

@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        acc = pl.tile.create([32, 64], pl.FP32, target_memory=pl.Mem.Acc)
        for k in pl.range(4):
            ta = pl.tile.load(a, [0, k * 32], [32, 32], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [k * 32, 0], [32, 64], target_memory=pl.Mem.Mat)
            if {cond}:
                acc = pl.tile.{first}
            else:
                acc = pl.tile.{second}
        out = pl.store(acc, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("cond,first,second", [
    ("k == 0", "matmul(ta, tb)", "matmul_acc(acc, ta, tb)"),
    ("k != 0", "matmul_acc(acc, ta, tb)", "matmul(ta, tb)"),
    ("k > 0", "matmul_acc(acc, ta, tb)", "matmul(ta, tb)"),
])
def test_first_step_if_of_a_k_loop_is_the_init_flag(cond, first, second):
    program = pl.parse(IF_FORM.format(cond=cond, first=first, second=second))
    rng = np.random.default_rng(4)
    a = rng.standard_normal((32, 128)).astype(np.float16)
    b = rng.standard_normal((128, 64)).astype(np.float16)
    if cond == "k > 0":  # not a first-iteration guard the check can prove: the created accumulator is refused
        from tilefold.errors import VerificationError

        with pytest.raises(VerificationError, match="before anything wrote it"):
            run_and_compare(program, {"a": a, "b": b, "out": np.zeros((32, 64), np.float32)})
        return
    report = _run(program, {"a": a, "b": b, "out": np.zeros((32, 64), np.float32)})
    np.testing.assert_allclose(report.outputs["out"], a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
