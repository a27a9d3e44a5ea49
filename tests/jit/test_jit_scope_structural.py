"""The jit form's ``pl.at`` scopes (ScopeStmt) take part in structural equality, hashing and printing."""

from __future__ import annotations

from tilefold import ir
from tilefold.ir.expr import ConstInt, Var
from tilefold.ir.stmt import AssignStmt, ScopeStmt, SeqStmts
from tilefold.ir.structural import dump_ir
from tilefold.ir.types import DataType, ScalarType


def _scope(name: str = "first", level: str = "CORE_GROUP", value: int = 1) -> ScopeStmt:
    x = Var("x", ScalarType(DataType.INDEX))
    return ScopeStmt(level, SeqStmts((AssignStmt(x, ConstInt(value)),)), attrs=(("name_hint", name),))


def test_equal_scopes_are_equal_and_hash_alike():
    ir.assert_structural_equal(_scope(), _scope(), enable_auto_mapping=True)
    assert ir.structural_hash(_scope()) == ir.structural_hash(_scope())


def test_level_options_and_body_take_part():
    base = _scope()
    for other in (_scope(name="second"), _scope(level="AIV"), _scope(value=2)):
        assert not ir.structural_equal(base, other, enable_auto_mapping=True)
        assert ir.structural_hash(base) != ir.structural_hash(other)


def test_the_dumped_scope_shows_level_and_options():
    text = dump_ir(_scope())
    assert "with pl.at(level=pl.Level.CORE_GROUP, name_hint=" in text and "first" in text
