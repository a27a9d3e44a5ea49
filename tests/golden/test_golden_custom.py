"""Custom op kernels in the golden interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from golden_irbuild import FP32, IN, OUT, kernel_program, scalar, tensor

from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.errors import CustomOpError
from tilefold.golden import run_program
from tilefold.ir import AffineMap, ConstInt, DataType, FunctionType, Mul

RNG = np.random.default_rng(5)
IDENT = AffineMap.parse("(d0, d1) -> (d0, d1)")
ROW = AffineMap.parse("(d0, d1) -> (d0, 0)")


@pytest.fixture
def kernels():
    """Register kernels for one test and remove them afterwards."""
    names: list[str] = []

    def add(symbol, fn, **kw):
        register_custom_op(symbol, fn, replace=True, **kw)
        names.append(symbol)

    yield add
    for n in names:
        unregister_custom_op(n)


def _single_program(symbol, in_shape=(8, 32), out_shape=(8, 32), *, with_scalar=False, func_type=FunctionType.AIV):
    params = [("x", tensor(list(in_shape)), IN)]
    if with_scalar:
        params.append(("s", scalar(DataType.FP32), IN))
    params.append(("out", tensor(list(out_shape)), OUT))

    def body(b, x, *rest):
        out = rest[-1]
        t = b.let("t", "tile.load", x, [0, 0], list(in_shape))
        init = b.let("init", "tile.create", shape=tuple(out_shape), dtype=FP32)
        ins = [t, rest[0]] if with_scalar else [t]
        maps = (IDENT, IDENT) if not with_scalar else ()
        r = b.custom("r", symbol, ins, [init], indexing_maps=maps,
                     iterator_types=("parallel", "parallel") if maps else (), no_side_effect=True)
        b.ret(b.let("o", "tile.store", r, [0, 0], out))

    return kernel_program(params, body, func_type=func_type)


def test_single_result_custom_op(kernels):
    kernels("golden_t.scale_shift", lambda x: (x * 2 + 1).astype(np.float32))
    x = RNG.uniform(-1, 1, (8, 32)).astype(np.float32)
    got = run_program(_single_program("golden_t.scale_shift"), {"x": x})["out"]
    np.testing.assert_array_equal(got, x * 2 + 1)


def test_custom_op_gets_tile_local_arrays_once_per_instance(kernels):
    seen = []

    def kern(x):
        seen.append(x.shape)
        x += 100  # mutating the argument must not leak into the program
        return np.zeros_like(x)

    kernels("golden_t.count", kern)
    x = RNG.uniform(-1, 1, (8, 32)).astype(np.float32)
    got = run_program(_single_program("golden_t.count"), {"x": x}, block_dim=2)["out"]
    assert seen == [(8, 32)] * 2  # once per block: an AIV kernel without get_subblock_idx is one execution
    assert not got.any()


def test_scalar_input_is_a_python_scalar(kernels):
    types = []

    def kern(x, s):
        types.append(type(s))
        return (x * s).astype(np.float32)

    kernels("golden_t.muls", kern)
    x = RNG.uniform(-1, 1, (8, 32)).astype(np.float32)
    got = run_program(_single_program("golden_t.muls", with_scalar=True), {"x": x, "s": 0.5})["out"]
    np.testing.assert_array_equal(got, x * np.float32(0.5))
    assert types == [float]  # an AIV kernel without get_subblock_idx runs once


def test_multi_result_custom_op(kernels):
    def softmax_parts(x):
        m = x.max(axis=1, keepdims=True)
        return m.astype(np.float32), (x - m).astype(np.float32)

    kernels("golden_t.rowmax_sub", softmax_parts)

    def body(b, x, out_m, out_d):
        t = b.let("t", "tile.load", x, [0, 0], [16, 32])
        m0 = b.let("m0", "tile.create", shape=(16, 1), dtype=FP32)
        d0 = b.let("d0", "tile.create", shape=(16, 32), dtype=FP32)
        r = b.custom("r", "golden_t.rowmax_sub", [t], [m0, d0], indexing_maps=(IDENT, ROW, IDENT),
                     iterator_types=("parallel", "reduction"), no_side_effect=True)
        m = b.get("m", r, 0)
        d = b.get("d", r, 1)
        b.let("o1", "tile.store", m, [0, 0], out_m)
        b.let("o2", "tile.store", d, [0, 0], out_d)

    p = kernel_program([("x", tensor([16, 32]), IN), ("out_m", tensor([16, 1]), OUT),
                        ("out_d", tensor([16, 32]), OUT)], body)
    x = RNG.uniform(-1, 1, (16, 32)).astype(np.float32)
    got = run_program(p, {"x": x})
    np.testing.assert_array_equal(got["out_m"], x.max(axis=1, keepdims=True))
    np.testing.assert_array_equal(got["out_d"], x - x.max(axis=1, keepdims=True))


def test_custom_macro_runs_its_kernel(kernels):
    kernels("golden_t.macro", lambda x: np.abs(x))

    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [8, 32])
        init = b.let("init", "tile.create", shape=(8, 32), dtype=FP32)
        r = b.custom("r", "golden_t.macro", [t], [init], macro=True)
        b.let("o", "tile.store", r, [0, 0], out)

    p = kernel_program([("x", tensor([8, 32]), IN), ("out", tensor([8, 32]), OUT)], body)
    x = RNG.uniform(-1, 1, (8, 32)).astype(np.float32)
    np.testing.assert_array_equal(run_program(p, {"x": x})["out"], np.abs(x))


def test_unregistered_symbol_is_a_custom_op_error():
    x = np.zeros((8, 32), np.float32)
    with pytest.raises(CustomOpError, match="no registered kernel") as info:
        run_program(_single_program("golden_t.never_registered"), {"x": x})
    assert "register_custom_op" in info.value.hint


@pytest.mark.parametrize("bad,match", [
    (lambda x: np.zeros((4, 32), np.float32), "returned shape"),
    (lambda x: np.zeros((8, 32), np.float64), "returned dtype"),
    (lambda x: (np.zeros((8, 32), np.float32), np.zeros((8, 32), np.float32)), "returned 2 values"),
])
def test_bad_kernel_results_are_custom_op_errors(kernels, bad, match):
    kernels("golden_t.bad", bad)
    with pytest.raises(CustomOpError, match=match):
        run_program(_single_program("golden_t.bad"), {"x": np.zeros((8, 32), np.float32)})


def test_kernel_exception_is_wrapped(kernels):
    def boom(x):
        raise RuntimeError("kaput")

    kernels("golden_t.boom", boom)
    with pytest.raises(CustomOpError, match="kaput"):
        run_program(_single_program("golden_t.boom"), {"x": np.zeros((8, 32), np.float32)})


def test_sub_block_halves_with_custom_op(kernels):
    """The shape TileAndBindSubBlock produces: each sub-block runs the kernel on its half window."""
    kernels("golden_t.exp", lambda x: np.exp(x).astype(np.float32))

    def body(b, x, out):
        sb = b.let("sb", "tile.get_subblock_idx")
        off = b.assign("off", Mul(sb, ConstInt(8)))
        t = b.let("t", "tile.load", x, [off, 0], [8, 32])
        init = b.let("init", "tile.create", shape=(8, 32), dtype=FP32)
        r = b.custom("r", "golden_t.exp", [t], [init], indexing_maps=(IDENT, IDENT),
                     iterator_types=("parallel", "parallel"), no_side_effect=True)
        b.let("o", "tile.store", r, [off, 0], out)

    p = kernel_program([("x", tensor([16, 32]), IN), ("out", tensor([16, 32]), OUT)], body,
                       func_type=FunctionType.AIV)
    x = RNG.uniform(-1, 1, (16, 32)).astype(np.float32)
    np.testing.assert_array_equal(run_program(p, {"x": x})["out"], np.exp(x))
