"""Ops whose result depends on their operands' valid regions, on the simulator and in golden, against numpy
references written here element by element.

``tile.part_add / part_mul / part_max / part_min`` once treated each operand's static shape as its valid region:
with two [16, 16] tiles of smaller valid shapes they computed ``op(src0, src1)`` everywhere and read src1's
padding as data. PyPTO copies src0 where only src0 is valid and src1 where only src1 is; the result is valid on the
larger region. The elementwise catalog ops (scalar, unary, sel, the three-input adds, expands) and the row / col
expand family once dropped their operand's valid shape, so a store of their result wrote the padding over GM.
"""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(1919)
OLD = 7.5  # what GM holds before the store: positions outside the result's valid region keep it


def _part_src(op: str, va: str, vb: str) -> str:
    return f'''import tilefold.language as pl


@pl.program
class Part:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], ra: pl.Scalar[pl.INDEX],
               ca: pl.Scalar[pl.INDEX], rb: pl.Scalar[pl.INDEX], cb: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 16], valid_shapes={va}, target_memory=pl.Mem.Vec)
        b = pl.tile.load(y, [0, 0], [16, 16], valid_shapes={vb}, target_memory=pl.Mem.Vec)
        c = pl.tile.{op}(a, b)
        out = pl.store(c, [0, 0], out)
        return out
'''


_OPS = {"part_add": lambda p, q: p + q, "part_mul": lambda p, q: p * q, "part_max": max, "part_min": min}


def _part_reference(op: str, x, y, ra, ca, rb, cb) -> np.ndarray:
    f = _OPS[op]
    out = np.full((16, 16), OLD, np.float32)
    for i in range(max(ra, rb)):
        for j in range(max(ca, cb)):
            in_a, in_b = i < ra and j < ca, i < rb and j < cb
            if in_a and in_b:
                out[i, j] = f(float(x[i, j]), float(y[i, j]))
            elif in_a:
                out[i, j] = x[i, j]
            elif in_b:
                out[i, j] = y[i, j]
    return out


def _check(src: str, inputs: dict, ref: np.ndarray, split: bool) -> None:
    report = run_and_compare(pl.parse(src), inputs, options={"enable_auto_bind_sub_block": split})
    assert report.fault is None, report.summary()
    np.testing.assert_allclose(report.golden_outputs["out"], ref, rtol=1e-6, atol=1e-6, err_msg="golden")
    np.testing.assert_allclose(report.outputs["out"], ref, rtol=1e-6, atol=1e-6, err_msg="device")
    assert report.matches, report.summary()


# (ra, ca, rb, cb): src0 larger, src1 larger, equal, fully valid with a partial partner, nested on one axis only
_REGIONS = [(16, 16, 9, 5), (4, 8, 16, 12), (11, 7, 11, 7), (16, 16, 16, 3), (12, 16, 12, 4), (0, 0, 5, 5)]


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("region", _REGIONS)
def test_part_ops_use_each_operands_run_time_valid_region(op, region, split):
    ra, ca, rb, cb = region
    x = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    y = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    inputs = {"x": x, "y": y, "ra": ra, "ca": ca, "rb": rb, "cb": cb, "out": np.full((16, 16), OLD, np.float32)}
    _check(_part_src(op, "[ra, ca]", "[rb, cb]"), inputs, _part_reference(op, x, y, ra, ca, rb, cb), split)


@pytest.mark.parametrize("op", sorted(_OPS))
def test_part_ops_with_static_valid_shapes_on_same_shape_tiles(op):
    x = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    y = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    inputs = {"x": x, "y": y, "ra": 0, "ca": 0, "rb": 0, "cb": 0, "out": np.full((16, 16), OLD, np.float32)}
    _check(_part_src(op, "[16, 16]", "[8, 8]"), inputs, _part_reference(op, x, y, 16, 16, 8, 8), True)
    _check(_part_src(op, "[6, 10]", "[16, 16]"), inputs, _part_reference(op, x, y, 6, 10, 16, 16), False)


def test_part_ops_refuse_static_valid_regions_that_are_not_nested():
    with pytest.raises(TilefoldError, match="not nested"):
        pl.parse(_part_src("part_max", "[16, 4]", "[4, 16]"))


def test_part_ops_refuse_run_time_valid_regions_that_are_not_nested():
    x = np.ones((16, 16), np.float32)
    inputs = {"x": x, "y": x, "ra": 16, "ca": 4, "rb": 4, "cb": 16, "out": np.zeros((16, 16), np.float32)}
    program = pl.parse(_part_src("part_mul", "[ra, ca]", "[rb, cb]"))
    with pytest.raises(TilefoldError, match="not nested"):
        run_program(program, inputs)
    with pytest.raises(TilefoldError, match="not nested"):
        run_and_compare(program, inputs)


def test_part_ops_on_nested_tile_shapes_without_valid_shapes_keep_their_meaning():
    src = '''import tilefold.language as pl


@pl.program
class Part:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[8, 8], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        b = pl.tile.load(y, [0, 0], [8, 8], target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.part_mul(a, b), [0, 0], out)
        return out
'''
    x = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    y = RNG.uniform(-4, 4, (8, 8)).astype(np.float32)
    ref = x.copy()
    ref[:8, :8] = x[:8, :8] * y
    report = run_and_compare(pl.parse(src), {"x": x, "y": y, "out": np.zeros((16, 16), np.float32)})
    np.testing.assert_allclose(report.outputs["out"], ref, rtol=1e-6)
    np.testing.assert_allclose(report.golden_outputs["out"], ref, rtol=1e-6)


# ops that keep positions: the result is valid where the operand(s) are, so a store writes that region only
_POSITIONAL = {
    "pl.tile.rems(a, 3.0)": lambda x, z: np.remainder(x, 3.0),
    "pl.tile.sin(a)": lambda x, z: np.sin(x),
    "pl.tile.lrelu(a, 0.5)": lambda x, z: np.where(x > 0, x, 0.5 * x),
    "pl.tile.expands(a, 2.5)": lambda x, z: np.full_like(x, 2.5),
    "pl.tile.addc(a, a, z)": lambda x, z: x + x + z,
    "pl.tile.addsc(a, 1.5, z)": lambda x, z: x + 1.5 + z,
    "pl.tile.sel(pl.tile.cmps(a, 0.0, cmp_type=4), a, z)": lambda x, z: np.where(x > 0, x, z),
    "pl.tile.sels(pl.tile.cmps(a, 0.0, cmp_type=4), a, 9.0)": lambda x, z: np.where(x > 0, x, 9.0),
    "pl.tile.row_expand_add(a, pl.tile.row_sum(z))": lambda x, z: x + z.sum(axis=1, keepdims=True),
    "pl.tile.col_expand_mul(a, pl.tile.col_max(z))": lambda x, z: x * z.max(axis=0, keepdims=True),
}


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("expr", sorted(_POSITIONAL))
def test_position_keeping_ops_store_only_the_valid_region(expr, split):
    src = f'''import tilefold.language as pl


@pl.program
class Keep:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 64], valid_shapes=[n, 40], target_memory=pl.Mem.Vec)
        z = pl.tile.load(w, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        r = {expr}
        out = pl.store(r, [0, 0], out)
        return out
'''
    n = 11
    x = RNG.uniform(-3, 3, (16, 64)).astype(np.float32)
    w = RNG.uniform(-3, 3, (16, 64)).astype(np.float32)
    ref = np.full((16, 64), OLD, np.float32)
    ref[:n, :40] = _POSITIONAL[expr](x.astype(np.float64), w.astype(np.float64))[:n, :40]
    inputs = {"x": x, "w": w, "n": n, "out": np.full((16, 64), OLD, np.float32)}
    report = run_and_compare(pl.parse(src), inputs, options={"enable_auto_bind_sub_block": split})
    assert report.fault is None, report.summary()
    np.testing.assert_allclose(report.golden_outputs["out"], ref, rtol=1e-5, atol=1e-5, err_msg="golden")
    np.testing.assert_allclose(report.outputs["out"], ref, rtol=1e-5, atol=1e-5, err_msg="device")


# windows of a partial tile: the valid part of the window, clipped (a static or a run-time extent)
_WINDOWS = {
    "pl.tile.slice(a, [8, 64], [0, 0])": ((8, 64), lambda n: (min(n, 8), 40), (0, 0)),
    "pl.tile.slice(a, [16, 32], [0, 32])": ((16, 32), lambda n: (n, 8), (0, 32)),
    "pl.tile.slice(a, [8, 32], [8, 0])": ((8, 32), lambda n: (max(0, min(n - 8, 8)), 32), (8, 0)),
    "pl.tile.extract(a, 0, 32, shape=[16, 32], target_memory=pl.Mem.Vec)": ((16, 32), lambda n: (n, 8), (0, 32)),
}


@pytest.mark.parametrize("n", [5, 11, 16])
@pytest.mark.parametrize("expr", sorted(_WINDOWS))
def test_a_window_of_a_partial_tile_stores_its_valid_part_only(expr, n):
    (r, c), valid, (r0, c0) = _WINDOWS[expr]
    src = f'''import tilefold.language as pl


@pl.program
class Win:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[{r}, {c}], pl.FP32]]) -> pl.Tensor[[{r}, {c}], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 64], valid_shapes=[n, 40], target_memory=pl.Mem.Vec)
        b = {expr}
        out = pl.store(b, [0, 0], out)
        return out
'''
    x = RNG.uniform(-3, 3, (16, 64)).astype(np.float32)
    vr, vc = valid(n)
    ref = np.full((r, c), OLD, np.float32)
    ref[:vr, :vc] = x[r0:r0 + vr, c0:c0 + vc]
    report = run_and_compare(pl.parse(src), {"x": x, "n": n, "out": np.full((r, c), OLD, np.float32)})
    assert report.fault is None, report.summary()
    np.testing.assert_array_equal(report.golden_outputs["out"], ref)
    np.testing.assert_array_equal(report.outputs["out"], ref)


def test_a_reshape_of_a_partial_tile_is_refused():
    src = '''import tilefold.language as pl


@pl.program
class R:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a = pl.tile.load(x, [0, 0], [16, 64], valid_shapes=[n, 40], target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.reshape(a, [32, 32]), [0, 0], out)
        return out
'''
    with pytest.raises(TilefoldError, match="reshape of a tile whose valid shape is smaller"):
        pl.parse(src)


@pytest.mark.parametrize("split", [True, False])
def test_a_binary_op_of_two_run_time_valid_shapes_is_valid_on_their_intersection(split):
    src = _part_src("part_add", "[ra, ca]", "[rb, cb]").replace("pl.tile.part_add(a, b)", "pl.tile.mul(a, b)")
    x = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    y = RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
    ra, ca, rb, cb = 12, 5, 7, 9
    ref = np.full((16, 16), OLD, np.float32)
    ref[:7, :5] = x[:7, :5] * y[:7, :5]
    inputs = {"x": x, "y": y, "ra": ra, "ca": ca, "rb": rb, "cb": cb, "out": np.full((16, 16), OLD, np.float32)}
    _check(src, inputs, ref, split)
