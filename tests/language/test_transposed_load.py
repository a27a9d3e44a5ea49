"""``transpose=True`` on ``pl.load`` / ``pl.tile.load`` (GM -> Mat) and ``pl.move`` / ``pl.tile.move`` (Mat ->
Left / Right): the [r, c] window (tile) arrives as the [c, r] tile, the B operand of ``C = A @ B.T``. The load is
a DN-strided view load (dev/10's DN -> NZ ``tload``): priced as the straight load of the same window. Numpy
references are written here."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

M, K, N = 32, 64, 48
RNG = np.random.default_rng(190)
A16 = RNG.integers(-4, 5, (M, K)).astype(np.float16)
B16 = RNG.integers(-4, 5, (N, K)).astype(np.float16)  # stored [N, K]: the kernel needs B.T

TEMPLATE = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 64], pl.DT], b: pl.Tensor[[48, 64], pl.DT],
               out: pl.Out[pl.Tensor[[32, 48], pl.FP32]]) -> pl.Tensor[[32, 48], pl.FP32]:
        ta = pl.load(a, [0, 0], [32, 64], target_memory=pl.MemorySpace.Mat)
        tb = RHS
        c = pl.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
'''

LOAD_T = "pl.load(b, [0, 0], [48, 64], target_memory=pl.MemorySpace.Mat, transpose=True)"
TILE_LOAD_T = "pl.tile.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat, transpose=True)"
MOVE_T = ("pl.move(pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right, "
          "transpose=True)")
TILE_MOVE_T = ("pl.tile.move(pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right, "
               "transpose=True)")


def _program(rhs: str, dt: str = "FP16"):
    return pl.parse(TEMPLATE.replace("RHS", rhs).replace("pl.DT", f"pl.{dt}"))


def _run(program, a, b):
    report = run_and_compare(program, {"a": a, "b": b, "out": np.zeros((M, N), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    return report


@pytest.mark.parametrize("rhs", [LOAD_T, TILE_LOAD_T, MOVE_T, TILE_MOVE_T])
def test_a_transposed_rhs_computes_a_times_b_transposed(rhs):
    out = _run(_program(rhs), A16, B16).outputs["out"]
    want = A16.astype(np.float32) @ B16.astype(np.float32).T  # integers: exact in FP16 and FP32
    np.testing.assert_array_equal(out, want)


def test_bf16_window_at_an_offset():
    import ml_dtypes

    big = RNG.integers(-4, 5, (64, 96)).astype(ml_dtypes.bfloat16)
    a = RNG.integers(-4, 5, (M, K)).astype(ml_dtypes.bfloat16)
    rhs = "pl.load(b, [8, 16], [48, 64], target_memory=pl.Mem.Mat, transpose=True)"
    text = TEMPLATE.replace("RHS", rhs).replace("pl.DT", "pl.BF16").replace("b: pl.Tensor[[48, 64]",
                                                                               "b: pl.Tensor[[64, 96]")
    out = _run(pl.parse(text), a, big).outputs["out"]
    want = a.astype(np.float32) @ big[8:56, 16:80].astype(np.float32).T
    np.testing.assert_array_equal(out, want)


def test_the_tile_type_is_the_swapped_window_and_codegen_marks_the_dn_load():
    program = _program(LOAD_T)
    text = program.as_python()
    assert "transpose=True" in text
    pto = compile(program).text()
    assert "tload %tb, @b[0, 0] dn" in pto
    assert "64x48" in next(line for line in pto.splitlines() if "buffer %tb" in line)


def test_priced_as_the_straight_load_of_the_same_window():
    # the DN view moves the same bytes in the same bursts as the ND load a transpose_view then reads
    straight = "pl.tile.transpose_view(pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat))"
    assert _run(_program(LOAD_T), A16, B16).cycles == _run(_program(straight), A16, B16).cycles


@pytest.mark.parametrize(("call", "needle", "hint"), [
    ("pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Vec, transpose=True)", "Mat (L1) only", "pl.transpose"),
    ("pl.load(b, [0, 0], [48, 64], transpose=True)", "Mat (L1) only", "target_memory=pl.Mem.Mat"),
    ("pl.load(b, [0, 0], [48, 64], [40, 64], target_memory=pl.Mem.Mat, transpose=True)", "valid_shapes",
     "b_trans=True"),
    ("pl.move(pl.load(b, [0, 0], [48, 64]), target_memory=pl.Mem.Vec, transpose=True)", "Left or Right only",
     "pl.transpose"),
    ('pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat, transpose="yes")', "is not True or False",
     "transpose=True"),
    ('pl.move(pl.load(b, [0, 0], [48, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right, transpose=1)',
     "is not True or False", "transpose=True"),
])
def test_unsupported_transposes_are_located_errors_with_a_hint(call, needle, hint):
    with pytest.raises(TilefoldError) as info:
        _program(call)
    err = info.value
    assert needle in err.message and hint in (err.hint or "")
    assert err.span is not None and err.span.line == 10  # the `tb = ...` line of the kernel


def test_golden_alone_agrees_with_numpy():
    from tilefold.golden import run_program

    got = run_program(_program(MOVE_T), {"a": A16, "b": B16, "out": np.zeros((M, N), np.float32)})
    np.testing.assert_array_equal(got["out"], A16.astype(np.float32) @ B16.astype(np.float32).T)
