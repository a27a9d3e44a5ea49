"""Random @pl.jit element-wise / broadcast chains on odd shapes (rows 1..70, rows that are not 32-byte multiples),
both targets, sub-block splitting on and off. Each generated op is written twice: as ``pl`` source and as its numpy
meaning written here (never the registry's golden), and the simulator's result is compared element by element
with tolerances from the dtypes on the path (``tolerance_for``: FP16 when the chain rounds through FP16, the
reduction length when it sums a row)."""

from __future__ import annotations

import importlib.util
import itertools
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilefold.analysis.precision_path import PrecisionPath
from tilefold.ir.types import DataType
from tilefold.runtime import RunConfig
from tilefold.testing.precision import tolerance_for

# (pl template, numpy function, FP16 rounding?, reduces a row?); values stay within about [-8, 8]
UNARY = [
    ("pl.neg({x})", lambda x, y: -x, False, False),
    ("pl.abs({x})", lambda x, y: np.abs(x), False, False),
    ("pl.relu({x})", lambda x, y: np.maximum(x, 0), False, False),
    ("pl.exp(pl.neg(pl.abs({x})))", lambda x, y: np.exp(-np.abs(x)), False, False),
    ("pl.sqrt(pl.adds(pl.abs({x}), 0.25))", lambda x, y: np.sqrt(np.abs(x) + 0.25), False, False),
    ("pl.mins(pl.maxs(pl.muls({x}, 1.5), -4.0), 4.0)", lambda x, y: np.clip(x * 1.5, -4, 4), False, False),
    ("pl.adds({x}, -0.75)", lambda x, y: x - 0.75, False, False),
    ("pl.add({x}, {y})", lambda x, y: x + y, False, False),
    ("pl.sub({x}, {y})", lambda x, y: x - y, False, False),
    ("pl.maximum({x}, {y})", lambda x, y: np.maximum(x, y), False, False),
    ("pl.mul(pl.mins(pl.maxs({x}, -2.0), 2.0), {y})", lambda x, y: np.clip(x, -2, 2) * y, False, False),
    ("pl.cast(pl.cast({x}, target_type=pl.FP16), target_type=pl.FP32)", lambda x, y: x.astype(np.float32).astype(np.float16), True, False),
    ("pl.row_expand_sub({x}, pl.muls(pl.row_sum({x}), {inv}))", lambda x, y: x - x.mean(axis=1, keepdims=True),
     False, True),
    ("pl.row_expand_sub({x}, pl.row_max({x}))", lambda x, y: x - x.max(axis=1, keepdims=True), False, False),
    ("pl.col_expand_sub({x}, pl.col_min({x}))", lambda x, y: x - x.min(axis=0, keepdims=True), False, False),
]
CONFIGS = [RunConfig(platform=p, pass_options={"enable_auto_bind_sub_block": s})
           for p, s in itertools.product(("a2a3sim", "a5sim"), (True, False))]
_counter = itertools.count()


def _kernel(lines: list[str]):
    body = "\n".join(f"        {ln}" for ln in lines)
    text = ("import tilefold.language as pl\n\n\n@pl.jit\n"
            "def chain(x: pl.Tensor, y: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n" + body + "\n    return out\n")
    path = Path(tempfile.mkdtemp(prefix="tf_diff_")) / f"chain_{next(_counter)}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.chain, text


@settings(max_examples=24, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=st.integers(1, 70), cols=st.sampled_from([8, 16, 24, 40, 64, 100, 136]),
       ops=st.lists(st.integers(0, len(UNARY) - 1), min_size=1, max_size=5), config=st.integers(0, 3),
       seed=st.integers(0, 2**16))
def test_random_chains_match_numpy(rows, cols, ops, config, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    y = rng.uniform(-2, 2, (rows, cols)).astype(np.float32)
    lines, value, narrow, terms = [], x.astype(np.float64), DataType.FP32, 1
    for i, k in enumerate(ops):
        template, fn, rounds, reduces = UNARY[k]
        src = "x" if i == 0 else f"t{i - 1}"
        lines.append(f"t{i} = " + template.format(x=src, y="y", inv=repr(1.0 / cols)))
        value = np.asarray(fn(value, y.astype(np.float64)), np.float64)
        if rounds:
            narrow, terms = DataType.FP16, 1
        if reduces:
            terms *= cols
    lines.append(f"out[:] = t{len(ops) - 1}")
    kernel, text = _kernel(lines)
    out = np.zeros_like(x)
    kernel(x, y, out, config=CONFIGS[config])
    rtol, atol = tolerance_for(DataType.FP32, PrecisionPath(narrow, terms))
    bad = ~(np.abs(out.astype(np.float64) - value) <= atol + rtol * np.abs(value))
    assert not bad.any(), (f"{int(bad.sum())} of {bad.size} elements differ, first at "
                           f"{np.argwhere(bad)[0].tolist()}; config {config}\n{text}")
