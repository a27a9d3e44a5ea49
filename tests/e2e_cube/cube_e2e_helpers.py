"""Helpers of the cube E2E tests (module name unique for pytest rootdir imports)."""

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


def matmul_kernel(m: int, k: int, n: int, dt: str = "FP16", acc: str = "FP32") -> ir.Program:
    """out = a @ b with both operands loaded whole into L1."""
    return kernel(
        f"a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}], "
        f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.{acc}]]", f"""
        ta: pl.Tile[[{m}, {k}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[{k}, {n}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.{acc}, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)


def batch_matmul_kernel(b: int, m: int, k: int, n: int, dt: str = "BF16", rhs_batch: int | None = None) -> ir.Program:
    """out[i] = a[i] @ w[i] (w broadcast when rhs_batch == 1)."""
    rb = b if rhs_batch is None else rhs_batch
    return kernel(
        f"a: pl.Tensor[[{b}, {m}, {k}], pl.{dt}], w: pl.Tensor[[{rb}, {k}, {n}], pl.{dt}], "
        f"out: pl.Out[pl.Tensor[[{b}, {m}, {n}], pl.FP32]]", f"""
        ta: pl.Tile[[{b}, {m}, {k}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(a, [0, 0, 0], [{b}, {m}, {k}], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[{rb}, {k}, {n}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(w, [0, 0, 0], [{rb}, {k}, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{b}, {m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(ta, tb)
        out = pl.store(c, [0, 0, 0], out)
        return out
    """)


def mat_slices(program: ir.Program) -> list:
    """Every tile.slice whose result lives in Mat, anywhere in the program."""
    from tilefold.ir.stmt import AssignStmt, ForStmt, IfStmt, WhileStmt, flatten_stmts

    found = []

    def walk(body):
        for s in flatten_stmts(body):
            if isinstance(s, AssignStmt) and isinstance(s.value, ir.Call) and s.value.op_name == "tile.slice" \
                    and s.value.type.memory_space is ir.MemorySpace.Mat:
                found.append(s)
            elif isinstance(s, (ForStmt, WhileStmt)):
                walk(s.body)
            elif isinstance(s, IfStmt):
                walk(s.then_body)
                if s.else_body is not None:
                    walk(s.else_body)

    for fn in program.functions:
        walk(fn.body)
    return found
