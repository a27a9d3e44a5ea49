"""Loops, ifs, whiles, scalars, launches (block / sub-block indices) and orchestration in the golden."""

from __future__ import annotations

import numpy as np
import pytest
from golden_irbuild import (
    FP32,
    IN,
    INDEX,
    INOUT,
    OUT,
    Body,
    function,
    kernel_program,
    program,
    scalar,
    tensor,
)

from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.ir import (
    Add,
    ConstInt,
    FloorDiv,
    ForKind,
    FunctionType,
    Gt,
    Lt,
    Mod,
    Mul,
    Neg,
    Sub,
)

RNG = np.random.default_rng(11)


def rand(shape):
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


def c(v):
    return ConstInt(v)


@pytest.mark.parametrize("kind", list(ForKind))
@pytest.mark.parametrize("start,stop,step", [(0, 4, 1), (1, 4, 2), (3, -1, -1), (2, 2, 1)])
def test_loop_with_iter_args(kind, start, stop, step):
    def body(b, x, out):
        acc0 = b.let("acc0", "tile.create", shape=(4, 16), dtype=FP32)
        cnt0 = b.assign("cnt0", c(0))

        def step_body(ib: Body, i, ias):
            acc, cnt = ias
            off = ib.assign("off", Mul(i, c(4)))
            t = ib.let("t", "tile.load", x, [off, 0], [4, 16])
            return [ib.let("acc_next", "tile.add", acc, t), ib.assign("cnt_next", Add(cnt, c(1)))]

        acc, cnt = b.loop("i", start, stop, step, [("acc", acc0), ("cnt", cnt0)], step_body, kind=kind)
        b.let("o", "tile.store", acc, [0, 0], out)
        b.ret(cnt)

    p = kernel_program([("x", tensor([16, 16]), IN), ("out", tensor([4, 16]), OUT)], body)
    x = rand((16, 16))
    got = run_program(p, {"x": x})
    iters = list(range(start, stop, step))
    want = np.zeros((4, 16), np.float32)
    for i in iters:
        want = want + x[4 * i:4 * i + 4]
    np.testing.assert_allclose(got["out"], want, rtol=1e-6, atol=1e-6)
    assert int(got["return"]) == len(iters)


def test_loop_without_iter_args_stores_each_window():
    def body(b, x, out):
        def step_body(ib: Body, i, ias):
            off = ib.assign("off", Mul(i, c(2)))
            t = ib.let("t", "tile.load", x, [off, 0], [2, 8])
            ib.let("o", "tile.store", ib.let("n", "tile.neg", t), [off, 0], out)
            return []

        b.loop("i", 0, 4, 1, [], step_body)
        b.ret(out)

    p = kernel_program([("x", tensor([8, 8]), IN), ("out", tensor([8, 8]), OUT)], body)
    x = rand((8, 8))
    got = run_program(p, {"x": x})
    assert set(got) == {"out"}, "returning the out param adds no extra entry"
    np.testing.assert_array_equal(got["out"], -x)


@pytest.mark.parametrize("flag", [-3, 0, 5])
def test_if_else_yields(flag):
    def body(b, x, f, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 16])
        (r,) = b.if_(Gt(f, c(0)),
                     lambda tb: [tb.let("a", "tile.muls", t, 2.0)],
                     lambda eb: [eb.let("s", "tile.adds", t, 1.0)], names=["r"])
        b.let("o", "tile.store", r, [0, 0], out)

    p = kernel_program([("x", tensor([4, 16]), IN), ("f", scalar(), IN), ("out", tensor([4, 16]), OUT)], body)
    x = rand((4, 16))
    got = run_program(p, {"x": x, "f": flag})["out"]
    np.testing.assert_array_equal(got, x * np.float32(2.0) if flag > 0 else x + np.float32(1.0))


def test_if_without_else_guards_a_store():
    def body(b, x, f, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 16])
        b.if_(Gt(f, c(0)), lambda tb: [tb.let("o", "tile.store", t, [0, 0], out)], None)

    p = kernel_program([("x", tensor([4, 16]), IN), ("f", scalar(), IN), ("out", tensor([4, 16]), OUT)], body)
    x = rand((4, 16))
    np.testing.assert_array_equal(run_program(p, {"x": x, "f": 1})["out"], x)
    np.testing.assert_array_equal(run_program(p, {"x": x, "f": 0})["out"], np.zeros_like(x))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while_loop(n):
    def body(b, x, nn, out):
        t = b.let("t", "tile.load", x, [0, 0], [4, 16])
        i0 = b.assign("i0", c(0))
        _, r = b.while_([("i", i0), ("acc", t)], lambda ias: Lt(ias[0], nn),
                        lambda ib, ias: [ib.assign("i_next", Add(ias[0], c(1))),
                                         ib.let("acc_next", "tile.adds", ias[1], 1.0)])
        b.let("o", "tile.store", r, [0, 0], out)

    p = kernel_program([("x", tensor([4, 16]), IN), ("nn", scalar(), IN), ("out", tensor([4, 16]), OUT)], body)
    x = rand((4, 16))
    got = run_program(p, {"x": x, "nn": n})["out"]
    want = x.copy()
    for _ in range(n):
        want = want + np.float32(1.0)
    np.testing.assert_array_equal(got, want)


def test_scalar_arithmetic_python_semantics():
    def body(b, a, bb):
        q = b.assign("q", FloorDiv(a, bb))
        r = b.assign("r", Mod(a, bb))
        d = b.assign("d", Sub(Neg(a), bb))
        b.ret(q, r, d)

    p = kernel_program([("a", scalar(), IN), ("bb", scalar(), IN)], body)
    got = run_program(p, {"a": -7, "bb": 2})
    assert (int(got["return0"]), int(got["return1"]), int(got["return2"])) == (-7 // 2, -7 % 2, 7 - 2)
    assert got["return0"].dtype == np.int64
    with pytest.raises(TilefoldError, match="division by zero"):
        run_program(p, {"a": 1, "bb": 0})


def test_scalar_offsets_in_windows():
    def body(b, x, k, out):
        off = b.assign("off", Mod(Mul(k, c(4)), c(16)))
        t = b.let("t", "tile.load", x, [off, 0], [4, 8])
        b.let("o", "tile.store", t, [0, 0], out)

    p = kernel_program([("x", tensor([16, 8]), IN), ("k", scalar(), IN), ("out", tensor([4, 8]), OUT)], body)
    x = rand((16, 8))
    for k in (0, 3, 5, -1):
        off = (k * 4) % 16
        np.testing.assert_array_equal(run_program(p, {"x": x, "k": k})["out"], x[off:off + 4])


def test_inout_param_updated_in_place():
    def body(b, io):
        t = b.let("t", "tile.load", io, [0, 0], [4, 16])
        b.let("o", "tile.store", b.let("r", "tile.adds", t, 1.0), [0, 0], io)

    p = kernel_program([("io", tensor([4, 16]), INOUT)], body)
    x = rand((4, 16))
    got = run_program(p, {"io": x})["io"]
    np.testing.assert_array_equal(got, x + np.float32(1.0))


# ---------------------------------------------------------------------------------------------
# launches: block_dim, get_block_idx, get_subblock_idx, get_block_num
# ---------------------------------------------------------------------------------------------


def _block_kernel(func_type, attrs=None):
    """Each (block, sub-block) instance stores its own 4-row window: row offset (b * 2 + sb) * 4."""
    def body(b, x, out):
        bi = b.let("bi", "tile.get_block_idx")
        sb = b.let("sb", "tile.get_subblock_idx")
        off = b.assign("off", Mul(Add(Mul(bi, c(2)), sb), c(4)))
        t = b.let("t", "tile.load", x, [off, 0], [4, 16])
        b.ret(b.let("o", "tile.store", b.let("r", "tile.adds", t, 1.0), [off, 0], out))

    return function("kernel", [("x", tensor([16, 16]), IN), ("out", tensor([16, 16]), OUT)], body,
                    func_type=func_type, attrs=attrs)


def _rows_written(out, x):
    return [r for r in range(16) if np.array_equal(out[r], x[r] + np.float32(1.0))]


def test_aiv_kernel_runs_both_sub_blocks_of_every_block():
    x = rand((16, 16))
    got = run_program(program(_block_kernel(FunctionType.AIV)), {"x": x}, block_dim=2)["out"]
    assert _rows_written(got, x) == list(range(16))


def test_incore_kernel_runs_sub_block_zero_only():
    x = rand((16, 16))
    got = run_program(program(_block_kernel(FunctionType.InCore)), {"x": x}, block_dim=2)["out"]
    assert _rows_written(got, x) == [0, 1, 2, 3, 8, 9, 10, 11]
    assert not got[4:8].any() and not got[12:].any()


def test_block_dim_attribute_overrides_argument():
    x = rand((16, 16))
    kern = _block_kernel(FunctionType.AIV, attrs={"block_dim": 1})
    got = run_program(program(kern), {"x": x}, block_dim=2)["out"]
    assert _rows_written(got, x) == list(range(8))


def test_get_block_num():
    def body(b, out):
        n = b.let("n", "tile.get_block_num")
        bi = b.let("bi", "tile.get_block_idx")
        z = b.let("z", "tile.create", shape=(1, 8), dtype=FP32)
        v = b.let("v", "tile.adds", z, n)
        b.let("o", "tile.store", v, [bi, 0], out)

    p = kernel_program([("out", tensor([3, 8]), OUT)], body)
    np.testing.assert_array_equal(run_program(p, {}, block_dim=3)["out"], np.full((3, 8), 3.0, np.float32))


def test_orchestration_calls_kernel_for_each_block():
    kern = _block_kernel(FunctionType.AIV)

    def orch_body(b, x, out):
        r = b.call_fn("r", kern, x, out)
        b.ret(r)

    orch = function("main", [("x", tensor([16, 16]), IN), ("out", tensor([16, 16]), OUT)], orch_body,
                    func_type=FunctionType.Orchestration)
    p = program(kern, orch)
    x = rand((16, 16))
    got = run_program(p, {"x": x}, block_dim=2)
    assert set(got) == {"out"}
    assert _rows_written(got["out"], x) == list(range(16))


def test_orchestration_chains_two_kernels_through_a_tensor():
    def k1(b, x, tmp):
        t = b.let("t", "tile.load", x, [0, 0], [8, 8])
        b.ret(b.let("o", "tile.store", b.let("r", "tile.muls", t, 2.0), [0, 0], tmp))

    def k2(b, tmp, out):
        t = b.let("t", "tile.load", tmp, [0, 0], [8, 8])
        b.ret(b.let("o", "tile.store", b.let("r", "tile.adds", t, 1.0), [0, 0], out))

    f1 = function("k1", [("x", tensor([8, 8]), IN), ("tmp", tensor([8, 8]), OUT)], k1)
    f2 = function("k2", [("tmp", tensor([8, 8]), IN), ("out", tensor([8, 8]), OUT)], k2)

    def orch_body(b, x, tmp, out):
        t1 = b.call_fn("t1", f1, x, tmp)
        b.ret(b.call_fn("r", f2, t1, out))

    orch = function("main", [("x", tensor([8, 8]), IN), ("tmp", tensor([8, 8]), INOUT),
                             ("out", tensor([8, 8]), OUT)], orch_body, func_type=FunctionType.Orchestration)
    x = rand((8, 8))
    got = run_program(program(f1, f2, orch), {"x": x, "tmp": np.zeros((8, 8), np.float32)})
    np.testing.assert_array_equal(got["tmp"], x * np.float32(2))
    np.testing.assert_array_equal(got["out"], x * np.float32(2) + np.float32(1))


def test_entry_selection():
    k1 = function("a", [("x", tensor([8, 8]), IN)], lambda b, x: b.ret(b.let("t", "tile.load", x, [0, 0], [8, 8])))
    k2 = function("b", [("x", tensor([8, 8]), IN)], lambda b, x: b.ret(b.let("t", "tile.load", x, [0, 0], [8, 8])))
    p = program(k1, k2)
    x = rand((8, 8))
    with pytest.raises(TilefoldError, match="several kernels") as info:
        run_program(p, {"x": x})
    assert "entry=" in info.value.hint
    got = run_program(p, {"x": x}, entry="b")
    np.testing.assert_array_equal(got["return"], x)
    with pytest.raises(TilefoldError, match="no function"):
        run_program(p, {"x": x}, entry="nope")


def test_scalar_params_and_return_dtype():
    def body(b, s):
        b.ret(b.assign("y", Mul(s, c(3))))

    p = kernel_program([("s", scalar(INDEX), IN)], body)
    got = run_program(p, {"s": np.int32(5)})
    assert int(got["return"]) == 15
