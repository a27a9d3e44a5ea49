"""Every user-causable type-inference error reaches the user with a location and a fix hint.

Each case is a small bad kernel parsed through ``tilefold.language.parse``; the marked line (``# <-``) is
where the error must point (the last line unless marked), ``expect`` a fragment of the message that identifies the intended error, and
``advice`` a fragment of the hint that says what to change.
"""

from __future__ import annotations

import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError, TypeInferenceError

HEADER = '''import tilefold.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], x3: pl.Tensor[[2, 16, 64], pl.FP32],
          h: pl.Tensor[[32, 128], pl.FP16], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
        t = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        a16 = pl.tile.load(h, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        left = pl.tile.extract(a16, 0, 0, shape=[16, 32], target_memory=pl.Mem.Left)
        b16 = pl.tile.load(h, [0, 0], [32, 128], target_memory=pl.Mem.Mat)
        right = pl.tile.extract(b16, 0, 0, shape=[32, 64], target_memory=pl.Mem.Right)
'''

# (id, offending line, message fragment, hint fragment)
CASES = [
    ("slice_window_outside", "v = pl.tile.slice(t, [16, 64], [0, 65])",
     "window [65, 129) on axis 1 is outside the source extent 128", "offset in [0, 64] on axis 1"),
    ("slice_window_too_big", "v = pl.tile.slice(t, [16, 256], [0, 0])",
     "outside the source extent 128", "use at most 128"),
    ("slice_rank", "v = pl.tile.slice(t, [16], [0])", "shape and offset need 2 entries", "pl.tile.slice(t, [16, 128]"),
    ("slice_valid_shape_rank", "v = pl.tile.slice(t, [16, 64], [0, 0], [16])",
     "valid_shape needs one entry per axis", "2 entries"),
    ("slice_drop_dims_extent", "v = pl.tile.slice(t, [16, 64], [0, 0], [16, 64], [0])",
     "drop_dims axis 0 must have extent 1", "extent of axis 0 to 1"),
    ("slice_drop_dims_axis", "v = pl.tile.slice(t, [1, 64], [0, 0], [1, 64], [5])",
     "drop_dims entries must be constant axis indices", "[0, 1]"),
    ("load_rank", "v = pl.tile.load(x, [0], [16])", "offsets and shapes need 2 entries", "pl.tile.load(x, [0, 0]"),
    ("load_offsets_not_list", "v = pl.tile.load(x, 0, [16, 128])", "offsets must be a list", "bracketed list"),
    ("load_offset_is_tile", "v = pl.tile.load(x, [t, 0], [16, 128])", "expected a scalar index",
     "scalar index expressions"),
    ("load_from_tile", "v = pl.tile.load(t, [0, 0], [16, 128])", "must be a tensor", "pl.Tensor"),
    ("store_offsets", "out = pl.store(t, [0], out)", "offsets need 2 entries", "pl.store(tile, [0, 0], out)"),
    ("store_rank", "v3 = pl.tile.load(x3, [0, 0, 0], [2, 16, 64])\nout = pl.store(v3, [0, 0], out)",
     "tile rank 3 differs from output tensor rank 2", "pl.tile.reshape"),
    ("store_dtype", "c = pl.tile.cast(t, target_type=pl.FP16)\nout = pl.store(c, [0, 0], out)",
     "differs from output tensor dtype", "pl.tile.cast"),
    ("extract_window", "v = pl.tile.extract(t, 0, 100, shape=[16, 64])",
     "window [100, 164) on axis 1 is outside the source extent 128", "offset in [0, 64]"),
    ("extract_shape_rank", "v = pl.tile.extract(t, 0, 0, shape=[16])", "shape must have 2 entries",
     "shape=[rows, cols]"),
    ("extract_index_is_tile", "v = pl.tile.extract(t, t, 0, shape=[16, 64])", "must be a scalar",
     "index_row / index_col"),
    ("create_shape_not_ints", "n = pl.tile.get_block_idx()\nv = pl.tile.create(shape=[16, n], dtype=pl.FP32)",
     "shape must be a list of integer constants", "shape=[16, 64]"),
    ("reshape_count", "v = pl.tile.reshape(t, [16, 64])", "cannot reshape [16, 128] (2048 elements)",
     "product is 2048"),
    ("set_validshape_rank", "v = pl.tile.set_validshape(t, [8])", "valid_shape needs one entry per axis",
     "2 entries"),
    ("reinterpret_bits", "v = pl.tile.slice(t, [16, 1], [0, 0])\nw = pl.tile.reinterpret_view(v, dtype=pl.FP64)",
     "a row of 32 bits is not a whole number of FP64 elements", "divides 32 bits"),
    ("transpose_axes", "v = pl.tile.transpose(t, axis1=0, axis2=2)", "axes (0, 2) out of range for rank 2",
     "[0, 1]"),
    ("matmul_k", "c = pl.tile.matmul(left, left)", "disagree on K", "rhs row count"),
    ("matmul_dtype", "w = pl.tile.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Mat)\n"
     "w2 = pl.tile.reshape(w, [32, 64])\n"
     "r = pl.tile.extract(w2, 0, 0, shape=[32, 64], target_memory=pl.Mem.Right)\nc = pl.tile.matmul(left, r)",
     "lhs dtype FP16 differs from rhs dtype FP32", "pl.tile.cast"),
    ("matmul_acc_shape", "c = pl.tile.matmul(left, right)\nc2 = pl.tile.matmul_acc(t, left, right)",
     "accumulator [16, 128] does not match lhs x rhs [16, 64]", "product's shape"),
    ("matmul_bias", "c = pl.tile.matmul_bias(left, right, t)", "bias must have N columns", "64 columns"),
    ("batch_matmul_rank", "v = pl.tile.slice(t, [1, 16], [0, 0], [1, 16], [0])\nc = pl.tile.batch_matmul(v, v)",
     "operands need rank >= 2", "at least 2-D"),
    ("binary_shape", "v = pl.tile.slice(t, [16, 64], [0, 0])\nw = pl.tile.add(t, v)", "operand shapes",
     "row_expand"),
    ("binary_dtype", "c = pl.tile.cast(t, target_type=pl.FP16)\nw = pl.tile.mul(t, c)", "operand dtypes",
     "pl.tile.cast"),
    ("scalar_op_with_tile", "w = pl.tile.adds(t, t)", "must be a scalar", "pl.tile.add"),
    ("tile_op_with_tensor", "w = pl.tile.exp(x)", "must be a tile", "pl.tile.load"),
    ("row_expand_shape", "s = pl.tile.col_sum(t)\nw = pl.tile.row_expand_add(t, s)",
     "vector operand [1, 128] must be [16, 1]", "row_sum"),
    ("row_expand_dtype", "s = pl.tile.row_sum(t)\nc = pl.tile.cast(s, target_type=pl.FP16)\n"
     "w = pl.tile.row_expand_mul(t, c)", "operand dtypes FP32 and FP16 differ", "pl.tile.cast"),
    ("require_2d", "v3 = pl.tile.load(x3, [0, 0, 0], [2, 16, 64])\ns = pl.tile.transpose_view(v3)",
     "must be a 2-D tile", "reshape"),
    ("custom_no_outs", 'y = pl.tile.custom("k", ins=[t], outs=[])', "at least one output", "outs=[init]"),
    ("custom_out_not_tile", 'n = pl.tile.get_block_idx()\ny = pl.tile.custom("k", ins=[t], outs=[n])',
     "each output init must be a tile", "pl.tile.create"),
    # parser errors (not type inference) follow the same rule
    ("bitwise_not", "b = pl.tile.get_block_idx()\nc = ~b", "bitwise ~ is not supported", "not x"),
    ("comparison_is", "b = pl.tile.get_block_idx()\nc = b is b", "unsupported comparison Is", "=="),
    ("two_memory_spaces", "v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.Mem.Mat] = pl.tile.exp(t)",
     "two memory spaces", "one pl.Mem"),
    ("tile_annotation_on_tensor", "v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = x",
     "annotated as a tile but the value is", "pl.tile.load"),
    ("loop_bound_tile", "for i in pl.range(t):  # <-\n    pass", "loop bounds must be scalars", "pl.Scalar"),
    ("range_arity", "for i in pl.range(0, 1, 1, 1):  # <-\n    pass", "takes 1 to 3 positional arguments",
     "pl.range(0, 64, 16)"),
    ("const_float_int_dtype", "c = pl.const(1.5, pl.INT32)", "cannot have integer dtype INT32", "float dtype"),
    ("out_annotation_on_local", "v: pl.Out[pl.Tensor[[16, 128], pl.FP32]] = x", "only allowed on function parameters",
     "inner type"),
]


def parse_case(code: str) -> tuple[TilefoldError, int]:
    lines = code.splitlines()
    if "# <-" not in code:  # the error is on the last line unless marked
        lines[-1] += "  # <-"
    src = HEADER + "".join(f"        {ln}\n" for ln in lines)
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(TilefoldError) as info:
        pl.parse(src, "bad.py")
    return info.value, line


def test_cases_cover_many_different_errors() -> None:
    assert len({expect for _, _, expect, _ in CASES}) >= 15


@pytest.mark.parametrize(("code", "expect", "advice"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error_has_location_and_hint(code: str, expect: str, advice: str) -> None:
    err, line = parse_case(code)
    assert expect in err.message, err.message
    assert err.span is not None and err.span.filename == "bad.py" and err.span.line == line, str(err)
    assert err.span.source_line.strip(), str(err)
    assert err.hint and err.hint.strip(), f"no hint for: {err.message}"
    assert advice in err.hint, err.hint
    text = str(err)
    assert f"bad.py:{line}:" in text and "hint: " in text


def test_type_inference_errors_are_type_inference_errors() -> None:
    err, _ = parse_case("v = pl.tile.slice(t, [16, 64], [0, 65])")
    assert isinstance(err, TypeInferenceError)
