"""Sub-block strategies of ``tile.random`` (``generators.py``), ``tile.gatherb`` / ``tile.mgather`` (``gathers.py``)
and ``tile.scatter`` / ``tile.scatter_update`` (``scatters.py``), and why ``tile.mscatter`` stays on sub-block 0.

Each case checks the axis the pass takes (or the reason it refuses), the halves it builds, then runs the program
with the pass on and off, on Ascend910B and Ascend950, and compares with a numpy reference written here, element by
element (bit for bit: none of these ops rounds)."""

from __future__ import annotations

import numpy as np
import pytest
from sb_util import run_pass

import tilefold.language as pl
from tilefold import ir
from tilefold.ir.expr import Call
from tilefold.ir.visitor import IRVisitor
from tilefold.passes.tile_and_bind_sub_block import AXIS_ATTR, REVERTED
from tilefold.testing import run_and_compare

ON_OFF = ({}, {"enable_auto_bind_sub_block": False})
TARGETS = ("Ascend910B", "Ascend950")
M64 = (1 << 64) - 1


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
    return pl.parse(text, "gather_scatter.py")


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
                                                  if hasattr(a.type, "static_shape") and a.type.static_shape)


def _run(program, inputs: dict, want: np.ndarray, axis: int | None, reason: str | None = None):
    """The pass takes ``axis`` (None: rolls back, for ``reason``); on and off both give ``want``."""
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
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return after, remarks


# ------------------------------------------------------------------------------------------------ random


def _splitmix(x: int) -> int:
    """splitmix64 of one counter, in Python integers (the reference, apart from the registry's numpy form)."""
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _uniform_fp32(seed: int, start: int, shape: tuple[int, int]) -> np.ndarray:
    n = shape[0] * shape[1]
    vals = [(_splitmix((seed << 32) + start + k) >> 40) / float(1 << 24) for k in range(n)]
    return np.array(vals, np.float32).reshape(shape)


RANDOM = ("        x: pl.Tile[[{r}, {c}], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{r}, {c}], "
          "target_memory=pl.Mem.Vec)\n"
          "        u: pl.Tile[[{r}, {c}], pl.FP32, pl.Mem.Vec] = pl.tile.random([{r}, {c}], dtype=pl.FP32, seed=7"
          "{offset})\n"
          "        y: pl.Tile[[{r}, {c}], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, u)\n"
          "        out = pl.store(y, [0, 0], out)")


@pytest.mark.parametrize("rows,cols,offset,axis,half", [
    (16, 64, "", 0, ((8, 64), ())),           # row halves: counters from sb * 8 * 64
    (16, 64, ", offset=n", 0, ((8, 64), ())),  # a run-time offset: n + sb * 512
    (1, 128, ", offset=n", 1, ((1, 64), ())),  # one row: column halves from n + sb * 64
    (3, 64, "", None, None),                   # 3 rows: only columns are left, and they are not consecutive
])
def test_random_halves_are_the_unsplit_numbers(rows, cols, offset, axis, half):
    params = (f"a: pl.Tensor[[{rows}, {cols}], pl.FP32], n: pl.Scalar[pl.INDEX], "
              f"out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]")
    program = _program(RANDOM.format(r=rows, c=cols, offset=offset), params)
    a = np.random.default_rng(rows).standard_normal((rows, cols)).astype(np.float32)
    start = 1000 if offset else 0
    want = (a + _uniform_fp32(7, start, (rows, cols))).astype(np.float32)
    reason = None if axis is not None else "not a run of consecutive counters"
    after, _ = _run(program, {"a": a, "n": np.int64(1000), "out": np.zeros_like(a)}, want, axis, reason)
    if half is not None:
        assert [_shapes(c) for c in _calls(after, "tile.random")] == [half]


@pl.program
class RandomBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        u: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.random([16, 64], dtype=pl.INT32, seed=3, offset=n)
        out = pl.store(u, [0, 0], out)
        return out


@pl.program
class RandomExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        u: pl.Tile[[8, 64], pl.INT32, pl.Mem.Vec] = pl.tile.random([8, 64], dtype=pl.INT32, seed=3,
                                                                     offset=n + sb * 512)
        out_1 = pl.store(u, [sb * 8, 0], out, tiled_op=True)
        return out_1


def test_random_row_halves_expected_ir():
    after, _ = run_pass(RandomBefore)
    ir.assert_structural_equal(after, RandomExpected)
    want = np.array([_splitmix((3 << 32) + 40 + k) & 0xFFFFFFFF for k in range(16 * 64)], np.uint32)
    for options in ON_OFF:
        report = run_and_compare(RandomBefore, {"n": np.int64(40), "out": np.zeros((16, 64), np.int32)},
                                 options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"].view(np.uint32).ravel(), want)


# ------------------------------------------------------------------------------------------------ scatter


def _scatter(inp: np.ndarray, dim: int, idx: np.ndarray, src: np.ndarray) -> np.ndarray:
    """torch's scatter, element by element in row-major order of ``idx`` (a later write wins)."""
    out = inp.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            if dim == 1:
                out[i, idx[i, j]] = src[i, j]
            else:
                out[idx[i, j], j] = src[i, j]
    return out


SCATTER = ("        x: pl.Tile[[{m}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{m}, 64], "
           "target_memory=pl.Mem.Vec)\n"
           "        j: pl.Tile[[{p}, {q}], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [{p}, {q}], "
           "target_memory=pl.Mem.Vec)\n"
           "        s: pl.Tile[[{p}, {q}], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [{p}, {q}], "
           "target_memory=pl.Mem.Vec)\n"
           "        y: pl.Tile[[{m}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(x, {dim}, j, s)\n"
           "        out = pl.store(y, [0, 0], out)")


@pytest.mark.parametrize("m,dim,p,q,axis,half,reason", [
    # dim 1 writes inside each row: rows split (each half scatters its rows)
    (16, 1, 16, 8, 0, ((8, 64), ((8, 64), (8, 8), (8, 8))), None),
    # dim 0 writes inside each column: rows refused, columns split
    (16, 0, 16, 64, 1, ((16, 32), ((16, 32), (16, 32), (16, 32))), "along dim 0 writes the positions"),
    # dim 1 with fewer index rows than the input: the halves do not line up, columns are index-chosen: rollback
    (16, 1, 8, 8, None, None, "along dim 1 writes the positions its index values name on axis 1"),
])
def test_scatter_splits_only_off_the_indexed_axis(m, dim, p, q, axis, half, reason):
    params = (f"a: pl.Tensor[[{m}, 64], pl.FP32], idx: pl.Tensor[[{p}, {q}], pl.INT32], "
              f"b: pl.Tensor[[{p}, {q}], pl.FP32], out: pl.Out[pl.Tensor[[{m}, 64], pl.FP32]]")
    rng = np.random.default_rng(m + dim + p)
    a = rng.standard_normal((m, 64)).astype(np.float32)
    idx = rng.integers(0, m if dim == 0 else 64, (p, q)).astype(np.int32)
    idx[0, :2] = idx[0, 1] if dim == 1 else idx[0, 0]  # a repeated destination: the later write must win
    if dim == 0:
        idx[:2, 0] = idx[1, 0]
    b = rng.standard_normal((p, q)).astype(np.float32)
    program = _program(SCATTER.format(m=m, p=p, q=q, dim=dim), params)
    after, _ = _run(program, {"a": a, "idx": idx, "b": b, "out": np.zeros_like(a)}, _scatter(a, dim, idx, b),
                    axis, reason)
    if half is not None:
        assert [_shapes(c) for c in _calls(after, "tile.scatter")] == [half]


UPDATE = ("        x: pl.Tile[[{m}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [{m}, 64], "
          "target_memory=pl.Mem.Vec)\n"
          "        j: pl.Tile[[4, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [4, 1], "
          "target_memory=pl.Mem.Vec)\n"
          "        s: pl.Tile[[4, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [4, 64], "
          "target_memory=pl.Mem.Vec)\n"
          "        y: pl.Tile[[{m}, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(x, -2, j, s)\n"
          "        out = pl.store(y, [0, 0], out)")


def test_scatter_update_splits_on_columns_with_the_whole_index():
    params = ("a: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[4, 1], pl.INT32], b: pl.Tensor[[4, 64], pl.FP32], "
              "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((4, 64)).astype(np.float32)
    rows = [9, 2, 9, 15]  # row 9 twice: source row 2 wins
    want = a.copy()
    for k, r in enumerate(rows):
        want[r] = b[k]
    idx = np.array(rows, np.int32).reshape(4, 1)
    after, remarks = _run(_program(UPDATE.format(m=16), params), {"a": a, "idx": idx, "b": b, "out": np.zeros_like(a)},
                          want, 1)
    assert [_shapes(c) for c in _calls(after, "tile.scatter_update")] == [((16, 32), ((16, 32), (4, 1), (4, 32)))]
    assert any("scatter_update writes the rows its index tile names" in str(r) for r in remarks)


# ------------------------------------------------------------------------------------------------ gathers


GATHERB = ("        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], "
           "target_memory=pl.Mem.Vec)\n"
           "        o: pl.Tile[[{r}, {c}], pl.UINT32, pl.Mem.Vec] = pl.tile.load(offs, [0, 0], [{r}, {c}], "
           "target_memory=pl.Mem.Vec)\n"
           "        g: pl.Tile[[{r}, {w}], pl.FP32, pl.Mem.Vec] = pl.tile.gatherb(x, o)\n"
           "        out = pl.store(g, [0, 0], out)")


@pytest.mark.parametrize("rows,cols,axis,half", [
    (8, 8, 0, ((4, 64), ((16, 64), (4, 8)))),    # row halves of the offsets, the whole source
    (3, 16, 1, ((3, 64), ((16, 64), (3, 8)))),   # odd rows: column halves (8 offsets = 64 elements each)
    (3, 8, None, None),                          # 3 rows, 4-offset column halves (16 B): rollback
])
def test_gatherb_reads_the_whole_source_for_each_half(rows, cols, axis, half):
    params = (f"a: pl.Tensor[[16, 64], pl.FP32], offs: pl.Tensor[[{rows}, {cols}], pl.UINT32], "
              f"out: pl.Out[pl.Tensor[[{rows}, {cols * 8}], pl.FP32]]")
    rng = np.random.default_rng(rows * cols)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    blocks = rng.integers(0, 16 * 64 // 8, (rows, cols))
    offs = (blocks * 32).astype(np.uint32)
    flat = a.ravel()
    want = np.stack([np.concatenate([flat[8 * b:8 * b + 8] for b in row]) for row in blocks]).astype(np.float32)
    program = _program(GATHERB.format(r=rows, c=cols, w=cols * 8), params)
    reason = None if axis is not None else "cannot halve o on axis 1: column split: half row of 16 B"
    after, _ = _run(program, {"a": a, "offs": offs, "out": np.zeros((rows, cols * 8), np.float32)}, want, axis,
                    reason)
    if half is not None:
        assert [_shapes(c) for c in _calls(after, "tile.gatherb")] == [half]


MGATHER = ("        j: pl.Tile[[{p}, {q}], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [{p}, {q}], "
           "target_memory=pl.Mem.Vec)\n"
           "        g: pl.Tile[[{n}, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(a, j{oob})\n"
           "        out = pl.store(g, [0, 0], out)")


@pytest.mark.parametrize("p,q,oob,axis,half", [
    (16, 1, "", 0, ((8, 32), ((64, 32), (8, 1)))),    # an index column: its row halves, the whole GM tensor
    (1, 16, "", 0, ((8, 32), ((64, 32), (1, 8)))),    # an index row: its column halves (32 B)
    (16, 1, ", gather_oob='clamp'", 0, ((8, 32), ((64, 32), (8, 1)))),  # a per-index policy: unchanged
    (3, 1, "", None, None),                                    # 3 rows: the column axis is refused
])
def test_mgather_halves_the_index(p, q, oob, axis, half):
    n = p * q
    params = (f"a: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[{p}, {q}], pl.INT32], "
              f"out: pl.Out[pl.Tensor[[{n}, 32], pl.FP32]]")
    rng = np.random.default_rng(n + q)
    table = rng.standard_normal((64, 32)).astype(np.float32)
    rows = rng.integers(0, 64, n)
    if oob:
        rows[3], rows[10] = -5, 70
    want = np.stack([table[min(max(r, 0), 63)] for r in rows]).astype(np.float32)
    reason = None if axis is not None else "takes no column window"
    program = _program(MGATHER.format(p=p, q=q, n=n, oob=oob), params)
    after, _ = _run(program, {"a": table, "idx": rows.astype(np.int32).reshape(p, q),
                              "out": np.zeros((n, 32), np.float32)}, want, axis, reason)
    if half is not None:
        assert [_shapes(c) for c in _calls(after, "tile.mgather")] == [half]


@pl.program
class MgatherBefore:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[16, 1], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        g: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(a, j, gather_oob="zero")
        out = pl.store(g, [0, 0], out)
        return out


@pl.program
class MgatherExpected:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, a: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[16, 1], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        j: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [sb * 8, 0], [8, 1], target_memory=pl.Mem.Vec)
        g: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(a, j, gather_oob="zero",
                                                                      ir_attrs={"sub_block_half": (0, 8)})
        out_1 = pl.store(g, [sb * 8, 0], out, tiled_op=True)
        return out_1


def test_mgather_row_halves_expected_ir():
    after, _ = run_pass(MgatherBefore)
    ir.assert_structural_equal(after, MgatherExpected)


def test_mgather_of_a_tensor_the_split_stores_write_is_refused():
    """The store writes rows of ``t`` in halves, then the gather reads rows of ``t`` that either half wrote: the
    sub-blocks are not ordered, so no axis may split; rolled back, the result is the unsplit one."""
    body = ("        x: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        y: pl.Tile[[64, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, x)\n"
            "        t = pl.store(y, [0, 0], t)\n"
            "        j: pl.Tile[[16, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [16, 1], "
            "target_memory=pl.Mem.Vec)\n"
            "        g: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(t, j)\n"
            "        out = pl.store(g, [0, 0], out)")
    params = ("a: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[16, 1], pl.INT32], "
              "t: pl.InOut[pl.Tensor[[64, 32], pl.FP32]], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]")
    program = _program(body, params)
    after, _ = run_pass(program)
    reason = after.functions[0].attr(REVERTED) or ""
    assert after.functions[0].attr(AXIS_ATTR) is None
    assert "gm_read_after_write" in reason and "tile.mgather of t" in reason, reason
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    rows = np.arange(48, 64, dtype=np.int32).reshape(16, 1)  # rows the second half of the store writes
    inputs = {"a": a, "idx": rows, "t": np.zeros((64, 32), np.float32), "out": np.zeros((16, 32), np.float32)}
    for options in ON_OFF:  # split, sub-block 0 would gather rows sub-block 1 writes: a device race
        report = run_and_compare(program, {k: v.copy() for k, v in inputs.items()}, options=options)
        assert report.result == "correct", report.summary()
        np.testing.assert_array_equal(report.outputs["out"], (a + a)[48:64])


# ------------------------------------------------------------------------------------------------ mscatter


MSCATTER = ("        s: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        j: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.load(idx, [0, 0], [8, 1], "
            "target_memory=pl.Mem.Vec)\n"
            "{extra}"
            "        out = pl.tile.mscatter(s, j, out)")


@pytest.mark.parametrize("with_store", [False, True])
def test_mscatter_stays_whole_on_sub_block0(with_store):
    """Alone, the scatter rolls the function back with its reason; next to a split store, the store splits and the
    scatter is guarded whole to sub-block 0 (its source loaded whole)."""
    extra = ("        z: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [16, 32], "
             "target_memory=pl.Mem.Vec)\n"
             "        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mul(z, z)\n"
             "        d = pl.store(w, [0, 0], d)\n") if with_store else ""
    params = ("a: pl.Tensor[[8, 32], pl.FP32], idx: pl.Tensor[[8, 1], pl.INT32], c: pl.Tensor[[16, 32], pl.FP32], "
              "d: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 32)).astype(np.float32)
    c = rng.standard_normal((16, 32)).astype(np.float32)
    base = rng.standard_normal((32, 32)).astype(np.float32)
    rows = [4, -1, 30, 4, 0, 17, -3, 9]  # negative: masked; row 4 twice: the later source row wins
    want = base.copy()
    for k, r in enumerate(rows):
        if r >= 0:
            want[r] = a[k]
    inputs = {"a": a, "idx": np.array(rows, np.int32).reshape(8, 1), "c": c, "d": np.zeros_like(c), "out": base}
    after, remarks = _run(_program(MSCATTER.format(extra=extra), params), inputs, want, 0 if with_store else None,
                          "tile.mscatter writes the GM rows its index tile names")
    if with_store:
        assert [_shapes(x) for x in _calls(after, "tile.mscatter")] == [((32, 32), ((8, 32), (8, 1), (32, 32)))]


# ------------------------------------------------------------------------------------------------ one operand twice


@pl.program
class GatherOfItself:
    """Strict mode is off (``r`` is broadcast into rows and, reshaped, into columns), so ``ti``, wanted whole as
    the gather's source and halved as its index, is computed whole and its half sliced out: the rewrite must give
    the source whole and the index halved, by position, although both operands are the same variable."""

    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
               w: pl.Tensor[[16, 16], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(t, r)
        c: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(r, [1, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(a, c)
        ti: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        g: pl.Tile[[16, 16], pl.INT32, pl.Mem.Vec] = pl.tile.gather(ti, 0, ti)
        gf: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.cast(g, target_type=pl.FP32)
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(b, gf)
        out = pl.store(y, [0, 0], out)
        return out


@pytest.mark.parametrize("high", [8, 16])  # 8: a halved source gave wrong rows silently; 16: an index fault
def test_gather_reading_one_tile_whole_and_halved(high):
    after, remarks = run_pass(GatherOfItself)
    assert after.functions[0].attr(AXIS_ATTR) == 0 and any(r.kind == "strict-off" for r in remarks)
    (g,) = _calls(after, "tile.gather")
    assert _shapes(g) == ((8, 16), ((16, 16), (8, 16)))
    rng = np.random.default_rng(high)
    x = rng.standard_normal((16, 16)).astype(np.float32)
    v = rng.standard_normal((16, 1)).astype(np.float32)
    w = rng.integers(0, high, (16, 16)).astype(np.int32)
    b = (x * v).astype(np.float32) + v.reshape(1, 16)
    want = (b + w[w, np.arange(16)].astype(np.float32)).astype(np.float32)
    _run(GatherOfItself, {"x": x, "v": v, "w": w, "out": np.zeros((16, 16), np.float32)}, want, 0)


def test_mscatter_into_a_tensor_a_split_store_writes_rolls_back():
    """A split store writes rows of ``out`` in halves and the guarded scatter writes rows of ``out`` its indices
    name: sub-block 0's scatter and sub-block 1's half are not ordered, so no axis splits."""
    body = ("        z: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [32, 32], "
            "target_memory=pl.Mem.Vec)\n"
            "        w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.mul(z, z)\n"
            "        out = pl.store(w, [0, 0], out)\n")
    params = ("a: pl.Tensor[[8, 32], pl.FP32], idx: pl.Tensor[[8, 1], pl.INT32], c: pl.Tensor[[32, 32], pl.FP32], "
              "out: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((8, 32)).astype(np.float32)
    c = rng.standard_normal((32, 32)).astype(np.float32)
    rows = [20, 3, 31, 16, 0, 17, 28, 9]
    want = c * c
    want[rows] = a
    inputs = {"a": a, "idx": np.array(rows, np.int32).reshape(8, 1), "c": c, "out": np.zeros((32, 32), np.float32)}
    _run(_program(MSCATTER.format(extra=body), params), inputs, want.astype(np.float32), None,
         "sub-block 0 writes bytes of out that sub-block 1 writes (tile.mscatter into out vs store of w into out)")
