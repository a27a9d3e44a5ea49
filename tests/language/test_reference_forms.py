"""Forms met in PyPTO's reference pages (the run of their code blocks, issue 19) that the front end took wrongly.
Each test is written here from the page's construct; references are numpy."""

from __future__ import annotations

import numpy as np

import tilefold.language as pl

STUB = """
import tilefold.language as pl

@pl.jit
def prefill(hidden: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]): ...
"""


def test_an_ellipsis_body_is_a_no_op_statement():
    # getting_started: `def prefill_fwd(...): ...` then `prefill_fwd.compile()` (shapes from the annotations)
    program = pl.parse(STUB)
    assert [f.name for f in program.functions] == ["prefill"]
    text = pl.python_print(program)
    assert "Ellipsis" not in text and "..." not in text.split("def prefill")[1].split("\n", 1)[1]


JOIN = """
import tilefold.language as pl

@pl.jit
def join(a: pl.Tensor[[16, 64], pl.FP32], x: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
         y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP) as t1:
        x[:] = pl.exp(a)
    with pl.at(level=pl.Level.CORE_GROUP) as t2:
        y[:] = pl.mul(a, 3.0)
    both = pl.system.task_dummy(deps=[t1, t2])
    with pl.at(level=pl.Level.CORE_GROUP, deps=[both]):
        out[:] = pl.add(x, y)
    return x, y, out
"""


def test_task_dummy_joins_producers_into_one_task_id():
    # tutorials/04 step 5: `pl.system.task_dummy(deps=[...])` is one TaskId standing for several producers
    from tilefold.testing import run_and_compare

    a = np.random.default_rng(6).standard_normal((16, 64)).astype(np.float32)
    zeros = {n: np.zeros_like(a) for n in ("x", "y", "out")}
    report = run_and_compare(pl.parse(JOIN), {"a": a, **zeros})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(a) + 3.0 * a, rtol=1e-5)


def test_bad_task_dummies_and_runtime_primitives_are_located():
    import pytest

    from tilefold.errors import NotSupportedError, ParseError

    for bad, message in (("deps=[t1, nope]", "nope"), ("", "takes deps")):
        with pytest.raises(ParseError, match=message):
            pl.parse(JOIN.replace("deps=[t1, t2]", bad))
    sync = JOIN.replace("        y[:] = pl.mul(a, 3.0)", "        pl.system.set_ffts_base_addr()\n        y[:] = pl.mul(a, 3.0)")
    with pytest.raises(NotSupportedError,
                       match=r"pl.system.set_ffts_base_addr \(a primitive of PyPTO's device runtime\)") as info:
        pl.parse(sync)
    assert info.value.span is not None and "bar_all" in info.value.hint  # the in-kernel syncs it does model


def test_a_pipe_barrier_in_a_jit_scope_leaves_the_values_unchanged():
    # pl.system.bar_all() is modelled (docs/dsl.md, "Pipe synchronisation inside a kernel"): ordering, no value
    from tilefold.testing import run_and_compare

    sync = JOIN.replace("        y[:] = pl.mul(a, 3.0)", "        pl.system.bar_all()\n        y[:] = pl.mul(a, 3.0)")
    a = np.random.default_rng(7).standard_normal((16, 64)).astype(np.float32)
    zeros = {n: np.zeros_like(a) for n in ("x", "y", "out")}
    report = run_and_compare(pl.parse(sync), {"a": a, **zeros})
    assert report.fault is None and report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(a) + 3.0 * a, rtol=1e-5)
