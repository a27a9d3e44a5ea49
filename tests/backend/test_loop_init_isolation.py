"""Loop iter args share their init's storage only when the loop owns the init exclusively.

When the init (or anything sharing its storage) is still read after the loop starts -- after the loop, by
a second loop, through the source of a view -- InitMemRef copies it (``tile.move``) before the loop and
the loop carries the copy. Every program here is compared with the golden model on the simulator.
"""

import numpy as np
import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.analysis.liveness import compute_liveness
from tilefold.ir.expr import Call
from tilefold.ir.stmt import AssignStmt, ForStmt
from tilefold.passes.memory_planning.allocate_memory_addr import plan_memory
from tilefold.passes.memory_planning.memref_common import tile_vars
from tilefold.testing import run_and_compare

VEC = "target_memory=pl.Mem.Vec"
PARAMS = "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
LOAD = f"a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})"


def _moves(program) -> list[AssignStmt]:
    from tilefold.analysis.tile_layout import all_stmts as _all_stmts

    fn = program.functions[0]
    return [s for s in _all_stmts(fn.body) if isinstance(s, AssignStmt) and isinstance(s.value, Call)
            and s.value.op_name == "tile.move"]


def _check(src: str, seed: int = 0, **kw):
    x = np.random.default_rng(seed).uniform(-1, 1, (16, 64)).astype(np.float32)
    rep = run_and_compare(pl.parse(src), {"x": x}, **kw)
    assert rep.fault is None and rep.matches, rep.summary()
    return rep


INIT_READ_AFTER = kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 3, init_values=(a,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
    res = pl.yield_(nxt)
d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(res, a)
out = pl.store(d, [0, 0], out)
return out
""")


@pytest.mark.parametrize("split", [True, False])
def test_init_read_after_the_loop_keeps_its_value(split):
    rep = _check(INIT_READ_AFTER, options={"enable_auto_bind_sub_block": split})
    (move,) = _moves(rep.compiled.ir)
    v = {v.name: v for v, _ in tile_vars(rep.compiled.ir.functions[0])}
    assert v["acc"].type.memref.base == move.var.type.memref.base != v["a"].type.memref.base
    assert v["res"].type.memref.address != v["a"].type.memref.address


def test_init_shared_by_two_loops():
    _check(kernel_src(PARAMS, f"""
{LOAD}
for i, (p,) in pl.range(0, 2, init_values=(a,)):
    pn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(p, 2.0)
    r1 = pl.yield_(pn)
for j, (q,) in pl.range(0, 3, init_values=(a,)):
    qn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(q, 1.0)
    r2 = pl.yield_(qn)
d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r1, r2)
out = pl.store(d, [0, 0], out)
return out
"""), seed=1)


def test_same_init_for_two_iter_args_of_one_loop():
    _check(kernel_src(PARAMS, f"""
{LOAD}
for i, (p, q) in pl.range(0, 2, init_values=(a, a)):
    pn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(p, 2.0)
    qn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(q, 1.0)
    r1, r2 = pl.yield_(pn, qn)
d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(r1, r2)
out = pl.store(d, [0, 0], out)
return out
"""), seed=2)


def test_init_read_inside_the_loop_body():
    _check(kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 3, init_values=(a,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
"""), seed=3)


def test_init_that_is_a_view_of_a_tile_read_later():
    """``lo`` is a reshape view of ``t``: the loop must not write through it while ``t`` is still read."""
    params = "x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]"
    src = kernel_src(params, f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
lo: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(t, [32, 64])
for i, (acc,) in pl.range(0, 2, init_values=(lo,)):
    nxt: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
    res = pl.yield_(nxt)
back: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(res, [16, 128])
d: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.sub(back, t)
out = pl.store(d, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 128], pl.FP32]")
    x = np.random.default_rng(4).uniform(-1, 1, (16, 128)).astype(np.float32)
    rep = run_and_compare(pl.parse(src), {"x": x}, options={"enable_auto_bind_sub_block": False})
    assert rep.fault is None and rep.matches, rep.summary()
    assert len(_moves(rep.compiled.ir)) == 1


def test_exclusive_init_is_not_copied():
    src = kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 3, init_values=(a,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
""")
    assert _moves(plan_memory(pl.parse(src))) == []
    _check(src, seed=5)


def test_nested_loop_carrying_the_outer_iter_arg_is_not_copied():
    src = kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 2, init_values=(a,)):
    for j, (inner,) in pl.range(0, 2, init_values=(acc,)):
        nx: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(inner, 1.0)
        r_in = pl.yield_(nx)
    r_out = pl.yield_(r_in)
out = pl.store(r_out, [0, 0], out)
return out
""")
    assert _moves(plan_memory(pl.parse(src))) == []
    _check(src, seed=6)


def test_init_defined_outside_an_enclosing_loop_is_copied_every_time():
    """The inner loop re-starts from ``a`` on every outer iteration: ``a`` must survive the inner loop."""
    _check(kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 2, init_values=(a,)):
    for j, (inner,) in pl.range(0, 2, init_values=(a,)):
        nx: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(inner, 1.0)
        r_in = pl.yield_(nx)
    s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, r_in)
    r_out = pl.yield_(s)
out = pl.store(r_out, [0, 0], out)
return out
"""), seed=7)


def test_liveness_without_carried_uses_ends_at_the_last_read():
    fn = pl.parse(INIT_READ_AFTER).functions[0]
    loop = next(s for s in fn.body.stmts if isinstance(s, ForStmt))
    acc = loop.iter_args[0]
    full = compute_liveness(fn)
    reads = compute_liveness(fn, carried_uses=False)
    assert full.interval(acc)[1] > reads.interval(acc)[1]  # the back edge keeps it live to the loop end
    a = next(s.var for s in fn.body.stmts if isinstance(s, AssignStmt) and s.var.name == "a")
    assert reads.interval(a)[1] > full.position(loop)  # read again after the loop


def test_call_as_loop_init_is_computed_before_the_loop():
    """``init_values=(pl.tile.full(...),)``: the init is bound to a variable (and so computed) first."""
    _check(kernel_src(PARAMS, f"""
{LOAD}
for i, (acc,) in pl.range(0, 3, init_values=(pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=1.0, {VEC}),)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, a)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
"""), seed=8)


def test_same_init_for_an_updated_and_an_unchanged_iter_arg():
    """``q`` is passed through unchanged and lives on ``a``'s storage: ``p``'s back edge must not write it."""
    src = kernel_src(PARAMS, f"""
{LOAD}
for i, (p, q) in pl.range(0, 2, init_values=(a, a)):
    pn: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, q)
    r1, r2 = pl.yield_(pn, q)
d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(r1, r2)
out = pl.store(d, [0, 0], out)
return out
""")
    assert len(_moves(plan_memory(pl.parse(src)))) == 1
    _check(src, seed=9)


def test_inserted_copies_round_trip_after_every_planning_pass():
    from tilefold.passes.pass_manager import PassContext, RoundTripInstrument
    from tilefold.passes.pipeline import default_tile_pipeline

    inst = RoundTripInstrument()
    program = pl.parse(INIT_READ_AFTER)
    with PassContext(instruments=[inst]):
        for p in default_tile_pipeline("Ascend910B"):
            program = p(program)
    assert {"InitMemRef", "MemoryReuse", "AllocateMemoryAddr"} <= set(inst.checked)
    assert len(_moves(program)) == 1
