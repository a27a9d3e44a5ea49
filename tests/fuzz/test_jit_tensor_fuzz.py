"""Differential fuzzing of the @pl.jit front end and its lowering.

Each seed gives a random tensor-level @pl.jit kernel (element-wise / scalar / unary ops, row reductions and
expansions, column broadcasts, reuse of values by several consumers, sometimes a second scope, sizes from one
row block up to tensors several times larger than UB). The kernel is parsed from text, its scopes outlined;
the golden interpreter runs that tensor-level program and the simulator runs the program lowered by
ConvertTensorToTileOps and the tile pipeline. Derandomized (fixed seeds) and bounded in size to stay fast.
"""

from __future__ import annotations

import random

import pytest

import tilefold.language as pl
from tilefold.testing import run_and_compare

from .fuzzcheck import counted

SHAPES = [(16, 64), (64, 128), (256, 64), (1024, 128)]  # the last one: 512 KiB per FP32 tensor, > UB


def generate(seed: int) -> str:
    rnd = random.Random(seed)
    m, n = rnd.choice(SHAPES)
    n_inputs = rnd.randint(1, 3)
    params = [f"x{i}: pl.Tensor[[{m}, {n}], pl.FP32]" for i in range(n_inputs)]
    params.append(f"g: pl.Tensor[[1, {n}], pl.FP32]")
    two_scopes = rnd.random() < 0.3
    if two_scopes:
        params.append(f"mid: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]")
    params.append(f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]")
    values = [f"x{i}" for i in range(n_inputs)]
    lines: list[str] = []

    def pick() -> str:
        return rnd.choice(values[-4:]) if rnd.random() < 0.7 else rnd.choice(values)

    for step in range(rnd.randint(2, 8)):
        kind = rnd.choice(["bin", "bin", "scalar", "unary", "row", "col", "softmax_like"])
        a, b = pick(), pick()
        if kind == "bin":
            op = rnd.choice(["add", "sub", "mul", "maximum", "minimum"])
            expr = f"pl.{op}({a}, {b})"
        elif kind == "scalar":
            op = rnd.choice(["add", "sub", "mul", "maximum", "minimum"])
            expr = f"pl.{op}({a}, {rnd.choice([0.5, 1.25, -2.0, 3.0])})"
        elif kind == "unary":
            expr = rnd.choice([f"pl.neg({a})", f"pl.abs({a})", f"pl.relu({a})",
                               f"pl.exp(pl.neg(pl.abs({a})))", f"pl.sqrt(pl.abs({a}))",
                               f"pl.div({a}, pl.adds(pl.abs({b}), 1.0))"])
        elif kind == "row":
            red = rnd.choice(["row_sum", "row_max", "row_min"])
            exp = rnd.choice(["row_expand_add", "row_expand_sub", "row_expand_mul"])
            expr = f"pl.{exp}({a}, pl.{red}({b}))"
        elif kind == "col":
            expr = f"pl.{rnd.choice(['col_expand_mul', 'col_expand_add', 'col_expand_sub'])}({a}, g)"
        else:
            expr = f"pl.exp(pl.row_expand_sub({a}, pl.row_max({a})))"
        name = f"v{step}"
        lines.append(f"        {name} = {expr}")
        values.append(name)
    body = "\n".join(lines)
    if two_scopes:
        return (f"import tilefold.language as pl\n\n@pl.jit\ndef fuzz({', '.join(params)}):\n"
                f"    with pl.at(level=pl.Level.CORE_GROUP):\n{body}\n        mid[:] = {values[-1]}\n"
                f"    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.add(mid, {values[0]})\n"
                f"    return out\n")
    return (f"import tilefold.language as pl\n\n@pl.jit\ndef fuzz({', '.join(params)}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{body}\n        out[:] = {values[-1]}\n    return out\n")


@pytest.mark.parametrize("seed", range(24))
def test_tensor_level_program_golden_equals_simulated_lowering(seed):
    src = generate(seed)
    with counted("jit-tensor"):
        report = run_and_compare(pl.parse(src, f"<jit fuzz {seed}>"), "random", seed=seed)
    assert report.fault is None, f"{report.summary()}\n{src}"
    assert report.matches, f"{report.summary()}\n{src}"


def generate_loop(seed: int) -> str:
    """A tensor carried through a pl.range loop by reassignment (the structured, untiled lowering)."""
    rnd = random.Random(1000 + seed)
    m, n = rnd.choice([(16, 64), (32, 128)])
    trips = rnd.randint(1, 3)
    body_ops = [rnd.choice(["pl.add(t, x)", "pl.mul(t, 0.5)", "pl.maximum(t, x)", "pl.sub(t, pl.abs(x))",
                            "pl.row_expand_sub(t, pl.row_max(t))"]) for _ in range(rnd.randint(1, 3))]
    lines = "\n".join(f"            t = {op}" for op in body_ops)
    return (f"import tilefold.language as pl\n\n@pl.jit\n"
            f"def fuzz(x: pl.Tensor[[{m}, {n}], pl.FP32], out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.neg(x)\n"
            f"        for _i in pl.range({trips}):\n{lines}\n        out[:] = pl.add(t, x)\n    return out\n")


@pytest.mark.parametrize("seed", range(8))
def test_tensor_level_loops_golden_equals_simulated_lowering(seed):
    src = generate_loop(seed)
    with counted("jit-tensor-loops"):
        report = run_and_compare(pl.parse(src, f"<jit loop fuzz {seed}>"), "random", seed=seed)
    assert report.fault is None and report.matches, f"{report.summary()}\n{src}"


def test_generator_covers_tiling_and_two_scopes():
    sources = [generate(s) for s in range(24)]
    assert any("[1024, 128]" in s for s in sources)
    assert any("mid[:]" in s for s in sources)


def generate_window_loop(seed: int) -> str:
    """A loop over blocks reading windows at loop-variable offsets (subscripts or pl.slice, sometimes a column
    offset, sometimes a start / step), carrying an accumulator (from pl.full or a first window), sometimes an
    if / else merging two values, and sometimes writing each block with pl.assemble at the loop offset."""
    rnd = random.Random(2000 + seed)
    b, w = rnd.choice([(16, 32), (32, 64), (16, 64)])
    trips = rnd.randint(2, 4)
    start, step = rnd.choice([(0, 1), (1, 1), (0, 2)])
    stop = start + trips * step
    rows, cols = stop * b + rnd.choice([0, b]), w * rnd.choice([1, 2])
    col0 = rnd.choice([0, cols - w])
    read = (f"x[r0 : r0 + {b}, {col0} : {col0 + w}]" if rnd.random() < 0.5
            else f"pl.slice(x, [{b}, {w}], [r0, {col0}])")
    init = rnd.choice([f"pl.full([{b}, {w}], dtype=pl.FP32, value={rnd.choice([0.0, 1.5])})",
                       f"x[0:{b}, {col0} : {col0 + w}]"])
    ops = ["pl.add(acc, blk)", "pl.maximum(acc, blk)", "pl.sub(acc, pl.mul(blk, 0.5))",
           "pl.row_expand_add(acc, pl.row_max(blk))", "pl.add(pl.mul(acc, 0.5), pl.exp(pl.neg(pl.abs(blk))))"]
    lines = [f"        acc = {init}", f"        for i in pl.range({start}, {stop}, {step}):",
             f"            r0 = i * {b}", f"            blk = {read}"]
    if rnd.random() < 0.4:
        then, other = rnd.sample(ops, 2)
        lines += ["            if i % 2 == 0:", f"                nxt = pl.yield_({then})", "            else:",
                  f"                nxt = pl.yield_({other})", "            acc = nxt"]
    else:
        lines.append(f"            acc = {rnd.choice(ops)}")
    write = rnd.random() < 0.5
    params = [f"x: pl.Tensor[[{rows}, {cols}], pl.FP32]", f"res: pl.Out[pl.Tensor[[{b}, {w}], pl.FP32]]"]
    if write:
        params.append(f"out: pl.Out[pl.Tensor[[{rows}, {w}], pl.FP32]]")
        lines.append("            out = pl.assemble(out, pl.mul(acc, 2.0), [r0, 0])")
    lines.append("        res[:] = acc")
    ret = "res, out" if write else "res"
    return (f"import tilefold.language as pl\n\n@pl.jit\ndef fuzz({', '.join(params)}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n" + "\n".join(lines) + f"\n    return {ret}\n")


@pytest.mark.parametrize("seed", range(12))
def test_window_loops_at_dynamic_offsets_golden_equals_simulated_lowering(seed):
    src = generate_window_loop(seed)
    with counted("jit-window-loops"):
        report = run_and_compare(pl.parse(src, f"<jit window fuzz {seed}>"), "random", seed=seed)
    assert report.fault is None and report.matches, f"{report.summary()}\n{src}"


def test_window_generator_covers_its_forms():
    sources = [generate_window_loop(s) for s in range(12)]
    assert any("pl.slice(" in s for s in sources) and any("x[r0 :" in s for s in sources)
    assert any("if i % 2" in s for s in sources) and any("pl.assemble" in s for s in sources)
    assert any("pl.full" in s for s in sources) and any(", 2):" in s for s in sources)


MIXED_TARGETS = ["Ascend910B", "Ascend950"]  # 910B: the cube <-> vector hand-over goes through a GM workspace


def generate_mixed(seed: int) -> str:
    """Cube -> vector -> cube in one scope: a matmul (sometimes b_trans / a_trans), vector work on its result
    (unary, scalar, a bias, row reductions and expansions), a cast to FP16 and a second matmul of it (sometimes
    b_trans), sometimes the vector value also written out or added to the second product; sometimes the whole
    chain runs in a loop over row blocks at loop offsets, with an if on the loop variable choosing the vector
    work."""
    rnd = random.Random(3000 + seed)
    m, k, n = rnd.choice([16, 32]), rnd.choice([32, 64]), rnd.choice([32, 64])
    p = rnd.choice([n, 32])
    trips = rnd.choice([1, 1, 2, 3])
    a_trans, b1_trans, b2_trans = rnd.random() < 0.25, rnd.random() < 0.4, rnd.random() < 0.4
    rows = m * trips
    x_shape = f"[{k}, {rows}]" if a_trans else f"[{rows}, {k}]"
    params = [f"x: pl.Tensor[{x_shape}, pl.FP16]",
              f"w1: pl.Tensor[{f'[{n}, {k}]' if b1_trans else f'[{k}, {n}]'}, pl.FP16]",
              f"w2: pl.Tensor[{f'[{p}, {n}]' if b2_trans else f'[{n}, {p}]'}, pl.FP16]",
              f"bias: pl.Tensor[[{m}, {n}], pl.FP32]"]
    also_vec = rnd.random() < 0.4
    if also_vec:
        params.append(f"vout: pl.Out[pl.Tensor[[{rows}, {n}], pl.FP32]]")
    params.append(f"out: pl.Out[pl.Tensor[[{rows}, {p}], pl.FP32]]")
    vec_ops = ["pl.relu(h)", "pl.mul(h, 0.125)", "pl.add(h, bias)", "pl.exp(pl.neg(pl.abs(h)))",
               "pl.row_expand_sub(h, pl.row_max(h))", "pl.maximum(h, bias)",
               "pl.row_expand_mul(h, pl.recip(pl.adds(pl.row_sum(pl.abs(h)), 1.0)))"]
    ind = "            " if trips > 1 else "        "
    xw = (f"x[:, r0 : r0 + {m}]" if a_trans else f"x[r0 : r0 + {m}, :]") if trips > 1 else "x"
    lines = [f"h = pl.matmul({xw}, w1, out_dtype=pl.FP32{', a_trans=True' if a_trans else ''}"
             f"{', b_trans=True' if b1_trans else ''})"]
    if trips > 1 and rnd.random() < 0.5:
        then, other = rnd.sample(vec_ops, 2)
        lines += ["if i % 2 == 0:", f"    v = pl.yield_({then})", "else:", f"    v = pl.yield_({other})"]
    else:
        lines.append(f"v = {rnd.choice(vec_ops)}")
    if rnd.random() < 0.5:
        lines.append(f"v = {rnd.choice(vec_ops).replace('(h', '(v')}")
    lines.append("g = pl.cast(pl.mul(v, 0.25), target_type=pl.FP16)")
    lines.append(f"y = pl.matmul(g, w2, out_dtype=pl.FP32{', b_trans=True' if b2_trans else ''})")
    if p == n and rnd.random() < 0.5:
        lines.append("y = pl.add(y, v)")
    def dst(t: str) -> str:
        return f"{t}[r0 : r0 + {m}, :]" if trips > 1 else f"{t}[:]"

    if also_vec:
        lines.append(f"{dst('vout')} = v")
    lines.append(f"{dst('out')} = y")
    if not (a_trans or b1_trans) and rnd.random() < 0.6:  # an accumulator started by pl.full (it stays in Vec)
        lines[0] = f"h = pl.matmul_acc(pl.full([{m}, {n}], dtype=pl.FP32, value=0.5), {xw}, w1)"
    body = "\n".join(ind + t for t in lines)
    if trips > 1:
        body = f"        for i in pl.range({trips}):\n            r0 = i * {m}\n" + body
    ret = "vout, out" if also_vec else "out"
    return (f"import tilefold.language as pl\n\n@pl.jit\ndef fuzz({', '.join(params)}):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP):\n{body}\n    return {ret}\n")


@pytest.mark.parametrize("target", MIXED_TARGETS)
@pytest.mark.parametrize("seed", range(10))
def test_mixed_cube_vector_scopes_golden_equals_simulated_lowering(seed, target):
    src = generate_mixed(seed)
    with counted("jit-mixed-scopes"):
        report = run_and_compare(pl.parse(src, f"<jit mixed fuzz {seed}>"), "random", seed=seed, target=target)
    assert report.fault is None and report.matches, f"{report.summary()}\n{src}"


def test_mixed_generator_covers_its_forms():
    sources = [generate_mixed(s) for s in range(10)]
    assert any("b_trans=True)\n" in s and "g, w2" in s for s in sources)  # the second matmul transposed
    assert any("a_trans=True" in s for s in sources) and any("pl.range(" in s for s in sources)
    assert any("if i % 2" in s for s in sources) and any("vout" in s for s in sources)
    assert any("pl.matmul_acc(pl.full(" in s for s in sources)
