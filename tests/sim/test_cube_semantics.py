"""Cube arithmetic: float products accumulate in FP32, INT8 products in INT32 with wraparound -- in the
registry goldens the golden interpreter and the simulator share."""

import ml_dtypes
import numpy as np
import pytest
from sim_helpers import Acc, Left, Mat, Right, buf, program, tensor

from tilefold.backend.pto import SConst, TExtract, TLoad, TMatmul, TStore
from tilefold.ir.types import DataType
from tilefold.ops import get_op
from tilefold.sim import simulate
from tilefold.sim.memory import Handle, read

I8, I32, BF16 = DataType.INT8, DataType.INT32, DataType.BF16
Z = SConst(0)


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


@pytest.mark.parametrize("op", ["tile.matmul", "tile.gemv"])
def test_int8_products_accumulate_in_int32_with_wraparound(op):
    k = 140_000  # 127 * 127 * k > 2**31 - 1
    a = np.full((1, k), 127, np.int8)
    b = np.full((k, 1), 127, np.int8)
    got = get_op(op).golden([a, b], {})
    assert got.dtype == np.int32
    assert int(got[0, 0]) == _wrap32(127 * 127 * k) < 0


@pytest.mark.parametrize("op", ["tile.matmul_acc", "tile.gemv_acc"])
def test_int8_accumulation_into_int32_wraps(op):
    acc = np.array([[2**31 - 10]], np.int32)
    a = np.full((1, 4), 3, np.int8)
    b = np.full((4, 1), 2, np.int8)
    got = get_op(op).golden([acc, a, b], {})
    assert got.dtype == np.int32
    assert int(got[0, 0]) == _wrap32(2**31 - 10 + 24)


@pytest.mark.parametrize("op", ["tile.matmul_acc", "tile.gemv_acc", "tile.batch_matmul_acc"])
def test_float_accumulation_is_fp32(op):
    rng = np.random.default_rng(1)
    m = 1 if op == "tile.gemv_acc" else 8
    lead = (2,) if op.startswith("tile.batch") else ()
    a = rng.standard_normal(lead + (m, 32)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal(lead + (32, 16)).astype(ml_dtypes.bfloat16)
    acc = rng.standard_normal(lead + (m, 16)).astype(np.float32) * 1e4
    got = get_op(op).golden([acc, a, b], {})
    assert got.dtype == np.float32
    want = np.matmul(a.astype(np.float32), b.astype(np.float32))
    want += acc  # one FP32 rounding of the sum, as the cube accumulator does
    np.testing.assert_array_equal(got, want)


def test_matmul_bias_adds_in_the_product_type():
    a = np.ones((2, 4), ml_dtypes.bfloat16)
    b = np.ones((4, 3), ml_dtypes.bfloat16)
    bias = np.array([[1.0, 2.0, 3.0]], np.float32)
    got = get_op("tile.matmul_bias").golden([a, b, bias], {})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[5, 6, 7], [5, 6, 7]])


def test_simulated_int8_matmul_acc_matches_the_golden():
    """INT8 operands through Mat -> Left / Right, two MADs into one INT32 NZ accumulator."""
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (32, 64), dtype=np.int8)
    w = rng.integers(-128, 128, (64, 32), dtype=np.int8)
    p = program(
        [TLoad("xm", "x", (Z, Z), (32, 64)), TLoad("wm", "w", (Z, Z), (64, 32)),
         TExtract("a0", "xm", Z, Z), TExtract("b0", "wm", Z, Z),
         TMatmul("tmatmul", "tile.matmul", "c", ("a0", "b0")),
         TExtract("a1", "xm", Z, SConst(32)), TExtract("b1", "wm", SConst(32), Z),
         TMatmul("tmatmul_acc", "tile.matmul_acc", "c", ("c", "a1", "b1")),
         TStore("out", (Z, Z), "c", (32, 32))],
        [buf("xm", Mat, 0, 32, 64, I8), buf("wm", Mat, 4096, 64, 32, I8),
         buf("a0", Left, 0, 32, 32, I8), buf("b0", Right, 0, 32, 32, I8),
         buf("a1", Left, 1024, 32, 32, I8), buf("b1", Right, 1024, 32, 32, I8), buf("c", Acc, 0, 32, 32, I32)],
        [tensor("x", (32, 64), dtype=I8), tensor("w", (64, 32), dtype=I8), tensor("out", (32, 32), "Out", I32)])
    res = simulate(p, {"x": x, "w": w})
    mm, acc = get_op("tile.matmul").golden, get_op("tile.matmul_acc").golden
    want = acc([mm([x[:, :32], w[:32]], {}), x[:, 32:], w[32:]], {})
    assert res.outputs["out"].dtype == np.int32
    np.testing.assert_array_equal(res.outputs["out"], want)
    np.testing.assert_array_equal(want, x.astype(np.int64) @ w.astype(np.int64))  # no overflow at this size


def test_tile_views_are_built_once_per_handle_and_memory():
    """Reads of the same static buffer reuse one numpy view instead of allocating a new array object per
    instruction; a different memory (another sub-block's Vec) gets its own view."""
    mem0, mem1 = np.zeros(4096, np.uint8), np.zeros(4096, np.uint8)
    h = Handle(buf("t", Acc, 0, 16, 16).space, 0, 16, 16, 16, DataType.FP32, "ND")
    v0 = read(mem0, h)
    assert read(mem0, h) is v0
    v1 = read(mem1, h)
    assert v1 is not v0 and not np.shares_memory(v0, v1)
    mem0[:4] = np.frombuffer(np.float32(1.5).tobytes(), np.uint8)
    assert v0[0, 0] == 1.5 and v1[0, 0] == 0
    assert BF16.itemsize == 2
