"""``pl.recip(x, high_precision=...)`` (issue 19): the two variants' numbers against numpy written here, their
prices (A5 from PTO-ISA's measured TRECIP rows, A2/A3 by the stated rule), and the spelling in both forms."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.golden import run_program
from tilefold.sim import instruction_cycles, simulate

#: the bound tilefold states for the default path (docs/precision.md): 8 units of 2**-23
BOUND = 2.0 ** -20


def _src(dtype: str, hp: str, level: str = "tile") -> str:
    body = (["t = pl.load(x, [0, 0], [32, 64])", f"pl.store(pl.recip(t{hp}), [0, 0], out)"] if level == "tile"
            else [f"out[:] = pl.recip(x{hp})"])
    lines = "\n".join(" " * 8 + b for b in body)
    return (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k(x: pl.Tensor[[32, 64], pl.{dtype}], "
            f"out: pl.Out[pl.Tensor[[32, 64], pl.{dtype}]]):\n    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n"
            "    return out\n")


def _values(np_dt) -> np.ndarray:
    rng = np.random.default_rng(7)
    mags = np.exp(rng.uniform(-20, 20, 32 * 64)) if np_dt == np.float32 else np.exp(rng.uniform(-8, 8, 32 * 64))
    x = (mags * rng.choice([-1.0, 1.0], mags.size)).astype(np_dt)
    x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 3.0, -7.0], np_dt)
    return x.reshape(32, 64)


def _run(src: str, x: np.ndarray, target: str = "Ascend950"):
    program = pl.parse(src, "<recip>")
    ins = {"x": x, "out": np.zeros_like(x)}
    golden = run_program(program, {k: v.copy() for k, v in ins.items()})
    compiled = compile_program(program, target=target)
    sim = simulate(compiled.pto, {k: v.copy() for k, v in ins.items()}, compiled.target)
    return golden["out"], sim


def _exact(x: np.ndarray) -> np.ndarray:
    """1 / x in float64, rounded once to the dtype of x (correct rounding of the true reciprocal)."""
    with np.errstate(divide="ignore"):
        return (1.0 / x.astype(np.float64)).astype(x.dtype)


@pytest.mark.parametrize("level", ["tile", "tensor"])
@pytest.mark.parametrize("dtype", ["FP32", "FP16"])
def test_high_precision_is_correctly_rounded(level, dtype):
    x = _values(np.float32 if dtype == "FP32" else np.float16)
    golden, sim = _run(_src(dtype, ", high_precision=True", level), x)
    want = _exact(x)
    np.testing.assert_array_equal(golden, want)
    np.testing.assert_array_equal(sim.outputs["out"], want)


@pytest.mark.parametrize("hp", ["", ", high_precision=False"])
def test_default_fp32_is_approximate_within_the_stated_bound(hp):
    x = _values(np.float32)
    golden, sim = _run(_src("FP32", hp), x)
    got = sim.outputs["out"]
    np.testing.assert_array_equal(golden, got)
    want = _exact(x).astype(np.float64)
    finite = np.isfinite(want) & (want != 0)
    rel = np.abs(got[finite].astype(np.float64) - want[finite]) / np.abs(want[finite])
    assert rel.max() < BOUND, rel.max()
    assert rel.max() > 0, "the default path is not the exact reciprocal"  # the approximation is visible
    # never larger in magnitude than the true reciprocal (cleared low bits round toward zero)
    assert np.all(np.abs(got[finite]) <= np.abs(_exact(x)[finite]))
    # special values are exact: 1/+-0 = +-inf, 1/+-inf = +-0, NaN stays NaN
    np.testing.assert_array_equal(got.ravel()[:4], np.array([np.inf, -np.inf, 0.0, -0.0], np.float32))
    assert np.signbit(got.ravel()[3]) and np.isnan(got.ravel()[4])
    assert BOUND < 1e-5  # inside the FP32 compare tolerance (testing/precision.py: rtol 1e-5)


def test_default_fp16_within_one_unit_of_the_correct_result():
    x = _values(np.float16)
    golden, sim = _run(_src("FP16", ""), x)
    got, want = sim.outputs["out"].astype(np.float64), _exact(x).astype(np.float64)
    finite = np.isfinite(want)
    ulp = np.spacing(np.abs(want[finite]).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(got[finite] - want[finite]) <= ulp)
    np.testing.assert_array_equal(golden, sim.outputs["out"])


def test_high_precision_must_be_a_bool():
    from tilefold.errors import TilefoldError

    with pytest.raises(TilefoldError, match="high_precision=2 is not True or False"):
        pl.parse(_src("FP32", ", high_precision=2"), "<recip>")


def _a5_rows() -> list[dict]:
    from tilefold.targets import costs_a5

    return [r for r in csv.DictReader(io.StringIO(costs_a5.MEASURED_CSV)) if r["op"] == "TRECIP"]


@pytest.mark.parametrize(("dtype", "dt"), [("FP32", "fp32"), ("FP16", "fp16")])
def test_a5_prices_each_variant_from_its_measured_row(dtype, dt):
    """A contiguous 32 x 64 tile takes the 1-D path: ``param0 * repeats + param1`` of the variant's row."""
    x = _values(np.float32 if dtype == "FP32" else np.float16)
    for hp, params in (("", "default"), (", high_precision=True", "high_precision")):
        row = next(r for r in _a5_rows() if (r["src_dtype"], r["shape_path"], r["tail_kind"], r["op_params"],
                                             r["vf_impl_kind"]) == (dt, "1D", "full", params, "NO_POST_UPDATE"))
        _, sim = _run(_src(dtype, hp), x)
        recs = [r for r in sim.instruction_records("VECTOR") if r["instruction"].startswith("trecip")]
        rows = 32 // len(recs)  # the kernel is split across the vector sub-blocks: each runs its row half
        loops = rows * 64 * x.dtype.itemsize // 256
        want = round(float(row["param0"]) * loops + float(row["param1"]))
        assert recs and all(r["cycles"] == want and r["origin"] == "measured" for r in recs), (hp, recs, want)


def test_a2a3_high_precision_follows_the_stated_ratio_rule():
    """A2/A3 has no TRECIP profiling: default priced like TDIVS; high precision = TDIVS's start-up + A5's measured
    per-repeat ratio (high / default) x the default's work above that start-up."""
    from tilefold.targets import get_target

    fits = get_target("Ascend910B").costs.table.families
    for dt in ("fp32", "fp16"):
        rows = {r["op_params"]: float(r["param0"]) for r in _a5_rows()
                if (r["src_dtype"], r["shape_path"], r["tail_kind"], r["vf_impl_kind"]) == (dt, "1D", "full",
                                                                                             "NO_POST_UPDATE")}
        ratio = rows["high_precision"] / rows["default"]
        for shape in ((1, 64), (16, 64), (64, 128)):
            base = instruction_cycles("TRECIP", dt, shape, target="Ascend910B")
            assert base.cycles == instruction_cycles("TDIVS", dt, shape, target="Ascend910B").cycles
            hp = instruction_cycles("TRECIP", dt, shape, target="Ascend910B", variant="high_precision")
            startup = fits[("TDIVS", dt)].startup
            assert hp.cycles == round(startup + ratio * (base.cycles - startup)) and hp.origin == "extrapolated"
            assert hp.cycles > 5 * base.cycles


def test_program_form_attribute_round_trips_and_is_priced():
    src = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64])
        r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.recip(t, high_precision=True)
        out = pl.store(r, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = self.k(x, out)
        return out
'''
    program = pl.parse(src, "<recip program>")
    assert "high_precision=True" in program.as_python()
    x = _values(np.float32)[:16]
    compiled = compile_program(program, target="Ascend910B")
    sim = simulate(compiled.pto, {"x": x.copy(), "out": np.zeros_like(x)}, compiled.target)
    np.testing.assert_array_equal(sim.outputs["out"], _exact(x))
    recs = [r for r in sim.instruction_records("VECTOR") if r["instruction"].startswith("trecip")]
    rows = 16 // len(recs)  # one record per vector sub-block that runs a row half
    want = instruction_cycles("TRECIP", "fp32", (rows, 64), variant="high_precision").cycles
    assert recs and all(r["cycles"] == want for r in recs), (recs, want)
