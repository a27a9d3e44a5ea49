"""A ``tile.create`` result is uninitialised on the device; ``compile`` rejects reading it before a write.

Writes are the destinations of destination-passing ops (custom op ``outs``); a view of a created tile is
still uninitialised; ``matmul_acc`` reads its accumulator; ``pl.tile.full`` is the way to get zeros.
"""

from pathlib import Path

import numpy as np
import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.analysis.uninitialized_reads import check_uninitialized_reads, find_uninitialized_reads
from tilefold.compiler import compile
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.errors import TilefoldError
from tilefold.testing import run_and_compare

VEC = "target_memory=pl.Mem.Vec"
PARAMS = "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
LOAD = f"t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})"
CREATE = f"z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, {VEC})"
MAPS2 = '[pl.affine_map("(d0, d1) -> (d0, d1)"), pl.affine_map("(d0, d1) -> (d0, d1)")]'
SEEDS = Path(__file__).resolve().parents[2] / "examples" / "seeds"


def _line_of(src: str, needle: str) -> int:
    return next(i for i, ln in enumerate(src.splitlines(), 1) if needle in ln)


def _rejected(src: str, needle: str) -> TilefoldError:
    with pytest.raises(TilefoldError) as exc:
        compile(pl.parse(src))
    err = exc.value
    assert err.span is not None and err.span.line == _line_of(src, needle), err
    assert "pl.tile.full" in err.hint and "value=0" in err.hint
    assert "'z'" in err.message and "uninitialised" in err.message
    return err


def test_elementwise_read_of_a_created_tile_is_rejected_with_location_and_hint():
    src = kernel_src(PARAMS, f"""
{LOAD}
{CREATE}
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, z)
out = pl.store(s, [0, 0], out)
return out
""")
    err = _rejected(src, "pl.tile.add(t, z)")
    assert "tile.add" in err.message


def test_store_of_a_created_tile_is_rejected():
    src = kernel_src(PARAMS, f"""
{CREATE}
out = pl.store(z, [0, 0], out)
return out
""")
    _rejected(src, "pl.store(z")


def test_read_through_a_view_names_the_created_tile():
    src = kernel_src("x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]", f"""
{CREATE}
h: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(z, [16, 32], [0, 32])
s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(h, 2.0)
out = pl.store(s, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 32], pl.FP32]")
    err = _rejected(src, "pl.tile.muls(h")
    assert "'h'" in err.message


def test_loop_carried_created_tile_read_on_the_first_iteration_is_rejected():
    src = kernel_src(PARAMS, f"""
{LOAD}
{CREATE}
for i, (acc,) in pl.range(0, 4, init_values=(z,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
""")
    _rejected(src, "pl.tile.add(acc, t)")


def test_created_accumulator_read_by_matmul_acc_is_rejected():
    src = kernel_src(
        "a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]", """
am: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
l: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.extract(am, 0, 0, shape=[16, 16], target_memory=pl.Mem.Left)
r: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.extract(am, 0, 0, shape=[16, 16], target_memory=pl.Mem.Right)
z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(z, l, r)
out = pl.store(c, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 16], pl.FP32]")
    err = _rejected(src, "pl.tile.matmul_acc(z")
    assert "pl.tile.matmul" in err.hint


@pytest.fixture
def scale_kernel():
    register_custom_op("ur_scale", lambda x: (x * 3.0).astype(np.float32), replace=True)
    yield
    unregister_custom_op("ur_scale")


def test_created_tile_as_custom_op_output_init_and_scratch_is_fine(scale_kernel):
    src = kernel_src(PARAMS, f"""
{LOAD}
{CREATE}
tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[16, 64], dtype=pl.FP32, {VEC})
r = pl.tile.custom("ur_scale", ins=[t], outs=[z], tmps=[tmp], indexing_maps={MAPS2},
                   iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(r, 1.0)
out = pl.store(s, [0, 0], out)
return out
""")
    assert find_uninitialized_reads(pl.parse(src).functions[0]) == []
    rep = run_and_compare(pl.parse(src), "random", seed=1)
    assert rep.fault is None and rep.matches, rep.summary()


def test_created_tile_as_custom_op_input_is_rejected(scale_kernel):
    src = kernel_src(PARAMS, f"""
{LOAD}
{CREATE}
r = pl.tile.custom("ur_scale", ins=[z], outs=[t], indexing_maps={MAPS2},
                   iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
out = pl.store(r, [0, 0], out)
return out
""")
    _rejected(src, 'pl.tile.custom("ur_scale", ins=[z]')


def test_output_init_itself_stays_uninitialised_after_the_write(scale_kernel):
    """The custom op's *result* is defined; the created variable still names the old (undefined) value."""
    src = kernel_src(PARAMS, f"""
{LOAD}
{CREATE}
r = pl.tile.custom("ur_scale", ins=[t], outs=[z], indexing_maps={MAPS2},
                   iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, z)
out = pl.store(s, [0, 0], out)
return out
""")
    _rejected(src, "pl.tile.add(r, z)")


def test_if_result_yielding_a_created_tile_is_uninitialised():
    src = kernel_src(PARAMS + ", flag: pl.Scalar[pl.INDEX]", f"""
{LOAD}
{CREATE}
if flag > 0:
    y = pl.yield_(t)
else:
    y = pl.yield_(z)
out = pl.store(y, [0, 0], out)
return out
""")
    _rejected(src, "pl.store(y")


def test_full_is_the_zero_initialised_tile():
    src = kernel_src(PARAMS, f"""
{LOAD}
z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=0.0, {VEC})
for i, (acc,) in pl.range(0, 3, init_values=(z,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
""")
    check_uninitialized_reads(pl.parse(src))
    rep = run_and_compare(pl.parse(src), "random", seed=2)
    assert rep.fault is None and rep.matches, rep.summary()


@pytest.mark.parametrize("name", ["customop_multi_result.py", "customop_identity.py", "customop_softmax.py",
                                  "customop_macro.py", "customop_broadcast_scalar.py",
                                  "customop_reduction_input.py"])
def test_custom_op_seeds_write_their_created_output_inits_first(name):
    program = pl.parse_file(str(SEEDS / name))
    for fn in program.functions:
        assert find_uninitialized_reads(fn) == [], name
