"""``pl.array`` in kernel code (language/00-types): an on-core array of scalars, created with
``pl.array.create(n, dtype)``, read with ``arr[i]`` / ``pl.array.get_element``, updated functionally with
``arr[i] = v`` / ``pl.array.update_element``. Constant indices are checked at compile time, run-time ones by
the simulator. References are numpy, written here."""

import array_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.sim.faults import OutOfBounds

A = np.arange(128, dtype=np.float32).reshape(8, 16) * 0.25 - 3.0


def test_array_written_in_a_loop_and_read_backwards():
    out = np.zeros((8, 16), np.float32)
    k.reversed_prefix(A, out)
    sums = np.cumsum(np.arange(1, 9, dtype=np.float32))
    np.testing.assert_allclose(out, A * sums[::-1, None], rtol=1e-6)


def test_array_elements_index_a_load():
    for kk in (0, 3, 7):
        out = np.zeros((1, 16), np.float32)
        k.pick_row(A, kk, out)
        np.testing.assert_array_equal(out[0], A[7 - kk])


@pytest.mark.parametrize("kk", [8, -1])
def test_a_run_time_index_outside_the_array_faults(kk):
    with pytest.raises(OutOfBounds, match=f"element read at \\[{kk}\\]"):
        k.pick_row(A, kk, np.zeros((1, 16), np.float32))


def test_an_array_is_a_rank_1_tile_read_by_the_scalar_unit():
    text = k.pick_row.compile(A, 0, np.zeros((1, 16), np.float32)).pto.text()
    assert "ssetval" in text and "sgetval" in text


HEAD = """
import tilefold.language as pl

@pl.jit
def kern(a: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
{body}
    return out
"""


def _scope(*lines: str) -> str:
    return "\n".join(["    with pl.at(level=pl.Level.CORE_GROUP):"] + ["        " + ln for ln in lines])


@pytest.mark.parametrize("body,message", [
    (_scope("arr = pl.array.create(4, pl.INT32)", "x = arr[4]"), "index 4 on axis 0 is outside the tile extent 4"),
    (_scope("arr = pl.array.create(4, pl.INT32)", "arr[-1] = 2"), "index -1 on axis 0 is outside"),
    (_scope("arr = pl.array.create(0, pl.INT32)"), r"constant in \[1, 4096\]"),
    (_scope("arr = pl.array.create(5000, pl.INT32)"), r"constant in \[1, 4096\]"),
    (_scope("arr = pl.array.create(4)"), "takes the extent and the dtype"),
    (_scope("arr = pl.array.create(4, pl.TASK_ID)"), "belongs to the orchestration"),
    (_scope("arr = pl.array.create(4, pl.INT32)", "pl.array.update_element(arr, 0, 1)"), "result is lost"),
    (_scope("t = pl.load(a, [0, 0], [8, 16])", "x = pl.array.get_element(t, 0)"), "expected an array"),
    (_scope("arr = pl.array.create(4, pl.INT32)", "x = pl.array.get_element(arr)"), "takes 2 positional"),
    (_scope("arr = pl.array.resize(4)"), "unknown op pl.array.resize"),
    ("    arr = pl.array.create(4, pl.INT32)", "lives in kernel code"),
])
def test_bad_arrays_are_located(body, message):
    with pytest.raises(TilefoldError, match=message) as info:
        pl.parse(HEAD.format(body=body), "arr.py")
    assert info.value.span is not None and info.value.hint


PROGRAM = """
import tilefold.language as pl

@pl.program
class Gather:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 32], pl.FP32], idx: pl.Tensor[[1, 8], pl.INT32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        ti = pl.load(idx, [0, 0], [1, 8])
        rows = pl.array.create(4, pl.INT32)
        for i in pl.range(4):
            rows[i] = ti[0, 2 * i] + ti[0, 2 * i + 1]
        for j in pl.range(4):
            t = pl.load(a, [rows[3 - j], 0], [8, 32])
            out = pl.store(t, [j * 8, 0], out)
        return out
"""


def test_program_form_array_of_row_offsets():
    from tilefold.testing import run_and_compare

    a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    idx = np.array([[1, 2, 10, 0, 5, 5, 30, 26]], np.int32)
    report = run_and_compare(pl.parse(PROGRAM), {"a": a, "idx": idx, "out": np.zeros((32, 32), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    rows = idx[0, 0::2] + idx[0, 1::2]
    np.testing.assert_array_equal(report.outputs["out"], np.concatenate([a[r:r + 8] for r in rows[::-1]]))
