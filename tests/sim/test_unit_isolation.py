"""Unit isolation: a kernel reaches only the memories of the unit it runs on.

An AIV kernel runs on one vector sub-block (its own Vec + GM), an AIC kernel on the cube (Mat, Left, Right,
Acc, Bias + GM), an InCore kernel on the whole core (cube memories + sub-block 0's Vec). The simulator traps
(``IllegalUnit``, an ``UnsupportedDataPath``) and codegen refuses the same programs up front
(``NotSupportedError`` at the statement).
"""

from pathlib import Path

import numpy as np
import pytest
from sim_helpers import Acc, Left, Mat, Right, Vec, buf, program, tensor

import tilefold.language as pl
from tilefold.backend.pto import If, SBin, SConst, SSpecial, TExtract, TLoad, TMatmul, TStore, TVector
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError
from tilefold.ir.types import DataType, MemorySpace
from tilefold.sim import DeviceFault, IllegalUnit, UnsupportedDataPath, simulate
from tilefold.targets import get_target, kernel_memory_spaces

Z = SConst(0)
F16 = DataType.FP16


def _cube_prog(func_type):
    return program(
        [TLoad("xm", "x", (Z, Z), (16, 16)), TLoad("wm", "w", (Z, Z), (16, 16)),
         TExtract("a", "xm", Z, Z), TExtract("b", "wm", Z, Z),
         TMatmul("tmatmul", "tile.matmul", "c", ("a", "b")),
         TStore("out", (Z, Z), "c", (16, 16))],
        [buf("xm", Mat, 0, 16, 16, F16), buf("wm", Mat, 512, 16, 16, F16), buf("a", Left, 0, 16, 16, F16),
         buf("b", Right, 0, 16, 16, F16), buf("c", Acc, 0, 16, 16)],
        [tensor("x", (16, 16), dtype=F16), tensor("w", (16, 16), dtype=F16), tensor("out", (16, 16), "Out")],
        func_type=func_type)


def _vec_prog(func_type):
    store = TStore("out", (Z, Z), "y", (16, 64))
    if func_type == "AIV":  # both sub-blocks run an AIV kernel: the whole-tile store is sub-block 0's alone
        store = If(SBin("==", SSpecial("subblock_idx"), Z), (store,), ())
    return program(
        [TLoad("t", "x", (Z, Z), (16, 64)), TVector("texp", "tile.exp", "y", ("t",)), store],
        [buf("t", Vec, 0, 16, 64), buf("y", Vec, 4096, 16, 64)],
        [tensor("x", (16, 64)), tensor("out", (16, 64), "Out")], func_type=func_type)


def _cube_inputs():
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((16, 16)).astype(np.float16),
            "w": rng.standard_normal((16, 16)).astype(np.float16)}


def test_aiv_kernel_cannot_reach_the_cube_memories():
    with pytest.raises(IllegalUnit) as exc:
        simulate(_cube_prog("AIV"), _cube_inputs())
    f = exc.value
    assert isinstance(f, UnsupportedDataPath) and isinstance(f, DeviceFault)
    assert f.instruction.startswith("tload %xm") and f.address == 0 and f.space == "Mat"
    assert "AIV" in f.hint and "AIC" in f.hint
    assert "aiv0" in f.unit


def test_aic_kernel_cannot_reach_vec():
    x = np.ones((16, 64), np.float32)
    with pytest.raises(IllegalUnit) as exc:
        simulate(_vec_prog("AIC"), {"x": x})
    f = exc.value
    assert f.instruction.startswith("tload %t") and f.space == "Vec" and "AIV" in f.hint


@pytest.mark.parametrize("func_type", ["AIC", "InCore"])
def test_cube_work_runs_on_aic_and_incore(func_type):
    inputs = _cube_inputs()
    res = simulate(_cube_prog(func_type), inputs)
    want = inputs["x"].astype(np.float32) @ inputs["w"].astype(np.float32)
    np.testing.assert_allclose(res.outputs["out"], want, rtol=1e-6)


@pytest.mark.parametrize("func_type", ["AIV", "InCore"])
def test_vector_work_runs_on_aiv_and_incore(func_type):
    x = np.linspace(0, 1, 16 * 64, dtype=np.float32).reshape(16, 64)
    res = simulate(_vec_prog(func_type), {"x": x})
    np.testing.assert_allclose(res.outputs["out"], np.exp(x), rtol=1e-6)


def test_aiv_cube_instruction_traps_even_with_operands_already_placed():
    """The MAD itself is refused on a vector sub-block (no tload to Mat before it)."""
    p = program([TMatmul("tmatmul", "tile.matmul", "c", ("a", "b"))],
                [buf("a", Left, 0, 16, 16, F16), buf("b", Right, 0, 16, 16, F16), buf("c", Acc, 0, 16, 16)],
                [], func_type="AIV")
    with pytest.raises(IllegalUnit) as exc:
        simulate(p, {})
    assert exc.value.instruction.startswith("tmatmul") and exc.value.hint


def test_kernel_memory_spaces_table():
    cube = {MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias}
    assert kernel_memory_spaces("AIV") == {MemorySpace.Vec}
    assert kernel_memory_spaces("AIC") == cube
    assert kernel_memory_spaces("InCore") == cube | {MemorySpace.Vec}
    # every space a kernel may use exists on every target
    for name in ("Ascend910B", "Ascend910C", "Ascend950"):
        t = get_target(name)
        assert all(t.capacity(s) > 0 for s in kernel_memory_spaces("InCore"))


# --- compile time: codegen refuses before anything runs -----------------------------------------

_AIV_CUBE = '''
import tilefold.language as pl


@pl.program
class AivCube:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        xm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Left)
        b: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        out = pl.store(c, [0, 0], out)
        return out
'''

_AIC_VEC = '''
import tilefold.language as pl


@pl.program
class AicVec:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("src, space, other", [(_AIV_CUBE, "Mat", "AIC"), (_AIC_VEC, "Vec", "AIV")])
def test_codegen_refuses_cross_unit_tiles_with_the_statement_location(src, space, other, tmp_path: Path):
    # the first statement already defines a tile the kernel's unit cannot reach
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "pl.tile.load(" in text)
    path = tmp_path / "kernel.py"
    path.write_text(src)
    prog = pl.parse_file(str(path))
    with pytest.raises(NotSupportedError) as exc:
        compile(prog)
    err = exc.value
    assert err.span is not None and err.span.line == line and err.span.filename == str(path)
    assert f"the {space} tile" in err.message and other in (err.hint or "")


def test_incore_kernel_with_cube_work_compiles_and_runs():
    from tilefold.testing import run_and_compare

    src = _AIV_CUBE.replace("FunctionType.AIV", "FunctionType.InCore")
    rng = np.random.default_rng(3)
    x, w = (rng.integers(-3, 4, (16, 16)).astype(np.float16) for _ in range(2))
    report = run_and_compare(pl.parse(src), {"x": x, "w": w, "out": np.zeros((16, 16), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    # small integers: exact in FP16 and in any FP32 summation order
    np.testing.assert_array_equal(report.outputs["out"], x.astype(np.float32) @ w.astype(np.float32))
