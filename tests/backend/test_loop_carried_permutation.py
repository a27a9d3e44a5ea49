"""Loop-carried tiles that trade places (``a, b = b, a``, a rotation, ``a, b = f(b), a``).

The back edge is one parallel assignment, but the device copies the yielded values into the iter args' buffers
one after another. A yielded value that sits on *another* iter arg's storage would be overwritten by an earlier
copy before its own copy reads it: both outputs came out equal (the silent wrong answer this file pins down).
InitMemRef copies such values to storage of their own before the yield, and codegen orders the back-edge copies
so that none overwrites a buffer a later one reads. Each program runs on the simulator against numpy written
here.
"""

import numpy as np
import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.ir.expr import Call
from tilefold.ir.stmt import AssignStmt
from tilefold.sim import simulate

VEC = "target_memory=pl.Mem.Vec"
T = "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]"
PARAMS = ("x: pl.Tensor[[48, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], "
          "o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
LOADS = "\n".join(f"{n}: {T} = pl.tile.load(x, [{16 * i}, 0], [16, 64], {VEC})" for i, n in enumerate("abc"))
STORES = """o1 = pl.store(r1, [0, 0], o1)
o2 = pl.store(r2, [0, 0], o2)
o3 = pl.store(r3, [0, 0], o3)
return o1, o2, o3"""
RET = "tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]"

SWAP = f"""
{LOADS}
for i, (p, q, s) in pl.range(0, 3, init_values=(a, b, c)):
    r1, r2, r3 = pl.yield_(q, p, s)
{STORES}
"""
ROTATE = f"""
{LOADS}
for i, (p, q, s) in pl.range(0, 4, init_values=(a, b, c)):
    r1, r2, r3 = pl.yield_(q, s, p)
{STORES}
"""
COMPUTED_AND_PASSED = f"""
{LOADS}
for i, (p, q, s) in pl.range(0, 3, init_values=(a, b, c)):
    t: {T} = pl.tile.add(q, s)
    r1, r2, r3 = pl.yield_(t, p, s)
{STORES}
"""
WHILE_SWAP = f"""
{LOADS}
n: pl.Scalar[pl.INDEX] = 0
for (p, q, k) in pl.while_(init_values=(a, b, n)):
    pl.cond(k < 3)
    k2: pl.Scalar[pl.INDEX] = k + 1
    r1, r2, m = pl.yield_(q, p, k2)
r3: {T} = pl.tile.adds(c, 0.0)
{STORES}
"""


def _swap(a, b, c):
    for _ in range(3):
        a, b = b, a
    return a, b, c


def _rotate(a, b, c):
    for _ in range(4):
        a, b, c = b, c, a
    return a, b, c


def _computed(a, b, c):
    for _ in range(3):
        a, b = b + c, a
    return a, b, c


def _moves(program) -> list[AssignStmt]:
    from tilefold.analysis.tile_layout import all_stmts

    return [s for f in program.functions for s in all_stmts(f.body)
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == "tile.move"]


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize(("body", "reference"), [(SWAP, _swap), (ROTATE, _rotate), (COMPUTED_AND_PASSED, _computed),
                                                 (WHILE_SWAP, _swap)], ids=["swap", "rotate", "computed", "while"])
def test_carried_tiles_that_trade_places_keep_their_values(target, body, reference):
    x = np.random.default_rng(3).standard_normal((48, 64)).astype(np.float32)
    compiled = compile(pl.parse(kernel_src(PARAMS, body, ret=RET)), target=target)
    outs = {f"o{i}": np.zeros((16, 64), np.float32) for i in (1, 2, 3)}
    sim = simulate(compiled.pto, {"x": x, **outs}, compiled.target)
    want = reference(x[0:16], x[16:32], x[32:48])
    for i, w in enumerate(want, start=1):
        np.testing.assert_array_equal(sim.outputs[f"o{i}"], w)
    assert _moves(compiled.ir), "the values on another iter arg's storage are copied before the yield"
