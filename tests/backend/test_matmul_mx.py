"""``pl.matmul_mx`` / ``_acc`` / ``_bias`` (issue 19): Ascend950's MX block-scale matmul (FP8E4M3FN data, one
FP8E8M0 scale per 32 elements of K, OCP MX v1.0), compiled, simulated and run by golden against a reference
written here with plain Python floats; the FP4 cast form; the refusals (A2/A3 targets, FP4 operands, layouts)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate

RNG = np.random.default_rng(95)
M, K, N = 16, 64, 32

KERNEL = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.{ADT}], sa: pl.Tensor[[16, 2], pl.FP8E8M0],
          b: pl.Tensor[[64, 32], pl.FP8E4M3FN], sb: pl.Tensor[[2, 32], pl.FP8E8M0],
          c0: pl.Tensor[[16, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        tsa = pl.load(sa, [0, 0], [16, 2], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tsb = pl.load(sb, [0, 0], [2, 32], target_memory=pl.Mem.Mat)
{PREP}
        la = pl.move(ta, target_memory=pl.Mem.Left)
        lsa = pl.move(tsa, target_memory=pl.Mem.Left)
        rb = pl.move(tb, target_memory=pl.Mem.Right)
        rsb = pl.move(tsb, target_memory=pl.Mem.Right)
{BODY}
        out = pl.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.{ADT}], sa: pl.Tensor[[16, 2], pl.FP8E8M0],
             b: pl.Tensor[[64, 32], pl.FP8E4M3FN], sb: pl.Tensor[[2, 32], pl.FP8E8M0],
             c0: pl.Tensor[[16, 32], pl.FP32], bias: pl.Tensor[[1, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        out = self.k(a, sa, b, sb, c0, bias, out)
        return out
'''
PLAIN = "        c = pl.matmul_mx(la, lsa, rb, rsb)"
FORMS = {
    "plain": PLAIN,
    "acc": "        c1 = pl.matmul_mx(la, lsa, rb, rsb)\n        c = pl.matmul_mx_acc(c1, la, lsa, rb, rsb)",
    "bias": ("        tbias = pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat)\n"
             "        bb = pl.move(tbias, target_memory=pl.Mem.Bias)\n"
             "        c = pl.matmul_mx_bias(la, lsa, rb, rsb, bb)"),
}


def _source(form: str = "plain", adt: str = "FP8E4M3FN", prep: str = "") -> str:
    return KERNEL.replace("{ADT}", adt).replace("{BODY}", FORMS[form]).replace("{PREP}", prep)


def _inputs(adt=ml_dtypes.float8_e4m3fn) -> dict[str, np.ndarray]:
    a = RNG.normal(0, 2, (M, K)).astype(adt)
    b = RNG.normal(0, 2, (K, N)).astype(ml_dtypes.float8_e4m3fn)
    ea = RNG.integers(117, 138, (M, K // 32)).astype(np.uint8)
    eb = RNG.integers(117, 138, (K // 32, N)).astype(np.uint8)
    return {"a": a, "sa": ea.view(ml_dtypes.float8_e8m0fnu), "b": b, "sb": eb.view(ml_dtypes.float8_e8m0fnu),
            "c0": np.zeros((M, N), np.float32), "bias": RNG.normal(0, 3, (1, N)).astype(np.float32),
            "out": np.zeros((M, N), np.float32)}


def reference(ins: dict[str, np.ndarray], form: str) -> np.ndarray:
    """C[m, n] = sum_k a[m, k] 2^(ea[m, k // 32] - 127) b[k, n] 2^(eb[k // 32, n] - 127), in Python floats."""
    a, b = ins["a"].astype(np.float64), ins["b"].astype(np.float64)
    ea, eb = ins["sa"].view(np.uint8).astype(int), ins["sb"].view(np.uint8).astype(int)
    out = np.zeros((M, N))
    for m in range(M):
        for n in range(N):
            out[m, n] = sum(float(a[m, k]) * 2.0 ** (ea[m, k // 32] - 127) * float(b[k, n])
                            * 2.0 ** (eb[k // 32, n] - 127) for k in range(K))
    if form == "acc":
        out = 2 * out
    if form == "bias":
        out = out + ins["bias"].astype(np.float64)
    return out


def _run(src: str, ins: dict, target: str = "Ascend950"):
    program = pl.parse(src, "<mx>")
    golden = run_program(program, {k: np.array(v, copy=True) for k, v in ins.items()})
    compiled = compile_program(program, target=target)
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in ins.items()}, compiled.target)
    return golden["out"], sim


@pytest.mark.parametrize("form", ["plain", "acc", "bias"])
def test_mx_forms_match_the_reference(form):
    ins = _inputs()
    golden, sim = _run(_source(form), ins)
    want, plain = reference(ins, form), reference(ins, "plain")
    # the MX sum is exact in float64 here (FP8 products, power-of-two scales) and rounded once to FP32; the
    # accumulator / bias add is one more FP32 rounding: half a unit of each operand and of the sum
    tol = 2.0 ** -23 * (np.abs(want) + np.abs(plain)) + 1e-30
    assert np.all(np.abs(sim.outputs["out"] - want) <= tol)
    np.testing.assert_array_equal(golden, sim.outputs["out"])
    [rec] = [r for r in sim.instruction_records("CUBE") if r["instruction"].startswith("tmatmul_mx")] \
        if form != "acc" else sim.instruction_records("CUBE")[-1:]
    # the cube formula on 1-byte operands: 6 + ceil(16/16) * ceil(64/32) * ceil(32/16)
    assert rec["cycles"] == 6 + 1 * 2 * 2 and rec["origin"] == "extrapolated"


def test_a_scale_changes_only_its_block():
    """Raising one lhs block exponent by 1 doubles exactly that block's contribution."""
    ins = _inputs()
    base = reference(ins, "plain")
    bumped = dict(ins)
    ea = ins["sa"].view(np.uint8).copy()
    ea[3, 1] += 1
    bumped["sa"] = ea.view(ml_dtypes.float8_e8m0fnu)
    _, sim = _run(_source(), bumped)
    block = sum(ins["a"].astype(np.float64)[3, k] * 2.0 ** (int(ins["sa"].view(np.uint8)[3, 1]) - 127)
                * ins["b"].astype(np.float64)[k] * 2.0 ** (ins["sb"].view(np.uint8)[1].astype(int) - 127)
                for k in range(32, 64))
    want = base.copy()
    want[3] += block
    assert np.allclose(sim.outputs["out"], want, rtol=2.0 ** -22, atol=1e-30)
    assert np.array_equal(sim.outputs["out"][:3], base[:3].astype(np.float32))


def test_a_nan_scale_makes_its_block_nan():
    ins = _inputs()
    ea = ins["sa"].view(np.uint8).copy()
    ea[5, 0] = 0xFF  # E8M0 NaN
    ins["sa"] = ea.view(ml_dtypes.float8_e8m0fnu)
    _, sim = _run(_source(), ins)
    got = sim.outputs["out"]
    assert np.isnan(got[5]).all() and not np.isnan(np.delete(got, 5, axis=0)).any()


CAST_KERNEL = '''
    @pl.function(type=pl.FunctionType.InCore)
    def cast4(self, a4: pl.Tensor[[16, 64], pl.FP4],
              a8: pl.Out[pl.Tensor[[16, 64], pl.FP8E4M3FN]]) -> pl.Tensor[[16, 64], pl.FP8E4M3FN]:
        t = pl.load(a4, [0, 0], [16, 64])
        a8 = pl.store(pl.cast(t, pl.FP8E4M3FN), [0, 0], a8)
        return a8

'''


def test_fp4_lhs_cast_to_fp8_first():
    """PyPTO's FP4 x FP8 form: the FP4 lhs cast to FP8E4M3FN first (exact: every E2M1 value is an E4M3 value),
    here by a vector kernel writing the FP8 operand, then the MX kernel."""
    src = _source().replace("    @pl.function(type=pl.FunctionType.InCore)\n    def k(",
                            CAST_KERNEL + "    @pl.function(type=pl.FunctionType.InCore)\n    def k(", 1)
    src = src.replace("def main(self, a: pl.Tensor[[16, 64], pl.FP8E4M3FN]", "def main(self, a4: pl.Tensor[[16, 64], "
                      "pl.FP4], a: pl.Out[pl.Tensor[[16, 64], pl.FP8E4M3FN]]")
    src = src.replace("        out = self.k(a, sa, b, sb, c0, bias, out)",
                      "        a = self.cast4(a4, a)\n        out = self.k(a, sa, b, sb, c0, bias, out)")
    ins = _inputs()
    a4 = RNG.normal(0, 2, (M, K)).astype(ml_dtypes.float4_e2m1fn)
    ins = {"a4": a4, **ins}
    _, sim = _run(src, ins)
    want = reference({**ins, "a": a4.astype(np.float32).astype(ml_dtypes.float8_e4m3fn)}, "plain")
    assert np.array_equal(a4.astype(np.float64), a4.astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
                          .astype(np.float64))
    assert np.all(np.abs(sim.outputs["out"] - want) <= 2.0 ** -23 * np.abs(want) + 1e-30)


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C"])
def test_refused_on_a2a3_where_written(target):
    program = pl.parse(_source(), "mx_kernel.py")
    with pytest.raises(TilefoldError) as info:
        compile_program(program, target=target)
    text = str(info.value)
    assert f"{target} has no MX cube" in text and "mx_kernel.py:" in text and "Ascend950" in (info.value.hint or "")


@pytest.mark.parametrize(("adt", "message"), [
    ("FP4", "native FP4 operands are not supported"),
    ("FP16", "MX data tiles must be FP8E4M3FN"),
])
def test_data_dtypes_are_refused(adt, message):
    with pytest.raises(TilefoldError) as info:
        pl.parse(_source(adt=adt), "mx_kernel.py")
    assert message in str(info.value) and "mx_kernel.py:" in str(info.value), str(info.value)


def test_scale_shape_and_dtype_are_checked():
    bad_shape = _source().replace("pl.Tensor[[16, 2], pl.FP8E8M0]", "pl.Tensor[[16, 4], pl.FP8E8M0]") \
        .replace("[16, 2], target_memory", "[16, 4], target_memory")
    with pytest.raises(TilefoldError, match=r"lhs_scale is \[16, 4\]; it must be \[16, 2\]"):
        pl.parse(bad_shape, "mx_kernel.py")
    bad_dtype = _source().replace("pl.Tensor[[2, 32], pl.FP8E8M0]", "pl.Tensor[[2, 32], pl.FP8E4M3FN]")
    with pytest.raises(TilefoldError, match="rhs_scale is FP8E4M3; MX scales are FP8E8M0"):
        pl.parse(bad_dtype, "mx_kernel.py")
