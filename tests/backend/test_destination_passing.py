"""Destination-passing custom ops in memory planning: result i lives on output init ``outs[i]``.

The registry states the fact once (``OpDef.results_reuse_segment == "outs"``); InitMemRef gives each result
(and the element types of the tuple variable a multi-result call is bound to) its destination's MemRef,
and gives the op a fresh destination when its output init is still read afterwards.
"""

from pathlib import Path

import numpy as np
import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.ir.expr import Call, TupleGetItem, Var
from tilefold.ir.stmt import AssignStmt
from tilefold.ir.types import TupleType
from tilefold.ops import get_op, op_of, result_destinations
from tilefold.passes.memory_planning.init_mem_ref import init_mem_ref
from tilefold.passes.memory_planning.memref_common import tile_vars
from tilefold.passes.pass_manager import PassContext, RoundTripInstrument
from tilefold.passes.pipeline import default_tile_pipeline
from tilefold.testing import run_and_compare

SEED = Path(__file__).resolve().parents[2] / "examples" / "seeds" / "customop_multi_result.py"
MAPS3 = ('[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)"), '
         'pl.affine_map("(d0, d1) -> (d0, d1)")]')
MAPS2 = '[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")]'
ITERS = "[pl.parallel, pl.parallel]"
VEC = "target_memory=pl.Mem.Vec"


@pytest.fixture
def kernels():
    register_custom_op("split_kernel", lambda x: ((x * 2.0).astype(np.float32), (x + 1.0).astype(np.float32)),
                       replace=True)
    register_custom_op("dp_scale", lambda x: (x * 3.0).astype(np.float32), replace=True)
    yield
    unregister_custom_op("split_kernel")
    unregister_custom_op("dp_scale")


def _stmts(fn):
    return [s for s in fn.body.stmts if isinstance(s, AssignStmt)]


def _by_name(fn):
    return {v.name: v for v, _ in tile_vars(fn)}


def test_registry_states_destination_passing_once():
    for name in ("tile.custom", "tile.custom_macro"):
        assert get_op(name).results_reuse_segment == "outs"
    assert get_op("tile.matmul_acc").results_reuse_segment is None
    call = next(s.value for s in _stmts(pl.parse_file(str(SEED)).functions[0])
                if isinstance(s.value, Call) and op_of(s.value) is get_op("tile.custom"))
    assert [d.name for d in result_destinations(call)] == ["init_a", "init_b"]


def test_multi_result_custom_results_live_on_their_own_output_inits():
    fn = compile(pl.parse_file(str(SEED))).ir.functions[0]
    v = _by_name(fn)
    for res, init in (("ya", "init_a"), ("yb", "init_b")):
        mr, init_mr = v[res].type.memref, v[init].type.memref
        assert mr.base == init_mr.base and mr.address == init_mr.address, (res, mr, init_mr)
    assert v["ya"].type.memref.address != v["x_t"].type.memref.address
    # the tuple variable's element types carry the destinations' MemRefs
    tup = next(s.var for s in _stmts(fn) if isinstance(s.var.type, TupleType))
    assert [t.memref for t in tup.type.types] == [v["init_a"].type.memref, v["init_b"].type.memref]


def _seed_with_reads_after_the_call() -> str:
    # keeps ya live while new tiles are defined: MemoryReuse must not hand init_b's storage (where yb lives)
    # to one of them
    return SEED.read_text().replace(
        "        out_a = pl.store(ya, [0, 0], out_a)",
        "        za = pl.tile.muls(ya, 3.0)\n"
        "        wa = pl.tile.add(za, ya)\n"
        "        out_a = pl.store(wa, [0, 0], out_a)")


@pytest.mark.parametrize("split", [True, False])
def test_multi_result_custom_op_runs_correctly_on_the_simulator(kernels, split):
    x = np.random.default_rng(0).uniform(-1, 1, (16, 64)).astype(np.float32)
    opts = {"enable_auto_bind_sub_block": split}
    for src in (SEED.read_text(), _seed_with_reads_after_the_call()):
        rep = run_and_compare(pl.parse(src), {"x": x}, options=opts)
        assert rep.fault is None and rep.matches, rep.summary()


@pytest.mark.parametrize("which", ["seed", "fresh_destination"])
def test_round_trip_holds_after_every_planning_pass(which):
    inst = RoundTripInstrument()
    program = pl.parse_file(str(SEED)) if which == "seed" else pl.parse(_out_init_read_after_src())
    with PassContext(instruments=[inst]):
        for p in default_tile_pipeline("Ascend910B"):
            program = p(program)
    assert {"InitMemRef", "MemoryReuse", "AllocateMemoryAddr"} <= set(inst.checked)


def test_round_trip_after_init_mem_ref_alone():
    inst = RoundTripInstrument(check_input=True)
    with PassContext(instruments=[inst]):
        out = init_mem_ref()(pl.parse_file(str(SEED)))
    assert inst.checked == ["InitMemRef"]
    # the tuple elements got MemRefs, and the unpacked results agree with them
    fn = out.functions[0]
    tup = next(s.var for s in _stmts(fn) if isinstance(s.var.type, TupleType))
    for s in _stmts(fn):
        if isinstance(s.value, TupleGetItem):
            assert s.var.type.memref == tup.type.types[s.value.index].memref


def _out_init_read_after_src() -> str:
    return kernel_src(
        "x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32], "
        "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})
u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 64], {VEC})
r = pl.tile.custom("dp_scale", ins=[u], outs=[t], indexing_maps={MAPS2}, iterator_types={ITERS}, no_side_effect=True)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, t)
out = pl.store(s, [0, 0], out)
return out
""")


def test_output_init_still_read_after_the_call_gets_a_fresh_destination(kernels):
    prog = pl.parse(_out_init_read_after_src())
    rep = run_and_compare(prog, "random", seed=3)
    assert rep.fault is None and rep.matches, rep.summary()
    fn = rep.compiled.ir.functions[0]
    v = _by_name(fn)
    assert v["r"].type.memref.address != v["t"].type.memref.address
    call = next(s.value for s in _stmts(fn) if isinstance(s.value, Call) and s.var.name == "r")
    (dest,) = result_destinations(call)
    assert isinstance(dest, Var) and op_of(next(s.value for s in _stmts(fn) if s.var is dest)).name == "tile.create"


def test_output_init_that_is_also_an_input_gets_a_fresh_destination(kernels):
    src = kernel_src(
        "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})
r = pl.tile.custom("dp_scale", ins=[t], outs=[t], indexing_maps={MAPS2}, iterator_types={ITERS}, no_side_effect=True)
out = pl.store(r, [0, 0], out)
return out
""")
    rep = run_and_compare(pl.parse(src), "random", seed=4)
    assert rep.fault is None and rep.matches, rep.summary()
    v = _by_name(rep.compiled.ir.functions[0])
    assert v["r"].type.memref.base != v["t"].type.memref.base


def test_exclusively_owned_output_init_is_written_in_place(kernels):
    """No copy or fresh destination when the output init dies at the call (the common case)."""
    fn = compile(pl.parse_file(str(SEED))).ir.functions[0]
    creates = [s for s in _stmts(fn) if isinstance(s.value, Call) and s.value.op_name == "tile.create"]
    assert [s.var.name for s in creates] == ["init_a", "init_b"]


def test_same_output_init_passed_twice_gives_each_result_its_own_storage(kernels):
    src = kernel_src(
        "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})
o: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, {VEC})
a, b = pl.tile.custom("split_kernel", ins=[t], outs=[o, o], indexing_maps={MAPS3}, iterator_types={ITERS},
                      no_side_effect=True)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(a, b)
out = pl.store(s, [0, 0], out)
return out
""")
    # the same init passed twice as a destination: the second result gets its own storage
    rep = run_and_compare(pl.parse(src), "random", seed=5)
    assert rep.fault is None and rep.matches, rep.summary()
    v = _by_name(rep.compiled.ir.functions[0])
    assert v["a"].type.memref.base != v["b"].type.memref.base
