"""``pl.tensor.slice(x, shape, offsets, valid_shape=v)`` / ``pl.slice(...)``: a window of which only ``v`` (static or
run-time extents) is valid. In kernel code it is the tile the window becomes on the chip (a load of the valid
region; the rest is padding for ``pl.fillpad``; a store / ``pl.assemble`` writes the valid region only). References
are computed here with numpy."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(31)


@pl.jit
def masked_row_max(x: pl.Tensor[[64, 64], pl.FP32], r0: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX],
                   out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    """Paged attention's pattern: a block of which n columns are valid, padded with the minimum, reduced."""
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [16, 64], [r0, 0], valid_shape=[16, n])
        p = pl.fillpad(s, pad_value=pl.PadValue.min)
        tmp = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        out = pl.assemble(out, pl.row_max(p, tmp), [0, 0])
    return out


@pytest.mark.parametrize(("r0", "n"), [(0, 64), (16, 40), (48, 1)])
def test_a_dynamic_valid_shape_of_a_slice_is_what_the_reduction_sees(r0, n):
    x = RNG.standard_normal((64, 64)).astype(np.float32) - 3.0  # all negative: padding by 0 would win the max
    out = np.zeros((16, 1), np.float32)
    masked_row_max(x, r0, n, out)
    np.testing.assert_array_equal(out[:, 0], x[r0:r0 + 16, :n].max(axis=1))


@pl.jit
def partial_copy(x: pl.Tensor[[32, 64], pl.FP32], out: pl.InOut[pl.Tensor[[32, 64], pl.FP32]]):
    """A static valid shape [10, 40]: exp of the valid region written, the rest of out kept."""
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.tensor.slice(x, [16, 64], [8, 0], valid_shape=[10, 40])
        out = pl.assemble(out, pl.exp(s), [4, 0])
    return out


def test_a_static_valid_shape_writes_only_the_valid_region():
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    old = RNG.standard_normal((32, 64)).astype(np.float32)
    out = old.copy()
    partial_copy(x, out)
    expected = old.copy()
    expected[4:14, :40] = np.exp(x[8:18, :40])
    np.testing.assert_allclose(out, expected, rtol=1e-6)


PROGRAM = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 64])
        w = pl.slice(t, [16, 64], [16, 0], valid_shape=[n, 64])
        out = pl.store(pl.fillpad(w, pad_value=pl.PadValue.zero), [0, 0], out)
        return out
'''


@pytest.mark.parametrize("n", [16, 5, 0])
def test_program_form_slice_of_a_tile_with_a_valid_shape(n):
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(PROGRAM), {"x": x, "n": n, "out": np.full((16, 64), 9.0, np.float32)})
    assert report.matches, report.summary()
    expected = np.zeros((16, 64), np.float32)
    expected[:n] = x[16:16 + n]
    np.testing.assert_array_equal(report.outputs["out"], expected)


def test_orchestration_code_cannot_slice_with_a_valid_shape():
    src = PROGRAM + '''
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        s = pl.tensor.slice(x, [32, 64], [0, 0], valid_shape=[n, 64])
        out = self.kernel(s, n, out)
        return out
'''
    with pytest.raises(NotSupportedError, match="in orchestration code: a tensor passed to a kernel") as info:
        pl.parse(src, "k.py")
    assert info.value.span.line == src.splitlines().index(
        "        s = pl.tensor.slice(x, [32, 64], [0, 0], valid_shape=[n, 64])") + 1
    assert "inside the kernel" in info.value.hint


def test_a_valid_shape_slice_of_a_computed_tensor_is_refused_with_a_hint():
    src = '''import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        e = pl.exp(a)
        s = pl.slice(e, [16, 64], [0, 0], valid_shape=[16, n])
        out = pl.assemble(out, pl.fillpad(s, pad_value=pl.PadValue.zero), [0, 0])
    return out
'''
    with pytest.raises(NotSupportedError, match="of the computed tensor value 'e'") as info:
        pl.parse(src, "k.py")
    assert info.value.span.line == 7 and "slice a tensor parameter" in info.value.hint
