"""The placement rules of a kernel that opens pl.split_aiv regions, and the parser's checks of the region form:
each is a located error with PyPTO's wording (language/04-scopes, the table of symptoms) and a hint."""

from __future__ import annotations

import pytest
from xc_helpers import incore

import tilefold.language as pl
from tilefold.compiler import run_pipeline
from tilefold.errors import NotSupportedError, TilefoldError

MM = """
a_t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
"""
PARAMS = ("a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], "
          "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
RET = "pl.Tensor[[64, 64], pl.FP32]"


def _error(body: str, params: str = PARAMS) -> TilefoldError:
    with pytest.raises(TilefoldError) as info:
        run_pipeline(incore(params, body, ret=RET))
    return info.value


def _line_of(err: TilefoldError, body: str, marker: str) -> None:
    """The error points at the body line holding ``marker`` (the body starts on line 7 of the kernel text)."""
    lines = [i for i, text in enumerate(body.strip("\n").splitlines()) if marker in text]
    assert err.span is not None and err.span.line == lines[0] + 7, (err.span, marker)


def test_vector_op_outside_every_region():
    body = """
t = pl.load(x, [0, 0], [16, 64])
u = pl.exp(t)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    v = pl.load(x, [0, 0], [16, 64])
    out = pl.store(v, [0, 0], out)
return out
"""
    err = _error(body, "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]")
    assert "vector op 'tile.load' sits outside every pl.split_aiv region" in err.message
    assert "pl.split_aiv(2, mode=pl.SplitMode.NONE)" in err.hint
    _line_of(err, body, "t = pl.load")


def test_cube_op_inside_a_region():
    body = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    m = pl.tile.matmul(a_t, b_t)
    out = pl.store(h, [0, 0], out)
return out
"""
    err = _error(body)
    assert "cube op 'tile.matmul' inside a pl.split_aiv region" in err.message
    _line_of(err, body, "m = pl.tile.matmul")


def test_unnamed_cube_to_vector_crossing():
    body = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    e = pl.exp(acc)
    out = pl.store(e, [0, 0], out)
return out
"""
    err = _error(body)
    assert "'acc' is produced on the CUBE lane" in err.message
    assert "reads it on the VECTOR lane inside one" in err.message and "'tile.exp'" in err.message
    assert "pl.aiv_shard(acc)" in err.hint
    _line_of(err, body, "e = pl.exp(acc)")


def test_unnamed_vector_to_cube_crossing():
    body = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    v = pl.exp(h)
r = pl.tile.matmul(v, v)
out = pl.store(r, [0, 0], out)
return out
"""
    err = _error(body)
    assert "'v' is defined inside a pl.split_aiv region but 'tile.matmul' reads it on the CUBE lane outside" \
        in err.message
    assert "v = pl.aic_gather(v)" in err.hint


def test_a_gather_result_is_not_read_inside_its_region():
    body = MM + """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    kv = pl.aic_gather(h)
    e = pl.exp(kv)
    out = pl.store(e, [0, 0], out)
return out
"""
    assert "is a pl.aic_gather result" in _error(body).message


@pytest.mark.parametrize("body, message", [
    (MM + "h = pl.aiv_shard(acc)\nreturn out\n", "pl.aiv_shard names a tile crossing the edge of a pl.split_aiv "
                                                 "region, but it is not inside one"),
    ("for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    for j in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
     "        pass\nreturn out\n", "pl.split_aiv regions cannot nest"),
    ("for i in pl.split_aiv(2):\n    pass\nreturn out\n", "pl.split_aiv needs mode="),
    ("for i in pl.split_aiv(4, mode=pl.SplitMode.NONE):\n    pass\nreturn out\n", "takes the lane count 2"),
    ("for i in pl.split_aiv(2, mode=pl.SplitMode.DIAGONAL):\n    pass\nreturn out\n", "unknown split mode"),
    ("for i in pl.split_aiv(2, mode=pl.SplitMode.NONE, slots=2):\n    pass\nreturn out\n", "unknown keyword"),
    (MM + "for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    acc = pl.aiv_shard(acc)\nreturn out\n",
     "'acc' is bound before the pl.split_aiv region and rebound inside it"),
    (MM + "for i in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    h = pl.aiv_shard(acc, split=2)\nreturn out\n",
     "split= of pl.aiv_shard must be the region's (1)"),
])
def test_region_form_errors(body, message):
    with pytest.raises(TilefoldError) as info:
        incore(PARAMS, body, ret=RET)
    assert message in info.value.message
    assert info.value.span is not None and info.value.hint


def test_odd_rows_cannot_be_halved():
    body = """
a_t = pl.load(a, [0, 0], [48, 64], target_memory=pl.Mem.Mat)
b_t = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
acc = pl.tile.matmul(a_t, b_t)
r = pl.tile.slice(acc, [16, 64], [0, 0])
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    h = pl.aiv_shard(acc)
    out = pl.store(h, [0, 0], out)
return out
"""
    program_text_ok = incore(PARAMS, body, ret=RET)  # NONE does not halve: accepted
    assert program_text_ok is not None
    bad = body.replace("mode=pl.SplitMode.NONE", "mode=pl.SplitMode.UP_DOWN").replace("[48, 64]", "[16, 64]") \
        .replace("r = pl.tile.slice(acc, [16, 64], [0, 0])\n", "")
    bad = bad.replace("acc = pl.tile.matmul(a_t, b_t)", "acc0 = pl.tile.matmul(a_t, b_t)\n"
                      "acc = pl.tile.slice(acc0, [15, 64], [0, 0])")
    with pytest.raises(TilefoldError) as info:
        incore(PARAMS, bad, ret=RET)
    assert "15 is odd" in info.value.message


JIT = '''
import tilefold.language as pl

@pl.jit
def k(q: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
        mm = pl.matmul(q, w, out_dtype=pl.FP32)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            out = pl.assemble(out, pl.exp(pl.aiv_shard(mm)), [aiv_id * 32, 0])
    return out
'''


def test_pl_split_and_regions_on_one_scope_are_refused():
    with pytest.raises(TilefoldError) as info:
        run_pipeline(pl.parse(JIT, "mixed_split.py"))
    assert "both requests pl.split(...) and opens pl.split_aiv regions" in info.value.message


def test_a_region_outside_kernel_code_is_refused():
    text = ("import tilefold.language as pl\n\n@pl.program\nclass P:\n"
            "    @pl.function(type=pl.FunctionType.Orchestration)\n"
            "    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
            "        for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
            "            pass\n"
            "        return x\n")
    with pytest.raises(TilefoldError) as info:
        pl.parse(text, "orchestration_region.py")
    assert "a pl.split_aiv region belongs inside kernel code" in info.value.message
    assert info.value.span.line == 7


def test_regions_in_an_aiv_function_are_not_supported():
    text = ("import tilefold.language as pl\n\n@pl.program\nclass P:\n"
            "    @pl.function(type=pl.FunctionType.AIV)\n"
            "    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
            "pl.Tensor[[16, 64], pl.FP32]:\n"
            "        for i in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
            "            t = pl.load(x, [0, 0], [16, 64])\n"
            "            out = pl.store(t, [0, 0], out)\n"
            "        return out\n")
    with pytest.raises(NotSupportedError) as info:
        run_pipeline(pl.parse(text, "aiv_region.py"))
    assert "pl.split_aiv regions in AIV function 'k'" in info.value.message


@pytest.mark.parametrize("scope, kind, message", [  # pl.cluster(): tests/cross_core/test_cluster_scope.py
    ("with pl.split_aiv(2, mode=pl.SplitMode.NONE):", TilefoldError, "pl.split_aiv is a loop over the two AIV lanes"),
])
def test_with_form_regions_are_refused_in_both_forms(scope, kind, message):
    jit = JIT.replace("    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):",
                      f"    {scope}")
    program_form = ("import tilefold.language as pl\n\n@pl.program\nclass P:\n"
                    "    @pl.function\n"
                    "    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
                    f"        {scope}\n"
                    "            y = pl.add(x, x)\n"
                    "        return y\n")
    for text in (jit, program_form):
        with pytest.raises(kind) as info:
            pl.parse(text, "scope.py")
        assert message in info.value.message and info.value.span is not None and info.value.hint
