"""Helpers of the cross-core tests (module name unique for pytest rootdir imports)."""

from __future__ import annotations

import textwrap

import numpy as np

import tilefold.language as pl
from tilefold import ir

TARGETS = ("Ascend910B", "Ascend950")


def incore(params: str, body: str, *, ret: str, name: str = "P", attrs: str = "") -> ir.Program:
    """A one-kernel program: an InCore function ``k`` with ``params`` and ``body``."""
    deco = f"@pl.function(type=pl.FunctionType.InCore{attrs})"
    text = ("import tilefold.language as pl\n\n@pl.program\n"
            f"class {name}:\n    {deco}\n    def k(self, {params}) -> {ret}:\n"
            + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n")
    return pl.parse(text, "xc_kernel.py")


def fp16_inputs(seed: int, *shapes: tuple[int, int]) -> list[np.ndarray]:
    """Small FP16 matrices: products of a 64-long row by a column stay well inside FP16's range."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) / 4).astype(np.float16) for s in shapes]


def matmul32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The cube's product: FP16 (or FP32) operands, FP32 accumulation."""
    return a.astype(np.float32) @ b.astype(np.float32)


#: FP32 results of FP16 operands: the cube accumulates in FP32 in its own order (64 products)
RTOL, ATOL = 2e-6 * 64, 1e-5
