"""Custom ops in the DSL: verifier errors with locations, kernel registration errors, and the printer /
parser round trip of custom ops before and after TileAndBindSubBlock."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.custom import register_custom_op, unregister_custom_op
from tilefold.errors import CustomOpError, TilefoldError
from tilefold.golden import run_program
from tilefold.passes.tile_and_bind_sub_block import tile_and_bind_sub_block

ID = 'pl.affine_map("(d0, d1) -> (d0, d1)")'


def _program(op: str, params: str = "") -> str:
    return f'''
import tilefold.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32],{params} out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        init: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        y = {op}
        out = pl.store(y, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("op,message", [
    ("pl.tile.custom(ins=[t], outs=[init])", "needs a symbol"),
    (f'pl.tile.custom("k", ins=[t], outs=[init], indexing_maps=[{ID}], iterator_types=[pl.parallel, pl.parallel])',
     "1 indexing maps given for 1 ins + 1 outs"),
    (f'pl.tile.custom("k", ins=[t], outs=[init], indexing_maps=[{ID}, {ID}], iterator_types=[pl.parallel])',
     "has 2 dims but there are 1 iterator types"),
    ('pl.tile.custom("k", ins=[t], outs=[init], indexing_maps=[pl.affine_map("(d0, d1) -> (d0)"), '
     f'{ID}], iterator_types=[pl.parallel, pl.parallel])', "has 1 results but its operand has rank 2"),
    ('pl.tile.custom_macro("k", ins=[t], outs=[init], sync_event_slots=[0, 1], sync_related_args=[s])',
     "1 sync_related_args given for 2 sync_event_slots"),
])
def test_verifier_errors_have_location_and_hint(op, message):
    params = " s: pl.Scalar[pl.INDEX]," if "sync" in op else ""
    with pytest.raises(TilefoldError) as e:
        pl.parse(_program(op, params), filename="bad.py")
    err = e.value
    assert message in err.message
    assert err.span is not None and err.span.filename == "bad.py" and err.span.line == 10
    assert err.hint


def test_builtin_needs_no_symbol():
    program = pl.parse(_program("pl.tile.custom(ins=[t], outs=[init], builtin=True)"))
    assert program.functions[0].name == "kernel"


def test_registering_twice_is_an_error():
    register_custom_op("customdsl.twice", lambda x: x)
    try:
        with pytest.raises(CustomOpError, match="already registered"):
            register_custom_op("customdsl.twice", lambda x: x)
    finally:
        unregister_custom_op("customdsl.twice")


def test_running_an_unregistered_symbol_is_an_error():
    op = f'pl.tile.custom("customdsl.nobody", ins=[t], outs=[init], indexing_maps=[{ID}, {ID}], ' \
         'iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)'
    program = pl.parse(_program(op))
    with pytest.raises(CustomOpError, match="no registered kernel"):
        run_program(program, {"x": np.zeros((16, 32), np.float32)})


@pytest.mark.parametrize("op", [
    f'pl.tile.custom("k", ins=[t, 2.0], outs=[init], indexing_maps=[{ID}, pl.affine_map("(d0, d1) -> ()"), {ID}], '
    'iterator_types=[pl.parallel, pl.reduction], no_side_effect=True, pipe="PIPE_V", attrs={"alpha": 1})',
    'pl.tile.custom_macro("k", ins=[t], outs=[init], tmps=[init], sync_event_slots=[3], sync_related_args=[s], '
    'extra_buffers_info=[1024])',
])
def test_custom_ops_round_trip(op):
    params = " s: pl.Scalar[pl.INDEX]," if "sync" in op else ""
    program = pl.parse(_program(op, params))
    again = pl.parse(ir.python_print(program))
    ir.assert_structural_equal(program, again)


def test_split_program_round_trips():
    op = f'pl.tile.custom("k", ins=[t], outs=[init], indexing_maps=[{ID}, {ID}], ' \
         'iterator_types=[pl.parallel, pl.parallel], no_side_effect=True)'
    after = tile_and_bind_sub_block()(pl.parse(_program(op)))
    text = ir.python_print(after)
    assert "tiled_op=True" in text and "pl.tile.get_subblock_idx()" in text
    ir.assert_structural_equal(after, pl.parse(text))
