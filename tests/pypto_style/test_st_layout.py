"""Casts, comparison / selection, bitwise ops on integers, shape and layout ops, valid shapes and padding, in
PyPTO's program form (text built per case, as PyPTO's system tests build one program per op)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from tests.pypto_style.st_harness import FLOATS, NP, rand, run_case

import tilefold.language as pl

TEXT = """
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], b: pl.Tensor[[{m}, {n}], pl.{dt}],
               c: pl.Out[pl.Tensor[[{rm}, {rn}], pl.{odt}]]) -> pl.Tensor[[{rm}, {rn}], pl.{odt}]:
        tile_a = pl.load(a, offsets=[0, 0], shapes=[{m}, {n}])
        tile_b = pl.load(b, offsets=[0, 0], shapes=[{m}, {n}])
{body}
        out_c = pl.store(tile_c, offsets=[0, 0], output_tensor=c)
        return out_c

    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrator(self, a: pl.Tensor[[{m}, {n}], pl.{dt}], b: pl.Tensor[[{m}, {n}], pl.{dt}],
                     c: pl.Out[pl.Tensor[[{rm}, {rn}], pl.{odt}]]) -> pl.Tensor[[{rm}, {rn}], pl.{odt}]:
        c = self.kernel(a, b, c)
        return c
"""

M, N = 16, 64


def _program(body: str, dt: str, odt: str, rm: int = M, rn: int = N):
    lines = "\n".join("        " + ln for ln in body.strip().splitlines())
    return pl.parse(TEXT.format(m=M, n=N, rm=rm, rn=rn, dt=dt.upper(), odt=odt.upper(), body=lines))


def _np(dt: str):
    return {"int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8}.get(dt) or NP[dt]


# body (binds tile_c), output dtype ('in' = the input dtype), output shape, reference
FLOAT_CASES = {
    "cast_fp32": ("tile_c = pl.cast(tile_a, target_type=pl.FP32)", "fp32", (M, N), lambda a, b: a),
    "cast_fp16_round": ("tile_c = pl.cast(pl.cast(tile_a, target_type=pl.FP32), target_type=pl.FP16)", "fp16",
                        (M, N), lambda a, b: a.astype(np.float16)),
    "cmp_sel": ("mask = pl.cmp(tile_a, tile_b, cmp_type=4)\ntile_c = pl.sel(mask, tile_a, tile_b)", "in", (M, N),
                lambda a, b: np.where(a > b, a, b)),
    "cmps_sel": ("mask = pl.cmps(tile_a, 0.0, cmp_type=2)\ntile_c = pl.sel(mask, tile_a, tile_b)", "in", (M, N),
                 lambda a, b: np.where(a < 0.0, a, b)),
    "sels": ("mask = pl.cmp(tile_a, tile_b, cmp_type=0)\ntile_c = pl.tile.sels(mask, tile_a, 0.0)", "in", (M, N),
             lambda a, b: np.where(a == b, a, 0.0)),
    "reshape": ("tile_c = pl.reshape(tile_a, [32, 32])", "in", (32, 32), lambda a, b: a.reshape(32, 32)),
    "transpose": ("tile_c = pl.transpose(tile_a, axis1=0, axis2=1)", "in", (N, M), lambda a, b: a.T),
    "slice": ("tile_c = pl.slice(tile_a, [8, 32], [8, 16])", "in", (8, 32), lambda a, b: a[8:16, 16:48]),
    "concat": ("tile_c = pl.concat(tile_a, tile_b)", "in", (M, 2 * N), lambda a, b: np.concatenate([a, b], 1)),
    "full": (f"tile_c = pl.tile.full([{M}, {N}], dtype=pl.FP32, value=3.5)", "fp32", (M, N),
             lambda a, b: np.full((M, N), 3.5)),
    "valid_fillpad_max": (
        "t = pl.load(a, offsets=[0, 0], shapes=[16, 64], valid_shapes=[16, 40])\n"
        "t = pl.fillpad(t, pad_value=pl.PadValue.min)\n"
        f"tmp = pl.create_tile([{M}, {N}], dtype=pl.{{DT}}, target_memory=pl.MemorySpace.Vec)\n"
        "tile_c = pl.row_max(t, tmp)", "in", (M, 1), lambda a, b: a[:, :40].max(1, keepdims=True)),
    "valid_fillpad_sum": (
        "t = pl.load(a, offsets=[0, 0], shapes=[16, 64], valid_shapes=[16, 40])\n"
        "t = pl.fillpad(t, pad_value=pl.PadValue.zero)\n"
        "tile_c = pl.row_sum(t)", "in", (M, 1), lambda a, b: a[:, :40].sum(1, keepdims=True)),
    "set_validshape": (
        "t = pl.set_validshape(tile_a, 16, 24)\nt = pl.fillpad(t, pad_value=pl.PadValue.zero)\n"
        "tile_c = pl.row_sum(t)", "in", (M, 1), lambda a, b: a[:, :24].sum(1, keepdims=True)),
}


@pytest.mark.parametrize("case", list(FLOAT_CASES))
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_layout_ops(case, dtype):
    body, odt, (rm, rn), ref = FLOAT_CASES[case]
    odt = dtype if odt == "in" else odt
    program = _program(body.replace("{DT}", dtype.upper()), dtype, odt, rm, rn)
    a, b = rand((M, N), dtype, 1, -4, 4), rand((M, N), dtype, 2, -4, 4)
    b[0, :8] = a[0, :8]  # some equal elements for the == comparison
    run_case(program, {"a": a, "b": b}, {"c": np.zeros((rm, rn), _np(odt))},
             lambda x: {"c": ref(x["a"], x["b"])}, odt, terms=N)


INT_CASES = {
    "and": ("tile_c = pl.and_(tile_a, tile_b)", np.bitwise_and),
    "or": ("tile_c = pl.or_(tile_a, tile_b)", np.bitwise_or),
    "xor": ("tile_c = pl.xor(tile_a, tile_b)", np.bitwise_xor),
    "not": ("tile_c = pl.not_(tile_a)", lambda a, b: np.invert(a)),
    "ands": ("tile_c = pl.ands(tile_a, 12)", lambda a, b: a & 12),
    "ors": ("tile_c = pl.ors(tile_a, 3)", lambda a, b: a | 3),
    "shls": ("tile_c = pl.shls(tile_a, 2)", lambda a, b: a << 2),
    "shrs": ("tile_c = pl.shrs(tile_a, 1)", lambda a, b: a >> 1),
    "add": ("tile_c = pl.add(tile_a, tile_b)", np.add),
    "adds": ("tile_c = pl.add(tile_a, 7)", lambda a, b: a + 7),
    "maximum": ("tile_c = pl.maximum(tile_a, tile_b)", np.maximum),
    "rem": ("tile_c = pl.rem(tile_a, tile_b)", lambda a, b: np.fmod(a, b)),
}


@pytest.mark.parametrize("case", list(INT_CASES))
@pytest.mark.parametrize("dtype", ["int32", "int16"])
def test_integer_ops(case, dtype):
    body, ref = INT_CASES[case]
    program = _program(body, dtype, dtype)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 100, (M, N)).astype(_np(dtype))
    b = rng.integers(1, 50, (M, N)).astype(_np(dtype))
    specs_in = {"a": a, "b": b}
    want = ref(a, b).astype(_np(dtype))
    from tilefold.runtime.runner import RunConfig, run
    from tilefold.runtime.tensor_spec import TensorSpec

    specs = [TensorSpec(k, [M, N], v.dtype, init_value=v) for k, v in specs_in.items()]
    specs.append(TensorSpec("c", [M, N], _np(dtype), is_output=True))

    def golden(t):
        t["c"][:] = want

    result = run(program, specs, golden, RunConfig(platform="a2a3sim", rtol=0, atol=0))
    assert result.passed, result.error
    np.testing.assert_array_equal(result.outputs["c"], want)


def test_bf16_cast_from_fp32_rounds_to_nearest():
    program = _program("tile_c = pl.cast(tile_a, target_type=pl.BF16)", "fp32", "bf16")
    a = rand((M, N), "fp32", 4)
    run_case(program, {"a": a, "b": a}, {"c": np.zeros((M, N), ml_dtypes.bfloat16)},
             lambda x: {"c": x["a"].astype(ml_dtypes.bfloat16)}, "bf16")
