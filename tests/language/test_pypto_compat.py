"""PyPTO compatibility: ``pl.create_tensor`` (registry op ``tensor.create``), the 4-argument
``pl.store(tile, offsets, shapes, out)``, the top-level op aliases (``pl.load``, ``pl.add`` ...) and
``pl.Mem`` / ``pl.MemorySpace``; a PyPTO-style orchestration + InCore program is parsed, round-tripped and
run end to end (golden interpreter vs. simulator)."""

from __future__ import annotations

import numpy as np
import pytest
from lang_helpers import parse_error, roundtrip

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import NotSupportedError, ParseError, TypeInferenceError
from tilefold.golden import run_program
from tilefold.ir import AssignStmt, Call, ConstInt, DataType, MemorySpace, TensorType, TileType
from tilefold.ops import OpKind, Unit, get_op
from tilefold.testing import run_and_compare

HEADER = "import tilefold.language as pl\n\n"

PYPTO = HEADER + '''
@pl.program
class VecAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = pl.load(a, [0, 0], [16, 64])
        tb: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(b, [0, 0], [16, 64], target_memory=pl.MemorySpace.Vec)
        tc = pl.add(ta, tb)
        out = pl.store(tc, [0, 0], [16, 64], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[16, 64], pl.FP32],
             b: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = pl.create_tensor([16, 64], dtype=pl.FP32)
        out = self.kernel(a, b, out)
        return out
'''


def _calls(fn: ir.Function, name: str) -> list[Call]:
    return [s.value for s in fn.body.stmts
            if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.op_name == name]


def _inputs(*names: str, shape=(16, 64), seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {n: rng.uniform(-1, 1, size=shape).astype(np.float32) for n in names}


# ------------------------------------------------------------------------------------------------
# tensor.create
# ------------------------------------------------------------------------------------------------


def test_tensor_create_registry_declaration() -> None:
    op = get_op("tensor.create")
    assert op.kind is OpKind.CREATE and op.unit is Unit.NONE
    assert [p.name for p in op.params] == ["shape", "dtype"] and all(p.is_attr for p in op.params)
    zeros = op.golden([], {"shape": (2, 3), "dtype": DataType.FP16})
    assert zeros.shape == (2, 3) and zeros.dtype == DataType.FP16.np_dtype and not zeros.any()


def test_create_tensor_parses_to_tensor_create_and_round_trips() -> None:
    program = pl.parse(PYPTO)
    (create,) = _calls(program.function("orch"), "tensor.create")
    assert isinstance(create.type, TensorType) and create.type.static_shape == (16, 64)
    assert create.type.dtype is DataType.FP32
    assert create.kwarg("shape") == (16, 64) and create.kwarg("dtype") is DataType.FP32
    text = roundtrip(program)
    assert "pl.create_tensor([16, 64], dtype=pl.FP32)" in text


def test_create_tensor_spellings_are_equivalent() -> None:
    a = pl.parse(PYPTO)
    for spelling in ("pl.create_tensor(shape=[16, 64], dtype=pl.FP32)", "pl.tensor.create([16, 64], dtype=pl.FP32)",
                     "pl.create_tensor([16, 64])"):  # dtype defaults to FP32, like tile.create
        b = pl.parse(PYPTO.replace("pl.create_tensor([16, 64], dtype=pl.FP32)", spelling))
        ir.assert_structural_equal(a, b)


def test_create_tensor_other_dtype_and_rank() -> None:
    src = HEADER + '''
@pl.program
class Create:
    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[4, 16, 8], pl.BF16]:
        out = pl.create_tensor([4, 16, 8], dtype=pl.BF16)
        return out
'''
    program = pl.parse(src)
    (create,) = _calls(program.function("orch"), "tensor.create")
    assert create.type.static_shape == (4, 16, 8) and create.type.dtype is DataType.BF16
    roundtrip(program)
    got = run_program(program, _inputs("a"))["return"]
    assert got.shape == (4, 16, 8) and got.dtype == DataType.BF16.np_dtype and not np.asarray(got, np.float32).any()


@pytest.mark.parametrize("call, message", [
    ("pl.create_tensor(dtype=pl.FP32)", "missing required argument 'shape'"),
    ("pl.create_tensor([16, 0], dtype=pl.FP32)", "extents must be positive"),
    ("pl.create_tensor([], dtype=pl.FP32)", "non-empty list"),
    ("pl.create_tensor([16, 64], dtype=3)", "dtype must be a data type"),
    ("pl.create_tensor([16, 64], dtype=pl.FP32, memory=pl.Mem.Vec)", "unknown keyword argument 'memory'"),
])
def test_bad_create_tensor_is_a_located_error(call: str, message: str) -> None:
    err = parse_error(PYPTO.replace("pl.create_tensor([16, 64], dtype=pl.FP32)", call),
                      (ParseError, TypeInferenceError))  # type: ignore[arg-type]
    assert message in err.message
    assert err.span is not None and "out = pl.create_tensor(" in err.span.source_line
    assert err.hint


def test_golden_creates_a_zero_tensor_the_kernel_fills() -> None:
    program = pl.parse(PYPTO)
    ins = _inputs("a", "b")
    out = run_program(program, ins)
    assert list(out) == ["return"]
    np.testing.assert_allclose(out["return"], ins["a"] + ins["b"], rtol=0, atol=1e-6)


def test_kernel_creating_a_gm_tensor_is_not_supported_by_codegen() -> None:
    src = HEADER + '''
@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.create_tensor([16, 64], dtype=pl.FP32)
        tmp = pl.store(t, [0, 0], tmp)
        return tmp
'''
    from tilefold.compiler import compile as compile_program

    with pytest.raises(NotSupportedError, match="creates a GM tensor") as info:
        compile_program(pl.parse(src))
    assert info.value.span is not None and "pl.create_tensor" in info.value.span.source_line


# ------------------------------------------------------------------------------------------------
# 4-argument store
# ------------------------------------------------------------------------------------------------


def test_four_argument_store_with_the_tile_shape_is_the_plain_store() -> None:
    four = pl.parse(PYPTO)
    three = pl.parse(PYPTO.replace("pl.store(tc, [0, 0], [16, 64], out)", "pl.store(tc, [0, 0], out)"))
    ir.assert_structural_equal(four, three)
    (store,) = _calls(four.function("kernel"), "tile.store")
    assert store.kwarg("shapes") is None and len(store.args) == 3
    assert "pl.store(tc, [0, 0], out)" in roundtrip(four)


ND = HEADER + '''
@pl.program
class Nd:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[2, 8, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[2, 8, 64], pl.FP32]]) -> pl.Tensor[[2, 8, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0, 0], [2, 8, 64], flatten=True)
        u = pl.muls(t, 3.0)
        out = pl.store(u, [0, 0, 0], WINDOW, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[2, 8, 64], pl.FP32]) -> pl.Tensor[[2, 8, 64], pl.FP32]:
        out = pl.create_tensor([2, 8, 64], dtype=pl.FP32)
        out = self.kernel(a, out)
        return out
'''


def test_four_argument_store_of_a_flattened_nd_window_sets_shapes() -> None:
    program = pl.parse(ND.replace("WINDOW", "[2, 8, 64]"))
    (store,) = _calls(program.function("kernel"), "tile.store")
    assert store.kwarg("shapes") == (2, 8, 64)
    keyword = pl.parse(ND.replace("pl.store(u, [0, 0, 0], WINDOW, out)", "pl.store(u, [0, 0, 0], out, shapes=[2, 8, 64])"))
    ir.assert_structural_equal(program, keyword)
    assert "pl.store(u, [0, 0, 0], out, shapes=[2, 8, 64])" in roundtrip(program)
    ins = _inputs("a", shape=(2, 8, 64))
    np.testing.assert_allclose(run_program(program, ins)["return"], ins["a"] * 3.0, rtol=1e-6)
    report = run_and_compare(program, ins)
    assert report.fault is None and report.matches, report.summary()
    assert "return" in report.details  # the created tensor is compared, not skipped
    np.testing.assert_allclose(report.outputs["return"], ins["a"] * 3.0, rtol=1e-6)


@pytest.mark.parametrize("window", ["[2, 8, 32]", "[16, 64, 1]", "[4, 8, 64]", "[n, 8, 64]"])
def test_inconsistent_four_argument_store_is_a_located_error(window: str) -> None:
    src = ND.replace("WINDOW", window)
    if "n" in window:
        src = src.replace("t: pl.Tile", "n: pl.Scalar[pl.INDEX] = 2\n        t: pl.Tile")
    err = parse_error(src, ParseError)
    assert "do not match the stored tile" in err.message
    assert err.span is not None and err.span.line == src.splitlines().index(
        "        out = pl.store(u, [0, 0, 0], WINDOW, out)".replace("WINDOW", window)) + 1
    assert err.span.source_line[err.span.column - 1:].startswith(window)  # the caret is on the shapes list
    assert "slice" in err.hint


def test_four_argument_store_rejects_other_keywords() -> None:
    err = parse_error(PYPTO.replace("pl.store(tc, [0, 0], [16, 64], out)",
                                    "pl.store(tc, [0, 0], [16, 64], out, shapes=[16, 64])"), ParseError)
    assert "takes no keyword 'shapes'" in err.message and err.hint


def test_four_argument_store_keeps_tiled_op_and_ir_attrs() -> None:
    program = pl.parse(PYPTO.replace("pl.store(tc, [0, 0], [16, 64], out)",
                                     'pl.store(tc, [0, 0], [16, 64], out, tiled_op=True, ir_attrs={"mark": 1})'))
    (store,) = _calls(program.function("kernel"), "tile.store")
    assert store.kwarg("tiled_op") is True and store.kwarg("mark") == 1
    roundtrip(program)


def test_four_argument_store_rank_mismatch_reports_the_registry_error() -> None:
    err = parse_error(PYPTO.replace("pl.store(tc, [0, 0], [16, 64], out)", "pl.store(tc, [0, 0, 0], [16, 64], out)"),
                      TypeInferenceError)
    assert "offsets need 2 entries" in err.message
    assert err.span is not None and "pl.store(tc, [0, 0, 0]" in err.span.source_line


# ------------------------------------------------------------------------------------------------
# aliases and memory-space spellings
# ------------------------------------------------------------------------------------------------


def test_top_level_aliases_and_mem_spellings_match_the_tile_namespace() -> None:
    canonical = pl.parse(PYPTO.replace("pl.load(", "pl.tile.load(").replace("pl.add(", "pl.tile.add(")
                         .replace("pl.MemorySpace.Vec", "pl.Mem.Vec"))
    ir.assert_structural_equal(pl.parse(PYPTO), canonical)
    kernel = pl.parse(PYPTO).function("kernel")
    loads = _calls(kernel, "tile.load")
    assert len(loads) == 2 and all(isinstance(c.type, TileType) and c.type.memory_space is MemorySpace.Vec
                                   for c in loads)
    assert len(_calls(kernel, "tile.add")) == 1


def test_runtime_namespace_has_the_pypto_names() -> None:
    assert pl.MemorySpace is pl.Mem and pl.MemorySpace.Vec is MemorySpace.Vec
    for name in ("create_tensor", "load", "store", "add", "muls"):
        assert callable(getattr(pl, name))
    assert callable(pl.tensor.create)
    with pytest.raises(NotSupportedError):
        pl.create_tensor([16, 64], dtype=pl.FP32)


# ------------------------------------------------------------------------------------------------
# end to end: the PyPTO program on the simulator
# ------------------------------------------------------------------------------------------------


def test_pypto_program_round_trips_and_runs_end_to_end() -> None:
    program = pl.parse(PYPTO)
    again = pl.parse(roundtrip(program))
    ins = _inputs("a", "b")
    for prog in (program, again):
        report = run_and_compare(prog, ins)
        assert report.fault is None and report.matches, report.summary()
        assert set(report.details) == {"return"}  # the created output tensor is compared
        np.testing.assert_allclose(report.outputs["return"], ins["a"] + ins["b"], rtol=0, atol=1e-6)
        np.testing.assert_array_equal(report.outputs["return"], report.golden_outputs["return"])
    text = report.compiled.text()
    assert "alloc @out: tensor[16, 64] fp32" in text and "return @out as return" in text


def test_two_created_tensors_are_both_returned_and_compared() -> None:
    src = HEADER + '''
@pl.program
class Chain:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 64])
        tb = pl.load(b, [0, 0], [16, 64])
        out = pl.store(pl.add(ta, tb), [0, 0], [16, 64], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[16, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        u = pl.muls(t, 2.0)
        out = pl.store(u, [0, 0], [16, 64], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        s = pl.create_tensor([16, 64], dtype=pl.FP32)
        s = self.add(a, b, s)
        d = pl.create_tensor([16, 64], dtype=pl.FP32)
        d = self.scale(s, d)
        c = self.scale(d, c)
        return s, c, d
'''
    program = pl.parse(src)
    roundtrip(program)
    ins = _inputs("a", "b")
    report = run_and_compare(program, ins)
    assert report.fault is None and report.matches, report.summary()
    # c is the Out parameter; the created tensors are named by their position in the return statement
    assert set(report.details) == {"c", "return0", "return2"}
    s = ins["a"] + ins["b"]
    np.testing.assert_allclose(report.outputs["return0"], s, rtol=1e-6)
    np.testing.assert_allclose(report.outputs["return2"], s * 2, rtol=1e-6)
    np.testing.assert_allclose(report.outputs["c"], s * 4, rtol=1e-6)


def test_symbolic_create_tensor_runs_in_golden_but_not_on_the_device() -> None:
    src = HEADER + '''
@pl.program
class Dyn:
    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, n: pl.Scalar[pl.INDEX]):
        out = pl.create_tensor([n, 8], dtype=pl.FP32)
        return out
'''
    program = pl.parse(src)
    (create,) = _calls(program.function("orch"), "tensor.create")
    assert not isinstance(create.type.shape[0], ConstInt)
    roundtrip(program)
    assert run_program(program, {"n": 3})["return"].shape == (3, 8)
    from tilefold.compiler import compile as compile_program

    with pytest.raises(NotSupportedError, match="symbolic shape") as info:
        compile_program(program)
    assert info.value.span is not None and "pl.create_tensor([n, 8]" in info.value.span.source_line
