"""User mistakes reach the user as tilefold errors that blame their code: a location, what was expected
versus what was found, and a hint that, when followed, works."""

from __future__ import annotations

import pytest

import tilefold.language as pl
from tilefold.errors import TypeInferenceError

HEADER = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], x3: pl.Tensor[[2, 16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out3: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]):
'''


def _parse_body(body: str):
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return pl.parse(HEADER + lines + "        return out\n", filename="k.py")


# ---- 1. statically out-of-bounds GM windows ----------------------------------------------------

@pytest.mark.parametrize("body, axis, window, extent, advice", [
    ("t = pl.tile.load(x, [0, 0], [16, 64])\nout = pl.store(t, [0, 0], out)", 1, "[0:64)", 32, "use at most 32"),
    ("t = pl.tile.load(x, [8, 0], [16, 64])", 0, "[8:24)", 16, "offset in [0, 0] on axis 0"),
    ("t = pl.tile.load(x, [0, 40], [16, 32])", 1, "[40:72)", 64, "offset in [0, 32] on axis 1"),
    ("t = pl.tile.load(x, [0, 0], [16, 32])\nout = pl.store(t, [4, 0], out)", 0, "[4:20)", 16,
     "offset in [0, 0] on axis 0"),
    ("t = pl.tile.load(x3, [1, 0, 0], [2, 16, 64])", 0, "[1:3)", 2, "offset in [0, 0] on axis 0"),
    ("t = pl.tile.load(x3, [0, 0, 0], [2, 16, 32])\nout3 = pl.store(t, [0, 0, 8], out3)", 2, "[8:40)", 32,
     "offset in [0, 0] on axis 2"),
])
def test_static_out_of_bounds_window_is_rejected(body, axis, window, extent, advice):
    with pytest.raises(TypeInferenceError) as exc:
        _parse_body(body)
    e = exc.value
    assert f"window {window} on axis {axis} is outside the tensor extent {extent}" in e.message
    assert advice in (e.hint or "")
    assert e.span is not None and e.span.filename == "k.py" and e.span.line > 8


def test_in_bounds_and_dynamic_windows_still_parse():
    _parse_body("b = pl.tile.get_block_idx()\n"
                "t = pl.tile.load(x, [0, b * 32], [16, 32])\n"
                "u = pl.tile.load(x, [0, 32], [16, 32])\n"
                "out = pl.store(t, [0, 0], out)\n"
                "out = pl.store(u, [b, 0], out)")


def _ir_store(tensor_shape, offsets, window, tile_shape):
    from tilefold.ir.expr import ConstInt, MakeTuple, Var
    from tilefold.ir.types import DataType, MemorySpace, TensorType, TileType
    from tilefold.ops import make_call
    fp32 = DataType.FP32
    tile = Var("t", TileType(tuple(ConstInt(d) for d in tile_shape), fp32, MemorySpace.Vec))
    out = Var("out", TensorType(tuple(ConstInt(d) for d in tensor_shape), fp32))
    return make_call("tile.store", [tile, MakeTuple(tuple(ConstInt(o) for o in offsets)), out],
                     {"shapes": window})


def _ir_flat_load(tensor_shape, offsets, window):
    from tilefold.ir.expr import ConstInt, MakeTuple, Var
    from tilefold.ir.types import DataType, TensorType
    from tilefold.ops import make_call
    x = Var("x", TensorType(tuple(ConstInt(d) for d in tensor_shape), DataType.FP32))
    return make_call("tile.load", [x, MakeTuple(tuple(ConstInt(o) for o in offsets)),
                                   MakeTuple(tuple(ConstInt(o) for o in window))], {"flatten": True})


def test_flattened_forms_check_the_nd_window():
    _ir_store((2, 16, 32), (0, 0, 0), (2, 16, 32), (32, 32))  # in bounds
    with pytest.raises(TypeInferenceError, match=r"window \[1:3\) on axis 0 is outside the tensor extent 2"):
        _ir_store((2, 16, 32), (1, 0, 0), (2, 16, 32), (32, 32))
    _ir_flat_load((2, 16, 32), (0, 0, 0), (2, 16, 32))
    with pytest.raises(TypeInferenceError, match=r"window \[8:24\) on axis 1 is outside the tensor extent 16"):
        _ir_flat_load((2, 16, 32), (0, 8, 0), (2, 16, 32))


# ---- 4. store dtype hint for matmul results -----------------------------------------------------

MM = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        al = pl.tile.move(am, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(al, br{kw})
        out = pl.store(c, [0, 0], out)
        return out
'''


def test_store_of_fp32_matmul_result_into_fp16_hints_out_dtype_and_the_hint_works():
    with pytest.raises(TypeInferenceError) as exc:
        pl.parse(MM.format(kw=""))
    hint = exc.value.hint or ""
    assert "out_dtype=pl.FP16" in hint and "pl.tile.cast(tile" not in hint
    # following the hint compiles and matches the golden on the simulator
    import numpy as np

    from tilefold.testing import run_and_compare
    prog = pl.parse(MM.format(kw=", out_dtype=pl.FP16"))
    rng = np.random.default_rng(0)
    report = run_and_compare(prog, {"a": rng.standard_normal((16, 32)).astype(np.float16),
                                    "b": rng.standard_normal((32, 16)).astype(np.float16)})
    assert report.fault is None and report.matches


# ---- 2. device faults name the DSL line ---------------------------------------------------------

DYN = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
          row: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        y = pl.tile.muls(t, 2.0)
        out = pl.store(y, [row, 0], out)
        return out
'''


def test_out_of_bounds_store_with_dynamic_offset_names_the_dsl_line():
    import numpy as np

    from tilefold.sim import OutOfBounds
    from tilefold.testing import run_and_compare
    prog = pl.parse(DYN, filename="dyn_kernel.py")  # the dynamic offset passes type inference
    x = np.ones((16, 32), np.float32)
    ok = run_and_compare(prog, {"x": x, "row": 0})
    assert ok.fault is None and ok.matches
    report = run_and_compare(prog, {"x": x, "row": 8})
    f = report.fault
    assert isinstance(f, OutOfBounds)
    line = DYN.splitlines().index("        out = pl.store(y, [row, 0], out)") + 1
    assert f.span is not None and (f.span.filename, f.span.line) == ("dyn_kernel.py", line)
    assert f"dyn_kernel.py:{line}" in str(f) and "pl.store(y, [row, 0], out)" in str(f)
