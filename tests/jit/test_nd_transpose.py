"""N-D transpose (``pl.transpose`` / ``pl.tensor.transpose`` / ``pl.tile.transpose`` of any two axes of a tile of
rank > 2, negative axes counted from the end): simulated and golden results against numpy's ``swapaxes``."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(11)

JIT = '''import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[{shape}, pl.FP32], out: pl.Out[pl.Tensor[{out_shape}, pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.{op}(x, {a1}, {a2})
    return out
'''

CASES = [
    ((2, 16, 32), 1, 2), ((2, 16, 32), -2, -1), ((2, 16, 32), 0, 1), ((3, 5, 8), 1, 0), ((2, 4, 16), 0, 2),
    ((8, 4, 16), 0, -1), ((2, 3, 16, 32), 1, 2), ((2, 2, 8, 16), 0, 3), ((2, 8, 16, 8), 2, 3),
]


def _swapped(shape, a1, a2):
    out = list(shape)
    out[a1], out[a2] = out[a2], out[a1]
    return out


@pytest.mark.parametrize(("shape", "a1", "a2"), CASES)
@pytest.mark.parametrize("op", ["transpose", "tensor.transpose"])
def test_jit_nd_transpose_matches_numpy(shape, a1, a2, op):
    out_shape = _swapped(shape, a1, a2)
    src = JIT.format(shape=list(shape), out_shape=out_shape, op=op, a1=a1, a2=a2)
    x = RNG.standard_normal(shape).astype(np.float32)
    report = run_and_compare(pl.parse(src), {"x": x, "out": np.zeros(out_shape, np.float32)})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_array_equal(report.outputs["out"], np.swapaxes(x, a1, a2))


PROGRAM = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[2, 3, 16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[2, 16, 3, 16], pl.FP16]]) -> pl.Tensor[[2, 16, 3, 16], pl.FP16]:
        t = pl.tile.load(x, [0, 0, 0, 0], [2, 3, 16, 16], target_memory=pl.Mem.Vec)
        e = pl.tile.exp(t)
        y = pl.tile.transpose(e, axis1=1, axis2=-2)
        out = pl.tile.store(y, [0, 0, 0, 0], out)
        return out
'''


def test_program_form_tile_transpose_of_a_4d_tile():
    x = RNG.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float16)
    report = run_and_compare(pl.parse(PROGRAM), {"x": x, "out": np.zeros((2, 16, 3, 16), np.float16)})
    assert report.fault is None and report.matches, report.summary()
    expected = np.swapaxes(np.exp(x.astype(np.float32)), 1, 2)
    np.testing.assert_allclose(report.outputs["out"].astype(np.float32), expected, rtol=2e-3, atol=2e-3)
