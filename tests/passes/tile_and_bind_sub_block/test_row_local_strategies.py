"""Sub-block strategies of the sort ops (``sorting.py``: rows only) and of the expansions (``expansion.py``).
Each case checks the halves the pass builds, then runs with the pass on and off and compares with a numpy
reference written here, element by element (sort results bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.ir.expr import Call
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED, SPLIT_REQUEST
from tilefold.testing import run_and_compare

ON_OFF = ({}, {"enable_auto_bind_sub_block": False})


def _program(body: str, params: str):
    text = f'''
import tilefold.language as pl
from tilefold import ir


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, {params}):
{body}
        return out
'''
    return pl.parse(text, "row_local.py")


def _calls(program, name: str) -> list[Call]:
    found: list[Call] = []

    class _V(IRVisitor):
        def visit_Call(self, call: Call) -> None:
            if call.op_name == name:
                found.append(call)
            super().visit_Call(call)

    _V().visit_program(program)
    return found


def _shapes(call: Call) -> tuple:
    return tuple(call.type.static_shape), tuple(tuple(a.type.static_shape) for a in call.args
                                                  if hasattr(a.type, "static_shape"))


def _run(program, inputs: dict, want: np.ndarray, axis: int | None, bits: bool = False) -> None:
    after, remarks = run_pass(program)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) == axis, fn.attr(REVERTED)
    for options in ON_OFF:
        report = run_and_compare(program, {k: v.copy() for k, v in inputs.items()}, options=options)
        assert report.result == "correct", report.summary()
        got = report.outputs["out"]
        if bits:
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        else:
            np.testing.assert_array_equal(got, want)
    return after, remarks


def _sorted_structures(x: np.ndarray, idx: np.ndarray, merge: bool) -> np.ndarray:
    """FP32 (value, index) pairs: each 32-block sorted descending (ties by position); ``merge``: then each row's
    runs merged (the row holds at most 4 runs, so one group), ties keeping the earlier run first."""
    rows, cols = x.shape
    out = np.zeros((rows, 2 * cols), np.uint32)
    for r in range(rows):
        order: list[int] = []
        for b in range(0, cols, 32):
            order += sorted(range(b, b + 32), key=lambda j: (-float(x[r, j]), j))
        if merge:
            order = sorted(order, key=lambda j: (-float(x[r, j]), j // 32))
        for k, j in enumerate(order):
            out[r, 2 * k] = x[r, j:j + 1].view(np.uint32)[0]
            out[r, 2 * k + 1] = np.uint32(idx[r, j])
    return out.view(np.float32)


SORT = ("        x: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{r}, 64], "
        "target_memory=pl.Mem.Vec)\n"
        "        j: pl.Tile[[{r}, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [{r}, 64], "
        "target_memory=pl.Mem.Vec)\n"
        "        s: pl.Tile[[{r}, 128], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(x, j)\n"
        "{merge}"
        "        out = pl.store(s, [0, 0], out)")
MERGE = "        s = pl.tile.mrgsort(s, block_len=32)\n"


@pytest.mark.parametrize("rows,merge,axis", [
    (16, False, 0),   # sort32 halves on rows: each sub-block sorts its 8 rows
    (16, True, 0),    # sort32 then mrgsort, both on row halves
    (3, False, None),  # odd rows: only a column split is left, and a sort is refused on columns
    (3, True, None),
])
def test_sorts_split_on_rows_only(rows, merge, axis):
    params = (f"a: pl.Tensor[[{rows}, 64], pl.FP32], idx: pl.Tensor[[{rows}, 64], pl.INT32], "
              f"out: pl.Out[pl.Tensor[[{rows}, 128], pl.FP32]]")
    rng = np.random.default_rng(rows + merge)
    a = rng.standard_normal((rows, 64)).astype(np.float32)
    idx = rng.integers(0, 1 << 20, (rows, 64)).astype(np.int32)
    want = _sorted_structures(a, idx, merge)
    program = _program(SORT.format(r=rows, merge=MERGE if merge else ""), params)
    after, remarks = _run(program, {"a": a, "idx": idx, "out": np.zeros((rows, 128), np.float32)}, want, axis,
                          bits=True)
    if axis == 0:
        assert [_shapes(c) for c in _calls(after, "tile.sort32")] == [((8, 128), ((8, 64), (8, 64)))]
        assert [_shapes(c) for c in _calls(after, "tile.mrgsort")] == ([((8, 128), ((8, 128),))] if merge else [])
    else:
        refused = [r for r in remarks if "sorts along the columns" in str(r)]
        assert refused, [str(r) for r in remarks]


def test_a_requested_column_split_of_a_sort_falls_back_to_rows():
    """``sub_block_split=LEFT_RIGHT`` asks for columns; the sort refuses them and the row split is taken."""
    params = ("a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 64], pl.INT32], "
              "out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]")
    program = _program(SORT.format(r=16, merge=MERGE), params)
    fn = program.functions[0]
    program = program.with_fields(functions=(fn.with_fields(attrs=tuple(fn.attrs) + ((SPLIT_REQUEST, "LEFT_RIGHT"),)),))
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    idx = rng.integers(0, 1 << 20, (16, 64)).astype(np.int32)
    after, remarks = _run(program, {"a": a, "idx": idx, "out": np.zeros((16, 128), np.float32)},
                          _sorted_structures(a, idx, True), 0, bits=True)
    assert any("sorts along the columns" in str(r) for r in remarks), [str(r) for r in remarks]


EXPAND = ("        x: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{r}, 64], "
          "target_memory=pl.Mem.Vec)\n"
          "        v: pl.Tile[[{vr}, {vc}], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [{vr}, {vc}], "
          "target_memory=pl.Mem.Vec)\n"
          "        e: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.{op}(v, [{r}, 64])\n"
          "        y: pl.Tile[[{r}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, e)\n"
          "        out = pl.store(y, [0, 0], out)")


@pytest.mark.parametrize("op,rows,vshape,axis,half", [
    ("expand_clone", 16, (1, 64), 0, ((8, 64), ((1, 64),))),    # a row broadcast halved on rows: whole source
    ("expand_clone", 16, (16, 1), 0, ((8, 64), ((8, 1),))),     # a column vector halved with the rows
    ("expand_clone", 16, (16, 64), 0, ((8, 64), ((8, 64),))),   # a plain copy
    ("expand_clone", 3, (3, 1), 1, ((3, 32), ((3, 1),))),       # odd rows: column halves, whole column vector
    ("expand_clone", 3, (1, 64), 1, ((3, 32), ((1, 32),))),     # odd rows: column halves of the row vector
    ("fillpad_expand", 16, (16, 48), 0, ((8, 64), ((8, 48),))),  # each row padded on its own
    ("fillpad_expand", 3, (3, 48), None, None),                  # columns [48, 64) are pad: refused, rolled back
    ("fillpad_expand", 16, (8, 64), 1, ((16, 32), ((8, 32),))),  # rows [8, 16) are pad: rows refused, columns taken
])
def test_expansions_match_numpy(op, rows, vshape, axis, half):
    vr, vc = vshape
    params = (f"a: pl.Tensor[[{rows}, 64], pl.FP32], b: pl.Tensor[[{vr}, {vc}], pl.FP32], "
              f"out: pl.Out[pl.Tensor[[{rows}, 64], pl.FP32]]")
    rng = np.random.default_rng(rows * 100 + vr + vc)
    a = rng.standard_normal((rows, 64)).astype(np.float32)
    b = rng.standard_normal(vshape).astype(np.float32)
    if op == "expand_clone":
        e = np.broadcast_to(b, (rows, 64))
    else:
        e = np.zeros((rows, 64), np.float32)
        e[:vr, :vc] = b
    want = (a + e).astype(np.float32)
    program = _program(EXPAND.format(r=rows, vr=vr, vc=vc, op=op), params)
    after, _ = _run(program, {"a": a, "b": b, "out": np.zeros((rows, 64), np.float32)}, want, axis)
    if half is not None:
        assert [_shapes(c) for c in _calls(after, f"tile.{op}")] == [half]


@pl.program
class SortBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        i: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.ci(0, [16, 64], dtype=pl.INT32)
        s: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(x, i)
        m: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort(s, block_len=16)
        out = pl.store(m, [0, 0], out)
        return out


@pl.program
class SortExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        x: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        i: pl.Tile[[8, 64], pl.INT32, pl.Mem.Vec] = pl.tile.ci(0 + sb * 512, [8, 64], dtype=pl.INT32)
        s: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.sort32(x, i)
        m: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mrgsort(s, block_len=16)
        out_1 = pl.store(m, [sb * 8, 0], out, tiled_op=True)
        return out_1


def test_sort_and_merge_row_halves_expected_ir():
    after, _ = run_pass(SortBefore)
    ir.assert_structural_equal(after, SortExpected)


@pl.program
class ExpandBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, b: pl.Tensor[[3, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 64], pl.FP32]]) -> pl.Tensor[[3, 64], pl.FP32]:
        v: pl.Tile[[3, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [3, 1], target_memory=pl.Mem.Vec)
        e: pl.Tile[[3, 64], pl.FP32, pl.Mem.Vec] = pl.tile.expand_clone(v, [3, 64])
        out = pl.store(e, [0, 0], out)
        return out


@pl.program
class ExpandExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 1})
    def kernel(self, b: pl.Tensor[[3, 1], pl.FP32],
               out: pl.Out[pl.Tensor[[3, 64], pl.FP32]]) -> pl.Tensor[[3, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        v: pl.Tile[[3, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [3, 1], target_memory=pl.Mem.Vec)
        e: pl.Tile[[3, 32], pl.FP32, pl.Mem.Vec] = pl.tile.expand_clone(v, [3, 32])
        out_1 = pl.store(e, [0, sb * 32], out, tiled_op=True)
        return out_1


def test_expand_clone_column_halves_expected_ir():
    after, _ = run_pass(ExpandBefore)
    ir.assert_structural_equal(after, ExpandExpected)


def test_fillpad_expand_of_a_clipped_source_pads_each_half():
    """The source's valid region [10, 40] is clipped per row half (10 rows -> 8 and 2): each half pads its own
    rows past the clip and its columns past 40."""
    body = ("        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "        v: pl.Tile[[16, 48], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 48], "
            "target_memory=pl.Mem.Vec)\n"
            "        w = pl.tile.set_validshape(v, [10, 40])\n"
            "        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad_expand(w, [16, 64])\n"
            "        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, e)\n"
            "        out = pl.store(y, [0, 0], out)")
    params = ("a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 48], pl.FP32], "
              "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((16, 48)).astype(np.float32)
    e = np.zeros((16, 64), np.float32)
    e[:10, :40] = b[:10, :40]
    after, _ = _run(_program(body, params), {"a": a, "b": b, "out": np.zeros((16, 64), np.float32)}, a + e, 0)
    assert [_shapes(c) for c in _calls(after, "tile.fillpad_expand")] == [((8, 64), ((8, 48),))]
