"""run_and_compare compiles before it runs the golden reference: a program the compiler refuses at once (here an
orchestration loop longer than codegen unrolls) is refused with the compiler's located error, instead of the
golden run first spending its step budget on a million host iterations."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.budget import StepBudgetExceeded
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

LONG_HOST_LOOP = '''
@pl.program
class LongHostLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        u = pl.add(t, 1.0)
        out = pl.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range(1000000):
            out = self.bump(x, out)
        return out
'''


def test_a_refused_long_host_loop_is_the_compilers_error_not_a_step_budget():
    x = np.zeros((16, 64), np.float32)
    with pytest.raises(TilefoldError) as info:
        run_and_compare(pl.parse(LONG_HOST_LOOP), {"x": x, "out": np.zeros_like(x)})
    assert not isinstance(info.value, StepBudgetExceeded), info.value
    assert info.value.span is not None and info.value.span.line
