"""Scans and the full sort along one axis of a Vec tile: ``tile.cumsum``, ``tile.cumprod``, ``tile.sort``.

They are the tilefold counterparts of HIVM's ``vcumsum`` / ``vcumprod`` (HIVMDialect.md: "each element along the
specified axis ... contains the sum [product] of all elements from the first element to the current position";
``reverse`` runs from the last element instead) and of ``vsort``'s value output (the sorting axis in ascending
order, or descending; "currently only tail axis sorting is supported").

Semantics tilefold fixes where the reference is silent (repeated in each op's ``extra["note"]``):

- a float scan accumulates in FP32 and rounds each prefix to the tile's dtype (HIVM implements the scans with
  scalar operations, ``ImplByScalarOpInterface``; the accumulation width is not given); an integer scan wraps in
  the tile's dtype;
- ``tile.sort`` sorts values only, NaN last in either order. vsort's index output is not lowered: the reference
  does not say which index equal values get, so a tie would be a guess.

Costs: no PTO instruction exists for them; ``targets/costs_a2a3.py`` / ``costs_a5.py`` price ``TCUMSUM`` /
``TCUMPROD`` / ``TSORT`` by the families they resemble (``EXTRAPOLATED_OPS``). Sub-block strategy: each line along
the scanned / sorted axis is independent of the others, so a tile splits on the other axis only
(``passes/tile_and_bind_sub_block/scans.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ops import tile_ops as _tl
from tilefold.ops.registry import OpDef, OpKind, Param, ParamKind, Unit, register_op

T = ParamKind.TILE
A = ParamKind.ATTR

_SCAN_NOTE = ("out[.., k, ..] is the sum (cumsum) / product (cumprod) of src along `axis` from its first element to "
              "k (reverse=True: from its last element down to k); floats accumulate in FP32 and round each prefix "
              "to the tile's dtype, integers wrap in the tile's dtype")
_SORT_NOTE = ("the values of each line along `axis` (the last axis) in ascending order, descending=True in "
              "descending order; NaN last in either order; no index output")


def _fail(op: str, msg: str, hint: str) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _axis(op: str, attrs: dict[str, Any], rank: int) -> int:
    axis = attrs.get("axis", rank - 1)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise _fail(op, f"axis={axis!r} is not an axis of a rank-{rank} tile", "write axis=0 or axis=1")
    return axis % rank


def _flag(op: str, attrs: dict[str, Any], name: str) -> bool:
    value = attrs.get(name, False)
    if not isinstance(value, bool):
        raise _fail(op, f"{name}={value!r} is not a bool", f"write {name}=True or {name}=False")
    return value


def _infer(op: str, flags: tuple[str, ...]):
    def infer(args, attrs):
        t = _tl._tile(op, args, 0, "source")
        _axis(op, attrs, 2)
        for f in flags:
            _flag(op, attrs, f)
        if op == "tile.sort" and _axis(op, attrs, 2) != 1:
            raise _fail(op, "only the last axis is sorted (HIVM's vsort: tail axis sorting only)", "write axis=1")
        return _tl._vec_tile(t.shape, t.dtype)
    return infer


def scan(src: np.ndarray, axis: int, reverse: bool, product: bool) -> np.ndarray:
    """The inclusive scan of ``src`` along ``axis`` (module docstring for the precision)."""
    src = np.asarray(src)
    x = np.flip(src, axis) if reverse else src
    if src.dtype.kind == "f" or src.dtype.name == "bfloat16":
        wide = x.astype(np.float32)
        out = (np.cumprod(wide, axis=axis) if product else np.cumsum(wide, axis=axis)).astype(src.dtype)
    else:
        with np.errstate(over="ignore"):
            out = np.cumprod(x, axis=axis, dtype=src.dtype) if product else np.cumsum(x, axis=axis, dtype=src.dtype)
    return np.flip(out, axis) if reverse else out


def sort_values(src: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The values of ``src`` sorted along ``axis``, NaN last in either order."""
    src = np.asarray(src)
    asc = np.sort(src, axis=axis)  # NaN sort last
    if not descending:
        return asc
    if src.dtype.kind == "f":  # -NaN is NaN: sorting the negated values keeps NaN last
        return (-np.sort(-src, axis=axis)).astype(src.dtype)
    return np.flip(asc, axis)


_SCAN_PARAMS = (Param("tile", T, memory=_tl.VEC_ONLY, rank=2), Param("axis", A, 1), Param("reverse", A, False))
register_op(OpDef("tile.cumsum", _SCAN_PARAMS, _infer("tile.cumsum", ("reverse",)), OpKind.OTHER, Unit.VECTOR,
                  _tl.VEC, golden=lambda a, k: scan(a[0], k.get("axis", 1), bool(k.get("reverse")), False),
                  pto="tcumsum", cost="vector", extra={"note": _SCAN_NOTE, "scan_axis": "axis"}))
register_op(OpDef("tile.cumprod", _SCAN_PARAMS, _infer("tile.cumprod", ("reverse",)), OpKind.OTHER, Unit.VECTOR,
                  _tl.VEC, golden=lambda a, k: scan(a[0], k.get("axis", 1), bool(k.get("reverse")), True),
                  pto="tcumprod", cost="vector", extra={"note": _SCAN_NOTE, "scan_axis": "axis"}))
register_op(OpDef("tile.sort", (Param("tile", T, memory=_tl.VEC_ONLY, rank=2), Param("axis", A, 1),
                                Param("descending", A, False)),
                  _infer("tile.sort", ("descending",)), OpKind.OTHER, Unit.VECTOR, _tl.VEC,
                  golden=lambda a, k: sort_values(a[0], k.get("axis", 1), bool(k.get("descending"))),
                  pto="tsort", cost="vector", extra={"note": _SORT_NOTE, "scan_axis": "axis"}))
