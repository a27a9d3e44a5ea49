"""InitMemRef / MemoryReuse / AllocateMemoryAddr: addresses, alignment, views, reuse, out-of-memory."""

import pytest
from backend_helpers import kernel_src, memrefs, planned

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.ir.expr import ConstInt
from tilefold.ir.types import MemorySpace
from tilefold.ops import op_of
from tilefold.passes import allocate_memory_addr, init_mem_ref, memory_reuse
from tilefold.passes.memory_planning.allocate_memory_addr import plan_memory
from tilefold.passes.memory_planning.memref_common import tile_vars

VEC = "target_memory=pl.Mem.Vec"


def _src_two_live_small_tiles():
    return kernel_src(
        "x: pl.Tensor[[1, 5], pl.FP32], y: pl.Tensor[[1, 5], pl.FP32], out: pl.Out[pl.Tensor[[1, 5], pl.FP32]]",
        f"""
a: pl.Tile[[1, 5], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 5], {VEC})
b: pl.Tile[[1, 5], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [1, 5], {VEC})
c: pl.Tile[[1, 5], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
out = pl.store(c, [0, 0], out)
return out
""", ret="pl.Tensor[[1, 5], pl.FP32]")


def test_every_tile_gets_a_memref_and_sequential_aligned_addresses():
    mr = memrefs(planned(_src_two_live_small_tiles()))
    assert set(mr) == {"a", "b", "c"}
    assert all(m.memory_space is MemorySpace.Vec for m in mr.values())
    assert mr["a"].size == 20
    assert mr["a"].address == 0
    assert mr["b"].address == 32  # 20 bytes rounded up to the 32-byte Vec alignment
    for m in mr.values():
        assert m.address % 32 == 0


def test_acc_allocations_are_512_byte_aligned():
    src = kernel_src(
        "x: pl.Tensor[[16, 16], pl.BF16], w: pl.Tensor[[16, 16], pl.BF16], "
        "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
        """
xm: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
wm: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Left)
b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Right)
c1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
out = pl.store(c1, [0, 0], out)
out2 = pl.store(c2, [0, 0], out2)
return out
""", ret="pl.Tensor[[16, 16], pl.FP32]")
    mr = memrefs(planned(src))
    assert mr["c1"].size == 1024
    assert mr["c1"].address % 512 == 0 and mr["c2"].address % 512 == 0
    assert mr["c2"].address >= mr["c1"].address + 1024
    # Acc tiles that are not a multiple of the fractal are padded to whole 16x16 fractals
    assert mr["a"].memory_space is MemorySpace.Left and mr["b"].memory_space is MemorySpace.Right


def _slice_src(offset: str, extra_params: str = "") -> str:
    return kernel_src(
        f"x: pl.Tensor[[16, 128], pl.FP32],{extra_params} out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
pad: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(pad, [16, 64], {offset})
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(hi, 0.5)
out = pl.store(y, [0, 0], out)
return out
""")


def test_view_shares_base_with_constant_byte_offset():
    mr = memrefs(planned(_slice_src("[0, 64]")))
    assert mr["hi"].base == mr["pad"].base
    assert isinstance(mr["hi"].byte_offset, ConstInt)
    assert mr["hi"].byte_offset.value == 64 * 4
    assert mr["hi"].address == mr["pad"].address + 64 * 4
    assert mr["hi"].size == 16 * 64 * 4


def test_constant_ssa_offsets_fold():
    src = _slice_src("[0, r]").replace("        pad: pl.Tile", "        r: pl.Scalar[pl.INDEX] = 32\n        pad: pl.Tile")
    mr = memrefs(planned(src))
    assert mr["hi"].address == mr["pad"].address + 32 * 4


def test_dynamic_offset_falls_back_to_bare_base_address():
    mr = memrefs(planned(_slice_src("[r, 0]", " r: pl.Scalar[pl.INDEX],")))
    assert mr["hi"].base == mr["pad"].base
    assert not isinstance(mr["hi"].byte_offset, ConstInt)
    assert mr["hi"].address == mr["pad"].address  # upstream behaviour that makes #1640 observable


def test_matmul_acc_result_shares_the_accumulator_memref():
    src = kernel_src(
        "x: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
        """
xm: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
a: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.extract(xm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Left)
b: pl.Tile[[16, 16], pl.BF16, pl.Mem.Right] = pl.tile.extract(xm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Right)
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, a, b)
out = pl.store(d, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 16], pl.FP32]")
    mr = memrefs(planned(src))
    assert mr["d"].base == mr["c"].base and mr["d"].address == mr["c"].address


def _chain_src():
    return kernel_src(
        "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})
b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(b, 0, 0, shape=[16, 64], {VEC})
d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(c, 2.0)
e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(d, 1.0)
out = pl.store(e, [0, 0], out)
return out
""")


def test_reuse_shares_dead_storage_and_respects_not_inplace_safe():
    prog = planned(_chain_src())
    mr = memrefs(prog)
    fn = prog.functions[0]
    # an in-place-safe elementwise op may write over its dying operand
    assert mr["b"].address == mr["a"].address
    # tile.extract is not_inplace_safe: its result never lands on its input's buffer
    for v, stmt in tile_vars(fn):
        op = op_of(stmt.value) if stmt is not None and hasattr(stmt, "value") else None
        if op is not None and op.not_inplace_safe:
            for arg in stmt.value.args:
                t = getattr(arg, "type", None)
                if getattr(t, "memref", None) is not None:
                    a, s = t.memref.address, t.memref.size
                    assert v.type.memref.address >= a + s or v.type.memref.address + v.type.memref.size <= a
    # storage is reused once dead: the whole chain needs two 4 KiB buffers
    assert len({m.address for m in mr.values()}) == 2


def test_reuse_never_overlaps_live_tiles():
    prog = planned(_src_two_live_small_tiles())
    mr = memrefs(prog)
    assert mr["a"].address != mr["b"].address  # both are read by the add


def test_views_keep_their_source_alive():
    src = kernel_src(
        "x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full(shape=[16, 64], dtype=pl.FP32, value=1.0, {VEC})
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(lo, u)
out = pl.store(y, [0, 0], out)
return out
""")
    mr = memrefs(planned(src))
    t_lo, t_hi = mr["t"].address, mr["t"].address + mr["t"].size
    # u is created while the view `lo` of t is still live: it must not land inside t
    assert mr["u"].address >= t_hi or mr["u"].address + mr["u"].size <= t_lo


def test_out_of_memory_names_function_space_and_bytes():
    src = kernel_src(
        "x: pl.Tensor[[256, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]",
        f"""
t: pl.Tile[[256, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [256, 256], {VEC})
out = pl.store(t, [0, 0], out)
return out
""", ret="pl.Tensor[[256, 256], pl.FP32]")
    with pytest.raises(TilefoldError) as exc:
        planned(src)
    msg = str(exc.value)
    assert "'kernel'" in msg and "Vec" in msg and "262144" in msg and "196608" in msg
    # the same tile fits the 248 KiB... no: 256 KiB never fits UB; Mat (512 KiB) would
    with pytest.raises(TilefoldError):
        planned(src, "Ascend950")


def test_passes_are_named_factories_and_idempotent_on_untouched_functions():
    assert init_mem_ref().name == "InitMemRef"
    assert memory_reuse().name == "MemoryReuse"
    assert allocate_memory_addr().name == "AllocateMemoryAddr"
    prog = pl.parse(_chain_src())
    once = plan_memory(prog)
    fn = once.functions[0]
    assert all(v.type.memref is not None and v.type.memref.address is not None for v, _ in tile_vars(fn))


def test_loop_carried_tile_shares_storage_with_init():
    src = kernel_src(
        "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], {VEC})
for i, (acc,) in pl.range(0, 4, init_values=(a,)):
    nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
    res = pl.yield_(nxt)
out = pl.store(res, [0, 0], out)
return out
""")
    prog = planned(src)
    mr = memrefs(prog)
    assert mr["acc"].base == mr["a"].base == mr["res"].base
    # the iter arg is live across the whole loop: the loop body's tile cannot take its storage
    assert mr["nxt"].address != mr["acc"].address
