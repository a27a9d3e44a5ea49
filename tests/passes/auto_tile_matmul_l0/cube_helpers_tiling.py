"""Helpers of the AutoTileMatmulL0 tests (module name unique for pytest rootdir imports)."""

from __future__ import annotations

import textwrap

import numpy as np

import tilefold.language as pl
from tilefold import ir


def kernel(params: str, body: str, *, ret: str | None = None, name: str = "P") -> ir.Program:
    arrow = f" -> {ret}" if ret else ""
    text = (
        "import tilefold.language as pl\n\n"
        "@pl.program\n"
        f"class {name}:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel(self, {params}){arrow}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
        + "\n"
    )
    return pl.parse(text)


def random_inputs(program: ir.Program, seed: int = 0) -> dict[str, np.ndarray]:
    """Random small-integer inputs (exact in every dtype) for every tensor parameter of the kernel."""
    rng = np.random.default_rng(seed)
    fn = program.functions[0]
    out = {}
    for p in fn.params:
        t = p.type
        if isinstance(t, ir.TensorType):
            shape = t.static_shape
            out[p.name] = rng.integers(-3, 4, size=shape).astype(t.dtype.np_dtype)
    return out


def golden_outputs(program: ir.Program, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from tilefold.golden import run_program

    return run_program(program, {k: v.copy() for k, v in inputs.items()})


def assert_same_golden(before: ir.Program, after: ir.Program, seed: int = 0) -> None:
    inputs = random_inputs(before, seed)
    a = golden_outputs(before, inputs)
    b = golden_outputs(after, inputs)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k], dtype=np.float64), np.asarray(b[k], dtype=np.float64))
