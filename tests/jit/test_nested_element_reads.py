"""An element read used inside the index of another read (``pl.read(t, [pl.read(idx, [i]), 0])``), inside index
arithmetic, as an if condition and as a loop bound. Each read becomes a statement of its own before its consumer
(a scalar register is loaded by an instruction; it has no form inside a scalar expression). References are
numpy, written here."""

import nested_read_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.sim.faults import OutOfBounds
from tilefold.testing import run_and_compare

T = np.arange(128, dtype=np.float32).reshape(16, 8) * 0.5 - 7.0


def test_read_indexed_by_a_read():
    idx = np.array([1, 5, 9, 2], np.int32)
    out = np.zeros((16, 8), np.float32)
    k.add_picked(T, idx, out)
    np.testing.assert_array_equal(out, T + T[9, 3])
    idx[2] = 14  # the inner index is data, read at run time
    k.add_picked(T, idx, out)
    np.testing.assert_array_equal(out, T + T[14, 3])


def test_reads_inside_index_arithmetic_in_a_loop():
    idx = np.array([1, 5, 9, 2], np.int32)
    out = np.zeros((4, 8), np.float32)
    k.gather_shifted(T, idx, out)
    expected = np.stack([T[idx[i] + 1] + T[idx[i], i + 2] for i in range(4)])
    np.testing.assert_array_equal(out, expected)


def test_read_as_an_if_condition():
    flags = np.array([1, 0, -3, 7], np.int32)
    out = np.zeros((4, 8), np.float32)
    k.gated_copy(T, flags, out)
    expected = np.where((flags > 0)[:, None], T[:4], -T[:4])
    np.testing.assert_array_equal(out, expected)


def test_read_as_a_loop_bound():
    n = np.array([0, 5], np.int32)
    out = np.full((16, 8), 9.0, np.float32)
    k.read_trip_count(T, n, out)
    expected = np.full((16, 8), 9.0, np.float32)
    expected[:5] = 2 * T[:5]
    np.testing.assert_array_equal(out, expected)


def test_each_read_is_its_own_statement_before_its_consumer():
    idx = np.zeros(4, np.int32)
    text = k.add_picked.lower(T, idx, np.zeros((16, 8), np.float32)).as_python()
    inner = text.index("pl.tensor.read(idx, [2])")
    outer = text.index("pl.tensor.read(t, [")
    assert inner < outer
    assert "pl.tensor.read(t, [pl.tensor.read" not in text


@pytest.mark.parametrize("bad", [16, -1])
def test_an_inner_index_out_of_range_faults(bad):
    idx = np.array([0, 0, bad, 0], np.int32)
    with pytest.raises(OutOfBounds, match=f"element read at \\[{bad}, 3\\]"):
        k.add_picked(T, idx, np.zeros((16, 8), np.float32))


PROGRAM = """
import tilefold.language as pl

@pl.program
class Picked:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, t: pl.Tensor[[16, 8], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        ti = pl.load(idx, [0, 0], [1, 8])
        x = pl.load(t, [0, 0], [16, 8])
        v = pl.tile.read(x, [pl.tile.read(ti, [0, 3]) + 2, 1])
        out = pl.store(pl.adds(x, v), [0, 0], out)
        return out
"""


def test_program_form_tile_read_indexed_by_a_tile_read():
    idx = np.array([[0, 1, 2, 7, 4, 5, 6, 3]], np.int32)
    result = run_and_compare(pl.parse(PROGRAM), {"t": T, "idx": idx, "out": np.zeros((16, 8), np.float32)})
    assert result.fault is None and result.matches, result.summary()
    np.testing.assert_array_equal(result.outputs["out"], T + T[9, 1])
