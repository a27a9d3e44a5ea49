"""InferTileMemorySpace: Before / Expected structure, demand through views and control flow, errors."""

from __future__ import annotations

import pytest
from cube_helpers_memory import assert_same_golden, kernel

from tilefold import ir, passes
from tilefold.errors import NotSupportedError, TypeInferenceError
from tilefold.ir.stmt import AssignStmt, ForStmt, IfStmt
from tilefold.ir.types import MemorySpace, TileType
from tilefold.passes.verifier import check_properties, verify_properties


def run(program: ir.Program, target: str | None = None) -> ir.Program:
    return passes.infer_tile_memory_space(target=target)(program)


def all_tiles(fn: ir.Function) -> list[TileType]:
    out: list[TileType] = []

    def walk(s):
        for st in ir.flatten_stmts(s):
            if isinstance(st, AssignStmt):
                out.extend(t for t in (st.var.type, st.value.type) if isinstance(t, TileType))
            elif isinstance(st, ForStmt):
                out.extend(ia.type for ia in st.iter_args if isinstance(ia.type, TileType))
                out.extend(rv.type for rv in st.return_vars if isinstance(rv.type, TileType))
                walk(st.body)
            elif isinstance(st, IfStmt):
                out.extend(rv.type for rv in st.return_vars if isinstance(rv.type, TileType))
                walk(st.then_body)
                if st.else_body is not None:
                    walk(st.else_body)

    out.extend(p.type for p in fn.params if isinstance(p.type, TileType))
    walk(fn.body)
    return out


MM = ("a: pl.Tensor[[16, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16], "
      "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")


def test_whole_mat_operands_of_a_matmul_are_moved_to_left_and_right():
    before = kernel(MM, """
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    expected = kernel(MM, """
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        ta_l: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
        tb_r: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l, tb_r)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)
    verify_properties(after, [passes.IRProperty.TileMemoryInferred])
    assert_same_golden(before, after)


def test_one_move_serves_every_use_in_the_same_block():
    before = kernel(MM, """
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, ta, tb)
        out = pl.store(d, [0, 0], out)
        return out
    """)
    after = run(before)
    moves = [s for s in after.functions[0].body.stmts if isinstance(s, AssignStmt) and s.value.op_name == "tile.move"]
    assert len(moves) == 2
    assert_same_golden(before, after)


def test_correct_placement_is_a_no_op():
    before = kernel(MM, """
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[16, 256], target_memory=pl.Mem.Left)
        br: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    assert run(before) is before


def test_tile_parameters_without_memory_take_their_consumers_demand():
    params = ("x: pl.Tile[[16, 256], pl.BF16], w: pl.Tile[[256, 64], pl.BF16], v: pl.Tile[[16, 64], pl.FP32], "
              "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    before = kernel(params, """
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x, w)
        out = pl.store(c, [0, 0], out)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(v, 2.0)
        out = pl.store(y, [0, 0], out)
        return out
    """)
    after = run(before)
    fn = after.functions[0]
    assert [p.type.memory_space for p in fn.params[:3]] == [MemorySpace.Left, MemorySpace.Right, MemorySpace.Vec]
    assert not check_properties(after, [passes.IRProperty.TileMemoryInferred])


def test_demand_reaches_a_view_source_and_a_loop_initial_value():
    params = "w: pl.Tile[[32, 64], pl.BF16], x: pl.Tile[[16, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
    before = kernel(params, """
        r: pl.Tile[[32, 64], pl.BF16] = pl.tile.reshape(w, [32, 64])
        c0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x, r)
        for i, (acc,) in pl.range(0, 2, init_values=(c0,)):
            nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, x, r)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
    """)
    after = run(before)
    fn = after.functions[0]
    assert fn.params[0].type.memory_space is MemorySpace.Right
    assert fn.params[1].type.memory_space is MemorySpace.Left
    loop = next(s for s in fn.body.stmts if isinstance(s, ForStmt))
    assert loop.iter_args[0].type.memory_space is MemorySpace.Acc
    assert loop.return_vars[0].type.memory_space is MemorySpace.Acc
    assert all(t.memory_space is not None for t in all_tiles(fn))


def test_if_branches_in_different_spaces_merge_with_a_move_in_the_else_branch():
    params = ("a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], n: pl.Scalar[pl.INDEX], "
              "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        if n > 0:
            l1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
            lhs = pl.yield_(l1)
        else:
            lhs = pl.yield_(ta)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    expected = kernel(params, """
        ta: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        if n > 0:
            l1: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
            lhs = pl.yield_(l1)
        else:
            ta_left: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
            lhs = pl.yield_(ta_left)
        tb_right: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs, tb_right)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    after = run(before)
    ir.assert_structural_equal(after, expected)


VEC_INTO_CUBE = """
    ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
    tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
    c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
    out = pl.store(c, [0, 0], out)
    return out
"""


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend950"])
def test_if_result_takes_the_space_both_branches_reach(target):
    """Then: an Acc matmul result; else: a Vec tile. Vec never moves to Acc, so the result is Vec and the then
    branch moves (on chip on 950, through the GM workspace on 910B): flash attention's first-block branch."""
    params = ("a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], "
              "n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]")
    before = kernel(params, """
        ta: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        tx: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        if n > 0:
            c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
            r = pl.yield_(c)
        else:
            r = pl.yield_(tx)
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.muls(r, 2.0)
        out = pl.store(y, [0, 0], out)
        return out
    """)
    after = run(before, target)
    if_stmt = next(s for s in after.functions[0].body.stmts if isinstance(s, IfStmt))
    assert if_stmt.return_vars[0].type.memory_space is MemorySpace.Vec
    then_ops = [(s.value.op_name, s.value.kwarg("target_memory")) for s in if_stmt.then_body.stmts
                if isinstance(s, AssignStmt)]
    to_vec = ("tile.move", MemorySpace.Vec) if target == "Ascend950" else ("tile.load", MemorySpace.Vec)
    assert then_ops[-1] == to_vec
    assert (("tensor.create", None) in then_ops) == (target == "Ascend910B")
    else_ops = [s for s in if_stmt.else_body.stmts if isinstance(s, AssignStmt)]
    assert else_ops == []  # the Vec branch yields its tile as it is


def test_vec_tile_into_the_cube_of_a_mixed_kernel_goes_through_gm_and_l1():
    """No chip moves UB -> L0A: a mixed kernel stores the Vec tile to its GM workspace, loads it into L1 and
    moves it to L0A (the vector -> cube leg of PyPTO's cross-core pipe on A2/A3)."""
    before = kernel(MM, VEC_INTO_CUBE)
    after = run(before, "Ascend910B")
    stmts = [s for s in after.functions[0].body.stmts if isinstance(s, AssignStmt)]
    ops = [(s.value.op_name, s.value.kwarg("target_memory")) for s in stmts]
    i = ops.index(("tensor.create", None))
    assert ops[i:i + 4] == [("tensor.create", None), ("tile.store", None), ("tile.load", MemorySpace.Mat),
                            ("tile.move", MemorySpace.Left)]
    assert_same_golden(before, after)


def test_vec_tile_into_the_cube_of_an_aic_kernel_is_an_error_with_a_hint():
    before = pl_parse_aic(VEC_INTO_CUBE)
    with pytest.raises(TypeInferenceError) as info:
        run(before, "Ascend910B")
    assert "target_memory=pl.Mem.Mat" in info.value.hint
    assert info.value.span is not None and info.value.span.line > 0


ACC_INTO_VECTOR = """
    ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
    tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
    al: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, shape=[16, 256], target_memory=pl.Mem.Left)
    br: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
    c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
    y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(c, 2.0)
    out = pl.store(y, [0, 0], out)
    return out
"""


def test_acc_result_into_a_vector_op_moves_on_chip_where_l0c_reaches_ub():
    before = kernel(MM, ACC_INTO_VECTOR)
    after = run(before, "Ascend950")
    moves = [s for s in after.functions[0].body.stmts if isinstance(s, AssignStmt) and s.value.op_name == "tile.move"]
    assert [m.value.kwarg("target_memory") for m in moves] == [MemorySpace.Vec]
    assert_same_golden(before, after)


def test_acc_result_into_a_vector_op_goes_through_a_gm_workspace_without_that_path():
    """910B has no L0C -> UB path: the mixed kernel stores the accumulator to a kernel-private GM tensor and
    loads it into Vec (PyPTO's cross-core pipe on A2/A3 does the same through GM)."""
    before = kernel(MM, ACC_INTO_VECTOR)
    after = run(before, "Ascend910B")
    ops = [s.value.op_name for s in after.functions[0].body.stmts if isinstance(s, AssignStmt)]
    i = ops.index("tensor.create")
    assert ops[i:i + 4] == ["tensor.create", "tile.store", "tile.load", "tile.muls"]
    assert "tile.move" not in ops
    reload = next(s for s in after.functions[0].body.stmts
                  if isinstance(s, AssignStmt) and s.value.op_name == "tile.load" and s.var.name.startswith("c_"))
    assert reload.value.kwarg("target_memory") is MemorySpace.Vec
    assert_same_golden(before, after)


def test_an_aic_kernel_gets_no_gm_workspace():
    """Only a mixed (InCore) kernel has both units to hand data between; elsewhere the missing path is an
    error with the fix."""
    before = pl_parse_aic(ACC_INTO_VECTOR)
    with pytest.raises(TypeInferenceError) as info:
        run(before, "Ascend910B")
    assert "no Acc -> Vec data path" in info.value.message


def pl_parse_aic(body: str) -> ir.Program:
    import textwrap

    from tilefold import language as pl
    text = ("import tilefold.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIC)\n"
            f"    def kernel(self, {MM}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n")
    return pl.parse(text)


def test_vector_op_on_an_l1_tile_is_rejected():
    before = kernel(MM, """
        ta: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        s: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [16, 64], [0, 0])
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(s, target_type=pl.FP32)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    with pytest.raises(TypeInferenceError):
        run(before)


def test_storing_an_l1_tile_is_rejected():
    params = "b: pl.Tensor[[256, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]"
    before = kernel(params, """
        tb: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        s: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(tb, [16, 64], [0, 0])
        out = pl.store(s, [0, 0], out)
        return out
    """)
    with pytest.raises(TypeInferenceError) as info:
        run(before)
    assert "GM" in info.value.message


BIG = ("a: pl.Tensor[[128, 512], pl.FP16], b: pl.Tensor[[512, 128], pl.FP16], "
       "out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]")


def test_an_operand_moved_into_an_l0_buffer_it_cannot_fit_is_reported_at_the_op():
    """Without AutoTileMatmulL0 the whole [128, 512] lhs would move to the 64 KiB L0A: the error names the matmul's
    line (not the function, as memory planning would) and the space."""
    before = kernel(BIG, """
        ta: pl.Tile[[128, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
    """)
    with pytest.raises(NotSupportedError) as info:
        run(before, "Ascend910B")
    err = info.value
    assert "does not fit in Left" in err.message and "131072" in err.message
    assert err.span is not None and "pl.tile.matmul(ta, tb)" in err.span.source_line
    assert "AutoTileMatmulL0" in err.hint


def test_a_single_result_larger_than_its_memory_is_reported_at_the_op():
    params = "a: pl.Tensor[[1024, 1024], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"
    before = kernel(params, """
        t: pl.Tile[[1024, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [1024, 1024], target_memory=pl.Mem.Mat)
        return out
    """)
    with pytest.raises(NotSupportedError) as info:
        run(before, "Ascend910B")
    assert "does not fit in Mat" in info.value.message
    assert "pl.tile.load(a" in info.value.span.source_line
