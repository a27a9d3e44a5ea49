"""Differential fuzzing of the cube side of the pipeline.

Random valid InCore kernels (``cube_fuzz_gen.cube_programs``: GM -> Mat loads, Mat windows and slice-of-slice
chains feeding extracts and matmul operands, matmul / matmul_acc K loops in ``pl.range`` / ``pl.pipeline``,
matmul_bias, gemv / gemv_acc, batch_matmul with broadcast batches and batch_matmul_acc, the Acc column-window
idiom, BF16 / FP16 -> FP32 and INT8 -> INT32, K tails, Ascend910B / 910C / 950, block_dim 1-2 with
get_block_idx windows) are compiled through the default pipeline with the verification and round-trip
instruments after every pass, simulated, and compared with the golden interpreter on small-integer inputs
(exact in every accumulation order). A rejection must be a located, hinted ``TilefoldError`` of the class the
docs promise for that program (e.g. ``AccWindowError`` for a window L0C cannot hold).

Hypothesis runs derandomized with a fixed example budget, so the run is reproducible and bounded. Set
``TILEFOLD_CUBE_FUZZ_EXAMPLES`` for a longer local campaign.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from .cube_fuzz_gen import CubeCase, check_case, cube_programs

EXAMPLES = int(os.environ.get("TILEFOLD_CUBE_FUZZ_EXAMPLES", "0"))

_SETTINGS = dict(derandomize=True, database=None, deadline=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=EXAMPLES or 300, **_SETTINGS)
@given(cube_programs())
def test_cube_programs_match_golden_or_are_rejected_cleanly(case: CubeCase) -> None:
    check_case(case, instruments=True)


# A few fixed shapes the random search reaches only rarely: every family x every target, once.
_FIXED = [
    ("matmul", "FP16", 128, 1000, 128), ("matmul", "BF16", 200 // 16 * 16, 200, 64),
    ("matmul", "INT8", 256, 96, 256), ("matmul_bias", "FP16", 256, 80, 256), ("gemv", "BF16", 1, 1000, 256),
]


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C", "Ascend950"])
@pytest.mark.parametrize("op,dt,m,k,n", _FIXED)
def test_fixed_large_shapes(target: str, op: str, dt: str, m: int, k: int, n: int) -> None:
    from .cube_fuzz_gen import DTYPES

    acc = DTYPES[dt][0]
    bias_param = f", bias: pl.Tensor[[1, {n}], pl.{acc}]" if op == "matmul_bias" else ""
    bias_load = (f"        tc: pl.Tile[[1, {n}], pl.{acc}, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, {n}], "
                 "target_memory=pl.Mem.Mat)\n") if op == "matmul_bias" else ""
    args = "ta, tb, tc" if op == "matmul_bias" else "ta, tb"
    text = (
        "import tilefold.language as pl\n\n\n@pl.program\nclass Fixed:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel(self, a: pl.Tensor[[{m}, {k}], pl.{dt}], b: pl.Tensor[[{k}, {n}], pl.{dt}]{bias_param}, "
        f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.{acc}]]) -> pl.Tensor[[{m}, {n}], pl.{acc}]:\n"
        f"        ta: pl.Tile[[{m}, {k}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [{m}, {k}], "
        "target_memory=pl.Mem.Mat)\n"
        f"        tb: pl.Tile[[{k}, {n}], pl.{dt}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], "
        "target_memory=pl.Mem.Mat)\n"
        + bias_load +
        f"        c: pl.Tile[[{m}, {n}], pl.{acc}, pl.Mem.Acc] = pl.tile.{op}({args})\n"
        "        out = pl.store(c, [0, 0], out)\n"
        "        return out\n"
    )
    check_case(CubeCase(text, target, 1, f"fixed-{op}-{dt}"), instruments=False)
