"""``pl.tri`` / ``pl.tile.tri`` (issue 19): triangular 0 / 1 masks, compiled, simulated and run by golden, against
numpy's ``tril`` / ``triu`` written here; the valid region; the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate


def _src(params: str, body: list[str], ret: str = "out") -> str:
    lines = "\n".join(" " * 8 + b for b in body)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return {ret}\n")


def _run(src: str, inputs: dict, target: str = "Ascend910B"):
    program = pl.parse(src, "<tri>")
    golden = run_program(program, {k: np.array(v, copy=True) for k, v in inputs.items()})
    compiled = compile_program(program, target=target)
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in inputs.items()}, compiled.target)
    return golden, sim


def _numpy_tri(rows: int, cols: int, upper: bool, diagonal: int) -> np.ndarray:
    ones = np.ones((rows, cols))
    return np.triu(ones, diagonal) if upper else np.tril(ones, diagonal)


CASES = [(False, 0), (False, 3), (False, -5), (True, 0), (True, 2), (True, -7), (False, 40), (True, -40)]


@pytest.mark.parametrize(("upper", "diagonal"), CASES)
@pytest.mark.parametrize("dtype", ["FP32", "FP16", "INT32"])
@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_tile_tri_is_numpys_triangle(upper, diagonal, dtype, target):
    np_dt = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32}[dtype]
    src = _src(f"out: pl.Out[pl.Tensor[[16, 48], pl.{dtype}]]",
               [f"t = pl.tile.tri([16, 48], pl.{dtype}, upper={upper}, diagonal={diagonal})",
                "pl.store(t, [0, 0], out)"])
    golden, sim = _run(src, {"out": np.full((16, 48), 9, np_dt)}, target)
    want = _numpy_tri(16, 48, upper, diagonal).astype(np_dt)
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


def test_tensor_form_pl_tri_in_a_jit_kernel_masks_a_product():
    """``pl.tri`` at the tensor level (the jit form), used as a causal mask: ``x * tri``."""
    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32) / 7.0
    src = _src("x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
               ["m = pl.tri([32, 32], pl.FP32, diagonal=-1)", "out[:] = pl.mul(x, m)"])
    golden, sim = _run(src, {"x": x, "out": np.zeros((32, 32), np.float32)})
    want = x * np.tril(np.ones((32, 32), np.float32), -1)
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


@pytest.mark.parametrize(("rows", "cols"), [(5, 20), (16, 48), (0, 48), (16, 1)])
def test_only_the_valid_region_is_written(rows, cols):
    """With a run-time valid shape the store writes the valid region only: the rest of ``out`` keeps its values."""
    src = _src("n: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 48], pl.FP32]]",
               ["t = pl.tile.tri([16, 48], pl.FP32, upper=True, diagonal=1, valid_shape=[n, c])",
                "pl.store(t, [0, 0], out)"])
    start = np.full((16, 48), -3.0, np.float32)
    golden, sim = _run(src, {"n": rows, "c": cols, "out": start})
    want = start.copy()
    want[:rows, :cols] = _numpy_tri(16, 48, True, 1)[:rows, :cols]
    np.testing.assert_array_equal(golden["out"], want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


def test_program_form_spelling_pl_tri_is_the_tile_op():
    src = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tri([16, 16], pl.FP32, upper=True)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.k(out)
        return out
'''
    golden, sim = _run(src, {"out": np.zeros((16, 16), np.float32)})
    np.testing.assert_array_equal(sim.outputs["out"], np.triu(np.ones((16, 16), np.float32)))
    np.testing.assert_array_equal(golden["out"], np.triu(np.ones((16, 16), np.float32)))


@pytest.mark.parametrize(("call", "message"), [
    ("pl.tile.tri([16], pl.FP32)", "not two positive extents"),
    ("pl.tile.tri([16, 16], pl.FP32, upper=1)", "upper=1 must be True or False"),
    ("pl.tile.tri([16, 16], pl.FP32, diagonal=1.5)", "diagonal=1.5 must be an integer"),
    ("pl.tile.tri([16, 16], pl.FP32, valid_shape=[17, 16])", "outside [0, 16]"),
    ("pl.tile.tri([16, 16], pl.FP32, valid_shape=[4])", "valid_shape needs 2 entries"),
])
def test_refusals_are_located(call, message):
    src = _src("out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]", [f"t = {call}", "pl.store(t, [0, 0], out)"])
    with pytest.raises(TilefoldError) as info:
        pl.parse(src, "tri_bad.py")
    assert message in str(info.value) and "tri_bad.py:7" in str(info.value), str(info.value)


def test_tri_is_priced_like_a_one_pass_write():
    from tilefold.sim import instruction_cycles

    for target, family in (("Ascend910B", "TADDS"), ("Ascend950", "TMINS")):
        p = instruction_cycles("tile.tri", "fp32", (16, 64), target=target)
        assert p.origin == "extrapolated" and p.cycles == instruction_cycles(family, "fp32", (16, 64),
                                                                             target=target).cycles
