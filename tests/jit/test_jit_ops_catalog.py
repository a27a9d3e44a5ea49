"""The operators of PyPTO's catalog that tilefold.ops.catalog_ops adds, written as a PyPTO user writes them in a
``@pl.jit`` kernel: on tensors (``pl.<op>`` dispatching to ``tensor.<op>``), on tiles inside a scope (``tile.<op>``)
and with a Python number on the right (the ``*s`` form). Each kernel runs through the golden interpreter (the
tensor-level program) and the simulator (the lowered program); both must agree, and the simulated result must
equal a numpy reference written here, independently of the registry's golden semantics."""

from __future__ import annotations

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import TilefoldError
from tilefold.ops import find_op
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(11)
M, N = 32, 64


def f32(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def i32(*shape, lo=-1000, hi=1000):
    return RNG.integers(lo, hi, shape).astype(np.int32)


def kernel_text(params: list[tuple[str, str]], body: list[str], outs: list[tuple[str, str]]) -> str:
    sig = ", ".join([f"{n}: pl.Tensor[{t}]" for n, t in params] + [f"{n}: pl.Out[pl.Tensor[{t}]]" for n, t in outs])
    lines = "\n".join(f"        {b}" for b in body)
    ret = ", ".join(n for n, _ in outs)
    return (f"import tilefold.language as pl\n\n@pl.jit\ndef k({sig}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{lines}\n    return {ret}\n")


def run(params, body, outs, inputs):
    """Golden and simulator of the kernel on ``inputs``; returns the simulated outputs."""
    src = kernel_text(params, body, outs)
    program = pl.parse(src, "<catalog kernel>")
    full = dict(inputs)
    for name, t in outs:
        shape, dtype = _shape_dtype(t)
        full[name] = np.zeros(shape, dtype)
    report = run_and_compare(program, full)
    assert report.fault is None, f"{report.summary()}\n{src}"
    assert report.matches, f"golden != simulator: {report.summary()}\n{src}"
    return report.outputs


def _shape_dtype(t: str):
    shape_text, dtype = t.rsplit(",", 1)
    shape = tuple(int(x) for x in shape_text.strip("[] ").split(","))
    return shape, {"pl.FP32": np.float32, "pl.INT32": np.int32, "pl.FP16": np.float16}[dtype.strip()]


F = f"[{M}, {N}], pl.FP32"
I = f"[{M}, {N}], pl.INT32"

# name -> (dtype text, operand generator (a, b), tensor/tile numpy reference, scalar, scalar numpy reference)
BINARY = {
    "rem": (F, lambda: (f32(M, N), f32(M, N, lo=0.5, hi=3.0)), lambda a, b: a - np.floor(a / b) * b,
            1.5, lambda a, s: a - np.floor(a / s) * s),
    "fmod": (F, lambda: (f32(M, N), f32(M, N, lo=0.5, hi=3.0)), lambda a, b: a - np.trunc(a / b) * b,
             1.5, lambda a, s: a - np.trunc(a / s) * s),
    "and_": (I, lambda: (i32(M, N), i32(M, N)), lambda a, b: a & b, 0x5A, lambda a, s: a & s),
    "or_": (I, lambda: (i32(M, N), i32(M, N)), lambda a, b: a | b, 0x30, lambda a, s: a | s),
    "xor": (I, lambda: (i32(M, N), i32(M, N)), lambda a, b: a ^ b, 0x7F, lambda a, s: a ^ s),
    "shl": (I, lambda: (i32(M, N), i32(M, N, lo=0, hi=8)), lambda a, b: a * (2 ** b), 3, lambda a, s: a * 8),
    "shr": (I, lambda: (i32(M, N), i32(M, N, lo=0, hi=8)), lambda a, b: np.floor_divide(a, 2 ** b), 2,
            lambda a, s: np.floor_divide(a, 4)),
    "cmp": (F, lambda: (f32(M, N), f32(M, N)), lambda a, b: (a > b).astype(np.float32), 0.25,
            lambda a, s: (a > s).astype(np.float32)),
}
SCALAR_NAME = {"rem": "rems", "fmod": "fmods", "and_": "ands", "or_": "ors", "xor": "xors", "shl": "shls",
               "shr": "shrs", "cmp": "cmps"}


def _kw(name):
    return ", cmp_type=4" if name == "cmp" else ""  # 4: GT


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_on_tensors_tiles_and_scalars(name):
    dt, gen, ref, scalar, sref = BINARY[name]
    a, b = gen()
    kw = _kw(name)
    out = run([("a", dt), ("b", dt)], [f"out[:] = pl.{name}(a, b{kw})"], [("out", dt)], {"a": a, "b": b})
    np.testing.assert_allclose(out["out"], ref(a, b), rtol=1e-5, atol=1e-5)
    tile_body = [f"x = pl.load(a, [0, 0], [{M}, {N}])", f"y = pl.load(b, [0, 0], [{M}, {N}])",
                 f"pl.store(pl.{name}(x, y{kw}), [0, 0], out)"]
    out = run([("a", dt), ("b", dt)], tile_body, [("out", dt)], {"a": a, "b": b})
    np.testing.assert_allclose(out["out"], ref(a, b), rtol=1e-5, atol=1e-5)
    out = run([("a", dt)], [f"out[:] = pl.{name}(a, {scalar}{kw})"], [("out", dt)], {"a": a})
    np.testing.assert_allclose(out["out"], sref(a, scalar), rtol=1e-5, atol=1e-5)
    # the explicit tile spelling of the scalar form
    tile_s = [f"x = pl.load(a, [0, 0], [{M}, {N}])", f"pl.store(pl.tile.{SCALAR_NAME[name]}(x, {scalar}{kw}), [0, 0], out)"]
    out = run([("a", dt)], tile_s, [("out", dt)], {"a": a})
    np.testing.assert_allclose(out["out"], sref(a, scalar), rtol=1e-5, atol=1e-5)


UNARY = {
    "sin": (F, lambda: f32(M, N, lo=-3, hi=3), lambda a: np.sin(a.astype(np.float64))),
    "cos": (F, lambda: f32(M, N, lo=-3, hi=3), lambda a: np.cos(a.astype(np.float64))),
    "not_": (I, lambda: i32(M, N), lambda a: -a - 1),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_on_tensors_and_tiles(name):
    dt, gen, ref = UNARY[name]
    a = gen()
    out = run([("a", dt)], [f"out[:] = pl.{name}(a)"], [("out", dt)], {"a": a})
    np.testing.assert_allclose(out["out"], ref(a), rtol=1e-5, atol=1e-5)
    body = [f"x = pl.load(a, [0, 0], [{M}, {N}])", f"pl.store(pl.tile.{name}(x), [0, 0], out)"]
    out = run([("a", dt)], body, [("out", dt)], {"a": a})
    np.testing.assert_allclose(out["out"], ref(a), rtol=1e-5, atol=1e-5)


def test_select_three_input_adds_and_leaky_relus_on_tiles():
    a, b, c = f32(M, N), f32(M, N), f32(M, N)
    load = [f"{v} = pl.load({p}, [0, 0], [{M}, {N}])" for v, p in (("x", "a"), ("y", "b"), ("z", "c"))]
    cases = {
        "pl.tile.sel(pl.cmp(x, y, cmp_type=2), x, y)": np.where(a < b, a, b),
        "pl.tile.sels(pl.tile.cmps(x, 0.0, cmp_type=5), x, -1.0)": np.where(a >= 0, a, -1.0),
        "pl.tile.addc(x, y, z)": a + b + c,
        "pl.tile.subc(x, y, z)": a - b + c,
        "pl.tile.addsc(x, 2.5, z)": a + 2.5 + c,
        "pl.tile.subsc(x, 2.5, z)": a - 2.5 + c,
        "pl.tile.lrelu(x, 0.1)": np.where(a > 0, a, 0.1 * a),
        "pl.tile.prelu(x, y)": np.where(a > 0, a, a * b),
        "pl.maximums(x, 0.5)": np.maximum(a, 0.5),
        "pl.tile.minimums(x, 0.5)": np.minimum(a, 0.5),
    }
    for expr, ref in cases.items():
        out = run([("a", F), ("b", F), ("c", F)], [*load, f"pl.store({expr}, [0, 0], out)"], [("out", F)],
                  {"a": a, "b": b, "c": c})
        np.testing.assert_allclose(out["out"], ref, rtol=1e-5, atol=1e-5, err_msg=expr)


@pytest.mark.parametrize("level", ["tensor", "tile"])
def test_products_and_arg_extrema(level):
    a = f32(M, 16, lo=0.8, hi=1.25)
    a[3, 5] = a[3, 9] = 3.0  # a tie: the first index wins
    row, col = f"[{M}, 1], pl.FP32", "[1, 16], pl.FP32"
    rowi, coli = f"[{M}, 1], pl.INT32", "[1, 16], pl.INT32"
    outs = [("rp", row), ("cp", col), ("rmax", rowi), ("rmin", rowi), ("cmax", coli), ("cmin", coli)]
    ops = ["row_prod", "col_prod", "row_argmax", "row_argmin", "col_argmax", "col_argmin"]
    if level == "tensor":
        body = [f"{o}[:] = pl.{op}(a)" for (o, _), op in zip(outs, ops, strict=True)]
    else:
        body = [f"x = pl.load(a, [0, 0], [{M}, 16])"] + [
            f"pl.store(pl.{op}(x), [0, 0], {o})" for (o, _), op in zip(outs, ops, strict=True)]
    got = run([("a", f"[{M}, 16], pl.FP32")], body, outs, {"a": a})
    np.testing.assert_allclose(got["rp"][:, 0], [np.prod(r.astype(np.float64)) for r in a], rtol=1e-5)
    np.testing.assert_allclose(got["cp"][0], [np.prod(c.astype(np.float64)) for c in a.T], rtol=1e-5)
    assert got["rmax"][3, 0] == 5
    np.testing.assert_array_equal(got["rmax"][:, 0], [max(range(16), key=lambda j, r=r: (r[j], -j)) for r in a])
    np.testing.assert_array_equal(got["rmin"][:, 0], [min(range(16), key=lambda j, r=r: (r[j], j)) for r in a])
    np.testing.assert_array_equal(got["cmax"][0], [max(range(M), key=lambda i, c=c: (c[i], -i)) for c in a.T])
    np.testing.assert_array_equal(got["cmin"][0], [min(range(M), key=lambda i, c=c: (c[i], i)) for c in a.T])


@pytest.mark.parametrize("level", ["tensor", "tile"])
def test_broadcast_forms(level):
    a, rv, cv = f32(M, N), f32(M, 1), f32(1, N)
    params = [("a", F), ("rv", f"[{M}, 1], pl.FP32"), ("cv", f"[1, {N}], pl.FP32")]
    cases = {
        "row_expand": np.broadcast_to(rv, (M, N)), "col_expand": np.broadcast_to(cv, (M, N)),
        "row_expand_max": np.maximum(a, rv), "row_expand_min": np.minimum(a, rv),
        "col_expand_max": np.maximum(a, cv), "col_expand_min": np.minimum(a, cv),
        "row_expand_expdif": np.exp(a - rv), "col_expand_expdif": np.exp(a - cv),
    }
    outs = [(f"o_{n}", F) for n in cases]
    if level == "tensor":
        body = [f"o_{n}[:] = pl.{n}(a, {'rv' if n.startswith('row') else 'cv'})" for n in cases]
    else:
        body = [f"x = pl.load(a, [0, 0], [{M}, {N}])", f"r = pl.load(rv, [0, 0], [{M}, 1])",
                f"c = pl.load(cv, [0, 0], [1, {N}])"]
        body += [f"pl.store(pl.{n}(x, {'r' if n.startswith('row') else 'c'}), [0, 0], o_{n})" for n in cases]
    got = run(params, body, outs, {"a": a, "rv": rv, "cv": cv})
    for n, ref in cases.items():
        np.testing.assert_allclose(got[f"o_{n}"], ref, rtol=1e-5, atol=1e-6, err_msg=n)


def test_expands_fills_the_targets_shape():
    a = f32(M, N)
    got = run([("a", F)], ["out[:] = pl.add(a, pl.expands(a, 1.5))"], [("out", F)], {"a": a})
    np.testing.assert_allclose(got["out"], a + 1.5, rtol=1e-6)
    # on a fresh (never written) tile: expands reads only its shape
    body = [f"t = pl.create_tile([{M}, {N}], dtype=pl.FP32)", "pl.store(pl.tile.expands(t, -3.0), [0, 0], out)"]
    got = run([("a", F)], body, [("out", F)], {"a": a})
    assert (got["out"] == -3.0).all()


@pytest.mark.parametrize("name,fn", [("part_add", np.add), ("part_mul", np.multiply), ("part_max", np.maximum),
                                     ("part_min", np.minimum)])
@pytest.mark.parametrize("level", ["tensor", "tile"])
def test_partial_arithmetic_on_nested_shapes(name, fn, level):
    a, s = f32(M, N), f32(16, 32)
    params = [("a", F), ("s", "[16, 32], pl.FP32")]
    if level == "tensor":
        body = [f"out[:] = pl.{name}(s, a)"]
    else:
        body = [f"x = pl.load(a, [0, 0], [{M}, {N}])", "y = pl.load(s, [0, 0], [16, 32])",
                f"pl.store(pl.{name}(x, y), [0, 0], out)"]
    got = run(params, body, [("out", F)], {"a": a, "s": s})
    ref = a.copy()
    ref[:16, :32] = fn(a[:16, :32], s)
    np.testing.assert_allclose(got["out"], ref, rtol=1e-6)


def test_pypto_spellings_resolve_to_one_registry_op():
    assert find_op("tile.and_").pto == "tand"
    assert find_op("tile.maximums") is find_op("tile.maxs")
    assert find_op("tensor.minimums") is find_op("tensor.mins")
    program = pl.parse(kernel_text([("a", I)], ["out[:] = pl.not_(a)"], [("out", I)]), "<spelling>")
    text = program.as_python()
    assert "pl.tensor.not_(a)" in text
    assert pl.parse(text).as_python() == text  # the printed text parses again


@pytest.mark.parametrize("body,message", [
    ("out[:] = pl.and_(a, a)", "bitwise ops need an integer dtype"),
    ("out[:] = pl.shls(a, 2)", "bitwise ops need an integer dtype"),
    ("out[:] = pl.cmp(a, a, cmp_type=9)", "is not a comparison"),
    ("out[:] = pl.part_add(a, pl.slice(a, [16, 80], [0, 0]))", "outside"),
])
def test_operand_errors_name_the_rule(body, message):
    with pytest.raises(TilefoldError, match=message):
        pl.parse(kernel_text([("a", F)], [body], [("out", F)]), "<bad>")


def test_part_operands_must_nest():
    text = kernel_text([("a", F), ("b", "[64, 32], pl.FP32")], ["out[:] = pl.part_add(a, b)"], [("out", F)])
    with pytest.raises(TilefoldError, match="not nested"):
        pl.parse(text, "<bad>")


# the pipe set-up ops are modelled since issue 19 (tests/cross_core/test_ring_setup.py); misused on a tensor they
# are located errors naming the op
@pytest.mark.parametrize("call, message", [
    ("pl.import_peer_buffer(a)", "missing required argument 'peer_func'"),
    ("pl.tensor.import_peer_buffer(a)", "unknown op pl.tensor.import_peer_buffer"),
    ("pl.reserve_buffer(a)", "missing required argument 'size'"),
])
def test_pipe_set_up_ops_misused_on_a_tensor_are_located_errors(call, message):
    with pytest.raises(TilefoldError) as info:
        pl.parse(kernel_text([("a", F)], [f"out[:] = {call}"], [("out", F)]), "<misused>")
    assert message in info.value.message and info.value.span is not None


def test_high_precision_option_and_scratch_tile_of_sqrt_rsqrt_recip():
    a = f32(M, N, lo=0.5, hi=4.0)
    body = ["r = pl.rsqrt(a, high_precision=True)", "out[:] = pl.add(pl.recip(r, high_precision=True), "
            "pl.sqrt(a, high_precision=False))"]
    got = run([("a", F)], body, [("out", F)], {"a": a})
    np.testing.assert_allclose(got["out"], 2 * np.sqrt(a.astype(np.float64)), rtol=1e-5)
    tile = [f"x = pl.load(a, [0, 0], [{M}, {N}])", f"tmp = pl.create_tile([{M}, {N}], dtype=pl.FP32)",
            "pl.store(pl.tile.rsqrt(x, tmp), [0, 0], out)"]
    got = run([("a", F)], tile, [("out", F)], {"a": a})
    np.testing.assert_allclose(got["out"], 1 / np.sqrt(a.astype(np.float64)), rtol=1e-5)
    bad = [f"x = pl.load(a, [0, 0], [{M}, {N}])", "pl.store(pl.rsqrt(x, high_precision=True), [0, 0], out)"]
    with pytest.raises(TilefoldError, match="high_precision= is tensor-only"):
        pl.parse(kernel_text([("a", F)], bad, [("out", F)]), "<bad>")


def test_catalog_ops_on_tensors_larger_than_vec_are_tiled_into_row_blocks():
    big = "[1024, 128], pl.FP32"
    a = f32(1024, 128)
    body = ["out[:] = pl.cmps(pl.rems(a, 0.75), 0.25, cmp_type=3)", "idx[:] = pl.row_argmin(pl.sin(a))"]
    src = kernel_text([("a", big)], body, [("out", big), ("idx", "[1024, 1], pl.INT32")])
    program = pl.parse(src, "<big>")
    report = run_and_compare(program, {"a": a, "out": np.zeros((1024, 128), np.float32),
                                       "idx": np.zeros((1024, 1), np.int32)})
    assert report.result == "correct", report.summary()
    assert "for row_block" in report.compiled.ir.as_python()  # 512 KiB per tensor: a loop over row blocks
    np.testing.assert_array_equal(report.outputs["out"], ((a - np.floor(a / 0.75) * 0.75) <= 0.25).astype(np.float32))
    np.testing.assert_array_equal(report.outputs["idx"][:, 0], np.sin(a.astype(np.float64)).argmin(axis=1))
