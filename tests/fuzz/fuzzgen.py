"""Random but valid vector ``pl`` programs for the differential fuzzer.

``generate(rng)`` returns a ``FuzzCase``: the DSL text of one InCore / AIV kernel and concrete inputs. The
program only uses in-bounds windows (for every ``block_dim`` in {1, 2} and the chosen scalar parameter
values), never reads uninitialised tiles and computes only finite values, so the golden interpreter
defines its result and any compiled program that is accepted must reproduce it.

Blocks are distinct units (DESIGN.md section 1): a program that reads ``get_block_idx``
(``FuzzCase.block_indexed``) gives every store a block offset into a tensor with one window per block, so
its blocks never write the same bytes; a program that does not is one execution per block whose stores
race under ``block_dim = 2`` (the oracle expects the simulator to report that race).

Custom-op kernels used by the programs are registered by ``register_fuzz_kernels()``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilefold.custom import register_custom_op
from tilefold.ir.types import DataType

ROWS = (1, 2, 8, 15, 16, 32)
COLS = (8, 16, 32, 64, 128)
DTYPES = ("FP32", "FP16", "BF16")
MAX_BLOCK_DIM = 2

# ---------------------------------------------------------------------------------------------------------------
# custom-op kernels (tile-local numpy functions)
# ---------------------------------------------------------------------------------------------------------------


def _like(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.asarray(v).astype(np.asarray(x).dtype)


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x32 = np.asarray(x, np.float32)
    e = np.exp(x32 - x32.max(axis=axis, keepdims=True))
    return _like(x, e / e.sum(axis=axis, keepdims=True))


FUZZ_KERNELS = {
    "fz.identity": lambda x: np.array(x, copy=True),
    "fz.bias_row": lambda x, b: _like(x, np.asarray(x, np.float32) + np.asarray(b, np.float32)),
    "fz.softmax_row": lambda x: _softmax(x, 1),
    "fz.softmax_col": lambda x: _softmax(x, 0),
    "fz.split": lambda x: (_like(x, np.maximum(np.asarray(x, np.float32), 0.0)),
                           _like(x, np.minimum(np.asarray(x, np.float32), 0.0))),
    "fz.scale": lambda x, s: _like(x, np.asarray(x, np.float32) * np.float32(s)),
}


def register_fuzz_kernels() -> None:
    for symbol, kernel in FUZZ_KERNELS.items():
        register_custom_op(symbol, kernel, replace=True)


# ---------------------------------------------------------------------------------------------------------------
# generator
# ---------------------------------------------------------------------------------------------------------------

ID2 = 'pl.affine_map("(d0, d1) -> (d0, d1)")'
ROWB = 'pl.affine_map("(d0, d1) -> (d0, 0)")'
SCAL = 'pl.affine_map("(d0, d1) -> ()")'


@dataclass(frozen=True)
class Tile:
    name: str
    r: int
    c: int
    dt: str

    @property
    def ann(self) -> str:
        return f"pl.Tile[[{self.r}, {self.c}], pl.{self.dt}, pl.Mem.Vec]"


@dataclass
class FuzzCase:
    text: str
    inputs: dict[str, Any]
    func_type: str
    features: set[str] = field(default_factory=set)
    block_indexed: bool = False  # reads get_block_idx, and every store window is disjoint across blocks


class _Scope:
    def __init__(self, parent: _Scope | None = None) -> None:
        self.parent = parent
        self.tiles: list[Tile] = list(parent.tiles) if parent else []


class Gen:
    def __init__(self, rng: random.Random, max_ops: int = 10) -> None:
        self.rng = rng
        self.max_ops = max_ops
        self.params: list[str] = []  # DSL parameter declarations (ins)
        self.out_params: list[str] = []
        self.out_types: list[str] = []
        self.out_names: list[str] = []
        self.inputs: dict[str, Any] = {}
        self.lines: list[str] = []
        self.indent = 2
        self.counter = 0
        self.scope = _Scope()
        self.features: set[str] = set()
        self.block = False  # kernel reads get_block_idx
        self.nscalar: dict[str, int] = {}  # scalar params -> value
        self.np_rng = np.random.default_rng(rng.randrange(2 ** 32))
        self.depth = 0
        self.used: set[str] = set()
        self.ret_alias: dict[str, str] = {}
        # uniform programs share one shape and dtype: the sub-block split applies to most of them
        self.uniform = rng.random() < 0.6
        self.shape0 = (rng.choice((2, 8, 16, 32)), rng.choice(COLS))
        self.dt0 = rng.choice(DTYPES)

    # -- helpers ------------------------------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)
        rhs = line.split("=", 1)[1] if "=" in line.split("(", 1)[0] else line
        self.used.update(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", rhs))

    def fold_unused(self, into: Tile, fresh_only: list[Tile]) -> Tile:
        """Fold values of ``fresh_only`` nobody read into ``into`` (so no generated work is dead)."""
        for t in fresh_only:
            if t.name in self.used or t.dt != into.dt:
                continue
            if (t.r, t.c) == (into.r, into.c):
                into = self.assign("f", into.r, into.c, into.dt, f"pl.tile.add({into.name}, {t.name})")
            elif (t.r, t.c) == (into.r, 1):
                into = self.assign("f", into.r, into.c, into.dt, f"pl.tile.row_expand_add({into.name}, {t.name})")
            elif (t.r, t.c) == (1, into.c):
                into = self.assign("f", into.r, into.c, into.dt, f"pl.tile.col_expand_add({into.name}, {t.name})")
        return into

    def add(self, t: Tile) -> Tile:
        self.scope.tiles.append(t)
        return t

    def assign(self, base: str, r: int, c: int, dt: str, expr: str, annotate: bool | None = None) -> Tile:
        t = Tile(self.fresh(base), r, c, dt)
        if annotate is None:
            annotate = self.rng.random() < 0.5
        self.emit(f"{t.name}: {t.ann} = {expr}" if annotate else f"{t.name} = {expr}")
        return self.add(t)

    def pick(self, pred=lambda t: True) -> Tile | None:
        cands = [t for t in self.scope.tiles if pred(t)]
        if not cands:
            return None
        # favour recent tiles: programs become chains rather than piles of dead values
        if self.rng.random() < 0.6:
            return cands[-1 - self.rng.randrange(min(3, len(cands)))]
        return self.rng.choice(cands)

    def rand_array(self, shape: tuple[int, ...], dt: str) -> np.ndarray:
        return self.np_rng.uniform(-1.0, 1.0, size=shape).astype(np.float32).astype(DataType[dt].np_dtype)

    # -- sources ------------------------------------------------------------------------------------------------
    def load(self, r: int | None = None, c: int | None = None, dt: str | None = None) -> Tile:
        if self.uniform and r is None and c is None:
            r, c = self.shape0
        r = r if r is not None else self.rng.choice(ROWS)
        c = c if c is not None else self.rng.choice(COLS)
        dt = dt or (self.dt0 if self.uniform else self.rng.choice(DTYPES))
        name = self.fresh("x")
        mode = self.rng.random()
        if self.block and mode < 0.35:
            # each block reads its own rows
            shape = (MAX_BLOCK_DIM * r, c)
            off = f"[b * {r}, 0]"
            self.features.add("load-block-offset")
        elif mode < 0.55:
            # a window of a larger tensor at a constant offset
            er, ec = self.rng.choice((0, 1, 3, 8)), self.rng.choice((0, 8, 16))
            shape = (r + er, c + ec)
            off = f"[{self.rng.randint(0, er)}, {self.rng.choice([o for o in (0, 8, 16) if o <= ec])}]"
        else:
            shape = (r, c)
            off = "[0, 0]"
        self.params.append(f"{name}: pl.Tensor[[{shape[0]}, {shape[1]}], pl.{dt}]")
        self.inputs[name] = self.rand_array(shape, dt)
        style = self.rng.random()
        if style < 0.5:
            expr = f"pl.tile.load({name}, {off}, [{r}, {c}], target_memory=pl.Mem.Vec)"
        else:
            expr = f"pl.load({name}, {off}, [{r}, {c}])"
        return self.assign("t", r, c, dt, expr, annotate=True)

    def need(self, r: int, c: int, dt: str, avoid: Tile | None = None) -> Tile:
        t = self.pick(lambda t: (t.r, t.c, t.dt) == (r, c, dt) and t != avoid)
        if t is None or self.rng.random() < 0.3:
            t = self.load(r, c, dt)
        return t

    def scalar_param(self, lo: int, hi: int) -> str:
        name = self.fresh("n")
        value = self.rng.randint(lo, hi)
        self.params.append(f"{name}: pl.Scalar[pl.INDEX]")
        self.inputs[name] = value
        self.nscalar[name] = value
        return name

    # -- ops ----------------------------------------------------------------------------------------------------
    def op_binary(self) -> None:
        a = self.pick()
        if a is None:
            return
        b = self.need(a.r, a.c, a.dt, avoid=a)
        op = self.rng.choice(("add", "sub", "mul", "maximum", "minimum"))
        prefix = "pl.tile." if self.rng.random() < 0.7 else "pl."
        self.assign("e", a.r, a.c, a.dt, f"{prefix}{op}({a.name}, {b.name})")

    def op_scalar(self) -> None:
        a = self.pick()
        if a is None:
            return
        op = self.rng.choice(("adds", "subs", "muls", "maxs", "mins"))
        v = self.rng.choice(("0.5", "2.0", "-1.0", "0.25", "1.5"))
        self.assign("s", a.r, a.c, a.dt, f"pl.tile.{op}({a.name}, {v})")

    def op_unary(self) -> None:
        a = self.pick()
        if a is None:
            return
        op = self.rng.choice(("abs", "neg", "relu", "exp"))
        if op == "exp":
            # keep exp bounded: exp(min(x, 2))
            m = self.assign("m", a.r, a.c, a.dt, f"pl.tile.mins({a.name}, 2.0)")
            a = m
        self.assign("u", a.r, a.c, a.dt, f"pl.tile.{op}({a.name})")

    def op_cast(self) -> None:
        a = self.pick()
        if a is None:
            return
        dt = self.rng.choice([d for d in DTYPES if d != a.dt])
        self.features.add("cast")
        self.assign("k", a.r, a.c, dt, f"pl.tile.cast({a.name}, target_type=pl.{dt})")

    def op_reduce(self) -> None:
        a = self.pick()
        if a is None:
            return
        kind = self.rng.choice(("sum", "max", "min"))
        if self.rng.random() < 0.5:
            self.features.add("row-reduce")
            self.assign("rr", a.r, 1, a.dt, f"pl.tile.row_{kind}({a.name})")
        else:
            self.features.add("col-reduce")
            self.assign("cr", 1, a.c, a.dt, f"pl.tile.col_{kind}({a.name})")

    def op_expand(self) -> None:
        a = self.pick(lambda t: t.r > 1 or t.c > 1)
        if a is None:
            return
        row = self.rng.random() < 0.5
        fam = self.rng.choice(("", "_add", "_sub", "_mul", "_max", "_min") + (() if row else ("_expdif",)))
        if row:
            v = self.pick(lambda t: (t.r, t.c, t.dt) == (a.r, 1, a.dt))
            if v is None and self.rng.random() < 0.4:
                v = self.vector_slice(a, row=True)
            if v is None:
                src = self.need(a.r, self.rng.choice(COLS), a.dt) if self.rng.random() < 0.5 else a
                v = self.assign("rr", a.r, 1, a.dt, f"pl.tile.row_{self.rng.choice(('sum', 'max'))}({src.name})")
            self.features.add("row-expand")
            self.assign("re", a.r, a.c, a.dt, f"pl.tile.row_expand{fam}({a.name}, {v.name})")
        else:
            v = self.pick(lambda t: (t.r, t.c, t.dt) == (1, a.c, a.dt))
            if v is None and self.rng.random() < 0.5:
                v = self.vector_slice(a, row=False)
            if v is None:
                src = self.need(self.rng.choice(ROWS), a.c, a.dt) if self.rng.random() < 0.5 else a
                v = self.assign("cr", 1, a.c, a.dt, f"pl.tile.col_{self.rng.choice(('sum', 'max'))}({src.name})")
            if fam == "_expdif":
                # exp(t - v) with v = col max of t stays bounded only if v dominates; clamp the target
                m = self.assign("m", a.r, a.c, a.dt, f"pl.tile.mins({a.name}, 1.0)")
                v2 = self.assign("mv", 1, a.c, a.dt, f"pl.tile.maxs({v.name}, -1.0)")
                a, v = m, v2
            self.features.add("col-expand")
            self.assign("ce", a.r, a.c, a.dt, f"pl.tile.col_expand{fam}({a.name}, {v.name})")

    def vector_slice(self, a: Tile, row: bool) -> Tile:
        """A [R, 1] column (row=True) or [1, C] row window of some tile, at a constant or dynamic offset."""
        if row:
            src = self.pick(lambda t: t.r == a.r and t.dt == a.dt) or a
            k = self.rng.randint(0, src.c - 1)
            off = f"[0, {k}]"
            if self.block and k >= 1 and self.rng.random() < 0.3:
                off = f"[0, b * {k}]"
            self.features.add("slice-row-vector")
            return self.assign("vs", a.r, 1, a.dt, f"pl.tile.slice({src.name}, [{a.r}, 1], {off})")
        src = self.pick(lambda t: t.c == a.c and t.dt == a.dt) or a
        k = self.rng.randint(0, src.r - 1)
        m = self.rng.random()
        if m < 0.3 and self.block and k >= 1:
            off = f"[b * {k}, 0]"
        elif m < 0.5 and src.r > 1:
            off = f"[{self.scalar_param(0, src.r - 1)}, 0]"
        else:
            off = f"[{k}, 0]"
        self.features.add("slice-col-vector")
        return self.assign("vs", 1, a.c, a.dt, f"pl.tile.slice({src.name}, [1, {a.c}], {off})")

    def _window(self, a: Tile) -> tuple[int, int, str, str]:
        """A window (h, w, row offset expr, col offset expr) inside ``a`` (any block_dim <= 2)."""
        rng = self.rng
        h = rng.choice([x for x in (1, 2, 4, 8, 15, 16, a.r) if x <= a.r])
        w = rng.choice([x for x in (1, 3, 8, 16, 32, 64, a.c) if x <= a.c])
        mode = rng.random()
        if mode < 0.15 and a.r - h >= 1 and self.block:
            k = rng.randint(1, a.r - h)
            self.features.add("slice-dyn-block-row")
            return h, w, f"b * {k}", str(rng.randint(0, a.c - w))
        if mode < 0.3 and a.c - w >= 1 and self.block:
            k = rng.choice([x for x in (1, 2, 8, 16, a.c - w) if 1 <= x <= a.c - w])
            self.features.add("slice-dyn-block-col")
            return h, w, str(rng.randint(0, a.r - h)), f"b * {k}"
        if mode < 0.42 and a.r - h >= 1:
            n = self.scalar_param(0, a.r - h)
            self.features.add("slice-dyn-param")
            return h, w, n, "0"
        if mode < 0.5 and a.c - w >= 1:
            n = self.scalar_param(0, a.c - w)
            self.features.add("slice-dyn-param")
            return h, w, "0", n
        # constant offsets, biased to aligned ones
        ro = rng.choice([o for o in {0, a.r - h, rng.randint(0, a.r - h)} if 0 <= o <= a.r - h])
        co_opts = [o for o in (0, 8, 16, 32, 64) if o <= a.c - w] + [rng.randint(0, a.c - w)]
        return h, w, str(ro), str(rng.choice(co_opts))

    def op_slice(self) -> None:
        if self.uniform and self.rng.random() < 0.5:
            return self.op_split_window()
        a = self.pick()
        if a is None:
            return
        h, w, ro, co = self._window(a)
        self.features.add("slice")
        s = self.assign("w", h, w, a.dt, f"pl.tile.slice({a.name}, [{h}, {w}], [{ro}, {co}])")
        r = self.rng.random()
        if r < 0.3:
            # slice of slice
            h2, w2, ro2, co2 = self._window(s)
            self.features.add("slice-of-slice")
            s = self.assign("ww", h2, w2, a.dt, f"pl.tile.slice({s.name}, [{h2}, {w2}], [{ro2}, {co2}])")
        elif r < 0.5:
            # alias chain
            for _ in range(self.rng.randint(1, 3)):
                al = Tile(self.fresh("al"), s.r, s.c, s.dt)
                self.emit(f"{al.name} = {s.name}")
                s = self.add(al)
            self.features.add("alias")

    def op_split_window(self) -> None:
        """A window that keeps one axis whole (the sub-block split can bubble through it)."""
        a = self.pick(lambda t: t.r > 1 and t.c > 1)
        if a is None:
            return
        if self.rng.random() < 0.5:
            w = self.rng.choice([x for x in (8, 16, 32, 64) if x < a.c] or [a.c])
            co = self.rng.choice([o for o in (0, 8, 16, 32, 64, a.c - w) if o <= a.c - w])
            shape, off = (a.r, w), f"[0, {co}]"
        else:
            h = self.rng.choice([x for x in (1, 2, 8, 16) if x < a.r] or [a.r])
            ro = self.rng.randint(0, a.r - h)
            if self.block and ro == 0 and a.r - h >= 1 and self.rng.random() < 0.5:
                ro = f"b * {a.r - h}"
            shape, off = (h, a.c), f"[{ro}, 0]"
        self.features.add("slice-split-window")
        s = self.assign("w", shape[0], shape[1], a.dt, f"pl.tile.slice({a.name}, [{shape[0]}, {shape[1]}], {off})")
        if self.rng.random() < 0.3:
            al = Tile(self.fresh("al"), s.r, s.c, s.dt)
            self.emit(f"{al.name} = {s.name}")
            self.add(al)

    def op_extract(self) -> None:
        a = self.pick()
        if a is None:
            return
        h, w, ro, co = self._window(a)
        self.features.add("extract")
        self.assign("x", h, w, a.dt,
                    f"pl.tile.extract({a.name}, {ro}, {co}, shape=[{h}, {w}], target_memory=pl.Mem.Vec)")

    def op_custom(self) -> None:
        a = self.pick(lambda t: t.r >= 1)
        if a is None:
            return
        kind = self.rng.choice(("identity", "bias_row", "softmax_row", "softmax_col", "split", "scale"))
        nse = "True" if self.rng.random() < 0.75 else "False"
        self.features.add(f"custom-{kind}" + ("" if nse == "True" else "-side-effect"))
        init = self.assign("init", a.r, a.c, a.dt,
                           f"pl.tile.create([{a.r}, {a.c}], dtype=pl.{a.dt}, target_memory=pl.Mem.Vec)")
        self.scope.tiles.remove(init)  # never read an uninitialised tile
        tail = f"no_side_effect={nse}"
        if kind == "identity":
            self.assign("y", a.r, a.c, a.dt, f'pl.tile.custom("fz.identity", ins=[{a.name}], outs=[{init.name}], '
                        f"indexing_maps=[{ID2}, {ID2}], iterator_types=[pl.parallel, pl.parallel], {tail})")
        elif kind == "bias_row":
            v = self.pick(lambda t: (t.r, t.c, t.dt) == (a.r, 1, a.dt))
            if v is None:
                v = self.assign("rr", a.r, 1, a.dt, f"pl.tile.row_max({a.name})")
            self.assign("y", a.r, a.c, a.dt,
                        f'pl.tile.custom("fz.bias_row", ins=[{a.name}, {v.name}], outs=[{init.name}], '
                        f"indexing_maps=[{ID2}, {ROWB}, {ID2}], iterator_types=[pl.parallel, pl.parallel], {tail})")
        elif kind in ("softmax_row", "softmax_col"):
            its = "[pl.parallel, pl.reduction]" if kind == "softmax_row" else "[pl.reduction, pl.parallel]"
            self.assign("y", a.r, a.c, a.dt, f'pl.tile.custom("fz.{kind}", ins=[{a.name}], outs=[{init.name}], '
                        f"indexing_maps=[{ID2}, {ID2}], iterator_types={its}, {tail})")
        elif kind == "split":
            init2 = Tile(self.fresh("init"), a.r, a.c, a.dt)
            self.emit(f"{init2.name}: {init2.ann} = pl.tile.create([{a.r}, {a.c}], dtype=pl.{a.dt}, "
                      "target_memory=pl.Mem.Vec)")
            p, q = self.fresh("p"), self.fresh("q")
            self.emit(f'{p}, {q} = pl.tile.custom("fz.split", ins=[{a.name}], outs=[{init.name}, {init2.name}], '
                      f"indexing_maps=[{ID2}, {ID2}, {ID2}], iterator_types=[pl.parallel, pl.parallel], {tail})")
            self.add(Tile(p, a.r, a.c, a.dt))
            self.add(Tile(q, a.r, a.c, a.dt))
        else:
            sc = self.rng.choice(("0.5", "2.0"))
            self.assign("y", a.r, a.c, a.dt,
                        f'pl.tile.custom("fz.scale", ins=[{a.name}, {sc}], outs=[{init.name}], '
                        f"indexing_maps=[{ID2}, {SCAL}, {ID2}], iterator_types=[pl.parallel, pl.parallel], {tail})")

    def _body(self, n: int) -> None:
        for _ in range(n):
            if self.depth == 1 and self.rng.random() < 0.15:
                self.op_if()
            elif self.rng.random() < 0.15:
                self.op_escape_slice()
            else:
                self.step(allow_control=False)

    def op_escape_slice(self) -> None:
        """A window of a larger tile with the shape of an existing tile (it can then be yielded / carried)."""
        t = self.pick()
        if t is None:
            return
        big = self.pick(lambda u: u.dt == t.dt and u.r >= t.r and u.c >= t.c and (u.r, u.c) != (t.r, t.c))
        if big is None:
            return
        ro = self.rng.randint(0, big.r - t.r)
        co = self.rng.choice([0, self.rng.randint(0, big.c - t.c)])
        self.features.add("slice-escape")
        self.assign("es", t.r, t.c, t.dt, f"pl.tile.slice({big.name}, [{t.r}, {t.c}], [{ro}, {co}])")

    def op_loop2(self) -> None:
        """Two carried tiles of one type, permuted by the yield; optional dynamic trip count."""
        if self.depth > 0:
            return
        a = self.pick()
        if a is None:
            return
        b = self.need(a.r, a.c, a.dt, avoid=a)
        self.features.add("loop-swap")
        x, y, ivar = self.fresh("ca"), self.fresh("cb"), self.fresh("i")
        stop = str(self.rng.randint(1, 3)) if self.rng.random() < 0.6 else self.scalar_param(0, 3)
        self.emit(f"for {ivar}, ({x}, {y}) in pl.range(0, {stop}, init_values=({a.name}, {b.name})):")
        outer = self.scope
        self.scope = _Scope(outer)
        self.indent += 1
        self.depth += 1
        self.add(Tile(x, a.r, a.c, a.dt))
        self.add(Tile(y, a.r, a.c, a.dt))
        if self.rng.random() < 0.5:
            self.op_escape_slice()
        self._body(self.rng.randint(0, 2))
        z = self.assign("sw", a.r, a.c, a.dt, f"pl.tile.adds({x}, 0.25)")
        fresh = [t for t in self.scope.tiles if t not in outer.tiles and (t.r, t.c, t.dt) == (a.r, a.c, a.dt)]
        other = self.rng.choice(fresh + [Tile(y, a.r, a.c, a.dt)])
        r1, r2 = self.fresh("lr"), self.fresh("lr")
        self.emit(f"{r1}, {r2} = pl.yield_({other.name}, {z.name})")
        self.indent -= 1
        self.depth -= 1
        self.scope = outer
        self.add(Tile(r1, a.r, a.c, a.dt))
        self.add(Tile(r2, a.r, a.c, a.dt))

    def op_loop(self) -> None:
        if self.depth > 0:
            return
        a = self.pick()
        if a is None:
            return
        self.features.add("loop")
        acc = self.fresh("acc")
        trip = self.rng.randint(1, 3)
        ivar = self.fresh("i")
        # sometimes store inside the loop: the out tensor is carried as an iter arg
        store_in_loop = self.rng.random() < 0.3
        if store_in_loop:
            oname, oty = self._new_out(a.r * trip * self.blocks, a.c, a.dt)
            ocar = self.fresh("oc")
            self.emit(f"for {ivar}, ({acc}, {ocar}) in pl.range(0, {trip}, init_values=({a.name}, {oname})):")
        else:
            self.emit(f"for {ivar}, ({acc},) in pl.range(0, {trip}, init_values=({a.name},)):")
        outer = self.scope
        self.scope = _Scope(outer)
        self.indent += 1
        self.depth += 1
        cur = self.add(Tile(acc, a.r, a.c, a.dt))
        if self.rng.random() < 0.4:
            # a window that moves with the loop variable
            src = self.pick(lambda t: t.r >= trip and t.r > 1) if self.rng.random() < 0.7 else None
            if src is not None:
                h = src.r // trip
                self.features.add("slice-loop-var")
                self.assign("lw", h, src.c, src.dt, f"pl.tile.slice({src.name}, [{h}, {src.c}], [{ivar} * {h}, 0])")
        self._body(self.rng.randint(0, 3))
        # combine back into the iter arg's type, keep values bounded
        cands = [t for t in self.scope.tiles if (t.r, t.c, t.dt) == (a.r, a.c, a.dt) and t not in outer.tiles]
        last = self.rng.choice(cands) if cands else cur
        last = self.fold_unused(last, [t for t in self.scope.tiles if t not in outer.tiles])
        nxt = self.assign("nx", a.r, a.c, a.dt, f"pl.tile.muls({last.name}, 0.5)")
        res = self.fresh("lr")
        if store_in_loop:
            self.features.add("store-in-loop")
            o2 = self.fresh("o")
            row = f"{self.block_row(a.r * trip)}{ivar} * {a.r}"
            self.emit(f"{o2} = pl.store({nxt.name}, [{row}, 0], {ocar})")
            self.emit(f"{res}, {oname}_r = pl.yield_({nxt.name}, {o2})")
            self.ret_alias[oname] = f"{oname}_r"
        else:
            self.emit(f"{res} = pl.yield_({nxt.name})")
        self.indent -= 1
        self.depth -= 1
        self.scope = outer
        self.add(Tile(res, a.r, a.c, a.dt))

    def op_if(self) -> None:
        if self.depth > 1:
            return
        a = self.pick()
        if a is None:
            return
        self.features.add("if")
        if self.block and self.rng.random() < 0.5:
            cond = "b == 0"
        else:
            cond = f"{self.scalar_param(0, 3)} > 1"
        self.emit(f"if {cond}:")
        res = self.fresh("ir")
        outer = self.scope
        for branch in ("then", "else"):
            if branch == "else":
                self.emit("else:")
            self.scope = _Scope(outer)
            self.indent += 1
            self.depth += 1
            self._body(self.rng.randint(0, 2))
            cands = [t for t in self.scope.tiles if (t.r, t.c, t.dt) == (a.r, a.c, a.dt)]
            pick = self.rng.choice(cands)
            fresh = [t for t in self.scope.tiles if t not in outer.tiles]
            if fresh and self.rng.random() < 0.8:
                pick = self.fold_unused(pick, fresh)
            self.emit(f"{res} = pl.yield_({pick.name})")
            self.indent -= 1
            self.depth -= 1
        self.scope = outer
        self.add(Tile(res, a.r, a.c, a.dt))

    def step(self, allow_control: bool = True) -> None:
        ops = [(self.op_binary, 3), (self.op_scalar, 2), (self.op_unary, 1), (self.op_cast, 1),
               (self.op_reduce, 2), (self.op_expand, 2), (self.op_slice, 3), (self.op_extract, 1),
               (self.op_custom, 2)]
        if allow_control:
            ops += [(self.op_loop, 1), (self.op_if, 1), (self.op_loop2, 1)]
        fns, weights = zip(*ops, strict=True)
        self.rng.choices(fns, weights)[0]()

    @property
    def blocks(self) -> int:
        """Windows per out tensor: one per block when the program indexes by block."""
        return MAX_BLOCK_DIM if self.block else 1

    def block_row(self, rows: int) -> str:
        """The block's row offset (``b * rows + ``) of a store in a block-indexed program."""
        return f"b * {rows} + " if self.block else ""

    def _new_out(self, r: int, c: int, dt: str) -> tuple[str, str]:
        name = self.fresh("out")
        ty = f"pl.Tensor[[{r}, {c}], pl.{dt}]"
        self.out_params.append(f"{name}: pl.Out[{ty}]")
        self.out_types.append(ty)
        self.out_names.append(name)
        self.inputs[name] = np.zeros((r, c), dtype=DataType[dt].np_dtype)
        return name, ty

    def store(self, t: Tile) -> None:
        if self.rng.random() < 0.2 and t.r % 2 == 0 and t.r >= 2:
            # two stores of the halves of a tile into one tensor
            name, _ = self._new_out(t.r * self.blocks, t.c, t.dt)
            h = t.r // 2
            self.features.add("store-halves")
            for i in range(2):
                s = self.assign("hs", h, t.c, t.dt, f"pl.tile.slice({t.name}, [{h}, {t.c}], [{i * h}, 0])")
                self.emit(f"{name} = pl.store({s.name}, [{self.block_row(t.r)}{i * h}, 0], {name})")
            return
        name = self.fresh("out")
        mode = self.rng.random()
        if self.block and mode < 0.4:
            shape = (MAX_BLOCK_DIM * t.r, t.c)
            off = f"[b * {t.r}, 0]"
            self.features.add("store-block-offset")
        elif mode < 0.6:
            er, ec = self.rng.choice((0, 1, 4)), self.rng.choice((0, 8, 16))
            shape = ((t.r + er) * self.blocks, t.c + ec)
            off = (f"[{self.block_row(t.r + er)}{self.rng.randint(0, er)}, "
                   f"{self.rng.choice([o for o in (0, 8, 16) if o <= ec])}]")
        else:
            shape = (t.r * self.blocks, t.c)
            off = f"[{self.block_row(t.r)}0, 0]"
        ty = f"pl.Tensor[[{shape[0]}, {shape[1]}], pl.{t.dt}]"
        self.out_params.append(f"{name}: pl.Out[{ty}]")
        self.out_types.append(ty)
        self.out_names.append(name)
        self.inputs[name] = np.zeros(shape, dtype=DataType[t.dt].np_dtype)
        self.emit(f"{name} = pl.store({t.name}, {off}, {name})")

    def program(self) -> FuzzCase:
        func_type = self.rng.choice(("InCore", "InCore", "AIV"))
        self.block = self.rng.random() < 0.5
        if self.block:
            self.emit("b: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()")
        self.load()
        for _ in range(self.rng.randint(1, self.max_ops)):
            self.step()
        # store the most recent values (and, sometimes, an older one)
        nstores = self.rng.choice((1, 1, 2, 3))
        stored: list[Tile] = []
        for t in reversed(self.scope.tiles):
            if len(stored) >= nstores:
                break
            if t not in stored:
                stored.append(t)
        unused = [t for t in self.scope.tiles if t.name not in self.used and t not in stored]
        for t in unused[-3:]:
            stored.append(t)
        for t in stored:
            self.store(t)
        names = [self.ret_alias.get(n, n) for n in self.out_names]
        if len(self.out_names) == 1:
            ret_ann, ret = self.out_types[0], names[0]
        else:
            ret_ann, ret = f"tuple[{', '.join(self.out_types)}]", ", ".join(names)
        self.emit(f"return {ret}")
        head = [
            "import tilefold.language as pl",
            "",
            "",
            "@pl.program",
            "class Fuzz:",
            f"    @pl.function(type=pl.FunctionType.{func_type})",
            f"    def kernel(self, {', '.join(self.params + self.out_params)}) -> {ret_ann}:",
        ]
        return FuzzCase("\n".join(head + self.lines) + "\n", self.inputs, func_type, self.features, self.block)


def generate(seed: int, max_ops: int = 10) -> FuzzCase:
    return Gen(random.Random(seed), max_ops).program()
