"""PTO codegen: text form, lowering choices, and the strict guard on lazy materializations."""

import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.backend import InternalCheckError, compile
from tilefold.backend.pto import TExtract, TSubview, TVector

VEC = "target_memory=pl.Mem.Vec"
NO_SPLIT = {"enable_auto_bind_sub_block": False}


def _col_expand_src(offset: str, shape: str = "[16, 64]", params: str = "") -> str:
    return kernel_src(
        f"x: pl.Tensor[[16, 128], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32],{params} "
        "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
g: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 64], {VEC})
hi: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, {shape}, {offset})
y: pl.Tile[{shape}, pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, g)
out = pl.store(y, [0, 0], out)
return out
""")


def _flat(body):
    from tilefold.backend.pto import For, If, While

    for ins in body:
        yield ins
        if isinstance(ins, (For, While)):
            yield from _flat(ins.body)
        elif isinstance(ins, If):
            yield from _flat(ins.then_body)
            yield from _flat(ins.else_body)


def test_text_form_lists_buffers_and_instructions():
    src = _col_expand_src("[0, 64]")
    c = compile(pl.parse(src), skip_passes=("CanonicalizeTileSlice",), codegen="faithful", options=NO_SPLIT)
    text = c.pto.text()
    assert "kernel @kernel (InCore)" in text
    assert "param @x: In tensor[16, 128] fp32" in text
    assert "buffer %t: Vec[0x0] 16x128 fp32 pitch=128 ND" in text
    assert "buffer %hi.buf: Vec[0x100] 16x64 fp32 pitch=64 ND" in text  # the slice's own buffer, inside t
    assert "tsubview %hi, %t[0, 64] 16x64" in text
    assert "textract %hi.buf, %t[0, 64]  ; materialize subview" in text
    assert "tcolexpandmul %y, %hi.buf, %g" in text
    assert "tstore @out[0, 0], %y" in text


def test_zero_copy_subview_keeps_source_pitch_for_ordinary_ops():
    src = kernel_src(
        "x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
        f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(hi, 0.5)
out = pl.store(y, [0, 0], out)
return out
""")
    c = compile(pl.parse(src), options=NO_SPLIT)
    instrs = list(_flat(c.pto.entry_kernel.body))
    assert any(isinstance(i, TSubview) for i in instrs)
    assert not any(isinstance(i, TExtract) for i in instrs)  # aligned, no materialization
    vec = [i for i in instrs if isinstance(i, TVector)]
    assert vec[0].op == "tile.muls" and vec[0].args[0] == "hi"


@pytest.mark.parametrize("offset, shape, params, why", [
    ("[0, 64]", "[16, 64]", "", "not contiguous"),
    ("[r, 0]", "[1, 64]", " r: pl.Scalar[pl.INDEX],", "dynamic"),
])
def test_strict_codegen_refuses_hazardous_materializations(offset, shape, params, why):
    src = _col_expand_src(offset, shape, params)
    if shape == "[1, 64]":
        src = src.replace("pl.Out[pl.Tensor[[16, 64], pl.FP32]]", "pl.Out[pl.Tensor[[1, 64], pl.FP32]]")
        src = src.replace("-> pl.Tensor[[16, 64], pl.FP32]", "-> pl.Tensor[[1, 64], pl.FP32]")
    prog = pl.parse(src)
    with pytest.raises(InternalCheckError) as exc:
        compile(prog, skip_passes=("CanonicalizeTileSlice",), options=NO_SPLIT)
    msg = str(exc.value)
    assert msg.count("internal error") == 1 and why in msg and "CanonicalizeTileSlice" in msg
    # faithful mode emits the unguarded materialization instead
    c = compile(prog, skip_passes=("CanonicalizeTileSlice",), codegen="faithful", options=NO_SPLIT)
    assert any(isinstance(i, TExtract) and i.materialize for i in _flat(c.pto.entry_kernel.body))


def test_strict_codegen_refuses_mat_to_mat_materialization():
    prog = pl.parse_file("examples/evidence/mat_slice_l1_to_l1.py")
    with pytest.raises(InternalCheckError, match="Mat -> Mat"):
        compile(prog, skip_passes=("CanonicalizeTileSlice",))


def test_identity_materialization_is_allowed_in_strict_mode():
    src = _col_expand_src("[3, 0]", "[1, 64]").replace("[16, 128]", "[16, 64]")
    src = src.replace("pl.Out[pl.Tensor[[16, 64], pl.FP32]]", "pl.Out[pl.Tensor[[1, 64], pl.FP32]]")
    src = src.replace("-> pl.Tensor[[16, 64], pl.FP32]", "-> pl.Tensor[[1, 64], pl.FP32]")
    c = compile(pl.parse(src), skip_passes=("CanonicalizeTileSlice",), options=NO_SPLIT)
    mats = [i for i in _flat(c.pto.entry_kernel.body) if isinstance(i, TExtract) and i.materialize]
    assert len(mats) == 1


def test_unknown_codegen_mode():
    with pytest.raises(ValueError, match="codegen mode"):
        compile(pl.parse(_col_expand_src("[0, 0]", "[16, 64]")), codegen="fast")
