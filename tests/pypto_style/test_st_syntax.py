"""The Syntax page's subscript sugar in PyPTO's program form: ``out[:] = value`` and ``out[lo:hi, :] = tile``
written in an InCore ``@pl.function`` (tensor-level ops in the kernel, lowered by ConvertTensorToTileOps), and the
located error when the window and the value disagree."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, rand, run_case

import tilefold.language as pl
from tilefold.errors import ParseError

TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.{dt}], b: pl.Tensor[[64, 64], pl.{dt}],
               out: pl.Out[pl.Tensor[[64, 64], pl.{dt}]]) -> pl.Tensor[[64, 64], pl.{dt}]:
{body}
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[64, 64], pl.{dt}], b: pl.Tensor[[64, 64], pl.{dt}],
                     out: pl.Out[pl.Tensor[[64, 64], pl.{dt}]]) -> pl.Tensor[[64, 64], pl.{dt}]:
        out = self.kernel(a, b, out)
        return out
"""


def _parse(body: str, dtype: str = "fp32"):
    return pl.parse(TEXT.format(dt=dtype.upper(),
                                body="\n".join("        " + ln for ln in body.strip().splitlines())))


BODIES = {
    "tensor_whole": ("out[:] = pl.add(pl.mul(a, b), 1.0)", lambda a, b: a * b + 1.0),
    "tensor_operators": ("out[:] = a * b + a", lambda a, b: a * b + a),
    "tile_windows": ("top = pl.load(a, [0, 0], [32, 64])\nbot = pl.load(b, [32, 0], [32, 64])\n"
                     "out[0:32, :] = pl.exp(top)\nout[32:64, :] = pl.neg(bot)",
                     lambda a, b: np.concatenate([np.exp(a[:32]), -b[32:]])),
    "tile_loop_windows": ("for i in pl.range(4):\n    t = pl.load(a, [i * 16, 0], [16, 64])\n"
                          "    out[i * 16: i * 16 + 16, :] = pl.mul(t, 3.0)", lambda a, b: 3.0 * a),
    "assemble_call": ("t = pl.load(a, [0, 0], [64, 32])\nout = pl.assemble(out, t, [0, 0])\n"
                      "u = pl.load(b, [0, 32], [64, 32])\nout = pl.assemble(out, u, [0, 32])",
                      lambda a, b: np.concatenate([a[:, :32], b[:, 32:]], 1)),
}


@pytest.mark.parametrize("form", list(BODIES))
@pytest.mark.parametrize("dtype", FLOATS)
def test_subscript_writes_in_a_program_kernel(form, dtype):
    body, ref = BODIES[form]
    a, b = rand((64, 64), dtype, 1), rand((64, 64), dtype, 2)
    run_case(_parse(body, dtype), {"a": a, "b": b}, {"out": np.zeros((64, 64), NP[dtype])},
             lambda x: {"out": ref(x["a"], x["b"])}, dtype)


@pytest.mark.parametrize("body,message", [
    ("t = pl.load(a, [0, 0], [16, 64])\nout[:] = t", "has extent 64 on axis 0, but the value written into it"),
    ("t = pl.load(a, [0, 0], [16, 64])\nout[0:16:2, :] = t", "without a step"),
    ("t = pl.load(a, [0, 0], [16, 64])\nt[0:8, :] = t", "only tensors take subscript writes"),
])
def test_bad_subscript_writes_are_located(body, message):
    with pytest.raises(ParseError, match=message) as info:
        _parse(body)
    assert info.value.span.line > 0 and info.value.hint
