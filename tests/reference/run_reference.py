"""Running one reference case: the golden interpreter (the registry's golden semantics) and the compiled program on
the simulator, each compared with the reference outputs (``ref_values.mismatches``)."""

from __future__ import annotations

import numpy as np
from op_reference import Case
from ref_values import mismatches

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.golden import run_program
from tilefold.ir.visitor import IRVisitor
from tilefold.sim import simulate


class _Ops(IRVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, expr) -> None:
        if isinstance(expr.op, str):
            self.names.add(expr.op)
        super().visit_Call(expr)


def ops_in(program) -> set[str]:
    v = _Ops()
    v.visit_program(program)
    return v.names


def register_kernels(case: Case) -> None:
    from tilefold.custom import register_custom_op

    for symbol, fn in case.custom_kernels.items():
        register_custom_op(symbol, fn, replace=True)


def _inputs(case: Case) -> dict[str, np.ndarray]:
    full = {k: np.array(v, copy=True) for k, v in case.inputs.items()}
    for name, want in case.expected.items():
        full.setdefault(name, np.zeros(want.shape, want.dtype))
    return full


def parse(case: Case):
    return pl.parse(case.source, f"<reference {case.label}>")


def golden_problems(case: Case, program=None) -> list[str]:
    program = program or parse(case)
    register_kernels(case)
    got = run_program(program, _inputs(case), block_dim=case.block_dim)
    return _check(case, got, "golden")


def simulator_problems(case: Case, program=None, target: str | None = None) -> list[str]:
    program = program or parse(case)
    register_kernels(case)
    compiled = compile(program, target=target or case.target)
    sim = simulate(compiled.pto, _inputs(case), compiled.target, block_dim=case.block_dim)
    return _check(case, sim.outputs, f"simulator ({compiled.target.name})")


def _check(case: Case, got: dict[str, np.ndarray], who: str) -> list[str]:
    problems = []
    for name, want in case.expected.items():
        if name not in got:
            problems.append(f"{who}: no output {name!r}")
            continue
        problems += [f"{who} {name} {m}" for m in mismatches(np.asarray(got[name]), want, case.tol)]
    return problems
