"""A small harness in the shape of PyPTO's system tests: named ``TensorSpec``s, a numpy golden written apart from
tilefold, ``tilefold.runtime.runner.run`` on the simulator, then an element-by-element check of every output
against the golden with a tolerance derived from the output dtype."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

import tilefold.language as pl
from tilefold.runtime.runner import RunConfig, run
from tilefold.runtime.tensor_spec import TensorSpec

NP = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}
PL = {"fp32": pl.FP32, "fp16": pl.FP16, "bf16": pl.BF16}
FLOATS = ("fp32", "fp16", "bf16")
#: (rtol, atol) per element type: a few units in the last place of the type's significand
TOL = {"fp32": (1e-5, 1e-5), "fp16": (4e-3, 4e-3), "bf16": (3e-2, 3e-2)}


def tol(dtype: str, terms: int = 1) -> tuple[float, float]:
    """Tolerance for a value rounded to ``dtype``; a sum of ``terms`` values gets sqrt(terms) times the atol."""
    r, a = TOL[dtype]
    return r, a * max(1.0, float(np.sqrt(terms)))


def rand(shape, dtype: str, seed: int = 0, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(NP[dtype])


def f32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float32)


def run_case(program, inputs: dict[str, np.ndarray], outputs: dict[str, np.ndarray],
             expected: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]], dtype: str = "fp32",
             terms: int = 1, platform: str = "a2a3sim") -> dict[str, np.ndarray]:
    """Run ``program`` on ``inputs`` (read-only) and ``outputs`` (initial contents of the written parameters);
    ``expected(inputs)`` gives the reference of every output from float32 copies of the inputs."""
    specs = [TensorSpec(n, list(a.shape), a.dtype, init_value=a) for n, a in inputs.items()]
    specs += [TensorSpec(n, list(a.shape), a.dtype, init_value=a, is_output=True) for n, a in outputs.items()]
    ref = {k: np.asarray(v, np.float64) for k, v in expected({n: f32(a) for n, a in inputs.items()}).items()}

    def golden(tensors):  # PyPTO's golden form: write the expected outputs into the tensor dict
        for k, v in ref.items():
            tensors[k][...] = v.astype(tensors[k].dtype)

    rtol, atol = tol(dtype, terms)
    result = run(program, specs, golden, RunConfig(platform=platform, rtol=rtol, atol=atol))
    assert result.passed, result.error
    for name, want in ref.items():
        got = np.asarray(result.outputs[name]).astype(np.float64)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        bad = ~(np.abs(got - want) <= atol + rtol * np.abs(want))
        assert not bad.any(), f"{name}: {int(bad.sum())} of {bad.size} elements differ; first at " \
                              f"{np.argwhere(bad)[0].tolist()}: got {got[bad][0]}, want {want[bad][0]}"
    return result.outputs
