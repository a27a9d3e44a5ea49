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
    import numpy as np

    from tilefold.golden import run_program

    prog = _parse_body("b = pl.tile.get_block_idx()\n"
                       "t = pl.tile.load(x, [0, b * 32], [16, 32])\n"
                       "u = pl.tile.load(x, [0, 32], [16, 32])\n"
                       "out = pl.store(t, [0, 0], out)\n"
                       "out = pl.store(u, [b, 0], out)")
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    got = run_program(prog, {"x": x, "x3": np.zeros((2, 16, 64), np.float32), "out": np.zeros((16, 32), np.float32),
                             "out3": np.zeros((2, 16, 32), np.float32)})
    np.testing.assert_array_equal(got["out"], x[:, 32:])  # block 0: t = x[:, :32], then u = x[:, 32:] over it


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


# ---- 3. errors in user kernels blame the user -------------------------------------------------

CUSTOM = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        init = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("{symbol}", ins=[t], outs=[init])
        out = pl.store(y, [0, 0], out)
        return out
'''
CUSTOM_LINE = CUSTOM.splitlines().index('        y = pl.tile.custom("{symbol}", ins=[t], outs=[init])') + 1


def _failing_kernel(a):
    return a[100, 100]  # an IndexError in the user's own code


@pytest.fixture
def custom_symbol():
    from tilefold.custom import unregister_custom_op
    symbol = "user_errors.k"
    yield symbol
    unregister_custom_op(symbol)


def _run_custom(symbol, where):
    import numpy as np
    x = np.ones((16, 32), np.float32)
    prog = pl.parse(CUSTOM.format(symbol=symbol), filename="custom_kernel.py")
    if where == "golden":
        from tilefold.golden import run_program
        return run_program(prog, {"x": x})
    from tilefold.compiler import compile as compile_program
    from tilefold.sim import simulate
    compiled = compile_program(prog)
    return simulate(compiled.pto, {"x": x}, compiled.target)


def _ok(a):
    return a * 2


@pytest.mark.parametrize("where", ["golden", "sim"])
@pytest.mark.parametrize("kernel, cost, expect, advice", [
    (_failing_kernel, None, "raised IndexError", "error in the registered kernel function"),
    (lambda a: a[:8], None, "returned shape [8, 32] for output #0, expected [16, 32]", "tile shape"),
    (lambda a: a.astype("float64"), None, "returned dtype float64 for output #0, expected FP32", "float32"),
    (lambda a: (a, a), None, "returned 2 values for 1 outputs", "one array per output"),
])
def test_custom_kernel_mistakes_are_custom_op_errors(custom_symbol, where, kernel, cost, expect, advice):
    from tilefold.custom import register_custom_op
    from tilefold.errors import CustomOpError
    register_custom_op(custom_symbol, kernel, cost)
    with pytest.raises(CustomOpError) as exc:
        _run_custom(custom_symbol, where)
    e = exc.value
    assert repr(custom_symbol) in e.message and expect in e.message, e.message
    assert advice in (e.hint or "")
    assert e.span is not None and (e.span.filename, e.span.line) == ("custom_kernel.py", CUSTOM_LINE)
    assert f"{__file__}:" in e.message  # the kernel's own location
    if kernel is _failing_kernel:
        assert "a[100, 100]" in e.message  # the user's line that raised


@pytest.mark.parametrize("cost, expect", [
    (lambda: 5, "cannot be called with the 1 input shape(s) [[16, 32]]"),
    (lambda shape: shape[7], "raised IndexError"),
    (lambda shape: "fast", "returned 'fast', expected a non-negative number of cycles"),
])
def test_bad_cost_function_is_a_custom_op_error(custom_symbol, cost, expect):
    from tilefold.custom import register_custom_op
    from tilefold.errors import CustomOpError
    register_custom_op(custom_symbol, _ok, cost)
    with pytest.raises(CustomOpError) as exc:
        _run_custom(custom_symbol, "sim")
    e = exc.value
    assert expect in e.message and repr(custom_symbol) in e.message and "cost(" not in e.message
    assert "in_shapes" in (e.hint or "")
    assert e.span is not None and e.span.line == CUSTOM_LINE


def test_good_cost_function_still_prices_the_call(custom_symbol):
    from tilefold.custom import register_custom_op
    register_custom_op(custom_symbol, _ok, lambda shape: 12345)
    result = _run_custom(custom_symbol, "sim")
    assert result.cycles >= 12345


def test_non_callable_cost_is_rejected_at_registration(custom_symbol):
    from tilefold.custom import register_custom_op
    from tilefold.errors import CustomOpError
    with pytest.raises(CustomOpError, match="not a function"):
        register_custom_op(custom_symbol, _ok, 5)


@pytest.mark.parametrize("text, expect, line", [
    ("import tilefold\n\ndef k(a):\n    return a +\n", "syntax error in kernel file", 4),
    ("import tilefold\nx = {}\nx['missing']\n", "raised KeyError", 3),
    ("import tilefold\ntilefold.register_custom_op('', lambda a: a)\n", "symbol must be a non-empty string", 2),
])
def test_kernels_file_errors_name_the_file_and_line(tmp_path, capsys, text, expect, line):
    from tilefold import cli
    kfile = tmp_path / "my_kernels.py"
    kfile.write_text(text)
    prog = tmp_path / "prog.py"
    prog.write_text(CUSTOM.format(symbol="user_errors.unused"))
    code = cli.main(["run", str(prog), "--kernels", str(kfile)])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USER, err
    assert "tilefold bug" not in err and expect in err
    assert f"{kfile}:{line}" in err


# ---- entry selection and unparsable source: located wherever they are reached -----------------

TWO_KERNELS = '''import tilefold.language as pl


@pl.program
class Two:
    @pl.function(type=pl.FunctionType.InCore)
    def a(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def b(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("call, message", [
    ("golden", "several kernels and no Orchestration function"),
    ("golden-entry", "has no function 'c'"),
    ("compile", "several kernels and no Orchestration function"),
    ("compile-entry", "has no function 'c'"),
])
def test_entry_selection_errors_point_at_the_program(call, message):
    import numpy as np

    from tilefold.compiler import compile
    from tilefold.errors import TilefoldError
    from tilefold.golden import run_program

    prog = pl.parse(TWO_KERNELS, filename="two.py")
    inputs = {"x": np.zeros((16, 64), np.float32), "out": np.zeros((16, 64), np.float32)}
    run = {"golden": lambda: run_program(prog, inputs), "golden-entry": lambda: run_program(prog, inputs, entry="c"),
           "compile": lambda: compile(prog), "compile-entry": lambda: compile(prog, entry="c")}[call]
    with pytest.raises(TilefoldError, match=message) as exc:
        run()
    span = exc.value.span
    assert span is not None and (span.filename, span.line) == ("two.py", 5) and exc.value.hint


@pytest.mark.parametrize("text, message, line", [
    ("import tilefold.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[16, 64], pl.FP32]):\n    return x \x00\n",
     "NUL byte", 5),
    ("import tilefold.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[16, 64], pl.FP32]):\n    n = "
     + " + ".join(["1"] * 3000) + "\n    return x\n", "nested too deeply", 5),
    ("import tilefold.language as pl\n\n@pl.jit\ndef k(x: pl.Tensor[[16, 64], pl.FP32]):\n    return x +\n",
     "invalid Python syntax", 5),
])
def test_unparsable_source_is_a_located_parse_error(text, message, line, tmp_path):
    from tilefold.cli_jit import is_jit_file
    from tilefold.errors import ParseError

    with pytest.raises(ParseError, match=message) as exc:
        pl.parse(text, filename="src.py")
    assert (exc.value.span.filename, exc.value.span.line) == ("src.py", line) and exc.value.hint
    path = tmp_path / "src.py"
    path.write_text(text)
    with pytest.raises(ParseError, match=message):  # `tilefold run` asks this first
        is_jit_file(path)


def test_a_jit_kernel_too_deep_for_ast_parse_is_a_located_error(tmp_path, monkeypatch):
    # how deep ast.parse can go depends on the caller's stack: a module Python imported can still be too deep
    # for the jit's ast.parse of its source. Simulated here by the RecursionError ast.parse raises then.
    import ast
    import importlib.util

    from tilefold.errors import ParseError

    path = tmp_path / "deep_kernel.py"
    path.write_text("import tilefold.language as pl\n\n\n@pl.jit\n"
                    "def deep(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
                    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                    f"        out[:] = pl.muls(x, {' + '.join(['1.0'] * 50)})\n    return out\n")
    spec = importlib.util.spec_from_file_location("deep_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def out_of_stack(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded during ast construction")

    monkeypatch.setattr(ast, "parse", out_of_stack)
    with pytest.raises(ParseError, match="nested too deeply") as exc:
        module.deep.parse()
    assert (exc.value.span.filename, exc.value.span.line) == (str(path), 7) and exc.value.hint
