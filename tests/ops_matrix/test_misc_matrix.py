"""The rest of the vector catalog x every dtype: three-input adds, select, leaky / parametric relu, expands,
creation (full, ci, tri), layout (transpose, concat, assemble, slice, reshape, reinterpret_view), padding
(fillpad, fillpad_expand, expand_clone) and partial arithmetic (part_*) on operands with valid shapes."""

from __future__ import annotations

import numpy as np
import pytest
from matrix_support import (
    ALL,
    EXACT,
    FLOATS,
    INTS,
    NP,
    as_ints,
    check,
    int_bounds,
    is_float,
    load_lines,
    rng,
    round_to,
    to_f64,
    tol_for,
    values,
    wrap,
)

SHAPE = (16, 64)


def _arith(dt, fn_f, fn_i, *xs):
    if is_float(dt):
        return round_to(fn_f(*(to_f64(x) if isinstance(x, np.ndarray) else x for x in xs)), dt)
    return wrap(fn_i(*(as_ints(x) if isinstance(x, np.ndarray) else x for x in xs)), dt)


THREE = {
    "addc": (lambda a, b, c: a + b + c, "pl.tile.addc(t_a, t_b, t_c)"),
    "subc": (lambda a, b, c: a - b + c, "pl.tile.subc(t_a, t_b, t_c)"),
}


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("op", ["addc", "subc", "addsc", "subsc"])
def test_three_input_adds(op, dt):
    """src0 + src1 + src2, src0 - src1 + src2, src0 + s + src1, src0 - s + src1: one rounding of the exact value
    for floats (the ISA's fused form), a wrap for integers."""
    g = rng("three", op, dt)
    a, b, c = (values(g, SHAPE, dt) for _ in range(3))
    s = 1.5 if is_float(dt) else 100
    params = [("a", SHAPE, dt), ("b", SHAPE, dt), ("c", SHAPE, dt)]
    if op in THREE:
        fn, call = THREE[op]
        want = _arith(dt, fn, fn, a, b, c)
    else:
        sign = 1 if op == "addsc" else -1
        want = _arith(dt, lambda x, y: x + sign * s + y, lambda x, y: x + sign * s + y, a, c)
        call = f"pl.tile.{op}(t_a, {s}, t_c)"
    # floats: two FP32 roundings are allowed before the one into the dtype
    check(params, load_lines(params) + [f"pl.store({call}, [0, 0], out)"], [("out", SHAPE, dt)],
          {"a": a, "b": b, "c": c}, {"out": want}, {"out": tol_for(dt, scale=8.0)})


@pytest.mark.parametrize("dt", ALL)
def test_sel_and_sels(dt):
    g = rng("sel", dt)
    a, b = values(g, SHAPE, dt), values(g, SHAPE, dt)
    s = -2.5 if is_float(dt) else 9
    lt = to_f64(a) < to_f64(b)
    params = [("a", SHAPE, dt), ("b", SHAPE, dt)]
    body = load_lines(params) + ["m = pl.tile.cmp(t_a, t_b, cmp_type=2)",
                                 "pl.store(pl.tile.sel(m, t_a, t_b), [0, 0], o_sel)",
                                 f"pl.store(pl.tile.sels(m, t_a, {s}), [0, 0], o_sels)"]
    want = {"o_sel": np.where(lt, a, b).astype(NP[dt]),
            "o_sels": np.where(lt, a, np.array(s).astype(NP[dt])).astype(NP[dt])}
    check(params, body, [("o_sel", SHAPE, dt), ("o_sels", SHAPE, dt)], {"a": a, "b": b}, want,
          dict.fromkeys(want, EXACT))


@pytest.mark.parametrize("dt", FLOATS)
def test_leaky_and_parametric_relu(dt):
    g = rng("relu", dt)
    a, slope = values(g, SHAPE, dt), values(g, SHAPE, dt, 0.0, 0.5)
    params = [("a", SHAPE, dt), ("slope", SHAPE, dt)]
    body = load_lines(params) + ["pl.store(pl.tile.lrelu(t_a, 0.125), [0, 0], o_l)",
                                 "pl.store(pl.tile.prelu(t_a, t_slope), [0, 0], o_p)"]
    x, sl = to_f64(a), to_f64(slope)
    want = {"o_l": round_to(np.where(x > 0, x, 0.125 * x), dt), "o_p": round_to(np.where(x > 0, x, x * sl), dt)}
    check(params, body, [("o_l", SHAPE, dt), ("o_p", SHAPE, dt)], {"a": a, "slope": slope}, want,
          dict.fromkeys(want, tol_for(dt)))


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("level", ["tile", "tensor"])
def test_expands_and_full(dt, level):
    """expands fills the target's shape with the scalar (rounded once into the dtype); full makes a filled tile."""
    value = 0.1 if is_float(dt) else (200 if dt == "UINT8" else -7)
    a = values(rng("expands", dt), SHAPE, dt)
    if level == "tile":
        body = ["t = pl.load(a, [0, 0], [16, 64])", f"pl.store(pl.tile.expands(t, {value}), [0, 0], o_e)",
                f"pl.store(pl.tile.full([16, 64], dtype=pl.{dt}, value={value}), [0, 0], o_f)"]
    else:
        body = [f"o_e[:] = pl.expands(a, {value})", f"o_f[:] = pl.full([16, 64], dtype=pl.{dt}, value={value})"]
    fill = round_to(np.full(SHAPE, value, np.float64), dt) if is_float(dt) else np.full(SHAPE, value, NP[dt])
    check([("a", SHAPE, dt)], body, [("o_e", SHAPE, dt), ("o_f", SHAPE, dt)], {"a": a}, {"o_e": fill, "o_f": fill},
          {"o_e": EXACT, "o_f": EXACT})


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("descending", [False, True])
def test_ci_counts_and_wraps(dt, descending):
    """ci: element k (row-major) is start + k (start - k descending), wrapped into the dtype."""
    lo, hi = int_bounds(dt)
    start = hi - 40 if not descending else lo + 40
    step = -1 if descending else 1
    want = wrap(np.array([start + step * k for k in range(2 * 64)], dtype=object).reshape(2, 64), dt)
    body = [f"pl.store(pl.tile.ci({start}, shape=[2, 64], dtype=pl.{dt}, descending={descending}), [0, 0], out)"]
    check([("a", (2, 64), dt)], body, [("out", (2, 64), dt)], {"a": np.zeros((2, 64), NP[dt])}, {"out": want},
          {"out": EXACT})


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("upper,diagonal", [(False, 0), (True, 0), (False, -3), (True, 5)])
def test_tri(dt, upper, diagonal):
    r, c = 16, 32
    i, j = np.arange(r)[:, None], np.arange(c)[None, :]
    want = ((j - i >= diagonal) if upper else (j - i <= diagonal)).astype(NP[dt])
    check([("a", (r, c), dt)], [f"out[:] = pl.tri([{r}, {c}], pl.{dt}, upper={upper}, diagonal={diagonal})"],
          [("out", (r, c), dt)], {"a": np.zeros((r, c), NP[dt])}, {"out": want}, {"out": EXACT})


@pytest.mark.parametrize("dt", ALL)
def test_layout_ops(dt):
    """transpose, concat (along columns), assemble, slice, reshape: pure data movement, exact in every dtype."""
    g = rng("layout", dt)
    a, b = values(g, (16, 32), dt), values(g, (16, 32), dt)
    params = [("a", (16, 32), dt), ("b", (16, 32), dt)]
    body = load_lines(params) + [
        "pl.store(pl.tile.transpose(t_a, 0, 1), [0, 0], o_t)",
        "pl.store(pl.tile.concat(t_a, t_b), [0, 0], o_c)",
        "s = pl.tile.slice(t_b, [8, 16], [4, 16])",
        "pl.store(pl.tile.assemble(t_a, s, [8, 0]), [0, 0], o_as)",
        "pl.store(pl.tile.reshape(t_a, [32, 16]), [0, 0], o_r)",
    ]
    assembled = np.array(a, copy=True)
    assembled[8:16, 0:16] = b[4:12, 16:32]
    want = {"o_t": a.T.copy(), "o_c": np.concatenate([a, b], axis=1), "o_as": assembled, "o_r": a.reshape(32, 16)}
    outs = [("o_t", (32, 16), dt), ("o_c", (16, 64), dt), ("o_as", (16, 32), dt), ("o_r", (32, 16), dt)]
    check(params, body, outs, {"a": a, "b": b}, want, dict.fromkeys(want, EXACT))


@pytest.mark.parametrize("src,dst", [("FP32", "INT32"), ("INT32", "FP32"), ("FP16", "INT16"), ("BF16", "INT16"),
                                     ("INT16", "FP16"), ("INT32", "INT8"), ("UINT8", "INT8"), ("FP32", "FP16")])
def test_reinterpret_view_keeps_the_bytes(src, dst):
    g = rng("reinterp", src, dst)
    a = values(g, (8, 64), src, -100, 100, full_int_range=False)
    cols = 64 * NP[src].itemsize // NP[dst].itemsize
    body = ["t = pl.load(a, [0, 0], [8, 64])", f"pl.store(pl.tile.reinterpret_view(t, pl.{dst}), [0, 0], out)"]
    want = np.ascontiguousarray(a).view(NP[dst])
    sim_want = want.copy()
    with np.errstate(invalid="ignore"):
        check([("a", (8, 64), src)], body, [("out", (8, cols), dst)], {"a": a}, {"out": sim_want}, {"out": EXACT})


# ------------------------------------------------------------------------------------------------
# padding and partial operands
# ------------------------------------------------------------------------------------------------

PADS = {"zero": lambda dt: 0, "min": lambda dt: -np.inf if is_float(dt) else int_bounds(dt)[0],
        "max": lambda dt: np.inf if is_float(dt) else int_bounds(dt)[1]}


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("pad", sorted(PADS))
def test_fillpad_and_fillpad_expand(dt, pad):
    """fillpad: the valid region kept, the rest the pad value (0, the dtype's lowest / highest, +-inf for floats);
    fillpad_expand: the same into a larger shape."""
    r, c = 11, 40
    a = values(rng("fillpad", dt, pad), SHAPE, dt)
    pv = PADS[pad](dt)
    want = np.full(SHAPE, pv, dtype=np.float64 if is_float(dt) else object)
    want[:r, :c] = to_f64(a[:r, :c]) if is_float(dt) else as_ints(a[:r, :c])
    want = round_to(want, dt) if is_float(dt) else wrap(want, dt)
    big = np.full((32, 64), pv, dtype=np.float64 if is_float(dt) else object)
    big[:r, :c] = to_f64(a[:r, :c]) if is_float(dt) else as_ints(a[:r, :c])
    big = round_to(big, dt) if is_float(dt) else wrap(big, dt)
    body = [f"t = pl.load(a, [0, 0], [16, 64], valid_shapes=[{r}, {c}])",
            f"pl.store(pl.tile.fillpad(t, pad_value=pl.PadValue.{pad}), [0, 0], o_f)",
            f"pl.store(pl.tile.fillpad_expand(t, shape=[32, 64], pad_value=pl.PadValue.{pad}), [0, 0], o_x)"]
    check([("a", SHAPE, dt)], body, [("o_f", SHAPE, dt), ("o_x", (32, 64), dt)], {"a": a},
          {"o_f": want, "o_x": big}, {"o_f": EXACT, "o_x": EXACT})


@pytest.mark.parametrize("dt", ALL)
def test_expand_clone(dt):
    g = rng("clone", dt)
    row, col = values(g, (1, 64), dt), values(g, (16, 1), dt)
    params = [("row", (1, 64), dt), ("col", (16, 1), dt)]
    body = ["o_r[:] = pl.expand_clone(row, [16, 64])", "o_c[:] = pl.expand_clone(col, [16, 64])"]
    want = {"o_r": np.broadcast_to(row, SHAPE).copy(), "o_c": np.broadcast_to(col, SHAPE).copy()}
    check(params, body, [("o_r", SHAPE, dt), ("o_c", SHAPE, dt)], {"row": row, "col": col}, want,
          dict.fromkeys(want, EXACT))


PART = {"add": (np.add, lambda x, y: x + y), "mul": (np.multiply, lambda x, y: x * y),
        "max": (np.maximum, np.maximum), "min": (np.minimum, np.minimum)}


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("op", sorted(PART))
@pytest.mark.parametrize("valid", [((16, 64), (10, 40)), ((9, 24), (16, 64)), ((16, 40), (16, 24))],
                         ids=["src1-inside", "src0-inside", "column-nested"])
def test_part_ops_copy_where_one_operand_is_valid(dt, op, valid):
    """PyPTO's part_*: op(src0, src1) where both are valid, src0 where only src0 is, src1 where only src1 is."""
    (r0, c0), (r1, c1) = valid
    g = rng("part", dt, op, valid)
    a, b = values(g, SHAPE, dt), values(g, SHAPE, dt)
    ffn, ifn = PART[op]
    both = _arith(dt, ffn, ifn, a, b)
    init = values(rng("part-init", dt), SHAPE, dt)
    want = np.array(init, copy=True)
    in0 = np.zeros(SHAPE, bool)
    in0[:r0, :c0] = True
    in1 = np.zeros(SHAPE, bool)
    in1[:r1, :c1] = True
    want = np.where(in0 & in1, both, np.where(in0, a, np.where(in1, b, want))).astype(NP[dt])
    params = [("a", SHAPE, dt), ("b", SHAPE, dt)]
    body = [f"x = pl.load(a, [0, 0], [16, 64], valid_shapes=[{r0}, {c0}])",
            f"y = pl.load(b, [0, 0], [16, 64], valid_shapes=[{r1}, {c1}])",
            f"pl.store(pl.tile.part_{op}(x, y), [0, 0], out)"]
    check(params, body, [("out", SHAPE, dt)], {"a": a, "b": b}, {"out": want}, {"out": tol_for(dt, scale=8.0)},
          init={"out": init})


@pytest.mark.parametrize("dt", ALL)
@pytest.mark.parametrize("dim", [0, 1])
def test_gather_and_scatter(dt, dim):
    """gather: out[i, j] = src[index[i, j], j] (dim 0) or src[i, index[i, j]] (dim 1); scatter: a copy of input with
    input[index[i, j], j] = src[i, j] (resp. input[i, index[i, j]]), a later index (row-major) winning. Exact."""
    g = rng("gather", dt, dim)
    src, upd = values(g, (16, 32), dt), values(g, (16, 32), dt)
    extent = 16 if dim == 0 else 32
    index = g.integers(0, extent, (16, 32)).astype(np.int32)
    gathered = np.empty_like(src)
    scattered = np.array(src, copy=True)
    for i in range(16):
        for j in range(32):
            k = int(index[i, j])
            gathered[i, j] = src[k, j] if dim == 0 else src[i, k]
            if dim == 0:
                scattered[k, j] = upd[i, j]
            else:
                scattered[i, k] = upd[i, j]
    params = [("src", (16, 32), dt), ("upd", (16, 32), dt), ("idx", (16, 32), "INT32")]
    body = [f"o_g[:] = pl.gather(src, dim={dim}, index=idx)", f"o_s[:] = pl.scatter(src, dim={dim}, index=idx, src=upd)"]
    want = {"o_g": gathered, "o_s": scattered}
    check(params, body, [("o_g", (16, 32), dt), ("o_s", (16, 32), dt)], {"src": src, "upd": upd, "idx": index},
          want, dict.fromkeys(want, EXACT))
