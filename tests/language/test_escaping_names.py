"""Names first bound inside a loop body or an if branch and used after it (Python's scoping, PyPTO's ConvertToSSA
escaping-variable promotion; rules in tilefold/frontend/escaping.py). Each accepted form runs on the simulator
against golden and against a numpy reference written here; each refused form is a located error with a hint."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.ir.stmt import ForStmt
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(19)
HEAD = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
'''


def _run(src: str, inputs: dict) -> dict:
    report = run_and_compare(pl.parse(HEAD + src), inputs)
    assert report.fault is None and report.matches, report.summary()
    return report.outputs


def _refused(src: str) -> TilefoldError:
    with pytest.raises(TilefoldError) as info:
        pl.parse(HEAD + src, "kern.py")
    assert info.value.hint
    return info.value


LAST_TILE = '''    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range({bounds}):
            t = pl.load(x, [i * 16, 0], [16, 64])
            e = pl.exp(t)
        r = pl.add(e, e)
        out = pl.store(r, [0, 0], out)
        return out
'''


@pytest.mark.parametrize(("bounds", "last"), [("4", 3), ("0, 4, 2", 2), ("1, 2", 1)])
def test_a_tile_defined_in_the_loop_holds_the_last_iterations_value_after_it(bounds, last):
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(LAST_TILE.format(bounds=bounds), {"x": x, "out": np.zeros((16, 64), np.float32)})["out"]
    np.testing.assert_allclose(got, 2 * np.exp(x[last * 16:last * 16 + 16]), rtol=1e-5, atol=1e-6)


def test_a_loop_that_may_run_zero_times_is_a_located_error():
    src = LAST_TILE.replace("x: pl.Tensor[[64, 64], pl.FP32],", "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],")
    err = _refused(src.format(bounds="n"))
    assert "'e' is first defined inside this pl.range loop (line 10) and used after it" in err.message
    assert "not known to be at least 1" in err.message and err.span.line == 8
    assert "define 'e' before the loop" in err.hint
    err = _refused(LAST_TILE.format(bounds="2, 2"))
    assert "it runs zero times" in err.message and err.span.line == 8


STORE_CHAIN = '''    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(n):
            ta = pl.load(a, [i * 16, 0], [16, 64])
            tc = pl.add(ta, ta)
            out = pl.store(tc, [i * 16, 0], c)
        return out
'''


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_store_result_first_bound_in_the_loop_starts_from_the_written_tensor(n):
    """PyPTO's documented example: the escaping store result is promoted with the Out parameter as init value,
    so even a loop of zero trips is defined (the tensor keeps its contents)."""
    a = RNG.standard_normal((64, 64)).astype(np.float32)
    c0 = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(STORE_CHAIN, {"a": a, "n": n, "c": c0.copy()})["c"]
    expected = c0.copy()
    expected[:n * 16] = 2 * a[:n * 16]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_escaping_scalar_and_nested_loops():
    src = '''    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range(3):
            for j in pl.range(2):
                row = i * 16 + j * 8
                t = pl.load(x, [row, 0], [16, 64])
        u = pl.load(x, [row, 0], [16, 64])
        out = pl.store(pl.sub(t, pl.mul(u, 3.0)), [0, 0], out)
        return out
'''
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(src, {"x": x, "out": np.zeros((16, 64), np.float32)})["out"]
    row = 2 * 16 + 1 * 8
    np.testing.assert_allclose(got, x[row:row + 16] - 3 * x[row:row + 16], rtol=1e-5, atol=1e-6)


def test_a_name_assigned_again_before_any_read_is_not_carried():
    src = '''    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 64])
            out = pl.store(t, [0, 0], out)
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(pl.exp(t), [0, 0], out)
        return out
'''
    program = pl.parse(HEAD + src)
    loop = next(s for s in program.functions[0].body.stmts if isinstance(s, ForStmt))
    assert [ia.name for ia in loop.iter_args] == ["out"]  # the rebound out only: t is assigned again after
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(src, {"x": x, "out": np.zeros((16, 64), np.float32)})["out"]
    np.testing.assert_allclose(got, np.exp(x[:16]), rtol=1e-5)


BRANCHES = '''    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        if n > 2:
            y = pl.exp(t)
        else:
            y = pl.add(t, t)
        out = pl.store(y, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("n", [1, 5])
def test_a_name_bound_in_both_branches_is_merged(n):
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    got = _run(BRANCHES, {"x": x, "n": n, "out": np.zeros((16, 64), np.float32)})["out"]
    np.testing.assert_allclose(got, np.exp(x) if n > 2 else 2 * x, rtol=1e-5)


def test_a_name_bound_in_one_branch_only_is_a_located_error():
    err = _refused(BRANCHES.replace("        else:\n            y = pl.add(t, t)\n", ""))
    assert "'y' is first defined in the then branch of this if" in err.message
    assert "the else branch does not define it" in err.message and err.span.line == 10
    assert "assign it in both branches" in err.hint


def test_a_while_loop_escape_is_refused_unless_it_is_a_store():
    src = '''    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        for (i,) in pl.while_(init_values=(0,)):
            pl.cond(i < n)
            t = pl.load(x, [i * 16, 0], [16, 64])
            {tail}
            i = pl.yield_(i + 1)
        out = pl.store({value}, [0, 0], {dst})
        return out
'''
    err = _refused(src.format(tail="o = pl.store(t, [0, 0], out)", value="t", dst="o"))
    assert "'t' is first defined inside this while loop" in err.message and "may run zero times" in err.message
    ok = src.format(tail="o = pl.store(pl.exp(t), [0, 0], out)", value="pl.load(o, [0, 0], [16, 64])", dst="o")
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    for n, expected in ((0, np.zeros((16, 64), np.float32)), (3, np.exp(x[32:48]))):
        got = _run(ok, {"x": x, "n": n, "out": np.zeros((16, 64), np.float32)})["out"]
        np.testing.assert_allclose(got, expected, rtol=1e-5)


@pl.jit
def _jit_last_block(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            e = pl.exp(x[i * 16 : i * 16 + 16, :])
        out[:] = pl.add(e, 1.0)
    return out


def test_jit_form_a_tensor_defined_in_the_loop_holds_the_last_value():
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    _jit_last_block(x, out)
    np.testing.assert_allclose(out, np.exp(x[48:64]) + 1.0, rtol=1e-5)


def test_an_escaping_name_beside_explicit_init_values():
    src = '''    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        z = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(4, init_values=(z,)):
            t = pl.tile.load(x, [i * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
            a2 = pl.tile.add(acc, t)
            acc = pl.yield_(a2)
        out = pl.tile.store(pl.tile.sub(acc, t), [0, 0], out)
        return out
'''
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    got = _run(src, {"x": x, "out": np.zeros((16, 64), np.float32)})["out"]
    np.testing.assert_allclose(got, x.reshape(4, 16, 64).sum(axis=0) - x[48:], rtol=1e-5, atol=1e-5)


@pl.program
class _InScope:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                t = pl.load(x, [i * 16, 0], [16, 64])
                e = pl.exp(t)
            out = pl.store(e, [0, 0], out)
        return out


def test_a_loop_in_a_pl_at_scope_of_a_program_function():
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    report = run_and_compare(_InScope, {"x": x, "out": np.zeros((16, 64), np.float32)})
    assert report.matches, report.summary()
    np.testing.assert_allclose(report.outputs["out"], np.exp(x[48:]), rtol=1e-5)
