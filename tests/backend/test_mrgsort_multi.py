"""``pl.tile.mrgsort(src0, src1[, src2[, src3]])`` (issue 19): TMRGSORT's multi-list form, 2-4 descending lists
of (value, index) structures merged per row, against a merge written here; both forms and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.sim import simulate

RNG = np.random.default_rng(23)


def _list(n: int, dtype) -> np.ndarray:
    """One descending list of n structures (integer values: ties inside and across lists)."""
    values = np.sort(RNG.integers(-4, 4, n).astype(dtype))[::-1]
    idx = RNG.integers(0, 100000, n).astype(np.uint32)
    if dtype == np.float32:
        s = np.empty((n, 2), np.uint32)
        s[:, 0], s[:, 1] = values.view(np.uint32), idx
        return s.reshape(-1).view(np.float32)
    s16 = np.zeros((n, 4), np.uint16)
    s16[:, 0] = values.view(np.uint16)
    s16[:, 2:] = idx.view(np.uint16).reshape(n, 2)
    return s16.reshape(-1).view(np.float16)


def _merge(srcs: list[np.ndarray]) -> np.ndarray:
    """Per row: repeatedly take the largest head; on equal values the lowest source."""
    stride = 2 if srcs[0].dtype == np.float32 else 4
    out = []
    for r in range(srcs[0].shape[0]):
        lists = [[s[r, k:k + stride] for k in range(0, s.shape[1], stride)] for s in srcs]
        heads, row = [0] * len(lists), []
        while any(h < len(li) for h, li in zip(heads, lists, strict=True)):
            best = max((i for i in range(len(lists)) if heads[i] < len(lists[i])),
                       key=lambda i: (float(lists[i][heads[i]][0]), -i))
            row.append(lists[best][heads[best]])
            heads[best] += 1
        out.append(np.concatenate(row))
    return np.stack(out)


def _run(src: str, inputs: dict):
    program = pl.parse(src, "<mrgsort>")
    golden = run_program(program, {k: np.array(v, copy=True) for k, v in inputs.items()})
    compiled = compile_program(program, target="Ascend910B")
    sim = simulate(compiled.pto, {k: np.array(v, copy=True) for k, v in inputs.items()}, compiled.target)
    return golden["out"], sim.outputs["out"]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("lengths", [(16, 16), (8, 24, 16), (16, 8, 32, 8)])
@pytest.mark.parametrize("level", ["tile", "tensor"])
def test_two_to_four_lists_merge_per_row(dtype, lengths, level):
    stride = 2 if dtype == np.float32 else 4
    dt = "FP32" if dtype == np.float32 else "FP16"
    srcs = [np.stack([_list(n, dtype) for _ in range(4)]) for n in lengths]
    total = stride * sum(lengths)
    params = ", ".join(f"a{i}: pl.Tensor[[4, {s.shape[1]}], pl.{dt}]" for i, s in enumerate(srcs))
    if level == "tile":
        body = [f"x{i} = pl.load(a{i}, [0, 0], [4, {s.shape[1]}])" for i, s in enumerate(srcs)]
        body.append(f"pl.store(pl.tile.mrgsort({', '.join(f'x{i}' for i in range(len(srcs)))}), [0, 0], out)")
    else:
        body = [f"out[:] = pl.mrgsort({', '.join(f'a{i}' for i in range(len(srcs)))})"]
    lines = "\n".join(" " * 8 + b for b in body)
    src = (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}, out: pl.Out[pl.Tensor[[4, {total}], "
           f"pl.{dt}]]):\n    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return out\n")
    ins = {f"a{i}": s for i, s in enumerate(srcs)} | {"out": np.zeros((4, total), dtype)}
    golden, sim = _run(src, ins)
    want = _merge(srcs)
    bits = np.uint32 if dtype == np.float32 else np.uint16
    np.testing.assert_array_equal(golden.view(bits), want.view(bits))
    np.testing.assert_array_equal(sim.view(bits), want.view(bits))


@pytest.mark.parametrize(("call", "shapes", "message"), [
    ("pl.tile.mrgsort(x0, x1, block_len=8)", ((4, 32), (4, 32)), "block_len= applies to the one-source form"),
    ("pl.tile.mrgsort(x0, x1)", ((4, 32), (2, 32)), "every source needs 4 rows"),
    ("pl.tile.mrgsort(x0, x1)", ((4, 32), (4, 33)), "whole 2-element"),
])
def test_refusals(call, shapes, message):
    params = ", ".join(f"a{i}: pl.Tensor[[{r}, {c}], pl.FP32]" for i, (r, c) in enumerate(shapes))
    loads = "\n".join(f"        x{i} = pl.load(a{i}, [0, 0], [{r}, {c}])" for i, (r, c) in enumerate(shapes))
    src = (f"import tilefold.language as pl\n\n\n@pl.jit\ndef k({params}, out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):\n"
           f"    with pl.at(level=pl.Level.CORE_GROUP):\n{loads}\n        pl.store({call}, [0, 0], out)\n"
           "    return out\n")
    with pytest.raises(TilefoldError) as info:
        pl.parse(src, "mrg_bad.py")
    assert message in str(info.value) and "mrg_bad.py:" in str(info.value), str(info.value)


def test_mixed_value_dtypes_are_refused():
    src = ("import tilefold.language as pl\n\n\n@pl.jit\ndef k(a0: pl.Tensor[[4, 32], pl.FP32], "
           "a1: pl.Tensor[[4, 64], pl.FP16], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        x0 = pl.load(a0, [0, 0], [4, 32])\n"
           "        x1 = pl.load(a1, [0, 0], [4, 64])\n        pl.store(pl.tile.mrgsort(x0, x1), [0, 0], out)\n"
           "    return out\n")
    with pytest.raises(TilefoldError, match="source 1 is FP16, source 0 FP32"):
        pl.parse(src, "mrg_bad.py")
