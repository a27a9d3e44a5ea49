"""Hostile inputs at the @pl.jit call boundary and in constants (the hostile2 helper's corpus): each refused case
is a located TilefoldError with a hint, never a raw Python exception from inside tilefold; each accepted one is
compared element by element with numpy written here."""

from __future__ import annotations

from pathlib import Path

import jit_hostile_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.budget import MAX_TENSOR_BYTES
from tilefold.compiler import compile
from tilefold.errors import ParseError, TilefoldError, TypeInferenceError
from tilefold.sim import simulate

RNG = np.random.default_rng(2)


def _located(info: pytest.ExceptionInfo, *fragments: str) -> TilefoldError:
    err = info.value
    assert isinstance(err, TilefoldError) and err.hint, err
    assert err.span is not None and err.span.filename.endswith("jit_hostile_kernels.py"), err.render()
    for fragment in fragments:
        assert fragment in err.message, err.render()
    return err


def test_byte_swapped_arrays_are_read_and_written_by_value():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros((16, 64), ">f4")  # big-endian in and out: the same values as float32
    k.exp_bare(x.astype(">f4"), out)
    np.testing.assert_allclose(out.astype(np.float32), np.exp(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("expr", "value"), [("2 ** 40", 2**40), ("2 ** 62", 2**62), ("3 ** 39", 3**39),
                                              ("10 ** 18", 10**18), ("(-2) ** 61", -(2**61))])
def test_powers_below_63_bits_fold_exactly(expr, value):
    # the bit-length bound of a power was twice too loose: 2 ** 40 was "more than 63 bits"
    text = f"""import tilefold.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        n: pl.Scalar[pl.INDEX] = {expr}
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
"""
    assert f"= {value}" in pl.parse(text).as_python()


@pytest.mark.parametrize("expr", ["2 ** 63", "3 ** 40", "10 ** 19", "10 ** 10 ** 10", "7 ** 1000000"])
def test_powers_above_63_bits_are_refused_where_written(expr):
    text = f"import tilefold.language as pl\nN = {expr}\n"
    with pytest.raises(ParseError, match="too large"):
        pl.parse(text + """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[N, 64], pl.INT32]) -> pl.Tensor[[N, 64], pl.INT32]:
        return a
""")


@pytest.mark.parametrize("kernel", [k.huge_workspace, k.workspace_2_40_rows])
def test_a_gm_tensor_above_the_limit_is_refused_before_allocation(kernel):
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    with pytest.raises(TypeInferenceError) as info:
        kernel(x, np.zeros_like(x))
    err = _located(info, "above the 256 MiB limit of one tensor in simulated GM")
    assert "pl.create_tensor" in Path(k.__file__).read_text().splitlines()[err.span.line - 1]


def test_the_simulator_bounds_a_zero_filled_output_before_allocating():
    # an Out parameter the caller does not pass is zero-filled by the simulator: 2**31 x 2**31 FP32 is refused
    program = pl.parse("""import tilefold.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2147483648, 2147483648], pl.FP32]]) -> pl.Tensor[[2147483648, 2147483648], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
""")
    compiled = compile(program)
    with pytest.raises(TilefoldError, match=f"above the {MAX_TENSOR_BYTES // 2**20} MiB limit") as info:
        simulate(compiled.pto, {"a": np.zeros((16, 64), np.float32)})
    assert info.value.hint


@pytest.mark.parametrize(("kernel", "fragment"), [
    (k.int8_add_300, "the scalar 300 does not fit the operand's dtype INT8"),
    (k.int32_times_half, "the scalar 0.5 is not an integer, but the operand is INT32"),
    (k.int8_fill_1000, "the scalar 1000 does not fit the operand's dtype INT8"),
])
def test_integer_scalars_an_integer_dtype_cannot_hold_are_refused(kernel, fragment):
    dtype = np.int8 if "INT8" in fragment else np.int32
    a = np.full((16, 64), 7, dtype)
    with pytest.raises(TypeInferenceError) as info:
        kernel(a, np.zeros_like(a))
    _located(info, fragment)


def test_integer_scalars_in_range_wrap_like_numpy():
    a = RNG.integers(-128, 128, (16, 64)).astype(np.int8)
    out = np.zeros_like(a)
    k.int8_scalar_ops(a, out)
    with np.errstate(over="ignore"):
        t = (a * np.int8(3) + np.int8(-100)).astype(np.int8)
        expected = np.maximum((t + np.int8(127)).astype(np.int8), np.int8(-128))
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(("kernel", "value"), [(k.float_trip_count, "2.5"), (k.float_step, "1.5")])
def test_float_loop_bounds_are_refused_as_python_refuses_them(kernel, value):
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    with pytest.raises(ParseError) as info:
        kernel(x, np.zeros_like(x))
    err = _located(info, f"loop bounds must be integers, got {value}")
    assert "pl." in Path(k.__file__).read_text().splitlines()[err.span.line - 1]
