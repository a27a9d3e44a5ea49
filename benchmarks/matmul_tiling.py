"""AutoTileMatmulL0's tile-size choice against an exhaustive search on the simulator.

For every cube E2E shape: compile with the default pipeline (the pass picks (m, n, k)), simulate, and
report the kernel's cycles and cube utilisation (useful MACs / (cube peak MACs per cycle x kernel cycles)).
Then force every legal (m, n, k) (``auto_tile_matmul_l0(tile_sizes=...)`` through the pipeline option
``tile_sizes``), simulate each, and report the best one found. The legal sizes include tail-tiled ones (sizes
on the fractal grid that do not divide the extent; ``legal_tile_sizes`` / ``aligned_sizes``). Goal: the
pass's choice within 5% of the best. Timing is deterministic (the simulator prices instructions from the
target's cost model), so one run per candidate suffices.

    python benchmarks/matmul_tiling.py [--target Ascend910B] [--shapes NAME,...]
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.ir.types import DataType
from tilefold.passes.auto_tile_matmul_l0 import MatmulShape, choose_tile_sizes, fits_l0, legal_tile_sizes
from tilefold.sim import simulate
from tilefold.targets import get_target


@dataclass(frozen=True)
class Case:
    name: str
    batch: int  # 0: plain 2-D matmul
    m: int
    k: int
    n: int
    dtype: str
    acc: str

    def source(self) -> str:
        d, a = self.dtype, self.acc
        if self.batch:
            b, m, k, n = self.batch, self.m, self.k, self.n
            params = (f"x: pl.Tensor[[{b}, {m}, {k}], pl.{d}], w: pl.Tensor[[{b}, {k}, {n}], pl.{d}], "
                      f"out: pl.Out[pl.Tensor[[{b}, {m}, {n}], pl.{a}]]")
            body = f"""
                tx = pl.tile.load(x, [0, 0, 0], [{b}, {m}, {k}], target_memory=pl.Mem.Mat)
                tw = pl.tile.load(w, [0, 0, 0], [{b}, {k}, {n}], target_memory=pl.Mem.Mat)
                c = pl.tile.batch_matmul(tx, tw)
                out = pl.store(c, [0, 0, 0], out)
                return out
            """
        else:
            m, k, n = self.m, self.k, self.n
            params = (f"x: pl.Tensor[[{m}, {k}], pl.{d}], w: pl.Tensor[[{k}, {n}], pl.{d}], "
                      f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.{a}]]")
            body = f"""
                tx = pl.tile.load(x, [0, 0], [{m}, {k}], target_memory=pl.Mem.Mat)
                tw = pl.tile.load(w, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
                c = pl.tile.matmul(tx, tw)
                out = pl.store(c, [0, 0], out)
                return out
            """
        return ("import tilefold.language as pl\n\n@pl.program\nclass Bench:\n"
                "    @pl.function(type=pl.FunctionType.InCore)\n"
                f"    def kernel(self, {params}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
                + "\n")

    @property
    def page(self) -> MatmulShape:
        return MatmulShape(self.m, self.n, self.k, DataType[self.dtype].itemsize, DataType[self.acc].itemsize)

    @property
    def macs(self) -> int:
        return max(1, self.batch) * self.m * self.n * self.k


CASES = (
    Case("mm_16x256x64_bf16", 0, 16, 256, 64, "BF16", "FP32"),
    Case("mm_128x1024x128_fp16", 0, 128, 1024, 128, "FP16", "FP32"),
    Case("mm_64x512x32_int8", 0, 64, 512, 32, "INT8", "INT32"),
    Case("bmm_4x32x128x64_bf16", 4, 32, 128, 64, "BF16", "FP32"),
    Case("mm_grid_256x128x256_fp16", 0, 256, 128, 256, "FP16", "FP32"),
    Case("mm_grid_256x256x256_fp16", 0, 256, 256, 256, "FP16", "FP32"),
    # no L0 tile size divides these: the last K step / the M and N edge blocks are tail pieces
    Case("mm_tail_128x1000x128_fp16", 0, 128, 1000, 128, "FP16", "FP32"),
    Case("mm_tail_200x64x200_fp16", 0, 200, 64, 200, "FP16", "FP32"),
)


def _inputs(program, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for p in program.functions[0].params:
        shape = p.type.static_shape
        out[p.name] = rng.integers(-2, 3, size=shape).astype(p.type.dtype.np_dtype)
    return out


def simulated_cycles(program, target: str, tile_sizes: tuple[int, int, int] | None) -> float:
    options = {} if tile_sizes is None else {"tile_sizes": tile_sizes}
    compiled = compile(program, target=target, options=options)
    return simulate(compiled.pto, _inputs(program), compiled.target).cycles


def peak_macs_per_cycle(case: Case, target: str) -> float:
    costs = get_target(target).costs
    fm, fk, fn = costs.cube_fractal
    isz = DataType[case.dtype].itemsize
    k0 = max(1, fk * 2 // isz) if isz <= 2 else max(1, fk // 2)
    return fm * k0 * fn * costs.cube_fractals_per_cycle


def candidates(case: Case, target: str) -> list[tuple[int, int, int]]:
    page = case.page
    out = legal_tile_sizes(page, target)
    whole = (page.m, page.n, page.k)
    if fits_l0(page, target) and whole not in out:
        out.append(whole)  # leaving an L0-sized matmul alone is a legal choice too
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="Ascend910B")
    ap.add_argument("--shapes", default="", help="comma-separated case names (default: all)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    wanted = {s for s in args.shapes.split(",") if s}
    rows = []
    worst = 0.0
    for case in CASES:
        if wanted and case.name not in wanted:
            continue
        program = pl.parse(case.source())
        page = case.page
        auto = choose_tile_sizes(page, args.target)
        auto_sizes = (page.m, page.n, page.k) if fits_l0(page, args.target) else auto.sizes
        auto_cycles = simulated_cycles(program, args.target, None)
        best_sizes, best_cycles = auto_sizes, auto_cycles
        tried = 0
        for sizes in candidates(case, args.target):
            cycles = simulated_cycles(program, args.target, sizes)
            tried += 1
            if cycles < best_cycles:
                best_sizes, best_cycles = sizes, cycles
        peak = peak_macs_per_cycle(case, args.target)
        util_auto = case.macs / (peak * auto_cycles)
        util_best = case.macs / (peak * best_cycles)
        gap = auto_cycles / best_cycles - 1.0
        worst = max(worst, gap)
        rows.append((case.name, auto_sizes, auto_cycles, util_auto, best_sizes, best_cycles, util_best, tried, gap))
    print(f"target {args.target}; utilisation = useful MACs / (cube peak MACs per cycle x kernel cycles)")
    head = ("case", "auto (m,n,k)", "auto cycles", "auto util", "best (m,n,k)", "best cycles", "best util",
            "tried", "auto vs best")
    table = [head] + [(r[0], str(r[1]), f"{r[2]:.0f}", f"{100 * r[3]:.1f}%", str(r[4]), f"{r[5]:.0f}",
                       f"{100 * r[6]:.1f}%", str(r[7]), f"+{100 * r[8]:.2f}%") for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    ok = worst <= 0.05 + 1e-9
    print(f"worst gap to the exhaustive best: {100 * worst:.2f}% ({'within' if ok else 'NOT within'} the 5% goal)")
    return 0 if ok and not math.isnan(worst) else 1


if __name__ == "__main__":
    sys.exit(main())
