"""Canonical TileView: a type stores no view (or no field) that equals the implicit one for its shape and
memory space, so spellings that differ only in implicit facts are structurally equal."""

from __future__ import annotations

import pytest
from lang_helpers import roundtrip

import tilefold.language as pl
from tilefold import ir
from tilefold.ir import ConstInt, DataType, MemorySpace, TileType, TileView, Var
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import IMPLICIT_LAYOUTS, INDEX, canonical_tile_view

HEADER = "import tilefold.language as pl\n\n"


def kernel(body: str) -> str:
    lines = "\n".join("        " + ln if ln.strip() else "" for ln in body.strip("\n").splitlines())
    return (HEADER + "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
            f" -> pl.Tensor[[16, 64], pl.FP32]:\n{lines}\n")


def assigned(program: ir.Program, name: str) -> ir.AssignStmt:
    for s in program.functions[0].body.stmts:
        if isinstance(s, ir.AssignStmt) and s.var.name == name:
            return s
    raise KeyError(name)


SHAPE = make_shape([16, 64])


# ---- the helper ---------------------------------------------------------------------------------


def test_full_valid_shape_is_dropped() -> None:
    assert canonical_tile_view(SHAPE, MemorySpace.Vec, TileView(valid_shape=make_shape([16, 64]))) is None
    assert canonical_tile_view(SHAPE, None, TileView(valid_shape=make_shape([16, 64]))) is None


def test_symbolic_valid_shape_equal_by_identity() -> None:
    n = Var("n", INDEX)
    shape = (ConstInt(16), n)
    assert canonical_tile_view(shape, MemorySpace.Vec, TileView(valid_shape=(ConstInt(16), n))) is None
    other = TileView(valid_shape=(ConstInt(16), Var("n", INDEX)))
    assert canonical_tile_view(shape, MemorySpace.Vec, other) is other


def test_partial_view_is_kept_as_is() -> None:
    view = TileView(valid_shape=make_shape([8, 64]))
    assert canonical_tile_view(SHAPE, MemorySpace.Vec, view) is view


@pytest.mark.parametrize("space", sorted(IMPLICIT_LAYOUTS, key=lambda m: m.name), ids=lambda m: m.name)
def test_implicit_layout_fields_are_dropped(space: MemorySpace) -> None:
    imp = IMPLICIT_LAYOUTS[space]
    full = TileView(valid_shape=SHAPE, blayout=imp.blayout, slayout=imp.slayout, fractal=imp.fractal, pad="null")
    assert canonical_tile_view(SHAPE, space, full) is None
    # a non-implicit field survives alone
    other_b = "row_major" if imp.blayout == "col_major" else "col_major"
    got = canonical_tile_view(SHAPE, space, TileView(blayout=other_b, slayout=imp.slayout, fractal=imp.fractal))
    assert got == TileView(blayout=other_b)


def test_memory_spaces_have_their_own_implicit_layout() -> None:
    nz = TileView(blayout="col_major", slayout="row_major")
    assert canonical_tile_view(SHAPE, MemorySpace.Mat, nz) is None
    assert canonical_tile_view(SHAPE, MemorySpace.Acc, nz) is None
    assert canonical_tile_view(SHAPE, MemorySpace.Vec, nz) == TileView(blayout="col_major", slayout="row_major")
    assert canonical_tile_view(SHAPE, MemorySpace.Left, nz) == TileView(blayout="col_major")
    assert canonical_tile_view(SHAPE, MemorySpace.Right, nz) is nz
    # without a memory space (and in DDR) no layout is implicit
    assert canonical_tile_view(SHAPE, None, nz) is nz
    assert canonical_tile_view(SHAPE, MemorySpace.DDR, nz) is nz


# ---- the parser's annotations -------------------------------------------------------------------


def test_annotation_with_full_view_equals_plain_annotation() -> None:
    with_view = pl.parse(kernel('''
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 64])] = pl.tile.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
'''))
    plain = pl.parse(kernel('''
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
'''))
    assert assigned(with_view, "t").var.type.tile_view is None
    ir.assert_structural_equal(with_view, plain)
    assert ir.structural_hash(with_view) == ir.structural_hash(plain)


def test_annotation_with_implicit_layout_equals_plain_annotation() -> None:
    spelled = pl.parse(kernel('''
t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 64], blayout="row_major", slayout="none_box", fractal=512, pad="null")] = pl.tile.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
'''))
    plain = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
out = pl.store(t, [0, 0], out)
return out
'''))
    ir.assert_structural_equal(spelled, plain)


def test_parameter_annotation_with_full_view_is_canonical() -> None:
    src = (HEADER + "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 64], "
           "blayout=\"col_major\", fractal=1024)], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
           " -> pl.Tensor[[16, 64], pl.FP32]:\n"
           "        out = pl.store(a, [0, 0], out)\n        return out\n")
    p = pl.parse(src)
    t = p.functions[0].params[0].type
    assert isinstance(t, TileType) and t.memory_space is MemorySpace.Acc and t.tile_view is None
    roundtrip(p)


def test_annotation_view_is_canonicalized_against_the_inferred_memory_space() -> None:
    """No memory space in the annotation: the inferred one (Mat) decides which layout is implicit."""
    p = pl.parse(kernel('''
t: pl.Tile[[16, 64], pl.FP32, None, pl.TileView(blayout="col_major", slayout="row_major")] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
v = pl.tile.move(t, target_memory=pl.Mem.Vec)
out = pl.store(v, [0, 0], out)
return out
'''))
    t = assigned(p, "t").var.type
    assert t.memory_space is MemorySpace.Mat and t.tile_view is None


def test_full_view_annotation_overrides_an_inferred_partial_view() -> None:
    """An annotation that spells the implicit view says the variable has none (like ``pl.TileView()``)."""
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 64])] = pl.tile.set_validshape(t, [8, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    assert assigned(p, "v").value.type.tile_view is not None
    assert assigned(p, "v").var.type.tile_view is None
    roundtrip(p)


def test_non_implicit_fields_survive_and_roundtrip() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 64], blayout="row_major", slayout="row_major", pad="zero")] = pl.tile.set_validshape(t, [8, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    view = assigned(p, "v").var.type.tile_view
    assert view.blayout is None and view.slayout == "row_major" and view.pad == "zero"
    assert [e.value for e in view.valid_shape] == [8, 64]
    text = roundtrip(p)
    assert 'blayout=' not in text and 'slayout="row_major"' in text


# ---- op type inference ---------------------------------------------------------------------------


def test_set_validshape_with_full_valid_shape_has_no_view() -> None:
    full = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v = pl.tile.set_validshape(t, [16, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    v = assigned(full, "v")
    assert v.value.type.tile_view is None and v.var.type.tile_view is None
    annotated = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.set_validshape(t, [16, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    ir.assert_structural_equal(full, annotated)
    text = roundtrip(full)
    assert "TileView" not in text


def test_set_validshape_with_partial_valid_shape_keeps_its_view() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v = pl.tile.set_validshape(t, [16, 32])
out = pl.store(v, [0, 0], out)
return out
'''))
    view = assigned(p, "v").var.type.tile_view
    assert view is not None and [e.value for e in view.valid_shape] == [16, 32]
    roundtrip(p)


def test_slice_with_full_valid_shape_has_no_view() -> None:
    p = pl.parse(kernel('''
t = pl.tile.load(x, [0, 0], [16, 64])
v = pl.tile.slice(t, [8, 64], [8, 0], [8, 64])
out = pl.store(v, [0, 0], out)
return out
'''))
    v = assigned(p, "v")
    assert len(v.value.args) == 4  # still the 4-operand form; only its type is canonical
    assert v.var.type.tile_view is None
    assert "TileView" not in roundtrip(p)


def test_slice_with_drop_dims_compares_valid_shape_with_the_result_shape() -> None:
    src = (HEADER + "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, x: pl.Tensor[[4, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]])"
           " -> pl.Tensor[[16, 64], pl.FP32]:\n"
           "        t = pl.tile.load(x, [0, 0, 0], [4, 16, 64])\n"
           "        v = pl.tile.slice(t, [1, 16, 64], [2, 0, 0], [1, 16, 64], [0])\n"
           "        w = pl.tile.slice(t, [1, 16, 64], [2, 0, 0], [1, 8, 64], [0])\n"
           "        out = pl.store(v, [0, 0], out)\n        return out\n")
    p = pl.parse(src)
    v, w = assigned(p, "v").var.type, assigned(p, "w").var.type
    assert [e.value for e in v.shape] == [16, 64] and v.tile_view is None
    assert [e.value for e in w.tile_view.valid_shape] == [8, 64]
    roundtrip(p)


def test_matmul_acc_canonicalizes_against_acc() -> None:
    """An accumulator without a memory space whose view spells Acc's implicit layout: the result lives in
    Acc, where that layout is implicit."""
    from tilefold.ops import make_call

    acc = Var("acc", TileType(make_shape([16, 16]), DataType.FP32, None, None,
                              TileView(blayout="col_major", slayout="row_major", fractal=1024)))
    lhs = Var("a", TileType(make_shape([16, 32]), DataType.FP16, MemorySpace.Left))
    rhs = Var("b", TileType(make_shape([32, 16]), DataType.FP16, MemorySpace.Right))
    call = make_call("tile.matmul_acc", [acc, lhs, rhs], {})
    assert call.type.memory_space is MemorySpace.Acc and call.type.tile_view is None
