"""Golden semantics of each op family against hand-written numpy on small arrays."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from golden_irbuild import BF16, FP16, FP32, IN, INT8, INT32, OUT, kernel_program, tensor

from tilefold.analysis.precision_path import PrecisionPath, precision_paths
from tilefold.golden import run_program
from tilefold.ir import MemorySpace
from tilefold.testing.precision import compare

RNG = np.random.default_rng(7)


def rand(shape, dtype=np.float32):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# load / store / slice / extract windows
# ---------------------------------------------------------------------------------------------


def test_load_store_windows():
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [4, 8], [8, 16])
        b.ret(b.let("o", "tile.store", t, [8, 16], out))

    p = kernel_program([("x", tensor([16, 64]), IN), ("out", tensor([16, 32]), OUT)], body)
    x = rand((16, 64))
    out0 = rand((16, 32))
    got = run_program(p, {"x": x, "out": out0})["out"]
    want = out0.copy()
    want[8:16, 16:32] = x[4:12, 8:24]
    np.testing.assert_array_equal(got, want)
    assert not np.shares_memory(got, out0), "inputs are copied"


def test_slice_window_and_slice_of_slice():
    def body(b, x, out1, out2):
        t = b.let("t", "tile.load", x, [0, 0], [16, 128])
        hi = b.let("hi", "tile.slice", t, [16, 64], [0, 64])
        inner = b.let("inner", "tile.slice", hi, [8, 32], [4, 16])
        y = b.let("y", "tile.muls", hi, 0.5)
        b.let("o1", "tile.store", y, [0, 0], out1)
        b.let("o2", "tile.store", inner, [0, 0], out2)

    p = kernel_program([("x", tensor([16, 128]), IN), ("out1", tensor([16, 64]), OUT),
                        ("out2", tensor([8, 32]), OUT)], body)
    x = rand((16, 128))
    got = run_program(p, {"x": x})
    np.testing.assert_array_equal(got["out1"], x[:, 64:] * np.float32(0.5))
    np.testing.assert_array_equal(got["out2"], x[4:12, 80:112])


def test_dynamic_offset_slice_and_extract():
    from golden_irbuild import scalar

    def body(b, x, off, out1, out2):
        t = b.let("t", "tile.load", x, [0, 0], [16, 64])
        s = b.let("s", "tile.slice", t, [4, 64], [off, 0])
        e = b.let("e", "tile.extract", t, off, 8, shape=(4, 16))
        b.let("o1", "tile.store", s, [0, 0], out1)
        b.let("o2", "tile.store", e, [0, 0], out2)

    p = kernel_program([("x", tensor([16, 64]), IN), ("off", scalar(), IN), ("out1", tensor([4, 64]), OUT),
                        ("out2", tensor([4, 16]), OUT)], body)
    x = rand((16, 64))
    for off in (0, 5, 12):
        got = run_program(p, {"x": x, "off": off})
        np.testing.assert_array_equal(got["out1"], x[off:off + 4])
        np.testing.assert_array_equal(got["out2"], x[off:off + 4, 8:24])


def test_slice_out_of_range_at_run_time_is_a_tilefold_error():
    from golden_irbuild import scalar

    from tilefold.errors import TilefoldError

    def body(b, x, off, out):
        t = b.let("t", "tile.load", x, [0, 0], [16, 64])
        s = b.let("s", "tile.slice", t, [4, 64], [off, 0])
        b.let("o", "tile.store", s, [0, 0], out)

    p = kernel_program([("x", tensor([16, 64]), IN), ("off", scalar(), IN), ("out", tensor([4, 64]), OUT)], body)
    with pytest.raises(TilefoldError, match="tile.slice"):
        run_program(p, {"x": rand((16, 64)), "off": 14})


def test_slice_is_a_view_of_its_source():
    """A write through a window (here: a bare matmul_acc into an Acc page) reaches the parent tile."""
    def body(b, x, w, out):
        a = b.let("a", "tile.load", x, [0, 0], [16, 32], target_memory=MemorySpace.Mat)
        wl = b.let("wl", "tile.load", w, [0, 0], [32, 32], target_memory=MemorySpace.Mat)
        acc = b.let("acc", "tile.create", shape=(16, 64), dtype=FP32, target_memory=MemorySpace.Acc)
        for page in range(2):
            view = b.let(f"page{page}", "tile.slice", acc, [16, 32], [0, 32 * page])
            b.do("tile.matmul_acc", view, a, wl)
            b.do("tile.matmul_acc", view, a, wl)
        b.ret(b.let("o", "tile.store", acc, [0, 0], out))

    p = kernel_program([("x", tensor([16, 32]), IN), ("w", tensor([32, 32]), IN), ("out", tensor([16, 64]), OUT)],
                       body)
    x, w = rand((16, 32)), rand((32, 32))
    got = run_program(p, {"x": x, "w": w})["out"]
    one = x @ w
    np.testing.assert_allclose(got, np.concatenate([one + one, one + one], axis=1), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# matmul family
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,np_dtype", [(BF16, ml_dtypes.bfloat16), (FP16, np.float16)])
def test_matmul_low_precision_accumulates_in_fp32(dtype, np_dtype):
    def body(b, x, w, out):
        a = b.let("a", "tile.load", x, [0, 0], [16, 64], target_memory=MemorySpace.Mat)
        bb = b.let("bb", "tile.load", w, [0, 0], [64, 32], target_memory=MemorySpace.Mat)
        c = b.let("c", "tile.matmul", a, bb)
        assert c.type.dtype is FP32
        b.ret(b.let("o", "tile.store", c, [0, 0], out))

    p = kernel_program([("x", tensor([16, 64], dtype), IN), ("w", tensor([64, 32], dtype), IN),
                        ("out", tensor([16, 32]), OUT)], body)
    x, w = rand((16, 64), np_dtype), rand((64, 32), np_dtype)
    got = run_program(p, {"x": x, "w": w})["out"]
    assert got.dtype == np.float32
    # an FP32 sum of 64 exact products, in whatever order: within the precision model's tolerance of it
    fp32_sum = PrecisionPath(FP32, 64)
    assert precision_paths(p)["out"] == fp32_sum
    assert compare(got, x.astype(np.float32) @ w.astype(np.float32), path=fp32_sum).matches
    # the low-precision product would differ: the accumulation really is FP32
    low = (x @ w).astype(np.float32) if np_dtype is np.float16 else None
    if low is not None:
        assert not compare(low, got, path=fp32_sum).matches


def test_int8_matmul_gives_int32():
    def body(b, x, w, out):
        a = b.let("a", "tile.load", x, [0, 0], [8, 64], target_memory=MemorySpace.Mat)
        bb = b.let("bb", "tile.load", w, [0, 0], [64, 16], target_memory=MemorySpace.Mat)
        c = b.let("c", "tile.matmul", a, bb)
        assert c.type.dtype is INT32
        b.ret(b.let("o", "tile.store", c, [0, 0], out))

    p = kernel_program([("x", tensor([8, 64], INT8), IN), ("w", tensor([64, 16], INT8), IN),
                        ("out", tensor([8, 16], INT32), OUT)], body)
    x = RNG.integers(-128, 128, size=(8, 64)).astype(np.int8)
    w = RNG.integers(-128, 128, size=(64, 16)).astype(np.int8)
    got = run_program(p, {"x": x, "w": w})["out"]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, x.astype(np.int32) @ w.astype(np.int32))
    assert np.abs(got).max() > 127  # no int8 wrap-around


def test_matmul_acc_and_bias():
    def body(b, x0, x1, w0, w1, bias, out, out2):
        a0 = b.let("a0", "tile.load", x0, [0, 0], [16, 32], target_memory=MemorySpace.Mat)
        a1 = b.let("a1", "tile.load", x1, [0, 0], [16, 32], target_memory=MemorySpace.Mat)
        b0 = b.let("b0", "tile.load", w0, [0, 0], [32, 16], target_memory=MemorySpace.Mat)
        b1 = b.let("b1", "tile.load", w1, [0, 0], [32, 16], target_memory=MemorySpace.Mat)
        bt = b.let("bt", "tile.load", bias, [0, 0], [1, 16], target_memory=MemorySpace.Bias)
        c = b.let("c", "tile.matmul", a0, b0)
        c2 = b.let("c2", "tile.matmul_acc", c, a1, b1)
        d = b.let("d", "tile.matmul_bias", a0, b0, bt)
        b.let("o", "tile.store", c2, [0, 0], out)
        b.let("o2", "tile.store", d, [0, 0], out2)

    p = kernel_program([("x0", tensor([16, 32]), IN), ("x1", tensor([16, 32]), IN), ("w0", tensor([32, 16]), IN),
                        ("w1", tensor([32, 16]), IN), ("bias", tensor([1, 16]), IN), ("out", tensor([16, 16]), OUT),
                        ("out2", tensor([16, 16]), OUT)], body)
    x0, x1, w0, w1, bias = rand((16, 32)), rand((16, 32)), rand((32, 16)), rand((32, 16)), rand((1, 16))
    got = run_program(p, {"x0": x0, "x1": x1, "w0": w0, "w1": w1, "bias": bias})
    paths = precision_paths(p)  # out: 2 x 32 terms in FP32, out2: 32 (the bias adds one exact term)
    assert paths["out"] == PrecisionPath(FP32, 64) and paths["out2"] == PrecisionPath(FP32, 32)
    assert compare(got["out"], x0 @ w0 + x1 @ w1, path=paths["out"]).matches
    assert compare(got["out2"], x0 @ w0 + bias, path=paths["out2"]).matches
    assert not compare(got["out"], x0 @ w0, path=paths["out"]).matches  # the accumulated product counts


def test_batch_matmul_broadcasts_batch():
    def body(b, x, w, out):
        a = b.let("a", "tile.load", x, [0, 0, 0], [3, 8, 16], target_memory=MemorySpace.Mat)
        bb = b.let("bb", "tile.load", w, [0, 0, 0], [1, 16, 8], target_memory=MemorySpace.Mat)
        c = b.let("c", "tile.batch_matmul", a, bb)
        b.ret(b.let("o", "tile.store", c, [0, 0, 0], out))

    p = kernel_program([("x", tensor([3, 8, 16]), IN), ("w", tensor([1, 16, 8]), IN),
                        ("out", tensor([3, 8, 8]), OUT)], body)
    x, w = rand((3, 8, 16)), rand((1, 16, 8))
    got = run_program(p, {"x": x, "w": w})["out"]
    want = np.stack([x[i] @ w[0] for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# vector: elementwise, reductions, broadcasts, cast, full / create
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op,fn", [("tile.add", np.add), ("tile.sub", np.subtract), ("tile.mul", np.multiply),
                                   ("tile.div", np.divide), ("tile.maximum", np.maximum)])
def test_elementwise_binary(op, fn):
    def body(b, x, y, out):
        tx = b.let("tx", "tile.load", x, [0, 0], [8, 32])
        ty = b.let("ty", "tile.load", y, [0, 0], [8, 32])
        b.let("o", "tile.store", b.let("r", op, tx, ty), [0, 0], out)

    p = kernel_program([("x", tensor([8, 32]), IN), ("y", tensor([8, 32]), IN), ("out", tensor([8, 32]), OUT)], body)
    x, y = rand((8, 32)), rand((8, 32)) + np.float32(2.0)
    np.testing.assert_array_equal(run_program(p, {"x": x, "y": y})["out"], fn(x, y))


def test_fp16_elementwise_computes_in_fp32_and_rounds_once():
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 16])
        e = b.let("e", "tile.exp", t)
        b.let("o", "tile.store", b.let("r", "tile.adds", e, 1.0), [0, 0], out)

    p = kernel_program([("x", tensor([4, 16], FP16), IN), ("out", tensor([4, 16], FP16), OUT)], body)
    x = rand((4, 16), np.float16)
    got = run_program(p, {"x": x})["out"]
    assert got.dtype == np.float16
    exp16 = np.exp(x.astype(np.float32)).astype(np.float16)  # each op rounds its result to FP16
    np.testing.assert_array_equal(got, (exp16.astype(np.float32) + 1.0).astype(np.float16))


@pytest.mark.parametrize("op,fn,axis", [
    ("tile.row_sum", np.sum, 1), ("tile.row_max", np.max, 1), ("tile.row_min", np.min, 1),
    ("tile.col_sum", np.sum, 0), ("tile.col_max", np.max, 0), ("tile.col_min", np.min, 0),
])
def test_reductions(op, fn, axis):
    shape = (16, 1) if axis == 1 else (1, 32)

    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [16, 32])
        b.let("o", "tile.store", b.let("r", op, t), [0, 0], out)

    p = kernel_program([("x", tensor([16, 32]), IN), ("out", tensor(list(shape)), OUT)], body)
    x = rand((16, 32))
    got = run_program(p, {"x": x})["out"]
    np.testing.assert_allclose(got, fn(x, axis=axis, keepdims=True), rtol=1e-6, atol=1e-6)


_EXPAND_CASES = [
    ("", lambda t, v: np.broadcast_to(v, t.shape)), ("_add", np.add), ("_sub", np.subtract), ("_mul", np.multiply),
    ("_div", np.divide), ("_max", np.maximum), ("_min", np.minimum),
]


@pytest.mark.parametrize("family,suffix,fn", [("row", s, f) for s, f in _EXPAND_CASES]
                         + [("col", s, f) for s, f in _EXPAND_CASES]
                         + [("col", "_expdif", lambda t, v: np.exp(t - v))])  # expdif: column family only
def test_row_and_col_expand_families(family, suffix, fn):
    vshape = [8, 1] if family == "row" else [1, 32]
    op = f"tile.{family}_expand{suffix}"

    def body(b, x, v, out):
        t = b.let("t", "tile.load", x, [0, 0], [8, 32])
        tv = b.let("tv", "tile.load", v, [0, 0], vshape)
        b.let("o", "tile.store", b.let("r", op, t, tv), [0, 0], out)

    p = kernel_program([("x", tensor([8, 32]), IN), ("v", tensor(vshape), IN), ("out", tensor([8, 32]), OUT)], body)
    x, v = rand((8, 32)), rand(vshape) + np.float32(2.0)
    got = run_program(p, {"x": x, "v": v})["out"]
    np.testing.assert_allclose(got, fn(x, v).astype(np.float32), rtol=1e-6, atol=1e-7)


def test_col_expand_of_a_column_slice():
    """The #2010 shape: col_expand_mul with a [1, 64] window of a [16, 128] tile's right half."""
    def body(b, x, v, out):
        t = b.let("t", "tile.load", x, [0, 0], [16, 128])
        hi = b.let("hi", "tile.slice", t, [16, 64], [0, 64])
        tv = b.let("tv", "tile.load", v, [0, 0], [16, 128])
        row = b.let("row", "tile.slice", tv, [1, 64], [3, 64])
        b.let("o", "tile.store", b.let("r", "tile.col_expand_mul", hi, row), [0, 0], out)

    p = kernel_program([("x", tensor([16, 128]), IN), ("v", tensor([16, 128]), IN), ("out", tensor([16, 64]), OUT)],
                       body)
    x, v = rand((16, 128)), rand((16, 128))
    np.testing.assert_array_equal(run_program(p, {"x": x, "v": v})["out"], x[:, 64:] * v[3:4, 64:])


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


# PyPTO's modes: round is ROUND (ties away from zero), rint rounds ties to even
@pytest.mark.parametrize("mode,fn", [("round", _round_half_away), ("rint", np.rint), ("floor", np.floor),
                                     ("ceil", np.ceil), ("trunc", np.trunc)])
def test_cast_float_to_int_rounding(mode, fn):
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [1, 8])
        b.let("o", "tile.store", b.let("c", "tile.cast", t, target_type=INT32, mode=mode), [0, 0], out)

    p = kernel_program([("x", tensor([1, 8]), IN), ("out", tensor([1, 8], INT32), OUT)], body)
    x = np.array([[0.5, 1.5, 2.5, -0.5, -1.5, 2.7, -2.7, 3.2]], dtype=np.float32)
    np.testing.assert_array_equal(run_program(p, {"x": x})["out"], fn(x).astype(np.int32))


def test_cast_saturates_float_and_wraps_int():
    def body(b, x, y, out, out2):
        t = b.let("t", "tile.load", x, [0, 0], [1, 4])
        b.let("o", "tile.store", b.let("c", "tile.cast", t, target_type=INT8), [0, 0], out)
        u = b.let("u", "tile.load", y, [0, 0], [1, 4])
        b.let("o2", "tile.store", b.let("d", "tile.cast", u, target_type=INT8), [0, 0], out2)

    p = kernel_program([("x", tensor([1, 4]), IN), ("y", tensor([1, 4], INT32), IN),
                        ("out", tensor([1, 4], INT8), OUT), ("out2", tensor([1, 4], INT8), OUT)], body)
    x = np.array([[1e6, -1e6, np.nan, 3.0]], dtype=np.float32)
    y = np.array([[300, -129, 127, 256]], dtype=np.int32)
    got = run_program(p, {"x": x, "y": y})
    np.testing.assert_array_equal(got["out"], np.array([[127, -128, 0, 3]], dtype=np.int8))
    np.testing.assert_array_equal(got["out2"], y.astype(np.int8))  # two's-complement wrap


def test_cast_to_bf16_rounds_to_nearest_even():
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [2, 16])
        b.let("o", "tile.store", b.let("c", "tile.cast", t, target_type=BF16), [0, 0], out)

    p = kernel_program([("x", tensor([2, 16]), IN), ("out", tensor([2, 16], BF16), OUT)], body)
    x = rand((2, 16))
    got = run_program(p, {"x": x})["out"]
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(got, x.astype(ml_dtypes.bfloat16))


def test_full_and_create():
    def body(b, out, out2):
        f = b.let("f", "tile.full", shape=(4, 16), dtype=FP16, value=3.5)
        z = b.let("z", "tile.create", shape=(4, 16), dtype=FP32)
        z1 = b.let("z1", "tile.adds", z, 1.25)
        b.let("o", "tile.store", f, [0, 0], out)
        b.let("o2", "tile.store", z1, [0, 0], out2)

    p = kernel_program([("out", tensor([4, 16], FP16), OUT), ("out2", tensor([4, 16]), OUT)], body)
    got = run_program(p, {})
    np.testing.assert_array_equal(got["out"], np.full((4, 16), 3.5, np.float16))
    np.testing.assert_array_equal(got["out2"], np.full((4, 16), 1.25, np.float32))


def test_reshape_transpose_and_move():
    def body(b, x, out, out2):
        t = b.let("t", "tile.load", x, [0, 0], [8, 16])
        r = b.let("r", "tile.reshape", t, [16, 8])
        tr = b.let("tr", "tile.transpose", t)
        m = b.let("m", "tile.move", r, target_memory=MemorySpace.Vec)
        b.let("o", "tile.store", m, [0, 0], out)
        b.let("o2", "tile.store", tr, [0, 0], out2)

    p = kernel_program([("x", tensor([8, 16]), IN), ("out", tensor([16, 8]), OUT), ("out2", tensor([16, 8]), OUT)],
                       body)
    x = rand((8, 16))
    got = run_program(p, {"x": x})
    np.testing.assert_array_equal(got["out"], x.reshape(16, 8))
    np.testing.assert_array_equal(got["out2"], x.T)
