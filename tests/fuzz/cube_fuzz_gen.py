"""Random valid cube-side ``pl`` kernels for the differential fuzzer (module name unique for pytest imports).

``cube_programs()`` is a hypothesis strategy of ``CubeCase``: the DSL text of one InCore kernel, the target,
the block count, and — when the program is *meant* to be rejected — the error class the docs promise.
Every generated program is otherwise valid: tiles fit their memories, explicit L0 tiles fit L0, and every
Acc window used as a matmul destination is one the Acc window rule accepts (full rows, or inside one
16-column block).

``check_case(case)`` compiles it with the verification and round-trip instruments after every pass, runs it
on the simulator and the golden interpreter, and raises ``AssertionError`` with the program text on any
miscompile, device fault, crash, or rejection that is not a located, hinted ``TilefoldError`` the docs
allow.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError
from tilefold.passes.pass_manager import PassContext, VerificationInstrument
from tilefold.testing.round_trip import RoundTripInstrument

from .fuzzcheck import tally

TARGETS = ("Ascend910B", "Ascend910C", "Ascend950")
#: dtype -> (accumulator dtype, itemsize, K quantum)
DTYPES = {"BF16": ("FP32", 2, 16), "FP16": ("FP32", 2, 16), "INT8": ("INT32", 1, 32)}
MAT_BUDGET = 384 * 1024  # bytes of Mat a generated kernel may load (Mat is 512 KiB)
LEFT = RIGHT = 64 * 1024
ACC = 128 * 1024  # Ascend910B / 910C (Ascend950 has more)
MN = [16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 256]
K_SPECIAL = [16, 32, 48, 64, 80, 96, 128, 200, 256, 384, 512, 1000, 1024]


@dataclass
class CubeCase:
    text: str
    target: str
    block_dim: int
    kind: str
    expect_error: str | None = None  # name of the TilefoldError subclass the docs promise
    notes: list[str] = field(default_factory=list)

    def program(self) -> ir.Program:
        return pl.parse(self.text, filename=f"<fuzz:{self.kind}>")


class _Kernel:
    """Accumulates parameters and body lines of one InCore kernel."""

    def __init__(self, dt: str, block_dim: int, target: str = "Ascend910B") -> None:
        self.acc_cap = 2 * ACC if target == "Ascend950" else ACC
        self.dt = dt
        self.acc_dt, self.isz, self.kq = DTYPES[dt]
        self.block_dim = block_dim
        self.params: list[str] = []
        self.outs: list[tuple[str, str]] = []  # (name, type)
        self.body: list[str] = []
        self.names: dict[str, int] = {}
        self.mat_bytes = 0
        if block_dim > 1:
            self.body.append("bi = pl.tile.get_block_idx()")

    def fresh(self, base: str) -> str:
        n = self.names.get(base, 0)
        self.names[base] = n + 1
        return f"{base}{n}" if n else base

    def line(self, s: str) -> None:
        self.body.append(s)

    def row0(self, rows: int) -> str:
        """The first row this block reads / writes of a per-block tensor holding ``rows`` rows per block."""
        return f"bi * {rows}" if self.block_dim > 1 else "0"

    def tensor(self, base: str, shape: list[int], dtype: str, *, per_block: bool) -> str:
        name = self.fresh(base)
        full = list(shape)
        if per_block:
            full[0] *= self.block_dim
        self.params.append(f"{name}: pl.Tensor[{full}, pl.{dtype}]")
        return name

    def out_tensor(self, shape: list[int], dtype: str) -> str:
        name = self.fresh("out")
        full = list(shape)
        full[0] *= self.block_dim
        ty = f"pl.Tensor[{full}, pl.{dtype}]"
        self.params.append(f"{name}: pl.Out[{ty}]")
        self.outs.append((name, ty))
        return name

    def load_mat(self, base: str, shape: list[int], dtype: str | None = None, *, per_block: bool = True) -> str:
        dtype = dtype or self.dt
        isz = 4 if dtype in ("FP32", "INT32") else self.isz
        self.mat_bytes += int(np.prod(shape)) * isz
        t = self.tensor(base, shape, dtype, per_block=per_block)
        v = self.fresh(f"{base}_m")
        offs = [self.row0(shape[0]) if per_block else "0"] + ["0"] * (len(shape) - 1)
        self.line(f"{v}: pl.Tile[{shape}, pl.{dtype}, pl.Mem.Mat] = pl.tile.load({t}, [{', '.join(offs)}], "
                  f"{shape}, target_memory=pl.Mem.Mat)")
        return v

    def text(self) -> str:
        if len(self.outs) == 1:
            ret = self.outs[0][1]
            rv = self.outs[0][0]
        else:
            ret = f"tuple[{', '.join(t for _, t in self.outs)}]"
            rv = ", ".join(n for n, _ in self.outs)
        self.line(f"return {rv}")
        return (
            "import tilefold.language as pl\n\n\n"
            "@pl.program\n"
            "class Fuzz:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def kernel(self, {', '.join(self.params)}) -> {ret}:\n"
            + textwrap.indent("\n".join(self.body), " " * 8) + "\n"
        )


# ------------------------------------------------------------------------------------------------
# operands
# ------------------------------------------------------------------------------------------------


@st.composite
def _operand(draw, kern: _Kernel, base: str, rows: int, cols: int, role: str, *, allow_extract: bool = True,
             per_block: bool = True) -> str:
    """A Mat-side operand of logical shape [rows, cols]: a whole Mat tile, a Mat window (slice or
    slice-of-slice at constant, fractal-aligned offsets) of a larger tile, or an explicit extract to L0."""
    mem = "Left" if role == "lhs" else "Right"
    cap = LEFT if role == "lhs" else RIGHT
    fits_l0 = rows * cols * kern.isz <= cap
    forms = ["whole", "slice", "slice2"]
    if allow_extract and fits_l0:
        forms += ["extract", "slice_extract"]
    if per_block and kern.block_dim > 1 and kern.mat_bytes + kern.block_dim * rows * cols * kern.isz <= MAT_BUDGET:
        forms += ["block_window"]
    form = draw(st.sampled_from(forms))
    if form == "block_window":
        # every block loads the whole tensor into Mat and takes its rows with a dynamic Mat window
        shape = [kern.block_dim * rows, cols]
        kern.mat_bytes += int(np.prod(shape)) * kern.isz
        t = kern.tensor(base, [rows, cols], kern.dt, per_block=True)
        v = kern.fresh(f"{base}_all")
        kern.line(f"{v}: pl.Tile[{shape}, pl.{kern.dt}, pl.Mem.Mat] = pl.tile.load({t}, [0, 0], {shape}, "
                  f"target_memory=pl.Mem.Mat)")
        s = kern.fresh(f"{base}_blk")
        kern.line(f"{s}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({v}, [{rows}, {cols}], "
                  f"[bi * {rows}, 0])")
        if allow_extract and fits_l0 and draw(st.booleans()):
            e = kern.fresh(f"{base}_{mem.lower()}")
            kern.line(f"{e}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.{mem}] = pl.tile.extract({s}, 0, 0, "
                      f"shape=[{rows}, {cols}], target_memory=pl.Mem.{mem})")
            return e
        return s
    rq = 16
    cq = kern.kq if role == "lhs" else 16  # lhs columns are K, rhs columns are N
    if role == "rhs":
        rq = kern.kq  # rhs rows are K
    if form in ("whole", "extract"):
        t = kern.load_mat(base, [rows, cols], per_block=per_block)
        if form == "whole":
            return t
        v = kern.fresh(f"{base}_{mem.lower()}")
        kern.line(f"{v}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.{mem}] = pl.tile.extract({t}, 0, 0, "
                  f"shape=[{rows}, {cols}], target_memory=pl.Mem.{mem})")
        return v
    # windows of a padded tile
    pr = draw(st.sampled_from([0, rq, 2 * rq]))
    pc = draw(st.sampled_from([0, cq, 2 * cq]))
    if kern.mat_bytes + (rows + pr) * (cols + pc) * kern.isz > MAT_BUDGET:
        pr = pc = 0
    t = kern.load_mat(base, [rows + pr, cols + pc], per_block=per_block)
    orow = draw(st.integers(0, pr // rq)) * rq
    ocol = draw(st.integers(0, pc // cq)) * cq
    src = t
    if form == "slice2":
        # outer window [rows + pr - orow, cols + pc - ocol] at (orow, ocol), inner at the rest
        r1, c1 = rows + pr - orow, cols + pc - ocol
        s1 = kern.fresh(f"{base}_w")
        kern.line(f"{s1}: pl.Tile[[{r1}, {c1}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({t}, [{r1}, {c1}], "
                  f"[{orow}, {ocol}])")
        src = s1
        i_r = draw(st.integers(0, (r1 - rows) // rq)) * rq
        i_c = draw(st.integers(0, (c1 - cols) // cq)) * cq
        orow, ocol = i_r, i_c
    if form == "slice_extract" and draw(st.booleans()):
        # extract straight from the tile at the window's offset
        v = kern.fresh(f"{base}_{mem.lower()}")
        kern.line(f"{v}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.{mem}] = pl.tile.extract({src}, {orow}, "
                  f"{ocol}, shape=[{rows}, {cols}], target_memory=pl.Mem.{mem})")
        return v
    s = kern.fresh(f"{base}_s")
    kern.line(f"{s}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({src}, [{rows}, {cols}], "
              f"[{orow}, {ocol}])")
    if form == "slice_extract":
        v = kern.fresh(f"{base}_{mem.lower()}")
        kern.line(f"{v}: pl.Tile[[{rows}, {cols}], pl.{kern.dt}, pl.Mem.{mem}] = pl.tile.extract({s}, 0, 0, "
                  f"shape=[{rows}, {cols}], target_memory=pl.Mem.{mem})")
        return v
    return s


def _fit(kern_isz: int, m: int, n: int, k: int, budget: int = MAT_BUDGET) -> tuple[int, int]:
    """Shrink M / N (multiples of 16) until both operands fit the Mat budget with room for windows."""
    while (m * k + k * n) * kern_isz > budget * 0.6 and max(m, n) > 16:
        if m >= n:
            m = max(16, (m // 2) // 16 * 16)
        else:
            n = max(16, (n // 2) // 16 * 16)
    return m, n


def _store(kern: _Kernel, val: str, rows: int, cols: int, out: str | None = None, col0: int = 0) -> str:
    out = out or kern.out_tensor([rows, cols], kern.acc_dt)
    kern.line(f"{out} = pl.store({val}, [{kern.row0(rows)}, {col0}], {out})")
    return out


# ------------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------------


@st.composite
def _mm_kernel(draw, kern: _Kernel) -> str:
    """One matmul / matmul_bias / gemv on Mat-side operands, optionally followed by a matmul_acc chain."""
    op = draw(st.sampled_from(["matmul", "matmul", "matmul_bias", "gemv"]))
    k = draw(st.sampled_from(K_SPECIAL) | st.integers(1, 1024 // kern.kq).map(lambda q: q * kern.kq))
    m = 1 if op == "gemv" else draw(st.sampled_from(MN))
    n = draw(st.sampled_from(MN))
    m, n = _fit(kern.isz, m, n, k)
    if op == "gemv":
        m = 1
    a = draw(_operand(kern, "a", m, k, "lhs"))
    b = draw(_operand(kern, "b", k, n, "rhs", per_block=False))
    expect = _l0_expectation(kern, a, b, m, n, k)
    c = kern.fresh("c")
    if op == "matmul_bias":
        bias = kern.load_mat("bias", [1, n + 32], kern.acc_dt, per_block=False)
        bo = draw(st.sampled_from([0, 16, 32]))
        bs = kern.fresh("bias_s")
        kern.line(f"{bs}: pl.Tile[[1, {n}], pl.{kern.acc_dt}, pl.Mem.Mat] = pl.tile.slice({bias}, [1, {n}], [0, {bo}])")
        bias = bs
        kern.line(f"{c}: pl.Tile[[{m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = pl.tile.matmul_bias({a}, {b}, {bias})")
    else:
        kern.line(f"{c}: pl.Tile[[{m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = pl.tile.{op}({a}, {b})")
    # an accumulation chain needs the accumulator to fit Acc (an oversized matmul_acc is rejected by design)
    if m * n * 4 <= ACC // 2 and draw(st.booleans()):
        k2 = draw(st.sampled_from([kern.kq, 2 * kern.kq, 3 * kern.kq, 64, 128, 200]))
        if (m * k2 + k2 * n) * kern.isz + kern.mat_bytes > MAT_BUDGET:
            k2 = kern.kq
        a2 = draw(_operand(kern, "a", m, k2, "lhs"))
        b2 = draw(_operand(kern, "b", k2, n, "rhs", per_block=False))
        expect = expect or _l0_expectation(kern, a2, b2, m, n, k2)
        c2 = kern.fresh("c")
        acc_op = "gemv_acc" if op == "gemv" else "matmul_acc"
        kern.line(f"{c2}: pl.Tile[[{m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = pl.tile.{acc_op}({c}, {a2}, {b2})")
        c = c2
    _store(kern, c, m, n)
    return op, expect


def _l0_expectation(kern: _Kernel, a: str, b: str, m: int, n: int, k: int) -> str | None:
    """AutoTileMatmulL0 only tiles a matmul whose lhs and rhs are both in Mat (docs: "Which matmuls"); when
    one operand was extracted to L0 by hand, an operand or result too big for L0 is a documented
    NotSupportedError (InferTileMemorySpace's capacity check)."""
    in_l0 = "_left" in a or "_right" in b
    if not in_l0:
        return None
    if m * k * kern.isz > LEFT or k * n * kern.isz > RIGHT or _pad16(m) * _pad16(n) * 4 > kern.acc_cap:
        return "NotSupportedError"
    return None


def _pad16(x: int) -> int:
    return -(-x // 16) * 16


@st.composite
def _kloop_kernel(draw, kern: _Kernel) -> str:
    """A user-written K loop (pl.range or pl.pipeline) with per-step extracts or dynamic Mat slices."""
    gemv = draw(st.booleans()) and draw(st.booleans())
    m = 1 if gemv else draw(st.sampled_from(MN[:8]))
    n = draw(st.sampled_from(MN[:8]))
    kb = draw(st.sampled_from([kern.kq, 2 * kern.kq, 64, 128]))
    kb = max(kb, kern.kq) // kern.kq * kern.kq
    while (m * kb * kern.isz > LEFT // 2 or kb * n * kern.isz > RIGHT // 2) and kb > kern.kq:
        kb -= kern.kq
    steps = draw(st.integers(2, 8))
    k = kb * steps
    if (m * k + k * n) * kern.isz > MAT_BUDGET * 0.6:
        steps = max(2, int(MAT_BUDGET * 0.6 // ((m + n) * kb * kern.isz)))
        k = kb * steps
    pad_col = draw(st.sampled_from([0, 0, kern.kq, 2 * kern.kq]))
    window = draw(st.booleans())  # operands are Mat windows of padded tiles (folded into the extracts)
    ta = kern.load_mat("a", [m, k + (pad_col if window else 0)])
    tb = kern.load_mat("b", [k + (pad_col if window else 0), n], per_block=False)
    if window:
        oa = draw(st.integers(0, pad_col // kern.kq)) * kern.kq
        ob = draw(st.integers(0, pad_col // kern.kq)) * kern.kq
        sa, sb = kern.fresh("a_win"), kern.fresh("b_win")
        kern.line(f"{sa}: pl.Tile[[{m}, {k}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({ta}, [{m}, {k}], [0, {oa}])")
        kern.line(f"{sb}: pl.Tile[[{k}, {n}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({tb}, [{k}, {n}], [{ob}, 0])")
        ta, tb = sa, sb
    step_form = draw(st.sampled_from(["extract", "slice"]))
    first, acc_op = ("gemv", "gemv_acc") if gemv else ("matmul", "matmul_acc")
    adt = kern.acc_dt

    def operands(ko: str, indent: str) -> tuple[str, str]:
        la, rb = kern.fresh("ak"), kern.fresh("bk")
        if step_form == "extract":
            kern.line(f"{indent}{la}: pl.Tile[[{m}, {kb}], pl.{kern.dt}, pl.Mem.Left] = pl.tile.extract({ta}, 0, {ko}, "
                      f"shape=[{m}, {kb}], target_memory=pl.Mem.Left)")
            kern.line(f"{indent}{rb}: pl.Tile[[{kb}, {n}], pl.{kern.dt}, pl.Mem.Right] = pl.tile.extract({tb}, {ko}, 0, "
                      f"shape=[{kb}, {n}], target_memory=pl.Mem.Right)")
        else:
            kern.line(f"{indent}{la}: pl.Tile[[{m}, {kb}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({ta}, [{m}, {kb}], "
                      f"[0, {ko}])")
            kern.line(f"{indent}{rb}: pl.Tile[[{kb}, {n}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({tb}, [{kb}, {n}], "
                      f"[{ko}, 0])")
        return la, rb

    a0, b0 = operands("0", "")
    c0 = kern.fresh("c")
    kern.line(f"{c0}: pl.Tile[[{m}, {n}], pl.{adt}, pl.Mem.Acc] = pl.tile.{first}({a0}, {b0})")
    loop = draw(st.sampled_from(["range", "pipeline"]))
    stage = ", stage=2" if loop == "pipeline" else ""
    ko, it, cn, cr = kern.fresh("ko"), kern.fresh("c_it"), kern.fresh("c_nx"), kern.fresh("c_k")
    kern.line(f"for {ko}, ({it},) in pl.{loop}({kb}, {k}, {kb}, init_values=({c0},){stage}):")
    a1, b1 = operands(ko, "    ")
    kern.line(f"    {cn}: pl.Tile[[{m}, {n}], pl.{adt}, pl.Mem.Acc] = pl.tile.{acc_op}({it}, {a1}, {b1})")
    kern.line(f"    {cr} = pl.yield_({cn})")
    _store(kern, cr, m, n)
    return f"kloop-{loop}-{step_form}{'-gemv' if gemv else ''}"


@st.composite
def _batch_kernel(draw, kern: _Kernel) -> str:
    """batch_matmul (batch 1..4, broadcast batch, 2-D operand) and optionally batch_matmul_acc."""
    b = draw(st.integers(1, 4))
    lb = draw(st.sampled_from(["full", "full", "one", "2d"]))
    rb = draw(st.sampled_from(["full", "one", "2d"])) if lb != "full" or True else "full"
    if lb != "full" and rb != "full":
        rb = "full"
    m = draw(st.sampled_from([16, 32, 48, 64, 128]))
    n = draw(st.sampled_from([16, 32, 48, 64, 128]))
    k = draw(st.sampled_from([kern.kq, 2 * kern.kq, 48 if kern.kq == 16 else 64, 128, 256]))
    # every page result is live until the store: the batch result must fit Acc as a whole
    while b * m * n * 4 > ACC and max(m, n) > 16:
        if m >= n:
            m //= 2
        else:
            n //= 2

    def bshape(kind: str, r: int, c: int) -> list[int]:
        return {"full": [b, r, c], "one": [1, r, c], "2d": [r, c]}[kind]

    while (np.prod(bshape(lb, m, k)) + np.prod(bshape(rb, k, n))) * kern.isz * 2 > MAT_BUDGET * 0.6 and k > kern.kq:
        k //= 2
        k = max(kern.kq, k // kern.kq * kern.kq)
    acc_chain = b * m * n * 4 <= ACC // 2 and draw(st.booleans())

    def load(base: str, shape: list[int], per_block: bool) -> str:
        t = kern.load_mat(base, shape, per_block=per_block and len(shape) == 3 and shape[0] == b)
        return t

    ta = load("a", bshape(lb, m, k), True)
    tb = load("w", bshape(rb, k, n), False)
    c = kern.fresh("c")
    kern.line(f"{c}: pl.Tile[[{b}, {m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = pl.tile.batch_matmul({ta}, {tb})")
    loop = ""
    if acc_chain and draw(st.booleans()):
        # batch_matmul_acc in a loop that loads operand batch i from GM each iteration
        reps = draw(st.integers(2, 3))
        loop = f"-loop{reps}"
        i, it, cn, cr = kern.fresh("i"), kern.fresh("c_it"), kern.fresh("c_nx"), kern.fresh("c_l")
        kern.line(f"for {i}, ({it},) in pl.range(0, {reps}, init_values=({c},)):")
        ops = []
        for base, shp in (("a", bshape(lb, m, k)), ("w", bshape(rb, k, n))):
            tt = kern.tensor(base, [reps * shp[0]] + shp[1:], kern.dt, per_block=False)
            kern.mat_bytes += int(np.prod(shp)) * kern.isz
            v = kern.fresh(f"{base}_i")
            offs = ", ".join([f"{i} * {shp[0]}"] + ["0"] * (len(shp) - 1))
            kern.line(f"    {v}: pl.Tile[{shp}, pl.{kern.dt}, pl.Mem.Mat] = pl.tile.load({tt}, [{offs}], {shp}, "
                      f"target_memory=pl.Mem.Mat)")
            ops.append(v)
        kern.line(f"    {cn}: pl.Tile[[{b}, {m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = "
                  f"pl.tile.batch_matmul_acc({it}, {ops[0]}, {ops[1]})")
        kern.line(f"    {cr} = pl.yield_({cn})")
        c = cr
    elif acc_chain:
        ta2 = load("a", bshape(lb, m, k), True)
        tb2 = load("w", bshape(rb, k, n), False)
        c2 = kern.fresh("c")
        kern.line(f"{c2}: pl.Tile[[{b}, {m}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = "
                  f"pl.tile.batch_matmul_acc({c}, {ta2}, {tb2})")
        c = c2
    out = kern.out_tensor([b, m, n], kern.acc_dt)
    kern.line(f"{out} = pl.store({c}, [{kern.row0(b)}, 0, 0], {out})")
    return f"batch-{lb}-{rb}{'-acc' if acc_chain else ''}{loop}"


@st.composite
def _accwin_kernel(draw, kern: _Kernel) -> tuple[str, str | None]:
    """The Acc column-window idiom: c = matmul(...) of shape [M, N * T], then matmul_acc into column
    windows slice(c, [M, N], [0, t * N]) (optionally through a slice of a slice, or carried by a K loop),
    each stored to its GM columns. With ``row=True`` a window that takes fewer rows is used instead: legal
    inside one 16-column block, an AccWindowError otherwise."""
    t = draw(st.integers(2, 4))
    n = draw(st.sampled_from([16, 32, 48, 64]))
    m = draw(st.sampled_from([16, 32, 48, 64, 128]))
    while m * n * t * 4 > ACC // 2 and m > 16:
        m //= 2
        m = max(16, m // 16 * 16)
    k = draw(st.sampled_from([kern.kq, 2 * kern.kq, 64, 128]))
    k = max(kern.kq, k // kern.kq * kern.kq)
    row_window = draw(st.integers(0, 4)) == 0 and m >= 32
    a = draw(_operand(kern, "a", m, k, "lhs"))
    b = draw(_operand(kern, "b", k, n * t, "rhs", per_block=False))
    c = kern.fresh("c")
    adt = kern.acc_dt
    kern.line(f"{c}: pl.Tile[[{m}, {n * t}], pl.{adt}, pl.Mem.Acc] = pl.tile.matmul({a}, {b})")
    out = kern.out_tensor([m, n * t], adt)
    tiles = sorted(set(draw(st.lists(st.integers(0, t - 1), min_size=1, max_size=t))))
    expect: str | None = None
    k2 = draw(st.sampled_from([kern.kq, 2 * kern.kq, 64]))
    k2 = max(kern.kq, k2 // kern.kq * kern.kq)
    a2 = kern.load_mat("a", [m, 3 * k2])
    b2 = kern.load_mat("b", [3 * k2, n * t], per_block=False)
    done = set()
    for ti in tiles:
        if row_window:
            # rows [r0, r0 + rows) of the column block
            rows = draw(st.sampled_from([16, m // 2 // 16 * 16 or 16]))
            r0 = draw(st.integers(0, (m - rows) // 16)) * 16
            if rows == m:
                r0 = 0
            if rows < m and n > 16:
                expect = "AccWindowError"
        else:
            rows, r0 = m, 0
        w = kern.fresh("w")
        if draw(st.booleans()) and not row_window:
            # slice of a slice: first the column band [M, N * (T - ti)], then its first N columns
            band = kern.fresh("band")
            kern.line(f"{band}: pl.Tile[[{m}, {n * (t - ti)}], pl.{adt}, pl.Mem.Acc] = pl.tile.slice({c}, "
                      f"[{m}, {n * (t - ti)}], [0, {ti * n}])")
            kern.line(f"{w}: pl.Tile[[{m}, {n}], pl.{adt}, pl.Mem.Acc] = pl.tile.slice({band}, [{m}, {n}], [0, 0])")
        else:
            kern.line(f"{w}: pl.Tile[[{rows}, {n}], pl.{adt}, pl.Mem.Acc] = pl.tile.slice({c}, [{rows}, {n}], "
                      f"[{r0}, {ti * n}])")
        bform = draw(st.sampled_from(["extract", "slice"]))
        steps = draw(st.sampled_from([1, 1, 2, 3]))
        if steps == 1:
            w2 = _acc_step(kern, w, a2, b2, "0", r0, rows, k2, n, ti, bform, "")
        else:
            # the window is the accumulator carried by a K loop over b2's rows
            ko, it, wr = kern.fresh("ko"), kern.fresh("w_it"), kern.fresh("w_k")
            kind = draw(st.sampled_from(["range", "pipeline"]))
            stage = ", stage=2" if kind == "pipeline" else ""
            kern.line(f"for {ko}, ({it},) in pl.{kind}(0, {steps * k2}, {k2}, init_values=({w},){stage}):")
            wn = _acc_step(kern, it, a2, b2, ko, r0, rows, k2, n, ti, bform, "    ")
            kern.line(f"    {wr} = pl.yield_({wn})")
            w2 = wr
        kern.line(f"{out} = pl.store({w2}, [{kern.row0(m)} + {r0}, {ti * n}], {out})" if kern.block_dim > 1 else
                  f"{out} = pl.store({w2}, [{r0}, {ti * n}], {out})")
        done.add(ti)
    # the untouched column blocks come straight from c
    for ti in range(t):
        if ti in done:
            continue
        u = kern.fresh("u")
        kern.line(f"{u}: pl.Tile[[{m}, {n}], pl.{adt}, pl.Mem.Acc] = pl.tile.slice({c}, [{m}, {n}], [0, {ti * n}])")
        kern.line(f"{out} = pl.store({u}, [{kern.row0(m)}, {ti * n}], {out})")
    if draw(st.integers(0, 3)) == 0:
        # the parent read after its windows were accumulated into: value semantics say it is unchanged
        outc = kern.out_tensor([m, n * t], adt)
        kern.line(f"{outc} = pl.store({c}, [{kern.row0(m)}, 0], {outc})")
    return ("accwin-row" if row_window else "accwin"), expect


def _acc_step(kern: _Kernel, acc: str, a2: str, b2: str, ko: str, r0: int, rows: int, k2: int, n: int, ti: int,
              bform: str, ind: str) -> str:
    """``matmul_acc(acc, a2[r0:r0+rows, ko:ko+k2], b2[ko:ko+k2, ti*n:(ti+1)*n])``; rhs extracted or a Mat window."""
    la = kern.fresh("la")
    kern.line(f"{ind}{la}: pl.Tile[[{rows}, {k2}], pl.{kern.dt}, pl.Mem.Left] = pl.tile.extract({a2}, {r0}, {ko}, "
              f"shape=[{rows}, {k2}], target_memory=pl.Mem.Left)")
    rb = kern.fresh("rb")
    if bform == "extract":
        kern.line(f"{ind}{rb}: pl.Tile[[{k2}, {n}], pl.{kern.dt}, pl.Mem.Right] = pl.tile.extract({b2}, {ko}, {ti * n}, "
                  f"shape=[{k2}, {n}], target_memory=pl.Mem.Right)")
    else:
        kern.line(f"{ind}{rb}: pl.Tile[[{k2}, {n}], pl.{kern.dt}, pl.Mem.Mat] = pl.tile.slice({b2}, [{k2}, {n}], "
                  f"[{ko}, {ti * n}])")
    w2 = kern.fresh("w_acc")
    kern.line(f"{ind}{w2}: pl.Tile[[{rows}, {n}], pl.{kern.acc_dt}, pl.Mem.Acc] = pl.tile.matmul_acc({acc}, {la}, {rb})")
    return w2


@st.composite
def _accwin_free_kernel(draw, kern: _Kernel) -> tuple[str, str | None]:
    """One Acc window [rows, cols] at [r0, col] of a matmul result (offsets on an 8-column grid, any width)
    used as a matmul_acc destination whose operands are Mat tiles (AutoTileMatmulL0 may pipeline K over
    it). The docs' rule decides the expectation: inside one 16-column block, or all rows starting on a block
    boundary, is accepted; anything else is an AccWindowError."""
    m = draw(st.sampled_from([16, 32, 48, 64]))
    p = draw(st.sampled_from([16, 32, 48, 64, 96]))
    cols = draw(st.sampled_from([8, 16, 24, 32, 48]).filter(lambda c: c <= p))
    col = draw(st.integers(0, (p - cols) // 8)) * 8
    rows = draw(st.sampled_from([m, m, 16]))
    r0 = draw(st.integers(0, (m - rows) // 16)) * 16
    k = draw(st.sampled_from([kern.kq, 2 * kern.kq]))
    k2 = draw(st.sampled_from([kern.kq, 64, 256, 1000 if kern.kq == 16 else 512]))
    ta = kern.load_mat("a", [m, k])
    tb = kern.load_mat("b", [k, p], per_block=False)
    adt = kern.acc_dt
    c = kern.fresh("c")
    kern.line(f"{c}: pl.Tile[[{m}, {p}], pl.{adt}, pl.Mem.Acc] = pl.tile.matmul({ta}, {tb})")
    w = kern.fresh("w")
    col_expr = str(col)
    if kern.block_dim > 1 and cols % 16 == 0 and p >= 2 * cols and (rows == m or cols == 16) and draw(st.booleans()):
        # a per-block column window at a dynamic, block-aligned offset (bi * cols): accepted by the rule
        col, col_expr = 0, f"bi * {cols}"
    kern.line(f"{w}: pl.Tile[[{rows}, {cols}], pl.{adt}, pl.Mem.Acc] = pl.tile.slice({c}, [{rows}, {cols}], "
              f"[{r0}, {col_expr}])")
    ta2 = kern.load_mat("a", [rows, k2])
    tb2 = kern.load_mat("b", [k2, cols], per_block=False)
    w2 = kern.fresh("w_acc")
    kern.line(f"{w2}: pl.Tile[[{rows}, {cols}], pl.{adt}, pl.Mem.Acc] = pl.tile.matmul_acc({w}, {ta2}, {tb2})")
    out = kern.out_tensor([rows, cols], adt)
    kern.line(f"{out} = pl.store({w2}, [{kern.row0(rows)}, 0], {out})")
    if draw(st.booleans()):
        outc = kern.out_tensor([m, p], adt)
        kern.line(f"{outc} = pl.store({c}, [{kern.row0(m)}, 0], {outc})")
    inside = col // 16 == (col + cols - 1) // 16
    ok = inside or (rows == m and col % 16 == 0)
    return "accwin-free", (None if ok else "AccWindowError")


@st.composite
def cube_programs(draw) -> CubeCase:
    target = draw(st.sampled_from(TARGETS))
    dt = draw(st.sampled_from(list(DTYPES)))
    block_dim = draw(st.integers(1, 2))
    kern = _Kernel(dt, block_dim, target)
    family = draw(st.sampled_from(["mm", "mm", "kloop", "batch", "accwin", "accwin_free"]))
    expect = None
    if family == "mm":
        kind, expect = draw(_mm_kernel(kern))
    elif family == "kloop":
        kind = draw(_kloop_kernel(kern))
    elif family == "batch":
        kind = draw(_batch_kernel(kern))
    elif family == "accwin":
        kind, expect = draw(_accwin_kernel(kern))
    else:
        kind, expect = draw(_accwin_free_kernel(kern))
    return CubeCase(kern.text(), target, block_dim, f"{kind}-{dt}", expect)


# ------------------------------------------------------------------------------------------------
# the oracle
# ------------------------------------------------------------------------------------------------


def small_int_inputs(program: ir.Program, seed: int = 0) -> dict[str, np.ndarray]:
    """Small integers (exact in every dtype and in every accumulation order) for each In tensor."""
    rng = np.random.default_rng(seed)
    fn = program.functions[0]
    out = {}
    for p in fn.params:
        if isinstance(p.type, ir.TensorType):
            out[p.name] = rng.integers(-3, 4, size=p.type.static_shape).astype(p.type.dtype.np_dtype)
    return out


#: the rejections the generator expects, with the message the docs give each: an error of the same class for
#: another reason is a finding
DOCUMENTED_REJECTIONS = {
    "AccWindowError": re.compile(r"is not contiguous in L0C.s block layout"),  # docs/passes/canonicalize_tile_slice.md
    "NotSupportedError": re.compile(r"does not fit in (Left|Right|Acc)"),  # InferTileMemorySpace's capacity check
}


def check_case(case: CubeCase, *, instruments: bool = True) -> str:
    """Run one case; returns "correct" or "rejected:<Error>"; raises AssertionError on a finding."""
    from tilefold.testing import run_and_compare

    program = case.program()
    inputs = small_int_inputs(program)
    insts = [VerificationInstrument(), RoundTripInstrument()] if instruments else []
    where = f"[{case.kind} on {case.target}, block_dim={case.block_dim}]\n{case.text}"
    try:
        with PassContext(insts):
            report = run_and_compare(program, inputs, target=case.target, block_dim=case.block_dim)
    except TilefoldError as exc:
        name = type(exc).__name__
        assert exc.span is not None and exc.span.line, f"rejection without a location: {name}: {exc}\n{where}"
        assert exc.hint, f"rejection without a hint: {name}: {exc}\n{where}"
        assert case.expect_error == name, f"unexpected rejection {name}: {exc}\n{where}"
        assert DOCUMENTED_REJECTIONS[name].search(exc.message), f"{name} for another reason: {exc}\n{where}"
        tally("cube-pipeline", name)  # the class the docs promise for this program (generated to be rejected)
        return f"rejected:{name}"
    except Exception as exc:  # noqa: BLE001 - a crash is a finding
        raise AssertionError(f"crash {type(exc).__name__}: {exc}\n{where}") from exc
    tally("cube-pipeline")
    assert case.expect_error is None, f"expected {case.expect_error}, compiled and ran: {report.summary()}\n{where}"
    assert report.fault is None, f"device fault: {report.summary()}\n{where}"
    assert report.matches, f"miscompile: {report.summary()}\n{where}"
    return "correct"
