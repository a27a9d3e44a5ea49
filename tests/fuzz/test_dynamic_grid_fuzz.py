"""Differential fuzzing of whole tensors with pl.dynamic extents (ConvertTensorToTileOps' valid-shape grid).

Each seed gives a random straight-line @pl.jit kernel over ``[M, N]`` tensors with ``M`` and ``N`` both
``pl.dynamic``: element-wise / scalar / unary / cast chains, written whole, and sometimes row sums / maxima /
minima of a value written to ``[M, 1]`` outputs. The generator builds a numpy reference of the same expression
as it goes (independent of the registry goldens); each kernel runs at two extents (partial last blocks on both
axes) through one compile. Derandomized (fixed seeds)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .fuzzcheck import counted

_UNARY = {"neg": np.negative, "abs": np.abs, "relu": lambda a: np.maximum(a, 0), "exp": np.exp}
_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum}
_REDUCE = {"row_sum": np.sum, "row_max": np.max, "row_min": np.min}


def generate(seed: int) -> tuple[str, Any, int]:
    """Source, ``reference(inputs) -> outputs`` and the number of [M, 1] outputs."""
    rnd = random.Random(5000 + seed)
    n_inputs = rnd.randint(1, 2)
    names = [f"x{i}" for i in range(n_inputs)]
    steps: list[tuple[str, Any]] = []  # (source expr, numpy fn of the env)
    for k in range(rnd.randint(2, 5)):
        a, b = rnd.choice(names), rnd.choice(names)
        kind = rnd.choice(["unary", "binary", "scalar", "cast"])
        if kind == "unary":
            op = rnd.choice(list(_UNARY))
            src = f"pl.{op}(pl.muls({a}, 0.25))" if op == "exp" else f"pl.{op}({a})"
            fn = (lambda op, a: lambda env: _UNARY[op](env[a] * np.float32(0.25) if op == "exp" else env[a]))(op, a)
        elif kind == "binary":
            op = rnd.choice(list(_BINARY))
            src, fn = f"pl.{op}({a}, {b})", (lambda op, a, b: lambda env: _BINARY[op](env[a], env[b]))(op, a, b)
        elif kind == "scalar":
            c = rnd.choice([0.5, -1.5, 2.0])
            src, fn = f"pl.adds(pl.mul({a}, {c}), 1.0)", (lambda a, c: lambda env: env[a] * np.float32(c) + 1)(a, c)
        else:  # through FP16 and back: rounded like the device's cast
            src = f"pl.cast(pl.cast({a}, target_type=pl.FP16), target_type=pl.FP32)"
            fn = (lambda a: lambda env: env[a].astype(np.float16).astype(np.float32))(a)
        name = f"v{k}"
        steps.append((f"        {name} = {src}", (name, fn)))
        names.append(name)
    reductions = [(rnd.choice(list(_REDUCE)), rnd.choice(names[n_inputs:])) for _ in range(rnd.randint(0, 2))]
    params = [f"x{i}: pl.Tensor[[M, N], pl.FP32]" for i in range(n_inputs)]
    params += [f"r{i}: pl.Out[pl.Tensor[[M, 1], pl.FP32]]" for i in range(len(reductions))]
    params.append("out: pl.Out[pl.Tensor[[M, N], pl.FP32]]")
    body = [s for s, _ in steps] + [f"        r{i}[:] = pl.{red}({v})" for i, (red, v) in enumerate(reductions)]
    body.append(f"        out[:] = {names[-1]}")
    rets = ", ".join([f"r{i}" for i in range(len(reductions))] + ["out"])
    src = ("import tilefold.language as pl\n\nM = pl.dynamic(\"M\")\nN = pl.dynamic(\"N\")\n\n\n@pl.jit\n"
           f"def fuzz({', '.join(params)}):\n    with pl.at(level=pl.Level.CORE_GROUP):\n" + "\n".join(body)
           + f"\n    return {rets}\n")

    def reference(inputs: list[np.ndarray]) -> list[np.ndarray]:
        env = {f"x{i}": x for i, x in enumerate(inputs)}
        for _, (name, fn) in steps:
            env[name] = fn(env).astype(np.float32)
        return [_REDUCE[red](env[v], axis=1, keepdims=True) for red, v in reductions] + [env[names[-1]]]

    return src, reference, len(reductions)


@pytest.mark.parametrize("seed", range(8))
def test_dynamic_whole_tensor_programs_match_numpy_at_two_extents(seed, tmp_path: Path):
    src, reference, n_red = generate(seed)
    path = tmp_path / f"dyn_fuzz_{seed}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"dyn_fuzz_{seed}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    rng = np.random.default_rng(seed)
    n_inputs = src.count("pl.Tensor[[M, N], pl.FP32]") - 1
    for shape in ((16, 256), (37, 300)):
        inputs = [rng.standard_normal(shape).astype(np.float32) for _ in range(n_inputs)]
        outs = [np.full((shape[0], 1), 7.0, np.float32) for _ in range(n_red)] + [np.zeros(shape, np.float32)]
        with counted("jit-dynamic-grid"):
            module.fuzz(*inputs, *outs)
        for got, want in zip(outs, reference(inputs), strict=True):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5, err_msg=src)
    assert module.fuzz.compile_count == 1
    del sys.modules[spec.name]


def test_generator_covers_its_forms():
    sources = [generate(s)[0] for s in range(8)]
    assert any("pl.row_" in s for s in sources) and any("pl.cast(" in s for s in sources)
    assert any("x1:" in s for s in sources)
