"""Lowering of the jit form: scope outlining, tiling of tensors larger than on-chip memory, the specialisation
cache, operator dispatch on tensor / tile / scalar operands, golden of the tensor-level program."""

import jit_kernels as k
import numpy as np

from tilefold.golden import run_program
from tilefold.ir.expr import Call
from tilefold.ir.stmt import AssignStmt, ForStmt, FunctionType, ParamDirection, flatten_stmts
from tilefold.ir.types import MemorySpace
from tilefold.ir.visitor import IRVisitor
from tilefold.runtime.jit_compile import outlined, to_tile_program
from tilefold.targets import get_target

RNG = np.random.default_rng(3)


def r(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def calls(fn):
    names = []

    class V(IRVisitor):
        def visit_Call(self, expr):
            names.append(expr.op_name)
            super().visit_Call(expr)

    V().visit_stmt(fn.body)
    return names


def test_scope_is_outlined_with_values_crossing_the_edge():
    a, tmp, out = r(16, 64), np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    prog = outlined(k.two_scopes.parse(a, tmp, out))
    first, second, entry = prog.functions
    assert (first.func_type, second.func_type, entry.func_type) == (FunctionType.InCore, FunctionType.InCore,
                                                                    FunctionType.Orchestration)
    assert [p.name for p in first.params] == ["a", "tmp"]  # the entry's parameter order
    assert first.param_directions == (ParamDirection.In, ParamDirection.Out)
    # the second scope reads a and the tmp the first scope wrote (a value of the orchestration, so it comes after
    # the entry's parameters), and writes out
    assert [p.name for p in second.params] == ["a", "out", "tmp"]
    assert second.param_directions == (ParamDirection.In, ParamDirection.Out, ParamDirection.In)
    launches = [s.value.op_name for s in flatten_stmts(entry.body) if isinstance(s, AssignStmt)]
    assert launches == [first.name, second.name]
    # the tensor-level program runs in golden as it is
    res = run_program(prog, {"a": a, "tmp": tmp, "out": out})
    np.testing.assert_allclose(res["out"], a * 4, rtol=1e-6)


def test_tensors_larger_than_ub_are_tiled_into_a_loop():
    rows, cols = 2048, 256  # 2 MiB per FP32 tensor; Vec (UB) is 192 KiB
    assert rows * cols * 4 > get_target("Ascend910B").capacity(MemorySpace.Vec)
    a, out = r(rows, cols), np.zeros((rows, cols), np.float32)
    tile_prog = to_tile_program(k.softmax_tensor.parse(a, out))
    incore = next(f for f in tile_prog.functions if f.func_type is FunctionType.InCore)
    loops = [s for s in flatten_stmts(incore.body) if isinstance(s, ForStmt)]
    assert len(loops) == 1 and "tile.load" in calls(incore) and "tile.row_max" in calls(incore)
    k.softmax_tensor(a, out)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_small_tensors_need_no_loop():
    a, b, out = r(64, 128), r(64, 128), np.zeros((64, 128), np.float32)
    tile_prog = to_tile_program(k.add_tensor.parse(a, b, out))
    incore = next(f for f in tile_prog.functions if f.func_type is FunctionType.InCore)
    assert not any(isinstance(s, ForStmt) for s in flatten_stmts(incore.body))
    assert calls(incore) == ["tile.load", "tile.load", "tile.add", "tile.store"]


def test_specialisation_cache_hits_and_misses():
    kern = k.make_closure_kernel(32)  # a fresh kernel object: its own cache
    a, out = r(16, 32), np.zeros((16, 32), np.float32)
    kern(a, out)
    kern(r(16, 32), out)
    kern.compile(a, out)
    assert kern.compile_count == 1
    chain = k.chain
    before = chain.compile_count
    for shape in ((16, 64), (16, 64), (32, 64)):
        x, y = np.abs(r(*shape)) + 1, np.abs(r(*shape)) + 1
        o = np.zeros(shape, np.float32)
        chain(x, y, o)
    assert chain.compile_count == before + 2  # one per distinct signature
    x16 = np.ones((16, 64), np.float16)
    chain(x16, x16, np.zeros((16, 64), np.float16))  # a new dtype is a new signature
    assert chain.compile_count == before + 3


def test_dynamic_dims_one_compile_for_all_extents():
    kern = k.dynamic_rows
    before = kern.compile_count
    # 32 rows, 1000 rows (not a multiple of the block: the one-row tail loop) and 3000 rows (1.5 MiB, > UB)
    for rows in (32, 1000, 3000):
        a, out = r(rows, 128), np.zeros((rows, 128), np.float32)
        kern(a, out)
        np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)
    assert kern.compile_count == before + 1
    tile_prog = to_tile_program(kern.parse(r(32, 128), np.zeros((32, 128), np.float32)))
    incore = next(f for f in tile_prog.functions if f.func_type is FunctionType.InCore)
    assert [p.name for p in incore.params][0] == "M"  # the dynamic extent crosses into the kernel
    loops = [s for s in flatten_stmts(incore.body) if isinstance(s, ForStmt)]
    assert len(loops) == 2  # row blocks, then single rows up to M


def test_dynamic_dims_must_agree_and_static_dims_are_checked():
    import pytest

    from tilefold.errors import ParseError, TilefoldError

    with pytest.raises(TilefoldError, match="disagree on the dynamic extent 'M'"):
        k.dynamic_rows(r(32, 128), np.zeros((64, 128), np.float32))
    with pytest.raises(ParseError, match="argument 'a' is Tensor\\[\\[32, 64\\], FP32\\]"):
        k.dynamic_rows(r(32, 64), np.zeros((32, 64), np.float32))


def test_dispatch_tensor_operands_give_tensor_ops():
    a, b, out = np.abs(r(16, 64)) + 1, np.abs(r(16, 64)) + 1, np.zeros((16, 64), np.float32)
    prog = outlined(k.chain.parse(a, b, out))
    names = calls(prog.functions[0])
    for op in ("tensor.add", "tensor.sub", "tensor.mul", "tensor.div", "tensor.adds", "tensor.maximum",
               "tensor.minimum", "tensor.muls", "tensor.assemble"):
        assert op in names, op


def test_dispatch_tile_and_scalar_operands_give_tile_ops():
    a, out = r(32, 64), np.zeros((32, 64), np.float32)
    prog = outlined(k.tile_dispatch.parse(a, out))
    names = calls(prog.functions[0])
    # one op per statement, nested operands first
    assert names == ["tile.load", "tile.add", "tile.muls", "tile.exp", "tile.subs", "tile.maximum", "tile.row_sum",
                     "tile.row_expand_div", "tile.store"]
    k.tile_dispatch(a, out)
    w = np.maximum(np.exp(a), a - 1.0)
    np.testing.assert_allclose(out, w / w.sum(axis=1, keepdims=True), rtol=1e-5)


def test_tile_matmul_in_a_scope():
    a, b, out = r(32, 64, dtype=np.float16), r(64, 32, dtype=np.float16), np.zeros((32, 32), np.float32)
    k.tile_matmul(a, b, out)
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


def test_matmul_operands_are_placed_in_mat():
    a, b, out = r(64, 128, dtype=np.float16), r(128, 64, dtype=np.float16), np.zeros((64, 64), np.float32)
    tile_prog = to_tile_program(k.matmul_tensor.parse(a, b, out))
    incore = next(f for f in tile_prog.functions if f.func_type is FunctionType.InCore)
    loads = [s.value for s in flatten_stmts(incore.body) if isinstance(s, AssignStmt) and isinstance(s.value, Call)
             and s.value.op_name == "tile.load"]
    assert [dict(c.kwargs)["target_memory"] for c in loads] == [MemorySpace.Mat, MemorySpace.Mat]


def test_reading_a_tensor_after_writing_it_sees_the_new_value():
    for rows in (64, 2048):  # untiled and row-tiled
        a, out = r(rows, 256), np.zeros((rows, 256), np.float32)
        k.write_then_read(a, out)
        np.testing.assert_allclose(out, a * 3.0, rtol=1e-6)


def test_the_parsed_jit_program_prints_its_scopes():
    a, b, out = r(64, 128), r(64, 128), np.zeros((64, 128), np.float32)
    text = k.add_tensor.parse(a, b, out).as_python()
    assert "with pl.at(level=pl.Level.CORE_GROUP):" in text and "pl.tensor.assemble(out, " in text
