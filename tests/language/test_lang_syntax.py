"""DSL syntax: scalars, loops, while, if, calls, constants, decorator mode, attrs -- parsed and round-tripped."""

from __future__ import annotations

import math

import pytest
from lang_helpers import roundtrip

import tilefold.language as pl
from tilefold import ir
from tilefold.ir import (
    Add,
    AssignStmt,
    Call,
    ConstFloat,
    ConstInt,
    DataType,
    ForKind,
    ForStmt,
    IfStmt,
    IterArg,
    MemorySpace,
    Mul,
    TileType,
    TupleGetItem,
    TupleType,
    WhileStmt,
)

HEADER = "import tilefold.language as pl\n\n"


def kernel(body: str, params: str = "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
           ret: str = " -> pl.Tensor[[16, 64], pl.FP32]", fn_type: str = "InCore", prelude: str = "") -> str:
    lines = "\n".join("        " + ln if ln.strip() else "" for ln in body.strip("\n").splitlines())
    return (HEADER + prelude + "\n@pl.program\nclass P:\n"
            f"    @pl.function(type=pl.FunctionType.{fn_type})\n"
            f"    def k(self, {params}){ret}:\n{lines}\n")


def stmts(program: ir.Program, fn: int = 0) -> tuple:
    return program.functions[fn].body.stmts


def test_scalar_arithmetic_and_literals() -> None:
    src = kernel('''
b = pl.tile.get_block_idx()
off: pl.Scalar[pl.INDEX] = 16
r = b * 16 + off // 2 - b % 4
m = pl.min(r, 64)
n = max(m, 0)
c = (r < 8) and not (m >= 3) or n == 1
f: pl.Scalar[pl.FP32] = 0.5
g = f * 2
h: pl.Scalar[pl.INT32] = 3
i = h + 1
neg = -b
folded = 2 * 8 + 1
t = pl.tile.load(x, [0, 0], [16, 64])
u = pl.tile.muls(t, f)
out = pl.store(u, [0, 0], out)
return out
''')
    p = pl.parse(src)
    s = {st.var.name: st for st in stmts(p) if isinstance(st, AssignStmt)}
    assert isinstance(s["off"].value, ConstInt) and s["off"].value.value == 16
    assert isinstance(s["r"].value, ir.Sub)
    assert s["r"].var.type == ir.ScalarType(DataType.INDEX)
    assert isinstance(s["m"].value, ir.Min) and isinstance(s["n"].value, ir.Max)
    assert isinstance(s["c"].value, ir.Or)
    assert s["c"].var.type == ir.ScalarType(DataType.BOOL)
    g = s["g"].value
    assert isinstance(g, Mul) and isinstance(g.rhs, ConstFloat) and g.rhs.value == 2.0 and g.dtype is DataType.FP32
    i = s["i"].value
    assert isinstance(i, Add) and i.rhs.dtype is DataType.INT32 and i.dtype is DataType.INT32
    assert isinstance(s["neg"].value, ir.Neg)
    assert isinstance(s["folded"].value, ConstInt) and s["folded"].value.value == 17
    text = roundtrip(p)
    assert "pl.const(1, pl.INT32)" in text  # a non-INDEX constant prints with its dtype


def test_module_constants_fold_statically() -> None:
    src = kernel('''
t: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], SHAPE)
half = pl.tile.slice(t, [ROWS // 2, COLS], [HALF, 0])
y = pl.tile.adds(half, SCALE)
out = pl.store(y, [0, 0], out)
return out
''', params="x: pl.Tensor[SHAPE, pl.FP32], out: pl.Out[pl.Tensor[[ROWS // 2, COLS], pl.FP32]]",
                 ret="", prelude="ROWS = 16\nCOLS = 4 * 16\nSHAPE = [ROWS, COLS]\nHALF = ROWS // 2\nSCALE = 1.5\n")
    p = pl.parse(src)
    half = stmts(p)[1]
    assert half.var.type.static_shape == (8, 64)
    assert p.functions[0].params[0].type.static_shape == (16, 64)
    roundtrip(p)


def test_decorator_reads_closure_and_module_constants() -> None:
    rows = 32

    @pl.program
    class Closure:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[rows, MODULE_COLS], pl.FP32],
              out: pl.Out[pl.Tensor[[rows, MODULE_COLS], pl.FP32]]) -> pl.Tensor[[rows, MODULE_COLS], pl.FP32]:
            t: pl.Tile[[rows, MODULE_COLS], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [rows, MODULE_COLS])
            out = pl.store(t, [0, 0], out)
            return out

    assert isinstance(Closure, ir.Program)
    assert Closure.functions[0].params[0].type.static_shape == (32, 48)
    assert Closure.functions[0].span.line > 0
    roundtrip(Closure)


MODULE_COLS = 48


def test_loops_range_forms_and_kinds() -> None:
    src = kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
for i in pl.range(4):
    pl.tile.adds(t, 1.0)
for j in pl.range(2, 8):
    pass
for k in pl.range(0, 64, 16):
    pl.store(t, [0, 0], out)
for p_i, (acc,) in pl.pipeline(0, 512, 256, init_values=(t,), stage=2):
    acc2 = pl.tile.add(acc, t)
    acc3 = pl.yield_(acc2)
for q in pl.parallel(4, attrs={"bind": "core"}):
    pass
for r, (a, b) in pl.unroll(2, init_values=(t, acc3)):
    a2 = pl.tile.adds(a, 1.0)
    a_out, b_out = pl.yield_(a2, b)
out = pl.store(b_out, [0, 0], out)
return out
''')
    p = pl.parse(src)
    loops = [s for s in stmts(p) if isinstance(s, ForStmt)]
    assert [lp.kind for lp in loops] == [ForKind.Sequential] * 3 + [ForKind.Pipeline, ForKind.Parallel, ForKind.Unroll]
    assert [(lp.start.value, lp.stop.value, lp.step.value) for lp in loops[:3]] == [(0, 4, 1), (2, 8, 1), (0, 64, 16)]
    pipe = loops[3]
    assert pipe.attrs == (("stage", 2),)
    assert isinstance(pipe.iter_args[0], IterArg) and pipe.iter_args[0].init is stmts(p)[0].var
    assert [v.name for v in pipe.return_vars] == ["acc3"]
    assert loops[4].attrs == (("bind", "core"),)
    assert [v.name for v in loops[5].return_vars] == ["a_out", "b_out"]
    for lp in loops:
        assert isinstance(lp.body, ir.SeqStmts)
    text = roundtrip(p)
    assert "pl.pipeline(0, 512, 256, init_values=(t,), stage=2)" in text
    assert "pl.parallel(4, attrs={\"bind\": \"core\"})" in text


def test_while_loop_with_cond_and_plain_while() -> None:
    src = kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
for (i, acc) in pl.while_(init_values=(0, t)):
    pl.cond(i < 4)
    acc2 = pl.tile.muls(acc, 2.0)
    i_out, acc_out = pl.yield_(i + 1, acc2)
n = pl.tile.get_block_idx()
while n < 0:
    pl.store(acc_out, [0, 0], out)
out = pl.store(acc_out, [0, 0], out)
return out
''')
    p = pl.parse(src)
    w = [s for s in stmts(p) if isinstance(s, WhileStmt)]
    assert len(w) == 2
    assert [ia.name for ia in w[0].iter_args] == ["i", "acc"]
    assert isinstance(w[0].condition, ir.Lt) and w[0].condition.lhs is w[0].iter_args[0]
    assert [v.name for v in w[0].return_vars] == ["i_out", "acc_out"]
    assert w[1].iter_args == () and w[1].return_vars == ()
    text = roundtrip(p)
    assert "for (i, acc) in pl.while_(init_values=(0, t)):" in text
    assert "pl.cond(i < 4)" in text


def test_if_else_with_yield_and_plain_if() -> None:
    src = kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
sb = pl.tile.get_subblock_idx()
if sb == 0:
    a = pl.tile.muls(t, 2.0)
    r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(a)
else:
    r = pl.yield_(t)
if sb > 0:
    pl.store(r, [0, 0], out)
out = pl.store(r, [0, 0], out)
return out
''')
    p = pl.parse(src)
    ifs = [s for s in stmts(p) if isinstance(s, IfStmt)]
    assert [v.name for v in ifs[0].return_vars] == ["r"]
    assert ifs[0].return_vars[0].type.memory_space is MemorySpace.Vec
    assert ifs[1].else_body is None and ifs[1].return_vars == ()
    roundtrip(p)


def test_orchestration_calls_kernels_defined_later() -> None:
    src = HEADER + '''
@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.kernel(x, out)
        a, b = self.pair(x)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, x: pl.Tensor[[16, 64], pl.FP32]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        return x, x
'''
    p = pl.parse(src)
    main = p.function("main")
    call = main.body.stmts[0].value
    assert isinstance(call, Call) and call.is_function_call and call.op_name == "kernel"
    assert isinstance(call.type, ir.TensorType)
    tup = main.body.stmts[1]
    assert isinstance(tup.var.type, TupleType)
    assert isinstance(main.body.stmts[2].value, TupleGetItem)
    assert p.function("pair").return_types and len(p.function("pair").return_types) == 2
    text = roundtrip(p)
    assert "self.kernel(x, out)" in text
    assert "a, b = self.pair(x)" in text


def test_function_program_and_call_attrs_roundtrip() -> None:
    src = HEADER + '''
@pl.program(attrs={"tile_and_bind_subblock_reverted": True, "note": "x"})
class Prog:
    @pl.function(type=pl.FunctionType.AIV, attrs={"split_axis": 0, "dims": [1, 2], "f": 0.25})
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out, ir_attrs={"pass_marker": True})
        return out
'''
    p = pl.parse(src)
    assert p.attrs == (("tile_and_bind_subblock_reverted", True), ("note", "x"))
    fn = p.functions[0]
    assert fn.func_type is ir.FunctionType.AIV
    assert fn.attrs == (("split_axis", 0), ("dims", (1, 2)), ("f", 0.25))
    store = fn.body.stmts[1].value
    assert store.kwarg("pass_marker") is True
    text = roundtrip(p)
    assert 'ir_attrs={"pass_marker": True}' in text


def test_memref_and_tile_view_roundtrip() -> None:
    src = kernel('''
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "buf0", 0, 4096, address=256)] = pl.tile.load(x, [0, 0], [16, 64])
b = pl.tile.get_block_idx()
v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "buf0", b * 64, 4096), pl.TileView(valid_shape=[8, 64], blayout="col_major")] = pl.tile.slice(t, [16, 64], [0, 0])
out = pl.store(v, [0, 0], out)
return out
''')
    p = pl.parse(src)
    t = stmts(p)[0].var.type
    assert isinstance(t, TileType) and t.memref is not None
    assert (t.memref.base, t.memref.byte_offset.value, t.memref.size, t.memref.address) == ("buf0", 0, 4096, 256)
    v = stmts(p)[2].var.type
    assert isinstance(v.memref.byte_offset, Mul)
    assert v.tile_view.blayout == "col_major" and [e.value for e in v.tile_view.valid_shape] == [8, 64]
    text = roundtrip(p)
    assert 'pl.MemRef(pl.Mem.Vec, "buf0", 0, 4096, address=256)' in text


def test_pass_made_types_roundtrip() -> None:
    """IR built by a pass (memrefs on vars, no source spans, duplicate names) prints and parses back."""
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
t = pl.tile.adds(t, 1.0)
t = pl.tile.adds(t, 2.0)
out = pl.store(t, [0, 0], out)
return out
'''))
    fn = p.functions[0]
    new = []
    for i, s in enumerate(fn.body.stmts):
        if isinstance(s, AssignStmt) and isinstance(s.var.type, TileType):
            mr = ir.MemRef(MemorySpace.Vec, f"mem_{i}", ConstInt(0), 4096)
            s = s.with_fields(var=s.var.with_fields(type=s.var.type.__class__(
                s.var.type.shape, s.var.type.dtype, s.var.type.memory_space, mr)))
        new.append(s)
    # rebuild uses so they refer to the retyped vars
    mapping = {}
    rebuilt = []
    for s in new:
        s2 = ir.substitute(s, mapping) if mapping else s
        if isinstance(s, AssignStmt):
            old = fn.body.stmts[len(rebuilt)].var
            mapping[old] = s.var
            s2 = s2.with_fields(var=s.var)
        rebuilt.append(s2)
    p2 = p.with_fields(functions=(fn.with_fields(body=ir.SeqStmts(tuple(rebuilt))),))
    text = roundtrip(p2)
    assert "t_1: pl.Tile" in text and "t_2: pl.Tile" in text
    assert 'pl.MemRef(pl.Mem.Vec, "mem_0", 0, 4096)' in text


def test_printer_constant_forms() -> None:
    a = ir.Var("a", ir.ScalarType(DataType.INDEX))
    c16, c2 = ConstInt(16), ConstInt(2)
    assert ir.python_print(Add(c16, c2)) == "pl.const(16, pl.INDEX) + pl.const(2, pl.INDEX)"
    assert ir.python_print(ir.Neg(ConstInt(5))) == "-pl.const(5, pl.INDEX)"
    assert ir.python_print(ir.Sub(a, Add(a, ConstInt(1)))) == "a - (a + 1)"
    assert ir.python_print(Mul(Add(a, c2), a)) == "(a + 2) * a"
    assert ir.python_print(ConstFloat(math.inf)) == 'float("inf")'
    assert ir.python_print(ConstFloat(-math.inf)) == '-float("inf")'
    assert ir.python_print(ConstInt(3, DataType.INT32)) == "pl.const(3, pl.INT32)"


def test_unfolded_constant_arithmetic_roundtrips() -> None:
    p = pl.parse(kernel('''
b = pl.tile.get_block_idx()
r = b + 1
out = pl.store(pl.tile.load(x, [r, 0], [16, 64]), [0, 0], out)
return out
''', params="x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"))
    fn = p.functions[0]
    r = fn.body.stmts[1]
    weird = r.with_fields(value=ir.Add(ConstInt(3), ir.Neg(ConstInt(4))))
    body = (fn.body.stmts[0], weird) + fn.body.stmts[2:]
    p2 = p.with_fields(functions=(fn.with_fields(body=ir.SeqStmts(body)),))
    text = roundtrip(p2)
    assert "3 + -pl.const(4, pl.INDEX)" in text


def test_eval_stmt_and_float_special_values() -> None:
    p = pl.parse(kernel('''
t = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=-float("inf"), target_memory=pl.Mem.Vec)
pl.tile.muls(t, 2.0)
out = pl.store(t, [0, 0], out)
return out
'''))
    assert stmts(p)[0].value.kwarg("value") == -math.inf
    assert isinstance(stmts(p)[1], ir.EvalStmt)
    roundtrip(p)


def test_aug_assign_on_scalars() -> None:
    p = pl.parse(kernel('''
b = pl.tile.get_block_idx()
b += 2
b *= 3
return out
''', ret=""))
    assert isinstance(stmts(p)[2].value, Mul)
    roundtrip(p)


def test_alias_import_and_pl_shortcuts() -> None:
    src = '''
import tilefold.language as tl

@tl.program
class P:
    @tl.function(type=tl.FunctionType.InCore)
    def k(self, x: tl.Tensor[[16, 64], tl.FP32], out: tl.Out[tl.Tensor[[16, 64], tl.FP32]]):
        t = tl.load(x, [0, 0], [16, 64], target_memory=tl.MemorySpace.Vec)
        u = tl.exp(t)
        out = tl.store(u, [0, 0], out)
        return out
'''
    p = pl.parse(src)
    assert stmts(p)[1].value.op == "tile.exp"
    roundtrip(p)


def test_parse_function_and_stmt_fragments_print() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
'''))
    fn_text = ir.python_print(p.functions[0])
    assert fn_text.startswith("@pl.function(type=pl.FunctionType.InCore)\ndef k(self, x:")
    assert ir.python_print(stmts(p)[0]).startswith("t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(")
    assert ir.python_print(stmts(p)[0].var.type) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    assert p.as_python() == ir.python_print(p)


def test_runtime_markers_and_stubs() -> None:
    assert pl.FP32 is DataType.FP32 and pl.Mem.Vec is MemorySpace.Vec
    assert pl.parallel == "parallel" and pl.reduction == "reduction"
    assert str(pl.affine_map("(d0, d1) -> (d0, 0)")) == "(d0, d1) -> (d0, 0)"
    assert "slice" in dir(pl.tile)
    from tilefold.errors import NotSupportedError

    with pytest.raises(NotSupportedError):
        pl.tile.add(1, 2)
    with pytest.raises(AttributeError):
        pl.tile.no_such_op  # noqa: B018


def test_iter_types_and_multi_result_yield_types_roundtrip() -> None:
    mr = 'pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "m", 0, 4096)]'
    plain = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
    p = pl.parse(kernel(f'''
t = pl.tile.load(x, [0, 0], [16, 64])
for i, (a, b) in pl.range(2, init_values=(t, t), iter_types=[{mr}, {plain}]):
    a2 = pl.tile.adds(a, 1.0)
    ra, rb = pl.yield_(a2, b, types=[{plain}, {mr}])
out = pl.store(rb, [0, 0], out)
return out
'''))
    loop = stmts(p)[1]
    assert loop.iter_args[0].type.memref is not None and loop.iter_args[1].type.memref is None
    assert loop.return_vars[0].type.memref is None and loop.return_vars[1].type.memref.base == "m"
    text = roundtrip(p)
    assert "iter_types=[" in text and "types=[" in text


def test_if_multi_result_types_roundtrip() -> None:
    mr = 'pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.MemRef(pl.Mem.Vec, "m", 64, 4096)]'
    p = pl.parse(kernel(f'''
t = pl.tile.load(x, [0, 0], [16, 64])
b = pl.tile.get_block_idx()
if b == 0:
    p, q = pl.yield_(t, t, types=[{mr}, {mr}])
else:
    p, q = pl.yield_(t, t)
out = pl.store(q, [0, 0], out)
return out
'''))
    ifs = stmts(p)[2]
    assert all(v.type.memref.byte_offset.value == 64 for v in ifs.return_vars)
    roundtrip(p)


def test_explicit_no_tile_view_roundtrips() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v = pl.tile.slice(t, [16, 64], [0, 0], [8, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    v = stmts(p)[1]
    assert v.var.type.tile_view is not None and [e.value for e in v.var.type.tile_view.valid_shape] == [8, 64]
    # a pass that canonicalizes the view away on the variable (not on the call's inferred type)
    plain = v.var.with_fields(type=TileType(v.var.type.shape, v.var.type.dtype, v.var.type.memory_space))
    fn = p.functions[0]
    body = list(fn.body.stmts)
    body[1] = v.with_fields(var=plain)
    body[2] = ir.substitute(body[2], {v.var: plain})
    p2 = p.with_fields(functions=(fn.with_fields(body=ir.SeqStmts(tuple(body))),))
    text = roundtrip(p2)
    assert "pl.TileView()" in text
    assert pl.parse(text).functions[0].body.stmts[1].var.type.tile_view is None


def test_nested_loops_and_ifs_with_yields() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
for i, (a,) in pl.range(4, init_values=(t,)):
    for j, (b,) in pl.range(2, init_values=(a,)):
        if j == 0:
            c = pl.tile.adds(b, 1.0)
            r = pl.yield_(c)
        else:
            r = pl.yield_(b)
        b_out = pl.yield_(r)
    a_out = pl.yield_(b_out)
out = pl.store(a_out, [0, 0], out)
return out
'''))
    outer = stmts(p)[1]
    inner = outer.body.stmts[0]
    assert isinstance(inner, ForStmt) and isinstance(inner.body.stmts[0], IfStmt)
    assert outer.body.stmts[-1].values[0] is inner.return_vars[0]
    roundtrip(p)


def test_loop_without_yield_after_nested_yielding_if_is_reported() -> None:
    from tilefold.errors import ParseError

    with pytest.raises(ParseError, match="yield count mismatch"):
        pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
for i, (a,) in pl.range(4, init_values=(t,)):
    if i == 0:
        r = pl.yield_(a)
    else:
        r = pl.yield_(a)
return out
''', ret=""))


def test_printer_sanitizes_and_dedups_names() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
u = pl.tile.exp(t)
v = pl.tile.abs(u)
out = pl.store(v, [0, 0], out)
return out
'''))
    fn = p.functions[0]
    body = list(fn.body.stmts)
    names = ["for", "1x", "pl"]
    mapping: dict = {}
    for i, new_name in enumerate(names):
        s = ir.substitute(body[i], mapping) if mapping else body[i]
        nv = s.var.with_fields(name=new_name)
        mapping[body[i].var] = nv
        body[i] = s.with_fields(var=nv)
    body[3] = ir.substitute(body[3], mapping)
    p2 = p.with_fields(functions=(fn.with_fields(body=ir.SeqStmts(tuple(body))),))
    text = roundtrip(p2)
    assert "for_: pl.Tile" in text and "v1x: pl.Tile" in text and "pl_: pl.Tile" in text
