"""Parsing never outlines: ``JITFunction.parse``, ``parse_jit_text`` and ``pl.parse`` give the same program, the
one the jit source spells (``pl.at`` scopes still in place); outlining is the pipeline's first pass on it."""

from __future__ import annotations

from pathlib import Path

import jit_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.compiler import compile
from tilefold.ir.stmt import FunctionType, ScopeStmt, flatten_stmts
from tilefold.passes.pipeline import pipeline_for
from tilefold.passes.tensor_lowering.outline_incore_scopes import has_scopes
from tilefold.runtime.jit import parse_jit_text

SOURCE = Path(k.__file__).read_text()

# kernel name -> argument shapes (None: fully annotated, no arguments needed)
CASES = {
    "add_tensor": None,
    "chain": {"a": (32, 128), "b": (32, 128), "out": (32, 128)},
    "with_inline": {"a": (32, 128), "out": (32, 128)},
    "with_incore": {"a": (16, 64), "b": (16, 64), "out": (16, 64)},
}


def _both(name: str) -> tuple[ir.Program, ir.Program]:
    fn = getattr(k, name)
    shapes = CASES[name]
    args = [np.zeros(s, np.float32) for s in shapes.values()] if shapes else []
    via_function = fn.parse(*args)
    types = dict(zip(shapes, fn.signature_of(args), strict=True)) if shapes else None
    via_text = parse_jit_text(SOURCE, k.__file__, name, types)
    return via_function, via_text


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_function_parse_and_parse_jit_text_agree(name):
    via_function, via_text = _both(name)
    ir.assert_structural_equal(via_text, via_function)
    assert [f.name for f in via_text.functions] == [f.name for f in via_function.functions]


@pytest.mark.parametrize("name", ["add_tensor", "chain", "with_inline"])
def test_parsing_leaves_the_scopes_in_place(name):
    via_function, via_text = _both(name)
    for program in (via_function, via_text):
        assert has_scopes(program)
        assert not any(f.func_type is FunctionType.InCore for f in program.functions)  # nothing outlined
        entry = program.function(name)
        assert sum(isinstance(s, ScopeStmt) for s in flatten_stmts(entry.body)) == 1


def test_pl_parse_of_jit_text_is_the_same_program():
    ir.assert_structural_equal(pl.parse(SOURCE, k.__file__, program_name="add_tensor"), k.add_tensor.parse())


def test_the_pipeline_outlines_and_both_compile_alike():
    via_function, via_text = _both("add_tensor")
    names = [p.name for p in pipeline_for(via_text, "Ascend910B")]
    assert names[:4] == ["OutlineHierarchyScopes", "OutlineIncoreScopes", "InlineOrchestrationCalls",
                         "ConvertTensorToTileOps"]
    a, b = compile(via_function), compile(via_text)
    assert a.passes == b.passes and a.passes[:2] == ("OutlineHierarchyScopes", "OutlineIncoreScopes")
    assert a.pto.text() == b.pto.text()
    assert any(f.func_type is not FunctionType.Orchestration for f in a.ir.functions)
    assert not has_scopes(a.ir)
