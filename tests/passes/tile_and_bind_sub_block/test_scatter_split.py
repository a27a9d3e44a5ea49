"""Sub-block split of the scatters (``scatters.py``): ``tile.mscatter`` splits on its source rows when its index
values are provably distinct (a ``tile.ci``, maybe shifted by a scalar), else runs whole on sub-block 0 with a remark
naming the index's producer; the GM data-flow check sees both halves' rows. ``tile.scatter`` / ``scatter_update``:
the split never sends a half to other rows, keeps "a later index wins" (duplicates across the halves), and a fault
names the element of the program's whole index tile.

Each run goes through the simulator with the pass on and off, on both targets, against a numpy reference written
here, bit for bit (none of these ops rounds, the sources are copied)."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.compiler import compile
from tilefold.ir.expr import Call
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.sim import simulate
from tilefold.sim.faults import OutOfBounds
from tilefold.testing import run_and_compare, sub_block_evidence

ON_OFF = ({}, {"enable_auto_bind_sub_block": False})
TARGETS = ("Ascend910B", "Ascend950")


def _program(body: str, params: str):
    text = f'''
import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, {params}):
{body}
        return out
'''
    return pl.parse(text, "scatter_split.py")


def _calls(program, name: str) -> list[Call]:
    found: list[Call] = []

    class _V(IRVisitor):
        def visit_Call(self, call: Call) -> None:
            if call.op_name == name:
                found.append(call)
            super().visit_Call(call)

    _V().visit_program(program)
    return found


def _scatter_rows(base: np.ndarray, src: np.ndarray, rows) -> np.ndarray:
    """mscatter's reference, row by row in index order: a negative index masks, a later row wins."""
    out = base.copy()
    for k, r in enumerate(rows):
        if r >= 0:
            out[r] = src[k]
    return out


def _run(program, inputs: dict, want: np.ndarray, axis: int | None, reason: str | None = None):
    """The pass takes ``axis`` (None: rolls back, for ``reason``); on and off, both targets, give ``want``."""
    after, remarks = run_pass(program)
    fn = after.functions[0]
    assert fn.attr(AXIS_ATTR) == axis, fn.attr(REVERTED)
    if reason is not None:
        assert reason in (fn.attr(REVERTED) or "") + " ".join(str(r) for r in remarks), fn.attr(REVERTED)
    for target in TARGETS:
        for options in ON_OFF:
            report = run_and_compare(program, {k: v.copy() for k, v in inputs.items()}, target=target,
                                     options=options)
            assert report.result == "correct", (target, options, report.summary())
            got = report.outputs["out"]
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return after, remarks


# ------------------------------------------------------------------------------------------------ mscatter


@pl.program
class MscatterBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        c: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3, [16, 1], dtype=pl.INT32)
        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.adds(c, 10)
        out = pl.tile.mscatter(e, j, out)
        return out


@pl.program
class MscatterExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        s: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [sb * 8, 0], [8, 32], target_memory=pl.Mem.Vec)
        e: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        c: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3 + sb * 8, shape=[8, 1], dtype=pl.INT32)
        j: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.adds(c, 10)
        out_1: pl.Tensor[[64, 32], pl.FP32] = pl.tile.mscatter(e, j, out, ir_attrs={"tiled_op": True,
                                                                            "sub_block_half": (0, 8)})
        return out_1


def test_mscatter_of_ci_rows_splits_on_its_source_rows():
    after, remarks = run_pass(MscatterBefore)
    ir.assert_structural_equal(after, MscatterExpected)
    assert any(r.kind == "split" and "tile.mscatter" in str(r) for r in remarks)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    base = rng.standard_normal((64, 32)).astype(np.float32)
    _run(MscatterBefore, {"a": a, "out": base}, _scatter_rows(base, np.exp(a), range(13, 29)), 0)


MSCATTER = ("        s: pl.Tile[[{n}, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{n}, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        e: pl.Tile[[{n}, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)\n"
            "{index}"
            "        out = pl.tile.mscatter(e, j, out)")
LOADED = ("        j: pl.Tile[[{n}, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [{n}, 1], "
          "target_memory=pl.Mem.Vec)\n")


@pytest.mark.parametrize("index,rows,axis,reason", [
    # a descending ci row: its column halves (8 INT32 = 32 B each), rows 40, 39, ..., 25
    ("        j: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ci(40, [1, 16], dtype=pl.INT32, descending=True)\n",
     list(range(40, 24, -1)), 0, None),
    # a ci moved down by a scalar parameter: still distinct, rows known up to the parameter
    ("        c: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(20, [16, 1], dtype=pl.INT32)\n"
     "        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.subs(c, m)\n", list(range(15, 31)), 0, None),
    # loaded indices: row 5 is named by source row 0 (half 0) and row 15 (half 1): row 15 must win
    (LOADED.format(n=16), [5, 60, -1, 7, 8, 9, 10, 11, 12, 13, 14, 2, 3, 4, -7, 5], None,
     "the index tile j comes from tile.load, whose values are not known to be distinct"),
    # a ci of 512 INT8 values wraps around (-128 ... 127 twice): duplicates, refused
    ("        j: pl.Tile[[512, 1], pl.INT8, pl.Mem.Vec] = pl.tile.ci(0, [512, 1], dtype=pl.INT8)\n",
     [((k + 128) % 256) - 128 for k in range(512)], None, "wraps around its INT8 values"),
    # 16 INT8 values -128 .. -113 moved down by 1: -129 wraps to row 127 (the others mask). Distinct still, but
    # not the rows start .. start + 16 the GM check would compare: refused
    ("        c: pl.Tile[[16, 1], pl.INT8, pl.Mem.Vec] = pl.tile.ci(-128, [16, 1], dtype=pl.INT8)\n"
     "        j: pl.Tile[[16, 1], pl.INT8, pl.Mem.Vec] = pl.tile.subs(c, 1)\n",
     [((v - 1 + 128) % 256) - 128 for v in range(-128, -112)], None, "holds the values -129..-114, which wrap around its INT8 range"),
    # a run-time shift of INT16 values may wrap: refused
    ("        c: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.ci(20, [16, 1], dtype=pl.INT16)\n"
     "        j: pl.Tile[[16, 1], pl.INT16, pl.Mem.Vec] = pl.tile.subs(c, m)\n", list(range(15, 31)), None,
     "starts at a run-time value, which may wrap around its INT16 range"),
])
def test_mscatter_splits_only_with_distinct_indices(index, rows, axis, reason):
    n = len(rows)
    params = (f"a: pl.Tensor[[{n}, 32], pl.FP32], idx: pl.Tensor[[{n}, 1], pl.INT32], m: pl.Scalar[pl.INDEX], "
              "out: pl.InOut[pl.Tensor[[128, 32], pl.FP32]]")
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, 32)).astype(np.float32)
    base = rng.standard_normal((128, 32)).astype(np.float32)
    inputs = {"a": a, "idx": np.array(rows, np.int32).reshape(n, 1) if reason and "load" in reason
              else np.zeros((n, 1), np.int32), "m": np.int64(5), "out": base}
    after, remarks = _run(_program(MSCATTER.format(n=n, index=index), params), inputs,
                          _scatter_rows(base, a * np.float32(2.0), rows), axis, reason)
    (sc,) = _calls(after, "tile.mscatter")
    assert sc.args[0].type.static_shape[0] == (n // 2 if axis == 0 else n)
    if axis is None:
        assert "tile.mscatter writes the GM rows its index tile names" in after.functions[0].attr(REVERTED)


def test_mscatter_in_a_row_block_loop_splits_each_block():
    """Block ``i`` scatters its 8 rows to ``[8 i, 8 i + 8)``: sub-block 0 writes ``[8 i, 8 i + 4)``, sub-block 1
    ``[8 i + 4, 8 i + 8)``, disjoint across the iterations too (the GM check compares the two halves)."""
    body = ("        for i, (o,) in pl.range(4, init_values=(out,)):\n"
            "            s: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 8, 0], [8, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "            e: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.adds(s, 1.0)\n"
            "            j: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(i * 8, [8, 1], dtype=pl.INT32, "
            "descending=False)\n"
            "            o2 = pl.tile.mscatter(e, j, o)\n"
            "            o3 = pl.yield_(o2)\n"
            "        out = o3")
    params = "a: pl.Tensor[[32, 32], pl.FP32], out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]"
    rng = np.random.default_rng(7)
    a = rng.standard_normal((32, 32)).astype(np.float32)
    base = np.zeros((32, 32), np.float32)
    after, _ = _run(_program(body, params), {"a": a, "out": base}, a + np.float32(1.0), 0)
    (sc,) = _calls(after, "tile.mscatter")
    assert sc.args[0].type.static_shape == (4, 32) and sc.kwarg("tiled_op")


@pytest.mark.parametrize("shift,axis", [(0, 0), (8, None)])
def test_mscatter_in_place_update_against_the_split_load(shift, axis):
    """``out[k + shift] = 2 * out[k]``. shift 0: each sub-block rewrites its own rows, split. shift 8: sub-block 0
    writes rows 8..15, which sub-block 1 loads: the halves race, refused (the result is the unsplit one)."""
    body = ("        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(out, [0, 0], [16, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)\n"
            f"        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci({shift}, [16, 1], dtype=pl.INT32)\n"
            "        out = pl.tile.mscatter(e, j, out)")
    params = "out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]"
    base = np.random.default_rng(shift).standard_normal((32, 32)).astype(np.float32)
    want = _scatter_rows(base, base[:16] * np.float32(2.0), range(shift, shift + 16))
    _run(_program(body, params), {"out": base}, want, axis,
         None if axis == 0 else "gm_read_after_write: sub-block 1 reads bytes of out that sub-block 0 writes")


# ------------------------------------------------------------------------------------------------ scatter audit


def test_scatter_duplicates_across_the_halves_keep_the_later_write():
    """dim 0, split on columns: source rows 0 (sub-block-agnostic) and 15 name the same element of each column;
    scatter_update, split on columns with the whole index: rows 2 and 13 of the source name row 9. The later one
    wins in each half, as unsplit."""
    body = ("        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "        j: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(x, 0, j, s)\n"
            "        r: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(rows, [0, 0], [16, 1], "
            "target_memory=pl.Mem.Vec)\n"
            "        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(y, -2, r, s)\n"
            "        out = pl.store(z, [0, 0], out)")
    params = ("a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 64], pl.INT32], b: pl.Tensor[[16, 64], pl.FP32], "
              "rows: pl.Tensor[[16, 1], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((16, 64)).astype(np.float32)
    idx = rng.integers(0, 16, (16, 64)).astype(np.int32)
    idx[15] = idx[0]  # every column: source row 15 overwrites what row 0 wrote
    update = np.array([1, 4, 9, 0, 3, 5, 6, 7, 8, 10, 11, 12, 14, 9, 15, 2], np.int32)  # row 9 from k=2, k=13
    want = a.copy()
    for i in range(16):
        for jj in range(64):
            want[idx[i, jj], jj] = b[i, jj]
    for k, r in enumerate(update):
        want[r] = b[k]
    after, _ = _run(_program(body, params), {"a": a, "idx": idx, "b": b, "rows": update.reshape(16, 1),
                                             "out": np.zeros_like(a)}, want, 1)
    assert [c.type.static_shape for c in _calls(after, "tile.scatter")] == [(16, 32)]
    assert [c.args[1].type.static_shape for c in _calls(after, "tile.scatter_update")] == [(16, 1)]


def test_scatter_fault_names_the_element_of_the_whole_index():
    """Row 13 of the index (sub-block 1's row 5) names column 64 of a 64-column input: the fault says row 13."""
    body = ("        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "        j: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 8], "
            "target_memory=pl.Mem.Vec)\n"
            "        s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 8], "
            "target_memory=pl.Mem.Vec)\n"
            "        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(x, 1, j, s)\n"
            "        out = pl.store(y, [0, 0], out)")
    params = ("a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32], b: pl.Tensor[[16, 8], pl.FP32], "
              "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    program = _program(body, params)
    after, _ = run_pass(program)
    (sc,) = _calls(after, "tile.scatter")
    assert sc.kwarg("sub_block_half") == (0, 8)
    idx = np.zeros((16, 8), np.int32)
    idx[13, 2] = 64
    inputs = {"a": np.zeros((16, 64), np.float32), "idx": idx, "b": np.ones((16, 8), np.float32),
              "out": np.zeros((16, 64), np.float32)}
    compiled = compile(program, target="Ascend910B")
    with pytest.raises(OutOfBounds, match=r"index 64 at element \[13, 2\] of the index tile") as fault:
        simulate(compiled.pto, inputs, compiled.target)
    assert "on vector sub-block 1, which holds elements [8, 16) of axis 0" in str(fault.value)


INDIRECT_FAULT = {
    # rows 120 + k of a 128-row tensor: entry 8 (sub-block 1's entry 0) names row 128
    "mscatter": ("        c: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(20, [16, 1], dtype=pl.INT32)\n"
                 "        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.adds(c, m)\n"
                 "        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32], "
                 "target_memory=pl.Mem.Vec)\n"
                 "        out = pl.tile.mscatter(e, j, out)"),
    # loaded row indices: entry 13 (sub-block 1's entry 5) names row 128
    "mgather": ("        j: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [1, 16], "
                "target_memory=pl.Mem.Vec)\n"
                "        g: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(t, j)\n"
                "        out = pl.store(g, [0, 0], out)"),
}


@pytest.mark.parametrize("op,entry", [("mscatter", 8), ("mgather", 13)])
def test_split_indirect_dma_fault_names_the_entry_of_the_whole_index(op, entry):
    """A split mscatter / mgather gives each sub-block its half of the index tile: a row index past the tensor
    is reported at its entry in the program's whole index tile (not within the half), split or not."""
    params = ("a: pl.Tensor[[16, 32], pl.FP32], idx: pl.Tensor[[1, 16], pl.INT32], t: pl.Tensor[[128, 32], pl.FP32], "
              "m: pl.Scalar[pl.INDEX], out: pl.InOut[pl.Tensor[[128, 32], pl.FP32]]")
    program = _program(INDIRECT_FAULT[op], params)
    after, _ = run_pass(program)
    assert after.functions[0].attr(AXIS_ATTR) == 0, after.functions[0].attr(REVERTED)
    (call,) = _calls(after, f"tile.{op}")
    assert tuple(call.kwarg("sub_block_half")) == ((0, 8) if op == "mscatter" else (1, 8))
    idx = np.zeros((1, 16), np.int32)
    idx[0, 13] = 128
    inputs = {"a": np.zeros((16, 32), np.float32), "idx": idx, "t": np.zeros((128, 32), np.float32),
              "m": np.int64(100), "out": np.zeros((128, 32), np.float32)}
    for options in ON_OFF:
        compiled = compile(program, target="Ascend910B", options=options)
        with pytest.raises(OutOfBounds, match=rf"row index 128 \(entry {entry} of the index tile") as fault:
            simulate(compiled.pto, {k: v.copy() for k, v in inputs.items()}, compiled.target)
        if options:
            assert "sub-block" not in str(fault.value)
        else:
            assert "on vector sub-block 1, which holds entries [8, 16)" in str(fault.value)


@pytest.mark.parametrize("index", [
    "        c: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3, [16, 1], dtype=pl.INT32)\n"
    "        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.adds(c, 10)\n",
    "        j: pl.Tile[[1, 16], pl.INT32, pl.Mem.Vec] = pl.tile.ci(40, [1, 16], dtype=pl.INT32, descending=True)\n",
])
def test_a_split_mscatter_alone_is_evidence_of_a_split(index):
    """A function whose only write is a split mscatter is split (its scatter is the split store)."""
    params = "a: pl.Tensor[[16, 32], pl.FP32], out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]"
    after, _ = run_pass(_program(MSCATTER.format(n=16, index=index), params))
    ev = sub_block_evidence(after)
    assert ev.split and ev.axis == {"kernel": 0}, ev.problems


def test_a_tiled_mscatter_of_the_whole_index_is_no_split_store():
    """Hand-marked ``tiled_op`` on a scatter whose index is not a sub-block half: both sub-blocks would write
    every row, so it is not evidence of a split."""
    body = ("        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
            "        s: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [sb * 8, 0], [8, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        j: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.ci(3, [8, 1], dtype=pl.INT32)\n"
            "        out = pl.tile.mscatter(s, j, out, ir_attrs={\"tiled_op\": True, \"sub_block_half\": (0, 8)})")
    params = "a: pl.Tensor[[16, 32], pl.FP32], out: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]"
    ev = sub_block_evidence(_program(body, params))
    assert not ev.split
    assert "kernel: tile.mscatter source / index (8, 1) is not one half of the rows" in " ".join(ev.problems)
