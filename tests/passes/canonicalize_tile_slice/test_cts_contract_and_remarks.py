"""Pass contract (name, properties, registration) and rule 10: structured remarks for every decision."""

from __future__ import annotations

import pytest
from cts_helpers import kernel, run, run_with_remarks

from tilefold import passes
from tilefold.passes.base import IRProperty
from tilefold.passes.canonicalize_tile_slice import AccWindowError
from tilefold.passes.remarks import Remark, collect_remarks

PROPS = {IRProperty.SSAForm, IRProperty.SplitIncoreOrch, IRProperty.IncoreTileOps, IRProperty.TileOps2D,
         IRProperty.NormalizedStmtStructure}


def test_pass_contract():
    p = passes.canonicalize_tile_slice()
    assert p.name == "CanonicalizeTileSlice"
    assert p.cli_name == "canonicalize-tile-slice"
    assert set(p.required) == PROPS and set(p.produced) == PROPS and not p.invalidated


def test_pass_is_reachable_by_cli_name_and_sits_before_memory_inference_in_the_pipeline():
    from tilefold.passes.pipeline import DEFAULT_ORDER, get_pass

    assert get_pass("canonicalize-tile-slice").name == "CanonicalizeTileSlice"
    i = DEFAULT_ORDER.index("canonicalize-tile-slice")
    assert DEFAULT_ORDER[i - 1] == "auto-tile-matmul-l0"
    assert DEFAULT_ORDER[i + 1] == "infer-tile-memory-space"


def test_factory_keeps_working_after_the_module_is_imported():
    import sys

    from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice  # binds the submodule

    module = sys.modules["tilefold.passes.canonicalize_tile_slice"]
    assert passes.canonicalize_tile_slice().name == "CanonicalizeTileSlice"
    assert module.canonicalize_tile_slice is canonicalize_tile_slice


PARAMS = "x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], y: pl.Tensor[[64, 256], pl.BF16]"
BODY = """
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128])
gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64])
m: pl.Tile[[64, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(y, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
r: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
s1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, gamma_t)
row: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [r, 0])
s2: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(row, gamma_t)
head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
s3: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
col8: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 8])
s4: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(col8, 0.5)
dyn: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, r])
s5: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(dyn)
page: pl.Tile[[32, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [32, 256], [32, 0])
a: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(page, 0, 128, shape=[32, 128], target_memory=pl.Mem.Left)
lhs: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [16, 64], [0, 0])
rhs: pl.Tile[[64, 16], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [64, 16], [0, 16])
c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs, rhs)
kept: pl.Tile[[32, 32], pl.BF16, pl.Mem.Mat] = pl.tile.slice(m, [32, 32], [0, 32])
mv: pl.Tile[[32, 32], pl.BF16, pl.Mem.Left] = pl.tile.move(kept, target_memory=pl.Mem.Left)
"""


def by_slice(remarks: list[Remark]) -> dict[str, list[Remark]]:
    out: dict[str, list[Remark]] = {}
    for r in remarks:
        out.setdefault(r.details.get("slice", ""), []).append(r)
    return out


def test_every_slice_decision_is_reported_with_its_reason():
    program, remarks = run_with_remarks(kernel(PARAMS, BODY))
    assert remarks and all(isinstance(r, Remark) for r in remarks)
    assert all(r.pass_name == "CanonicalizeTileSlice" and r.function == "kernel" for r in remarks)
    got = by_slice(remarks)

    def kinds(name):
        return [r.kind for r in got[name]]

    assert kinds("hi") == ["materialized", "dropped"]
    assert got["hi"][0].details["reason"] == "non-contiguous"
    assert kinds("row") == ["materialized", "dropped"]
    assert got["row"][0].details["reason"] == "dynamic-offset"
    assert kinds("head") == ["materialized", "dropped"]
    assert got["head"][0].details["misaligned_bytes"] == 4
    assert kinds("col8") == ["kept-zero-copy"]
    assert "32 B" in got["col8"][0].details["proof"]
    assert kinds("dyn") == ["materialized", "dropped"]
    assert got["dyn"][0].details["reason"] == "unprovable"
    assert kinds("page") == ["folded-extract", "dropped"]
    assert kinds("lhs")[0] == "folded-matmul" and got["lhs"][0].details["operand"] == "lhs"
    assert kinds("rhs")[0] == "folded-matmul" and got["rhs"][0].details["operand"] == "rhs"
    assert kinds("kept") == ["left"]
    assert "tile.move" in got["kept"][0].message


def test_remarks_reach_an_outer_collector_and_cost_nothing_without_one():
    prog = kernel(PARAMS, BODY)
    with collect_remarks() as outer:
        run(prog)
    assert any(r.pass_name == "CanonicalizeTileSlice" and r.kind == "materialized" for r in outer)
    run(prog)  # no collector active: must still work


def test_rejected_acc_window_is_reported_before_the_error():
    prog = kernel("n: pl.Scalar[pl.INDEX]", """
acc: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create(shape=[32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
a: pl.Tile[[16, 32], pl.BF16, pl.Mem.Left] = pl.tile.create(shape=[16, 32], dtype=pl.BF16, target_memory=pl.Mem.Left)
b: pl.Tile[[32, 64], pl.BF16, pl.Mem.Right] = pl.tile.create(shape=[32, 64], dtype=pl.BF16, target_memory=pl.Mem.Right)
w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 64], [16, 0])
c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w, a, b)
""")
    with collect_remarks() as collected, pytest.raises(AccWindowError):
        run(prog)
    (rej,) = [r for r in collected if r.kind == "acc-window-rejected"]
    assert rej.details["op"] == "tile.matmul_acc"
