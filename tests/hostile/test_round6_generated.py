"""Generated hostile inputs of the hostile6 round (about 300): every value a pipe sync's, a ring set-up's and a
hierarchy scope's arguments can take that is wrong, odd or at an edge, and the placements of pipe syncs in control
flow. Each input either runs and matches numpy written here, or is a TilefoldError carrying a location and a hint,
or (an event the kernel never sets or never waits for) a located device fault: never a raw Python exception, a
hang, or a wrong value."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.sim.faults import DeviceFault
from tilefold.testing import run_and_compare

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cross_core"))
from xc_helpers import fp16_inputs, incore, matmul32  # noqa: E402

RNG = np.random.default_rng(66)
X = RNG.standard_normal((16, 64)).astype(np.float32)
Y = RNG.standard_normal((16, 64)).astype(np.float32)


def _answer(run, expected) -> str:
    """'ok' (matched ``expected``), 'error' (a located TilefoldError with a hint) or 'fault' (a located device
    fault); anything else fails the test."""
    try:
        out = run()
    except DeviceFault as fault:
        assert fault.span is not None and fault.span.line > 0 and fault.hint, fault.render()
        return "fault"
    except TilefoldError as err:
        assert err.span is not None and err.span.line > 0, err.render()
        assert err.hint, err.render()
        return "error"
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=1e-4, atol=1e-4)
    return "ok"


# ------------------------------------------------------------------------------------------------ pipe syncs

SYNC_KERNEL = """import tilefold.language as pl

EV = 3


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
{body}
        out = pl.store(pl.exp(t), [0, 0], out)
        return out
"""
SRC = "pl.system.sync_src(set_pipe=pl.PipeType.{s}, wait_pipe=pl.PipeType.{w}, event_id={e})"
DST = "pl.system.sync_dst(set_pipe=pl.PipeType.{s}, wait_pipe=pl.PipeType.{w}, event_id={e})"


def _pair(e="0", s="MTE2", w="V") -> str:
    return SRC.format(s=s, w=w, e=e) + "\n" + DST.format(s=s, w=w, e=e)


EVENT_IDS = {"8": "error", "-1": "error", "2**70": "error", "True": "error", "3.0": "error", "'3'": "error",
             "None": "error", "pl.PipeType.V": "error", "10**100": "error", "EV": "ok", "1 + 2": "ok", "-0": "ok",
             "7": "ok", "0x7": "ok", "EV * 3": "error", "2**63": "error", "x": "error", "pl.FP32": "error",
             "[1]": "error", "(1,)": "error", "1j": "error", "...": "error", "EV if EV else 2": "error",
             "int(3)": "error", "t": "error"}
PIPES = {("ALL", "V"): "error", ("V", "ALL"): "error", ("S", "S"): "error", ("M", "V"): "error",
         ("MTE1", "V"): "error", ("FIX", "MTE3"): "error", ("V", "MTE3"): "ok", ("S", "V"): "ok",
         ("MTE2", "MTE3"): "ok", ("V", "S"): "ok", ("MTE3", "MTE2"): "ok", ("V", "M"): "error",
         ("MTE2", "FIX"): "error", ("MTE3", "MTE3"): "error"}
ODD = {
    "positional": ("pl.system.sync_src(pl.PipeType.MTE2, pl.PipeType.V, 0)\n"
                   "pl.system.sync_dst(pl.PipeType.MTE2, pl.PipeType.V, 0)", "ok"),
    "extra keyword": ("pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0, foo=1)",
                      "error"),
    "no event id": ("pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V)", "error"),
    "no arguments": ("pl.system.sync_src()", "error"),
    "pipe as int": ("pl.system.sync_src(set_pipe=3, wait_pipe=1, event_id=0)", "error"),
    "pipe as text": ("pl.system.sync_src(set_pipe='MTE2', wait_pipe='V', event_id=0)", "error"),
    "the enum itself": ("pl.system.sync_src(set_pipe=pl.PipeType, wait_pipe=pl.PipeType.V, event_id=0)", "error"),
    "a level for a pipe": ("pl.system.sync_src(set_pipe=pl.Level.AIV, wait_pipe=pl.PipeType.V, event_id=0)", "error"),
    "an enum's value": ("pl.system.sync_src(set_pipe=pl.PipeType.MTE2.value, wait_pipe=pl.PipeType.V, event_id=0)",
                        "error"),
    "no such pipe": ("pl.system.sync_src(set_pipe=pl.PipeType.MTE9, wait_pipe=pl.PipeType.V, event_id=0)", "error"),
    "a tile for a pipe": ("pl.system.sync_src(set_pipe=t, wait_pipe=pl.PipeType.V, event_id=0)", "error"),
    "barrier argument": ("pl.system.bar_v(1)", "error"),
    "barrier keyword": ("pl.system.bar_all(pipe=pl.PipeType.V)", "error"),
    "cube barrier in a vector kernel": ("pl.system.bar_m()", "error"),
    "no such barrier": ("pl.system.bar_x()", "error"),
    # a sync gives no value: bound to a name or nested in an expression it reached the simulator as a register
    # never written ("register $x read before it was written", no location), or hoisted out of its place (Deadlock)
    "sync bound to a name": ("x = " + _pair().replace("\n", "\nt = pl.adds(t, 0.0)\n", 1), "error"),
    "barrier bound to a name": ("x = pl.system.bar_v()\nt = pl.adds(t, x)", "error"),
    "barrier nested": ("t = pl.add(t, pl.system.bar_v())", "error"),
    "wait nested": ("t = pl.maximum(t, " + DST.format(s="MTE2", w="V", e=0) + ")", "error"),
    "fence bound to a name": ("f = pl.system.fence()", "error"),
    "wait before its set": (DST.format(s="MTE2", w="V", e=0) + "\n" + SRC.format(s="MTE2", w="V", e=0), "fault"),
    "set never waited": (SRC.format(s="MTE2", w="V", e=0), "fault"),
    "two sets one wait": (SRC.format(s="MTE2", w="V", e=0) + "\n" + _pair(), "fault"),
    "twenty sets then twenty waits": ("\n".join([SRC.format(s="MTE2", w="V", e=0)] * 20
                                                + [DST.format(s="MTE2", w="V", e=0)] * 20), "ok"),
    "every event, waits reversed": ("\n".join(SRC.format(s="MTE2", w="V", e=i) for i in range(8)) + "\n"
                                    + "\n".join(DST.format(s="MTE2", w="V", e=7 - i) for i in range(8)), "ok"),
    "ids disagree": (SRC.format(s="MTE2", w="V", e=1) + "\n" + DST.format(s="MTE2", w="V", e=2), "fault"),
    "pipes disagree": (SRC.format(s="MTE2", w="V", e=1) + "\n" + DST.format(s="V", w="MTE3", e=1), "fault"),
    "pair in a loop": ("for i in pl.range(4):\n    " + _pair().replace("\n", "\n    "), "ok"),
    "set in a loop, one wait": ("for i in pl.range(4):\n    " + SRC.format(s="MTE2", w="V", e=0) + "\n"
                                + DST.format(s="MTE2", w="V", e=0), "fault"),
    "one set, waits in a loop": (SRC.format(s="MTE2", w="V", e=0) + "\nfor i in pl.range(4):\n    "
                                 + DST.format(s="MTE2", w="V", e=0), "fault"),
    "set in a zero-trip loop": ("for i in pl.range(0):\n    " + SRC.format(s="MTE2", w="V", e=0) + "\n"
                                + DST.format(s="MTE2", w="V", e=0), "fault"),
    "loop variable as event": ("for i in pl.range(4):\n    " + _pair("i").replace("\n", "\n    "), "error"),
    "pair in a 10**12 loop": ("for i in pl.range(10**12):\n    " + _pair().replace("\n", "\n    "), "error"),
}


def _sync_cases():
    for e, want in EVENT_IDS.items():
        yield f"event_id={e}", _pair(e), want
    for (s, w), want in PIPES.items():
        yield f"{s}->{w}", _pair("1", s, w), want
    for name, (body, want) in ODD.items():
        yield name, body, want


SYNC_CASES = list(_sync_cases())


@pytest.mark.parametrize(("body", "want"), [(b, w) for _n, b, w in SYNC_CASES], ids=[n for n, _b, _w in SYNC_CASES])
def test_a_pipe_sync_input_is_answered_well(body, want):
    def run():
        src = SYNC_KERNEL.format(body=textwrap.indent(body, " " * 8))
        report = run_and_compare(pl.parse(src, "syncs.py"), {"x": X.copy(), "out": np.zeros_like(X)}, max_steps=20_000)
        if report.fault is not None:
            raise report.fault
        return report.outputs["out"]

    assert _answer(run, np.exp(X.astype(np.float64))) == want


# ------------------------------------------------------------------------------------------------ ring set-up

RING_SETUP = """buf = pl.reserve_buffer(name=NAME, size=SIZE, base=BASE)
peer = pl.import_peer_buffer(name=NAME, peer_func=PEER)
pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=DIR, slot_size=SLOT, slot_num=DEPTH, id=ID)
pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=DIR, slot_size=SLOT, slot_num=DEPTH, id=ID)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
for i in pl.range(4):
    a_t = pl.load(a, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
    acc = pl.tile.matmul(a_t, b_t)
    pl.tpush_to_aiv(acc, split=1, id=ID)
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        h = pl.tpop_from_aic(split=1, id=ID)
        e = pl.exp(h)
        pl.tfree_to_aic(h, id=ID)
        out = pl.store(e, [i * 64 + aiv_id * 32, 0], out)
return out
"""
RING_DEFAULTS = {"NAME": '"ring"', "SIZE": "16384", "BASE": "pl.AUTO", "PEER": '"k"', "DIR": "1", "SLOT": "8192",
                 "DEPTH": "2", "ID": "0"}
RING_VALUES = {
    "SIZE": {"0": "error", "-1": "error", "2**62": "error", "10**30": "error", "16384.0": "error", "'16384'": "error",
             "True": "error", "None": "error", "16383": "error", "16385": "ok", "2**31": "error", "i": "error"},
    "SLOT": {"0": "error", "-8192": "error", "2**62": "error", "8191": "error", "8193": "error", "1": "error",
             "8192.0": "error", "None": "error"},
    "DEPTH": {"0": "error", "-1": "error", "1": "ok", "2**40": "error", "3": "error", "None": "error", "1.5": "error"},
    "ID": {"-1": "error", "2**40": "ok", "7": "ok", "None": "error", "'0'": "error", "1.0": "error"},
    "DIR": {"0": "error", "2": "error", "3": "error", "4": "error", "-1": "error", "None": "error", "1.0": "error",
            "True": "error"},
    "BASE": {"-32": "error", "2**62": "error", "31": "error", "0": "ok", "196608": "error", "None": "ok",
             "'0'": "error", "65536": "ok"},
    "NAME": {'""': "error", "3": "error", "None": "error", '"\\u00e9t\\u00e9"': "ok"},
    "PEER": {"3": "error", '""': "error", "None": "error", '"main"': "error", '"K"': "error"},
}
RING_CASES = [(key, value, want) for key, values in RING_VALUES.items() for value, want in values.items()]
RING_PARAMS = ("a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
               "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")


@pytest.mark.parametrize(("key", "value", "want"), RING_CASES, ids=[f"{k}={v}" for k, v, _w in RING_CASES])
def test_a_ring_set_up_value_is_answered_well(key, value, want):
    # size=None / slot_size=None were a raw TypeError (int(None), None * int); dir_mask=1.0 was accepted
    body = RING_SETUP
    for name, default in {**RING_DEFAULTS, key: value}.items():
        body = body.replace(name, default)
    a, b = fp16_inputs(7, (256, 64), (64, 64))

    def run():
        report = run_and_compare(incore(RING_PARAMS, body, ret="pl.Tensor[[256, 64], pl.FP32]"),
                                 {"a": a, "b": b, "out": np.zeros((256, 64), np.float32)})
        if report.fault is not None:
            raise report.fault
        return report.outputs["out"]

    assert _answer(run, np.exp(matmul32(a, b).astype(np.float64))) == want


# ------------------------------------------------------------------------------------------------ hierarchy scopes

HIER = """import tilefold.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        {scope}
            with pl.at(level=pl.Level.CORE_GROUP):
                out[:] = pl.add(x, y)
        return out
"""
LEVELS = ["AIV", "AIC", "CORE", "CORE_GROUP", "CHIP_DIE", "CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2",
          "GLOBAL", "POD", "NODE", "UMA"]
ABOVE = {"CHIP", "HOST", "CLUSTER_0", "CLUSTER_1", "CLUSTER_2", "GLOBAL", "POD", "NODE", "UMA"}


def _hier_want(level: str, role: str | None) -> str:
    if level not in ABOVE or role == "SubWorker":
        return "error"  # an on-chip scope around another, a role on an on-chip level, CHIP_DIE, SubWorker
    if role == "Worker" and level not in ("CHIP", "UMA"):
        return "error"  # a Worker above the chip runs once per chip / host
    return "ok"


HIER_CASES = [(f"with pl.at(level=pl.Level.{lv}" + (f", role=pl.Role.{r}" if r else "") + "):", _hier_want(lv, r))
              for lv in LEVELS for r in (None, "Orchestrator", "Worker", "SubWorker")]
HIER_CASES += [(s, "error") for s in (
    "with pl.at(level=3):", "with pl.at(level='HOST', role=pl.Role.Orchestrator):",
    "with pl.at(level=pl.Level.HOST, role='Orchestrator'):", "with pl.at(level=pl.Level.HOST, role=pl.Role.Boss):",
    "with pl.at(level=pl.Level.MOON):", "with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, role2=1):",
    "with pl.at(pl.Level.HOST, pl.Role.Orchestrator):", "with pl.at(level=None):", "with pl.at():",
    "with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator) as s:")]


@pytest.mark.parametrize(("scope", "want"), HIER_CASES, ids=[s[len("with pl.at("):-2] for s, _w in HIER_CASES])
def test_a_hierarchy_scope_is_answered_well(scope, want):
    def run():
        report = run_and_compare(pl.parse(HIER.format(scope=scope), "hier.py"),
                                 {"x": X.copy(), "y": Y.copy(), "out": np.zeros_like(X)})
        assert report.fault is None, report.summary()
        return report.outputs["out"]

    assert _answer(run, X.astype(np.float64) + Y) == want
