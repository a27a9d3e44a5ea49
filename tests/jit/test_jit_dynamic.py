"""pl.dynamic extents on any axis and pl.concat inside loops / ifs: two extents each through one compiled kernel,
numpy references computed here, run-time window checks, and the located errors of what stays refused."""

import numpy as np
import pytest
from tests.jit import dynamic_kernels as k

import tilefold.ir as ir
from tilefold.errors import TilefoldError
from tilefold.sim.faults import OutOfBounds

_rng = np.random.default_rng(7)


def r(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return _rng.standard_normal(shape).astype(dtype)


def test_dynamic_middle_axis_two_extents_one_compile_and_a_run_time_check():
    for s in (64, 160):
        x, out = r(2, s, 64), np.zeros((2, s, 64), np.float32)
        k.seq_blocks_3d(x, 0, out)
        np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)
    assert k.seq_blocks_3d.compile_count == 1
    with pytest.raises(OutOfBounds, match="leaves tensor"):
        k.seq_blocks_3d(r(2, 64, 64), 1, np.zeros((2, 64, 64), np.float32))  # one window past S
    assert k.seq_blocks_3d.compile_count == 1


def test_dynamic_column_extent_walked_in_windows():
    for n in (128, 320):
        x, out = r(16, n), np.zeros((16, n), np.float32)
        k.column_windows(x, out)
        np.testing.assert_allclose(out, 2 * x, rtol=1e-6)
    assert k.column_windows.compile_count == 1


def test_whole_tensors_of_dynamic_rows_and_columns_are_a_grid_of_valid_shape_blocks():
    for shape in ((16, 128), (70, 300)):  # the second: partial last blocks on both axes
        x, y, out = r(*shape), r(*shape, dtype=np.float16), np.full(shape, -7.0, np.float32)
        k.whole_dynamic(x, y, out)
        np.testing.assert_allclose(out, np.exp(x) + 3 * y.astype(np.float32), rtol=1e-5, atol=1e-5)
    assert k.whole_dynamic.compile_count == 1
    prog = k.whole_dynamic.lower(r(16, 128), r(16, 128, dtype=np.float16), np.zeros((16, 128), np.float32))
    text = prog.as_python()
    # each block's valid extent is a run-time value: min(extent - block start, block size)
    assert "valid_shape=[pl.min(M - row_block * 8, 8), pl.min(N - col_block * 256, 256)]" in text


def test_a_constant_window_of_a_dynamic_column_extent_in_straight_line_code():
    for n in (64, 200):
        x, out = r(16, n), np.zeros((16, n), np.float32)
        k.constant_window_of_dynamic_columns(x, out)
        np.testing.assert_allclose(out[:, :64], np.exp(x[:, :64]), rtol=1e-5)
        assert not out[:, 64:].any()  # the rest of out is not written
    assert k.constant_window_of_dynamic_columns.compile_count == 1


def test_row_reductions_over_a_dynamic_width_combine_padded_column_blocks():
    for shape in ((16, 300), (9, 513)):  # partial column blocks; partial row blocks (their rows are not stored)
        x = r(*shape)
        sums, maxes = np.full((shape[0], 1), 5.0, np.float32), np.full((shape[0], 1), 5.0, np.float32)
        out = np.zeros(shape, np.float32)
        k.row_reductions_of_dynamic_columns(x, sums, maxes, out)
        np.testing.assert_allclose(sums, np.exp(2 * x).sum(axis=1, keepdims=True), rtol=1e-4)
        np.testing.assert_allclose(maxes, (2 * x).max(axis=1, keepdims=True), rtol=1e-6)
        np.testing.assert_allclose(out, -2 * x, rtol=1e-6)
    assert k.row_reductions_of_dynamic_columns.compile_count == 1
    text = k.row_reductions_of_dynamic_columns.lower(x, sums, maxes, out).as_python()
    assert "pl.tile.fillpad(" in text and "pad_value=pl.PadValue.min" in text and "pl.tile.set_validshape(" in text


def test_a_dynamic_1d_extent_is_one_loop_of_valid_shape_blocks():
    for n in (40, 600):
        x, out = r(n), np.zeros(n, np.float32)
        k.elementwise_1d(x, out)
        np.testing.assert_allclose(out, np.exp(x) + 1, rtol=1e-5)
    assert k.elementwise_1d.compile_count == 1


def test_a_dynamic_reduction_length_walked_by_matmul_acc():
    for kk in (64, 192):
        a, b, out = r(16, kk, dtype=np.float16), r(kk, 32, dtype=np.float16), np.zeros((16, 32), np.float32)
        k.matmul_dynamic_k(a, b, out)
        np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    assert k.matmul_dynamic_k.compile_count == 1


def _paged_reference(q, kc, vc, table):
    ks = np.concatenate([kc[b * k.BLOCK:(b + 1) * k.BLOCK] for b in table]).astype(np.float32)
    vs = np.concatenate([vc[b * k.BLOCK:(b + 1) * k.BLOCK] for b in table]).astype(np.float32)
    s = q.astype(np.float32) @ ks.T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ vs


def test_paged_attention_over_a_dynamic_number_of_blocks_from_a_block_table():
    for pool, table in ((6, [4, 1, 3]), (10, [0, 9, 2, 7, 5])):
        q = r(16, 64, dtype=np.float16)
        kc, vc = r(pool * k.BLOCK, 64, dtype=np.float16), r(pool * k.BLOCK, 64, dtype=np.float16)
        bt = np.array(table, np.int32)
        out = np.zeros((16, 64), np.float32)
        k.paged_attention(q, kc, vc, bt, out)
        np.testing.assert_allclose(out, _paged_reference(q, kc, vc, bt), rtol=2e-2, atol=2e-2)
    assert k.paged_attention.compile_count == 1
    with pytest.raises(OutOfBounds, match="leaves tensor"):  # a block index past the pool
        k.paged_attention(q, kc[: 4 * k.BLOCK], vc[: 4 * k.BLOCK], np.array([1, 7], np.int32),
                          np.zeros((16, 64), np.float32))


def test_concat_inside_a_loop_is_one_store_per_part():
    x, y, out = r(64, 32), r(64, 16), np.zeros((64, 80), np.float32)
    k.concat_in_a_loop(x, y, out)
    np.testing.assert_allclose(out, np.concatenate([np.exp(x), y, x], axis=1), rtol=1e-5)
    fn = next(f for f in k.concat_in_a_loop.lower(x, y, out).functions if f.name.endswith("_incore_0"))
    loop = next(s for s in ir.flatten_stmts(fn.body) if isinstance(s, ir.ForStmt))
    stores = [s for s in ir.flatten_stmts(loop.body) if isinstance(s, ir.AssignStmt)
              and isinstance(s.value, ir.Call) and s.value.op_name == "tile.store"]
    assert len(stores) == 3


def test_concat_inside_an_if():
    x = r(32, 32)
    for n, ref in ((5, np.concatenate([-x, x], axis=1)), (1, np.concatenate([x, np.exp(x)], axis=1))):
        out = np.zeros((32, 64), np.float32)
        k.concat_in_an_if(x, n, out)
        np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_concat_next_to_dynamic_column_windows():
    for n in (64, 192):
        x, out = r(16, n), np.zeros((16, n), np.float32)
        k.concat_at_dynamic_columns(x, out)
        ref = x.copy()
        for c0 in range(0, n, 64):
            ref[:, c0:c0 + 32] *= 2
        np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert k.concat_at_dynamic_columns.compile_count == 1


def test_nested_concat_in_straight_line_code():
    a, b, out = r(32, 32), r(32, 16), np.zeros((32, 80), np.float32)
    k.nested_concat_straight_line(a, b, out)
    np.testing.assert_allclose(out, np.concatenate([np.exp(a), b, a], axis=1), rtol=1e-5)


@pytest.mark.parametrize("kernel, args, text", [
    (k.whole_dynamic_in_a_loop, ((16, 64), (16, 64)),
     "'x' is used whole inside a loop, an if or next to a dynamic window, but axis 1 has the dynamic extent N"),
    (k.softmax_of_dynamic_columns, ((16, 64), (16, 64)),
     "tensor.row_expand_div: a whole-tensor operand with a dynamic extent (N on axis 1) is only lowered in "
     "straight-line element-wise regions"),
    (k.concat_fed_to_compute, ((64, 32), (32, 64)), "the result of pl.concat ('c') is used by tensor.exp"),
    (k.matmul_whole_dynamic_k, ((16, 64, np.float16), (64, 32, np.float16), (16, 32)),
     "tensor.matmul: a whole-tensor operand with a dynamic extent (K on axis 1)"),
    (k.concat_fed_to_compute_straight_line, ((32, 32), (32, 64)), "is used by tensor.exp: a concat can only be "
                                                                  "written to a tensor"),
])
def test_what_stays_refused_is_a_located_error_with_a_hint(kernel, args, text):
    with pytest.raises(TilefoldError) as info:
        kernel(*(np.zeros(s[:-1], s[-1]) if isinstance(s[-1], type) else np.zeros(s, np.float32) for s in args))
    assert text in info.value.message
    assert info.value.span is not None and info.value.span.line > 0
    assert "pl.range(pl.tensor.dim(" in (info.value.hint or "") or "pl.concat" in (info.value.hint or "")
