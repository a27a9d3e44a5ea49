"""The analyses behind the pass: scalar facts and slice windows."""

from __future__ import annotations

import pytest
from cts_helpers import kernel

from tilefold import ir
from tilefold.analysis import ScalarFacts, add_index, analyze_slice_windows, runs_more_than_once


def facts_of(body: str, params: str = "n: pl.Scalar[pl.INDEX]"):
    fn = kernel(params, body).functions[0]
    analysis = analyze_slice_windows(fn)
    by_name = {s.var.name: s.var for s in fn.body.stmts if isinstance(s, ir.AssignStmt)}
    return analysis, by_name


@pytest.mark.parametrize(
    ("definition", "const", "multiple"),
    [
        ("16", 16, 16),
        ("4 * 8 - 2", 30, 30),
        ("b * 32", None, 32),
        ("(b * 16) * 2", None, 32),
        ("b * 8 + 16", None, 8),
        ("b * 64 - 8", None, 8),
        ("b + 3", None, 1),
        ("n * 6 * b", None, 6),
        ("b // 2", None, 1),
    ],
)
def test_constants_and_known_multiples(definition, const, multiple):
    analysis, v = facts_of(f"""
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
c: pl.Scalar[pl.INDEX] = {definition}
alias = c
""")
    facts = analysis.facts
    for name in ("c", "alias"):
        assert facts.const_value(v[name]) == const
        assert facts.known_multiple(v[name]) == multiple


def test_loop_variable_multiple_and_range():
    fn = kernel("n: pl.Scalar[pl.INDEX]", """
for i in pl.range(8, 64, 16):
    j: pl.Scalar[pl.INDEX] = i * 2
""").functions[0]
    analysis = analyze_slice_windows(fn)
    loop = fn.body.stmts[0]
    rng = analysis.facts.loop_range(loop.loop_var)
    assert (rng.start_value, rng.stop_value, rng.step_value) == (8, 64, 16)
    assert rng.provably_runs_more_than_once
    assert analysis.facts.known_multiple(loop.loop_var) == 8
    assert analysis.facts.known_multiple(loop.body.stmts[0].var) == 16


def test_trip_count_rule():
    assert runs_more_than_once(0, 4, 1)
    assert not runs_more_than_once(0, 1, 1)
    assert not runs_more_than_once(0, 2, 2)
    assert not runs_more_than_once(0, None, 1)
    assert not runs_more_than_once(4, 0, -1)


def test_add_index_folds_constants_and_drops_zero():
    facts = ScalarFacts()
    x = ir.Var("x", ir.ScalarType(ir.DataType.INDEX))
    assert add_index(ir.ConstInt(3), ir.ConstInt(4), facts).value == 7
    assert add_index(x, ir.ConstInt(0), facts) is x
    assert add_index(ir.ConstInt(0), x, facts) is x
    s = add_index(x, ir.ConstInt(5), facts)
    assert isinstance(s, ir.Add) and s.dtype is ir.DataType.INDEX and s.lhs is x


def test_slice_chains_resolve_to_the_base_with_summed_offsets():
    analysis, v = facts_of("""
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[64, 64], dtype=pl.FP32)
b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
s1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 32], [16, 8])
s2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s1, [16, 16], [b, 4])
a = s2
s3: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [8, 8], [1, 1])
""")
    info = analysis.slices[v["s3"]]
    assert info.base is v["t"] and info.chain_depth == 2
    row, col = info.offsets
    assert isinstance(row, ir.Add) and col.value == 13
    assert analysis.tile_alias[v["a"]] is v["s2"]
    # general mode also records windows of non-Acc parents
    assert analysis.windows[v["s3"]].parent is v["t"]


def test_windows_flow_through_iter_args_and_return_vars_only_when_the_carry_is_the_same_window():
    fn = kernel("n: pl.Scalar[pl.INDEX]", """
acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.BF16, target_memory=pl.Mem.Left)
b: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 64], dtype=pl.BF16, target_memory=pl.Mem.Right)
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [0, 0])
for k, (c_iter,) in pl.range(0, n, 1, init_values=(w,)):
    c_next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
    same = pl.yield_(c_next)
for k2, (d_iter,) in pl.range(0, n, 1, init_values=(w,)):
    other: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
    differs = pl.yield_(other)
""").functions[0]
    analysis = analyze_slice_windows(fn, acc_windows_only=True)
    names = {v.name: w for v, w in analysis.windows.items()}
    assert names["c_iter"] is names["w"] and names["c_next"] is names["w"] and names["same"] is names["w"]
    assert names["d_iter"] is names["w"]
    assert "differs" not in names


def test_acc_only_mode_skips_windows_of_other_memories():
    fn = kernel("n: pl.Scalar[pl.INDEX]", """
t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(shape=[64, 64], dtype=pl.FP32)
s: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 32], [16, 8])
""").functions[0]
    assert analyze_slice_windows(fn, acc_windows_only=True).windows == {}
    assert len(analyze_slice_windows(fn).windows) == 1
