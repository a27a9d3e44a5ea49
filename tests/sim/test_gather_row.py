"""Kernel-driven and paged gathers (issue 19): ``tile.gather_row`` / ``tensor.gather_row``, ``tensor.create_l1``,
``tensor.paged_gather`` and ``tile.gatherb``, compiled, simulated and checked against numpy written here.

The rules come from PyPTO's ConvertTensorToTileOps page ("Paged Gather Lowering", "Kernel-Driven Gather"):
``valid_shape`` is keyword-only and refused with ``transpose=True``; a provable ``valid_shape`` outside
``[0, shapes]`` is refused; the bound is on the written region (``dst_offset + valid_shape <= dst.shape``), not on
the declared window; an L1 row is a box-aligned sub-region; gather to L1 is a scalar loop of GM -> L1 DMAs.
"""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.compiler import compile as compile_program
from tilefold.errors import TilefoldError
from tilefold.golden import run_program
from tilefold.ir import ForStmt, flatten_stmts
from tilefold.sim import simulate
from tilefold.sim.faults import OutOfBounds

RNG = np.random.default_rng(19)
TABLE = np.array([2, 0, 3, 1], np.int32)  # logical page p lives in physical page TABLE[p]


def ints(shape, dtype=np.float16) -> np.ndarray:
    return RNG.integers(-3, 4, shape).astype(dtype)


def physical(idx: np.ndarray, table: np.ndarray = TABLE, block: int = 16) -> np.ndarray:
    return np.array([table[i // block] * block + i % block for i in idx], np.int64)


def attention_scores(q: np.ndarray, keys: np.ndarray) -> np.ndarray:
    return q.astype(np.float64) @ keys.astype(np.float64).T


PROGRAM = '''
import tilefold.language as pl

@pl.program
class PagedScores:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 32], pl.FP16],
               table: pl.Tensor[[4], pl.INT32], idx: pl.Tensor[[16], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        kv: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.create([16, 32], dtype=pl.FP16, target_memory=pl.Mem.Mat)
        for i, (acc,) in pl.range(16, init_values=(kv,)):
            t = pl.tensor.read(idx, [i])
            blk = pl.tensor.read(table, [t // 16])
            acc2 = pl.tile.gather_row(acc, pool, [i, 0], [blk * 16 + t % 16, 0], [1, 32])
            keys = pl.yield_(acc2)
        tq: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(q, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tq, pl.tile.transpose_view(keys))
        out = pl.store(c, [0, 0], out)
        return out
'''


def _paged_inputs():
    q, pool = ints((16, 32)), ints((64, 32))
    idx = RNG.permutation(64)[:16].astype(np.int32)
    return {"q": q, "pool": pool, "table": TABLE.copy(), "idx": idx, "out": np.zeros((16, 16), np.float32)}


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_paged_attention_scores_through_a_block_table_program_form(target):
    """K rows gathered into L1 through a block table, one GM -> L1 DMA per row, then q @ K^T on the cube."""
    program = pl.parse(PROGRAM)
    ins = _paged_inputs()
    want = attention_scores(ins["q"], ins["pool"][physical(ins["idx"])])
    golden = run_program(program, {k: v.copy() for k, v in ins.items()})
    np.testing.assert_array_equal(golden["out"], want)
    compiled = compile_program(program, target=target)
    text = compiled.pto.text()
    assert text.count("tgatherrow") == 1 and "box=16x32" in text, text  # one DMA per loop trip, a boxed L1 row
    result = simulate(compiled.pto, {k: v.copy() for k, v in ins.items()}, target=target)
    np.testing.assert_array_equal(result.outputs["out"], want)


def test_a_block_table_entry_outside_the_pool_faults_instead_of_wrapping():
    compiled = compile_program(pl.parse(PROGRAM))
    ins = _paged_inputs()
    ins["table"] = np.array([2, 0, 4, 1], np.int32)  # page 4 is rows 64..80 of a 64-row pool
    ins["idx"][0] = 35  # logical page 2
    with pytest.raises(OutOfBounds, match="leaves tensor @pool"):
        simulate(compiled.pto, ins)


JIT = '''
import tilefold.language as pl


@pl.jit
def scores(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 32], pl.FP16], table: pl.Tensor[[4], pl.INT32],
           idx: pl.Tensor[[16], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kv = pl.create_l1([16, 32], pl.FP16)
        for i in pl.range(16):
            t = pl.read(idx, [i])
            blk = pl.read(table, [t // 16])
            kv = pl.gather_row(kv, pool, [i, 0], [blk * 16 + t % 16, 0], [1, 32])
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def scores_transposed(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 32], pl.FP16],
                      table: pl.Tensor[[4], pl.INT32], idx: pl.Tensor[[16], pl.INT32],
                      out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kt = pl.create_l1([32, 16], pl.FP16, transpose=True)
        for i in pl.range(16):
            t = pl.read(idx, [i])
            blk = pl.read(table, [t // 16])
            kt = pl.gather_row(kt, pool, [0, i], [blk * 16 + t % 16, 0], [1, 32], True)
        out[:] = pl.matmul(q, kt, out_dtype=pl.FP32)
    return out


@pl.jit
def two_runs(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 32], pl.FP16], starts: pl.Tensor[[3], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        r1 = pl.read(starts, [0])
        b0 = pl.read(starts, [1])
        b1 = pl.read(starts, [2])
        kv = pl.create_l1([16, 32], pl.FP16)
        kv = pl.gather_row(kv, pool, [0, 0], [b0, 0], [16, 32], valid_shape=[r1, 32])
        kv = pl.gather_row(kv, pool, [r1, 0], [b1, 0], [16, 32], valid_shape=[16 - r1, 32])
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def paged(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 48], pl.FP16], table: pl.Tensor[[4], pl.INT32],
          idx: pl.Tensor[[16], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kv = pl.paged_gather(pool, idx, table, block_size=16, size=32, col_offset=8)
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out
'''


@pytest.fixture(scope="module")
def jit_kernels(tmp_path_factory):
    import importlib.util

    path = tmp_path_factory.mktemp("gather_row") / "gather_row_kernels.py"
    path.write_text(JIT)
    spec = importlib.util.spec_from_file_location("gather_row_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["scores", "scores_transposed"])
def test_kernel_driven_gather_jit_form_natural_and_transposed(jit_kernels, name):
    ins = _paged_inputs()
    out = ins.pop("out")
    getattr(jit_kernels, name)(ins["q"], ins["pool"], ins["table"], ins["idx"], out)
    np.testing.assert_array_equal(out, attention_scores(ins["q"], ins["pool"][physical(ins["idx"])]))


@pytest.mark.parametrize(("r1", "b0", "b1"), [(5, 40, 3), (0, 9, 48), (16, 48, 0)])
def test_two_run_split_with_a_runtime_length(jit_kernels, r1, b0, b1):
    """PyPTO's page-boundary split: rows [0, r1) from one page run, [r1, 16) from another, r1 known at run time."""
    q, pool = ints((16, 32)), ints((64, 32))
    out = np.zeros((16, 16), np.float32)
    jit_kernels.two_runs(q, pool, np.array([r1, b0, b1], np.int32), out)
    keys = np.concatenate([pool[b0:b0 + r1], pool[b1:b1 + 16 - r1]])
    np.testing.assert_array_equal(out, attention_scores(q, keys))


def test_a_runtime_valid_shape_past_the_declared_window_faults(jit_kernels):
    q, pool = ints((16, 32)), ints((64, 32))
    with pytest.raises(OutOfBounds, match="outside the declared window|valid"):
        jit_kernels.two_runs(q, pool, np.array([17, 0, 0], np.int32), np.zeros((16, 16), np.float32))


def test_paged_gather_lowers_to_a_loop_of_row_dmas(jit_kernels):
    ins = _paged_inputs()
    ins["pool"] = ints((64, 48))
    out = ins.pop("out")
    jit_kernels.paged(ins["q"], ins["pool"], ins["table"], ins["idx"], out)
    np.testing.assert_array_equal(out, attention_scores(ins["q"], ins["pool"][physical(ins["idx"]), 8:40]))
    from tilefold.passes.pipeline import pipeline_for  # noqa: F401  (the lowering runs in the jit pipeline)

    program = jit_kernels.paged.parse(ins["q"], ins["pool"], ins["table"], ins["idx"], out)
    from tilefold.passes.tensor_lowering import tensor_level_passes

    for p in tensor_level_passes():
        program = p(program)
    fn = next(f for f in program.functions if f.name.endswith("_incore_0"))
    loops = [s for s in flatten_stmts(fn.body) if isinstance(s, ForStmt)]
    assert len(loops) == 1
    body = repr(loops[0].body)
    assert body.count("tensor.read") == 2 and body.count("tile.gather_row") == 1, body


def test_paged_gather_faults_on_an_index_past_the_block_table(jit_kernels):
    ins = _paged_inputs()
    ins["pool"], ins["idx"][3] = ints((64, 48)), 64  # logical page 4 of a 4-entry table
    with pytest.raises(OutOfBounds, match="@table"):
        jit_kernels.paged(ins["q"], ins["pool"], ins["table"], ins["idx"], np.zeros((16, 16), np.float32))


# ------------------------------------------------------------------------------------------------
# the rules the deducer enforces
# ------------------------------------------------------------------------------------------------

def _tile_kernel(call: str, acc: str = "[8, 32], pl.FP32, pl.Mem.Vec", create: str = "pl.Mem.Vec") -> str:
    shape = acc.split("]")[0] + "]"
    return f'''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[24, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[{shape}, pl.FP32]]) -> pl.Tensor[{shape}, pl.FP32]:
        acc: pl.Tile[{acc}] = pl.tile.full({shape}, dtype=pl.FP32, value=1.0, target_memory={create})
        acc2 = {call}
        out = pl.store(acc2, [0, 0], out)
        return out
'''


@pytest.mark.parametrize(("call", "message"), [
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32], False, [1, 32])", "'valid_shape' is keyword-only"),
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32], True, valid_shape=[1, 32])",
     "valid_shape= cannot be combined with transpose=True"),
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32], valid_shape=[2, 32])", r"valid_shape\[0\] = 2 is outside"),
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32], valid_shape=[1, -1])",
     r"valid_shape\[1\] = -1 is outside"),
    ("pl.tile.gather_row(acc, src, [7, 0], [0, 0], [4, 32], valid_shape=[2, 32])", "written region"),
    ("pl.tile.gather_row(acc, src, [0, 8], [0, 0], [1, 32])", "written region"),
    ("pl.tile.gather_row(acc, src, [0, 0], [23, 0], [2, 32])", "outside the tensor extent"),
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, n])", "shapes must be two positive integer constants"),
    ("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32], True)", "transpose=True gathers into an L1"),
])
def test_gather_row_refuses_what_the_spec_rejects(call, message):
    with pytest.raises(TilefoldError, match=message):
        pl.parse(_tile_kernel(call))


def test_the_declared_window_may_overhang_when_the_written_region_fits():
    """rows [6, 10) declared on an 8-row tile; valid_shape moves rows [6, 8) only (the spec's bound)."""
    program = pl.parse(_tile_kernel("pl.tile.gather_row(acc, src, [6, 0], [n, 0], [4, 32], valid_shape=[2, 32])"))
    src = RNG.standard_normal((24, 32)).astype(np.float32)
    want = np.ones((8, 32), np.float32)
    want[6:8] = src[11:13]
    sim = simulate(compile_program(program).pto, {"src": src, "n": 11, "out": np.zeros((8, 32), np.float32)})
    np.testing.assert_array_equal(sim.outputs["out"], want)
    golden = run_program(program, {"src": src, "n": 11, "out": np.zeros((8, 32), np.float32)})
    np.testing.assert_array_equal(golden["out"], want)


@pytest.mark.parametrize(("call", "n", "match"), [
    ("pl.tile.gather_row(acc, src, [n, 0], [0, 0], [2, 32])", 7, "written region at \\(7, 0\\) of 2x32 leaves"),
    ("pl.tile.gather_row(acc, src, [0, 0], [n, 0], [2, 32])", 23, "source window at \\(23, 0\\)"),
    ("pl.tile.gather_row(acc, src, [0, 0], [n, 0], [2, 32])", -1, "source window at \\(-1, 0\\)"),
])
def test_runtime_addresses_outside_are_faults_never_clips(call, n, match):
    program = pl.parse(_tile_kernel(call))
    src = RNG.standard_normal((24, 32)).astype(np.float32)
    with pytest.raises(OutOfBounds, match=match):
        simulate(compile_program(program).pto, {"src": src, "n": n, "out": np.zeros((8, 32), np.float32)})
    with pytest.raises((IndexError, TilefoldError)):
        run_program(program, {"src": src, "n": n, "out": np.zeros((8, 32), np.float32)})


def test_an_l1_row_is_a_box_aligned_sub_region():
    """FP32 on L1: one row of 20 columns declares a 16 x 24 box (16 rows, C0 = 32 B / 4 B = 8 columns)."""
    from tilefold.ops.index_ops import box_aligned

    assert box_aligned((1, 20), 4) == (16, 24) and box_aligned((1, 32), 2) == (16, 32)
    assert box_aligned((17, 33), 1) == (32, 64)


def test_one_run_alone_is_still_an_uninitialised_read(tmp_path):
    """The coverage proof of the two-run split needs both runs: [r1, 16) alone leaves rows unwritten."""
    import importlib.util

    one_run = JIT.replace("        kv = pl.gather_row(kv, pool, [0, 0], [b0, 0], [16, 32], valid_shape=[r1, 32])\n",
                          "")
    assert one_run != JIT
    path = tmp_path / "one_run_kernels.py"
    path.write_text(one_run)
    spec = importlib.util.spec_from_file_location("one_run_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    q, pool = ints((16, 32)), ints((64, 32))
    with pytest.raises(TilefoldError, match="before anything wrote it"):
        mod.two_runs(q, pool, np.array([5, 0, 0], np.int32), np.zeros((16, 16), np.float32))


# ------------------------------------------------------------------------------------------------
# gatherb
# ------------------------------------------------------------------------------------------------

GATHERB = '''
import tilefold.language as pl

@pl.program
class B:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[8, 16], pl.FP16], offs: pl.Tensor[[4, 2], pl.UINT32],
               out: pl.Out[pl.Tensor[[4, 32], pl.FP16]]) -> pl.Tensor[[4, 32], pl.FP16]:
        x: pl.Tile[[8, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(src, [0, 0], [8, 16])
        o: pl.Tile[[4, 2], pl.UINT32, pl.Mem.Vec] = pl.tile.load(offs, [0, 0], [4, 2])
        y: pl.Tile[[4, 32], pl.FP16, pl.Mem.Vec] = pl.tile.gatherb(x, o)
        out = pl.store(y, [0, 0], out)
        return out
'''


def test_gatherb_moves_32_byte_blocks_by_byte_offset():
    src = np.arange(128, dtype=np.float16).reshape(8, 16)  # 8 blocks of 32 bytes: block b is row b
    offs = np.array([[0, 224], [32, 32], [96, 64], [192, 160]], np.uint32)
    want = np.stack([np.concatenate([src[o // 32] for o in row]) for row in offs])
    sim = simulate(compile_program(pl.parse(GATHERB)).pto, {"src": src, "offs": offs,
                                                           "out": np.zeros((4, 32), np.float16)})
    np.testing.assert_array_equal(sim.outputs["out"], want)


@pytest.mark.parametrize("bad", [16, 256, 240])
def test_gatherb_faults_on_a_misaligned_or_outside_offset(bad):
    offs = np.zeros((4, 2), np.uint32)
    offs[2, 1] = bad
    with pytest.raises(OutOfBounds, match="not a 32-byte-aligned block"):
        simulate(compile_program(pl.parse(GATHERB)).pto, {"src": np.zeros((8, 16), np.float16), "offs": offs,
                                                          "out": np.zeros((4, 32), np.float16)})


def test_gatherb_takes_uint32_offsets_only():
    with pytest.raises(TilefoldError, match="UINT32 byte offsets"):
        pl.parse(GATHERB.replace("pl.UINT32", "pl.INT32"))


BLOCKS = '''
import tilefold.language as pl

@pl.program
class Blocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[24, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]
               ) -> pl.Tensor[[16, 32], pl.FP32]:
        b = pl.tile.get_block_idx()
        acc: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([8, 32], dtype=pl.FP32, value=0.0)
        acc2 = pl.tile.gather_row(acc, src, [0, 0], [b * 8 + 3, 0], [8, 32])
        out = pl.store(acc2, [ROW, 0], out)
        return out
'''


@pytest.mark.parametrize(("row", "race"), [("b * 8", False), ("0", True)])
def test_blocks_gathering_from_one_pool_race_only_on_their_stores(row, race):
    """Two blocks read overlapping pool rows through gather_row (no race: both only read) and store their own
    rows; storing both into the same rows is reported as a race."""
    from tilefold.sim.faults import DeviceFault

    compiled = compile_program(pl.parse(BLOCKS.replace("ROW", row)))
    src = RNG.standard_normal((24, 32)).astype(np.float32)
    ins = {"src": src, "out": np.zeros((16, 32), np.float32)}
    if race:
        with pytest.raises(DeviceFault, match="race"):
            simulate(compiled.pto, ins, block_dim=2)
        return
    got = simulate(compiled.pto, ins, block_dim=2).outputs["out"]
    np.testing.assert_array_equal(got, np.concatenate([src[3:11], src[11:19]]))


UNWRITTEN = '''
import tilefold.language as pl


@pl.jit
def short(q: pl.Tensor[[16, 32], pl.FP16], pool: pl.Tensor[[64, 32], pl.FP16], table: pl.Tensor[[4], pl.INT32],
          idx: pl.Tensor[[8], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kv = pl.tensor.paged_gather(pool, idx, table, block_size=16, max_indices=16)
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out


@pl.jit
def empty(q: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        kv = pl.tensor.create_l1([16, 32], pl.FP16)
        out[:] = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
    return out
'''


def test_rows_past_the_index_count_are_zero_and_a_bare_create_l1_is_unwritten(tmp_path):
    """8 indices into a 16-row buffer: paged_gather fills the buffer with zeros first (issue 19, a count below
    max_indices, static or run-time), so rows 8..15 read as zeros on the device as in golden; a bare create_l1 is
    unwritten: reading it is refused (golden would read zeros, the device whatever L1 held)."""
    import importlib.util

    path = tmp_path / "unwritten_kernels.py"
    path.write_text(UNWRITTEN)
    spec = importlib.util.spec_from_file_location("unwritten_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    q, pool, out = ints((16, 32)), ints((64, 32)), np.zeros((16, 16), np.float32)
    idx = np.arange(8, dtype=np.int32) * 5
    mod.short(q, pool, TABLE.copy(), idx, out)
    keys = np.zeros((16, 32))
    keys[:8] = pool[physical(idx)]
    np.testing.assert_array_equal(out, attention_scores(q, keys))
    with pytest.raises(TilefoldError, match="before anything wrote it"):
        mod.empty(q, out)


def test_gather_row_refuses_a_dtype_change_and_a_cube_operand_space():
    fp16_src = _tile_kernel("pl.tile.gather_row(acc, src, [0, 0], [0, 0], [1, 32])").replace(
        "src: pl.Tensor[[24, 32], pl.FP32]", "src: pl.Tensor[[24, 32], pl.FP16]")
    with pytest.raises(TilefoldError, match="source dtype FP16 differs from accumulator dtype FP32"):
        pl.parse(fp16_src)
    acc_space = _tile_kernel("pl.tile.gather_row(pl.tile.move(acc, target_memory=pl.Mem.Left), src, [0, 0], "
                             "[0, 0], [1, 32])")
    with pytest.raises(TilefoldError, match="takes it in Mat / Vec only"):
        pl.parse(acc_space)
