"""Roofline check: double-buffered kernels approach max(bytes / bandwidth, flops / peak).

Two kernels, each double-buffered (``pl.pipeline(stage=2)``) and not (stage 1), on the target given:

- **copy** (DMA-bound): ``BLOCKS`` blocks of an AIV kernel (both sub-blocks), each streaming its rows of
  a large FP32 tensor GM -> UB -> GM in 32 KiB tiles, with separate in and out buffers (a UB -> UB move
  between them, as copy kernels ping-pong both sides; with one buffer per stage its reload would wait
  for its store, latency included). Bound: the largest of the chip's GM bandwidth over
  all bytes moved (read + written), each unit's MTE2 / MTE3 engine over its own bytes and its UB -> UB
  moves at their measured price (32 B per cycle: the move, not the DMA, bounds this copy);
- **matmul**: C[128, 128] = A[128, K] @ B[K, 128] in FP16 on one core, streaming 128-deep K slices of A
  and B into L1 (MTE2), extracting them into L0A / L0B (MTE1) and accumulating on the cube. Bound: the
  largest of each engine's bytes over its bandwidth and the cube's MAD instructions at their price.
- **matmul-l1** (cube-bound, L1 reuse): C[128, N] = A[128, 256] @ B[256, N] in FP16 on one core; the A panel
  is loaded into L1 and L0A once and reused by every 64-column tile of B, so MTE2 brings only B (32 KiB per
  tile, 256 cycles at 128 B/cycle) while the cube spends 518 cycles per tile (8 x 16 x 4 fractals + 6). Its
  critical pipe is CUBE.

The kernel time compared with the bound is the simulated time after the target's launch overhead (a
constant per launch, not part of either roof). The table prints both variants with the ratio; the last
line is ``bounds: copy R of bound, matmul R of bound, matmul-l1 R of bound`` for the double-buffered
variants. A ratio below 1.0 means the model beat its own bound -- a modelling error: the script fails.

Which pipe bounds a single-core matmul depends on operand reuse: the cube retires one 16x16x16 FP16 fractal
per cycle, 1 KiB of operands, but an output tile of 128 x 128 reuses each L0A fractal across its 8 fractal
columns and each L0B fractal across its 8 fractal rows, so it needs 1/8 of that (128 B per cycle) of new L0
operands; with K slices streamed from GM (``matmul``) MTE2 brings 2 x 32 KiB per 512-fractal step (512
cycles at 128 B/cycle against the cube's 518: the two nearly balance), with an L1-resident panel
(``matmul-l1``) MTE2 brings half that and the cube is clearly the critical pipe.

Run: ``python benchmarks/bounds.py [--target NAME] [--blocks N] [--tiles N] [--k-steps N] [--plot]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tilefold.language as pl
from tilefold.bench import print_table
from tilefold.compiler import compile as compile_program
from tilefold.golden import run_program
from tilefold.ir.types import MemorySpace as Mem
from tilefold.sim import simulate
from tilefold.targets import get_target, instruction_cycles
from tilefold.testing.precision import compare

TILE_ROWS, COLS = 32, 256  # copy tile: 32 KiB of FP32


def copy_source(blocks: int, tiles: int, stage: int) -> str:
    rows = blocks * 2 * tiles * TILE_ROWS
    return f'''
import tilefold.language as pl

@pl.program
class Copy:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[{rows}, {COLS}], pl.FP32],
               out: pl.Out[pl.Tensor[[{rows}, {COLS}], pl.FP32]]) -> pl.Tensor[[{rows}, {COLS}], pl.FP32]:
        unit = pl.tile.get_block_idx() * 2 + pl.tile.get_subblock_idx()
        for i, (o,) in pl.pipeline({tiles}, init_values=(out,), stage={stage}):
            row = (unit * {tiles} + i) * {TILE_ROWS}
            t: pl.Tile[[{TILE_ROWS}, {COLS}], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [row, 0], [{TILE_ROWS}, {COLS}],
                                                                               target_memory=pl.Mem.Vec)
            u = pl.tile.move(t, target_memory=pl.Mem.Vec)
            o2 = pl.store(u, [row, 0], o)
            r = pl.yield_(o2)
        return r
'''


def matmul_source(k_steps: int, stage: int) -> str:
    k = 128 * k_steps
    return f'''
import tilefold.language as pl

@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, {k}], pl.FP16], b: pl.Tensor[[{k}, 128], pl.FP16],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        b0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(a0, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
        r0 = pl.tile.extract(b0, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
        c0 = pl.tile.matmul(l0, r0)
        for kk, (c,) in pl.pipeline(1, {k_steps}, init_values=(c0,), stage={stage}):
            ak: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, kk * 128], [128, 128],
                                                                       target_memory=pl.Mem.Mat)
            bk: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [kk * 128, 0], [128, 128],
                                                                       target_memory=pl.Mem.Mat)
            lk = pl.tile.extract(ak, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
            rk = pl.tile.extract(bk, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            c2 = pl.tile.matmul_acc(c, lk, rk)
            cr = pl.yield_(c2)
        out = pl.store(cr, [0, 0], out)
        return out
'''


def matmul_l1_source(n_tiles: int, stage: int) -> str:
    n = 64 * n_tiles
    return f'''
import tilefold.language as pl

@pl.program
class MatmulL1:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 256], pl.FP16], b: pl.Tensor[[256, {n}], pl.FP16],
               out: pl.Out[pl.Tensor[[128, {n}], pl.FP32]]) -> pl.Tensor[[128, {n}], pl.FP32]:
        a0: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(a0, 0, 0, shape=[128, 256], target_memory=pl.Mem.Left)
        for j, (o,) in pl.pipeline({n_tiles}, init_values=(out,), stage={stage}):
            bj: pl.Tile[[256, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, j * 64], [256, 64],
                                                                      target_memory=pl.Mem.Mat)
            rj = pl.tile.extract(bj, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
            cj = pl.tile.matmul(l0, rj)
            o2 = pl.store(cj, [0, j * 64], o)
            r = pl.yield_(o2)
        return r
'''


def _run(src: str, inputs: dict, target, block_dim: int, name: str):
    prog = pl.parse(src, filename=f"{name}.py")
    comp = compile_program(prog, target=target.name, options={"enable_auto_bind_sub_block": False})
    res = simulate(comp.pto, {k: v.copy() for k, v in inputs.items()}, target, block_dim=block_dim)
    golden = run_program(prog, {k: v.copy() for k, v in inputs.items()}, block_dim=block_dim)["out"]
    check = compare(res.outputs["out"], golden)
    if not check.matches:
        raise SystemExit(f"{name}: differs from golden ({check.describe()})")
    return res


def copy_bound(target, blocks: int, tiles: int) -> float:
    unit_bytes = tiles * TILE_ROWS * COLS * 4
    units = blocks * target.aiv_per_aic
    gm = 2 * unit_bytes * units / target.gm_bytes_per_cycle
    mte2 = unit_bytes / target.path_cost(Mem.DDR, Mem.Vec).bytes_per_cycle
    mte3 = unit_bytes / target.path_cost(Mem.Vec, Mem.DDR).bytes_per_cycle
    move = tiles * instruction_cycles("TMOV", "fp32", (TILE_ROWS, COLS), target=target).cycles  # UB -> UB
    return max(gm, mte2, mte3, move)


def _mad(target, m: int, k: int, n: int) -> int:
    """One cube instruction's price from the target's table (what the cube pipe must spend on it)."""
    return instruction_cycles("TMATMUL", "fp16", (m, k, n), target=target).cycles


def matmul_bound(target, k_steps: int) -> tuple[float, str]:
    tile = 128 * 128 * 2
    terms = {
        "MTE2": 2 * k_steps * tile / target.path_cost(Mem.DDR, Mem.Mat).bytes_per_cycle,
        "MTE1": k_steps * tile / target.path_cost(Mem.Mat, Mem.Left).bytes_per_cycle
        + k_steps * tile / target.path_cost(Mem.Mat, Mem.Right).bytes_per_cycle,
        "FIXPIPE": 128 * 128 * 4 / target.path_cost(Mem.Acc, Mem.DDR).bytes_per_cycle,
        "CUBE": (k_steps + 1) * _mad(target, 128, 128, 128),
    }
    pipe = max(terms, key=lambda p: terms[p])
    return terms[pipe], pipe


def matmul_l1_bound(target, n_tiles: int) -> tuple[float, str]:
    b_tile, c_tile = 256 * 64 * 2, 128 * 64 * 4
    terms = {
        "MTE2": (128 * 256 * 2 + n_tiles * b_tile) / target.path_cost(Mem.DDR, Mem.Mat).bytes_per_cycle,
        "MTE1": (128 * 256 * 2 / target.path_cost(Mem.Mat, Mem.Left).bytes_per_cycle
                 + n_tiles * b_tile / target.path_cost(Mem.Mat, Mem.Right).bytes_per_cycle),
        "FIXPIPE": n_tiles * c_tile / target.path_cost(Mem.Acc, Mem.DDR).bytes_per_cycle,
        "CUBE": n_tiles * _mad(target, 128, 256, 64),
    }
    pipe = max(terms, key=lambda p: terms[p])
    return terms[pipe], pipe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="Ascend910B")
    ap.add_argument("--blocks", type=int, default=4, help="blocks of the copy (each runs on two sub-blocks)")
    ap.add_argument("--tiles", type=int, default=64, help="32 KiB tiles per copy unit")
    ap.add_argument("--k-steps", type=int, default=256, help="128-deep K steps of the matmul")
    ap.add_argument("--n-tiles", type=int, default=128, help="64-column B tiles of the L1-reuse matmul")
    ap.add_argument("--plot", action="store_true", help="also write bounds.png (ratio to the bound per variant)")
    args = ap.parse_args(argv)
    target = get_target(args.target)
    rng = np.random.default_rng(0)
    rows = []
    ratios: dict[str, dict[int, float]] = {"copy": {}, "matmul": {}, "matmul-l1": {}}
    critical: dict[str, str] = {}
    n_rows = args.blocks * 2 * args.tiles * TILE_ROWS
    x = rng.uniform(-1, 1, (n_rows, COLS)).astype(np.float32)
    k = 128 * args.k_steps
    a = rng.uniform(-1, 1, (128, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, 128)).astype(np.float16)
    a1 = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    b1 = rng.uniform(-1, 1, (256, 64 * args.n_tiles)).astype(np.float16)
    cases = [("copy", lambda st: copy_source(args.blocks, args.tiles, st), {"a": x}, args.blocks,
              (copy_bound(target, args.blocks, args.tiles), "DMA / move")),
             ("matmul", lambda st: matmul_source(args.k_steps, st), {"a": a, "b": b}, 1,
              matmul_bound(target, args.k_steps)),
             ("matmul-l1", lambda st: matmul_l1_source(args.n_tiles, st), {"a": a1, "b": b1}, 1,
              matmul_l1_bound(target, args.n_tiles))]
    for name, make, inputs, block_dim, (bound, bound_pipe) in cases:
        for stage in (2, 1):
            res = _run(make(stage), inputs, target, block_dim, f"{name}_stage{stage}")
            body = res.body_cycles
            ratios[name][stage] = body / bound
            if stage == 2:
                critical[name] = res.critical_pipe()
            rows.append([name, stage, int(res.cycles), int(body), f"{int(bound)} ({bound_pipe})", f"{body / bound:.3f}",
                         res.critical_pipe()])
    print_table(["kernel", "stage", "cycles", "cycles after launch", "bound (its pipe)", "ratio to bound",
                 "critical pipe"],
                rows, title=f"roofline on {target.name} (GM {target.gm_bytes_per_cycle:.0f} B/cycle shared, "
                            f"launch overhead {target.launch_overhead_cycles} cycles, fitted by sub_block.py "
                            f"--calibrate; no hardware measurement of these kernels: the bound is the model's own "
                            f"roofline)")
    if args.plot:
        from tilefold.sim.trace import plot_table

        out = plot_table(["variant", "ratio to bound"], [[f"{r[0]} stage {r[1]}", r[5]] for r in rows], "bounds.png",
                         title=f"predicted time / bound on {target.name}")
        print(f"plot written to {out}")
    if ratios["matmul"][1] <= ratios["matmul"][2] * 1.05:
        print("note: the stage-1 matmul already overlaps its loads with the cube: each operand is staged twice "
              "(GM -> L1 by MTE2, L1 -> L0 by MTE1), so the next L1 load only waits for the L0 extract")
    print(f"bounds: copy {ratios['copy'][2]:.3f} of bound, matmul {ratios['matmul'][2]:.3f} of bound, "
          f"matmul-l1 {ratios['matmul-l1'][2]:.3f} of bound (critical pipe {critical['matmul-l1']})")
    below = [f"{n} stage {st}" for n in ratios for st, r in ratios[n].items() if r < 1.0]
    if below:
        print(f"FAIL: faster than the bound (a modelling error): {', '.join(below)}")
    ok = (not below and all(ratios[n][2] <= 1.05 for n in ratios)
          and ratios["copy"][1] > ratios["copy"][2] * 1.05 and critical["matmul-l1"] == "CUBE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
