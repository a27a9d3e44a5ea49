"""Annotations held in module-level names (``T = pl.Tensor[[16, 64], pl.FP32]`` used as ``x: T``, PyPTO's "view, by
variable" ``STRIDED = pl.TensorView(...)`` of dev/00-python_syntax), in both forms, in decorator mode and in text,
read without running anything; each kernel is checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import ParseError
from tilefold.testing import run_and_compare

T = pl.Tensor[[16, 64], pl.FP32]
O = pl.Out[pl.Tensor[[16, 64], pl.FP32]]
STRIDED = pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)  # rows padded to 128 elements: row-major
N = pl.dynamic("N")
TD = pl.Tensor[[N, 64], pl.FP32]
RNG = np.random.default_rng(1911)


def _ab(rows: int = 16) -> tuple[np.ndarray, np.ndarray]:
    return (RNG.standard_normal((rows, 64)).astype(np.float32), RNG.standard_normal((rows, 64)).astype(np.float32))


@pl.program
class Aliased:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32, STRIDED], b: T, out: O) -> T:
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(pl.add(t, pl.load(b, [0, 0], [16, 64])), [0, 0], out)
        return out


@pl.jit
def aliased_jit(a: T, b: T, out: pl.Out[T]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(a, b)
    return out


@pl.jit
def dynamic_alias(a: TD, out: pl.Out[TD]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.mul(a, 3.0)
    return out


PROGRAM_TEXT = '''
import tilefold.language as pl

T = pl.Tensor[[16, 64], pl.FP32]
STRIDED = pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND)


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32, STRIDED], b: T, out: pl.Out[T]) -> T:
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(pl.add(t, pl.load(b, [0, 0], [16, 64])), [0, 0], out)
        return out
'''

JIT_TEXT = '''
import tilefold.language as pl

N = pl.dynamic("N")
T = pl.Tensor[[N, 64], pl.FP32]


@pl.jit
def k(a: T, b: T, out: pl.Out[T]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sub(a, b)
    return out
'''


def _check(program, expected) -> None:
    a, b = _ab()
    report = run_and_compare(program, {"a": a, "b": b, "out": np.zeros_like(a)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], expected(a, b), rtol=1e-6, atol=1e-6)


def test_program_decorator_mode():
    _check(Aliased, lambda a, b: a + b)


def test_program_text():
    _check(pl.parse(PROGRAM_TEXT, "aliases.py"), lambda a, b: a + b)


def test_jit_text_with_a_dynamic_extent_in_the_alias():
    _check(pl.parse(JIT_TEXT, "aliases.py"), lambda a, b: a - b)


def test_jit_decorator_mode():
    a, b = _ab()
    out = np.zeros_like(a)
    aliased_jit(a, b, out)
    np.testing.assert_allclose(out, a - b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("rows", [16, 48])
def test_jit_decorator_mode_dynamic_alias(rows):
    a, _ = _ab(rows)
    out = np.zeros_like(a)
    dynamic_alias(a, out)
    np.testing.assert_allclose(out, 3 * a, rtol=1e-6, atol=1e-6)


def test_a_name_that_is_no_annotation_is_a_located_error():
    text = JIT_TEXT.replace("T = pl.Tensor[[N, 64], pl.FP32]", "T = 5")
    with pytest.raises(ParseError, match="bad type annotation") as info:
        pl.parse(text, "aliases.py")
    assert info.value.span.line == 9 and "a: T" in info.value.span.source_line
