"""Every example custom-op program runs with the library's reference kernels (what ``tilefold run FILE
--kernels examples`` registers): golden == simulator, with TileAndBindSubBlock on and off."""

from __future__ import annotations

from pathlib import Path

import pytest

import tilefold.language as pl
from tilefold.custom import get_custom_op
from tilefold.custom.library import EXAMPLE_KERNELS, register_example_kernels, unregister_example_kernels
from tilefold.ir.visitor import IRVisitor
from tilefold.ops.registry import OpKind, op_of
from tilefold.testing import run_and_compare

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(REPO.glob("examples/seeds/customop_*.py")) + sorted(REPO.glob("examples/subblock/*.py"))
# example programs of the sub-block suite that have no custom op (execution-model kernels)
CUSTOM_EXAMPLES = [p for p in EXAMPLES if "pl.tile.custom" in p.read_text()]


@pytest.fixture(autouse=True)
def _example_kernels():
    register_example_kernels()
    yield
    unregister_example_kernels()


def _symbols(program) -> set[str]:
    found: set[str] = set()

    class _V(IRVisitor):
        def visit_Call(self, expr) -> None:
            op = op_of(expr)
            if op is not None and op.kind is OpKind.CUSTOM and expr.kwarg("symbol"):
                found.add(expr.kwarg("symbol"))
            super().visit_Call(expr)

    _V().visit_program(program)
    return found


def _entries(program) -> list[str | None]:
    """The default entry, plus every kernel by name when the program has several (e.g. an Orchestration
    function that calls only one of them)."""
    kernels = [f.name for f in program.functions if f.func_type.is_incore]
    return [None] + (kernels if len(kernels) > 1 else [])


def test_examples_exist():
    assert len(CUSTOM_EXAMPLES) >= 9  # the six seed custom-op programs and the three sub-block examples


@pytest.mark.parametrize("path", CUSTOM_EXAMPLES, ids=lambda p: p.stem)
def test_every_example_symbol_has_a_reference_kernel(path):
    program = pl.parse_file(str(path))
    symbols = _symbols(program)
    assert symbols, f"{path.name} has no custom op"
    for symbol in symbols:
        assert symbol in EXAMPLE_KERNELS, f"{path.name}: no reference kernel for {symbol!r}"
        assert get_custom_op(symbol).kernel is EXAMPLE_KERNELS[symbol][0]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_program_matches_golden(path):
    program = pl.parse_file(str(path))
    for entry in _entries(program):
        for enabled in (False, True):
            report = run_and_compare(program, "random", entry=entry,
                                     options={"enable_auto_bind_sub_block": enabled})
            assert report.fault is None and report.matches, (path.name, entry, enabled, report.summary())


def test_unregister_removes_the_library_kernels():
    unregister_example_kernels()
    from tilefold.errors import TilefoldError

    with pytest.raises(TilefoldError):
        get_custom_op("identity_kernel")
    register_example_kernels()
    assert get_custom_op("identity_kernel").kernel is EXAMPLE_KERNELS["identity_kernel"][0]
