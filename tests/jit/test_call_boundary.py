"""The @pl.jit call boundary behaves as a Python function's: binding, kinds, sizes, no user code, window shapes,
faults as TilefoldErrors, CLI parity for jit files, and row blocks that do not collapse on prime row counts.
References are numpy expressions written here."""

import json
import time
from pathlib import Path

import call_boundary_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold import cli
from tilefold.errors import NotSupportedError, ParseError, TilefoldError
from tilefold.ir.stmt import ForStmt, flatten_stmts
from tilefold.runtime import TensorSpec
from tilefold.runtime.call_boundary import ArgumentError
from tilefold.sim import DeviceFault

RNG = np.random.default_rng(1919)
HERE = Path(__file__).parent


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------------------------------------ binding


def test_keyword_and_mixed_calls_bind_like_python():
    x, y = _x(16, 64), _x(16, 64)
    for call in (lambda o: k.axpy(x, y, 0.5, o), lambda o: k.axpy(x, y, alpha=0.5, out=o),
                 lambda o: k.axpy(out=o, alpha=0.5, y=y, x=x)):
        out = np.zeros_like(x)
        call(out)
        np.testing.assert_allclose(out, 0.5 * x + y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("call", "message"), [
    (lambda x, o: k.axpy(x, x, 1.0), "axpy() missing argument 'out'"),
    (lambda x, o: k.axpy(x), "axpy() missing arguments 'y', 'alpha', and 'out'"),
    (lambda x, o: k.axpy(x, x, 1.0, o, o), "axpy() takes 4 positional arguments but 5 were given"),
    (lambda x, o: k.axpy(x, x, 1.0, o, beta=2.0), "axpy() got an unexpected keyword argument 'beta'"),
    (lambda x, o: k.axpy(x, x, 1.0, o, x=x), "axpy() got multiple values for argument 'x'"),
])
def test_binding_errors_use_pythons_rules_as_tilefold_errors(call, message):
    x, o = _x(16, 64), np.zeros((16, 64), np.float32)
    with pytest.raises(ArgumentError) as info:
        call(x, o)
    assert message in info.value.message
    assert isinstance(info.value, TilefoldError) and not isinstance(info.value, TypeError)
    assert info.value.span is not None and info.value.span.filename.endswith("call_boundary_kernels.py")


def test_a_dynamic_extent_passed_explicitly_is_refused_with_its_reason():
    x = _x(48, 64)
    for call in (lambda: k.rows_dynamic(x, np.zeros_like(x), 48), lambda: k.rows_dynamic(x, np.zeros_like(x), M=48)):
        with pytest.raises(ArgumentError, match="positional arguments but 3|unexpected keyword argument 'M'") as info:
            call()
        assert "pl.dynamic extent" in info.value.hint
    out = np.zeros_like(x)
    k.rows_dynamic(x, out)
    np.testing.assert_allclose(out, 2.0 * x, rtol=1e-6)


def test_compile_and_lower_bind_keywords_too():
    x = _x(16, 64)
    assert k.bare_exp.compile(a=x, out=np.zeros_like(x)) is k.bare_exp.compile(x, np.zeros_like(x))
    assert k.bare_exp.lower(x, out=np.zeros_like(x)).functions
    with pytest.raises(ArgumentError, match="missing argument 'out'"):
        k.bare_exp.compile(x)


# ------------------------------------------------------------------------------------------------ kinds


def test_an_array_for_a_scalar_parameter_is_refused_before_compiling():
    x = _x(16, 64)
    with pytest.raises(ArgumentError, match=r"argument 'alpha' is an array of shape \[16, 64\].*pl.Scalar\[pl.FP32\]"):
        k.axpy(x, x, x, np.zeros_like(x))
    with pytest.raises(ArgumentError, match=r"argument 'n' is an array.*pl.Scalar\[pl.INDEX\]"):
        k.first_blocks(_x(64, 64), np.array([2, 3]), np.zeros((64, 64), np.float32))
    with pytest.raises(ArgumentError, match="argument 'x' is a float, but the parameter is pl.Tensor"):
        k.axpy(1.0, x, 1.0, np.zeros_like(x))


@pytest.mark.parametrize("bad", [2.9, 2.0, True, np.float64(2.5)])
def test_an_integer_scalar_is_never_rounded(bad):
    x = _x(64, 64)
    with pytest.raises(ArgumentError, match="argument 'n' is .*pl.Scalar\\[pl.INDEX\\]"):
        k.first_blocks(x, bad, np.zeros_like(x))


def test_integer_and_float_scalars_accept_their_numbers():
    x = _x(64, 64)
    out = np.full_like(x, 7.0)
    k.first_blocks(x, np.int64(2), out)  # a numpy integer is an integer
    ref = np.full_like(x, 7.0)
    ref[:32] = np.exp(x[:32])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    a = _x(16, 64)
    out2 = np.zeros_like(a)
    k.axpy(a, a, 3, out2)  # an int for a float scalar
    np.testing.assert_allclose(out2, 4.0 * a, rtol=1e-6, atol=1e-6)
    with pytest.raises(ArgumentError, match="does not fit INDEX"):
        k.first_blocks(x, 2**70, np.zeros_like(x))


# ------------------------------------------------------------------------------------------------ sizes


def test_huge_arguments_are_refused_from_their_shape_before_any_copy():
    big = np.broadcast_to(np.float32(1.0), (2**17, 2**17))  # a stride-0 view of 64 GiB
    t0 = time.perf_counter()
    with pytest.raises(ArgumentError, match="68,719,476,736 bytes, above the 256 MiB limit"):
        k.bare_exp(big, np.zeros((4, 4), np.float32))
    rows = np.broadcast_to(np.float32(1.0), (2**40, 64))  # pl.dynamic rows = 2**40
    with pytest.raises(ArgumentError, match="above the 256 MiB limit"):
        k.rows_dynamic(rows, rows)
    with pytest.raises(ArgumentError, match="above the 256 MiB limit"):
        k.bare_exp.compile(TensorSpec([2**20, 2**20]), TensorSpec([2**20, 2**20]))
    assert time.perf_counter() - t0 < 10  # refused from metadata: no allocation, no compile of a huge program


def test_a_compiled_program_call_checks_sizes_before_copying():
    compiled = k.rows_dynamic.compile(_x(16, 64), np.zeros((16, 64), np.float32))
    rows = np.broadcast_to(np.float32(1.0), (2**30, 64))
    with pytest.raises(TilefoldError, match="above the 256 MiB limit"):
        compiled(rows, np.zeros((16, 64), np.float32))


# ------------------------------------------------------------------------------------------------ no user code


def test_no_method_of_an_int_subclass_runs_while_compiling_or_calling():
    import user_int_kernels as u

    u.CALLED.clear()
    a = _x(32, 64)
    out = np.zeros_like(a)
    u.blocks(a, u.Recording(2), out)
    TensorSpec([u.Recording(4), 64])
    assert u.CALLED == []
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5, atol=1e-6)  # ROWS read as 16 (its __mul__ adds 1)


# ------------------------------------------------------------------------------------------------ windows


def test_a_value_of_another_shape_than_its_window_is_a_located_error():
    src = '''import tilefold.language as pl


@pl.jit
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
'''
    from tilefold.language.jit import parse_jit_text

    with pytest.raises(ParseError, match=r"window out\[:\] has extent 32 on axis 0, but the value written into it "
                                         r"is \[16, 64\]") as info:
        parse_jit_text(src, "k.py")
    assert info.value.span.line == 7
    for window in ("out[0:8, :]", "out[4:36]", "out[:, 0:32]", "out[8:, :]"):
        with pytest.raises(ParseError, match="has extent"):
            parse_jit_text(src.replace("out[:]", window), "k.py")
    assert parse_jit_text(src.replace("out[:]", "out[16:32]"), "k.py").functions  # 16 rows: the value's


def test_windows_of_the_values_shape_write_exactly_there():
    a = _x(16, 64)
    out = np.full((32, 64), 9.0, np.float32)
    k.halves(a, out)
    np.testing.assert_allclose(out, np.concatenate([a, np.exp(a)]), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------ faults


def test_device_faults_are_tilefold_errors_with_their_reason():
    assert issubclass(DeviceFault, TilefoldError)
    with pytest.raises(DeviceFault) as info:
        k.window_at(_x(64, 64), 60, np.zeros((16, 64), np.float32))
    text = str(info.value)
    assert "out-of-bounds" in text and "call_boundary_kernels.py" in text and "hint:" in text


def _cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out + err


def test_a_jit_run_that_faults_prints_the_reason_and_exits_3(capsys):
    code, text = _cli(["run", HERE / "call_boundary_kernels.py", "--kernel", "window_at", "--set", "off=60"], capsys)
    assert code == 3 and "DEVICE FAULT" in text and "OutOfBounds" in text and "out[:] = pl.exp(x[off" in text
    code, text = _cli(["run", HERE / "call_boundary_kernels.py", "--kernel", "window_at", "--set", "off=7"], capsys)
    assert code == 0 and "MATCH" in text


# ------------------------------------------------------------------------------------------------ CLI parity


def test_jit_run_writes_trace_and_honours_max_steps(tmp_path, capsys):
    trace = tmp_path / "t.json"
    code, text = _cli(["run", HERE / "call_boundary_kernels.py", "--kernel", "axpy", "--trace", trace], capsys)
    assert code == 0 and "trace written to" in text
    events = json.loads(trace.read_text())
    assert events.get("traceEvents") if isinstance(events, dict) else events
    code, text = _cli(["run", HERE / "call_boundary_kernels.py", "--kernel", "first_blocks", "--set", "n=4",
                       "--max-steps", "3"], capsys)
    assert code == 2 and "step" in text


def test_a_dynamic_kernel_runs_through_tilefold_run_with_shape(capsys):
    f = HERE / "call_boundary_kernels.py"
    code, text = _cli(["run", f, "--kernel", "rows_dynamic", "--shape", "x=48x64"], capsys)
    assert code == 0 and "MATCH" in text
    code, text = _cli(["run", f, "--kernel", "rows_dynamic"], capsys)
    assert code == 2 and "pl.dynamic extent 'M'" in text and "--shape x=" in text
    code, text = _cli(["run", f, "--kernel", "rows_dynamic", "--shape", "x=48x64", "--shape", "out=40x64"], capsys)
    assert code == 2 and "disagree" in text
    code, text = _cli(["run", f, "--kernel", "rows_dynamic", "--shape", "x=48x64", "--set", "M=3"], capsys)
    assert code == 2 and "'M' is a pl.dynamic extent" in text


def test_tilefold_run_checks_sizes_before_making_inputs(capsys):
    t0 = time.perf_counter()
    code, text = _cli(["run", HERE / "call_boundary_kernels.py", "--kernel", "bare_exp", "--shape", "a=65536x65536",
                       "--shape", "out=65536x65536"], capsys)
    assert code == 2 and "above the 256 MiB limit" in text
    assert time.perf_counter() - t0 < 10


def test_compile_and_opt_take_jit_files(capsys):
    f = HERE / "call_boundary_kernels.py"
    code, text = _cli(["compile", f, "--kernel", "axpy"], capsys)
    assert code == 0 and "kernel @axpy_incore_0" in text and "orchestration @axpy" in text
    code, text = _cli(["opt", f, "--kernel", "bare_exp", "--shape", "a=16x64", "--shape", "out=16x64",
                       "--passes", "default"], capsys)
    assert code == 0 and "pl.tile.exp" in text and "MemRef" in text
    code, text = _cli(["compile", f], capsys)
    assert code == 2 and "expected one @pl.jit entry" in text


# ------------------------------------------------------------------------------------------------ block rows


def _block_loops(program):
    fn = next(f for f in program.functions if f.name.endswith("_incore_0"))
    return [s for s in flatten_stmts(fn.body) if isinstance(s, ForStmt)]


@pytest.mark.parametrize("rows", [307, 311, 300])
def test_prime_row_counts_keep_multi_row_blocks(rows):
    x = _x(rows, 200)
    out = np.zeros_like(x)
    k.gelu(x, out)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out, 0.5 * xd * (1 + np.tanh(0.7978845608 * (xd + 0.044715 * xd ** 3))),
                               rtol=1e-4, atol=1e-5)
    from tilefold.runtime.jit_compile import to_tile_program

    loops = _block_loops(to_tile_program(k.gelu.parse(x, out)))
    trips = [s.stop.value for s in loops]
    assert sum(trips) < rows // 4, trips  # blocks of several rows, not one loop iteration per row
    if rows % 2:  # no divisor fits: the block loop and one remainder block
        assert len(loops) == 2 and trips[1] == 1


def test_a_remainder_block_carries_column_reductions():
    x = _x(307, 64)
    out = np.zeros((1, 64), np.float32)
    k.col_sums(x, out)
    np.testing.assert_allclose(out, np.exp(x.astype(np.float64)).sum(axis=0, keepdims=True), rtol=1e-4)


def test_the_one_row_error_names_the_memory_that_fails():
    a, b = np.zeros((64, 1024), np.float16), np.zeros((1024, 512), np.float16)
    with pytest.raises(NotSupportedError) as info:
        k.big_rhs(a, b, np.zeros((64, 512), np.float32))
    msg = info.value.message
    assert "Mat (L1)" in msg and "of Vec" not in msg and "1048576 B of whole matmul operands" in msg


def test_the_block_row_choice_falls_back_to_divisors_only_when_they_are_large_enough():
    from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import _static_block_rows

    assert _static_block_rows(300, lambda r: r <= 15) == 15  # a divisor
    assert _static_block_rows(307, lambda r: r <= 15) == 15  # prime: the largest that fits, plus a remainder
    assert _static_block_rows(64, lambda r: r <= 40) == 32  # 32 >= 40 / 2: the divisor
    assert _static_block_rows(7, lambda r: r <= 0) is None
    assert pl is not None


def test_a_user_object_for_a_parameter_is_refused_without_touching_it():
    touched = []

    class Lookalike:
        @property
        def shape(self):
            touched.append("shape")
            return (16, 64)

        def __eq__(self, other):
            touched.append("__eq__")
            return True

        __hash__ = object.__hash__

        def __float__(self):
            touched.append("__float__")
            return 1.0

    x = _x(16, 64)
    with pytest.raises(ArgumentError, match="argument 'x' is a Lookalike, but the parameter is pl.Tensor"):
        k.axpy(Lookalike(), x, 1.0, np.zeros_like(x))
    with pytest.raises(ArgumentError, match="argument 'alpha' is a Lookalike"):
        k.axpy(x, x, Lookalike(), np.zeros_like(x))
    assert touched == []
