"""User-input errors and unsupported ops in the golden interpreter."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from golden_irbuild import BF16, IN, INOUT, OUT, kernel_program, scalar, tensor

from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.golden import run_program
from tilefold.ir import Call, TileType
from tilefold.ops import OpDef, OpKind, Param, ParamKind, Unit, registry


def _copy_program(dtype=None):
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 8])
        b.let("o", "tile.store", t, [0, 0], out)

    kw = {} if dtype is None else {"dtype": dtype}
    return kernel_program([("x", tensor([4, 8], **kw), IN), ("out", tensor([4, 8], **kw), OUT)], body)


def test_missing_input():
    with pytest.raises(TilefoldError, match="missing input 'x'") as info:
        run_program(_copy_program(), {})
    assert "shape [4, 8]" in info.value.hint


def test_missing_out_param_is_zero_filled_but_inout_is_required():
    x = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(run_program(_copy_program(), {"x": x})["out"], x)

    def body(b, io):
        b.let("o", "tile.store", b.let("t", "tile.load", io, [0, 0], [4, 8]), [0, 0], io)

    with pytest.raises(TilefoldError, match="missing input 'io'"):
        run_program(kernel_program([("io", tensor([4, 8]), INOUT)], body), {})


def test_unknown_input_name():
    with pytest.raises(TilefoldError, match="unknown input") as info:
        run_program(_copy_program(), {"x": np.zeros((4, 8), np.float32), "y": 1})
    assert "x, out" in info.value.hint


def test_wrong_shape():
    with pytest.raises(TilefoldError, match=r"shape \[4, 9\]"):
        run_program(_copy_program(), {"x": np.zeros((4, 9), np.float32)})
    with pytest.raises(TilefoldError, match="rank"):
        run_program(_copy_program(), {"x": np.zeros((32,), np.float32)})


def test_wrong_dtype_names_the_conversion():
    with pytest.raises(TilefoldError, match="dtype float64") as info:
        run_program(_copy_program(), {"x": np.zeros((4, 8))})
    assert "np.float32" in info.value.hint
    with pytest.raises(TilefoldError, match="BF16") as info:
        run_program(_copy_program(BF16), {"x": np.zeros((4, 8), np.float32)})
    assert "ml_dtypes.bfloat16" in info.value.hint
    x = np.ones((4, 8), ml_dtypes.bfloat16)
    np.testing.assert_array_equal(run_program(_copy_program(BF16), {"x": x})["out"], x)


def test_scalar_input_checks():
    def body(b, x, k, out):
        b.let("o", "tile.store", b.let("t", "tile.load", x, [k, 0], [4, 8]), [0, 0], out)

    p = kernel_program([("x", tensor([8, 8]), IN), ("k", scalar(), IN), ("out", tensor([4, 8]), OUT)], body)
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    np.testing.assert_array_equal(run_program(p, {"x": x, "k": np.int64(2)})["out"], x[2:6])
    with pytest.raises(TilefoldError, match="must be an integer"):
        run_program(p, {"x": x, "k": 1.5})
    with pytest.raises(TilefoldError, match="must be an integer"):
        run_program(p, {"x": x, "k": "1"})


def test_op_without_golden_is_not_supported(monkeypatch):
    name = "golden_test.no_golden"
    op = OpDef(name, (Param("tile", ParamKind.TILE),), lambda a, k: a[0].type, OpKind.OTHER, Unit.VECTOR)
    monkeypatch.setitem(registry._REGISTRY, name, op)

    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 8])
        r = b.assign("r", Call(name, (t,), (), TileType(t.type.shape, t.type.dtype)))
        b.let("o", "tile.store", r, [0, 0], out)

    p = kernel_program([("x", tensor([4, 8]), IN), ("out", tensor([4, 8]), OUT)], body)
    with pytest.raises(NotSupportedError, match="golden_test.no_golden"):
        run_program(p, {"x": np.zeros((4, 8), np.float32)})


def test_unknown_op_is_not_supported():
    def body(b, x, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 8])
        r = b.assign("r", Call("tile.definitely_not_an_op", (t,), (), t.type))
        b.let("o", "tile.store", r, [0, 0], out)

    p = kernel_program([("x", tensor([4, 8]), IN), ("out", tensor([4, 8]), OUT)], body)
    with pytest.raises(NotSupportedError, match="tile.definitely_not_an_op"):
        run_program(p, {"x": np.zeros((4, 8), np.float32)})


def test_golden_does_not_import_the_device_path():
    import subprocess
    import sys

    code = ("import sys, tilefold.golden; "
            "bad = [m for m in sys.modules if m.startswith(('tilefold.backend', 'tilefold.sim'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
