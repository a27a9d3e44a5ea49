"""Structural equality and hashing: names ignored, definitions mapped, differences reported at a path."""

from __future__ import annotations

import math
import re

import pytest
from irbuild import FP32, Body, Mat, Vec, c, kernel_fn, loop_fn, program, tup

from tilefold import ir
from tilefold.ir import (
    Add,
    AssignStmt,
    ConstFloat,
    ConstInt,
    DataType,
    Function,
    FunctionType,
    IterArg,
    MemorySpace,
    MemRef,
    ParamDirection,
    ReturnStmt,
    SeqStmts,
    TileType,
    TileView,
    Var,
)
from tilefold.ir.structural import assert_structural_equal, structural_equal, structural_hash
from tilefold.ops import make_call


def mismatch(a, b, **kw) -> str:
    with pytest.raises(ValueError) as info:
        assert_structural_equal(a, b, **kw)
    return str(info.value)


# ------------------------------------------------------------------------------------------------
# equal programs
# ------------------------------------------------------------------------------------------------


def test_different_variable_names_are_equal():
    a = program(kernel_fn())
    b = program(kernel_fn(names=("p", "q", "r", "s", "u", "v")), name="Renamed")
    assert structural_equal(a, b)
    assert_structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_loop_with_iter_args_and_return_vars_is_equal_under_renaming():
    a = program(loop_fn())
    b = program(loop_fn(names=tuple("abcdefghi")))
    assert_structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_identical_object_is_equal_and_hash_is_deterministic():
    a = program(kernel_fn(), loop_fn())
    assert structural_equal(a, a)
    assert structural_hash(a) == structural_hash(program(kernel_fn(), loop_fn()))  # a fresh build of the same
    assert structural_hash(a) != structural_hash(program(kernel_fn()))  # one function fewer


def test_kwarg_order_does_not_matter():
    x = Var("x", ir.tensor_type([16, 128], FP32))
    call = make_call("tile.load", [x, tup(0, 0), tup(16, 128)], {"target_memory": Vec})
    assert len(call.kwargs) == 1
    full = make_call("tile.full", [], {"shape": (16, 16), "dtype": FP32, "value": 1.0})
    reordered = full.with_fields(kwargs=tuple(reversed(full.kwargs)))
    assert structural_equal(full, reordered)
    assert structural_hash(full) == structural_hash(reordered)


# ------------------------------------------------------------------------------------------------
# differences, reported at the right path
# ------------------------------------------------------------------------------------------------


def test_changed_offset_is_reported_with_path_and_both_sides():
    msg = mismatch(program(kernel_fn()), program(kernel_fn(offset=0)))
    assert "function 'kernel' > body[1] (AssignStmt) > value > args[2] > elements[1]" in msg
    assert "64 vs 0" in msg
    assert "lhs: 64" in msg and "rhs: 0" in msg
    # the enclosing statements are printed too
    assert re.search(r"in lhs statement: .*tile\.slice\(%?t, \[16, 64\], \[0, 64\]\)", msg)
    assert re.search(r"in rhs statement: .*tile\.slice\(%?t, \[16, 64\], \[0, 0\]\)", msg)


def test_changed_memory_space_kwarg():
    msg = mismatch(program(kernel_fn()), program(kernel_fn(mem=Mat)))
    assert "body[0] (AssignStmt) > value > kwargs['target_memory']" in msg
    assert "MemorySpace.Vec" in msg and "MemorySpace.Mat" in msg


def test_memory_space_of_a_type_including_its_absence():
    fn = kernel_fn()
    stmt = fn.body.stmts[1]
    t = stmt.var.type
    no_mem = Var(stmt.var.name, TileType(t.shape, t.dtype, None))
    body = list(fn.body.stmts)
    body[1] = AssignStmt(no_mem, stmt.value)
    # later uses must refer to the new var: rebuild the use in stmt 2
    body[2] = AssignStmt(body[2].var, body[2].value.with_fields(args=(no_mem,) + body[2].value.args[1:]))
    other = fn.with_fields(body=SeqStmts(tuple(body)))
    msg = mismatch(fn, other)
    assert "function 'kernel' > body[1] (AssignStmt) > var > type > memory_space" in msg
    assert "MemorySpace.Vec vs None" in msg


def test_changed_dtype_and_shape_in_signature():
    msg = mismatch(program(kernel_fn()), program(kernel_fn(dtype=DataType.FP16)))
    assert "function 'kernel' > params[0] > type > dtype" in msg
    msg = mismatch(program(kernel_fn()), program(kernel_fn(width=32)))
    assert "function 'kernel' > params[1] > type > shape[1]" in msg


def test_changed_scalar_constant():
    msg = mismatch(program(kernel_fn()), program(kernel_fn(scale=0.25)))
    assert "body[2] (AssignStmt) > value > args[1]" in msg
    assert "0.5 vs 0.25" in msg


def test_statement_order():
    msg = mismatch(program(kernel_fn()), program(kernel_fn(swap=True)))
    assert "function 'kernel' > body[0] (AssignStmt) > value > op" in msg
    assert "tile.load vs tile.slice" in msg


def test_extra_statement_reports_count():
    fn = kernel_fn()
    longer = fn.with_fields(body=SeqStmts(fn.body.stmts + (ReturnStmt(()),)))
    msg = mismatch(fn, longer)
    assert "body" in msg and "statement count differs: 5 vs 6" in msg


def test_variable_binding_in_yield():
    msg = mismatch(program(loop_fn()), program(loop_fn(yield_var="it")))
    assert "function 'loop_kernel' > body[1] (ForStmt) > body[2] (YieldStmt) > values[0]" in msg
    assert "variable use differs" in msg


def test_variable_binding_swapped_operands():
    def build(swap: bool) -> Function:
        x = Var("x", ir.tensor_type([16, 16], FP32))
        b = Body()
        t = b.call("t", "tile.load", [x, tup(0, 0), tup(16, 16)])
        u = b.call("u", "tile.exp", [t])
        b.call("s", "tile.sub", [u, t] if swap else [t, u])
        return Function("f", (x,), (ParamDirection.In,), (), b.seq(), FunctionType.InCore)

    msg = mismatch(build(False), build(True))
    assert "function 'f' > body[2] (AssignStmt) > value > args[0]" in msg


def test_one_var_used_for_two_is_detected():
    x = Var("x", ir.tensor_type([16, 16], FP32))

    def build(same: bool) -> Function:
        b = Body()
        t = b.call("t", "tile.load", [x, tup(0, 0), tup(16, 16)])
        u = b.call("u", "tile.load", [x, tup(0, 0), tup(16, 16)])
        b.call("s", "tile.add", [t, t] if same else [t, u])
        return Function("f", (x,), (ParamDirection.In,), (), b.seq(), FunctionType.InCore)

    msg = mismatch(build(True), build(False))
    assert "body[2] (AssignStmt) > value > args[1]" in msg


def test_function_name_matters_program_name_does_not():
    a = program(kernel_fn(name="kernel"), name="A")
    assert structural_equal(a, program(kernel_fn(name="kernel"), name="B"))
    msg = mismatch(a, program(kernel_fn(name="other")))
    assert "name differs" in msg


def test_function_type_and_param_direction():
    msg = mismatch(kernel_fn(), kernel_fn(func_type=FunctionType.AIV))
    assert "func_type differs" in msg


def test_iter_arg_versus_plain_var_definition():
    acc_t = ir.tile_type([16, 16], FP32, Vec)
    a = IterArg("a", acc_t, init=None)
    v = Var("a", acc_t)
    msg = mismatch(a, v, enable_auto_mapping=True)
    assert "IterArg vs Var" in msg


def test_constant_dtype_and_nan():
    msg = mismatch(ConstInt(1, DataType.INDEX), ConstInt(1, DataType.INT32))
    assert "dtype differs" in msg
    assert structural_equal(ConstFloat(math.nan, FP32), ConstFloat(math.nan, FP32))
    assert structural_hash(ConstFloat(-0.0, FP32)) == structural_hash(ConstFloat(0.0, FP32))
    assert not structural_equal(ConstFloat(1.0, FP32), ConstFloat(1.0, DataType.FP16))


def test_tile_view_and_memref_fields():
    base = ir.tile_type([16, 64], FP32, Vec)
    m1 = MemRef(MemorySpace.Vec, "buf0", c(0), 4096)
    m2 = MemRef(MemorySpace.Vec, "other_name", c(0), 4096)
    t1 = TileType(base.shape, FP32, Vec, m1, TileView(valid_shape=(c(16), c(32))))
    t2 = TileType(base.shape, FP32, Vec, m2, TileView(valid_shape=(c(16), c(32))))
    assert structural_equal(t1, t2)  # memref base names are allocation names: mapped, not compared
    t3 = TileType(base.shape, FP32, Vec, MemRef(MemorySpace.Vec, "buf0", c(256), 4096), t1.tile_view)
    assert "memref > byte_offset" in mismatch(t1, t3)
    t4 = TileType(base.shape, FP32, Vec, m1, TileView(valid_shape=(c(16), c(16))))
    assert "tile_view > valid_shape[1]" in mismatch(t1, t4)
    t5 = TileType(base.shape, FP32, Vec, m1, None)
    assert "tile_view" in mismatch(t1, t5)


def test_memref_bases_map_one_to_one():
    shape = ir.make_shape([16, 16])
    a = ir.TupleType((TileType(shape, FP32, Vec, MemRef(MemorySpace.Vec, "b0", c(0), 1024)),
                      TileType(shape, FP32, Vec, MemRef(MemorySpace.Vec, "b1", c(0), 1024))))
    b = ir.TupleType((TileType(shape, FP32, Vec, MemRef(MemorySpace.Vec, "x", c(0), 1024)),
                      TileType(shape, FP32, Vec, MemRef(MemorySpace.Vec, "x", c(0), 1024))))
    assert "memref base differs" in mismatch(a, b)


# ------------------------------------------------------------------------------------------------
# free variables and auto mapping
# ------------------------------------------------------------------------------------------------


def test_free_vars_compare_by_identity_unless_auto_mapped():
    x = Var("x", ir.ScalarType(DataType.INDEX))
    y = Var("y", ir.ScalarType(DataType.INDEX))
    ex, ey = Add(x, c(1)), Add(y, c(1))
    assert structural_equal(ex, Add(x, c(1)))
    assert not structural_equal(ex, ey)
    assert "free variables differ" in mismatch(ex, ey)
    assert structural_equal(ex, ey, enable_auto_mapping=True)
    assert structural_hash(ex) == structural_hash(ey)
    # auto mapping still checks types and consistency
    z = Var("z", ir.ScalarType(DataType.INT32))
    assert not structural_equal(ex, Add(z, c(1)), enable_auto_mapping=True)
    assert not structural_equal(Add(x, x), Add(x, y), enable_auto_mapping=True)


def test_standalone_statements_compare():
    x = Var("x", ir.ScalarType(DataType.INDEX))
    s1 = AssignStmt(Var("a", x.type), Add(x, c(2)))
    s2 = AssignStmt(Var("b", x.type), Add(x, c(2)))
    assert structural_equal(s1, s2)
    s3 = AssignStmt(Var("b", x.type), Add(x, c(3)))
    assert "value > rhs" in mismatch(s1, s3)


def test_hash_distinguishes_common_changes():
    h = structural_hash(program(kernel_fn()))
    for kw in (dict(offset=0), dict(mem=Mat), dict(dtype=DataType.FP16), dict(width=32), dict(scale=0.25),
               dict(swap=True)):
        assert structural_hash(program(kernel_fn(**kw))) != h, kw


# ------------------------------------------------------------------------------------------------
# scale: no recursion limits
# ------------------------------------------------------------------------------------------------


def _long_function(n: int, last: int = 1) -> Function:
    i = Var("i", ir.ScalarType(DataType.INDEX))
    stmts = []
    prev = i
    for k in range(n):
        v = Var(f"v{k}", ir.ScalarType(DataType.INDEX))
        stmts.append(AssignStmt(v, Add(prev, c(last if k == n - 1 else 1))))
        prev = v
    stmts.append(ReturnStmt((prev,)))
    return Function("long", (i,), (ParamDirection.In,), (ir.ScalarType(DataType.INDEX),), SeqStmts(tuple(stmts)))


def test_ten_thousand_statements():
    a, b = _long_function(10_000), _long_function(10_000)
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)
    msg = mismatch(a, _long_function(10_000, last=2))
    assert "body[9999] (AssignStmt) > value > rhs" in msg


def test_deeply_nested_expression():
    x = Var("x", ir.ScalarType(DataType.INDEX))

    def chain(n: int, leaf: int):
        e = c(leaf)
        for _ in range(n):
            e = Add(x, e)
        return e

    assert structural_equal(chain(20_000, 0), chain(20_000, 0))
    assert structural_hash(chain(20_000, 0)) == structural_hash(chain(20_000, 0))
    assert not structural_equal(chain(20_000, 0), chain(20_000, 1))


# ------------------------------------------------------------------------------------------------
# through the DSL (when the parser is available)
# ------------------------------------------------------------------------------------------------

SRC = '''
import tilefold.language as pl

@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        y = pl.tile.muls(hi, 0.5)
        out = pl.store(y, [0, 0], out)
        return out
'''


def _parse(text: str):
    import tilefold.language as pl

    return pl.parse(text)


def test_dsl_programs_with_different_names_are_equal():
    a = _parse(SRC)
    b = _parse(SRC.replace("hi", "upper").replace("class Example", "class Other").replace(" t:", " tt:")
               .replace("(t,", "(tt,"))
    assert_structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)
    assert_structural_equal(a, program(kernel_fn(names=("x", "out", "t", "hi", "y", "out"))))


def test_dsl_changed_offset_reported():
    a = _parse(SRC)
    b = _parse(SRC.replace("[16, 64], [0, 64]", "[16, 64], [0, 32]"))
    msg = mismatch(a, b)
    assert "function 'kernel' > body[1] (AssignStmt) > value > args[2] > elements[1]" in msg
    assert "64 vs 32" in msg


SRC_MEM = '''
import tilefold.language as pl

@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.MEM)
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        y = pl.tile.muls(hi, 0.5)
        out = pl.store(y, [0, 0], out)
        return out
'''


def test_dsl_changed_memory_space_and_op_reported():
    a = _parse(SRC_MEM.replace("MEM", "Vec"))
    assert_structural_equal(a, _parse(SRC_MEM.replace("MEM", "Vec").replace("0.5)", "0.5 )")))
    msg = mismatch(a, _parse(SRC_MEM.replace("MEM", "Mat")))
    assert "function 'kernel' > body[0] (AssignStmt) > value > kwargs['target_memory']" in msg
    b = _parse(SRC_MEM.replace("MEM", "Vec").replace("pl.tile.muls(hi, 0.5)", "pl.tile.adds(hi, 0.5)"))
    assert "op differs: tile.muls vs tile.adds" in mismatch(a, b)


def test_messages_without_the_printer_use_the_compact_form(monkeypatch):
    import tilefold.ir.printing
    from tilefold.ir.structural import dump_ir

    monkeypatch.setattr(tilefold.ir.printing, "_printer", None)
    msg = mismatch(program(kernel_fn()), program(kernel_fn(offset=0)))
    assert "in lhs statement: %hi: Tile[[16, 64], FP32, Vec] = tile.slice(%t, [16, 64], [0, 64])" in msg
    text = dump_ir(program(loop_fn()))
    assert "%res = for %i in range(0, 4, 1) iter_args(%acc_it = %acc):" in text
    assert "        yield %s" in text
