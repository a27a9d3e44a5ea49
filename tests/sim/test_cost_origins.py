"""Every op the registry prices has a cost with a stated origin, on every target, and the trace records it.

The op registry (``tilefold.ops``) gives each op a cost class (``OpDef.cost``); the target's cost table
(``tilefold.targets.costs``, data in ``costs_a2a3.py`` / ``costs_a5.py``) prices it. Walked here, op by op:

- a vector op's PTO instruction has a measured entry or a stated extrapolation rule (``EXTRAPOLATED_OPS``: the
  measured families it is priced like and why), never a silent default; its price is "measured" or
  "extrapolated", for every dtype and shape structure (contiguous, narrow rows, row-padded);
- a cube op is priced by the cube formula ("measured" on A2/A3, "extrapolated" on A5: A2/A3's formula);
- every data path a target supports (loads, stores, copies, cross-core legs) has an entry; only the on-chip
  cube paths no reference measures are "assumed", and they are exactly the ones listed here;
- the trace records, per costed instruction, one of the origins.
"""

import numpy as np
import pytest
from sim_helpers import Left, Mat, Right, Vec, buf, program, tensor

from tilefold.backend.pto import SConst, TExtract, TLoad, TStore, TVector
from tilefold.ops import OpKind, all_ops
from tilefold.sim import simulate
from tilefold.sim.trace import chrome_trace
from tilefold.targets import TARGETS, get_target
from tilefold.targets.costs import ORIGINS

COST_CLASSES = {"dma", "vector", "cube", "scalar", "none", "custom", "copy", "cross_core", "barrier", "pipe_sync"}
DTYPES = ("fp32", "fp16", "bf16", "int32", "int16", "int8")
#: (shape, valid shape): contiguous, one row, narrow rows, a row-padded (strided) tile
SHAPES = (((16, 64), None), ((1, 64), None), ((64, 8), None), ((16, 128), (16, 48)))
#: the data paths no reference measures (on-chip moves into the cube's operand buffers, L1 -> L1, L0C -> UB):
#: their figures are assumptions, marked "assumed" in the table and the trace (docs/backend.md)
ASSUMED_PATHS = {("Mat", "Left"), ("Mat", "Right"), ("Mat", "Bias"), ("Mat", "Mat"), ("Acc", "Vec")}


def _ops(cost: str):
    return [(name, op) for name, op in sorted(all_ops().items()) if op.cost == cost]


def test_every_op_has_a_cost_class_and_unpriced_ops_never_reach_the_machine_as_work():
    for name, op in all_ops().items():
        assert op.cost in COST_CLASSES, (name, op.cost)
        if op.cost == "none":  # tensor-level ops are lowered to tile ops first; views move no data
            assert op.pto is None or op.kind is OpKind.VIEW, name
        else:
            assert op.pto or op.cost == "cube", name  # batch matmuls lower to per-batch matmuls


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_barrier_ops_are_priced_by_the_targets_system_table_and_marked_assumed(target):
    from tilefold.targets.system import barrier_costs

    assert {name for name, _ in _ops("barrier")} == {"system.syncall", "system.fence", "system.cacheinvalid"}
    costs = barrier_costs(get_target(target))
    assert costs.source.startswith("assumed") and min(costs.hard, costs.fence, costs.invalidate_all) > 0


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_pipe_sync_ops_are_priced_by_the_targets_system_table_and_marked_assumed(target):
    """set_flag / wait_flag cost no pipe time of their own (the wait is the schedule's), the pipe barriers do; no
    reference gives a figure for any of them (docs/backend.md)."""
    from tilefold.targets.system import pipe_sync_costs

    assert {name for name, _ in _ops("pipe_sync")} == {"system.sync_src", "system.sync_dst", "system.bar_v",
                                                        "system.bar_m", "system.bar_all"}
    costs = pipe_sync_costs(get_target(target))
    assert costs.source.startswith("assumed") and costs.set_flag == costs.wait_flag == 0
    assert 0 < costs.pipe_barrier <= costs.barrier_all


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_vector_op_has_a_measured_entry_or_a_stated_rule(target):
    tab = get_target(target).costs.table
    rules = tab.module.EXTRAPOLATED_OPS
    ratio_rules = getattr(tab.module, "A5_RATIO_RULES", {})  # A2/A3: ops priced by A5's ratio to a family
    measured = tab.measured_ops()
    for name, op in _ops("vector"):
        mnemonic = op.pto.upper()
        assert mnemonic in measured or mnemonic in rules, (target, name, mnemonic)
        variants = [None] + (["high_precision"] if "cost_variant" in op.extra else [])
        for dt in DTYPES:
            for (rows, cols), valid in SHAPES:
                vr, vc = valid or (rows, cols)
                for variant in variants:
                    extra = () if variant is None else (variant,)
                    p = tab.vector(mnemonic, dt, dt, rows, cols, vr, vc, *extra)
                    assert p.cycles >= 1 and p.pipe == "VECTOR" and p.rule, (target, name, dt, p)
                    assert p.origin in ("measured", "extrapolated"), (target, name, dt, p)
                    if mnemonic not in measured:
                        why = [rules[mnemonic][1]] + [r[2] for r in [ratio_rules.get(mnemonic)] if r]
                        assert p.origin == "extrapolated" and any(w in p.rule for w in why), (target, name, p)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_cube_op_is_priced_by_the_cube_formula(target):
    tab = get_target(target).costs.table
    want = "measured" if tab.name == "A2/A3" else "extrapolated"
    assert _ops("cube")
    for dt in ("fp16", "bf16", "fp32", "int8", "fp8_e4m3"):
        p = tab.cube(32, 64, 48, dt)
        assert p.pipe == "CUBE" and p.origin == want and p.cycles > tab.module.CUBE["startup"], (target, dt, p)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_supported_data_path_has_a_price_with_an_origin(target):
    t = get_target(target)
    tab = t.costs.table
    assumed = set()
    for src, dst in t.data_paths:
        bpc, latency, origin, source = tab.path(src.name, dst.name)
        assert bpc > 0 and latency >= 0 and source and origin in ORIGINS, (target, src, dst)
        if origin == "assumed":
            assumed.add((src.name, dst.name))
        else:
            assert origin in ("measured", "extrapolated"), (target, src, dst, origin)
    assert assumed <= ASSUMED_PATHS, assumed - ASSUMED_PATHS
    gm = {p for p in t.data_paths if "DDR" in (p[0].name, p[1].name)}
    assert gm and all(tab.path(s.name, d.name)[2] != "assumed" for s, d in gm)  # loads, stores: measured


def _kernel_records(target):
    z = SConst(0)
    body = [TLoad("a", "x", (z, z), (16, 64)), TVector("texp", "tile.exp", "e", ("a",)),
            TVector("trowsum", "tile.row_sum", "s", ("e", "tmp")), TStore("out", (z, z), "e", (16, 64)),
            TLoad("m", "w", (z, z), (16, 16)), TExtract("l", "m", z, z), TExtract("r", "m", z, z)]
    bufs = [buf("a", Vec, 0, 16, 64), buf("e", Vec, 4096, 16, 64), buf("tmp", Vec, 8192, 16, 64),
            buf("s", Vec, 12288, 16, 1), buf("m", Mat, 0, 16, 16), buf("l", Left, 0, 16, 16),
            buf("r", Right, 0, 16, 16)]
    p = program(body, bufs, [tensor("x", (16, 64)), tensor("w", (16, 16)), tensor("out", (16, 64), "Out")],
                target=target)
    return simulate(p, {"x": np.ones((16, 64), np.float32), "w": np.ones((16, 16), np.float32)},
                    target=get_target(target))


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_the_trace_records_each_instructions_cost_origin(target):
    res = _kernel_records(target)
    records = res.instruction_records()
    by_pipe = {}
    for r in records:
        assert r["origin"] in ORIGINS, r
        by_pipe.setdefault(r["pipe"], set()).add(r["origin"])
    vector_origin = "measured" if target == "Ascend910B" else "extrapolated"  # A5's TROWSUM is A2/A3's family
    assert by_pipe["VECTOR"] == {"measured", vector_origin}
    # GM -> UB measured on A2/A3, GM -> L1 priced like it; A5 takes A2/A3's figures (no A5 measurement)
    assert by_pipe["MTE2"] == ({"measured", "extrapolated"} if target == "Ascend910B" else {"extrapolated"})
    assert by_pipe["MTE1"] == {"assumed"}  # L1 -> L0A / L0B: no reference measures them
    events = [e for e in chrome_trace(res)["traceEvents"] if e["ph"] == "X" and e.get("cat") != "launch"]
    costed = [e for e in events if e["dur"] > 0]
    assert len(costed) >= len([r for r in records if r["cycles"] > 0])
    assert all(e["args"]["cost"] in ORIGINS for e in costed), [e for e in costed if e["args"]["cost"] not in ORIGINS]
