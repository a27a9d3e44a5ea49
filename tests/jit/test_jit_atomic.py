"""Atomic accumulation into GM: pl.assemble(c, partial, offsets, atomic=pl.AtomicType.Add) (PyPTO's split-K) and
pl.store(..., atomic=...). The simulator reads, adds and writes the GM window; golden adds. References are
computed here with numpy; the race rules for atomic adds are tested in tests/sim/test_atomic_races.py."""

import atomic_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TypeInferenceError
from tilefold.ir import AtomicType
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(43)


def test_split_k_accumulates_every_partial_product_into_the_output():
    a = RNG.standard_normal((k.M, k.K)).astype(np.float32)
    b = RNG.standard_normal((k.K, k.N)).astype(np.float32)
    c = np.full((k.M, k.N), 0.5, np.float32)
    k.split_k(a, b, c)
    np.testing.assert_allclose(c, 0.5 + a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    c0 = np.zeros((k.M, k.N), np.float32)  # zero-initialised (the docs' zero_init scope): the plain product
    k.split_k(a, b, c0)
    np.testing.assert_allclose(c0, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_split_k_stores_are_atomic_adds_in_ir_and_pto():
    a, b = np.zeros((k.M, k.K), np.float32), np.zeros((k.K, k.N), np.float32)
    c = np.zeros((k.M, k.N), np.float32)
    printed = k.split_k.lower(a, b, c).as_python()
    assert printed.count("atomic=pl.AtomicType.Add") == k.SPLITS
    text = k.split_k.compile(a, b, c).pto.text()
    assert text.count("atomic=add") == k.SPLITS
    assert pl.parse(printed).functions  # the printed form parses back


def test_integer_atomic_stores_add_and_wrap_like_the_device():
    x = RNG.integers(-100, 100, (16, 64)).astype(np.int32)
    out = np.full((16, 64), 5, np.int32)
    k.add_into(x, out)
    expected = 5 + x
    expected[8:] += x[:8]
    np.testing.assert_array_equal(out, expected)
    big = np.full((16, 64), np.iinfo(np.int32).max, np.int32)
    k.add_into(np.ones((16, 64), np.int32), big)
    assert big[0, 0] == np.iinfo(np.int32).min


TILE = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.{dtype}], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 64], pl.{dtype}]]) -> pl.Tensor[[16, 64], pl.{dtype}]:
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        v = pl.tile.set_validshape(t, [n, 64])
        out = pl.store(v, [0, 0], out, atomic=pl.AtomicType.Add)
        return out
'''


@pytest.mark.parametrize(("dtype", "np_dtype", "rtol"), [("FP32", np.float32, 1e-6), ("FP16", np.float16, 1e-3)])
def test_an_atomic_store_adds_its_valid_region_only_golden_equals_simulator(dtype, np_dtype, rtol):
    x = RNG.uniform(-1, 1, (16, 64)).astype(np_dtype)
    old = RNG.uniform(-1, 1, (16, 64)).astype(np_dtype)
    report = run_and_compare(pl.parse(TILE.format(dtype=dtype)), {"x": x, "n": 5, "out": old.copy()})
    assert report.matches, report.summary()
    expected = old.astype(np.float32)
    expected[:5] += x[:5].astype(np.float32)
    np.testing.assert_allclose(report.outputs["out"].astype(np.float32), expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["BF16", "INT8", "INT16", "INT32"])
def test_atomic_add_into_bf16_and_small_integers(dtype):
    import ml_dtypes

    np_dtype = {"BF16": ml_dtypes.bfloat16, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32}[dtype]
    if dtype == "BF16":
        x = RNG.uniform(-1, 1, (16, 64)).astype(np_dtype)
        old = RNG.uniform(-1, 1, (16, 64)).astype(np_dtype)
    else:
        x = RNG.integers(-100, 100, (16, 64)).astype(np_dtype)
        old = RNG.integers(-100, 100, (16, 64)).astype(np_dtype)
    report = run_and_compare(pl.parse(TILE.format(dtype=dtype)), {"x": x, "n": 5, "out": old.copy()})
    assert report.matches, report.summary()
    if dtype == "BF16":  # added in FP32, rounded to BF16
        expected = old.astype(np.float32)
        expected[:5] += x[:5].astype(np.float32)
        np.testing.assert_allclose(report.outputs["out"].astype(np.float32), expected, rtol=1e-2, atol=1e-2)
    else:  # integers wrap in their dtype (100 + 100 overflows INT8)
        expected = old.copy()
        expected[:5] = (old[:5].astype(np.int64) + x[:5]).astype(np_dtype)
        np.testing.assert_array_equal(report.outputs["out"], expected)


#: the documented set (docs/valid_shapes_atomics_writes.md), written here apart from the registry's tuple
DOCUMENTED_ATOMIC_DTYPES = {"FP32", "FP16", "BF16", "INT32", "INT16", "INT8"}


@pytest.mark.parametrize("dtype", ["UINT8", "UINT16", "UINT32", "INT64", "FP64", "FP8E4M3", "FP8E5M2", "FP32",
                                   "FP16", "BF16", "INT32", "INT16", "INT8"])
def test_atomic_add_dtypes_are_exactly_the_documented_set(dtype):
    """Each dtype is accepted by the store's type check iff the docs list it; the docs' line names the same set."""
    import pathlib
    import re

    doc = (pathlib.Path(__file__).parents[2] / "docs" / "valid_shapes_atomics_writes.md").read_text()
    line = re.search(r"- Element dtypes: ([A-Z0-9, ]+) \(`ATOMIC_ADD_DTYPES`", doc)
    assert line is not None and set(line.group(1).split(", ")) == DOCUMENTED_ATOMIC_DTYPES
    if dtype in DOCUMENTED_ATOMIC_DTYPES:
        assert pl.parse(TILE.format(dtype=dtype), "kern.py").functions
    else:
        with pytest.raises(TypeInferenceError, match=f"an atomic add into a {dtype} tensor is not supported"):
            pl.parse(TILE.format(dtype=dtype), "kern.py")


def test_atomic_add_into_an_unsupported_dtype_is_refused():
    with pytest.raises(TypeInferenceError) as info:
        pl.parse(TILE.format(dtype="UINT8"), "kern.py")
    assert "an atomic add into a UINT8 tensor is not supported" in info.value.message
    assert "FP32, FP16, BF16, INT32, INT16, INT8" in info.value.message and info.value.hint
    assert info.value.span.line == 10


def test_tensor_level_atomic_dtype_and_value_errors():
    src = '''import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[16, 64], pl.{dtype}], c: pl.InOut[pl.Tensor[[16, 64], pl.{dtype}]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c = pl.assemble(c, pl.add(a, a), [0, 0], atomic={atomic})
    return c
'''
    with pytest.raises(TypeInferenceError, match="an atomic add into a UINT8 tensor is not supported"):
        pl.parse(src.format(dtype="UINT8", atomic="pl.AtomicType.Add"), "kern.py")
    with pytest.raises(TypeInferenceError, match="atomic=1 is not a pl.AtomicType") as info:
        pl.parse(src.format(dtype="FP32", atomic="1"), "kern.py")
    assert info.value.span.line == 6
    a = RNG.standard_normal((16, 64)).astype(np.float32)
    c = RNG.standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(src.format(dtype="FP32", atomic="pl.AtomicType.Add")), {"a": a, "c": c.copy()})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["c"], c + 2 * a, rtol=1e-6)
    assert pl.AtomicType is AtomicType and AtomicType.None_.name == "None_"
