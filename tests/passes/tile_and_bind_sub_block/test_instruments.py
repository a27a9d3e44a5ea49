"""The pass output verifies and round-trips through the printer, split or rolled back; pipeline options
reach the pass."""

from __future__ import annotations

import pytest
import test_rollback as rb
import test_split_structure as ss

import tilefold.language as pl
from tilefold import ir
from tilefold.passes import PassContext, VerificationInstrument
from tilefold.passes.pass_manager import print_ir
from tilefold.passes.pipeline import default_tile_pipeline
from tilefold.passes.tile_and_bind_sub_block import REVERTED, tile_and_bind_sub_block
from tilefold.testing.round_trip import RoundTripInstrument

PROGRAMS = {
    "identity": ss.IdentityBefore, "multi_result": ss.MultiBefore, "loop": ss.LoopBefore,
    "softmax_first": ss.SoftmaxFirstBefore, "misaligned_rollback": rb.MisalignedBefore,
    "two_functions": rb.TwoFunctions,
    "side_effects_rollback": pl.parse(rb._before(*[rb.CASES["side_effects"][0]])),
}


#: per program, the functions the pass rolls back (every other function is split)
ROLLED_BACK = {"identity": set(), "multi_result": set(), "loop": set(), "softmax_first": set(),
               "misaligned_rollback": {"kernel"}, "two_functions": {"f2"}, "side_effects_rollback": {"kernel"}}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_output_verifies_and_round_trips(name):
    instrument = RoundTripInstrument()
    with PassContext([VerificationInstrument(), instrument]):
        after = tile_and_bind_sub_block()(PROGRAMS[name])
    assert instrument.checked == ["TileAndBindSubBlock"]
    # the instruments only observe: the output is what the pass gives without them
    ir.assert_structural_equal(after, tile_and_bind_sub_block()(PROGRAMS[name]))
    assert {f.name for f in after.functions if f.attr(REVERTED)} == ROLLED_BACK[name]
    assert "get_subblock_idx" in print_ir(after)  # split, or stores guarded to sub-block 0 on a rollback


def test_pipeline_option_reaches_the_pass():
    off = [p for p in default_tile_pipeline(enable_auto_bind_sub_block=False) if p.name == "TileAndBindSubBlock"]
    on = [p for p in default_tile_pipeline() if p.name == "TileAndBindSubBlock"]
    ir.assert_structural_equal(off[0].run(ss.IdentityBefore), ss.IdentityDisabledExpected)
    ir.assert_structural_equal(on[0].run(ss.IdentityBefore), ss.IdentityExpected)


def test_context_option_disables_splitting_but_keeps_the_guards():
    with PassContext(options={"enable_auto_bind_sub_block": False}):
        ir.assert_structural_equal(tile_and_bind_sub_block()(ss.IdentityBefore), ss.IdentityDisabledExpected)


def test_non_vector_functions_are_left_alone():
    src = '''
import tilefold.language as pl

@pl.program
class Mm:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        y: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        xl: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(x, target_memory=pl.Mem.Left)
        yr: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(y, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xl, yr)
        out = pl.store(c, [0, 0], out)
        return out
'''
    program = pl.parse(src)
    after = tile_and_bind_sub_block()(program)
    assert after is program and after.attr(REVERTED) is None
