"""Helpers shared by the sub-block tests."""

from __future__ import annotations

from tilefold import ir
from tilefold.ir import IfStmt, Program
from tilefold.ir.visitor import IRMutator, IRVisitor
from tilefold.passes.remarks import collect_remarks
from tilefold.passes.tile_and_bind_sub_block import LIMIT_TAG, REVERTED, tile_and_bind_sub_block

MAP_ID = 'pl.affine_map("(d0, d1) -> (d0, d1)")'


def run_pass(program: Program, **options) -> tuple[Program, list]:
    with collect_remarks() as remarks:
        out = tile_and_bind_sub_block(**options).run(program)
    return out, list(remarks)


class _Tagger(IRMutator):
    def mutate_IfStmt(self, stmt: IfStmt):
        new = super().mutate_IfStmt(stmt)
        return new.with_fields(attrs=((LIMIT_TAG, True),))


def tag_guards(program: Program) -> Program:
    """The DSL has no syntax for IfStmt tags: tag every if of an Expected rollback program."""
    return _Tagger().mutate_program(program)


def guards(program: Program) -> list[IfStmt]:
    found: list[IfStmt] = []

    class _V(IRVisitor):
        def visit_IfStmt(self, stmt: IfStmt) -> None:
            found.append(stmt)
            super().visit_IfStmt(stmt)

    _V().visit_program(program)
    return found


def without_reason(program: Program) -> Program:
    """Replace the reverted-reason strings by a fixed value so Expected programs need not spell them."""
    fns = []
    for fn in program.functions:
        if fn.attr(REVERTED) is not None:
            fn = fn.with_attr(REVERTED, "*")
        fns.append(fn)
    return program.with_fields(functions=tuple(fns))


def assert_rollback(after: Program, expected: Program, function: str, check: str) -> None:
    """``after`` is ``expected`` (with tagged guards), the function is marked reverted for ``check``."""
    fn = after.function(function)
    reason = fn.attr(REVERTED)
    assert reason is not None, "function was not reverted"
    assert check in reason, f"reverted for {reason!r}, expected the {check!r} check"
    assert after.attr(REVERTED) is True
    for g in guards(Program(after.name, (fn,))):
        assert g.attr(LIMIT_TAG) is True
    ir.assert_structural_equal(without_reason(after), without_reason(tag_guards(expected)))


# (program, "split" | "rollback", baseline cycles, cycles with the pass on), filled by the E2E tests and
# printed at the end of the session by conftest.pytest_terminal_summary
CYCLE_RATIOS: list[tuple[str, str, float, float]] = []


def record_cycles(name: str, kind: str, base, tiled) -> None:
    """Record (and print, visible with ``pytest -s``) the split / baseline cycle ratio of one program."""
    CYCLE_RATIOS.append((name, kind, float(base.cycles), float(tiled.cycles)))
    print(f"\n{name} ({kind}): baseline {base.cycles:.0f} cycles, pass on {tiled.cycles:.0f} cycles, "
          f"ratio {tiled.cycles / base.cycles:.3f}")


TARGETS = ("Ascend910B", "Ascend950")


def e2e_on_off(program: Program, *, split: bool, name: str, targets=TARGETS, entry=None) -> None:
    """Pass on vs pass off vs golden on every target; ``split`` says whether the pass must really split
    (the IR evidence of ``sub_block_evidence``) or roll back."""
    from tilefold.testing import run_and_compare
    from tilefold.testing.sub_block_evidence import sub_block_evidence

    for target in targets:
        base = run_and_compare(program, "random", target=target, entry=entry,
                               options={"enable_auto_bind_sub_block": False})
        tiled = run_and_compare(program, "random", target=target, entry=entry)
        assert base.result == "correct", f"{target} pass off: {base.summary()}"
        assert tiled.result == "correct", f"{target} pass on: {tiled.summary()}"
        ev = sub_block_evidence(tiled.compiled.ir)
        assert ev.split == split, (target, ev.problems)
        if target == targets[0]:
            record_cycles(name, "split" if split else "rollback", base, tiled)
