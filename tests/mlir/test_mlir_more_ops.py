"""The HIVM ops of ``tilefold.mlir.lower_ops``: vconcat, vpad, vcumsum / vcumprod, vsort, atomic stores,
load_scalar, and the cube ops of an AIC function (nd2nz, mmadL1, fixpipe). Each kernel is simulated with
TileAndBindSubBlock on and off and compared with numpy written here from HIVMDialect.md's descriptions; what the
references leave undescribed is refused with a located error."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold.errors import TilefoldError  # noqa: E402
from tilefold.mlir import load_program  # noqa: E402
from tilefold.mlir.opt import parse_args, run_chunk, split_chunks  # noqa: E402
from tilefold.testing import run_and_compare  # noqa: E402

OFF = {"enable_auto_bind_sub_block": False}
AIV = "attributes {hivm.func_core_type = #hivm.func_core_type<AIV>}"
AIC = "attributes {hivm.func_core_type = #hivm.func_core_type<AIC>, hivm.part_of_mix}"
TOL = {np.float32: 1e-5, np.float16: 2e-3, np.int32: 0}


def _check(got: np.ndarray, want: np.ndarray) -> None:
    tol = TOL[want.dtype.type]
    if tol == 0:
        np.testing.assert_array_equal(got, want)
    else:  # element by element, relative to the dtype's precision (and the magnitude of the data)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                                   atol=tol * max(1.0, float(np.abs(want).max())))


def _run(text: str, tmp_path, name: str, inputs: dict, want: dict) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    program = load_program(str(path), name)
    for options in ({}, OFF):
        report = run_and_compare(program, {k: np.array(v, copy=True) for k, v in inputs.items()}, options=options)
        assert report.fault is None and report.matches, report.summary()
        for k, v in want.items():
            _check(np.asarray(report.outputs[k]), v)


def _remarks(text: str, tmp_path, extra: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    args = parse_args([str(path), "-hivm-bind-sub-block", *extra])
    remarks: list[str] = []
    out = run_chunk(split_chunks(text, False)[0], args, remarks)
    return out, remarks


def _load(name: str, shape: str, dt: str) -> str:
    return (f"  %u{name} = memref.alloc() : memref<{shape}x{dt}>\n"
            f"  hivm.hir.load ins(%{name} : memref<{shape}x{dt}>) outs(%u{name} : memref<{shape}x{dt}>)\n"
            f"  %t{name} = bufferization.to_tensor %u{name} restrict writable : memref<{shape}x{dt}>\n")


# ---------------------------------------------------------------------------------------------- vconcat
CONCAT = """func.func @cat(%a: memref<{sa}xf32>, %b: memref<{sb}xf32>, %c: memref<{sc}xf32>, %out: memref<{so}xf32>) {aiv} {{
{la}{lb}{lc}  %e = tensor.empty() : tensor<{so}xf32>
  %r = hivm.hir.vconcat dim({dim}) ins(%ta, %tb, %tc : tensor<{sa}xf32>, tensor<{sb}xf32>, tensor<{sc}xf32>) outs(%e : tensor<{so}xf32>) -> tensor<{so}xf32>
  hivm.hir.store ins(%r : tensor<{so}xf32>) outs(%out : memref<{so}xf32>)
  return
}}
"""


@pytest.mark.parametrize("shapes,dim", [(((8, 64), (16, 64), (8, 64)), 0), (((16, 32), (16, 64), (16, 32)), 1),
                                         (((32,), (64,), (32,)), 0)])
def test_vconcat_matches_numpy_on_and_off(shapes, dim, tmp_path):
    rng = np.random.default_rng(len(shapes[0]) + dim)
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    want = np.concatenate(xs, axis=dim)
    sx = ["x".join(map(str, s)) for s in (*shapes, want.shape)]
    text = CONCAT.format(sa=sx[0], sb=sx[1], sc=sx[2], so=sx[3], dim=dim, aiv=AIV, la=_load("a", sx[0], "f32"),
                         lb=_load("b", sx[1], "f32"), lc=_load("c", sx[2], "f32"))
    to_tile = (lambda v: v.reshape(1, -1)) if len(shapes[0]) == 1 else (lambda v: v)
    _run(text, tmp_path, "cat", {"a": to_tile(xs[0]), "b": to_tile(xs[1]), "c": to_tile(xs[2]),
                                 "out": to_tile(np.zeros_like(want))}, {"out": to_tile(want)})


# ---------------------------------------------------------------------------------------------- vpad
PAD = """func.func @pad(%a: memref<8x32xf32>, %out: memref<{so}xf32>, %v: f32) {aiv} {{
{la}  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<{so}xf32>
  %r = hivm.hir.vpad ins(%ta : tensor<8x32xf32>) outs(%e : tensor<{so}xf32>) low[{lo}] high[{hi}] pad_value {pv} : f32 -> tensor<{so}xf32>
  hivm.hir.store ins(%r : tensor<{so}xf32>) outs(%out : memref<{so}xf32>)
  return
}}
"""


@pytest.mark.parametrize("lo,hi,pv", [((1, 0), (3, 0), "%v"), ((0, 16), (0, 16), "%v"), ((2, 8), (2, 24), "%v")])
def test_vpad_matches_numpy_on_and_off(lo, hi, pv, tmp_path):
    x = np.random.default_rng(7).standard_normal((8, 32)).astype(np.float32)
    want = np.pad(x, ((lo[0], hi[0]), (lo[1], hi[1])), constant_values=-2.5)
    so = "x".join(map(str, want.shape))
    text = PAD.format(so=so, aiv=AIV, la=_load("a", "8x32", "f32"), lo=f"{lo[0]}, {lo[1]}",
                      hi=f"%c2, {hi[1]}" if hi[0] == 2 else f"{hi[0]}, {hi[1]}", pv=pv)
    _run(text, tmp_path, "pad", {"a": x, "out": np.zeros(want.shape, np.float32), "v": -2.5}, {"out": want})


# ---------------------------------------------------------------------------------------------- scans / sort
SCAN = """func.func @scan(%a: memref<16x64x{dt}>, %out: memref<16x64x{dt}>) {aiv} {{
{la}  %e = tensor.empty() : tensor<16x64x{dt}>
  %r = hivm.hir.{op} ins(%ta : tensor<16x64x{dt}>) outs(%e : tensor<16x64x{dt}>) {attrs} -> tensor<16x64x{dt}>
  hivm.hir.store ins(%r : tensor<16x64x{dt}>) outs(%out : memref<16x64x{dt}>)
  return
}}
"""


def _np_scan(x: np.ndarray, axis: int, reverse: bool, product: bool) -> np.ndarray:
    """Prefix sums / products by an explicit loop along ``axis`` (in float64, rounded once to the dtype)."""
    x64 = np.moveaxis(x.astype(np.float64), axis, -1)
    out = np.empty_like(x64)
    order = range(x64.shape[-1] - 1, -1, -1) if reverse else range(x64.shape[-1])
    acc = np.ones(x64.shape[:-1]) if product else np.zeros(x64.shape[:-1])
    for k in order:
        acc = acc * x64[..., k] if product else acc + x64[..., k]
        out[..., k] = acc
    return np.moveaxis(out, -1, axis).astype(x.dtype)


@pytest.mark.parametrize("op,axis,reverse,dt", [("vcumsum", 1, False, "f32"), ("vcumsum", 0, True, "f32"),
                                                ("vcumsum", 1, True, "i32"), ("vcumprod", 1, False, "f32"),
                                                ("vcumsum", 1, False, "f16")])
def test_scans_match_numpy_on_and_off(op, axis, reverse, dt, tmp_path):
    np_dt = {"f32": np.float32, "f16": np.float16, "i32": np.int32}[dt]
    rng = np.random.default_rng(axis * 3 + reverse)
    if op == "vcumprod":
        x = rng.uniform(0.9, 1.1, (16, 64)).astype(np_dt)  # products stay near 1
    elif dt == "i32":
        x = rng.integers(-20, 20, (16, 64)).astype(np_dt)
    else:
        x = rng.uniform(-1, 1, (16, 64)).astype(np_dt)
    attrs = f"cum_dims = [{axis}] reverse = {'true' if reverse else 'false'}"
    text = SCAN.format(dt=dt, aiv=AIV, la=_load("a", "16x64", dt), op=op, attrs=attrs)
    _run(text, tmp_path, "scan", {"a": x, "out": np.zeros_like(x)},
         {"out": _np_scan(x, axis, reverse, op == "vcumprod")})


@pytest.mark.parametrize("descending", [True, False])
def test_vsort_values_match_numpy_on_and_off(descending, tmp_path):
    x = np.random.default_rng(11).standard_normal((16, 64)).astype(np.float32)
    x[3, 5] = x[3, 9]  # a tie: equal values, whichever comes first
    want = np.array([sorted(row, reverse=descending) for row in x.tolist()], np.float32)
    attrs = f"descending = {'true' if descending else 'false'} sort_axis = 1"
    text = SCAN.format(dt="f32", aiv=AIV, la=_load("a", "16x64", "f32"), op="vsort", attrs=attrs)
    _run(text, tmp_path, "scan", {"a": x, "out": np.zeros_like(x)}, {"out": want})


def test_scans_split_across_their_lines_only(tmp_path):
    attrs = "cum_dims = [1] reverse = false"
    _, remarks = _remarks(SCAN.format(dt="f32", aiv=AIV, la=_load("a", "16x64", "f32"), op="vcumsum", attrs=attrs),
                          tmp_path, ("--remarks",))
    assert any("split on axis 0" in r for r in remarks), remarks


# ---------------------------------------------------------------------------------------------- atomics
ATOMIC = """func.func @acc(%a: memref<16x64xf32>, %out: memref<16x64xf32>) {aiv} {{
{la}  {store}
  return
}}
"""


@pytest.mark.parametrize("store", [
    "hivm.hir.store ins(%ua : memref<16x64xf32>) outs(%out : memref<16x64xf32>) atomic = <add>",
    "hivm.hir.atomic_rmw ins(%ua : memref<16x64xf32>) outs(%out : memref<16x64xf32>) atomic_kind = <add>"])
def test_atomic_add_stores_add_into_gm_on_and_off(store, tmp_path):
    rng = np.random.default_rng(5)
    x, old = (rng.standard_normal((16, 64)).astype(np.float32) for _ in range(2))
    _run(ATOMIC.format(aiv=AIV, la=_load("a", "16x64", "f32"), store=store), tmp_path, "acc",
         {"a": x, "out": old}, {"out": old + x})  # not x: the store adds into what GM holds


# ---------------------------------------------------------------------------------------------- load_scalar
SCALAR = """func.func @scale(%a: memref<16x64xf32>, %s: memref<1xf32>, %out: memref<16x64xf32>) {aiv} {{
{la}  %v = hivm.hir.load_scalar %s : memref<1xf32> -> f32
  %e = tensor.empty() : tensor<16x64xf32>
  %r = hivm.hir.vmul ins(%ta, %v : tensor<16x64xf32>, f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  hivm.hir.store ins(%r : tensor<16x64xf32>) outs(%out : memref<16x64xf32>)
  return
}}
"""


def test_load_scalar_reads_the_one_gm_element_on_and_off(tmp_path):
    x = np.random.default_rng(2).standard_normal((16, 64)).astype(np.float32)
    s = np.array([[1.75]], np.float32)
    _run(SCALAR.format(aiv=AIV, la=_load("a", "16x64", "f32")), tmp_path, "scale",
         {"a": x, "s": s, "out": np.zeros_like(x)}, {"out": x * np.float32(1.75)})


# ---------------------------------------------------------------------------------------------- cube (AIC)
MMAD = """func.func @mm(%x: memref<32x128xf16, #hivm.address_space<gm>>, %w: memref<128x32xf16, #hivm.address_space<gm>>, %out: memref<32x32xf32, #hivm.address_space<gm>>) {aic} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %ck = arith.constant {steps} : index
  %c = memref.alloc() : memref<32x32xf32, #hivm.address_space<cc>>
  scf.for %k = %c0 to %ck step %c1 {{
    %off = arith.muli %k, %c64 : index
    %xs = memref.subview %x[0, %off] [32, 64] [1, 1] : memref<32x128xf16, #hivm.address_space<gm>> to memref<32x64xf16, strided<[128, 1], offset: ?>, #hivm.address_space<gm>>
    %ws = memref.subview %w[%off, 0] [64, 32] [1, 1] : memref<128x32xf16, #hivm.address_space<gm>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #hivm.address_space<gm>>
    %a = memref.alloc() : memref<32x64xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz ins(%xs : memref<32x64xf16, strided<[128, 1], offset: ?>, #hivm.address_space<gm>>) outs(%a : memref<32x64xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
    %b = memref.alloc() : memref<64x32xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz ins(%ws : memref<64x32xf16, strided<[32, 1], offset: ?>, #hivm.address_space<gm>>) outs(%b : memref<64x32xf16, #hivm.address_space<cbuf>>)
    %init = arith.cmpi eq, %k, %c0 : index
    hivm.hir.mmadL1 ins(%a, %b, %init, %c32, %c64, %c32 : memref<32x64xf16, #hivm.address_space<cbuf>>, memref<64x32xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<32x32xf32, #hivm.address_space<cc>>)
  }}
  hivm.hir.fixpipe {{enable_nz2nd}} ins(%c : memref<32x32xf32, #hivm.address_space<cc>>) outs(%out : memref<32x32xf32, #hivm.address_space<gm>>)
  return
}}
"""


@pytest.mark.parametrize("steps", [1, 2])
def test_aic_mmad_loop_matches_numpy(steps, tmp_path):
    rng = np.random.default_rng(steps)
    x, w = rng.integers(-3, 4, (32, 128)).astype(np.float16), rng.integers(-3, 4, (128, 32)).astype(np.float16)
    k = 64 * steps  # init on the first step, accumulate on the others: the product over the first k columns
    want = x[:, :k].astype(np.float32) @ w[:k].astype(np.float32)  # small integers: exact in any order
    _run(MMAD.format(aic=AIC, steps=steps), tmp_path, "mm",
         {"x": x, "w": w, "out": np.full((32, 32), 99.0, np.float32)}, {"out": want})


def test_aic_function_is_lowered_and_left_as_it_is_by_the_pass(tmp_path):
    text = MMAD.format(aic=AIC, steps=2)
    out, remarks = _remarks(text, tmp_path, ("--remarks",))
    assert any("AIC function lowered" in r for r in remarks), remarks
    assert "tiled_op" not in out and "limit_sub_block_id0" not in out and "hivm.hir.mmadL1" in out


# ---------------------------------------------------------------------------------------------- refusals
REFUSED = [
    ("hivm.hir.store ins(%ua : memref<16x64xf32>) outs(%out : memref<16x64xf32>) atomic = <max>", AIV,
     "atomic max store is not lowered"),
    ("hivm.hir.atomic_xchg ins(%ua : memref<16x64xf32>) outs(%out : memref<16x64xf32>)", AIV,
     "returns the old ones atomically"),
    ("%e = tensor.empty() : tensor<16x64xf32>\n  %i = tensor.empty() : tensor<16x64xi32>\n"
     "  %r:2 = hivm.hir.vsort ins(%ta : tensor<16x64xf32>) outs(%e, %i : tensor<16x64xf32>, tensor<16x64xi32>) "
     "descending = true sort_axis = 1 -> tensor<16x64xf32>, tensor<16x64xi32>", AIV, "which index equal values"),
    ("%v = hivm.hir.load_scalar %out : memref<16x64xf32> -> f32", AIV, "one-element GM memref only"),
    ("%e = tensor.empty() : tensor<16x64xf32>\n  %r = hivm.hir.vcumsum ins(%ta : tensor<16x64xf32>) outs(%e : "
     "tensor<16x64xf32>) cum_dims = [0, 1] reverse = false -> tensor<16x64xf32>", AIV, "several dims"),
    ("%l1 = memref.alloc() : memref<4x2x16x16xf32, #hivm.address_space<cbuf>>", AIC, "fractal (NZ) layout"),
    ("%c = memref.alloc() : memref<16x64xf32, #hivm.address_space<cc>>\n  hivm.hir.fixpipe ins(%c : memref<16x64xf32, "
     "#hivm.address_space<cc>>) outs(%ua : memref<16x64xf32>)", AIC, "vector core"),
    ("%c = memref.alloc() : memref<16x64xf32, #hivm.address_space<cc>>\n  hivm.hir.fixpipe ins(%c : memref<16x64xf32, "
     "#hivm.address_space<cc>>) outs(%out : memref<16x64xf32>)", AIC, "without enable_nz2nd"),
    ("%l1 = memref.alloc() : memref<16x64xf32, #hivm.address_space<cbuf>>\n  hivm.hir.load ins(%a : memref<16x64xf32>) "
     "outs(%l1 : memref<16x64xf32, #hivm.address_space<cbuf>>)", AIC, "unified buffer only"),
    ("%l1 = memref.alloc() : memref<16x64xf32, #hivm.address_space<cbuf>>\n  hivm.hir.nd2nz ins(%a : memref<16x64xf32>) "
     "outs(%l1 : memref<16x64xf32, #hivm.address_space<cbuf>>)", AIV, "is a cube op"),
    ("%c = memref.alloc() : memref<16x64xf32, #hivm.address_space<cc>>\n  hivm.hir.fixpipe ins(%c : memref<16x64xf32, "
     "#hivm.address_space<cc>>) outs(%out, %out : memref<16x64xf32>, memref<16x64xf32>)", AIC, "dual destination"),
    ("%c = memref.alloc() : memref<16x64xf32, #hivm.address_space<cc>>\n  hivm.hir.fixpipe {pre_relu = "
     "#hivm.fixpipe_pre_relu<NORMAL_RELU>} ins(%c : memref<16x64xf32, #hivm.address_space<cc>>) outs(%out : "
     "memref<16x64xf32>)", AIC, "pre_relu"),
]


@pytest.mark.parametrize("body,kind,why", REFUSED)
def test_undescribed_semantics_are_located_refusals(body, kind, why, tmp_path):
    text = ATOMIC.format(aiv=kind, la=_load("a", "16x64", "f32"), store=body)
    path = tmp_path / "acc.mlir"
    path.write_text(text)
    with pytest.raises(TilefoldError) as exc:
        load_program(str(path), "acc")
    assert why in exc.value.message, exc.value.message
    # the refused op: the body's last hivm op (or its only line), after the three lines that load %a
    target = [t for t in body.split("\n") if "hivm.hir" in t or "4x2x16" in t][-1].strip()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.strip() == target and i > 4)
    assert exc.value.span is not None and exc.value.span.line == line


def test_an_unknown_func_core_type_is_a_located_parse_error(tmp_path):
    text = "func.func @k() attributes {hivm.func_core_type = #hivm.func_core_type<AVI>} {\n  return\n}\n"
    path = tmp_path / "k.mlir"
    path.write_text(text)
    with pytest.raises(TilefoldError) as exc:
        load_program(str(path))
    err = exc.value
    assert "AVI" in err.message and "AIC, AIV, MIX, AIC_OR_AIV" in err.message
    assert err.span.line == 1 and err.span.column == text.index("#hivm.func_core_type") + 1


TWO_USES = """func.func @two_uses(%a: memref<16x64xf32>, %out: memref<16x64xf32>, %acc: memref<16x64xf32>) {aiv} {{
{la}  %e = tensor.empty() : tensor<16x64xf32>
  %cs = hivm.hir.vcumsum ins(%ta : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) cum_dims = [1] reverse = false -> tensor<16x64xf32>
  hivm.hir.store ins(%cs : tensor<16x64xf32>) outs(%out : memref<16x64xf32>)
  hivm.hir.store ins(%ta : tensor<16x64xf32>) outs(%acc : memref<16x64xf32>)
  return
}}
"""


def test_a_scan_and_its_source_both_stored_split_together(tmp_path):
    """The dimension analysis joins a scan's axes with its source's: the two stores agree on the row split (before,
    the scan's result was a class of its own and the source was demanded whole and halved: rolled back)."""
    text = TWO_USES.format(aiv=AIV, la=_load("a", "16x64", "f32"))
    _, remarks = _remarks(text, tmp_path, ("--remarks",))
    assert any("split on axis 0" in r for r in remarks), remarks
    x = np.random.default_rng(9).uniform(-1, 1, (16, 64)).astype(np.float32)
    _run(text, tmp_path, "two_uses", {"a": x, "out": np.zeros_like(x), "acc": np.zeros_like(x)},
         {"out": _np_scan(x, 1, False, False), "acc": x})
