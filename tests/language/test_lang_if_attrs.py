"""IfStmt attrs in the DSL: ``if pl.cond(cond, attrs={...}):`` parses, prints and round-trips, and the
sub-block-0 guards that TileAndBindSubBlock's rollback inserts keep their ``limit_sub_block_id0`` tag
through print -> parse (so ``sub_block_evidence`` can rely on the tag)."""

from __future__ import annotations

import pytest
from lang_helpers import parse_error, roundtrip

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import ParseError
from tilefold.ir import Eq, IfStmt, Lt, Program
from tilefold.ir.visitor import IRVisitor
from tilefold.passes import PassContext
from tilefold.passes.tile_and_bind_sub_block import LIMIT_TAG, REVERTED, tile_and_bind_sub_block
from tilefold.testing.round_trip import RoundTripInstrument
from tilefold.testing.sub_block_evidence import sub_block_evidence

HEADER = "import tilefold.language as pl\n\n"


def _kernel(body: str) -> str:
    lines = "\n".join("        " + ln if ln.strip() else "" for ln in body.strip("\n").splitlines())
    return (HEADER + "@pl.program\nclass P:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
            " -> pl.Tensor[[16, 64], pl.FP32]:\n" + lines + "\n")


def _ifs(program: Program) -> list[IfStmt]:
    found: list[IfStmt] = []

    class _V(IRVisitor):
        def visit_IfStmt(self, stmt: IfStmt) -> None:
            found.append(stmt)
            super().visit_IfStmt(stmt)

    _V().visit_program(program)
    return found


TAGGED = _kernel('''
sb = pl.tile.get_subblock_idx()
t = pl.tile.load(x, [0, 0], [16, 64])
if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2}):
    o = pl.store(t, [0, 0], out)
    r = pl.yield_(o)
else:
    r = pl.yield_(out)
return r
''')


def test_tagged_if_parses_to_if_attrs() -> None:
    program = pl.parse(TAGGED)
    (g,) = _ifs(program)
    assert g.attrs == (("limit_sub_block_id0", True), ("note", "guard"), ("n", 2))
    assert g.attr(LIMIT_TAG) is True
    assert isinstance(g.condition, Eq)  # pl.cond(...) is only the carrier, the condition is unchanged
    assert len(g.return_vars) == 1 and g.else_body is not None


def test_tagged_if_prints_and_round_trips() -> None:
    program = pl.parse(TAGGED)
    text = roundtrip(program)
    assert 'if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2}):' in text
    again = pl.parse(text)
    assert _ifs(again)[0].attrs == _ifs(program)[0].attrs


def test_untagged_if_prints_plainly_and_differs_from_the_tagged_one() -> None:
    plain = pl.parse(TAGGED.replace('pl.cond(sb == 0, attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2})',
                                    "sb == 0"))
    assert _ifs(plain)[0].attrs == ()
    text = roundtrip(plain)
    assert "if sb == 0:" in text and "pl.cond" not in text
    assert not ir.structural_equal(plain, pl.parse(TAGGED))
    assert ir.structural_hash(plain) != ir.structural_hash(pl.parse(TAGGED))


def test_cond_without_attrs_is_a_plain_if() -> None:
    a = pl.parse(TAGGED.replace(', attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2}', ""))
    b = pl.parse(TAGGED.replace('pl.cond(sb == 0, attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2})',
                                "sb == 0"))
    ir.assert_structural_equal(a, b)


def test_tagged_elif_and_if_without_results() -> None:
    src = _kernel('''
sb = pl.tile.get_subblock_idx()
t = pl.tile.load(x, [0, 0], [16, 64])
if sb == 1:
    pl.tile.adds(t, 1.0)
elif pl.cond(sb < 1, attrs={"tag": "second"}):
    pl.tile.adds(t, 2.0)
out = pl.store(t, [0, 0], out)
return out
''')
    program = pl.parse(src)
    outer, inner = _ifs(program)
    assert outer.attrs == () and inner.attrs == (("tag", "second"),)
    assert isinstance(inner.condition, Lt)
    text = roundtrip(program)
    assert 'if pl.cond(sb < 1, attrs={"tag": "second"}):' in text


@pytest.mark.parametrize("cond, message", [
    ("pl.cond(sb == 0, sb == 1)", "pl.cond takes exactly one condition"),
    ("pl.cond(sb == 0, tags={'a': 1})", "unknown keyword 'tags' for pl.cond"),
    ("pl.cond(sb == 0, attrs=[1])", "attrs= must be a dict literal"),
    ("pl.cond(sb == 0, attrs={1: True})", "attribute names must be strings"),
    ("pl.cond(sb == 0, attrs={'a': t})", "expected a compile-time constant"),
])
def test_bad_tagged_if_is_a_located_parse_error(cond: str, message: str) -> None:
    src = TAGGED.replace('pl.cond(sb == 0, attrs={"limit_sub_block_id0": True, "note": "guard", "n": 2})', cond)
    err = parse_error(src, ParseError)
    assert message in err.message
    assert err.span is not None and err.span.filename == "kernel.py"
    assert "if pl.cond(" in err.span.source_line
    assert err.hint


def test_cond_as_a_value_outside_if_and_while_is_an_error() -> None:
    err = parse_error(_kernel('''
sb = pl.tile.get_subblock_idx()
c = pl.cond(sb == 0)
return out
'''), ParseError)
    assert "pl.cond" in err.message and "if" in err.message
    assert "c = pl.cond" in err.span.source_line


# ------------------------------------------------------------------------------------------------
# TileAndBindSubBlock rollback: the guards' tag survives print -> parse
# ------------------------------------------------------------------------------------------------

ROLLBACK = HEADER + '''
@pl.program
class SideEffects:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = pl.tile.custom("user.logger", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=False)
        out = pl.store(y, [0, 0], out)
        return out
'''


def test_rollback_guards_round_trip_with_their_tag() -> None:
    after = tile_and_bind_sub_block()(pl.parse(ROLLBACK))
    assert after.attr(REVERTED) is True  # a custom op with side effects is not split: rolled back
    guards = _ifs(after)
    assert len(guards) == 2 and all(g.attr(LIMIT_TAG) is True for g in guards)
    text = roundtrip(after)
    assert text.count('attrs={"limit_sub_block_id0": True}):') == 2
    again = pl.parse(text)
    assert [g.attrs for g in _ifs(again)] == [g.attrs for g in guards]
    assert ir.structural_hash(again) == ir.structural_hash(after)
    # the pass manager's round-trip instrument accepts the rolled-back program
    with PassContext([RoundTripInstrument()]):
        tile_and_bind_sub_block()(pl.parse(ROLLBACK))


def test_dropping_the_tag_is_a_structural_difference() -> None:
    after = tile_and_bind_sub_block()(pl.parse(ROLLBACK))
    untagged = pl.parse(ir.python_print(after).replace(
        'pl.cond(subblock_idx == 0, attrs={"limit_sub_block_id0": True})', "subblock_idx == 0"))
    assert all(g.attrs == () for g in _ifs(untagged))
    with pytest.raises(ValueError, match="limit_sub_block_id0"):
        ir.assert_structural_equal(after, untagged)


# ------------------------------------------------------------------------------------------------
# sub_block_evidence recognises guards by the tag, not by the condition
# ------------------------------------------------------------------------------------------------

SPLIT = HEADER + '''
@pl.program
class Split:
    @pl.function(type=pl.FunctionType.AIV, attrs={"sub_block_axis": 0})
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [sb * 8, 0], [8, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        if GUARD:
            o: pl.Tensor[[16, 64], pl.FP32] = pl.store(y, [0 + sb * 8, 0], out, tiled_op=True)
            r: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(o)
        else:
            r = pl.yield_(out)
        return r
'''


def test_evidence_flags_tiled_work_under_a_tagged_guard() -> None:
    program = pl.parse(SPLIT.replace("GUARD", 'pl.cond(sb == 0, attrs={"limit_sub_block_id0": True})'))
    ev = sub_block_evidence(program)
    assert not ev.no_guarded_tiled_work and not ev.split
    assert any("under a sub-block-0 guard" in p for p in ev.problems)


def test_evidence_follows_the_tag_whatever_the_condition() -> None:
    program = pl.parse(SPLIT.replace("GUARD", 'pl.cond(sb < 1, attrs={"limit_sub_block_id0": True})'))
    assert not sub_block_evidence(program).no_guarded_tiled_work


def test_evidence_does_not_treat_an_untagged_sb_test_as_a_guard() -> None:
    program = pl.parse(SPLIT.replace("GUARD", "sb == 0"))
    ev = sub_block_evidence(program)
    assert ev.no_guarded_tiled_work, ev.problems
