"""Regressions from the review: transitive aliases, a remark for every slice, deterministic remark order,
views as slice parents in the Acc rule, one dominating copy per slice, and the strict-codegen hint."""

from __future__ import annotations

import numpy as np
import pytest
from cts_helpers import calls, check, kernel, run, run_with_remarks

from tilefold import compiler, ir
from tilefold.analysis import analyze_slice_windows
from tilefold.backend import InternalCheckError
from tilefold.ir.stmt import AssignStmt
from tilefold.ops import op_of
from tilefold.passes.canonicalize_tile_slice import AccWindowError
from tilefold.testing import run_and_compare

STRICT = {"enable_auto_bind_sub_block": False}

VEC_PARAMS = ("x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], "
              "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
VEC_RET = "pl.Tensor[[16, 64], pl.FP32]"
VEC_LOADS = """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
gt: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
"""


def vec_kernel(body: str):
    return kernel(VEC_PARAMS, VEC_LOADS + body, ret=VEC_RET)


def remarks_of(program) -> dict[str, list]:
    _, remarks = run_with_remarks(program)
    out: dict[str, list] = {}
    for r in remarks:
        out.setdefault(r.details.get("slice", ""), []).append(r)
    return out


def slice_names(program) -> list[str]:
    fn = program.functions[0]
    return [s.var.name for s in _assigns(fn) if isinstance(s.value, ir.Call) and s.value.op_name == "tile.slice"]


def _assigns(fn):
    from cts_helpers import all_stmts

    return [s for s in all_stmts(fn) if isinstance(s, AssignStmt)]


# ------------------------------------------------------------------------------------------------
# 1. plain aliases are followed transitively
# ------------------------------------------------------------------------------------------------

ALIAS2 = """
hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
a = hi
b = a
y = pl.tile.col_expand_mul(b, gt)
out = pl.store(y, [0, 0], out)
return out
"""


def test_alias_of_an_alias_into_col_expand_is_materialized_and_the_aliases_die():
    expected = vec_kernel("""
hi_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 64, shape=[16, 64], target_memory=pl.Mem.Vec)
y = pl.tile.col_expand_mul(hi_ext, gt)
out = pl.store(y, [0, 0], out)
return out
""")
    check(vec_kernel(ALIAS2), expected)


def test_alias_of_an_alias_into_col_expand_compiles_in_strict_codegen_and_matches_golden():
    program = vec_kernel(ALIAS2)
    compiler.compile(program, codegen="strict", options=STRICT)  # must not refuse a subview operand
    report = run_and_compare(program, "random", seed=3, options=STRICT)
    assert report.matches, report.first_mismatch


def test_mat_slice_reached_through_an_alias_is_folded_into_the_matmul():
    params = ("a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], "
              "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]")
    loads = """
am: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
bm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
"""
    before = kernel(params, loads + """
ls: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(am, [16, 64], [16, 0])
la = ls
lb = la
c = pl.tile.matmul(lb, bm)
out = pl.store(c, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 32], pl.FP32]")
    expected = kernel(params, loads + """
ls_left: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.extract(am, 16, 0, shape=[16, 64], target_memory=pl.Mem.Left)
c = pl.tile.matmul(ls_left, bm)
out = pl.store(c, [0, 0], out)
return out
""", ret="pl.Tensor[[16, 32], pl.FP32]")
    check(before, expected)
    report = run_and_compare(before, "random", seed=2, options=STRICT)
    assert report.matches, report.first_mismatch


def test_mat_slice_through_two_aliases_folds_into_an_extract():
    before = kernel("x: pl.Tensor[[64, 512], pl.BF16]", """
x_mat: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
page: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
p1 = page
p2 = p1
a: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(p2, 0, 256, shape=[32, 256], target_memory=pl.Mem.Left)
""")
    expected = kernel("x: pl.Tensor[[64, 512], pl.BF16]", """
x_mat: pl.Tile[[64, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
a: pl.Tile[[32, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(x_mat, 32, 256, shape=[32, 256], target_memory=pl.Mem.Left)
""")
    check(before, expected)


def test_misaligned_slice_behind_three_aliases_is_materialized_at_the_first_alias():
    before = vec_kernel("""
h: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
a = h
b = a
c = b
y = pl.tile.muls(c, 0.5)
z = pl.tile.adds(h, 1.0)
""")
    expected = vec_kernel("""
a: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
b = a
c = b
y = pl.tile.muls(c, 0.5)
z = pl.tile.adds(a, 1.0)
""")
    check(before, expected)


def test_slice_of_an_alias_of_a_slice_is_peeled_to_the_base():
    before = vec_kernel("""
s1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
a = s1
b = a
s2: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(b, [16, 8], [0, 3])
y = pl.tile.exp(s2)
""")
    expected = vec_kernel("""
s2_ext: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 67, shape=[16, 8], target_memory=pl.Mem.Vec)
y = pl.tile.exp(s2_ext)
""")
    check(before, expected)


def test_alias_chain_into_a_loop_whose_iter_arg_alias_feeds_col_expand():
    before = vec_kernel("""
lo: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 0])
a = lo
b = a
for i, (acc,) in pl.range(0, 2, init_values=(b,)):
    acc2 = acc
    nxt = pl.tile.col_expand_mul(acc2, gt)
    res = pl.yield_(nxt)
""")
    expected = vec_kernel("""
lo_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 0, shape=[16, 64], target_memory=pl.Mem.Vec)
for i, (acc,) in pl.range(0, 2, init_values=(lo_ext,)):
    acc2 = acc
    nxt = pl.tile.col_expand_mul(acc2, gt)
    res = pl.yield_(nxt)
""")
    check(before, expected)


def test_analysis_resolves_alias_chains_to_the_slice_once():
    program = vec_kernel("""
s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
a = s
b = a
c = b
y = pl.tile.col_expand_mul(c, gt)
""")
    fn = program.functions[0]
    analysis = analyze_slice_windows(fn)
    v = {s.var.name: s.var for s in _assigns(fn)}
    for name in ("a", "b", "c"):
        assert analysis.tile_alias[v[name]] is v["s"]
        assert analysis.slice_of(v[name]) is analysis.slices[v["s"]]
    assert analysis.alias_src[v["c"]] is v["b"] and analysis.alias_src[v["a"]] is v["s"]
    assert v["s"] in analysis.col_broadcast_operands  # recorded at the root of the alias chain


# ------------------------------------------------------------------------------------------------
# 2. every slice gets a remark; 3. dropped remarks come in program order
# ------------------------------------------------------------------------------------------------

CHAIN3 = kernel(
    "x: pl.Tensor[[64, 256], pl.FP32], g: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]",
    """
t: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 256], target_memory=pl.Mem.Vec)
gt: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
s1: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 128], [16, 64])
s2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s1, [16, 64], [8, 32])
s3: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s2, [4, 16], [2, 3])
y = pl.tile.muls(s3, 2.0)
pl.tile.col_expand_mul(s3, gt)
s4: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s2, [4, 16], [0, 8])
y2 = pl.tile.add(y, s4)
out = pl.store(y2, [0, 0], out)
return out
""", ret="pl.Tensor[[4, 16], pl.FP32]")


def test_every_link_of_a_chain_gets_a_remark():
    got = remarks_of(CHAIN3)
    assert set(slice_names(CHAIN3)) <= set(got)
    kinds = {name: [r.kind for r in got[name]] for name in ("s1", "s2", "s3", "s4")}
    assert kinds["s1"] == ["kept"] and got["s1"][0].details["reason"] == "chained"
    assert "'s2'" in got["s1"][0].message
    assert kinds["s2"] == ["peeled", "kept"] and "'s4'" in got["s2"][1].message
    assert kinds["s3"] == ["materialized", "materialized", "peeled", "dropped"]
    assert got["s3"][2].details["offsets"] == ("26", "99") and got["s3"][2].details["depth"] == 2
    assert kinds["s4"] == ["kept-zero-copy", "peeled"]


def test_four_operand_slice_gets_a_skipped_remark():
    got = remarks_of(vec_kernel("""
hi = pl.tile.slice(t, [16, 64], [0, 64], [8, 64])
y = pl.tile.col_expand_mul(hi, gt)
"""))
    (r,) = got["hi"]
    assert r.kind == "skipped" and r.details["operands"] == 4
    assert "tile.extract" in r.message and "3-operand" in r.message


def test_slice_used_only_through_an_aligned_alias_gets_a_remark():
    got = remarks_of(kernel("x: pl.Tensor[[16, 128], pl.FP32], n: pl.Scalar[pl.INDEX]", """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
a = w
v: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 16])
b = v
if n > 0:
    r = pl.yield_(b)
else:
    r = pl.yield_(b)
y = pl.tile.muls(a, 0.5)
"""))
    assert [r.kind for r in got["w"]] == ["kept-zero-copy"] and got["w"][0].details["consumer"] == "tile.muls"
    assert {r.kind for r in got["v"]} == {"kept-zero-copy"}
    assert all(r.details["consumer"] == "yield" for r in got["v"])


def test_mat_slice_through_an_alias_gets_a_folded_remark():
    got = remarks_of(kernel("x: pl.Tensor[[64, 64], pl.BF16]", """
m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
lhs: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [16, 64], [0, 0])
rhs: pl.Tile[[64, 16], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [64, 16], [0, 16])
l2 = lhs
r2 = rhs
c = pl.tile.matmul(l2, r2)
"""))
    assert [r.kind for r in got["lhs"]] == ["folded-matmul", "dropped"]
    assert [r.kind for r in got["rhs"]] == ["folded-matmul", "dropped"]


def test_every_slice_of_a_mixed_program_gets_a_remark():
    from test_cts_contract_and_remarks import BODY, PARAMS

    program = kernel(PARAMS, BODY)
    got = remarks_of(program)
    assert set(slice_names(program)) <= set(got)


def test_dropped_remarks_come_in_program_order():
    names = [f"z{(i * 7) % 40}" for i in range(40)]  # definition order differs from name / creation order
    body = "t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])\n" + "".join(
        f"{n}: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, {i % 15}])\n"
        for i, n in enumerate(names))
    for _ in range(3):
        _, remarks = run_with_remarks(kernel("x: pl.Tensor[[16, 128], pl.FP32]", body))
        assert [r.details["slice"] for r in remarks if r.kind == "dropped"] == names


# ------------------------------------------------------------------------------------------------
# 4. Acc windows of views: resolved to the root when the view keeps every element in place, else silent
# ------------------------------------------------------------------------------------------------

ACC_OPERANDS = """
a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.BF16, target_memory=pl.Mem.Left)
b: pl.Tile[[32, 32], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 32], dtype=pl.BF16, target_memory=pl.Mem.Right)
"""


def acc_kernel(body: str, rows: int = 32, cols: int = 32):
    return kernel("n: pl.Scalar[pl.INDEX]", (
        f"acc: pl.Tile[[{rows}, {cols}], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[{rows}, {cols}], "
        "dtype=pl.FP32, target_memory=pl.Mem.Acc)\n") + ACC_OPERANDS + body, ftype="AIC")


def unproven(program) -> list:
    _, remarks = run_with_remarks(program)  # must not raise
    return [r for r in remarks if r.kind == "acc-window-unproven"]


def test_slice_of_a_square_transpose_view_is_not_rejected():
    # the reviewer's tv.py: rows 16..32 of the transposed view are columns 16..32 of acc, a contiguous block
    (r,) = unproven(acc_kernel("""
tv = pl.tile.transpose_view(acc)
w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(tv, [16, 32], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
"""))
    assert "transpose_view" in r.message


def test_slice_of_a_slice_of_a_transpose_view_is_not_rejected():
    assert unproven(acc_kernel("""
tv = pl.tile.transpose_view(acc)
top: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(tv, [32, 32], [0, 0])
w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(top, [16, 32], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
"""))


def test_slice_of_a_transposed_window_is_not_rejected():
    assert unproven(acc_kernel("""
sq: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 32], [0, 32])
tv = pl.tile.transpose_view(sq)
w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(tv, [16, 32], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
""", cols=64))


def test_slice_of_a_transpose_view_carried_into_a_loop_is_not_rejected():
    assert unproven(acc_kernel("""
tv = pl.tile.transpose_view(acc)
for i, (cur,) in pl.range(0, 2, init_values=(tv,)):
    w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(cur, [16, 32], [16, 0])
    c = pl.tile.matmul_acc(w, a, b)
    res = pl.yield_(cur)
"""))


def test_slice_of_a_shape_changing_reshape_is_silent():
    assert unproven(acc_kernel("""
r = pl.tile.reshape(acc, [64, 32])
w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(r, [16, 32], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
""", cols=64, rows=32))


def test_slice_of_a_reinterpret_view_to_another_dtype_is_silent():
    program = kernel("n: pl.Scalar[pl.INDEX]", """
acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
a: pl.Tile[[16, 32], pl.INT8, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.INT8, target_memory=pl.Mem.Left)
b: pl.Tile[[32, 32], pl.INT8, pl.Mem.Right] = pl.tile.create(shape=[32, 32], dtype=pl.INT8, target_memory=pl.Mem.Right)
v = pl.tile.reinterpret_view(acc, dtype=pl.INT32)
w: pl.Tile[[16, 32], pl.INT32, pl.Mem.Acc] = pl.tile.slice(v, [16, 32], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
""", ftype="AIC")
    assert unproven(program)


@pytest.mark.parametrize("view", ["pl.tile.reshape(acc, [32, 64])", "pl.tile.reinterpret_view(acc, dtype=pl.FP32)",
                                  "pl.tile.set_validshape(acc, [32, 64])"])
def test_slice_of_an_identity_view_is_resolved_to_the_root(view):
    def body(m: int, n: int) -> str:
        return (
            "acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, "
            "target_memory=pl.Mem.Acc)\n"
            f"a: pl.Tile[[{m}, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[{m}, 32], dtype=pl.BF16, "
            "target_memory=pl.Mem.Left)\n"
            f"b: pl.Tile[[32, {n}], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, {n}], dtype=pl.BF16, "
            "target_memory=pl.Mem.Right)\n"
            f"r = {view}\n")

    bad = kernel("n: pl.Scalar[pl.INDEX]", body(16, 64) + """
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(r, [16, 64], [16, 0])
c = pl.tile.matmul_acc(w, a, b)
""", ftype="AIC")
    with pytest.raises(AccWindowError) as info:
        run(bad)
    assert "Acc tile 'acc' [32, 64]" in info.value.message
    good = kernel("n: pl.Scalar[pl.INDEX]", body(32, 32) + """
w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(r, [32, 32], [0, 32])
c = pl.tile.matmul_acc(w, a, b)
""", ftype="AIC")
    _, remarks = run_with_remarks(good)
    (ok,) = [r for r in remarks if r.kind == "acc-window-accepted"]
    assert "of 'acc'" in ok.details["window"]


def test_view_identity_is_decided_from_the_registry_golden():
    from tilefold.analysis.slice_windows import view_is_identity

    program = acc_kernel("""
r_same = pl.tile.reshape(acc, [32, 32])
r_other = pl.tile.reshape(acc, [16, 64])
tv = pl.tile.transpose_view(acc)
vs = pl.tile.set_validshape(acc, [32, 16])
ri_same = pl.tile.reinterpret_view(acc, dtype=pl.FP32)
ri_int = pl.tile.reinterpret_view(acc, dtype=pl.INT32)
""")
    fn = program.functions[0]
    got = {}
    for s in _assigns(fn):
        if s.var.name in ("acc", "a", "b"):
            continue
        od = op_of(s.value)
        got[s.var.name] = view_is_identity(od, s.value, s.value.args[0].type, s.var.type)
    assert got == {"r_same": True, "r_other": False, "tv": False, "vs": True, "ri_same": True, "ri_int": False}


# ------------------------------------------------------------------------------------------------
# 5. one copy per slice, placed where it dominates every consumer
# ------------------------------------------------------------------------------------------------


def test_chain3_materializes_one_extract_for_both_consumers():
    after = run(CHAIN3)
    extracts = calls(after, "tile.extract")
    assert len(extracts) == 1
    expected = kernel(
        "x: pl.Tensor[[64, 256], pl.FP32], g: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]",
        """
t: pl.Tile[[64, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 256], target_memory=pl.Mem.Vec)
gt: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 16], target_memory=pl.Mem.Vec)
s1: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32, 128], [16, 64])
s2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s1, [16, 64], [8, 32])
s3_ext: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 26, 99, shape=[4, 16], target_memory=pl.Mem.Vec)
y = pl.tile.muls(s3_ext, 2.0)
pl.tile.col_expand_mul(s3_ext, gt)
s4: pl.Tile[[4, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s2, [4, 16], [0, 8])
y2 = pl.tile.add(y, s4)
out = pl.store(y2, [0, 0], out)
return out
""", ret="pl.Tensor[[4, 16], pl.FP32]")
    ir.assert_structural_equal(after, expected)


IFS_PARAMS = "x: pl.Tensor[[16, 128], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]"
IFS_RET = "pl.Tensor[[16, 8], pl.FP32]"


def test_copies_in_both_branches_of_an_if_become_one_copy_before_the_if():
    before = kernel(IFS_PARAMS, """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 2])
if n > 0:
    y1 = pl.tile.exp(s)
    r = pl.yield_(y1)
else:
    r = pl.yield_(s)
out = pl.store(r, [0, 0], out)
return out
""", ret=IFS_RET)
    expected = kernel(IFS_PARAMS, """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
s_ext: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 2, shape=[16, 8], target_memory=pl.Mem.Vec)
if n > 0:
    y1 = pl.tile.exp(s_ext)
    r = pl.yield_(y1)
else:
    r = pl.yield_(s_ext)
out = pl.store(r, [0, 0], out)
return out
""", ret=IFS_RET)
    check(before, expected)
    inputs = {"x": np.arange(16 * 128, dtype=np.float32).reshape(16, 128) / 1000, "n": 1,
              "out": np.zeros((16, 8), np.float32)}
    report = run_and_compare(before, inputs, options=STRICT)
    assert report.matches, report.first_mismatch


def test_copy_inside_a_loop_and_after_it_is_placed_once_before_the_loop():
    before = vec_kernel("""
h: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
for i, (acc,) in pl.range(0, 4, init_values=(gt,)):
    y = pl.tile.muls(h, 0.5)
    res = pl.yield_(acc)
z = pl.tile.exp(h)
""")
    expected = vec_kernel("""
h_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
for i, (acc,) in pl.range(0, 4, init_values=(gt,)):
    y = pl.tile.muls(h_ext, 0.5)
    res = pl.yield_(acc)
z = pl.tile.exp(h_ext)
""")
    check(before, expected)


def test_copy_used_only_inside_a_loop_stays_inside_it():
    before = vec_kernel("""
h: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
for i, (acc,) in pl.range(0, 4, init_values=(gt,)):
    y = pl.tile.muls(h, 0.5)
    z = pl.tile.exp(h)
    res = pl.yield_(acc)
""")
    expected = vec_kernel("""
for i, (acc,) in pl.range(0, 4, init_values=(gt,)):
    h_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
    y = pl.tile.muls(h_ext, 0.5)
    z = pl.tile.exp(h_ext)
    res = pl.yield_(acc)
""")
    check(before, expected)


def test_mat_slice_feeding_two_matmuls_gets_one_left_extract():
    before = kernel("x: pl.Tensor[[64, 64], pl.BF16]", """
m: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
lhs: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [16, 64], [16, 0])
c1 = pl.tile.matmul(lhs, m)
c2 = pl.tile.matmul(lhs, m)
""")
    after = run(before)
    lefts = [c for c in calls(after, "tile.extract")]
    assert len(lefts) == 1
    mm = calls(after, "tile.matmul")
    assert mm[0].args[0] is mm[1].args[0]


# ------------------------------------------------------------------------------------------------
# 6. the strict-codegen hint tells the author what to do with a 4-5 operand slice
# ------------------------------------------------------------------------------------------------


def test_strict_codegen_hint_for_a_four_operand_slice_names_the_workarounds():
    program = vec_kernel("""
hi = pl.tile.slice(t, [16, 64], [0, 64], [16, 64])
y = pl.tile.col_expand_mul(hi, gt)
out = pl.store(y, [0, 0], out)
return out
""")
    with pytest.raises(InternalCheckError) as info:
        compiler.compile(program, codegen="strict", options=STRICT)
    hint = info.value.hint
    assert "3-operand pl.tile.slice" in hint and "pl.tile.extract(" in hint
    assert "4-5 operands" in hint and "never rewritten" in hint


def test_slice_of_an_alias_materialized_at_its_definition_is_a_window_of_the_copy():
    # found by the property test: 'a' becomes a copy of the misaligned 's1', so 's2' (peeled by the analysis
    # to t + [0, 8], which is aligned) really sits 8 B into that copy and must be materialized too
    before = vec_kernel("""
s1: pl.Tile[[1, 3], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 3], [0, 6])
a = s1
s2: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [1, 1], [0, 2])
y = pl.tile.exp(s2)
""")
    expected = vec_kernel("""
a: pl.Tile[[1, 3], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 6, shape=[1, 3], target_memory=pl.Mem.Vec)
s2_ext: pl.Tile[[1, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(a, 0, 2, shape=[1, 1], target_memory=pl.Mem.Vec)
y = pl.tile.exp(s2_ext)
""")
    check(before, expected)
