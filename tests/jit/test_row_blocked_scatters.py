"""Tensor-level scatters whose destination rows are index values (``scatter`` along dim 0, ``scatter_update``) in
ConvertTensorToTileOps. A row block of their result may need any source row, so they are never cut by result rows;
when the input fits a quarter of Vec and the result is only written, they are cut into blocks of their index /
source rows, scattered in order into the input's tile that the block loop carries (the last write of a destination
is the unblocked one). Otherwise, when the whole tiles cannot fit, a NotSupportedError at the op's line.

Each case simulates on both targets and compares with numpy written here, bit for bit (the sources are doubled, an
exact operation, so nothing rounds)."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call
from tilefold.ir.stmt import ForStmt, FunctionType
from tilefold.ir.types import MemorySpace
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tensor_lowering import convert_tensor_to_tile_ops, outline_incore_scopes
from tilefold.sim import simulate
from tilefold.targets import get_target

TARGETS = ("Ascend910B", "Ascend950")
RNG = np.random.default_rng(1919)


def _jit(params: str, line: str) -> str:
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n        {line}\n    return out\n")


class _Ops(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.loops: list[ForStmt] = []

    def visit_Call(self, expr: Call) -> None:
        self.calls.append(expr)
        super().visit_Call(expr)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        self.loops.append(stmt)
        super().visit_ForStmt(stmt)


def _lowered(src: str) -> _Ops:
    """The InCore function right after ConvertTensorToTileOps (before the sub-block split)."""
    program = pl.parse(src, "<scatter blocks>")
    for p in (outline_incore_scopes(), convert_tensor_to_tile_ops()):
        program = p.run(program)
    ops = _Ops()
    for fn in program.functions:
        if fn.func_type is not FunctionType.Orchestration:
            ops.visit_function(fn)
    return ops


def _simulate(src: str, inputs: dict[str, np.ndarray], target: str) -> np.ndarray:
    assert max(v.nbytes for v in inputs.values()) > get_target(target).capacity(MemorySpace.Vec)
    compiled = compile(pl.parse(src, "<scatter blocks>"), target=target)
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in inputs.items()}, compiled.target)
    return sim.outputs["out"]


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_update_in_blocks_of_source_rows(target):
    """2048 source rows (1 MiB) into a [64, 128] table: every destination row is named many times, across blocks;
    the last source row naming it wins."""
    src = _jit("x: pl.Tensor[[64, 128], pl.FP32], i: pl.Tensor[[2048, 1], pl.INT32], "
               "s: pl.Tensor[[2048, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]",
               "out[:] = pl.scatter_update(x, -2, i, pl.add(s, s))")
    ops = _lowered(src)
    (loop,) = ops.loops
    blocks = [c for c in ops.calls if c.op_name == "tile.scatter_update"]
    assert blocks and all(c.args[1].type.static_shape[0] < 2048 for c in blocks)
    assert blocks[0].type.static_shape == (64, 128)  # the whole table, carried by the loop
    x = RNG.standard_normal((64, 128)).astype(np.float32)
    s = RNG.standard_normal((2048, 128)).astype(np.float32)
    rows = RNG.integers(0, 60, 2048).astype(np.int32)  # rows 60..63 are never written: they keep x
    want = x.copy()
    for k, r in enumerate(rows):
        want[r] = s[k] + s[k]
    got = _simulate(src, {"x": x, "i": rows.reshape(2048, 1), "s": s, "out": np.zeros_like(x)}, target)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_along_dim0_in_blocks_of_index_rows(target):
    """A 512 KiB index / source into a [32, 128] input: element [r, j] is the last src[i, j] with index[i, j] = r,
    in row-major order of the index, across the blocks too."""
    src = _jit("x: pl.Tensor[[32, 128], pl.FP32], i: pl.Tensor[[1024, 128], pl.INT32], "
               "s: pl.Tensor[[1024, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]",
               "out[:] = pl.scatter(x, 0, i, pl.add(s, s))")
    ops = _lowered(src)
    assert len(ops.loops) == 1
    assert all(c.args[1].type.static_shape[0] < 1024 for c in ops.calls if c.op_name == "tile.scatter")
    x = RNG.standard_normal((32, 128)).astype(np.float32)
    s = RNG.standard_normal((1024, 128)).astype(np.float32)
    idx = RNG.integers(0, 32, (1024, 128)).astype(np.int32)
    idx[:, 5] = 31  # a column whose every index names row 31: the last source row wins
    want = x.copy()
    for i in range(1024):
        want[idx[i], np.arange(128)] = s[i] + s[i]
    got = _simulate(src, {"x": x, "i": idx, "s": s, "out": np.zeros_like(x)}, target)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("line,params,op", [
    # a [1024, 128] table (512 KiB) updated by 16 rows: no block of the table can take its rows from a block of
    # the sources, and the table is no accumulator that fits
    ("out[:] = pl.scatter_update(x, -2, i, s)", "i: pl.Tensor[[16, 1], pl.INT32], s: pl.Tensor[[16, 128], pl.FP32]",
     "tensor.scatter_update"),
    ("out[:] = pl.scatter(x, 0, i, s)", "i: pl.Tensor[[1024, 128], pl.INT32], s: pl.Tensor[[1024, 128], pl.FP32]",
     "tensor.scatter"),
])
def test_scatter_by_rows_that_cannot_be_blocked_is_refused_at_its_line(line, params, op):
    src = _jit(f"x: pl.Tensor[[1024, 128], pl.FP32], {params}, out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]", line)
    with pytest.raises(NotSupportedError, match=f"{op} does not fit in Vec and cannot be cut into row blocks") \
            as info:
        compile(pl.parse(src, "<whole>"), target="Ascend910B")
    assert info.value.span is not None and info.value.span.line == 7
    assert "quarter of Vec" in info.value.hint


def test_scatter_update_with_a_row_of_indices_is_not_blocked():
    """A ``[1, n]`` index: its rows are not the source rows, so the op stays whole (it fits: no error)."""
    src = _jit("x: pl.Tensor[[64, 128], pl.FP32], i: pl.Tensor[[1, 16], pl.INT32], s: pl.Tensor[[16, 128], pl.FP32], "
               "out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]", "out[:] = pl.scatter_update(x, -2, i, s)")
    ops = _lowered(src)
    assert not ops.loops
    x = RNG.standard_normal((64, 128)).astype(np.float32)
    s = RNG.standard_normal((16, 128)).astype(np.float32)
    rows = np.array([3, 9, 3, 0, 63, 9, 1, 2, 4, 5, 6, 7, 8, 10, 11, 3], np.int32)
    want = x.copy()
    for k, r in enumerate(rows):
        want[r] = s[k]
    compiled = compile(pl.parse(src, "<whole>"), target="Ascend910B")
    sim = simulate(compiled.pto, {"x": x, "i": rows.reshape(1, 16), "s": s, "out": np.zeros_like(x)}, compiled.target)
    np.testing.assert_array_equal(sim.outputs["out"].view(np.uint32), want.view(np.uint32))


BEFORE = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], i: pl.Tensor[[2048, 1], pl.INT32],
          s: pl.Tensor[[2048, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        d: pl.Tensor[[2048, 128], pl.FP32] = pl.tensor.add(s, s)
        y: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.scatter_update(x, -2, i, d)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.assemble(out, y, [0, 0])
        return o
'''

EXPECTED = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], i: pl.Tensor[[2048, 1], pl.INT32],
          s: pl.Tensor[[2048, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        x_tile: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        for row_block, (out_iter, y_acc) in pl.range(64, init_values=(out, x_tile)):
            s_tile: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [row_block * 32, 0], [32, 128],
                                                                          target_memory=pl.Mem.Vec)
            d: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(s_tile, s_tile)
            i_tile: pl.Tile[[32, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(i, [row_block * 32, 0], [32, 1],
                                                                         target_memory=pl.Mem.Vec)
            y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(y_acc, -2, i_tile, d)
            out_1, y_1 = pl.yield_(out_iter, y)
        out_2: pl.Tensor[[64, 128], pl.FP32] = pl.store(y_1, [0, 0], out_1)
        return out_2
'''


def test_scatter_update_accumulator_before_after():
    """The table is loaded whole before the loop and carried; each block of 32 source rows is computed and
    scattered into it; the table is stored once, after the loop (Ascend910B, the default target: R = 32)."""
    after = convert_tensor_to_tile_ops()(pl.parse(BEFORE, "before.py"))
    ir.assert_structural_equal(after, pl.parse(EXPECTED, "expected.py"))
