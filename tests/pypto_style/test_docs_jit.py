"""The ``@pl.jit`` programs of PyPTO's user docs (quickstart, programming model, types, scopes, task graph,
directives, syntax), run on the simulator and checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import rand, tol

import tilefold.language as pl
from tilefold import ir
from tilefold.runtime import ChipWorker, RunConfig

CFG = RunConfig(platform="a2a3sim")


def _close(got, want, dtype="fp32", terms=1):
    rtol, atol = tol(dtype, terms)
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))
    assert not bad.any(), f"{int(bad.sum())} elements differ, first at {np.argwhere(bad)[0].tolist()}"


@pl.jit
def add_then_square(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                    out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(a, b)
        out[:] = pl.mul(s, s)
    return out


@pl.jit
def accumulate(a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(a, a)
        for _i in pl.range(3):
            t = pl.add(t, a)
        out[:] = pl.mul(t, t)
    return out


@pl.jit
def operators(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
              out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = (a + b) * 2.0 - a / 4.0
    return out


A = rand((128, 128), "fp32", 1)
B = rand((128, 128), "fp32", 2, 0.5, 2.0)


def test_quickstart_chain():
    out = np.zeros((128, 128), np.float32)
    add_then_square(A, B, out, config=CFG)
    _close(out, (A.astype(np.float64) + B) ** 2)


def test_quickstart_loop_carry():
    out = np.zeros((128, 128), np.float32)
    accumulate(A, out, config=CFG)
    _close(out, (5 * A.astype(np.float64)) ** 2)


def test_python_operators_on_tensors_in_a_scope():
    out = np.zeros((128, 128), np.float32)
    operators(A, B, out, config=CFG)
    _close(out, (A.astype(np.float64) + B) * 2.0 - A / 4.0)


@pl.jit.incore
def square_tensor(x: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    out[:] = pl.mul(x, x)
    return out


@pl.jit.incore
def square_tile(x: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    t = pl.load(x, [0, 0], [128, 128])
    y = pl.mul(t, t)
    pl.store(y, [0, 0], out)
    return out


@pl.jit
def levels(x: pl.Tensor[[128, 128], pl.FP32], out_t: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
           out_k: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    out_t = square_tensor(x, out_t)
    out_k = square_tile(x, out_k)
    return out_t, out_k


def test_programming_model_two_levels():
    ot, ok = np.zeros((128, 128), np.float32), np.zeros((128, 128), np.float32)
    levels(A, ot, ok, config=CFG)
    _close(ot, A.astype(np.float64) ** 2)
    _close(ok, A.astype(np.float64) ** 2)


@pl.jit.incore
def scale_rows(x: pl.Tensor[[64, 128], pl.FP16], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
               out: pl.Out[pl.Tensor[[64, 128], pl.FP32]], factor: pl.Scalar[pl.FP32]):
    tx = pl.load(x, [0, 0], [64, 128])
    scaled = pl.mul(pl.cast(tx, pl.FP32), factor)
    acc = pl.store(pl.add(pl.load(acc, [0, 0], [64, 128]), scaled), [0, 0], acc)
    out = pl.store(scaled, [0, 0], out)
    return acc, out


@pl.jit
def apply_scale(x: pl.Tensor[[64, 128], pl.FP16], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
                out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    acc, out = scale_rows(x, acc, out, 2.0)
    return acc, out


def test_types_page_inout_scalar():
    x = rand((64, 128), "fp16", 3)
    acc = rand((64, 128), "fp32", 4)
    before = acc.copy()
    out = np.zeros((64, 128), np.float32)
    apply_scale(x, acc, out, config=CFG)
    scaled = x.astype(np.float64) * 2.0
    _close(out, scaled)
    _close(acc, before + scaled)


N_DYN = pl.dynamic("N")
TILE = 32


@pl.jit.incore
def rows(x: pl.Tensor[[N_DYN, 64], pl.FP32], out: pl.Out[pl.Tensor[[N_DYN, 64], pl.FP32]]):
    out = pl.store(pl.mul(pl.load(x, [0, 0], [TILE, 64]), 2.0), [0, 0], out)
    return out


@pl.jit
def drive(x: pl.Tensor[[N_DYN, 64], pl.FP32], out: pl.Out[pl.Tensor[[N_DYN, 64], pl.FP32]]):
    return rows(x, out)


@pytest.mark.parametrize("extent", [TILE, 3 * TILE])
def test_types_page_dynamic_extent(extent):
    x = rand((extent, 64), "fp32", 5)
    out = np.zeros((extent, 64), np.float32)
    drive(x, out, config=CFG)
    _close(out[:TILE], 2.0 * x[:TILE].astype(np.float64))
    assert not out[TILE:].any()  # only the first tile is written


@pl.jit
def spmd_add(a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[256, 128], pl.FP32],
             out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):
    for i in pl.spmd(2):
        off = i * 128
        out = pl.store(pl.add(pl.load(a, [off, 0], [128, 128]), pl.load(b, [off, 0], [128, 128])), [off, 0], out)
    return out


def test_scopes_page_spmd_loop_form():
    x, y = rand((256, 128), "fp32", 6), rand((256, 128), "fp32", 7)
    out = np.zeros((256, 128), np.float32)
    spmd_add(x, y, out, config=CFG)
    _close(out, x.astype(np.float64) + y)


@pl.jit
def inferred(x: pl.Tensor[[128, 128], pl.FP32], scratch: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
             out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage1") as first:
        scratch[:] = pl.add(x, x)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage2", deps=[first]):
        out[:] = pl.add(scratch, scratch)
    return scratch, out


def test_task_graph_explicit_deps():
    scratch, out = np.zeros((128, 128), np.float32), np.zeros((128, 128), np.float32)
    inferred(A, scratch, out, config=CFG)
    _close(scratch, 2 * A.astype(np.float64))
    _close(out, 4 * A.astype(np.float64))


M, N, K, SPLITS = 64, 64, 256, 4
KS = K // SPLITS


@pl.jit
def split_k(a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_init"):
        c[:] = pl.full([M, N], dtype=pl.FP32, value=0.0)
    for ks in pl.parallel(SPLITS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_k"):
            k0 = ks * KS
            partial = pl.matmul(a[:, k0: k0 + KS], b[k0: k0 + KS, :], out_dtype=pl.FP32)
            c = pl.assemble(c, partial, [0, 0], atomic=pl.AtomicType.Add)
    return c


def test_matmul_tutorial_split_k():
    a, b = rand((M, K), "fp16", 8), rand((K, N), "fp16", 9)
    c = np.zeros((M, N), np.float32)
    split_k(a, b, c, config=CFG)
    _close(c, a.astype(np.float64) @ b.astype(np.float64), "fp16", K)


@pl.jit.incore
def probe(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    pl.static_print("x =", x)
    pl.static_assert(x.shape[1] == 128, "expected 128 columns")
    out[:] = pl.mul(x, 2.0)
    return out


@pl.jit
def probe_entry(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    return probe(x, out)


def test_directives_static_print_and_assert(capsys):
    x = rand((64, 128), "fp32", 10)
    out = np.zeros_like(x)
    probe_entry(x, out, config=CFG)
    _close(out, 2.0 * x.astype(np.float64))
    assert "x =" in capsys.readouterr().out


@pl.jit.incore
def head(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    top = x[0:16, :]
    out[:] = pl.mul(top, 2.0)
    return out


@pl.jit
def head_entry(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    return head(x, out)


def test_syntax_page_slice_sugar():
    x = rand((128, 64), "fp32", 11)
    out = np.zeros((16, 64), np.float32)
    head_entry(x, out, config=CFG)
    _close(out, 2.0 * x[:16].astype(np.float64))


@pl.jit
def add_kernel(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [128, 128])
        tb = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(ta, tb), [0, 0], out)
    return out


def test_execution_pages_compile_lower_and_worker():
    compiled = add_kernel.compile(A, B, np.zeros((128, 128), np.float32), config=CFG)
    assert compiled.param_names == ["a", "b", "out"]
    program = add_kernel.lower(A, B, np.zeros((128, 128), np.float32))
    assert "class" in program.as_python()
    compiled2 = ir.compile(program, platform="a2a3sim")
    with ChipWorker(config=CFG) as w:
        resident = w.alloc_tensor((128, 128), np.float32, init=B)
        for _ in range(2):
            out = np.zeros((128, 128), np.float32)
            w.run(compiled2, A, resident, out)
            _close(out, A.astype(np.float64) + B)
        w.free_tensor(resident)
    worker = ChipWorker(config=CFG)
    try:
        handle = worker.register(compiled2)
        out = np.zeros((128, 128), np.float32)
        handle(A, B, out)
        _close(out, A.astype(np.float64) + B)
    finally:
        worker.close()
