"""PTO codegen: text form, lowering choices, and the strict guard on lazy materializations."""

import pytest
from backend_helpers import kernel_src

import tilefold.language as pl
from tilefold.backend import InternalCheckError
from tilefold.backend.pto import TExtract, TSubview, TVector
from tilefold.compiler import compile

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


# --- reshape of a strided window ----------------------------------------------------------------


def _reshape_src(slice_shape: str, offset: str, new_shape: str = "[32, 32]") -> str:
    return kernel_src(
        "x: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
        f"""
t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], {VEC})
lo: pl.Tile[{slice_shape}, pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, {slice_shape}, {offset})
r: pl.Tile[{new_shape}, pl.FP32, pl.Mem.Vec] = pl.tile.reshape(lo, {new_shape})
y: pl.Tile[{new_shape}, pl.FP32, pl.Mem.Vec] = pl.tile.adds(r, 1.0)
out = pl.store(y, [0, 0], out)
return out
""", ret="pl.Tensor[[32, 32], pl.FP32]")


def _memref_of(program, name):
    from tilefold.passes.memory_planning.memref_common import tile_vars

    return next(v.type.memref for v, _ in tile_vars(program.functions[0]) if v.name == name)


@pytest.mark.parametrize("options", [NO_SPLIT, {}])
@pytest.mark.parametrize("codegen", ["strict", "faithful"])
def test_reshape_of_a_strided_window_is_materialized(options, codegen):
    """t[:, 0:64] has rows 128 elements apart: reshaping it to [32, 32] cannot reuse its bytes (it would read
    t's row 0 as the first two rows). The window is copied densely into the reshape's own buffer."""
    from tilefold.testing import run_and_compare

    prog = pl.parse(_reshape_src("[16, 64]", "[0, 0]"))
    rep = run_and_compare(prog, "random", options=options, codegen=codegen)
    assert rep.fault is None and rep.matches, rep.summary()
    c = rep.compiled
    assert _memref_of(c.ir, "r").base != _memref_of(c.ir, "t").base
    copies = [i for i in _flat(c.pto.entry_kernel.body) if isinstance(i, TExtract) and i.src == "lo"]
    assert len(copies) == 1 and not copies[0].materialize


@pytest.mark.parametrize("slice_shape, offset", [("[8, 128]", "[8, 0]"), ("[1, 128]", "[3, 0]")])
def test_reshape_of_a_contiguous_window_stays_a_view(slice_shape, offset):
    from tilefold.testing import run_and_compare

    rows = int(slice_shape.strip("[]").split(",")[0])
    new_shape = f"[{rows * 4}, 32]"
    src = _reshape_src(slice_shape, offset, new_shape)
    src = src.replace("[[32, 32], pl.FP32]", f"[{new_shape}, pl.FP32]")
    prog = pl.parse(src)
    rep = run_and_compare(prog, "random", options=NO_SPLIT)
    assert rep.fault is None and rep.matches, rep.summary()
    assert _memref_of(rep.compiled.ir, "r").base == _memref_of(rep.compiled.ir, "t").base
    assert not any(isinstance(i, TExtract) for i in _flat(rep.compiled.pto.entry_kernel.body))


# --- user copies along a missing data path ------------------------------------------------------

_VEC_TO_MAT = '''
import tilefold.language as pl


@pl.program
class Vec2Mat:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        um: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.move(u, target_memory=pl.Mem.Mat)
        wm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(um, 0, 0, shape=[16, 16], target_memory=pl.Mem.Left)
        b: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, shape=[16, 16], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a, b)
        out = pl.store(c, [0, 0], out)
        return out
'''


@pytest.mark.parametrize("target", ["Ascend910B", "Ascend910C", "Ascend950"])
@pytest.mark.parametrize("codegen", ["strict", "faithful"])
def test_vec_to_mat_move_is_refused_at_compile_time(target, codegen, tmp_path):
    from tilefold.errors import NotSupportedError

    path = tmp_path / "vec2mat.py"
    path.write_text(_VEC_TO_MAT)
    line = next(i for i, text in enumerate(_VEC_TO_MAT.splitlines(), 1) if "pl.tile.move(" in text)
    with pytest.raises(NotSupportedError) as exc:
        compile(pl.parse_file(str(path)), target=target, codegen=codegen)
    err = exc.value
    assert err.span is not None and err.span.line == line and err.span.filename == str(path)
    assert "Vec -> Mat" in err.message and target in err.message
    assert "pl.store" in err.hint and "target_memory=pl.Mem.Mat" in err.hint


def test_supported_user_copies_still_compile():
    src = _VEC_TO_MAT.replace("pl.tile.move(u, target_memory=pl.Mem.Mat)", "pl.tile.move(u, target_memory=pl.Mem.Vec)")
    src = src.replace("um: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat]", "um: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]")
    src = src.replace("a: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(um,",
                      "a: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(wm,")
    compile(pl.parse(src))
