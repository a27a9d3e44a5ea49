"""Golden semantics of tile.load valid_shapes, tile.fillpad, atomic stores and tensor.write (the @pl.program
form), with numpy references computed here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError
from tilefold.golden import run_program

SRC = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64], valid_shapes=[n, 48], target_memory=pl.Mem.Vec)
{body}
        return out
'''
RNG = np.random.default_rng(47)


def _run(body: str, n: int, old: np.ndarray | None = None):
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    old = np.full((16, 64), 3.0, np.float32) if old is None else old
    got = run_program(pl.parse(SRC.format(body=body)), {"x": x, "n": n, "out": old.copy()})["out"]
    return x, old, got


@pytest.mark.parametrize(("pad", "value"), [("min", -np.inf), ("max", np.inf), ("zero", 0.0)])
def test_fillpad_fills_the_run_time_invalid_region(pad, value):
    x, _, got = _run(f"        p = pl.tile.fillpad(t, pad_value=pl.PadValue.{pad})\n"
                     "        out = pl.store(p, [0, 0], out)", 6)
    expected = np.full((16, 64), value, np.float32)
    expected[:6, :48] = x[:6, :48]
    np.testing.assert_array_equal(got, expected)


def test_a_store_of_the_loaded_tile_writes_the_valid_region_and_null_pads_nothing():
    for body in ("        out = pl.store(t, [0, 0], out)",
                 "        p = pl.tile.fillpad(t, pad_value=pl.PadValue.null)\n        out = pl.store(p, [0, 0], out)"):
        x, old, got = _run(body, 9)
        expected = old.copy()
        expected[:9, :48] = x[:9, :48]
        np.testing.assert_array_equal(got, expected)


def test_the_undefined_region_of_a_loaded_tile_is_nan_in_golden():
    x, _, got = _run("        f = pl.tile.set_validshape(t, [16, 64])\n        out = pl.store(f, [0, 0], out)", 4)
    assert np.isnan(got[4:]).all() and np.isnan(got[:, 48:]).all()
    np.testing.assert_array_equal(got[:4, :48], x[:4, :48])


def test_a_reduction_needs_the_padding_filled():
    body = "        s = pl.tile.row_max(t)\n        out = pl.store(s, [0, 0], out)"
    src = SRC.format(body=body).replace("out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64]",
                                        "out: pl.InOut[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1]")
    x = -np.abs(RNG.standard_normal((16, 64))).astype(np.float32)
    with pytest.raises(NotSupportedError, match="valid region only"):
        run_program(pl.parse(src), {"x": x, "n": 16, "out": np.zeros((16, 1), np.float32)})
    filled = src.replace("s = pl.tile.row_max(t)",
                         "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)\n        s = pl.tile.row_max(p)")
    got = run_program(pl.parse(filled), {"x": x, "n": 16, "out": np.zeros((16, 1), np.float32)})["out"]
    np.testing.assert_array_equal(got[:, 0], x[:, :48].max(axis=1))


def test_an_atomic_store_adds_its_valid_region():
    x, old, got = _run("        out = pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)", 5)
    expected = old.copy()
    expected[:5, :48] += x[:5, :48]
    np.testing.assert_array_equal(got, expected)


def test_element_writes_in_the_program_form():
    src = '''import tilefold.language as pl

@pl.program
class W:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[4, 4], pl.INT32], out: pl.InOut[pl.Tensor[[4, 4], pl.INT32]]) -> pl.Tensor[[4, 4], pl.INT32]:
        for i, (o,) in pl.range(4, init_values=(out,)):
            v = pl.tensor.read(a, [i, 0])
            o2 = pl.write(o, [i, 3 - i], v + 1)
            out = pl.yield_(o2)
        return out
'''
    a = RNG.integers(0, 9, (4, 4)).astype(np.int32)
    got = run_program(pl.parse(src), {"a": a, "out": np.zeros((4, 4), np.int32)})["out"]
    expected = np.zeros((4, 4), np.int32)
    expected[np.arange(4), 3 - np.arange(4)] = a[:, 0] + 1
    np.testing.assert_array_equal(got, expected)
