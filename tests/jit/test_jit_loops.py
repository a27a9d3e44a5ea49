"""Tensor-level code inside loops of a pl.at scope (and loops of the orchestration around scopes), reading and
writing windows at loop-variable offsets. Each kernel runs on the simulator; references are numpy, computed here."""

import loop_kernels as k
import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import ParseError, TypeInferenceError
from tilefold.ir.stmt import ForStmt
from tilefold.ir.types import TileType
from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import convert_tensor_to_tile_ops
from tilefold.runtime.jit_compile import to_tile_program

RNG = np.random.default_rng(11)


def r(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def test_k_blocked_matmul_accumulates_at_loop_offsets():
    a, b, c = r(128, 512, dtype=np.float16), r(512, 128, dtype=np.float16), np.zeros((128, 128), np.float32)
    k.matmul_k_blocked(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


def test_slice_and_assemble_at_loop_offsets():
    x, out = r(256, 64), np.zeros((256, 64), np.float32)
    k.row_blocks_slice_assemble(x, out)
    np.testing.assert_allclose(out, np.exp(x) + 1.0, rtol=1e-5)


def test_subscript_reads_and_writes_at_offsets_of_a_parallel_loop_with_a_step():
    x, out = r(256, 64), np.zeros((256, 64), np.float32)
    k.row_blocks_subscripts(x, out)
    np.testing.assert_array_equal(out, x * 2.0)


def test_column_windows_at_affine_offsets():
    x, out = r(32, 256), np.zeros((32, 128), np.float32)
    k.column_window_strided(x, out)
    ref = np.concatenate([x[:, 64 * j:64 * j + 32] + x[:, 64 * j + 32:64 * j + 64] for j in range(4)], axis=1)
    np.testing.assert_array_equal(out, ref)


def test_tensor_carried_across_iterations_from_a_full():
    x, out = r(128, 64), np.zeros((16, 64), np.float32)
    k.carried_block_sum(x, out)
    np.testing.assert_allclose(out, x.reshape(8, 16, 64).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_nested_loops_with_two_dynamic_offsets():
    x, out = r(64, 128), np.zeros((64, 128), np.float32)
    k.nested_loops(x, out)
    np.testing.assert_allclose(out, x + x * x, rtol=1e-6)


def test_orchestration_parallel_loop_around_scopes():
    x, out = r(256, 64), np.zeros((256, 64), np.float32)
    k.orchestration_parallel(x, out)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)


def test_scalar_parameter_offset_is_checked_by_the_device():
    from tilefold.sim.faults import OutOfBounds

    x, out = r(64, 64), np.zeros((16, 64), np.float32)
    k.scalar_offset(x, 8, out)
    np.testing.assert_array_equal(out, x[8:24] + 1.0)
    with pytest.raises(OutOfBounds, match="leaves tensor"):
        k.scalar_offset(x, 56, np.zeros((16, 64), np.float32))  # rows 56..72 of 64: unprovable at compile time


def test_full_at_tensor_level_and_tiled_when_larger_than_ub():
    c = np.ones((64, 64), np.float32)
    k.zero_init(c)
    np.testing.assert_array_equal(c, 0.0)
    big = np.zeros((1024, 256), np.float32)  # 1 MiB: row blocks of tile.full
    k.fill_large(big)
    np.testing.assert_array_equal(big, 1.5)


def test_column_reductions_larger_than_ub_accumulate_over_row_blocks():
    a = r(2048, 128)
    e, s = np.zeros_like(a), np.zeros((1, 128), np.float32)
    mx, mn = np.zeros((1, 128), np.float32), np.full((2, 128), 7.0, np.float32)
    k.col_reductions_large(a, e, s, mx, mn)
    np.testing.assert_allclose(e, np.exp(a * 0.5), rtol=1e-5)
    np.testing.assert_allclose(s, np.exp(a * 0.5).sum(axis=0, keepdims=True), rtol=1e-4)
    np.testing.assert_array_equal(mx, a.max(axis=0, keepdims=True))
    np.testing.assert_array_equal(mn[1:], a.min(axis=0, keepdims=True))
    np.testing.assert_array_equal(mn[0], 7.0)  # the write at row offset 1 leaves row 0 alone
    tile = to_tile_program(k.col_reductions_large.parse(a, e, s, mx, mn))
    fn = next(f for f in tile.functions if f.name.endswith("_incore_0"))
    loops = [st for st in ir.flatten_stmts(fn.body) if isinstance(st, ForStmt)]
    assert len(loops) == 1  # one row-block loop for the whole region
    accumulators = [ia for ia in loops[0].iter_args if isinstance(ia.type, TileType)]
    assert len(accumulators) == 3  # one [1, 128] accumulator per column reduction
    assert all(ia.type.static_shape == (1, 128) for ia in accumulators)


def test_column_sum_with_a_dynamic_row_count():
    for n in (3000, 77):
        a, out = r(n, 64), np.zeros((1, 64), np.float32)
        k.col_sum_dynamic_rows(a, out)
        np.testing.assert_allclose(out, a.sum(axis=0, keepdims=True), rtol=1e-4, atol=1e-4)


BEFORE = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (o,) in pl.range(4, init_values=(out,)):
            r0: pl.Scalar[pl.INDEX] = i * 64
            t: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.slice(x, [64, 64], [r0, 0])
            y: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(t)
            o2: pl.Tensor[[256, 64], pl.FP32] = pl.tensor.assemble(o, y, [r0, 0])
            res = pl.yield_(o2)
        return res
'''

EXPECTED = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        for i, (o,) in pl.range(4, init_values=(out,)):
            r0: pl.Scalar[pl.INDEX] = i * 64
            t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [r0, 0], [64, 64], target_memory=pl.Mem.Vec)
            y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            o2: pl.Tensor[[256, 64], pl.FP32] = pl.store(y, [r0, 0], o)
            res = pl.yield_(o2)
        return res
'''


def test_dynamic_offset_lowering_before_after():
    """The assemble loop becomes a tile.store loop at the same (loop-variable) offsets; the slice a tile.load."""
    after = convert_tensor_to_tile_ops()(pl.parse(BEFORE, "before.py"))
    ir.assert_structural_equal(after, pl.parse(EXPECTED, "expected.py"))


HEAD = "import tilefold.language as pl\n\n"
SIG = ("@pl.jit\ndef kern(x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):\n"
       "    with pl.at(level=pl.Level.CORE_GROUP):\n")


def lowered_error(body: str, exc: type) -> Exception:
    src = HEAD + SIG + body + "    return out\n"
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        to_tile_program(pl.parse(src, "kern.py"))
    err = info.value
    assert err.span is not None and err.span.filename == "kern.py" and err.span.line == line, str(err)
    assert err.hint
    return err


def test_slice_extent_must_be_provably_constant():
    err = lowered_error("        for i in pl.range(1, 3):\n"
                        "            out[:] = pl.exp(x[i : 2 * i + 62, :])  # <-\n", ParseError)
    assert "tensor slice extent must be a compile-time constant" in err.message
    assert "lo : lo + EXTENT" in err.hint


def test_slice_bounds_must_be_integers():
    err = lowered_error("        for i in pl.range(2):\n"
                        "            f = 1.5\n"
                        "            out[:] = pl.exp(x[f : f + 64, :])  # <-\n", ParseError)
    assert "tensor slice bounds must be integers" in err.message


def test_a_window_leaving_the_tensor_over_the_loop_is_refused():
    err = lowered_error("        for i in pl.range(5):\n"
                        "            t = x[i * 64 : i * 64 + 64, :]  # <-\n"
                        "            out[:] = pl.exp(t)\n", TypeInferenceError)
    assert "offsets 0..256 over the loop, so it leaves the extent 256" in err.message
    assert "offset + 64 <= 256" in err.hint


def test_an_assemble_leaving_the_tensor_over_the_loop_is_refused():
    src = (HEAD + "@pl.jit\ndef kern(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):\n"
           "    with pl.at(level=pl.Level.CORE_GROUP):\n        for i in pl.range(1, 5):\n"
           "            out = pl.assemble(out, pl.exp(x), [i * 64, 0])\n    return out\n")
    with pytest.raises(TypeInferenceError, match="offsets 64..256 over the loop, so it leaves the extent 256") as info:
        to_tile_program(pl.parse(src, "kern.py"))
    assert info.value.span.line == 7


def test_windows_of_computed_tensors_straight_line_and_at_loop_offsets():
    x = r(64, 128)
    halves, odd = np.zeros((64, 64), np.float32), np.zeros((64, 16), np.float32)
    k.windows_of_a_computed_tensor(x, halves, odd)
    e = np.exp(x)
    np.testing.assert_allclose(halves, e[:, :64] + e[:, 64:], rtol=1e-5)
    np.testing.assert_allclose(odd, -e[:, 3:19], rtol=1e-5)
    rows, cols = np.zeros((64, 128), np.float32), np.zeros((64, 16), np.float32)
    k.loop_windows_of_a_computed_tensor(x, rows, cols)
    np.testing.assert_allclose(rows, e * 2.0, rtol=1e-5)
    np.testing.assert_allclose(cols, -e[:, 6:22], rtol=1e-5)  # the last iteration's window


def test_a_window_of_a_computed_tensor_leaving_it_over_the_loop_is_refused():
    err = lowered_error("        t = pl.exp(x[0:64, :])\n        for i in pl.range(2):\n"
                        "            out[:] = pl.add(t[i * 32 : i * 32 + 64, :], 1.0)  # <-\n", TypeInferenceError)
    assert "starts at offsets 0..32 over the loop, so it leaves the extent 64" in err.message


def test_online_softmax_state_is_carried_as_tiles_and_windows_load_at_the_loop_offset():
    """Flash attention's loop: the running max, sum and output are loop-carried tiles; the K / V windows at
    j * BLOCK load straight into Mat at that offset; q, read whole in and before the loop, is loaded once.
    (Running it needs the cube <-> vector hand-over of mixed kernels, a separate feature.)"""
    from tilefold.ir.expr import Call

    tile = to_tile_program(k.online_softmax_attention.parse())
    fn = next(f for f in tile.functions if f.name.endswith("_incore_0"))
    loop = next(st for st in ir.flatten_stmts(fn.body) if isinstance(st, ForStmt))
    carried = {ia.name: ia.type for ia in loop.iter_args}
    assert all(isinstance(t, TileType) for t in carried.values())
    assert {"l", "o", "m"} <= set(carried)
    body = ir.flatten_stmts(loop.body)
    loads = [st.value for st in body if isinstance(getattr(st, "value", None), Call) and st.value.op_name == "tile.load"]
    assert sorted(ld.args[0].name for ld in loads) == ["kt", "v"]  # q is not reloaded per iteration
    assert all(ld.type.memory_space.name == "Mat" for ld in loads)
    assert all(any(isinstance(o, ir.Var) and o.name == "c0" for o in ld.args[1].elements) for ld in loads)


def test_windows_and_writes_at_row_offsets_of_tensors_larger_than_ub_are_tiled():
    x = r(4096, 128)  # 2 MiB
    out = np.zeros_like(x)
    k.swap_halves_large(x, out)
    np.testing.assert_allclose(out[:2048], np.exp(x[2048:]), rtol=1e-5)
    np.testing.assert_array_equal(out[2048:], -x[:2048])
    small = np.zeros((1024, 128), np.float32)
    k.window_of_large_to_small(x, small)
    np.testing.assert_array_equal(small, x[1000:2024] + x[3072:])
    tile = to_tile_program(k.swap_halves_large.parse(x, out))
    fn = next(f for f in tile.functions if f.name.endswith("_incore_0"))
    assert sum(isinstance(st, ForStmt) for st in ir.flatten_stmts(fn.body)) == 1  # one loop over row blocks


def test_block_table_offsets_from_element_reads():
    from tilefold.sim.faults import OutOfBounds

    pool, out = r(512, 64), np.zeros((128, 64), np.float32)
    table = np.array([7, 2, 15, 0], np.int32)
    k.paged_gather(pool, table, out)
    np.testing.assert_array_equal(out, np.concatenate([pool[p * 32:p * 32 + 32] * 3.0 for p in table]))
    with pytest.raises(OutOfBounds, match="leaves tensor @pool"):
        k.paged_gather(pool, np.array([7, 2, 16, 0], np.int32), out)  # page 16 is rows 512..544 of 512


def test_a_parameter_carried_through_a_loop_becomes_a_tile():
    x, out = r(32, 64), np.zeros((32, 64), np.float32)
    k.carried_from_parameter(x, out)
    ref = x.copy()
    for _ in range(3):
        ref = ref * 0.5 + x
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_a_scalar_statement_between_tensor_ops_is_lowered_in_order():
    x, out = r(64, 64), np.zeros((64, 64), np.float32)
    k.scalar_between_tensor_ops(x, np.array([1.0, 2.0, 3.0, 4.0], np.float32), 2, out)
    np.testing.assert_allclose(out, np.exp(x) * 3.0, rtol=1e-5)


def _cube_vector_hand_over() -> bool:
    """Does this tree move a matmul result to vector work and back inside one scope (mixed kernels)?"""
    try:
        k.flash_attention_full_init.compile(np.zeros((16, 64), np.float16), np.zeros((64, 128), np.float16),
                                            np.zeros((128, 64), np.float16), np.zeros((16, 64), np.float32))
    except TypeInferenceError as exc:
        if "data path" in exc.message:
            return False
        raise
    return True


def test_flash_attention_state_from_full_with_an_if_lowers_to_carried_vec_tiles():
    tile = to_tile_program(k.flash_attention_full_init.parse())
    fn = next(f for f in tile.functions if f.name.endswith("_incore_0"))
    loop = next(st for st in ir.flatten_stmts(fn.body) if isinstance(st, ForStmt))
    assert {ia.name for ia in loop.iter_args} >= {"m", "l", "o"}
    assert all(isinstance(ia.type, TileType) and ia.type.memory_space.name == "Vec" for ia in loop.iter_args)


def test_flash_attention_runs_end_to_end_when_cube_and_vector_hand_over():
    if not _cube_vector_hand_over():
        pytest.skip("needs the cube <-> vector hand-over of mixed kernels (InferTileMemorySpace GM route)")
    q, kt, v = r(16, 64, dtype=np.float16), r(64, 128, dtype=np.float16), r(128, 64, dtype=np.float16)
    out = np.zeros((16, 64), np.float32)
    k.flash_attention_full_init(q, kt, v, out)
    s = q.astype(np.float32) @ kt.astype(np.float32)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_windows_of_a_dynamic_row_count_one_compile_and_a_run_time_check():
    from tilefold.sim.faults import OutOfBounds

    for m in (64, 160):
        x, out = r(m, 64), np.zeros((m, 64), np.float32)
        k.dynamic_rows_block_loop(x, 0, out)
        ref = np.exp(x)
        ref[:16] = -x[:16]
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    assert len({key for key in k.dynamic_rows_block_loop._cache}) == 1  # one kernel for both extents
    with pytest.raises(OutOfBounds, match="leaves tensor"):
        k.dynamic_rows_block_loop(r(64, 64), 1, np.zeros((64, 64), np.float32))  # one block too many


def test_matmul_acc_in_row_blocks_keeps_its_right_hand_side_whole():
    a, b = r(512, 512, dtype=np.float16), r(512, 32, dtype=np.float16)
    a2, b2 = r(512, 512, dtype=np.float16), r(512, 32, dtype=np.float16)
    c = np.zeros((512, 32), np.float32)
    k.matmul_acc_row_tiled(a, b, a2, b2, c)
    f32 = [x.astype(np.float32) for x in (a, b, a2, b2)]
    np.testing.assert_allclose(c, f32[0] @ f32[1] + f32[2] @ f32[3], rtol=2e-2, atol=5e-2)
    tile = to_tile_program(k.matmul_acc_row_tiled.parse(a, b, a2, b2, c))
    fn = next(f for f in tile.functions if f.name.endswith("_incore_0"))
    assert isinstance(ir.flatten_stmts(fn.body)[0], ForStmt)


def test_a_while_loop_carries_a_tile_and_its_counter():
    x, out = r(128, 64), np.zeros((32, 64), np.float32)
    k.while_loop_accumulates(x, out)
    np.testing.assert_allclose(out, x.reshape(4, 32, 64).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_a_scalar_offset_carried_next_to_a_tensor():
    x, out = r(128, 64), np.zeros((32, 64), np.float32)
    k.scalar_and_tensor_carried(x, out)
    np.testing.assert_array_equal(out, x.reshape(4, 32, 64).max(axis=0))


def test_a_tile_store_between_two_reads_of_a_tensor_is_seen_by_the_second():
    x, out = r(16, 64), np.zeros((16, 64), np.float32)
    x0 = x.copy()
    k.store_between_reads(x, out)
    np.testing.assert_allclose(x, x0 + 1.0, rtol=1e-6)
    np.testing.assert_allclose(out, (x0 + 1.0) + np.exp(x0), rtol=1e-5)
