"""The reciprocal, ``tile.recip`` / ``tensor.recip`` (``pl.recip(x, high_precision=False)``), in its two variants.

PyPTO's catalog: "For FP16/FP32 reciprocal, ``high_precision=True`` selects the slower, higher-precision PTO path
on A5". PTO-ISA's A5 cost table measures both variants of TRECIP (``op_params`` default / high_precision); the
default is priced exactly like TDIVS (a division), the high-precision path about 90x (FP32) / 47x (FP16) its
per-repeat cost. Neither reference states the default path's error, so tilefold fixes one model (also in
``extra["note"]``, docs/op_reference.md and docs/precision.md):

- ``high_precision=True``: the correctly rounded reciprocal, ``1 / x`` computed in FP32 (IEEE, round to nearest
  even), then rounded once to the result dtype (FP16 / BF16);
- ``high_precision=False`` (the default): the hardware's approximate reciprocal, modelled as the FP32 reciprocal
  with its lowest ``APPROX_DROPPED_BITS`` mantissa bits cleared (rounded toward zero) wherever the FP32 result is
  a normal number; the relative error is below ``APPROX_REL_ERROR = 2**-20`` (about 9.5e-7), inside the FP32
  compare tolerance (rtol 1e-5, ``testing/precision.py``), and it disappears when the result is rounded to
  FP16 / BF16 except at a rounding boundary (at most one unit in the last place of the narrow type). Zeros,
  infinities, NaN and subnormal results are exact: ``1 / +-0 = +-inf``, ``1 / +-inf = +-0``, NaN stays NaN.

The same numbers on every target (golden knows no target); the price follows the target: A5 from its measured
TRECIP rows (default / high_precision), A2/A3 by the stated rule in ``targets/costs_a2a3.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ops import tensor_ops as _tn
from tilefold.ops import tile_ops as _tl
from tilefold.ops.registry import FLOAT_ONLY, OpDef, OpKind, Param, ParamKind, Unit, register_op

#: mantissa bits of the FP32 reciprocal the default (approximate) path does not deliver
APPROX_DROPPED_BITS = 3
#: bound on the relative error of the default path (normal FP32 results): 2**-(23 - APPROX_DROPPED_BITS)
APPROX_REL_ERROR = 2.0 ** -(23 - APPROX_DROPPED_BITS)

_NOTE = ("high_precision=True: 1 / x correctly rounded (FP32, then one rounding to FP16 / BF16); default: the "
         f"approximate hardware reciprocal, modelled as the FP32 reciprocal with its {APPROX_DROPPED_BITS} lowest "
         f"mantissa bits cleared (relative error < 2**-{23 - APPROX_DROPPED_BITS} on normal results; zeros, "
         "infinities, NaN and subnormal results exact)")


def reciprocal(x: np.ndarray, high_precision: bool) -> np.ndarray:
    """``1 / x`` in FP32 by the chosen variant (see the module text)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.asarray(np.float32(1.0) / np.asarray(x, np.float32), np.float32)
    if high_precision:
        return r
    bits = r.view(np.uint32)
    exponent = (bits >> np.uint32(23)) & np.uint32(0xFF)
    normal = (exponent != 0) & (exponent != 0xFF)  # finite, not subnormal, not zero
    mask = np.uint32((0xFFFFFFFF << APPROX_DROPPED_BITS) & 0xFFFFFFFF)
    return np.where(normal, bits & mask, bits).astype(np.uint32).view(np.float32)


def _high_precision(op: str, attrs: dict[str, Any]) -> bool:
    value = attrs.get("high_precision", False)
    if not isinstance(value, bool):
        raise TypeInferenceError(f"{op}: high_precision={value!r} is not True or False",
                                 hint="high_precision=True selects the slower, correctly rounded path")
    return value


def _infer(name: str):
    unary = _tl._infer_unary(name)

    def infer(args, attrs):
        _high_precision(name, attrs)
        return unary(args, attrs)
    return infer


def _tensor_infer(args, attrs):
    _high_precision("tensor.recip", attrs)
    return _tn._unary_infer("tensor.recip")(args, attrs)


def _golden(a, k):
    return reciprocal(np.asarray(a[0]), bool(k.get("high_precision")))


def cost_variant(attrs: dict[str, Any]) -> str | None:
    """The cost-table variant of a TRECIP instruction with these attributes (``op_params`` of PTO-ISA's A5 table)."""
    return "high_precision" if attrs.get("high_precision") else None


_PARAMS = (Param("tile", ParamKind.TILE), Param("high_precision", ParamKind.ATTR, False))
register_op(OpDef("tile.recip", _PARAMS, _infer("tile.recip"), OpKind.UNARY, Unit.VECTOR, _tl.VEC, golden=_golden,
                  pto="trecip", cost="vector", operand_dtypes=FLOAT_ONLY,
                  extra={"note": _NOTE, "cost_variant": cost_variant}))
_tn._declare("recip", (Param("tensor", ParamKind.TILE_OR_TENSOR), Param("high_precision", ParamKind.ATTR, False)),
             _tensor_infer, OpKind.UNARY, _golden, "tile.recip", note=_NOTE)

__all__ = ["APPROX_DROPPED_BITS", "APPROX_REL_ERROR", "cost_variant", "reciprocal"]
