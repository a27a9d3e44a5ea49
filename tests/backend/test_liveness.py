"""analysis.liveness: definition / last-use positions, loop extension, iter args."""

from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.analysis.liveness import compute_liveness
from tilefold.passes.memory_planning.memref_common import tile_vars

VEC = "target_memory=pl.Mem.Vec"


def _fn(body):
    src = kernel_src("x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]", body)
    return pl.parse(src).functions[0]


def _vars(fn):
    return {v.name: v for v, _ in tile_vars(fn)}


def test_straight_line_intervals():
    fn = _fn(f"""
a = pl.tile.load(x, [0, 0], [16, 64], {VEC})
b = pl.tile.exp(a)
c = pl.tile.add(a, b)
out = pl.store(c, [0, 0], out)
return out
""")
    live = compute_liveness(fn)
    v = _vars(fn)
    assert live.interval(v["a"]) == (0, 2)
    assert live.interval(v["b"]) == (1, 2)
    assert live.interval(v["c"]) == (2, 3)
    assert live.live_at(v["a"], 1) and not live.live_at(v["b"], 0)


def test_use_inside_loop_extends_to_loop_end_and_iter_args_span_the_loop():
    fn = _fn(f"""
a = pl.tile.load(x, [0, 0], [16, 64], {VEC})
z = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=0.0, {VEC})
for i, (acc,) in pl.range(0, 4, init_values=(z,)):
    t = pl.tile.muls(a, 2.0)
    n = pl.tile.add(acc, t)
    r = pl.yield_(n)
out = pl.store(r, [0, 0], out)
return out
""")
    live = compute_liveness(fn)
    v = _vars(fn)
    (loop_start, loop_end), = live.loop_spans
    assert live.interval(v["a"])[1] == loop_end  # read every iteration
    assert live.interval(v["acc"]) == (loop_start, loop_end)
    t0, t1 = live.interval(v["t"])
    assert loop_start < t0 <= t1 < loop_end  # defined and dead inside one iteration
    assert live.interval(v["r"])[0] == loop_end
