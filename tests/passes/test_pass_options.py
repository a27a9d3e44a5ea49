"""Typed pass options: the records, the one parser (keyword dicts, ``name=value`` items, MLIR-style strings), its
errors, and that each pass reads its typed option (``tilefold.passes.options``, ``passes.option_records``)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError
from tilefold.ir.visitor import IRVisitor
from tilefold.passes import PassContext
from tilefold.passes.auto_tile_matmul_l0 import auto_tile_matmul_l0
from tilefold.passes.option_records import (
    AutoTileMatmulL0Options,
    PipelineOptions,
    TileAndBindSubBlockOptions,
)
from tilefold.passes.options import option_infos, parse_assignments, parse_options
from tilefold.passes.pipeline import _CATALOGUE, default_tile_pipeline, get_pass, pass_options
from tilefold.targets import get_target

# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------


def test_defaults_of_the_pipeline_record():
    rec = parse_options(PipelineOptions)
    assert rec == PipelineOptions(target=None, tile_sizes=None, enable_auto_bind_sub_block=True,
                                  custom_op_policy=None)


def test_keyword_dict_and_keywords():
    rec = parse_options(PipelineOptions, {"enable_auto_bind_sub_block": False, "tile_sizes": [96, 112, 96]},
                        custom_op_policy="limit-module")
    assert rec.enable_auto_bind_sub_block is False
    assert rec.tile_sizes == (96, 112, 96) and isinstance(rec.tile_sizes, tuple)
    assert rec.custom_op_policy == "limit-module"


def test_mlir_style_string_with_dashes_quotes_and_a_bare_flag():
    rec = parse_options(PipelineOptions, "'enable-auto-bind-sub-block=false custom-op-policy=limit-module'")
    assert (rec.enable_auto_bind_sub_block, rec.custom_op_policy) == (False, "limit-module")
    assert parse_options(PipelineOptions, "{enable-auto-bind-sub-block}").enable_auto_bind_sub_block is True
    assert parse_options(PipelineOptions, "enable_auto_bind_sub_block=0").enable_auto_bind_sub_block is False
    assert parse_options(PipelineOptions, "enable_auto_bind_sub_block=TRUE").enable_auto_bind_sub_block is True


def test_assignment_items_as_the_cli_gives_them():
    got = parse_assignments(PipelineOptions, ["tile_sizes=64,128,256", "target=ascend950", "custom_op_policy=none"])
    assert got == {"tile_sizes": (64, 128, 256), "target": get_target("Ascend950"), "custom_op_policy": None}
    assert parse_assignments(PipelineOptions, []) == {}


def test_a_record_passes_through_and_keywords_override_it():
    rec = PipelineOptions(enable_auto_bind_sub_block=False)
    assert parse_options(PipelineOptions, rec) is rec
    assert parse_options(PipelineOptions, rec, tile_sizes=(16, 16, 16)) == dataclasses.replace(
        rec, tile_sizes=(16, 16, 16))


def test_target_names_become_targets():
    assert parse_options(PipelineOptions, {"target": "Ascend910C"}).target is get_target("Ascend910C")
    tgt = get_target("Ascend950")
    assert parse_options(PipelineOptions, {"target": tgt}).target is tgt


# ------------------------------------------------------------------------------------------------
# validation
# ------------------------------------------------------------------------------------------------


def _error(source, cls=PipelineOptions) -> TilefoldError:
    with pytest.raises(TilefoldError) as info:
        parse_options(cls, source)
    return info.value


@pytest.mark.parametrize("value", ["no", "yes", 1, 0, None, "False"])
def test_a_boolean_takes_only_a_bool_in_python(value):
    err = _error({"enable_auto_bind_sub_block": value})
    assert err.message.startswith("option enable_auto_bind_sub_block of the pass pipeline takes bool, got ")
    assert repr(value) in err.message
    assert "known options:" in err.hint and "enable_auto_bind_sub_block (bool, default True)" in err.hint


def test_a_boolean_in_text_is_true_false_1_or_0():
    err = _error("enable-auto-bind-sub-block=no")
    assert "takes bool, got no" in err.message


def test_unknown_name_lists_the_known_options_with_types():
    err = _error({"enable_auto_bind_subblock": False})
    assert err.message == "unknown option 'enable_auto_bind_subblock' of the pass pipeline"
    for name, type_text in (("target", "target name | None"), ("tile_sizes", "(int, int, int) | None"),
                            ("enable_auto_bind_sub_block", "bool"),
                            ("custom_op_policy", "'split' | 'limit-module' | None")):
        assert f"{name} ({type_text}," in err.hint


def test_errors_in_text_are_located_at_the_item():
    text = "enable-auto-bind-sub-block=true custom-op-policy=sometimes"
    err = _error(text)
    assert err.span is not None and err.span.column == text.index("custom") + 1
    assert err.span.source_line == text and err.span.filename == "<options>"
    assert "'split' | 'limit-module' | None" in err.message
    err = _error("enable-auto-bind-sub-block=true bogus=1")
    assert err.span.column == len("enable-auto-bind-sub-block=true ") + 1 and "'bogus'" in err.message


@pytest.mark.parametrize("value, detail", [((1, 2), "2 values, 3 expected"), ((1, 2, "x"), ""),
                                           ((1, True, 3), ""), ("96,112,96", "")])
def test_tile_sizes_take_three_integers(value, detail):
    err = _error({"tile_sizes": value})
    assert "tile_sizes of the pass pipeline takes (int, int, int) | None" in err.message
    assert detail in err.message


def test_an_unknown_target_names_the_known_ones():
    err = _error("target=Ascend000")
    assert "target name | None, got Ascend000" in err.message and "Ascend910B" in err.message


def test_factories_check_their_keywords():
    from tilefold.passes.tile_and_bind_sub_block import tile_and_bind_sub_block

    with pytest.raises(TilefoldError, match="enable_auto_bind_sub_block of TileAndBindSubBlock takes bool"):
        tile_and_bind_sub_block(enable_auto_bind_sub_block="no")
    with pytest.raises(TilefoldError, match="tile_sizes of AutoTileMatmulL0 takes"):
        auto_tile_matmul_l0(tile_sizes=(64, 64))
    with pytest.raises(TilefoldError, match="takes bool"):
        default_tile_pipeline(enable_auto_bind_sub_block="no")
    with pytest.raises(TilefoldError, match="takes bool"):
        PassContext(options={"enable_auto_bind_sub_block": "no"})


# ------------------------------------------------------------------------------------------------
# records and the catalogue
# ------------------------------------------------------------------------------------------------


def test_every_pass_record_field_is_a_pipeline_field_and_a_factory_keyword():
    pipeline = {f.name: f for f in dataclasses.fields(PipelineOptions)}
    seen = set()
    for cli_name, entry in _CATALOGUE.items():
        if entry.options is None:
            assert inspect.signature(entry.factory).parameters == {}, cli_name
            assert pass_options(cli_name) == []
            continue
        names = [f.name for f in dataclasses.fields(entry.options)]
        assert list(inspect.signature(entry.factory).parameters) == names, cli_name
        for f in dataclasses.fields(entry.options):
            assert pipeline[f.name].default == f.default and pipeline[f.name].type == f.type
            assert f.metadata["doc"], (cli_name, f.name)
        seen |= set(names)
    assert seen == set(pipeline)
    assert all(dataclasses.fields(PipelineOptions)) and PipelineOptions.__dataclass_params__.frozen


def test_records_are_frozen():
    rec = PipelineOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.enable_auto_bind_sub_block = False  # type: ignore[misc]


def test_tilefold_passes_lists_each_pass_with_its_options(capsys):
    from tilefold.cli import main

    assert main(["passes"]) == 0
    out = capsys.readouterr().out
    block = out.split("  tile-and-bind-sub-block\n", 1)[1].split("\n  ", 1)[0]
    assert "enable_auto_bind_sub_block: bool = True -- split AIV work" in block
    assert "tile_sizes: (int, int, int) | None = None -- force these (m, n, k)" in out


# ------------------------------------------------------------------------------------------------
# each pass reads its typed option
# ------------------------------------------------------------------------------------------------

VECTOR = """
import tilefold.language as pl

@pl.program
class V:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
        out = pl.store(y, [0, 0], out)
        return out
"""

MATMUL = """
import tilefold.language as pl

@pl.program
class M:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[128, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 256], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[256, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.store(c, [0, 0], out)
        return out
"""


class _Ops(IRVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.shapes: list[tuple] = []

    def visit_Call(self, expr) -> None:
        self.names.append(expr.op.name if hasattr(expr.op, "name") else str(expr.op))
        if expr.kwargs and "shape" in dict(expr.kwargs):
            self.shapes.append(tuple(getattr(e, "value", e) for e in dict(expr.kwargs)["shape"]))
        super().visit_Call(expr)


def _calls(program: ir.Program) -> _Ops:
    v = _Ops()
    for fn in program.functions:
        v.visit_stmt(fn.body)
    return v


def _sub_block_pass(options) -> ir.Program:
    prog = pl.parse(VECTOR)
    return get_pass("tile-and-bind-sub-block", options)(prog)


def test_tile_and_bind_sub_block_reads_enable_auto_bind_sub_block():
    on = _sub_block_pass(None)
    off = _sub_block_pass({"enable_auto_bind_sub_block": False})
    off_text = _sub_block_pass("enable-auto-bind-sub-block=false")
    assert on.functions[0].attr("sub_block_axis") is not None  # split on an axis
    assert off.functions[0].attr("sub_block_axis") is None
    assert "limit_sub_block_id0" in off.as_python() and "limit_sub_block_id0" not in on.as_python()
    ir.assert_structural_equal(off, off_text)


def test_tile_and_bind_sub_block_reads_the_context_record():
    prog = pl.parse(VECTOR)
    with PassContext(options=TileAndBindSubBlockOptions(enable_auto_bind_sub_block=False).__dict__):
        assert PassContext.current().options.enable_auto_bind_sub_block is False
        off = get_pass("tile-and-bind-sub-block")(prog)
    assert off.functions[0].attr("sub_block_axis") is None and "limit_sub_block_id0" in off.as_python()


def test_auto_tile_matmul_l0_reads_tile_sizes():
    prog = pl.parse(MATMUL)
    forced = get_pass("auto-tile-matmul-l0", "tile_sizes=64,64,128")(prog)
    direct = auto_tile_matmul_l0(tile_sizes=(64, 64, 128))(prog)
    ir.assert_structural_equal(forced, direct)
    # the forced (m, n, k) = (64, 64, 128) sizes the L0 extracts: [m, k] lhs and [k, n] rhs pieces, per M block
    assert _calls(forced).shapes == [(64, 128), (128, 64), (64, 128), (128, 64)]
    assert _calls(get_pass("auto-tile-matmul-l0")(prog)).shapes == []  # chosen by cost: left whole
    assert AutoTileMatmulL0Options(tile_sizes=(64, 64, 128)) == parse_options(
        AutoTileMatmulL0Options, "tile-sizes=64,64,128")


def test_allocate_memory_addr_reads_the_target():
    """A target whose Vec holds 4 KiB cannot place a 32x64 FP32 tile (8 KiB): the pass refuses when its record
    names that target, and places the tile on the default one."""
    base = get_target("Ascend910B")
    small = dataclasses.replace(base, name="TinyVec", memory_sizes={**base.memory_sizes, ir.MemorySpace.Vec: 4096})
    staged = get_pass("memory-reuse")(get_pass("init-mem-ref")(pl.parse(VECTOR)))
    planned = get_pass("allocate-memory-addr")(staged)
    assert planned is not staged
    with pytest.raises(TilefoldError, match="Vec"):
        get_pass("allocate-memory-addr", PipelineOptions(target=small))(staged)
    with pytest.raises(TilefoldError, match="Vec"):
        get_pass("allocate-memory-addr", target=small)(staged)


def test_cli_pass_option_reaches_the_pipeline_and_is_checked(tmp_path, capsys):
    from tilefold.cli import main

    path = tmp_path / "v.py"
    path.write_text(VECTOR)
    assert main(["compile", str(path), "--emit", "ir", "--no-enable-auto-bind-sub-block"]) == 0
    flag_off = capsys.readouterr().out
    assert main(["compile", str(path), "--emit", "ir", "--pass-option", "enable-auto-bind-sub-block=false"]) == 0
    option_off = capsys.readouterr().out
    assert main(["compile", str(path), "--emit", "ir"]) == 0
    on = capsys.readouterr().out
    assert option_off == flag_off != on
    assert "limit_sub_block_id0" in option_off and "limit_sub_block_id0" not in on
    assert main(["compile", str(path), "--emit", "ir", "--pass-option", "enable_auto_bind_sub_block=no"]) == 2
    err = capsys.readouterr().err
    assert "option enable_auto_bind_sub_block of the pass pipeline takes bool, got no" in err
    assert "--pass-option:1:1" in err and "known options:" in err


def test_mlir_opt_reads_enable_tile_through_the_parser(capsys):
    from tilefold.mlir.opt import BindSubBlockOptions, parse_args

    assert parse_args(["k.mlir", "-hivm-bind-sub-block='enable-tile=false'"]).enable_tile is False
    assert parse_args(["k.mlir", "--hivm-bind-sub-block=enable-tile"]).enable_tile is True
    assert parse_args(["k.mlir", "-hivm-bind-sub-block"]).enable_tile is True
    with pytest.raises(TilefoldError) as info:
        parse_args(["k.mlir", "-hivm-bind-sub-block=enable-tile=maybe"])
    assert "option enable_tile of -hivm-bind-sub-block takes bool, got maybe" in info.value.message
    with pytest.raises(TilefoldError, match="unknown option 'tile-size' of -hivm-bind-sub-block"):
        parse_args(["k.mlir", "-hivm-bind-sub-block=tile-size=2"])
    assert [i.name for i in option_infos(BindSubBlockOptions)] == ["enable_tile"]


def test_infer_tile_memory_space_reads_the_target():
    """Acc -> Vec is a data path of Ascend950 only: there the Acc result moves to Vec; on Ascend910B it goes
    through a GM tensor."""
    prog = pl.parse(MATMUL.replace("        out = pl.store(c, [0, 0], out)\n",
                                   "        d: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c)\n"
                                   "        out = pl.store(d, [0, 0], out)\n"))
    on_950 = _calls(get_pass("infer-tile-memory-space", "target=Ascend950")(prog)).names
    on_910b = _calls(get_pass("infer-tile-memory-space", {"target": "Ascend910B"})(prog)).names
    assert "tensor.create" not in on_950 and on_950.count("tile.move") == 3  # Left, Right, Vec
    assert "tensor.create" in on_910b and on_910b.count("tile.move") == 2  # Left, Right; Acc -> GM -> Vec


JIT = """
import tilefold.language as pl

@pl.jit
def k(a: pl.Tensor[[256, 512], pl.FP32], out: pl.Out[pl.Tensor[[256, 512], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.exp(a)
    return out
"""


def test_convert_tensor_to_tile_ops_reads_the_target():
    """The row blocks of a tensor too large for Vec are sized by the target's Vec: 16 rows of 512 FP32 on
    Ascend910B, 8 on a target with a third of its Vec."""
    from tilefold.runtime.jit import parse_jit_text

    base = get_target("Ascend910B")
    small = dataclasses.replace(base, name="TinyVec", memory_sizes={**base.memory_sizes, ir.MemorySpace.Vec: 65536})
    program = parse_jit_text(JIT)

    assert _row_extent(_lower_two(program, None)) == 16
    assert _row_extent(_lower_two(program, {"target": small})) == 8
    assert _row_extent(_lower_two(program, PipelineOptions(target=small))) == 8


def _lower_two(program: ir.Program, options) -> ir.Program:
    from tilefold.passes.pipeline import pipeline_for

    passes = pipeline_for(program, options=options)
    assert [p.name for p in passes[:4]] == ["OutlineHierarchyScopes", "OutlineIncoreScopes", "InlineOrchestrationCalls",
                                            "ConvertTensorToTileOps"]
    for p in passes[:4]:
        program = p(program)
    return program


def _row_extent(program: ir.Program) -> int:
    """The row extent of the (one) tile.load of ``program``."""
    from tilefold.ir.expr import Call

    loads = []

    class _Loads(IRVisitor):
        def visit_Call(self, expr: Call) -> None:
            if expr.op_name == "tile.load":
                loads.append(expr.args[2].elements[0].value)
            super().visit_Call(expr)

    for fn in program.functions:
        _Loads().visit_stmt(fn.body)
    assert len(loads) == 1, loads
    return loads[0]


def test_cli_pass_option_target_is_the_run_target_and_a_second_target_is_refused(tmp_path, capsys):
    """A target given as a pass option must reach codegen and the simulator too (not only the passes), and
    naming two different targets is a usage error, never a silent choice of one."""
    from tilefold.cli import main

    path = tmp_path / "v.py"
    path.write_text(VECTOR)
    assert main(["run", str(path), "--pass-option", "target=Ascend950"]) == 0
    by_option = capsys.readouterr().out
    assert main(["run", str(path), "--target", "Ascend950"]) == 0
    by_flag = capsys.readouterr().out
    assert main(["run", str(path)]) == 0
    default = capsys.readouterr().out

    def cycles(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("cycles"))

    assert cycles(by_option) == cycles(by_flag) != cycles(default)
    assert main(["run", str(path), "--pass-option", "target=Ascend950", "--target", "Ascend910B"]) == 1
    assert "contradicts --target Ascend910B" in capsys.readouterr().err


def test_compile_takes_its_target_from_the_options_and_refuses_two_targets():
    from tilefold.compiler import compile as compile_program
    from tilefold.language import parse

    program = parse(VECTOR)
    assert compile_program(program, options={"target": "Ascend950"}).target.name == "Ascend950"
    assert compile_program(program, options="target=Ascend950").target.name == "Ascend950"
    assert compile_program(program).target.name == "Ascend910B"
    assert compile_program(program, "Ascend950", options={"target": "Ascend950"}).target.name == "Ascend950"
    with pytest.raises(TilefoldError, match="target=Ascend950 contradicts the target Ascend910B"):
        compile_program(program, "Ascend910B", options={"target": "Ascend950"})


def test_a_numpy_boolean_is_a_boolean():
    import numpy as np

    for value in (np.False_, np.bool_(True), np.array([1, 2]).sum() > 2):
        record = parse_options(PipelineOptions, {"enable_auto_bind_sub_block": value})
        assert record.enable_auto_bind_sub_block is bool(value)
        assert type(record.enable_auto_bind_sub_block) is bool
