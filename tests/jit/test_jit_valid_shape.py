"""pl.load(tensor, offsets, shapes, valid_shapes=...) with static and run-time valid extents: only the valid
region moves (its bounds are what is checked), the rest of the tile is padding for pl.fillpad. The dynamic valid
shape pattern: a loop walks a tensor whose last block is partial. References are computed here with numpy."""

import numpy as np
import pytest
import valid_shape_kernels as k

import tilefold.language as pl
from tilefold.compiler import compile
from tilefold.errors import NotSupportedError, ParseError, TypeInferenceError
from tilefold.ir import Call, MakeTuple, Var
from tilefold.sim.faults import OutOfBounds
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(37)


@pytest.mark.parametrize("m", [100, 64, 33, 1])
def test_a_loop_over_blocks_with_a_partial_last_block(m):
    x = RNG.standard_normal((m, 64)).astype(np.float32)
    out = np.zeros((1, 64), np.float32)
    k.column_sums(x, out)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_one_compiled_kernel_serves_every_row_count():
    a = k.column_sums.compile(np.zeros((100, 64), np.float32), np.zeros((1, 64), np.float32))
    b = k.column_sums.compile(np.zeros((33, 64), np.float32), np.zeros((1, 64), np.float32))
    assert a is b
    text = a.pto.text()
    assert "valid[" in text and "tfillpad" in text


def test_static_valid_shape_with_pyptos_tutorial_spelling():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    out = np.zeros((16, 64), np.float32)
    k.padded_copy(x, out)  # valid_shape=[10, 40] (the tutorials' keyword), then PadValue.max
    expected = np.full((16, 64), np.inf, np.float32)
    expected[:10, :40] = x[:10, :40]
    np.testing.assert_array_equal(out, expected)


TAIL = '''import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[100, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [96, 0], [32, 64], valid_shapes=[{rows}, 64])
        pl.store(pl.fillpad(t, pl.PadValue.zero), [0, 0], out)
    return out
'''


@pytest.mark.parametrize("rows", ["4", "n"])
def test_the_window_may_pass_the_tensor_end_when_the_valid_region_does_not(rows):
    x = RNG.standard_normal((100, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(TAIL.format(rows=rows)), {"x": x, "n": 4, "out": np.ones((32, 64), np.float32)})
    assert report.fault is None and report.matches, report.summary()
    expected = np.zeros((32, 64), np.float32)
    expected[:4] = x[96:]
    np.testing.assert_array_equal(report.outputs["out"], expected)


def test_a_runtime_valid_extent_past_the_tensor_end_faults_on_the_device():
    compiled = compile(pl.parse(TAIL.format(rows="n")))
    from tilefold.sim import simulate

    x = np.zeros((100, 64), np.float32)
    with pytest.raises(OutOfBounds) as info:
        simulate(compiled.pto, {"x": x, "n": 5, "out": np.zeros((32, 64), np.float32)}, compiled.target)
    assert "leaves tensor @x of shape [100, 64] on axis 0" in str(info.value)


@pytest.mark.parametrize("n", [33, -1])
def test_a_runtime_valid_extent_outside_the_tile_is_an_error_not_clamped(n):
    """A valid extent past the tile (33 rows of a 32-row tile) or negative is not clamped into a plausible
    result: the simulator faults and golden refuses."""
    from tilefold.errors import TilefoldError
    from tilefold.golden import run_program
    from tilefold.sim import simulate

    prog = pl.parse(TAIL.format(rows="n").replace("[96, 0]", "[0, 0]"))
    compiled = compile(prog)
    x = np.zeros((100, 64), np.float32)
    inputs = {"x": x, "n": n, "out": np.zeros((32, 64), np.float32)}
    with pytest.raises(OutOfBounds) as info:
        simulate(compiled.pto, inputs, compiled.target)
    assert "is outside [0, 32]" in str(info.value)
    with pytest.raises(TilefoldError, match=r"is outside \[0, 32\]"):
        run_program(prog, inputs)


def test_a_dynamic_valid_extent_is_an_operand_of_the_load():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    prog = k.block_row_max.lower(x, 7, np.zeros((16, 1), np.float32))
    loads = [s.value for f in prog.functions for s in _assigns(f.body)
             if isinstance(s.value, Call) and s.value.op_name == "tile.load"]
    assert loads and len(loads[0].args) == 4
    valid = loads[0].args[3]
    assert isinstance(valid, MakeTuple) and isinstance(valid.elements[1], Var) and valid.elements[1].name == "n"
    assert loads[0].type.tile_view.valid_shape[1] is valid.elements[1]


def _assigns(stmt):
    from tilefold.ir import IRVisitor

    found = []

    class V(IRVisitor):
        def visit_AssignStmt(self, s):
            found.append(s)
            super().visit_AssignStmt(s)

    V().visit_stmt(stmt)
    return found


@pytest.mark.parametrize(("valid", "text"), [
    ("[20, 64]", "valid extent 20 on axis 0 is outside [0, 16]"),
    ("[16]", "valid_shapes needs 2 entries"),
    ("[16, 1.5]", "extents and indices must be integers"),
])
def test_bad_valid_shapes_are_located_errors(valid, text):
    src = TAIL.replace("[100, 64]", "[16, 64]").replace("[96, 0], [32, 64]", "[0, 0], [16, 64]")
    src = src.replace("[32, 64], pl.FP32]]", "[16, 64], pl.FP32]]").format(rows="4").replace("[4, 64]", valid)
    with pytest.raises((TypeInferenceError, ParseError)) as info:
        pl.parse(src, "kern.py")
    assert text in info.value.message and info.value.hint and info.value.span.line == 6


@pytest.mark.parametrize("m", [100, 64, 7])
def test_elementwise_results_keep_the_valid_rows_so_the_store_writes_only_them(m):
    x = RNG.standard_normal((m, 64)).astype(np.float32)
    out = np.full((m, 64), 9.0, np.float32)
    k.scaled_blocks(x, out)  # the last block's window passes the tensor's end: only its valid rows are stored
    np.testing.assert_allclose(out, 2 * x + 1, rtol=1e-6)


def test_valid_shapes_flow_through_position_preserving_ops():
    x = RNG.standard_normal((100, 64)).astype(np.float32)
    prog = k.scaled_blocks.lower(x, np.zeros((100, 64), np.float32))
    types = {s.value.op_name: s.value.type for f in prog.functions for s in _assigns(f.body)
             if isinstance(s.value, Call) and s.value.op_name in ("tile.load", "tile.mul", "tile.muls", "tile.adds")}
    load_valid = types["tile.load"].tile_view.valid_shape
    for name, t in types.items():
        assert t.tile_view is not None and t.tile_view.valid_shape[0] is load_valid[0], name


MATMUL = '''import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               c: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a1 = pl.tile.load(a, [0, 0], [32, 64], valid_shapes=[32, n], target_memory=pl.Mem.Mat)
        b1 = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        a0 = pl.tile.move(a1, target_memory=pl.Mem.Left)
        b0 = pl.tile.move(b1, target_memory=pl.Mem.Right)
        m = pl.tile.matmul(a0, b0)
        c = pl.store(m, [0, 0], c)
        return c
'''


def test_a_matmul_of_a_partially_valid_k_block_is_refused():
    # the move to Left keeps the partial valid shape: the undefined K columns would enter every product
    with pytest.raises(NotSupportedError) as info:
        compile(pl.parse(MATMUL, "k.py"))
    assert "tile.matmul reads the tile 'a0', whose valid shape is smaller than its shape" in info.value.message
    assert info.value.span.line == 12


SET_VALIDSHAPE = '''import tilefold.language as pl

@pl.jit
def k(x: pl.Tensor[[128, 128], pl.FP32], rows_left: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[128, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [128, 128])
        t = pl.set_validshape(t, rows_left, 128)
        t = pl.fillpad(t, pl.PadValue.min)
        tmp = pl.create_tile([128, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        pl.store(pl.row_max(t, tmp), [0, 0], out)
    return out
'''


def test_pyptos_set_validshape_rows_cols_form_then_fillpad_and_row_max():
    # language/03-memory.md: pl.set_validshape(t, rows_left, 128); the padded rows' maximum is the pad itself
    x = RNG.standard_normal((128, 128)).astype(np.float32)
    report = run_and_compare(pl.parse(SET_VALIDSHAPE), {"x": x, "rows_left": 100, "out": np.zeros((128, 1), np.float32)})
    assert report.matches, report.summary()
    expected = np.full(128, -np.inf, np.float32)
    expected[:100] = x[:100].max(axis=1)
    np.testing.assert_array_equal(report.outputs["out"][:, 0], expected)
