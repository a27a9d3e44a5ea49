"""Shared helpers of the CanonicalizeTileSlice tests (module name kept unique for pytest's rootdir imports)."""

from __future__ import annotations

import textwrap

import tilefold.language as pl
from tilefold import ir, passes
from tilefold.ir.stmt import AssignStmt, EvalStmt, ForStmt, IfStmt, SeqStmts, WhileStmt


def parse(text: str) -> ir.Program:
    return pl.parse(textwrap.dedent(text))


def kernel(params: str, body: str, *, ftype: str = "InCore", ret: str | None = None, name: str = "P") -> ir.Program:
    """A one-function program: ``def kernel(self, <params>)`` with ``body`` (dedented) as its body."""
    arrow = f" -> {ret}" if ret else ""
    text = (
        "import tilefold.language as pl\n\n"
        "@pl.program\n"
        f"class {name}:\n"
        f"    @pl.function(type=pl.FunctionType.{ftype})\n"
        f"    def kernel(self, {params}){arrow}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
        + "\n"
    )
    return pl.parse(text)


def run(program: ir.Program) -> ir.Program:
    """The public API, exactly as the contract spells it, under the verifier and the print/parse round trip
    (the output must satisfy the produced properties and print as ``pl`` text that parses back)."""
    from tilefold.passes.pass_manager import PassContext, VerificationInstrument
    from tilefold.testing.round_trip import RoundTripInstrument

    with PassContext([VerificationInstrument(), RoundTripInstrument()]):
        return passes.canonicalize_tile_slice()(program)


def run_with_remarks(program: ir.Program):
    from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice_with_remarks

    return canonicalize_tile_slice_with_remarks(program)


def check(before: ir.Program, expected: ir.Program) -> ir.Program:
    after = run(before)
    ir.assert_structural_equal(after, expected)
    return after


def all_stmts(fn_or_body) -> list:
    """Every statement of a function body, nested bodies included, in program order."""
    body = fn_or_body.body if hasattr(fn_or_body, "func_type") else fn_or_body
    out: list = []
    stack = [body]
    while stack:
        s = stack.pop()
        if isinstance(s, SeqStmts):
            stack.extend(reversed(s.stmts))
            continue
        out.append(s)
        if isinstance(s, ForStmt | WhileStmt):
            stack.append(s.body)
        elif isinstance(s, IfStmt):
            if s.else_body is not None:
                stack.append(s.else_body)
            stack.append(s.then_body)
    return out


def calls(program: ir.Program, op_name: str) -> list:
    out = []
    for fn in program.functions:
        for s in all_stmts(fn):
            value = s.value if isinstance(s, AssignStmt) else s.expr if isinstance(s, EvalStmt) else None
            if isinstance(value, ir.Call) and value.op_name == op_name:
                out.append(value)
    return out
