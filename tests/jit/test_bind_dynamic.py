"""``x.bind_dynamic(axis, M)`` in a ``@pl.jit`` entry (rules in tilefold/frontend/bind_dynamic.py): the axis is the
``pl.dynamic`` extent M, as if annotated so. One compiled kernel serves every extent; results are checked against
numpy; misuse is a located error with a hint."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError

RNG = np.random.default_rng(5)
ROWS = pl.dynamic("ROWS")


@pl.jit
def scale_rows(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    M = pl.dynamic("M")
    x.bind_dynamic(0, M)
    out.bind_dynamic(-2, M)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(pl.mul(x, 2.0), 1.0)
    return out


@pytest.mark.parametrize("m", [16, 48, 33, 1])
def test_a_bound_axis_takes_every_extent(m):
    x = RNG.standard_normal((m, 64)).astype(np.float32)
    out = np.zeros((m, 64), np.float32)
    scale_rows(x, out)
    np.testing.assert_allclose(out, 2 * x + 1, rtol=1e-6)


def test_one_compiled_kernel_serves_every_extent_of_a_bound_axis():
    a = scale_rows.compile(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32))
    b = scale_rows.compile(np.zeros((80, 64), np.float32), np.zeros((80, 64), np.float32))
    c = scale_rows.compile(np.zeros((16, 32), np.float32), np.zeros((16, 32), np.float32))
    assert a is b and c is not a  # the unbound column axis still specialises
    printed = scale_rows.parse(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)).as_python()
    assert "x: pl.Tensor[[M, 64], pl.FP32]" in printed and "M: pl.Scalar[pl.INDEX]" in printed


def test_arrays_that_disagree_on_a_bound_extent_are_refused():
    with pytest.raises(TilefoldError, match=r"disagree on the dynamic extent 'M': x.shape\[0\] = 16, out.shape\[0\] = 32"):
        scale_rows(np.zeros((16, 64), np.float32), np.zeros((32, 64), np.float32))


@pl.jit
def block_sums(x: pl.Tensor, out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    x.bind_dynamic(0, ROWS)  # a module-level pl.dynamic, used in the body as a trip count
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for i in pl.range(ROWS // 16):
            acc = pl.add(acc, x[i * 16 : i * 16 + 16, :])
        out[:] = acc
    return out


@pytest.mark.parametrize("blocks", [1, 3])
def test_the_bound_dim_is_a_run_time_extent_in_the_body(blocks):
    x = RNG.standard_normal((16 * blocks, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    block_sums(x, out)
    np.testing.assert_allclose(out, x.reshape(blocks, 16, 64).sum(axis=0), rtol=1e-5, atol=1e-5)


BAD = '''import tilefold.language as pl

M = pl.dynamic("M")

@pl.jit
def k(x: {ann}, out: pl.Out[pl.Tensor]):
    {bind}
    with pl.at(level=pl.Level.CORE_GROUP):
        {inner}
        out[:] = pl.exp(x)
    return out
'''


@pytest.mark.parametrize(("ann", "bind", "inner", "message", "line"), [
    ("pl.Tensor[[16, 64], pl.FP32]", "x.bind_dynamic(0, M)", "pass", "annotated with the extent 16", 7),
    ("pl.Tensor", "x.bind_dynamic(2, M)", "pass", "bind_dynamic axis 2 of 'x', a tensor of rank 2", 7),
    ("pl.Tensor", "x.bind_dynamic(0, 16)", "pass", "must be a pl.dynamic dim", 7),
    ("pl.Tensor", "pass", "x.bind_dynamic(0, M)", "a statement at the top of its body", 9),
    ("pl.Tensor", "y.bind_dynamic(0, M)", "pass", "a tensor parameter of the @pl.jit entry", 7),
])
def test_misuse_is_a_located_error(tmp_path, ann, bind, inner, message, line):
    import importlib.util

    path = tmp_path / "bad_bind.py"
    path.write_text(BAD.format(ann=ann, bind=bind, inner=inner))
    spec = importlib.util.spec_from_file_location("bad_bind", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(TilefoldError, match=message) as info:
        module.k(np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32))
    assert info.value.span.line == line and info.value.hint
