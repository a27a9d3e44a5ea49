"""N-D ``tile.transpose(x, axis1, axis2)`` (PyPTO's semantics: swap two axes, as ``torch.transpose``) for
FlattenTileNdTo2D, on the flattened 2-D tile ``[prod(leading dims), last]``.

Every swap is built from two primitives, each of plain 2-D ops the backend has (priced by their own cost rows):

- the last two axes (``[B..., R, C] -> [B..., C, R]``): one 2-D ``tile.transpose`` per page (a ``tile.slice`` of
  the page's ``R`` rows), each ``tile.assemble``d at its ``C`` rows of a created result (PyPTO's per-page
  transposes);
- two leading axes (the last one stays): a permutation of rows, moved as runs of consecutive rows (``tile.slice``
  then ``tile.assemble``; e.g. swapping the first two axes of ``[A, B, R, C]`` moves ``A * B`` runs of ``R`` rows);
- a leading axis ``i`` with the last one ``n - 1``: ``swap(i, n - 2)``, ``swap(n - 2, n - 1)``, ``swap(i, n - 2)``.

The result is written window by window onto a ``tile.create``, every element exactly once
(``tilefold.analysis.uninitialized_reads`` proves it). A swap that would need more than ``MAX_COPIES`` copies
is a NotSupportedError naming the transpose.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from tilefold.errors import NotSupportedError, Span
from tilefold.ir.expr import ConstInt, Expr, MakeTuple
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import MemorySpace, TileType
from tilefold.ops import make_call

MAX_COPIES = 1024  # slices + transposes + assembles one N-D transpose may expand into

Bind = Callable[[list[Stmt], str, Expr, "Span | None"], Expr]


def _tup(values) -> MakeTuple:
    return MakeTuple(tuple(ConstInt(int(v)) for v in values))


def _row_map(shape: tuple[int, ...], a1: int, a2: int) -> list[int]:
    """Output row -> source row of swapping the leading axes a1, a2 (the last axis stays)."""
    lead = shape[:-1]
    out_lead = list(lead)
    out_lead[a1], out_lead[a2] = out_lead[a2], out_lead[a1]
    strides = [math.prod(lead[k + 1:]) for k in range(len(lead))]
    rows = []
    for idx in itertools.product(*(range(e) for e in out_lead)):
        src = list(idx)
        src[a1], src[a2] = src[a2], src[a1]
        rows.append(sum(i * s for i, s in zip(src, strides, strict=True)))
    return rows


class _Transposer:
    def __init__(self, bind: Bind, out: list[Stmt], span: Span | None, what: str, mem: MemorySpace | None) -> None:
        self.bind, self.out, self.span, self.what, self.mem = bind, out, span, what, mem
        self.copies = 0

    def _count(self, n: int) -> None:
        self.copies += n
        if self.copies > MAX_COPIES:
            raise NotSupportedError(f"{self.what} expands into more than {MAX_COPIES} tile copies on 2-D tiles",
                                    span=self.span, hint="transpose smaller tiles, or the last two axes only "
                                                         "(one 2-D transpose per page)")

    def _create(self, rows: int, cols: int, dtype) -> Expr:
        call = make_call("tile.create", [], {"shape": (rows, cols), "dtype": dtype,
                                             "target_memory": self.mem or MemorySpace.Vec})
        return self.bind(self.out, "transpose_dst", call, self.span)

    def _put(self, dst: Expr, value: Expr, row: int) -> Expr:
        return self.bind(self.out, "transpose_dst", make_call("tile.assemble", [dst, value, _tup((row, 0))]),
                         self.span)

    def _rows(self, x: Expr, row: int, n: int, cols: int) -> Expr:
        return self.bind(self.out, "transpose_rows", make_call("tile.slice", [x, _tup((n, cols)), _tup((row, 0))]),
                         self.span)

    def last_two(self, x: Expr, shape: tuple[int, ...]) -> tuple[Expr, tuple[int, ...]]:
        *batch, r, c = shape
        pages = math.prod(batch)
        self._count(3 * pages)
        dst = self._create(pages * c, r, x.type.dtype)
        for p in range(pages):
            page = self._rows(x, p * r, r, c) if pages > 1 else x
            t = self.bind(self.out, "transpose_page", make_call("tile.transpose", [page], {"axis1": 0, "axis2": 1}),
                          self.span)
            dst = self._put(dst, t, p * c)
        return dst, (*batch, c, r)

    def leading(self, x: Expr, shape: tuple[int, ...], a1: int, a2: int) -> tuple[Expr, tuple[int, ...]]:
        rows = _row_map(shape, a1, a2)
        runs: list[list[int]] = []  # [output row, source row, count]
        for o, src in enumerate(rows):
            if runs and runs[-1][1] + runs[-1][2] == src:
                runs[-1][2] += 1
            else:
                runs.append([o, src, 1])
        self._count(2 * len(runs))
        cols = shape[-1]
        dst = self._create(len(rows), cols, x.type.dtype)
        for o, src, n in runs:
            dst = self._put(dst, self._rows(x, src, n, cols), o)
        new = list(shape)
        new[a1], new[a2] = new[a2], new[a1]
        return dst, tuple(new)


def flatten_transpose(x2d: Expr, shape: tuple[int, ...], a1: int, a2: int, bind: Bind, out: list[Stmt],
                      span: Span | None) -> Expr:
    """The flattened result of swapping axes a1, a2 of the N-D tile of ``shape`` whose 2-D form is ``x2d``."""
    n = len(shape)
    a1, a2 = sorted((a1, a2))
    if a1 == a2:
        return x2d
    assert isinstance(x2d.type, TileType)
    tr = _Transposer(bind, out, span, f"tile.transpose of axes ({a1}, {a2}) of a {list(shape)} tile",
                     x2d.type.memory_space)
    if (a1, a2) == (n - 2, n - 1):
        return tr.last_two(x2d, shape)[0]
    if a2 < n - 1:
        return tr.leading(x2d, shape, a1, a2)[0]
    y, s = tr.leading(x2d, shape, a1, n - 2)
    y, s = tr.last_two(y, s)
    return tr.leading(y, s, a1, n - 2)[0]


__all__ = ["MAX_COPIES", "flatten_transpose"]
