"""``passes.convert_to_ssa()`` names the versions of a re-assigned name as PyPTO's ConvertToSSA does
(dev/04-convert_to_ssa): ``x__ssa_v0`` per assignment, ``x__phi_v2`` for an if's merge, ``sum__iter_v1`` /
``sum__rv_v3`` for a loop-carried value, one counter per name and function. The renamed program prints, parses
back to itself and computes what numpy computes here by hand."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.pypto_core import passes
from tilefold.testing import run_and_compare

HEAD = """import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
"""
STORE = "        t = pl.load(a, [0, 0], [16, 64])\n        c = pl.store(t, [0, 0], c)\n        return c\n"


def _ssa(body: str) -> tuple[object, str]:
    program = pl.parse(HEAD + body)
    renamed = passes.convert_to_ssa()(program)
    return renamed, pl.python_print(renamed)


def _lines(text: str) -> list[str]:
    """The statement lines of the text, annotations dropped: ``x__ssa_v0 = n + 1``."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if ": pl." in s and " = " in s and not s.startswith(("def ", "for ", "if ", "@")):
            name, rest = s.split(":", 1)
            s = name + " = " + rest.split(" = ", 1)[1]
        out.append(s)
    return out


def test_straight_line_code():
    _, text = _ssa("        x: pl.Scalar[pl.INDEX] = 1\n        y: pl.Scalar[pl.INDEX] = x + 2\n"
                   "        x: pl.Scalar[pl.INDEX] = 3\n        z: pl.Scalar[pl.INDEX] = x + 4\n" + STORE)
    lines = _lines(text)
    for want in ("x__ssa_v0 = 1", "y = x__ssa_v0 + 2", "x__ssa_v1 = 3", "z = x__ssa_v1 + 4"):
        assert want in lines, (want, text)


def test_if_statement_gets_a_phi_version():
    _, text = _ssa("        x: pl.Scalar[pl.INDEX] = 1\n        if n > 2:\n            x = 2\n"
                   "        z = x + 3\n" + STORE)
    lines = _lines(text)
    for want in ("x__ssa_v0 = 1", "x__ssa_v1 = 2", "x__phi_v2 = pl.yield_(x__ssa_v1)", "x__phi_v2 = pl.yield_(x__ssa_v0)",
                 "z = x__phi_v2 + 3"):
        assert want in lines, (want, text)


def test_both_branches_define_the_name():
    _, text = _ssa("        if n > 2:\n            x: pl.Scalar[pl.INDEX] = 2\n        else:\n"
                   "            x: pl.Scalar[pl.INDEX] = 5\n        z = x + 3\n" + STORE)
    lines = _lines(text)
    for want in ("x__ssa_v0 = 2", "x__ssa_v1 = 5", "x__phi_v2 = pl.yield_(x__ssa_v0)", "z = x__phi_v2 + 3"):
        assert want in lines, (want, text)


def test_for_loop_carried_value():
    _, text = _ssa("        sum: pl.Scalar[pl.INDEX] = 0\n        for i in pl.range(10):\n            sum = sum + i\n"
                   + STORE)
    lines = _lines(text)
    for want in ("sum__ssa_v0 = 0", "for i, (sum__iter_v1,) in pl.range(10, init_values=(sum__ssa_v0,)):",
                 "sum__ssa_v2 = sum__iter_v1 + i", "sum__rv_v3 = pl.yield_(sum__ssa_v2)"):
        assert want in lines, (want, text)


def test_loop_escaping_variable():
    _, text = _ssa("        for i in pl.range(4):\n"
                   "            tile_c = pl.add(pl.load(a, [0, 0], [16, 64]), pl.load(a, [0, 0], [16, 64]))\n"
                   "            out = pl.store(tile_c, [0, 0], c)\n        return out\n")
    lines = _lines(text)
    for want in ("for i, (out__iter_v0,) in pl.range(4, init_values=(c,)):", "out__rv_v2 = pl.yield_(out__ssa_v1)",
                 "return out__rv_v2"):
        assert want in lines, (want, text)
    assert any(line.startswith("out__ssa_v1 = pl.store(") for line in lines), text


def test_a_reassigned_parameter_keeps_its_name_as_version_0():
    _, text = _ssa("        n = n + 1\n        n = n * 2\n" + STORE)
    lines = _lines(text)
    for want in ("n__ssa_v1 = n + 1", "n__ssa_v2 = n__ssa_v1 * 2"):
        assert want in lines, (want, text)
    assert "def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]," in text  # the signature keeps it


def test_a_program_without_reassignment_is_returned_as_is():
    program = pl.parse(HEAD + "        t = pl.load(a, [0, 0], [16, 64])\n        r = pl.store(t, [0, 0], c)\n"
                       "        return r\n")
    assert passes.convert_to_ssa()(program) is program


def test_the_renamed_text_parses_back_to_the_same_names():
    renamed, text = _ssa("        x: pl.Scalar[pl.INDEX] = 1\n        if n > 2:\n            x = 2\n"
                         "        sum: pl.Scalar[pl.INDEX] = 0\n        for i in pl.range(10):\n"
                         "            sum = sum + x\n" + STORE)
    again = pl.parse(text)
    assert pl.python_print(again) == text
    assert passes.convert_to_ssa()(again) is again  # one version per name: nothing left to rename


KERNEL = """        x: pl.Scalar[pl.INDEX] = n + 1
        y: pl.Scalar[pl.INDEX] = x + 2
        x: pl.Scalar[pl.INDEX] = n * 3
        z: pl.Scalar[pl.INDEX] = x + y
        if n > 2:
            x = z + 2
        w = x + 3
        sum: pl.Scalar[pl.INDEX] = 0
        for i in pl.range(10):
            sum = sum + i
        t = pl.load(a, [0, 0], [16, 64])
        t = pl.adds(t, sum + w)
        for j in pl.range(2):
            t = pl.muls(t, 2.0)
        c = pl.store(t, [0, 0], c)
        return c
"""


@pytest.mark.parametrize("n", [1, 4])
def test_the_renamed_program_computes_the_same_values(n):
    renamed, text = _ssa(KERNEL)
    assert "t__rv_v4" in text and "x__phi_v3" in text
    a = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    x = 3 * n + (n + 3) + 2 if n > 2 else 3 * n  # z = x + y = 3n + (n + 3)
    w = x + 3
    expected = (a + np.float32(45 + w)) * 4
    report = run_and_compare(renamed, {"a": a, "n": n, "c": np.zeros_like(a)})
    assert report.fault is None, report.summary()
    np.testing.assert_allclose(report.outputs["c"], expected, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(report.golden_outputs["c"], expected, rtol=1e-6, atol=1e-5)


def test_a_jit_entry_reassigning_its_output():
    src = ("import tilefold.language as pl\n\n@pl.jit\n"
           "def k(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.exp(x)\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(out, x)\n    return out\n")
    renamed = passes.convert_to_ssa()(pl.parse(src, "kern.py"))
    lines = _lines(pl.python_print(renamed))
    assert any(line.startswith("out__ssa_v1 = pl.tensor.assemble(out,") for line in lines), lines
    assert any(line.startswith("out__ssa_v2 = pl.tensor.assemble(out__ssa_v1,") for line in lines), lines
    x = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(renamed, {"x": x, "out": np.zeros_like(x)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(x) + x, rtol=1e-5, atol=1e-6)
