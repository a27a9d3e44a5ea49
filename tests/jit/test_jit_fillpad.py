"""pl.fillpad / pl.tile.fillpad with pl.PadValue (PyPTO's spelling): the invalid region of a partially valid
tile is filled, on the simulator by a `tfillpad` vector instruction. References are computed here with numpy."""

import numpy as np
import pytest
import valid_shape_kernels as k

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TypeInferenceError
from tilefold.ir import PadValue
from tilefold.sim import simulate
from tilefold.sim.timeline import PIPES
from tilefold.targets import Pipe
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(31)

KERNEL = '''import math

import tilefold.language as pl

PAD = pl.PadValue.min

@pl.jit
def k(x: pl.Tensor[[16, 64], pl.{dtype}], out: pl.Out[pl.Tensor[[16, 64], pl.{dtype}]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shapes=[{rows}, {cols}])
        pl.store({fill}, [0, 0], out)
    return out
'''


def _kernel(fill: str, rows: int = 10, cols: int = 40, dtype: str = "FP32") -> str:
    return KERNEL.format(fill=fill, rows=rows, cols=cols, dtype=dtype)


@pytest.mark.parametrize(("fill", "pad"), [
    ("pl.tile.fillpad(t, pad_value=pl.PadValue.min)", -np.inf),
    ("pl.fillpad(t, pl.PadValue.max)", np.inf),
    ("pl.fillpad(t, pad_value=pl.PadValue.zero)", 0.0),
    ("pl.fillpad(t, 0)", 0.0),  # PyPTO's numeric sugars: 0 / 0.0, -math.inf, math.inf
    ("pl.fillpad(t, pad_value=-math.inf)", -np.inf),
    ("pl.fillpad(t, math.inf)", np.inf),
    ("pl.fillpad(t, PAD)", -np.inf),  # a module-level PadValue constant
])
def test_fillpad_fills_outside_the_valid_region(fill, pad):
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(_kernel(fill)), {"x": x, "out": np.zeros((16, 64), np.float32)})
    assert report.matches, report.summary()
    expected = np.full((16, 64), pad, np.float32)
    expected[:10, :40] = x[:10, :40]
    np.testing.assert_array_equal(report.outputs["out"], expected)


def test_integer_pads_are_the_dtype_limits():
    x = RNG.integers(-50, 50, (16, 64)).astype(np.int32)
    for fill, pad in (("pl.fillpad(t, pl.PadValue.min)", np.iinfo(np.int32).min),
                      ("pl.fillpad(t, pl.PadValue.max)", np.iinfo(np.int32).max)):
        report = run_and_compare(pl.parse(_kernel(fill, 3, 64, "INT32")), {"x": x, "out": np.zeros_like(x)})
        assert report.matches, report.summary()
        expected = np.full((16, 64), pad, np.int32)
        expected[:3] = x[:3]
        np.testing.assert_array_equal(report.outputs["out"], expected)


def test_null_pads_nothing_so_only_the_valid_region_is_stored():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    old = np.full((16, 64), 9.0, np.float32)
    report = run_and_compare(pl.parse(_kernel("pl.fillpad(t, pl.PadValue.null)")), {"x": x, "out": old})
    assert report.matches, report.summary()
    expected = old.copy()
    expected[:10, :40] = x[:10, :40]
    np.testing.assert_array_equal(report.outputs["out"], expected)


def test_fillpad_before_row_max_gives_the_max_of_the_valid_columns_of_negative_rows():
    # PyPTO's fatal pitfall: with zero padding every all-negative row would come back 0.0
    x = (-1.0 - np.abs(RNG.standard_normal((16, 64)))).astype(np.float32)
    out = np.zeros((16, 1), np.float32)
    for n in (40, 64, 1):
        k.block_row_max(x, n, out)
        np.testing.assert_array_equal(out[:, 0], x[:, :n].max(axis=1))


def test_fillpad_is_a_vector_instruction_priced_on_the_vector_pipe():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    compiled = k.block_row_max.compile(x, 40, np.zeros((16, 1), np.float32))
    text = compiled.pto.text()
    assert "tfillpad %p, %t, [16, $n], pad_value=PadValue.min" in text
    assert "tload %t, @x[0, 0] valid[16, $n]" in text
    sim = simulate(compiled.pto, {"x": x, "n": 40, "out": np.zeros((16, 1), np.float32)}, compiled.target)
    recs = [(PIPES[tr.pipe[i]], tr.work[i]) for tr in sim.traces for i, ins in enumerate(tr.instr)
            if getattr(ins, "text", lambda: "")().startswith("tfillpad")]
    assert recs and all(pipe is Pipe.VECTOR and work > 0 for pipe, work in recs)
    printed = k.block_row_max.lower(x, 40, np.zeros((16, 1), np.float32)).as_python()
    assert "pl.tile.fillpad(t, pad_value=pl.PadValue.min)" in printed


def test_pad_value_is_one_ir_enum_the_language_re_exports():
    assert pl.PadValue is PadValue and pl.PadValue.min is PadValue.min
    assert [m.name for m in pl.PadValue] == ["null", "zero", "max", "min"]


def test_a_reduction_over_an_unpadded_partial_tile_is_refused_with_a_fillpad_hint():
    src = _kernel("pl.row_sum(t, pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec))")
    src = src.replace("out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]", "out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]")
    from tilefold.compiler import compile

    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(src, "kern.py"))
    assert "valid shape is smaller than its shape" in info.value.message and "tile.row_sum" in info.value.message
    assert "pl.tile.fillpad" in info.value.hint and info.value.span.line == 11


@pytest.mark.parametrize(("fill", "exc", "text"), [
    ("pl.fillpad(t, pl.PadValue.lowest)", ParseError, "unknown pl.PadValue.lowest"),
    ("pl.fillpad(t, 3.5)", TypeInferenceError, "pad_value=3.5 is not a pl.PadValue"),
    ("pl.fillpad(x, pl.PadValue.min)", ParseError, "pl.fillpad pads a tile"),
    ("pl.fillpad(t, pl.PadValue.min, pl.PadValue.max)", ParseError, "wrong arity"),
])
def test_fillpad_errors_are_located_with_a_hint(fill, exc, text):
    with pytest.raises(exc) as info:
        pl.parse(_kernel(fill), "kern.py")
    assert text in info.value.message and info.value.hint
    assert info.value.span is not None and info.value.span.line == 11
