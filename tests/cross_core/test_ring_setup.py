"""The set-up of a cross-core pipe (pl.reserve_buffer / pl.import_peer_buffer / pl.aic_initialize_pipe /
pl.aiv_initialize_pipe): the ring is carved out of the consumer's on-chip memory, tiles are planned around it, the
pipe takes its depth and slot size from the set-up, and every misuse is a located error. Values never depend on
the ring (numpy references below); its depth only decides which pushes wait for which frees."""

from __future__ import annotations

import numpy as np
import pytest
from xc_helpers import ATOL, RTOL, TARGETS, fp16_inputs, incore, matmul32

from tilefold.backend.cross_core import TFree, TPush
from tilefold.compiler import compile as compile_program
from tilefold.compiler import run_pipeline
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.golden import run_program
from tilefold.ir.types import MemorySpace
from tilefold.sim import simulate
from tilefold.sim.faults import Deadlock

PARAMS = ("a: pl.Tensor[[256, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
          "out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]")
RET = "pl.Tensor[[256, 64], pl.FP32]"
#: a c2v pipe: the lanes (consumers) reserve the ring in their Vec, the cube imports it
SETUP = """
buf = pl.reserve_buffer(name="ring", size=SIZE, base=BASE)
peer = pl.import_peer_buffer(name="ring", peer_func="k")
pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=1, slot_size=SLOT, slot_num=DEPTH, id=0)
pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=1, slot_size=SLOT, slot_num=DEPTH, id=0)
"""
#: four matmul blocks, each pushed to the lanes, which scale their half and store it
LOOP = """
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
for i in pl.range(4):
    a_t = pl.load(a, [i * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
    acc = pl.tile.matmul(a_t, b_t)
    pl.tpush_to_aiv(acc, split=1, id=0)
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        h = pl.tpop_from_aic(split=1, id=0)
        e = pl.exp(h)
        pl.tfree_to_aic(h, id=0)
        out = pl.store(e, [i * 64 + aiv_id * 32, 0], out)
return out
"""
HALF = 32 * 64 * 4  # the [32, 64] FP32 half-tile a lane pops


def _program(depth: int = 2, size: int | None = None, slot: int = HALF, base: str = "pl.AUTO", setup: str = SETUP,
             loop: str = LOOP):
    size = depth * slot if size is None else size
    text = (setup + loop).replace("SIZE", str(size)).replace("BASE", base).replace("SLOT", str(slot)) \
        .replace("DEPTH", str(depth))
    return incore(PARAMS, text, ret=RET)


def _inputs() -> dict[str, np.ndarray]:
    a, b = fp16_inputs(7, (256, 64), (64, 64))
    return {"a": a, "b": b, "out": np.zeros((256, 64), np.float32)}


def _want(inputs: dict[str, np.ndarray]) -> np.ndarray:
    return np.exp(matmul32(inputs["a"], inputs["b"]))


def _cube(sim):
    return next(t for t in sim.traces if t.name == "core0")


def _push_waits(sim) -> list[int]:
    """For each push on the cube, how many frees (of other units) it waits for."""
    cube = _cube(sim)
    out = []
    for rec, ins in enumerate(cube.instr):
        if isinstance(ins, TPush):
            out.append(sum(1 for t, r in cube.cross.get(rec, ()) if isinstance(t.instr[r], TFree)))
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_ring_depth_1_and_2_give_the_same_values_and_different_waits(target):
    inputs = _inputs()
    want = _want(inputs)
    np.testing.assert_allclose(run_program(_program(1), dict(inputs))["out"], want, rtol=RTOL, atol=ATOL)
    sims = {}
    for depth in (1, 2):
        sim = simulate(compile_program(_program(depth), target=target).pto, dict(inputs), target)
        np.testing.assert_allclose(sim.outputs["out"], want, rtol=RTOL, atol=ATOL)
        sims[depth] = sim
    # a push reuses the slot `depth` pushes back: it waits for both lanes' frees of it
    assert _push_waits(sims[1]) == [0, 2, 2, 2]
    assert _push_waits(sims[2]) == [0, 0, 2, 2]
    for depth, sim in sims.items():  # and the wait is real in the timing model: a push starts after those frees
        cube = _cube(sim)
        for rec, ins in enumerate(cube.instr):
            for t, r in cube.cross.get(rec, ()):
                if isinstance(ins, TPush) and isinstance(t.instr[r], TFree):
                    assert cube.start[rec] >= t.end[r], depth


def test_without_set_up_the_pipe_works_as_before():
    inputs = _inputs()
    program = incore(PARAMS, LOOP, ret=RET)
    sim = simulate(compile_program(program).pto, dict(inputs))
    np.testing.assert_allclose(sim.outputs["out"], _want(inputs), rtol=RTOL, atol=ATOL)
    assert _push_waits(sim) == [0, 0, 2, 2]  # the default depth of 2


def _vec_buffers(program, target="Ascend910B"):
    pto = compile_program(program, target=target).pto
    return [b for k in pto.kernels.values() for b in k.buffers.values() if b.space is MemorySpace.Vec]


@pytest.mark.parametrize("base, lo", [("pl.AUTO", 0), ("0", 0), ("65536", 65536)])
def test_tiles_are_planned_around_the_reserved_bytes(base, lo):
    program = _program(2, base=base)
    hi = lo + 2 * HALF
    buffers = _vec_buffers(program)
    assert buffers
    for buf in buffers:
        assert buf.address + buf.nbytes <= lo or buf.address >= hi, (buf.name, buf.address, lo, hi)
    text = compile_program(program).pto.text()
    assert f"reserve_buffer 'ring', Vec[{lo}, {hi})" in text


def test_a_v2c_ring_is_reserved_in_the_cubes_mat():
    body = """
buf = pl.reserve_buffer(name="back", size=32768, base=pl.AUTO)
peer = pl.import_peer_buffer(name="back", peer_func="k")
pl.aiv_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=2, slot_size=16384, slot_num=2, id=1)
pl.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=16384, slot_num=2, id=1)
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
pl.tpush_to_aiv(acc, split=1, id=0)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    h = pl.tpop_from_aic(split=1, id=0)
    e = pl.exp(h)
    pl.tfree_to_aic(h, id=0)
    pl.tpush_to_aic(e, split=1, id=1)
g = pl.tpop_from_aiv(split=1, id=1)
r = pl.tile.matmul(g, g)
pl.tfree_to_aiv(g, id=1)
out = pl.store(r, [0, 0], out)
return out
"""
    params = ("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
              "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
    # the c2v pipe id=0 is not set up, while id=1 is: refused
    with pytest.raises(TilefoldError) as info:
        run_pipeline(incore(params, body, ret="pl.Tensor[[64, 64], pl.FP32]"))
    assert "uses pipe c2v id=0, which this kernel does not set up" in info.value.message
    c2v = ('buf0 = pl.reserve_buffer(name="fwd", size=16384)\n'
           'peer0 = pl.import_peer_buffer(name="fwd", peer_func="k")\n'
           "pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer0, dir_mask=1, slot_size=8192, slot_num=2)\n"
           "pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf0, dir_mask=1, slot_size=8192, slot_num=2)\n")
    program = incore(params, c2v + body, ret="pl.Tensor[[64, 64], pl.FP32]")
    a, b = fp16_inputs(3, (64, 64), (64, 64))
    e = np.exp(matmul32(a, b))
    inputs = {"a": a, "b": b, "out": np.zeros((64, 64), np.float32)}
    np.testing.assert_allclose(run_program(program, dict(inputs))["out"], e @ e, rtol=1e-4, atol=1e-3)
    for target in TARGETS:
        compiled = compile_program(program, target=target)
        assert "reserve_buffer 'back', Mat[0, 32768)" in compiled.pto.text()
        sim = simulate(compiled.pto, dict(inputs), target)
        np.testing.assert_allclose(sim.outputs["out"], e @ e, rtol=1e-4, atol=1e-3)


def test_an_over_budget_ring_names_the_reservation():
    size = 192 * 1024 - 8192  # Ascend910B's Vec less 8 KiB: no room for the popped half-tile and its exp
    program = _program(2, size=size)
    with pytest.raises(TilefoldError) as info:
        compile_program(program, target="Ascend910B")
    msg = info.value.message
    assert "does not fit in Vec" in msg and "reserved for cross-core pipe rings ('ring': 188416 bytes at 0)" in msg
    assert "slot_num" in info.value.hint


def test_the_local_slots_of_a_gm_ring_bound_the_consumers_unfreed_pops():
    """On Ascend910B the ring's slots are in GM and the consumer's buffer holds local_slot_num of them: a lane that
    pops twice before freeing needs two local slots."""
    setup = SETUP.replace("slot_num=DEPTH,", "slot_num=DEPTH, local_slot_num=LOCAL,")
    loop = """
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
a0 = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
a1 = pl.load(a, [64, 0], [64, 64], target_memory=pl.Mem.Mat)
acc0 = pl.tile.matmul(a0, b_t)
acc1 = pl.tile.matmul(a1, b_t)
pl.tpush_to_aiv(acc0, split=1, id=0)
pl.tpush_to_aiv(acc1, split=1, id=0)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    h0 = pl.tpop_from_aic(split=1, id=0)
    h1 = pl.tpop_from_aic(split=1, id=0)
    s = pl.add(h0, h1)
    pl.tfree_to_aic(h0, id=0)
    pl.tfree_to_aic(h1, id=0)
    out = pl.store(s, [aiv_id * 32, 0], out)
return out
"""
    inputs = _inputs()
    m = matmul32(inputs["a"], inputs["b"])
    want = inputs["out"].copy()
    want[:64] = m[:64] + m[64:128]
    one = _program(2, size=HALF, setup=setup.replace("LOCAL", "1"), loop=loop)
    np.testing.assert_allclose(run_program(one, dict(inputs))["out"], want, rtol=RTOL, atol=ATOL)
    with pytest.raises(Deadlock) as info:
        simulate(compile_program(one, target="Ascend910B").pto, dict(inputs), "Ascend910B")
    assert "holds all 1 local slots of pipe id0" in info.value.message
    # on Ascend950 the ring is in the consumer's buffer: it needs slot_num slots there
    with pytest.raises(TilefoldError) as info:
        compile_program(one, target="Ascend950")
    assert "its ring on Ascend950 is 2 slots of 8192 bytes = 16384 bytes, but buffer 'ring' has 8192" \
        in info.value.message
    two = _program(2, setup=setup.replace("LOCAL", "2"), loop=loop)
    for target in TARGETS:
        sim = simulate(compile_program(two, target=target).pto, dict(inputs), target)
        np.testing.assert_allclose(sim.outputs["out"], want, rtol=RTOL, atol=ATOL)


# ------------------------------------------------------------------------------------------------
# errors: each located, with a hint; golden refuses what the compiler refuses
# ------------------------------------------------------------------------------------------------

def _indented(text: str, n: int) -> str:
    return "".join(" " * n + line + "\n" for line in text.strip("\n").splitlines())


_AIC = "pl.aic_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=1, slot_size=SLOT, slot_num=DEPTH, id=0)"
_AIV = "pl.aiv_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=1, slot_size=SLOT, slot_num=DEPTH, id=0)"


@pytest.mark.parametrize("setup, loop, message", [
    (SETUP, LOOP.replace("pl.tpush_to_aiv(acc, split=1, id=0)", "pl.tpush_to_aiv(pl.tile.matmul(a_t, a_t), split=0, "
                                                                "id=0)").replace("split=1, id=0)\n        e",
                                                                                  "split=0, id=0)\n        e"),
     "the tile crossing the pipe is 16384 bytes, larger than the pipe's slot_size=8192"),
    (SETUP.replace("size=SIZE", "size=8192"), LOOP, "2 slots of 8192 bytes need 16384 bytes, but buffer 'ring' has "
                                                    "8192"),
    (SETUP, LOOP.replace("id=0", "id=2"), "uses pipe c2v id=2, which this kernel does not set up"),
    (SETUP.replace(_AIV, _AIV.replace("slot_num=DEPTH", "slot_num=1")), LOOP,
     "the two ends disagree on slot_num (1 at pl.aiv_initialize_pipe, 2 at pl.aic_initialize_pipe)"),
    (SETUP.replace(_AIC, ""), LOOP, "is set up by pl.aiv_initialize_pipe only: its producer's end"),
    (SETUP.replace('peer_func="k"', 'peer_func="other_func"'), LOOP,
     "pl.import_peer_buffer(peer_func='other_func'): no peer function of that name"),
    (SETUP.replace('import_peer_buffer(name="ring"', 'import_peer_buffer(name="rign"'), LOOP,
     "pl.import_peer_buffer(name='rign'): 'k' reserves no buffer of that name"),
    (SETUP.replace(_AIC, _AIC.replace("peer,", "buf,")).replace(_AIV, _AIV.replace("buf,", "peer,")), LOOP,
     "the consumer's end, pl.aiv_initialize_pipe, must bind the pl.reserve_buffer result"),
    (SETUP + "x = buf + 1\n", LOOP, "buffer handle 'buf' is used other than as the buffer operand"),
    (SETUP + 'spare = pl.reserve_buffer(name="spare", size=64)\n', LOOP,
     "buffer 'spare' is reserved, but no pipe's consumer end binds it"),
    (SETUP.replace("slot_num=DEPTH,", "slot_num=DEPTH, local_slot_num=3,"), LOOP,
     "local_slot_num=3 exceeds slot_num=2"),
    ("", "for j in pl.range(1):\n" + _indented(SETUP, 4) + LOOP, "belongs at the top level of the kernel"),
    ("", LOOP.replace("    pl.tpush_to_aiv(acc, split=1, id=0)\n", _indented(SETUP, 4) + "    pl.tpush_to_aiv(acc, "
                      "split=1, id=0)\n"), "belongs at the top level of the kernel"),
])
def test_set_up_errors_are_located(setup, loop, message):
    program = _program(2, setup=setup, loop=loop)
    with pytest.raises(TilefoldError) as info:
        run_pipeline(program)
    assert message in info.value.message, info.value.message
    assert info.value.span is not None and info.value.span.line > 0 and info.value.hint
    if "top level" not in message:  # (nested set-up is a placement rule of the compiled form)
        with pytest.raises(TilefoldError) as golden:
            run_program(program, _inputs())
        assert message in golden.value.message


def test_a_fixed_base_is_checked():
    with pytest.raises(TilefoldError) as info:
        compile_program(_program(2, base="100"))
    assert "base=100 is not 32-byte aligned in Vec" in info.value.message
    with pytest.raises(TilefoldError) as info:
        compile_program(_program(2, base=str(192 * 1024 - 4096)))
    assert "does not fit in Ascend910B's 196608 bytes of Vec" in info.value.message


def test_a_bidirectional_set_up_is_refused_with_the_per_direction_form():
    with pytest.raises(NotSupportedError) as info:
        _program(2, setup=SETUP.replace("dir_mask=1", "dir_mask=3"))
    assert "dir_mask=3" in info.value.message and "dir_mask=1" in info.value.hint


def test_the_set_up_survives_printing_and_parsing_again():
    import tilefold.language as pl
    from tilefold.frontend.printer import python_print

    program = _program(1)
    again = pl.parse(python_print(program), "printed.py")
    inputs = _inputs()
    sim = simulate(compile_program(again).pto, dict(inputs))
    np.testing.assert_allclose(sim.outputs["out"], _want(inputs), rtol=RTOL, atol=ATOL)
    assert _push_waits(sim) == [0, 2, 2, 2]


def test_the_pl_system_spellings_are_the_same_ops():
    setup = SETUP.replace("pl.reserve_buffer", "pl.system.reserve_buffer").replace(
        "pl.import_peer_buffer", "pl.system.import_peer_buffer").replace(
        "pl.aic_initialize_pipe", "pl.system.aic_initialize_pipe").replace(
        "pl.aiv_initialize_pipe", "pl.system.aiv_initialize_pipe")
    inputs = _inputs()
    sim = simulate(compile_program(_program(1, setup=setup)).pto, dict(inputs))
    np.testing.assert_allclose(sim.outputs["out"], _want(inputs), rtol=RTOL, atol=ATOL)
    assert _push_waits(sim) == [0, 2, 2, 2]


def test_slot_num_defaults_to_pyptos_eight():
    setup = SETUP.replace(" slot_num=DEPTH,", "")
    with pytest.raises(TilefoldError) as info:  # 8 slots of 8 KiB do not fit a 16 KiB buffer
        run_pipeline(_program(2, setup=setup))
    assert "8 slots of 8192 bytes need 65536 bytes" in info.value.message
    inputs = _inputs()
    sim = simulate(compile_program(_program(8, setup=setup)).pto, dict(inputs))
    np.testing.assert_allclose(sim.outputs["out"], _want(inputs), rtol=RTOL, atol=ATOL)
    assert _push_waits(sim) == [0, 0, 0, 0]  # four pushes never fill an 8-slot ring
