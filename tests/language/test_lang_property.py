"""Property: random straight-line kernels (tile ops, scalar arithmetic, SSA rebinding, slices, loops with
carried values) parse, print, re-parse to a structurally equal program, and printing is a fixed point."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lang_helpers import roundtrip

import tilefold.language as pl

UNARY = ["exp", "abs", "neg", "relu", "sqrt"]
BINARY = ["add", "sub", "mul", "maximum", "minimum"]
SCALAR = ["adds", "muls", "subs", "maxs"]
SCALAR_OPS = ["+", "-", "*", "//", "%"]


@st.composite
def kernels(draw: st.DrawFn) -> str:
    rows = draw(st.sampled_from([8, 16, 32]))
    cols = draw(st.sampled_from([16, 32, 64]))
    dtype = draw(st.sampled_from(["FP32", "FP16"]))
    tiles = ["t0"]
    scalars = ["b"]
    names = ["t0", "t1", "t2", "acc", "v"]
    lines = [
        f"t0: pl.Tile[[{rows}, {cols}], pl.{dtype}, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [{rows}, {cols}])",
        "b = pl.tile.get_block_idx()",
    ]
    n = draw(st.integers(min_value=1, max_value=25))
    for _ in range(n):
        kind = draw(st.sampled_from(["unary", "binary", "scalar", "sexpr", "slice", "reduce", "loop", "alias"]))
        target = draw(st.sampled_from(names))
        src = draw(st.sampled_from(tiles))
        annotate = draw(st.booleans())
        ann = f": pl.Tile[[{rows}, {cols}], pl.{dtype}, pl.Mem.Vec]" if annotate else ""
        if kind == "unary":
            lines.append(f"{target}{ann} = pl.tile.{draw(st.sampled_from(UNARY))}({src})")
        elif kind == "binary":
            other = draw(st.sampled_from(tiles))
            lines.append(f"{target}{ann} = pl.tile.{draw(st.sampled_from(BINARY))}({src}, {other})")
        elif kind == "scalar":
            val = draw(st.one_of(st.floats(-4, 4, allow_nan=False, width=32).map(repr), st.sampled_from(scalars)))
            lines.append(f"{target}{ann} = pl.tile.{draw(st.sampled_from(SCALAR))}({src}, {val})")
        elif kind == "sexpr":
            a = draw(st.sampled_from(scalars + ["3", "7"]))
            c = draw(st.sampled_from(scalars))
            op = draw(st.sampled_from(SCALAR_OPS))
            s = f"s{len(scalars)}"
            form = draw(st.integers(0, 3))
            expr = [f"{a} {op} {c}", f"pl.min({a}, {c}) {op} 2", f"({a} {op} {c}) * -1", f"max({c}, 1)"][form]
            lines.append(f"{s}: pl.Scalar[pl.INDEX] = {expr}")
            scalars.append(s)
            continue
        elif kind == "slice":
            h = rows // 2
            off = draw(st.sampled_from(["0", str(h)]))
            lines.append(f"sl = pl.tile.slice({src}, [{h}, {cols}], [{off}, 0])")
            lines.append(f"ex = pl.tile.extract(sl, 0, 0, shape=[{h}, {cols}], target_memory=pl.Mem.Vec)")
            lines.append("sl2 = pl.tile.exp(ex)")
            continue
        elif kind == "reduce":
            lines.append(f"r = pl.tile.row_sum({src})")
            lines.append(f"{target}{ann} = pl.tile.row_expand_mul({src}, r)")
        elif kind == "loop":
            trips = draw(st.integers(1, 4))
            lines.append(f"for i, (c,) in pl.range({trips}, init_values=({src},)):")
            lines.append("    c2 = pl.tile.adds(c, 1.0)")
            lines.append(f"    {target}{ann} = pl.yield_(c2)")
        elif kind == "alias":
            lines.append(f"{target}{ann} = {src}")
        if target not in tiles:
            tiles.append(target)
    lines.append(f"out = pl.store({draw(st.sampled_from(tiles))}, [0, 0], out)")
    lines.append("return out")
    body = "\n".join("        " + ln for ln in lines)
    return (
        "import tilefold.language as pl\n\n\n@pl.program\nclass Random:\n"
        "    @pl.function(type=pl.FunctionType.AIV)\n"
        f"    def k(self, x: pl.Tensor[[{rows}, {cols}], pl.{dtype}], "
        f"out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.{dtype}]]) -> pl.Tensor[[{rows}, {cols}], pl.{dtype}]:\n"
        f"{body}\n"
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_random_straight_line_kernels_roundtrip(src: str) -> None:
    program = pl.parse(src)
    text = roundtrip(program)
    # names are unique in the printed text: every assignment target is defined once
    targets = [ln.split(":")[0].split("=")[0].strip() for ln in text.splitlines()
               if "=" in ln and not ln.strip().startswith(("@", "def", "for", "return", "class"))]
    targets = [t for t in targets if t.isidentifier()]
    assert len(targets) == len(set(targets))
