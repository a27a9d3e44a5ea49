"""Every code example of both seeds (wrapped into complete programs in examples/seeds/) parses,
verifies, prints and round-trips."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from lang_helpers import roundtrip

import tilefold.language as pl
from tilefold import ir

SEEDS = sorted((Path(__file__).resolve().parents[2] / "examples" / "seeds").glob("*.py"))


def test_seed_examples_exist() -> None:
    assert len(SEEDS) >= 15


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_seed_example_roundtrips(path: Path) -> None:
    program = pl.parse_file(path)
    assert program.functions
    text = roundtrip(program)
    assert "pl.Tile[" in text


# every structural property a freshly parsed program can be asked for (TileMemoryInferred / MemRefAllocated are
# produced by later passes)
FRONTEND_PROPERTIES = ("SSAForm", "TypeChecked", "UseAfterDef", "NormalizedStmtStructure", "TileOps2D",
                       "IncoreTileOps", "SplitIncoreOrch")


def verify_frontend_properties(program: ir.Program) -> bool:
    """Verify all FRONTEND_PROPERTIES. A program with N-D tiles may violate TileOps2D alone: then it must
    satisfy every property after FlattenTileNdTo2D. Returns whether flattening was needed."""
    from tilefold import passes
    from tilefold.passes.base import IRProperty
    from tilefold.passes.verifier import check_properties

    props = [IRProperty[name] for name in FRONTEND_PROPERTIES]
    violations = check_properties(program, props)
    if not violations:
        return False
    assert {v.property for v in violations} == {IRProperty.TileOps2D}, violations
    flat = passes.flatten_tile_nd_to_2d()(program)
    passes.verify_properties(flat, props)
    return True


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_seed_example_verifies(path: Path) -> None:
    verify_frontend_properties(pl.parse_file(path))


def test_nd_program_verifies_after_flattening() -> None:
    """The N-D branch of the seed check: TileOps2D fails on the parsed program, holds after flattening."""
    program = pl.parse('''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        t: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
        y = pl.tile.muls(t, 2.0)
        out = pl.store(y, [0, 0, 0], out)
        return out
''')
    assert verify_frontend_properties(program) is True


@pytest.mark.parametrize("path", SEEDS[:3], ids=lambda p: p.stem)
def test_seed_example_via_decorator_matches_text(path: Path) -> None:
    """Importing the example module runs @pl.program on the class (parsed from its source)."""
    spec = importlib.util.spec_from_file_location(f"seed_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    programs = [v for v in vars(module).values() if isinstance(v, ir.Program)]
    assert len(programs) == 1
    ir.assert_structural_equal(programs[0], pl.parse_file(path))
    assert programs[0].functions[0].span.filename == str(path)


def test_seed_fragment_slice_extract_text() -> None:
    """The seed's first Before fragment, verbatim, inside a minimal kernel."""
    src = '''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 512], pl.INT8], ko: pl.Scalar[pl.INDEX]):
        x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 512], target_memory=pl.Mem.Mat)
        lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [0, 0])
        a:         pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
            lhs_slice, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
'''
    program = pl.parse(src)
    body = program.functions[0].body.stmts
    a = body[2]
    assert a.value.op == "tile.extract"
    assert a.value.kwarg("shape") == (32, 256)
    assert a.value.kwarg("target_memory") is ir.MemorySpace.Left
    assert a.var.type.memory_space is ir.MemorySpace.Left
    roundtrip(program)
