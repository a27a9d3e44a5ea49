"""The tensor forms of the index ops on tensors larger than UB: ConvertTensorToTileOps cuts the row-local ones
(``ci``, ``random``, ``sort32``, ``mrgsort``, ``gather``, ``scatter`` along dim 1, ``expand_clone``) into row blocks
and keeps the others whole (``scatter`` along dim 0, ``scatter_update``: rows chosen by index values), which is then
the located "does not fit" error. Each case compiles for both targets, simulates, and compares with numpy written
here, bit for bit (none of these ops rounds)."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.ir.expr import Call
from tilefold.ir.stmt import ForStmt, FunctionType
from tilefold.ir.types import MemorySpace
from tilefold.ir.visitor import IRVisitor
from tilefold.sim import simulate
from tilefold.targets import get_target

TARGETS = ("Ascend910B", "Ascend950")
RNG = np.random.default_rng(19)


def _jit(params: str, body: list[str]) -> str:
    lines = "\n".join(" " * 8 + b for b in body)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return out\n")


class _Ops(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.loops = 0

    def visit_Call(self, expr: Call) -> None:
        self.calls.append(expr)
        super().visit_Call(expr)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        self.loops += 1
        super().visit_ForStmt(stmt)


def _run(src: str, inputs: dict[str, np.ndarray], target: str, op: str) -> tuple[np.ndarray, list[Call]]:
    """``out`` simulated on ``target``; the kernel's calls of ``op`` (after the passes), which run in a loop."""
    big = max(v.nbytes for v in inputs.values())
    assert big > get_target(target).capacity(MemorySpace.Vec), "the case must not fit UB whole"
    compiled = compile(pl.parse(src, "<row blocks>"), target=target)
    ops = _Ops()
    for fn in compiled.ir.functions:
        if fn.func_type is not FunctionType.Orchestration:
            ops.visit_function(fn)
    assert ops.loops >= 1, "not cut into row blocks"
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in inputs.items()}, compiled.target)
    return sim.outputs["out"], [c for c in ops.calls if c.op_name == op]


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _splitmix(x: np.ndarray) -> np.ndarray:
    """splitmix64 (uint64 counters), the reference generator written here."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("offset", ["", ", offset=77"])
def test_random_in_row_blocks_is_the_unblocked_stream(target, offset):
    rows, cols = 1024, 128  # 512 KiB of FP32
    src = _jit(f"out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]",
               [f"out[:] = pl.random([{rows}, {cols}], dtype=pl.FP32, seed=11{offset})"])
    got, calls = _run(src, {"out": np.zeros((rows, cols), np.float32)}, target, "tile.random")
    start = (11 << 32) + (77 if offset else 0)
    counters = np.uint64(start) + np.arange(rows * cols, dtype=np.uint64)
    want = ((_splitmix(counters) >> np.uint64(40)).astype(np.float64) / (1 << 24)).astype(np.float32)
    _same_bits(got, want.reshape(rows, cols))
    assert all(c.type.static_shape[0] < rows for c in calls)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("descending", [False, True])
def test_ci_in_row_blocks_counts_on_across_blocks(target, descending):
    rows, cols = 1024, 128
    flag = ", descending=True" if descending else ""
    src = _jit(f"x: pl.Tensor[[{rows}, {cols}], pl.INT32], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.INT32]]",
               [f"out[:] = pl.add(x, pl.ci(5, [{rows}, {cols}], dtype=pl.INT32{flag}))"])
    x = RNG.integers(-1000, 1000, (rows, cols)).astype(np.int32)
    got, calls = _run(src, {"x": x, "out": np.zeros_like(x)}, target, "tile.ci")
    k = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    _same_bits(got, (x + (5 - k if descending else 5 + k)).astype(np.int32))
    assert calls and all(c.type.static_shape[0] < rows for c in calls)


def _sort_blocks(x: np.ndarray, idx: np.ndarray, run: int) -> tuple[np.ndarray, np.ndarray]:
    """Each ``run``-element block of each row sorted descending, ties in position order: (values, indices)."""
    rows, cols = x.shape
    blocks = x.reshape(rows, cols // run, run)
    order = np.argsort(-blocks, axis=-1, kind="stable")
    values = np.take_along_axis(blocks, order, axis=-1).reshape(rows, cols)
    indices = np.take_along_axis(idx.reshape(rows, cols // run, run), order, axis=-1).reshape(rows, cols)
    return values, indices


def _pairs(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    rows, cols = values.shape
    out = np.empty((rows, cols, 2), np.uint32)
    out[..., 0] = values.view(np.uint32)
    out[..., 1] = indices.astype(np.uint32)
    return out.reshape(rows, 2 * cols).view(np.float32)


@pytest.mark.parametrize("target", TARGETS)
def test_sort32_of_loaded_indices_in_row_blocks(target):
    rows, cols = 512, 256
    src = _jit(f"a: pl.Tensor[[{rows}, {cols}], pl.FP32], i: pl.Tensor[[{rows}, {cols}], pl.INT32], "
               f"out: pl.Out[pl.Tensor[[{rows}, {2 * cols}], pl.FP32]]", ["out[:] = pl.sort32(a, i)"])
    a = RNG.standard_normal((rows, cols)).astype(np.float32)
    i = RNG.integers(0, 1 << 30, (rows, cols)).astype(np.int32)
    got, calls = _run(src, {"a": a, "i": i, "out": np.zeros((rows, 2 * cols), np.float32)}, target, "tile.sort32")
    _same_bits(got, _pairs(*_sort_blocks(a, i, 32)))
    assert calls and all(c.type.static_shape[0] < rows for c in calls)


@pytest.mark.parametrize("target", TARGETS)
def test_sort32_then_mrgsort_of_ci_indices_in_row_blocks(target):
    """The indices come from ``ci`` over the whole tensor: each block's ci starts at its first element's number, so
    the structures carry the element numbers of the unblocked tensor."""
    rows, cols = 512, 256
    src = _jit(f"a: pl.Tensor[[{rows}, {cols}], pl.FP32], out: pl.Out[pl.Tensor[[{rows}, {2 * cols}], pl.FP32]]",
               [f"n = pl.ci(0, [{rows}, {cols}], dtype=pl.INT32)", "s = pl.sort32(a, n)",
                "out[:] = pl.mrgsort(s, block_len=32)"])
    a = RNG.standard_normal((rows, cols)).astype(np.float32)
    got, calls = _run(src, {"a": a, "out": np.zeros((rows, 2 * cols), np.float32)}, target, "tile.mrgsort")
    numbers = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    # sort32 then a merge of each group of 4 runs: each 128-element group sorted, ties in position order
    _same_bits(got, _pairs(*_sort_blocks(a, numbers, 128)))
    assert calls and all(c.type.static_shape[0] < rows for c in calls)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dim", [1, 0])
def test_gather_in_row_blocks(target, dim):
    """dim 1: each row gathers from its own row of the 512 KiB source (both in row blocks); dim 0: each element
    comes from any row of the small source, which every block loads whole, by a 512 KiB index."""
    rows, cols = 1024, 128
    src_rows, width = (rows, 32) if dim == 1 else (64, cols)
    src = _jit(f"a: pl.Tensor[[{src_rows}, {cols}], pl.FP32], i: pl.Tensor[[{rows}, {width}], pl.INT32], "
               f"out: pl.Out[pl.Tensor[[{rows}, {width}], pl.FP32]]", [f"out[:] = pl.gather(a, {dim}, i)"])
    a = RNG.standard_normal((src_rows, cols)).astype(np.float32)
    i = RNG.integers(0, cols if dim == 1 else src_rows, (rows, width)).astype(np.int32)
    want = np.take_along_axis(a, i, axis=1) if dim == 1 else a[i, np.arange(width)]
    got, calls = _run(src, {"a": a, "i": i, "out": np.zeros((rows, width), np.float32)}, target, "tile.gather")
    _same_bits(got, want.astype(np.float32))
    assert calls and all(c.type.static_shape[0] < rows for c in calls)
    srcs = {c.args[0].type.static_shape[0] for c in calls}
    assert srcs == ({src_rows} if dim == 0 else {c.type.static_shape[0] for c in calls})


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_along_rows_in_row_blocks(target):
    rows, cols = 1024, 128
    src = _jit(f"x: pl.Tensor[[{rows}, {cols}], pl.FP32], i: pl.Tensor[[{rows}, 16], pl.INT32], "
               f"s: pl.Tensor[[{rows}, 16], pl.FP32], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]",
               ["out[:] = pl.scatter(x, 1, i, s)"])
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    i = RNG.integers(0, cols, (rows, 16)).astype(np.int32)
    i[:, 1] = i[:, 0]  # a repeated destination per row: the later write wins
    s = RNG.standard_normal((rows, 16)).astype(np.float32)
    want = x.copy()
    for j in range(16):  # row-major order of the index tile, column by column within each row
        want[np.arange(rows), i[:, j]] = s[:, j]
    got, calls = _run(src, {"x": x, "i": i, "s": s, "out": np.zeros_like(x)}, target, "tile.scatter")
    _same_bits(got, want)
    assert calls and all(c.type.static_shape[0] < rows for c in calls)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vshape", [(1, 128), (1024, 1)])
def test_expand_clone_in_row_blocks(target, vshape):
    rows, cols = 1024, 128
    src = _jit(f"x: pl.Tensor[[{rows}, {cols}], pl.FP32], v: pl.Tensor[[{vshape[0]}, {vshape[1]}], pl.FP32], "
               f"out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]",
               [f"out[:] = pl.add(x, pl.expand_clone(v, [{rows}, {cols}]))"])
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    v = RNG.standard_normal(vshape).astype(np.float32)
    got, calls = _run(src, {"x": x, "v": v, "out": np.zeros_like(x)}, target, "tile.expand_clone")
    _same_bits(got, (x + np.broadcast_to(v, (rows, cols))).astype(np.float32))
    assert calls and all(c.type.static_shape[0] < rows for c in calls)
    assert all(c.args[0].type.static_shape[0] == (1 if vshape[0] == 1 else c.type.static_shape[0]) for c in calls)


@pytest.mark.parametrize("line,params", [
    # destinations chosen by index values: a row block of the result may be written from any index row
    ("out[:] = pl.scatter(x, 0, i, s)", "i: pl.Tensor[[1024, 128], pl.INT32], s: pl.Tensor[[1024, 128], pl.FP32]"),
    ("out[:] = pl.scatter_update(x, -2, i, s)", "i: pl.Tensor[[16, 1], pl.INT32], s: pl.Tensor[[16, 128], pl.FP32]"),
    # a gather along dim 0 reads any row of its source, here a computed one: a block holds only its own rows
    ("out[:] = pl.gather(pl.exp(x), 0, i)", "i: pl.Tensor[[1024, 128], pl.INT32]"),
])
def test_index_ops_that_are_not_row_local_stay_whole(line, params):
    src = _jit(f"x: pl.Tensor[[1024, 128], pl.FP32], {params}, out: pl.Out[pl.Tensor[[1024, 128], pl.FP32]]",
               [line])
    with pytest.raises(TilefoldError, match="does not fit in Vec"):
        compile(pl.parse(src, "<whole>"), target="Ascend910B")
