"""Double buffering: a load -> compute -> store loop at pl.pipeline stage 1, 2 and 3.

The kernel streams NT tiles of a [NT * 32, 256] FP32 tensor through one AIV sub-block: load (MTE2), a
chain of vector ops (VECTOR), store (MTE3). At stage 1 every iteration's load waits for the previous
iteration's compute to release the one buffer; at stage 2 codegen gives the second copy of the body its
own buffers, so iteration i+1's load overlaps iteration i's compute; stage 3 adds a third set. The
table prints each stage's simulated kernel time (cycles, including the target's launch overhead, and
microseconds), the busiest pipe's busy cycles (the bound the pipeline approaches) and the ratio.

Every variant is checked against the golden interpreter first. Ends with the summary line
``overlap: stage1 N cycles, stage2 N cycles, stage3 N cycles``. Exits 1 when stage 2 is not faster than stage 1
(the goal of double buffering), when stage 3 is slower than stage 2 (a deeper pipeline is never slower), or
when a kernel takes fewer cycles than its busiest pipe is busy (ratio below 1: impossible, a timing-model bug).

Run: ``python benchmarks/overlap.py [--target NAME] [--tiles NT] [--ops N] [--plot]``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tilefold.language as pl
from tilefold.bench import print_table
from tilefold.compiler import compile as compile_program
from tilefold.golden import run_program
from tilefold.sim import simulate
from tilefold.targets import get_target
from tilefold.testing.precision import compare


def source(tiles: int, ops: int, stage: int) -> str:
    chain = "\n".join(f"            t{i + 1} = pl.tile.muls(t{i}, 1.0001)" for i in range(ops))
    return f'''
import tilefold.language as pl

@pl.program
class Overlap:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, a: pl.Tensor[[{tiles * 64}, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[{tiles * 64}, 256], pl.FP32]]) -> pl.Tensor[[{tiles * 64}, 256], pl.FP32]:
        sb = pl.tile.get_subblock_idx()
        for i, (o,) in pl.pipeline({tiles}, init_values=(out,), stage={stage}):
            t0: pl.Tile[[32, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64 + sb * 32, 0], [32, 256],
                                                                      target_memory=pl.Mem.Vec)
{chain}
            o2 = pl.store(t{ops}, [i * 64 + sb * 32, 0], o)
            r = pl.yield_(o2)
        return r
'''


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="Ascend910B")
    ap.add_argument("--tiles", type=int, default=24)
    ap.add_argument("--ops", type=int, default=6, help="vector ops per tile (balances compute against DMA)")
    ap.add_argument("--plot", action="store_true", help="also write overlap.png (one timeline per stage)")
    args = ap.parse_args(argv)
    target = get_target(args.target)
    a = np.random.default_rng(0).uniform(-1, 1, (args.tiles * 64, 256)).astype(np.float32)
    rows, cycles, below_bound = [], {}, []
    for stage in (1, 2, 3):
        prog = pl.parse(source(args.tiles, args.ops, stage), filename=f"overlap_stage{stage}.py")
        comp = compile_program(prog, target=target.name)
        res = simulate(comp.pto, {"a": a}, target)
        check = compare(res.outputs["out"], run_program(prog, {"a": a})["out"])
        if not check.matches:
            raise SystemExit(f"stage {stage}: differs from golden ({check.describe()})")
        unit = max(res.busy.values(), key=lambda per: max(per.values()))
        busiest = max(unit, key=lambda p: unit[p])
        body = res.cycles - target.launch_overhead_cycles
        cycles[stage] = res.cycles
        if body < unit[busiest]:  # a pipe cannot be busy for longer than the kernel runs: a timing-model bug
            below_bound.append(stage)
        rows.append([stage, int(res.cycles), f"{res.microseconds:.2f}", int(body), busiest.value,
                     int(unit[busiest]), f"{body / unit[busiest]:.3f}"])
        if args.plot:
            from tilefold.sim.trace import plot_timeline

            plot_timeline(res, f"overlap_stage{stage}.png", title=f"stage {stage}: {res.cycles:.0f} cycles")
    print_table(["stage", "cycles", "us", "cycles after launch", "busiest pipe", "its busy cycles",
                 "ratio to it"], rows,
                title=f"load -> {args.ops} vector ops -> store over {args.tiles} tiles on {target.name} "
                      f"(launch overhead {target.launch_overhead_cycles} cycles, fitted by sub_block.py --calibrate; "
                      f"no hardware measurement of this kernel: the ratio is to the model's own busiest pipe)")
    if args.plot:
        print("timelines written to overlap_stage1.png, overlap_stage2.png, overlap_stage3.png")
    print(f"overlap: stage1 {cycles[1]:.0f} cycles, stage2 {cycles[2]:.0f} cycles, stage3 {cycles[3]:.0f} cycles")
    ok = cycles[2] < cycles[1] and cycles[3] <= cycles[2] and not below_bound
    if cycles[2] >= cycles[1]:
        print("overlap: GOAL NOT MET: stage 2 is not faster than stage 1")
    if cycles[3] > cycles[2]:
        print("overlap: GOAL NOT MET: stage 3 is slower than stage 2 (a deeper pipeline must never be slower)")
    if below_bound:
        print(f"overlap: MODEL BUG: stage(s) {below_bound} finish before their busiest pipe's busy cycles")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
