"""Errors of the jit form: each names the file, line and column, shows the line and gives a hint."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TilefoldError, TypeInferenceError
from tilefold.runtime import RunConfig

HEAD = "import tilefold.language as pl\n\n"
SIG = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],\n"
       "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n")


def fails(body: str, exc: type[TilefoldError] = ParseError, head: str = SIG) -> TilefoldError:
    """Parse a jit kernel whose offending line ends with `# <-`; check file, line, source line and hint."""
    src = HEAD + head + body
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        pl.parse(src, "kern.py")
    err = info.value
    assert err.span is not None and err.span.filename == "kern.py", str(err)
    assert err.span.line == line, (err.span.line, line, str(err))
    assert err.span.column >= 1 and "# <-" in err.span.source_line
    assert err.hint
    return err


def test_tensor_op_outside_any_scope_is_misplaced():
    err = fails("    out[:] = pl.add(a, b)  # <-\n    return out\n")
    assert "Misplaced tensor op 'tensor.add' in Orchestration function (should be inside an InCore scope)" \
        in err.message
    assert "pl.at" in err.hint


def test_tile_op_outside_any_scope_is_misplaced():
    err = fails("    t = pl.load(a, [0, 0], [16, 64])  # <-\n    return out\n")
    assert "Misplaced tile op" in err.message


def test_missing_annotation():
    err = fails("    return a\n", head="@pl.jit\ndef k(a):  # <-\n")
    assert "Parameter 'a' missing type annotation" in err.message


def test_bare_tensor_needs_call_arguments():
    err = fails("    return a\n", head="@pl.jit\ndef k(a: pl.Tensor):  # <-\n")
    assert "bare pl.Tensor" in err.message and "compile(" in err.hint


def test_unknown_scope_level_and_options():
    err = fails("    with pl.at(level=pl.Level.HOST, role=pl.Role.Worker):  # <-\n"
                "        with pl.at(level=pl.Level.CORE_GROUP):\n            out[:] = pl.add(a, b)\n    return out\n",
                NotSupportedError)
    assert "HOST" in err.message and "Worker" in err.message
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP, colour=1):  # <-\n        out[:] = pl.add(a, b)\n"
                "    return out\n")
    assert "unknown pl.at option 'colour'" in err.message


def test_with_other_than_pl_at():
    err = fails("    with open('x'):  # <-\n        out[:] = pl.add(a, b)\n    return out\n")
    assert "pl.at" in err.message


def test_nested_scopes():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        with pl.at(level=pl.Level.CORE_GROUP):  # <-\n"
                "            out[:] = pl.add(a, b)\n    return out\n")
    assert "do not nest" in err.message


def test_shape_mismatch_of_a_tensor_op():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
            "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n")
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(a, b)  # <-\n    return out\n",
                TypeInferenceError, head)
    assert "operand shapes differ" in err.message and "row_expand" in err.hint


def test_write_dtype_mismatch():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],\n"
            "      out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):\n")
    # (an FP32 value into an FP16 / BF16 tensor is rounded on the way out, as in PyPTO; into INT32 it is refused)
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(a, b)  # <-\n    return out\n",
                TypeInferenceError, head)
    assert "dtype" in err.message and "pl.cast" in err.hint


def test_write_outside_the_target():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        out[8:24, :] = pl.add(a, b)  # <-\n"
                "    return out\n", TypeInferenceError)
    assert "outside the target extent" in err.message


def test_slice_with_a_step_and_non_constant_bound():
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        x = a[0:16:2, :]  # <-\n"
                "        out[:] = x\n    return out\n")
    assert "without a step" in err.message


def test_unknown_sub_function():
    err = fails("    return helper(a, b, out)  # <-\n")
    assert "unknown function 'helper'" in err.message and "@pl.jit.incore" in err.hint


def test_concat_of_tiles_has_a_tile_form():
    src = (HEAD + SIG + "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [16, 64])\n"
           "        x = pl.concat(t, t)\n        out[:] = a\n    return out\n")
    assert "tile.concat" in pl.parse(src, "kern.py").as_python()


def test_writing_an_input_parameter():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],\n"
            "      out: pl.Tensor[[16, 64], pl.FP32]):\n")
    from tilefold.compiler import compile

    prog = pl.parse(HEAD + head + "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(a, b)\n"
                    "    return out\n", "kern.py")
    with pytest.raises(NotSupportedError, match="writes 'out', an input parameter") as info:
        compile(prog)  # the pipeline's OutlineIncoreScopes finds it
    assert info.value.span.line == 6 and "pl.Out" in info.value.hint


def test_tensor_value_crossing_scopes_goes_through_a_workspace():
    from tilefold.testing import run_and_compare

    src = (HEAD + SIG + "    with pl.at(level=pl.Level.CORE_GROUP):\n        s = pl.add(a, b)\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.exp(s)\n    return out\n")
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((16, 64)).astype(np.float32), rng.standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(src, "kern.py"), {"a": a, "b": b, "out": np.zeros((16, 64), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(a + b), rtol=1e-5, atol=1e-6)


def test_tile_escaping_a_scope_is_refused():
    with pytest.raises(ParseError, match="'t'") as info:
        pl.parse(HEAD + SIG + "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [16, 64])\n"
                 "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.exp(t)\n    return out\n",
                 "kern.py")
    assert info.value.span.line == 9 and "earlier pl.at scope" in info.value.hint


def test_runconfig_unknown_field_and_platform():
    with pytest.raises(TilefoldError, match="RunConfig has no field 'platfrom'") as info:
        RunConfig(platfrom="a2a3sim")
    assert "did you mean 'platform'" in info.value.hint
    with pytest.raises(TilefoldError, match="unknown platform 'tpu'"):
        RunConfig(platform="tpu")
    assert RunConfig(platform="a2a3sim", device_id=3).target == "Ascend910B"


def test_argument_shape_against_annotation():
    import jit_kernels as k

    with pytest.raises(ParseError, match="argument 'a' is Tensor\\[\\[32, 128\\], FP32\\]"):
        k.add_tensor(np.zeros((32, 128), np.float32), np.zeros((64, 128), np.float32),
                     np.zeros((64, 128), np.float32))


def test_jit_helpers_are_not_callable_directly_and_host_is_refused():
    import jit_kernels as k

    with pytest.raises(ParseError, match="never executed"):
        k.add_kernel(np.zeros((4, 4)), np.zeros((4, 4)), np.zeros((4, 4)))
    with pytest.raises(NotSupportedError, match="pl.jit.host"):
        pl.jit.host(lambda: None)


def test_inline_helper_must_return_a_value_and_incore_not_called_in_a_scope():
    src = HEAD + ("@pl.jit.inline\ndef helper(x):\n    y = pl.exp(x)\n\n"  # no return
                  "@pl.jit.incore\ndef kern(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
                  "    out[:] = a\n    return out\n\n" + SIG +
                  "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = helper(a)\n    return out\n")
    with pytest.raises(ParseError, match="must end with `return value`") as info:
        pl.parse(src, "kern.py")
    assert info.value.span.line == 4
    src2 = src.replace("        out[:] = helper(a)\n", "        out = kern(a, out)\n")
    with pytest.raises(ParseError, match="calling @pl.jit.incore 'kern' inside a pl.at scope") as info:
        pl.parse(src2, "kern.py")
    assert "outside the scope" in info.value.hint


def test_scope_inside_an_orchestration_if():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
            "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n")
    # orchestration code is straight-line: a scope under an if cannot hand its write out of the branch
    with pytest.raises(ParseError, match="cannot rebind 'out' inside an if branch") as info:
        pl.parse(HEAD + head + "    if n > 0:\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                 "            out[:] = pl.exp(a)\n    return out\n", "kern.py")
    assert info.value.span.line == 8 and "pl.yield_" in info.value.hint


def test_scopes_in_an_orchestration_loop_are_unrolled():
    src = HEAD + SIG + ("    for i in pl.range(2):\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                        "            out[i * 8:i * 8 + 8, :] = pl.add(a[i * 8:i * 8 + 8, :], b[i * 8:i * 8 + 8, :])\n"
                        "    return out\n")
    from tilefold.passes.tensor_lowering.outline_incore_scopes import outline_incore_scopes

    prog = pl.parse(src, "kern.py")
    outlined = outline_incore_scopes()(prog)
    assert len([f for f in outlined.functions if f.name.startswith("k_incore_")]) == 2
    from tilefold.testing import run_and_compare

    report = run_and_compare(prog, "random")
    assert report.matches, report.summary()


def test_matmul_transpose_flag_with_mismatched_k_is_located():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16],\n"
            "      out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n")
    err = fails("    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.matmul(a, b, b_trans=True)  # <-\n"
                "    return out\n", TypeInferenceError, head)
    assert "K differs" in err.message


def test_orchestration_loop_needs_constant_bounds():
    head = ("@pl.jit\ndef k(a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
            "      out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n")
    err = fails("    for i in pl.range(n):  # <-\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                "            out[:] = a\n    return out\n", NotSupportedError, head)
    assert "constant bounds" in err.message
