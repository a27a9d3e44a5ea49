"""``@pl.inline`` in the ``@pl.program`` form (dev/03-functions, language/01-functions): the helper's body is
spliced at every call site and no function is added to the program. One mechanism with ``@pl.jit.inline``
(``tilefold/frontend/inline.py``). References are numpy, written here."""

from __future__ import annotations

import inline_helpers_module as helpers
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(19)
A = RNG.standard_normal((16, 64)).astype(np.float32)


def _run(program, inputs):
    report = run_and_compare(program, inputs)
    assert report.fault is None and report.matches, report.summary()
    return report.outputs


@pl.inline
def scaled_exp(x: pl.Tile[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
    y = pl.mul(x, s)
    return pl.exp(y)


@pl.inline
def split_signs(x: pl.Tile[[16, 64], pl.FP32]):
    pos = pl.maximum(x, pl.muls(x, 0.0))
    return pos, pl.sub(x, pos)


def test_helper_spliced_at_each_call_site():
    @pl.program
    class Twice:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [16, 64])
            u = scaled_exp(t, 0.5)
            w = scaled_exp(u, -2.0)  # an independent second expansion
            out = pl.store(w, [0, 0], out)
            return out

    assert [f.name for f in Twice.functions] == ["kernel"]  # the helper leaves no function behind
    got = _run(Twice, {"a": A, "out": np.zeros_like(A)})["out"]
    np.testing.assert_allclose(got, np.exp(-2.0 * np.exp(0.5 * A)), rtol=1e-5, atol=1e-6)


def test_tuple_result_and_keyword_arguments():
    @pl.program
    class Signs:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], pos_out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                   neg_out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tuple[pl.Tensor[[16, 64], pl.FP32],
                                                                          pl.Tensor[[16, 64], pl.FP32]]:
            t = pl.load(a, [0, 0], [16, 64])
            p, n = split_signs(x=t)
            e = scaled_exp(s=1.0, x=p)
            pos_out = pl.store(e, [0, 0], pos_out)
            neg_out = pl.store(n, [0, 0], neg_out)
            return pos_out, neg_out

    got = _run(Signs, {"a": A, "pos_out": np.zeros_like(A), "neg_out": np.zeros_like(A)})
    np.testing.assert_allclose(got["pos_out"], np.exp(np.maximum(A, 0)), rtol=1e-5)
    np.testing.assert_array_equal(got["neg_out"], np.minimum(A, 0))


def test_helpers_of_another_module_read_that_module():
    twice = helpers.twice_shifted_square

    @pl.program
    class Nested:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[16, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [16, 64])
            out = pl.store(twice(t), [0, 0], out)
            return out

    once = (A + 1.5) ** 2
    got = _run(Nested, {"a": A, "out": np.zeros_like(A)})["out"]
    np.testing.assert_allclose(got, (once + 1.5) ** 2, rtol=1e-5)


def test_closure_values_of_the_definition_site():
    def build(rows: int, bias: float):
        @pl.inline
        def biased(x: pl.Tile[[rows, 64], pl.FP32]) -> pl.Tile[[rows, 64], pl.FP32]:
            return pl.adds(x, bias)

        @pl.program
        class Closure:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, a: pl.Tensor[[rows, 64], pl.FP32],
                       out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
                t = pl.load(a, [0, 0], [rows, 64])
                out = pl.store(biased(t), [0, 0], out)
                return out

        return Closure

    for rows, bias in ((16, 0.25), (8, -3.0)):
        a = A[:rows]
        got = _run(build(rows, bias), {"a": a, "out": np.zeros_like(a)})["out"]
        np.testing.assert_array_equal(got, a + np.float32(bias))


TEXT = """
import tilefold.language as pl

@pl.inline
def row_block(a: pl.Tensor[[64, 64], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tile[[16, 64], pl.FP32]:
    t = pl.load(a, [i * 16, 0], [16, 64])
    if i > 1:
        r = pl.yield_(pl.muls(t, 3.0))
    else:
        r = pl.yield_(pl.neg(t))
    return r

@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            out = pl.store(row_block(a, i), [i * 16, 0], out)
        return out
"""


def test_text_mode_helper_inside_a_loop_with_an_if():
    program = pl.parse(TEXT)
    assert [f.name for f in program.functions] == ["kernel"]
    a = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(program, {"a": a, "out": np.zeros_like(a)})["out"]
    expected = np.concatenate([-a[:32], 3.0 * a[32:]])
    np.testing.assert_array_equal(got, expected)


DOCS = """
import tilefold.language as pl

@pl.inline
def normalize(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    result: pl.Tensor[[64], pl.FP32] = pl.mul(x, 2.0)
    return result

@pl.program
class MyModel:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = normalize(x)
        return y
"""


def test_the_reference_example_parses_to_one_function():
    program = pl.parse(DOCS)
    assert [f.name for f in program.functions] == ["main"]
    text = pl.python_print(program)
    assert "normalize" not in text and "pl.tensor.muls(x, 2.0)" in text


HEAD = """
import tilefold.language as pl

{helpers}

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
{body}
        out = pl.store(t, [0, 0], out)
        return out
"""
ONE = "@pl.inline\ndef h(x):\n    return pl.exp(x)\n"


@pytest.mark.parametrize("helpers,body,message,line", [
    (ONE, "t = h(t, t)", r"h\(\) takes 1 argument\(s\) but 2 were given", 15),
    (ONE, "t = h()", r"h\(\) missing argument\(s\): 'x'", 15),
    (ONE, "t = h(y=t)", "unexpected keyword argument 'y'", 15),
    (ONE, "t = h(t, x=t)", "multiple values for argument 'x'", 15),
    ("@pl.inline\ndef h(x):\n    return h(x)\n", "t = h(t)", r"calls itself \(h -> h\)", 6),
    ("@pl.inline\ndef h(x):\n    y = pl.exp(x)\n", "t = h(t)", "must end with `return value`", 5),
    ("@pl.inline\ndef h(x, n):\n    if n > 0:\n        return x\n    return pl.exp(x)\n", "t = h(t, n)",
     "returns before its last statement", 7),
    ("@pl.inline\ndef h(x, k=2):\n    return x\n", "t = h(t)", "without defaults", 15),
])
def test_bad_helper_calls_are_located(helpers, body, message, line):
    src = HEAD.format(helpers=helpers, body="        " + body)
    with pytest.raises(ParseError, match=message) as info:
        pl.parse(src, "inl.py")
    assert info.value.span.line == line and info.value.hint


def test_a_helper_with_statements_in_a_while_condition_is_refused():
    helpers = "@pl.inline\ndef h(n):\n    m = n + 1\n    return m\n"
    body = "        i = 0\n        while i < h(n):\n            i = i + 1\n        t = pl.adds(t, 1.0)"
    with pytest.raises(NotSupportedError, match="in a while condition"):
        pl.parse(HEAD.format(helpers=helpers, body=body), "inl.py")


def test_pl_inline_takes_no_options():
    with pytest.raises(ParseError, match="unknown @pl.inline option"):
        pl.inline(mode=1)
