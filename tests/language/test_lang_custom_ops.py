"""Custom ops in the DSL: segments, attributes, multi-result binding, custom_macro, and the registry's
custom-op verifier errors reported at the call's source location."""

from __future__ import annotations

import pytest
from lang_helpers import roundtrip

import tilefold.language as pl
from tilefold import ir, ops
from tilefold.errors import TypeInferenceError
from tilefold.ir import AffineMap, AssignStmt, TupleGetItem, TupleType

HEADER = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 32], pl.FP16], n: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        x_t = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        o1 = pl.tile.create(shape=[16, 32], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        o2 = pl.tile.create(shape=[16, 32], dtype=pl.FP16, target_memory=pl.Mem.Vec)
        r1 = pl.tile.create(shape=[16, 1], dtype=pl.FP16, target_memory=pl.Mem.Vec)
'''
FOOTER = '''        out = pl.store(y, [0, 0], out)
        return out
'''
ID = 'pl.affine_map("(d0, d1) -> (d0, d1)")'


def program(body: str) -> ir.Program:
    return pl.parse(HEADER + "".join("        " + ln + "\n" for ln in body.strip("\n").splitlines()) + FOOTER,
                    "custom.py")


def custom_call(p: ir.Program) -> ir.Call:
    for s in p.functions[0].body.stmts:
        if isinstance(s, AssignStmt) and isinstance(s.value, ir.Call) and s.value.op_name.startswith("tile.custom"):
            return s.value
    raise AssertionError("no custom op")


def test_single_result_segments_and_attrs() -> None:
    p = program(f'''
y = pl.tile.custom("my_kernel", ins=[x_t, n], outs=[o1], tmps=[o2],
                   indexing_maps=[{ID}, pl.affine_map("(d0, d1) -> ()"), {ID}],
                   iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, builtin=False,
                   extra_buffers_info=[["ub", 1024]], pipe="PIPE_V", attrs={{"alpha": 0.5, "tag": "t"}})
''')
    c = custom_call(p)
    assert c.kwarg("symbol") == "my_kernel"
    assert c.kwarg("operand_segment_sizes") == (2, 1, 1)
    seg = ops.custom_segments(c)
    assert [len(seg[k]) for k in ("ins", "outs", "tmps", "sync_related_args")] == [2, 1, 1, 0]
    assert seg["ins"][1].name == "n"
    maps = c.kwarg("indexing_maps")
    assert all(isinstance(m, AffineMap) for m in maps) and maps[1].num_results == 0
    assert c.kwarg("iterator_types") == ("parallel", "reduction")
    assert c.kwarg("no_side_effect") is True and c.kwarg("pipe") == "PIPE_V"
    assert c.kwarg("extra_buffers_info") == (("ub", 1024),)
    assert c.kwarg("attrs") == (("alpha", 0.5), ("tag", "t"))
    assert c.type.static_shape == (16, 32)
    text = roundtrip(p)
    assert 'pl.tile.custom("my_kernel", ins=[x_t, n], outs=[o1], tmps=[o2]' in text
    assert "iterator_types=[pl.parallel, pl.reduction]" in text
    assert 'attrs={"alpha": 0.5, "tag": "t"}' in text
    assert "operand_segment_sizes" not in text


def test_multi_result_binds_tuple_and_items() -> None:
    p = program(f'''
ya, yb = pl.tile.custom("pair", ins=[x_t], outs=[o1, o2], indexing_maps=[{ID}, {ID}, {ID}],
                        iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
y = pl.tile.add(ya, yb)
''')
    body = p.functions[0].body.stmts
    tup = next(s for s in body if isinstance(s, AssignStmt) and isinstance(s.var.type, TupleType))
    i = body.index(tup)
    a, b = body[i + 1], body[i + 2]
    assert isinstance(a.value, TupleGetItem) and a.value.tuple_value is tup.var and a.value.index == 0
    assert isinstance(b.value, TupleGetItem) and b.value.index == 1
    assert (a.var.name, b.var.name) == ("ya", "yb")
    assert len(tup.var.type.types) == 2
    text = roundtrip(p)
    assert 'ya, yb = pl.tile.custom("pair"' in text


def test_multi_result_explicit_form_roundtrips() -> None:
    """When the tuple value is used directly, the printer keeps the explicit tuple variable."""
    p = program(f'''
pair: pl.Tuple[pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec], pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec]] = pl.tile.custom(
    "pair", ins=[x_t], outs=[o1, o2], indexing_maps=[{ID}, {ID}, {ID}], iterator_types=[pl.parallel, pl.parallel])
first = pair[0]
second: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pair[1]
again = pair[0]
y = pl.tile.add(first, second)
''')
    text = roundtrip(p)
    assert "pair: pl.Tuple[" in text and "pair[1]" in text


def test_custom_macro_sync_segments() -> None:
    p = program('''
y = pl.tile.custom_macro("macro", ins=[x_t], outs=[o1], tmps=[o2], iterator_types=[pl.parallel, pl.parallel],
                         sync_event_slots=[0, 1], sync_related_args=[n, n], pipe="PIPE_MTE2")
''')
    c = custom_call(p)
    assert c.op == "tile.custom_macro"
    assert c.kwarg("operand_segment_sizes") == (1, 1, 1, 2)
    assert ops.custom_segments(c)["sync_related_args"] == (c.args[3], c.args[4])
    assert c.kwarg("sync_event_slots") == (0, 1)
    text = roundtrip(p)
    assert "sync_event_slots=[0, 1], sync_related_args=[n, n]" in text


def test_builtin_without_symbol_roundtrips() -> None:
    p = program('y = pl.tile.custom(ins=[x_t], outs=[o1], builtin=True)')
    assert custom_call(p).kwarg("symbol") is None
    roundtrip(p)


@pytest.mark.parametrize("body, message", [
    (f'y = pl.tile.custom("k", ins=[x_t], outs=[o1], indexing_maps=[{ID}], '
     'iterator_types=[pl.parallel, pl.parallel])', "1 indexing maps given for 1 ins + 1 outs"),
    (f'y = pl.tile.custom("k", ins=[x_t], outs=[o1], indexing_maps=[{ID}, {ID}], '
     'iterator_types=[pl.parallel])', "has 2 dims but there are 1 iterator types"),
    ('y = pl.tile.custom("k", ins=[x_t], outs=[o1], indexing_maps=[pl.affine_map("(d0, d1) -> (d0)"), '
     f'{ID}], iterator_types=[pl.parallel, pl.parallel])', "has 1 results but its operand has rank 2"),
    ('y = pl.tile.custom(ins=[x_t], outs=[o1])', "needs a symbol"),
    ('y = pl.tile.custom_macro("m", ins=[x_t], outs=[o1], sync_event_slots=[0, 1], sync_related_args=[n])',
     "1 sync_related_args given for 2 sync_event_slots"),
    ('y = pl.tile.custom("k", ins=[x_t], outs=[])', "at least one output"),
])
def test_custom_op_verifier_errors_have_source_location(body: str, message: str) -> None:
    src = HEADER + "        " + body + "\n" + FOOTER
    with pytest.raises(TypeInferenceError) as info:
        pl.parse(src, "custom.py")
    err = info.value
    assert message in err.message
    assert err.span is not None and err.span.filename == "custom.py"
    assert err.span.line == HEADER.count("\n") + 1
    assert body[:20] in err.span.source_line
    assert "custom.py:" in str(err)


def test_bad_affine_map_and_segment_misuse() -> None:
    from tilefold.errors import ParseError

    src = HEADER + '        y = pl.tile.custom("k", ins=[x_t], outs=[o1], indexing_maps=[pl.affine_map("(d0) -> (d1)")])\n'
    with pytest.raises(ParseError, match="unknown identifier"):
        pl.parse(src + FOOTER)
    src = HEADER + '        y = pl.tile.custom("k", ins=x_t, outs=[o1])\n'
    with pytest.raises(ParseError, match="ins= must be a list"):
        pl.parse(src + FOOTER)
    src = HEADER + '        y = pl.tile.custom("k", ins=[x_t], outs=[o1], operand_segment_sizes=[1, 1, 0])\n'
    with pytest.raises(ParseError, match="computed from ins/outs/tmps"):
        pl.parse(src + FOOTER)
