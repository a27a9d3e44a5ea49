"""Parser errors: each carries the file, the line of the offending statement, the source line and a hint."""

from __future__ import annotations

import pytest

import tilefold.language as pl
from tilefold.errors import ParseError, TilefoldError, TypeInferenceError

HEADER = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
'''


def fails(body: str, exc: type[TilefoldError] = ParseError) -> TilefoldError:
    """Parse HEADER + body; the offending line is marked with `# <-`. Check the reported line."""
    lines = ["        " + ln if ln.strip() else "" for ln in body.strip("\n").splitlines()]
    src = HEADER + "\n".join(lines) + "\n"
    expected_line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        pl.parse(src, "kernel.py")
    err = info.value
    assert err.span is not None
    assert err.span.filename == "kernel.py"
    assert err.span.line == expected_line, (err.span.line, expected_line, str(err))
    assert err.span.source_line.strip().startswith(src.splitlines()[expected_line - 1].strip()[:10])
    text = str(err)
    assert f"kernel.py:{expected_line}:" in text
    return err


def test_unknown_op_suggests_close_name() -> None:
    err = fails("u = pl.tile.addd(t, t)  # <-")
    assert "unknown op pl.tile.addd" in err.message
    assert "pl.tile.add" in (err.hint or "")


def test_unknown_namespace_op() -> None:
    err = fails("u = pl.tensor.frobnicate(t, t)  # <-")
    assert "unknown op pl.tensor.frobnicate" in err.message
    # tensor.add exists (a tensor-level op, tilefold.ops.tensor_ops) but takes tensors, not tiles
    err = fails("u = pl.tensor.add(t, t)  # <-", TypeInferenceError)
    assert "tensor.add: operand #0 must be a tensor" in err.message and "pl.tile" in (err.hint or "")


def test_wrong_arity_missing_and_too_many() -> None:
    err = fails("u = pl.tile.add(t)  # <-")
    assert "wrong arity" in err.message and "'rhs'" in err.message
    assert "pl.tile.add(lhs, rhs)" in (err.hint or "")
    err = fails("u = pl.tile.exp(t, t, t)  # <-")
    assert "wrong arity" in err.message and "at most 1" in err.message


def test_unknown_keyword_argument() -> None:
    err = fails("u = pl.tile.load(x, [0, 0], [16, 64], targt_memory=pl.Mem.Vec)  # <-")
    assert "unknown keyword argument 'targt_memory'" in err.message
    assert "target_memory" in (err.hint or "")


def test_duplicate_argument() -> None:
    err = fails("u = pl.tile.add(t, t, lhs=t)  # <-")
    assert "multiple values" in err.message


def test_bad_annotation() -> None:
    err = fails("u: int = pl.tile.exp(t)  # <-")
    assert "bad type annotation" in err.message
    err = fails("u: pl.Tile[[16, 64]] = pl.tile.exp(t)  # <-")
    assert "pl.Tile takes" in err.message
    err = fails("u: pl.Tile[16, pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)  # <-")
    assert "shape must be a list" in err.message
    err = fails("u: pl.Tensorr[[16, 64], pl.FP32] = pl.tile.exp(t)  # <-")
    assert "unknown type constructor" in err.message


def test_unknown_dtype_and_memory_space() -> None:
    err = fails("u: pl.Tile[[16, 64], pl.FP31, pl.Mem.Vec] = pl.tile.exp(t)  # <-")
    assert "unknown dtype pl.FP31" in err.message and "FP32" in (err.hint or "")
    err = fails("u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vecc] = pl.tile.exp(t)  # <-")
    assert "unknown memory space pl.Mem.Vecc" in err.message and "Vec" in (err.hint or "")
    err = fails("u = pl.tile.cast(t, target_type=pl.FP31)  # <-")
    assert "unknown dtype pl.FP31" in err.message
    err = fails("u = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.L1)  # <-")
    assert "unknown memory space" in err.message


def test_shape_and_dtype_mismatch_with_annotation() -> None:
    err = fails("u: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)  # <-")
    assert "shape mismatch" in err.message and "[16, 32]" in err.message and "[16, 64]" in err.message
    err = fails("u: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.exp(t)  # <-")
    assert "dtype mismatch" in err.message
    err = fails("u: pl.Tensor[[16, 64], pl.FP32] = pl.tile.exp(t)  # <-")
    assert "annotated as a tensor" in err.message
    err = fails("n: pl.Scalar[pl.INDEX] = 0.5  # <-")
    assert "n" in err.message


def test_memory_space_conflict_and_fill() -> None:
    err = fails("u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.exp(t)  # <-")
    assert "pl.Mem.Mat" in err.message and "pl.Mem.Vec" in err.message
    # a view inherits its source's memory; the annotation may fill a missing one
    prog = pl.parse(HEADER.replace("target_memory=pl.Mem.Vec", "target_memory=pl.Mem.Vec") +
                    "        v: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [0, 0])\n")
    assert prog.functions[0].body.stmts[1].var.type.memory_space.name == "Vec"


def test_use_before_definition() -> None:
    err = fails("u = pl.tile.exp(tt)  # <-")
    assert "use of undefined name 'tt'" in err.message
    assert "'t'" in (err.hint or "")
    # a name of a loop body is the last iteration's value after the loop (tests/language/test_escaping_names.py);
    # a loop of zero trips leaves it without one
    err = fails('''
for i in pl.range(2, 2):  # <-
    inner = pl.tile.exp(t)
u = pl.tile.exp(inner)
''')
    assert "'inner' is first defined inside this pl.range loop" in err.message and "runs zero times" in err.message


def test_yield_count_mismatch() -> None:
    err = fails('''
for i, (a,) in pl.range(4, init_values=(t,)):
    b = pl.tile.exp(a)
    r, s = pl.yield_(b, b)  # <-
''')
    assert "yield count mismatch" in err.message and "carries 1" in err.message
    err = fails('''
for i, (a,) in pl.range(4, init_values=(t,)):  # <-
    b = pl.tile.exp(a)
''')
    assert "yield count mismatch" in err.message
    err = fails('''
if 1 > 0:
    r = pl.yield_(t)
else:
    r, s = pl.yield_(t, t)  # <-
''')
    assert "yield count mismatch" in err.message
    err = fails('''
for i in pl.range(4):
    r = pl.yield_(t)  # <-
''')
    assert "yield count mismatch" in err.message
    err = fails('''
for i, (a,) in pl.range(4, init_values=(t,)):
    r, s = pl.yield_(a)  # <-
''')
    assert "1 value(s) but 2 name(s)" in err.message


def test_yield_placement() -> None:
    err = fails('''
for i, (a,) in pl.range(4, init_values=(t,)):
    r = pl.yield_(a)
    b = pl.tile.exp(a)  # <-
''')
    assert "last statement" in err.message
    err = fails("r = pl.yield_(t)  # <-")
    assert "outside a loop" in err.message
    err = fails('''
if 1 > 0:
    r = pl.yield_(t)  # <-
''')
    assert "needs an else" in err.message


def test_yield_type_mismatch() -> None:
    err = fails('''
for i, (a,) in pl.range(4, init_values=(t,)):
    b = pl.tile.slice(a, [8, 64], [0, 0])
    r = pl.yield_(b)  # <-
''')
    assert "yield value #0" in err.message


def test_rebinding_outer_name_inside_loop_carries_it() -> None:
    # Python's meaning (PyPTO's ConvertToSSA): the loop / if carries the rebound name out
    from tilefold.ir.stmt import ForStmt, IfStmt, flatten_stmts

    body = ("        for i in pl.range(4):\n            t = pl.tile.exp(t)\n"
            "        if 1 > 0:\n            t = pl.tile.exp(t)\n"
            "        out = pl.tile.store(t, [0, 0], out)\n")
    stmts = flatten_stmts(pl.parse(HEADER + body).function("k").body)
    loop = next(s for s in stmts if isinstance(s, ForStmt))
    branch = next(s for s in stmts if isinstance(s, IfStmt))
    assert [ia.name for ia in loop.iter_args] == ["t"] and len(branch.return_vars) == 1


def test_loop_header_may_shadow_and_results_rebind_outside() -> None:
    prog = pl.parse(HEADER + '''        for i, (t,) in pl.range(4, init_values=(t,)):
            u = pl.tile.exp(t)
            t = pl.yield_(u)
        out = pl.store(t, [0, 0], out)
        return out
''')
    loop = prog.functions[0].body.stmts[1]
    store = prog.functions[0].body.stmts[2].value
    assert store.args[0] is loop.return_vars[0]


def test_unsupported_syntax() -> None:
    err = fails('''
with open("f") as f:  # <-
    pass
''')
    assert "unsupported Python syntax" in err.message and "With" in err.message
    err = fails("u = [a for a in range(3)]  # <-")
    assert "unsupported Python expression" in err.message
    from tilefold.errors import TypeInferenceError

    err = fails("t[0] = 1  # <-", TypeInferenceError)
    assert "1 indices given for a rank-2 tile" in err.message  # t[i, j] = v writes one element: one index per axis
    err = fails("for i in range(4):  # <-\n    pass")
    assert "pl.range" in err.message
    err = fails("n = pl.tile.get_block_idx() / 2  # <-")
    assert "Div" in err.message or "//" in (err.hint or "")
    err = fails("a = b = pl.tile.exp(t)  # <-")
    assert "chained assignment" in err.message
    err = fails("c = 1 < 2 < 3  # <-")
    assert "chained comparisons" in err.message


def test_type_inference_errors_carry_the_call_location() -> None:
    err = fails('''
s = pl.tile.slice(t, [16, 32], [0, 0])
u = pl.tile.add(t, s)  # <-
''', TypeInferenceError)
    assert "tile.add" in err.message and "shapes" in err.message
    assert err.hint
    err = fails("s = pl.tile.slice(t, [16, 32], [0, 48])  # <-", TypeInferenceError)
    assert "outside the source extent" in err.message
    err = fails("out = pl.store(t, [0], out)  # <-", TypeInferenceError)
    assert "offsets" in err.message


def test_arithmetic_on_tiles_is_rejected() -> None:
    err = fails("u = t % t  # <- (+ - * / on tiles are the ops; % is not)")
    assert "arithmetic needs scalars" in err.message
    assert "pl.tile.add" in (err.hint or "")


def test_function_call_errors() -> None:
    err = fails("r = self.nothere(x)  # <-")
    assert "unknown function self.nothere" in err.message
    err = fails("r = self.k(x)  # <-")
    assert "missing argument 'out'" in err.message


def test_syntax_error_has_location() -> None:
    with pytest.raises(ParseError) as info:
        pl.parse(HEADER + "        u = = 3\n", "kernel.py")
    assert info.value.span.line == HEADER.count("\n") + 1
    assert "invalid Python syntax" in info.value.message


def test_no_program() -> None:
    with pytest.raises(ParseError) as info:
        pl.parse("x = 1\n")
    assert "no @pl.program" in info.value.message


def test_missing_self_and_annotations() -> None:
    # PyPTO's text form may leave out `self` (parse_from_text): the first annotated parameter is a real one
    src = HEADER.replace("def k(self, x:", "def k(x:") + "        out = pl.tile.store(t, [0, 0], out)\n"
    assert [p.name for p in pl.parse(src).function("k").params] == ["x", "out"]
    src = HEADER.replace("x: pl.Tensor[[16, 64], pl.FP32],", "x,")
    with pytest.raises(ParseError, match="needs a type annotation"):
        pl.parse(src)


def test_decorator_errors_point_into_the_real_file() -> None:
    import inspect

    with pytest.raises(ParseError) as info:
        @pl.program
        class Bad:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 64], pl.FP32]):
                t = pl.tile.load(x, [0, 0], [16, 64])
                u = pl.tile.nope(t)  # noqa: F841

    err = info.value
    assert err.span.filename == __file__
    lines = inspect.getsource(inspect.getmodule(test_no_program)).splitlines()
    assert err.span.line == next(i for i, ln in enumerate(lines, 1) if "u = pl.tile.nope(t)" in ln)
    assert "pl.tile.nope(t)" in err.span.source_line


def test_every_registered_op_is_reachable_from_the_dsl() -> None:
    """Calling any registered op with no arguments reaches the op (a missing-argument or type error, or
    success for nullary ops) -- never an unknown-op error."""
    from tilefold.ops import all_ops

    for name in all_ops():
        ns, short = name.split(".", 1)
        src = HEADER + f"        u = pl.{ns}.{short}()\n"
        try:
            pl.parse(src)
        except TilefoldError as err:
            assert "unknown op" not in err.message, name
            assert err.span is not None and err.span.line == HEADER.count("\n") + 1, name


def test_parse_file_missing() -> None:
    with pytest.raises(ParseError, match="cannot read"):
        pl.parse_file("/nonexistent/kernel.py")
