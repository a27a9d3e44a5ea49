"""Issue 9 §3.9: ``custom_op_policy``. ``"split"`` (default, the seed's design) splits custom ops that pass the
checks; ``"limit-module"`` (upstream master) splits no AIV function of a module that contains any custom op.
Available as pass factory argument, pipeline option and CLI flag."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_split_structure as ss
from sb_util import e2e_on_off, run_pass, without_reason

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError
from tilefold.ir import Program
from tilefold.passes import PassContext
from tilefold.passes.tile_and_bind_sub_block import REVERTED, tile_and_bind_sub_block
from tilefold.testing import run_and_compare
from tilefold.testing.sub_block_evidence import sub_block_evidence


@pl.program
class IdentityLimitedExpected:
    @pl.function(type=pl.FunctionType.InCore, attrs={"tile_and_bind_subblock_reverted": "*"})
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16,
                                                                      target_memory=pl.Mem.Vec)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            y_sb0 = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                                   indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                                  pl.affine_map("(d0, d1) -> (d0, d1)")],
                                   iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
            y = pl.yield_(y_sb0)
        else:
            y = pl.yield_(init)
        if pl.cond(sb == 0, attrs={"limit_sub_block_id0": True}):
            out_sb0 = pl.store(y, [0, 0], out)
            out_1 = pl.yield_(out_sb0)
        else:
            out_1 = pl.yield_(out)
        return out_1


def test_limit_module_rolls_back_a_splittable_custom_op_function():
    after, _ = run_pass(ss.IdentityBefore, custom_op_policy="limit-module")
    assert "custom_op_policy=limit-module" in after.function("kernel").attr(REVERTED)
    ir.assert_structural_equal(without_reason(after), IdentityLimitedExpected.with_attr(REVERTED, True))


# a module with a custom op in one function: limit-module limits the other (custom-free) function too


@pl.program
class TwoKernels:
    @pl.function(type=pl.FunctionType.AIV)
    def plain(self, x: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def custom(self, x: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16,
                                                                      target_memory=pl.Mem.Vec)
        y = pl.tile.custom("sb.scale2", ins=[t], outs=[init],
                           indexing_maps=[pl.affine_map("(d0, d1) -> (d0, d1)"),
                                          pl.affine_map("(d0, d1) -> (d0, d1)")],
                           iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)
        out = pl.store(y, [0, 0], out)
        return out


def test_limit_module_limits_every_function_of_a_module_with_a_custom_op():
    split, _ = run_pass(TwoKernels)
    assert {fn.name: fn.attr("sub_block_axis") for fn in split.functions} == {"plain": 0, "custom": 0}
    limited, _ = run_pass(TwoKernels, custom_op_policy="limit-module")
    for fn in limited.functions:
        assert fn.attr(REVERTED) is not None and fn.attr("sub_block_axis") is None, fn.name


def test_limit_module_leaves_a_module_without_custom_ops_alone():
    plain = Program("P", (TwoKernels.function("plain"),))
    a, _ = run_pass(plain, custom_op_policy="limit-module")
    b, _ = run_pass(plain)
    ir.assert_structural_equal(a, b)
    assert sub_block_evidence(a).split


def test_policy_reaches_the_pass_as_context_and_pipeline_option():
    with PassContext(options={"custom_op_policy": "limit-module"}):
        after = tile_and_bind_sub_block()(ss.IdentityBefore)
    assert after.function("kernel").attr(REVERTED) is not None
    rep = run_and_compare(ss.IdentityBefore, "random", options={"custom_op_policy": "limit-module"})
    assert rep.result == "correct", rep.summary()
    assert not sub_block_evidence(rep.compiled.ir).split


def test_unknown_policy_is_a_tilefold_error():
    with pytest.raises(TilefoldError, match="custom_op_policy"):
        tile_and_bind_sub_block(custom_op_policy="sometimes")


def test_cli_custom_op_policy_flag(capsys):
    from tilefold.cli import main

    path = Path(__file__).parents[2] / "lit" / "tile_and_bind_sub_block" / "identity_split.py"
    code = main(["opt", str(path), "--passes", "tile-and-bind-sub-block", "--custom-op-policy", "limit-module"])
    out = capsys.readouterr().out
    assert code == 0
    assert "limit_sub_block_id0" in out and "tiled_op" not in out


def test_e2e_both_policies_on_both_targets():
    e2e_on_off(ss.IdentityBefore, split=True, name="policy_split")
    for target in ("Ascend910B", "Ascend950"):
        rep = run_and_compare(ss.IdentityBefore, "random", target=target,
                              options={"custom_op_policy": "limit-module"})
        assert rep.result == "correct", rep.summary()
