"""Simulator speed: wall time of ``tilefold.sim.simulate`` against the same math in plain numpy.

Two workloads:

- ``vector-chain``: a 256x256 FP32 tensor through a chain of 20 vector instructions. UB holds 192 KiB,
  so the kernel processes the tensor as 4 row blocks of [64, 256] (one per block / core, block_dim=4);
- ``matmul``: a 128x128x512 BF16 matmul (FP32 accumulate) with a K loop of 4 steps of 128 (L0A / L0B
  hold 64 KiB each).

Compilation happens once, outside the timed region. Each measurement is the trimmed median of several
rounds; a round times a batch of back-to-back calls after a warm-up, and the simulator and numpy
rounds are interleaved so that load from other processes hits both alike. BLAS runs single-threaded
(``OPENBLAS_NUM_THREADS`` & co. are set before numpy is imported; ``threadpoolctl`` limits the pools too
when it is installed): the simulator's matmuls and the numpy baseline then use the same one core, and a
descheduled BLAS helper thread on a busy machine cannot stall either side. The baseline is the same math
in plain numpy: the BF16 -> FP32 casts plus one FP32 matmul (no tiling), and the 20 ufuncs on the whole
tensor. The goal is simulator time within 5x of numpy; the script exits 1 when a workload misses it or
computes a wrong result. Run:
``python benchmarks/simulator.py [--repeats N] [--threads N]``.
"""

from __future__ import annotations

import os
import sys


def _limit_blas_threads(n: int) -> None:
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[var] = str(n)


def _threads_from_argv(argv: list[str]) -> int:
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 1


if "numpy" not in sys.modules:  # must happen before numpy (and its BLAS) is loaded
    _limit_blas_threads(_threads_from_argv(sys.argv[1:]))

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import tilefold.language as pl  # noqa: E402
from tilefold.compiler import compile as tf_compile  # noqa: E402
from tilefold.sim import simulate  # noqa: E402

try:  # optional: also limit pools numpy loaded before this module could set the environment
    from threadpoolctl import threadpool_limits  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - threadpoolctl is not a dependency
    threadpool_limits = None

CHAIN_OPS = [
    ("adds", 1.0), ("muls", 0.5), ("exp", None), ("adds", -1.0), ("abs", None),
    ("adds", 1.0), ("log", None), ("muls", 2.0), ("relu", None), ("adds", 0.25),
    ("sqrt", None), ("muls", 0.75), ("maxs", 0.1), ("recip", None), ("mins", 4.0),
    ("subs", 0.5), ("neg", None), ("abs", None), ("rsqrt", None), ("muls", 3.0),
]


def vector_chain_source() -> str:
    lines = [
        "import tilefold.language as pl",
        "",
        "@pl.program",
        "class VectorChain:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        "    def kernel(self, x: pl.Tensor[[256, 256], pl.FP32],",
        "               out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:",
        "        b = pl.tile.get_block_idx()",
        "        row = b * 64",
        "        t0: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [row, 0], [64, 256],"
        " target_memory=pl.Mem.Vec)",
    ]
    for i, (name, arg) in enumerate(CHAIN_OPS):
        call = f"pl.tile.{name}(t{i}, {arg})" if arg is not None else f"pl.tile.{name}(t{i})"
        lines.append(f"        t{i + 1}: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = {call}")
    lines += [f"        out = pl.store(t{len(CHAIN_OPS)}, [row, 0], out)", "        return out", ""]
    return "\n".join(lines)


def vector_chain_numpy(x: np.ndarray) -> np.ndarray:
    fns = {
        "adds": np.add, "subs": np.subtract, "muls": np.multiply, "maxs": np.maximum, "mins": np.minimum,
        "exp": np.exp, "log": np.log, "abs": np.abs, "sqrt": np.sqrt, "neg": np.negative,
        "relu": lambda v: np.maximum(v, 0), "recip": lambda v: 1.0 / v, "rsqrt": lambda v: 1.0 / np.sqrt(v),
    }
    t = x
    for name, arg in CHAIN_OPS:
        t = fns[name](t, np.float32(arg)) if arg is not None else fns[name](t)
    return t


MATMUL_SOURCE = """
import tilefold.language as pl

@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 512], pl.BF16], b: pl.Tensor[[512, 128], pl.BF16],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        am = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        a0 = pl.tile.extract(am, 0, 0, shape=[128, 128], target_memory=pl.Mem.Left)
        b0 = pl.tile.extract(bm, 0, 0, shape=[128, 128], target_memory=pl.Mem.Right)
        c0 = pl.tile.matmul(a0, b0)
        for k, (c_iter,) in pl.range(128, 512, 128, init_values=(c0,)):
            ak = pl.tile.extract(am, 0, k, shape=[128, 128], target_memory=pl.Mem.Left)
            bk = pl.tile.extract(bm, k, 0, shape=[128, 128], target_memory=pl.Mem.Right)
            c_next = pl.tile.matmul_acc(c_iter, ak, bk)
            c_out = pl.yield_(c_next)
        out = pl.store(c_out, [0, 0], out)
        return out
"""


def _round(fn: Callable[[], object], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def _calls_per_round(fn: Callable[[], object], budget: float = 0.02) -> int:
    """Enough back-to-back calls for one round to last about ``budget`` seconds (timer noise << 1 %)."""
    t = max(_round(fn, 1), 1e-6)
    return max(1, min(1000, int(budget / t)))


def _trimmed_median(samples: list[float]) -> float:
    samples = sorted(samples)
    trim = len(samples) // 5
    return statistics.median(samples[trim:len(samples) - trim] or samples)


def compare(sim: Callable[[], object], ref: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(simulator seconds, numpy seconds) per call: trimmed medians of interleaved rounds."""
    for f in (sim, ref):  # warm-up: caches, lazy imports, page faults of fresh memories
        f()
        f()
    n_sim, n_ref = _calls_per_round(sim), _calls_per_round(ref)
    t_sim, t_ref = [], []
    for _ in range(repeats):
        t_sim.append(_round(sim, n_sim))
        t_ref.append(_round(ref, n_ref))
    return _trimmed_median(t_sim), _trimmed_median(t_ref)


def run(repeats: int = 15) -> list[dict[str, object]]:
    rng = np.random.default_rng(0)
    rows = []

    prog = pl.parse(vector_chain_source(), filename="<vector-chain>")
    compiled = tf_compile(prog, options={"enable_auto_bind_sub_block": False})
    x = rng.uniform(0.5, 2.0, size=(256, 256)).astype(np.float32)
    res = simulate(compiled.pto, {"x": x}, block_dim=4)
    expected = vector_chain_numpy(x)
    ok = bool(np.allclose(res.outputs["out"], expected, rtol=1e-5, atol=1e-5, equal_nan=True))
    t_sim, t_np = compare(lambda: simulate(compiled.pto, {"x": x}, block_dim=4), lambda: vector_chain_numpy(x),
                          repeats)
    rows.append({"workload": "vector-chain 256x256 fp32 x20", "sim_ms": t_sim * 1e3, "numpy_ms": t_np * 1e3,
                 "ratio": t_sim / t_np, "cycles": res.cycles, "instructions": res.instructions, "ok": ok})

    prog = pl.parse(MATMUL_SOURCE, filename="<matmul>")
    compiled = tf_compile(prog)
    a = rng.uniform(-1, 1, size=(128, 512)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1, 1, size=(512, 128)).astype(ml_dtypes.bfloat16)
    res = simulate(compiled.pto, {"a": a, "b": b})

    def np_matmul() -> np.ndarray:
        return a.astype(np.float32) @ b.astype(np.float32)

    ok = bool(np.allclose(res.outputs["out"], np_matmul(), rtol=1e-4, atol=1e-3))
    t_sim, t_np = compare(lambda: simulate(compiled.pto, {"a": a, "b": b}), np_matmul, repeats)
    rows.append({"workload": "matmul 128x128x512 bf16", "sim_ms": t_sim * 1e3, "numpy_ms": t_np * 1e3,
                 "ratio": t_sim / t_np, "cycles": res.cycles, "instructions": res.instructions, "ok": ok})
    return rows


GOAL_RATIO = 5.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed rounds per side (trimmed median)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads for both sides (set before numpy loads; default 1)")
    args = parser.parse_args(argv)
    if threadpool_limits is not None:
        with threadpool_limits(limits=args.threads):
            rows = run(args.repeats)
    else:
        rows = run(args.repeats)
    print(f"BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, repeats: {args.repeats}, "
          f"threadpoolctl: {'yes' if threadpool_limits is not None else 'no'}")
    print(f"{'workload':34s} {'sim ms':>9s} {'numpy ms':>9s} {'ratio':>7s} {'goal':>5s} {'cycles':>10s} "
          f"{'instrs':>7s}  ok")
    for r in rows:
        goal = "met" if r["ratio"] <= GOAL_RATIO else "MISS"
        print(f"{r['workload']:34s} {r['sim_ms']:9.3f} {r['numpy_ms']:9.3f} {r['ratio']:6.2f}x {goal:>5s} "
              f"{r['cycles']:10.0f} {r['instructions']:7d}  {'yes' if r['ok'] else 'NO'}")
    wrong = [r["workload"] for r in rows if not r["ok"]]
    slow = [r["workload"] for r in rows if r["ratio"] > GOAL_RATIO]
    if wrong:
        print(f"simulator: WRONG result for {', '.join(wrong)}")
    print(f"simulator: goal (within {GOAL_RATIO:.0f}x of numpy) " + (f"MISSED by {', '.join(slow)}" if slow else "met"))
    return 0 if not wrong and not slow else 1


if __name__ == "__main__":
    raise SystemExit(main())
