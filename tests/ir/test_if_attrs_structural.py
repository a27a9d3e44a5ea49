"""IfStmt attrs (e.g. the ``limit_sub_block_id0`` tag of a sub-block-0 guard) take part in structural
equality and hashing, as mappings: a missing, extra or different tag is a difference; their order is not."""

from __future__ import annotations

import pytest

from tilefold import ir
from tilefold.ir import (
    ConstInt,
    DataType,
    Eq,
    Function,
    FunctionType,
    IfStmt,
    Program,
    ReturnStmt,
    ScalarType,
    SeqStmts,
    Var,
    YieldStmt,
)

IDX = ScalarType(DataType.INDEX)


def _program(attrs: tuple) -> Program:
    """``def f(n): if n == 0 [attrs]: r = 1 else: r = 2; return r`` -- fresh nodes on every call."""
    n = Var("n", IDX)
    r = Var("r", IDX)
    cond = Eq(n, ConstInt(0), DataType.INDEX)
    if_stmt = IfStmt(cond, SeqStmts((YieldStmt((ConstInt(1),)),)), SeqStmts((YieldStmt((ConstInt(2),)),)),
                     (r,), attrs=attrs)
    body = SeqStmts((if_stmt, ReturnStmt((r,))))
    fn = Function("f", (n,), (ir.ParamDirection.In,), (IDX,), body, FunctionType.InCore)
    return Program("P", (fn,))


TAG = (("limit_sub_block_id0", True),)


def test_equal_tags_are_equal_and_hash_equal() -> None:
    a, b = _program(TAG), _program(TAG)
    ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) == ir.structural_hash(b)


def test_missing_tag_is_a_difference() -> None:
    a, b = _program(TAG), _program(())
    assert not ir.structural_equal(a, b)
    assert not ir.structural_equal(b, a)
    with pytest.raises(ValueError, match=r"attrs\['limit_sub_block_id0'\].*missing on the rhs"):
        ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) != ir.structural_hash(b)


def test_different_tag_value_is_a_difference() -> None:
    a, b = _program(TAG), _program((("limit_sub_block_id0", False),))
    with pytest.raises(ValueError, match="values differ: True vs False"):
        ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) != ir.structural_hash(b)


def test_tag_order_does_not_matter() -> None:
    a = _program((("x", 1), ("y", "z")))
    b = _program((("y", "z"), ("x", 1)))
    ir.assert_structural_equal(a, b)
    assert ir.structural_hash(a) == ir.structural_hash(b)


def test_statement_level_comparison_and_hash() -> None:
    s1 = _program(TAG).functions[0].body.stmts[0]
    s2 = _program(()).functions[0].body.stmts[0]
    assert isinstance(s1, IfStmt) and isinstance(s2, IfStmt)
    assert not ir.structural_equal(s1, s2, enable_auto_mapping=True)
    assert ir.structural_equal(s1, s1.with_fields(attrs=TAG), enable_auto_mapping=True)
    assert ir.structural_hash(s1) != ir.structural_hash(s2)


def test_tagged_if_prints_its_tag_in_the_mismatch_dump() -> None:
    from tilefold.ir.structural import dump_ir

    assert "limit_sub_block_id0=True" in dump_ir(_program(TAG))
    assert "limit_sub_block_id0" not in dump_ir(_program(()))
