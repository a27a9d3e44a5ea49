"""``@pl.jit.inline`` helpers imported from another module of a package (issue 19): parsed with their own file's
positions and constants, spliced into the caller; checked against numpy."""

from __future__ import annotations

import importlib
import sys
import textwrap

import numpy as np
import pytest

from tilefold.errors import TilefoldError

HELPERS = '''
import tilefold.language as pl

EPS = 1e-6  # a constant of the helper's module

@pl.jit.inline
def rmsnorm(x, w):
    sq = pl.mul(x, x)
    inv = pl.rsqrt(pl.adds(pl.muls(pl.row_sum(sq), 1.0 / 64), EPS))
    return pl.col_expand_mul(pl.row_expand_mul(x, inv), w)

@pl.jit.incore
def scale(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    out = pl.store(pl.muls(pl.load(x, [0, 0], [16, 64]), 3.0), [0, 0], out)
    return out

@pl.jit.inline
def broken(x):
    y = pl.no_such_op(x)
    return y
'''

MODEL = '''
import tilefold.language as pl
from {pkg}.helpers import broken, rmsnorm
from . import helpers
from .helpers import rmsnorm as relative_rmsnorm


@pl.jit.incore
def scale(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    out = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], out)  # not helpers.scale
    return out


@pl.jit
def by_module(x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[1, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], tmp: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        tmp[:] = relative_rmsnorm(x, w)
    tmp = helpers.scale(tmp, tmp)  # the module's @pl.jit.incore, launched
    out = scale(tmp, out)          # this module's own function of the same name
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(out, helpers.rmsnorm(x, w))
    return out

@pl.jit
def layer(x: pl.Tensor[[16, 64], pl.FP32], w: pl.Tensor[[1, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = rmsnorm(x, w)
    return out

@pl.jit
def bad(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = broken(x)
    return out
'''


@pytest.fixture
def package(tmp_path, request):
    name = f"tf_inline_pkg_{request.node.name}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "helpers.py").write_text(textwrap.dedent(HELPERS))
    (root / "model.py").write_text(textwrap.dedent(MODEL.format(pkg=name)))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(f"{name}.model"), root
    finally:
        sys.path.remove(str(tmp_path))
        for m in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[m]


def test_inline_helper_from_another_module(package):
    model, _root = package
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((1, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    model.layer(x, w, out)
    expected = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_relative_imports_and_module_attribute_calls(package):
    """``from .helpers import f``, ``from . import helpers`` then ``helpers.f(...)``: the module's own function,
    kept apart from a function of the same name in the caller's module."""
    model, _root = package
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((1, 64)).astype(np.float32)
    out, tmp = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    model.by_module(x, w, out, tmp)
    norm = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(tmp, 3 * norm, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out, 3 * norm + 1 - norm, rtol=1e-4, atol=1e-5)
    names = [f.name for f in model.by_module.parse(x, w, out, tmp).functions]
    assert sorted(n for n in names if n.startswith("scale")) == ["scale", "scale_1"]


def test_error_in_a_helper_points_into_its_own_file(package):
    model, root = package
    x = np.zeros((16, 64), np.float32)
    with pytest.raises(TilefoldError, match="no_such_op") as info:
        model.bad(x, np.zeros_like(x))
    assert info.value.span.filename.endswith("helpers.py") and info.value.span.line == 19
