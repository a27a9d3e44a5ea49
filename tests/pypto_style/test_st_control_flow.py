"""Control flow in PyPTO's program form: orchestration loops dispatching a kernel per tile with scalar offsets,
InCore loops carrying values by rebinding and by ``init_values`` / ``pl.yield_``, ``if`` / ``else`` with yields,
``pl.while_`` with ``pl.cond``, ``pl.unroll`` / ``pl.parallel`` / ``pl.pipeline``, and values used after a loop."""

from __future__ import annotations

import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, PL, rand, run_case

import tilefold.language as pl


def get_tiled_add_program(rows: int, cols: int, tile_rows: int, dtype: str):
    dt = PL[dtype]
    n_tiles = rows // tile_rows

    @pl.program
    class TiledAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def add_tile(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt], row: pl.Scalar[pl.INDEX],
                     c: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            ta = pl.load(a, [row, 0], [tile_rows, cols])
            tb = pl.load(b, [row, 0], [tile_rows, cols])
            c = pl.store(pl.add(ta, tb), [row, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[rows, cols], dt], b: pl.Tensor[[rows, cols], dt],
                         c: pl.Out[pl.Tensor[[rows, cols], dt]]) -> pl.Tensor[[rows, cols], dt]:
            for i in pl.range(n_tiles):
                c = self.add_tile(a, b, i * tile_rows, c)
            return c

    return TiledAdd


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("rows,tile_rows", [(128, 32), (64, 16)])
def test_orchestration_loop_with_scalar_offsets(dtype, rows, tile_rows):
    a, b = rand((rows, 64), dtype, 1), rand((rows, 64), dtype, 2)
    run_case(get_tiled_add_program(rows, 64, tile_rows, dtype), {"a": a, "b": b},
             {"c": np.zeros((rows, 64), NP[dtype])}, lambda x: {"c": x["a"] + x["b"]}, dtype)


def get_incore_loop_program(kind: str, rows: int, cols: int, tile_rows: int):
    n = rows // tile_rows
    loops = {"range": "pl.range({n})", "unroll": "pl.unroll({n})", "parallel": "pl.parallel({n})",
             "pipeline": "pl.pipeline({n}, stage=2)", "range_step": "pl.range(0, {rows}, {tr})"}
    loop = loops[kind].format(n=n, rows=rows, tr=tile_rows)
    row = "i" if kind == "range_step" else f"i * {tile_rows}"
    return pl.parse(f"""
import tilefold.language as pl

@pl.program
class Loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{rows}, {cols}], pl.FP32],
               c: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]) -> pl.Tensor[[{rows}, {cols}], pl.FP32]:
        for i in {loop}:
            t = pl.load(a, [{row}, 0], [{tile_rows}, {cols}])
            c = pl.store(pl.mul(pl.exp(t), 2.0), [{row}, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[{rows}, {cols}], pl.FP32],
                     c: pl.Out[pl.Tensor[[{rows}, {cols}], pl.FP32]]) -> pl.Tensor[[{rows}, {cols}], pl.FP32]:
        c = self.kernel(a, c)
        return c
""")


@pytest.mark.parametrize("kind", ["range", "unroll", "parallel", "pipeline", "range_step"])
def test_incore_loop_forms(kind):
    a = rand((128, 64), "fp32", 3)
    run_case(get_incore_loop_program(kind, 128, 64, 32), {"a": a}, {"c": np.zeros((128, 64), np.float32)},
             lambda x: {"c": 2.0 * np.exp(x["a"])}, "fp32")


ACCUMULATE = """
import tilefold.language as pl

@pl.program
class Acc:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 64], pl.FP32],
               c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
{body}
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[128, 64], pl.FP32],
                     c: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        c = self.kernel(a, c)
        return c
"""

ACC_BODIES = {
    "rebind": """
acc = pl.load(a, [0, 0], [32, 64])
for i in pl.range(1, 4):
    acc = pl.add(acc, pl.load(a, [i * 32, 0], [32, 64]))
""",
    "init_values": """
acc0 = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for i, (s,) in pl.range(4, init_values=(acc0,)):
    t = pl.load(a, [i * 32, 0], [32, 64])
    acc = pl.yield_(pl.add(s, t))
""",
    "if_else_yield": """
acc0 = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for i, (prev,) in pl.range(4, init_values=(acc0,)):
    t = pl.load(a, [i * 32, 0], [32, 64])
    if i == 0:
        r = pl.yield_(t)
    else:
        r = pl.yield_(pl.add(prev, t))
    acc = pl.yield_(r)
""",
    "if_rebind": """
acc = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for i in pl.range(4):
    t = pl.load(a, [i * 32, 0], [32, 64])
    if i < 2:
        acc = pl.add(acc, t)
    else:
        acc = pl.sub(acc, t)
""",
    "continue": """
acc = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for i in pl.range(4):
    if i == 1:
        continue
    acc = pl.add(acc, pl.load(a, [i * 32, 0], [32, 64]))
""",
    "while": """
acc0 = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for (j, s) in pl.while_(init_values=(0, acc0)):
    pl.cond(j < 4)
    t = pl.load(a, [j * 32, 0], [32, 64])
    j2, s2 = pl.yield_(j + 1, pl.add(s, t))
acc = s2
""",
    "nested": """
acc = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)
for i in pl.range(2):
    for j in pl.range(2):
        acc = pl.add(acc, pl.load(a, [(i * 2 + j) * 32, 0], [32, 64]))
""",
}

ACC_REF = {
    "rebind": lambda a: a.reshape(4, 32, 64).sum(0),
    "init_values": lambda a: a.reshape(4, 32, 64).sum(0),
    "if_else_yield": lambda a: a.reshape(4, 32, 64).sum(0),
    "if_rebind": lambda a: a[:64].reshape(2, 32, 64).sum(0) - a[64:].reshape(2, 32, 64).sum(0),
    "continue": lambda a: a.reshape(4, 32, 64)[[0, 2, 3]].sum(0),
    "while": lambda a: a.reshape(4, 32, 64).sum(0),
    "nested": lambda a: a.reshape(4, 32, 64).sum(0),
}


@pytest.mark.parametrize("form", list(ACC_BODIES))
def test_carried_values(form):
    body = "\n".join("        " + ln for ln in ACC_BODIES[form].strip().splitlines())
    program = pl.parse(ACCUMULATE.format(body=body))
    a = rand((128, 64), "fp32", 4)
    run_case(program, {"a": a}, {"c": np.zeros((32, 64), np.float32)}, lambda x: {"c": ACC_REF[form](x["a"])},
             "fp32", terms=4)


def get_scalar_param_program(dtype: str):
    dt = PL[dtype]

    @pl.program
    class ScaleShift:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[32, 64], dt], scale: pl.Scalar[pl.FP32],
                   out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            t = pl.cast(pl.load(x, [0, 0], [32, 64]), target_type=pl.FP32)
            out = pl.store(pl.add(pl.mul(t, scale), 1.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, x: pl.Tensor[[32, 64], dt],
                         out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
            out = self.kernel(x, 2.5, out)
            return out

    return ScaleShift


@pytest.mark.parametrize("dtype", FLOATS)
def test_scalar_parameter_from_orchestration(dtype):
    x = rand((32, 64), dtype, 5)
    run_case(get_scalar_param_program(dtype), {"x": x}, {"out": np.zeros((32, 64), np.float32)},
             lambda v: {"out": v["x"] * 2.5 + 1.0}, "fp32")


def get_two_stage_program(m: int, n: int):
    @pl.program
    class TwoStage:
        @pl.function(type=pl.FunctionType.InCore)
        def square(self, a: pl.Tensor[[m, n], pl.FP32],
                   out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            t = pl.load(a, [0, 0], [m, n])
            return pl.store(pl.mul(t, t), [0, 0], out)

        @pl.function(type=pl.FunctionType.InCore)
        def add_one(self, a: pl.Tensor[[m, n], pl.FP32],
                    out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            t = pl.load(a, [0, 0], [m, n])
            return pl.store(pl.add(t, 1.0), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], pl.FP32],
                         out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            mid = pl.create_tensor([m, n], dtype=pl.FP32)
            mid = self.square(a, mid)
            out = self.add_one(mid, out)
            return out

    return TwoStage


def test_intermediate_tensor_between_kernels():
    a = rand((32, 64), "fp32", 6)
    run_case(get_two_stage_program(32, 64), {"a": a}, {"out": np.zeros((32, 64), np.float32)},
             lambda x: {"out": x["a"] ** 2 + 1.0}, "fp32")


def get_tuple_return_program(m: int, n: int):
    @pl.program
    class TupleReturn:
        @pl.function(type=pl.FunctionType.InCore)
        def both(self, a: pl.Tensor[[m, n], pl.FP32], x: pl.Out[pl.Tensor[[m, n], pl.FP32]],
                 y: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> tuple[pl.Tensor[[m, n], pl.FP32],
                                                                  pl.Tensor[[m, n], pl.FP32]]:
            t = pl.load(a, [0, 0], [m, n])
            x = pl.store(pl.add(t, t), [0, 0], x)
            y = pl.store(pl.mul(t, t), [0, 0], y)
            return x, y

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[m, n], pl.FP32], x: pl.Out[pl.Tensor[[m, n], pl.FP32]],
                         y: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> tuple[pl.Tensor[[m, n], pl.FP32],
                                                                          pl.Tensor[[m, n], pl.FP32]]:
            x, y = self.both(a, x, y)
            return x, y

    return TupleReturn


def test_tuple_return_from_kernel():
    a = rand((32, 64), "fp32", 7)
    run_case(get_tuple_return_program(32, 64), {"a": a},
             {"x": np.zeros((32, 64), np.float32), "y": np.zeros((32, 64), np.float32)},
             lambda v: {"x": 2 * v["a"], "y": v["a"] ** 2}, "fp32")


def get_dynamic_trip_program():
    @pl.program
    class DynamicTrips:
        @pl.function(type=pl.FunctionType.InCore)
        def add_tile(self, a: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
                     c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            return pl.store(pl.load(a, [row, 0], [16, 64]), [row, 0], c)

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                         c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            for i in pl.range(n):
                c = self.add_tile(a, i * 16, c)
            return c

    return DynamicTrips


def test_orchestration_loop_with_a_run_time_bound_is_refused_with_a_hint():
    from tilefold.compiler import compile as compile_program
    from tilefold.errors import NotSupportedError

    with pytest.raises(NotSupportedError, match="not compile-time constants") as info:
        compile_program(get_dynamic_trip_program(), "Ascend910B")
    assert info.value.hint and "InCore" in info.value.hint


def get_carried_scalar_program():
    @pl.program
    class CarriedScalar:
        @pl.function(type=pl.FunctionType.InCore)
        def put(self, a: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            return pl.store(pl.mul(pl.load(a, [row, 0], [16, 64]), 3.0), [row, 0], c)

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[64, 64], pl.FP32],
                         c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            row = 48
            for _i in pl.range(4):
                c = self.put(a, row, c)
                row = row - 16
            return c

    return CarriedScalar


def test_orchestration_loop_carrying_a_host_scalar():
    a = rand((64, 64), "fp32", 8)
    run_case(get_carried_scalar_program(), {"a": a}, {"c": np.zeros((64, 64), np.float32)},
             lambda x: {"c": 3.0 * x["a"]}, "fp32")


def get_nested_orchestration_program(rows: int, cols: int, tr: int, tc: int):
    @pl.program
    class Tiled2D:
        @pl.function(type=pl.FunctionType.InCore)
        def block(self, a: pl.Tensor[[rows, cols], pl.FP32], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX],
                  out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            t = pl.load(a, [r, c], [tr, tc])
            out = pl.store(pl.add(pl.mul(t, t), 1.0), [r, c], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def orchestrator(self, a: pl.Tensor[[rows, cols], pl.FP32],
                         out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            for i in pl.range(rows // tr):
                for j in pl.range(0, cols, tc):
                    out = self.block(a, i * tr, j, out)
            return out

    return Tiled2D


def test_nested_orchestration_loops():
    a = rand((64, 128), "fp32", 9)
    run_case(get_nested_orchestration_program(64, 128, 16, 64), {"a": a}, {"out": np.zeros((64, 128), np.float32)},
             lambda x: {"out": x["a"] ** 2 + 1.0}, "fp32")
