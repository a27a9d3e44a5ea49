"""MX (microscaling) block-scale matmuls of Ascend950 (issue 19): ``tile.matmul_mx``, ``tile.matmul_mx_acc``,
``tile.matmul_mx_bias`` (``pl.matmul_mx`` ... , tile-only as in PyPTO's catalog).

What PyPTO's references pin (language/00-types, ops/01-catalog): the ops take a data tile and a scale tile per
operand; both data tiles reaching the op must be FP8E4M3FN (an FP4 lhs is cast to FP8 first with ``pl.cast``;
native FP4 x FP4 and FP8 x FP4 are unsupported); the scale dtype is FP8E8M0, "the MX block-scale exponent"; the
path exists on Ascend950 only. What they do not pin, tilefold takes from the OCP Microscaling (MX) v1.0 spec:

- one E8M0 scale per block of 32 consecutive elements along K: ``lhs_scale`` is ``[M, K / 32]`` (block ``kb`` of
  row ``m`` of ``lhs``), ``rhs_scale`` is ``[K / 32, N]`` (block ``kb`` of column ``n`` of ``rhs``); K is a
  multiple of 32. A scale value is ``2 ** (e - 127)``; the encoding 0xFF is NaN and makes its whole block NaN;
- ``C[m, n] = sum_k (lhs[m, k] * s_l[m, k // 32]) * (rhs[k, n] * s_r[k // 32, n])``, the scaled products summed
  exactly (a float64 model: FP8 products and power-of-two scales are exact there) and rounded once to the FP32
  result; ``_acc`` adds the accumulator (``acc + C``), ``_bias`` adds a ``[1, N]`` bias row.

tilefold's scale tiles are logical row-major ``[M, K/32]`` / ``[K/32, N]`` tiles: the device's packed GM scale
layouts (``pl.MX_A_ZZ`` / ``pl.MX_B_NN``) and its LeftScale / RightScale buffers are not modelled; a scale tile
lives beside its data tile in Left (``lhs_scale``) / Right (``rhs_scale``) and counts against that memory.
On Ascend910B / 910C codegen refuses the ops (the target's ``cube_mx`` fact). Price: the cube formula on the
1-byte FP8 operands (``targets/costs_a5.py`` ``MX_CUBE``), an extrapolation: no MX matmul is profiled.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.errors import TypeInferenceError
from tilefold.ir.expr import ConstInt
from tilefold.ir.types import DataType, MemorySpace, TileType, Type
from tilefold.ops import tile_ops as _tl
from tilefold.ops.registry import OpDef, OpKind, Param, ParamKind, Unit, register_op

#: elements of K sharing one E8M0 scale (OCP MX v1.0: the block size of every MX format)
MX_BLOCK = 32
#: the data dtype the MX cube takes (PyPTO: both data tiles reaching the op are FP8E4M3FN)
MX_DATA = DataType.FP8E4M3
#: the scale dtype (PyPTO's FP8E8M0, "the MX block-scale exponent")
MX_SCALE = DataType.FP8E8M0

T = ParamKind.TILE
_NOTE = (f"C = sum over k of (lhs[m, k] * 2**(lhs_scale[m, k // {MX_BLOCK}] - 127)) * (rhs[k, n] * "
         f"2**(rhs_scale[k // {MX_BLOCK}, n] - 127)), FP8E4M3FN data, FP8E8M0 scales, one per {MX_BLOCK} elements of K "
         "(OCP MX v1.0; a NaN scale makes its block NaN); the products are summed exactly and rounded once to the "
         "FP32 result; _acc adds the accumulator, _bias a [1, N] row. Ascend950 only")


def _fail(op: str, msg: str, hint: str) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


def _static(op: str, t: TileType, what: str) -> tuple[int, int]:
    shape = t.static_shape
    if shape is None:
        raise _fail(op, f"the {what} needs a static shape", f"give the {what} constant extents")
    return shape[0], shape[1]


def _check_data(op: str, t: TileType, what: str) -> None:
    if t.dtype is DataType.FP4:
        raise _fail(op, f"the {what} is FP4: native FP4 operands are not supported by the MX cube",
                    "cast an FP4 lhs first: pl.cast(x, pl.FP8E4M3FN) (the FP4 x FP8 form); FP4 x FP4 and FP8 x FP4 "
                    "are not supported")
    if t.dtype is not MX_DATA:
        raise _fail(op, f"the {what} is {t.dtype.name}; MX data tiles must be FP8E4M3FN",
                    "cast the data first: pl.cast(x, pl.FP8E4M3FN), with an FP8E8M0 scale per 32 elements of K")


def mx_shapes(op: str, lhs: TileType, lsc: TileType, rhs: TileType, rsc: TileType) -> tuple[int, int, int]:
    """(M, K, N) of an MX product, every operand's dtype and shape checked."""
    _check_data(op, lhs, "lhs")
    _check_data(op, rhs, "rhs")
    (m, k), (k2, n) = _static(op, lhs, "lhs"), _static(op, rhs, "rhs")
    if k != k2:
        raise _fail(op, f"lhs [{m}, {k}] and rhs [{k2}, {n}] disagree on K", "lhs is [M, K], rhs [K, N]")
    if k % MX_BLOCK:
        raise _fail(op, f"K = {k} is not a multiple of the MX block of {MX_BLOCK}",
                    f"pad K to a multiple of {MX_BLOCK} (each scale covers {MX_BLOCK} elements of K)")
    for t, what, want in ((lsc, "lhs_scale", (m, k // MX_BLOCK)), (rsc, "rhs_scale", (k // MX_BLOCK, n))):
        if t.dtype is not MX_SCALE:
            raise _fail(op, f"{what} is {t.dtype.name}; MX scales are FP8E8M0",
                        "pass the block exponents as an FP8E8M0 tile (value 2**(e - 127))")
        if _static(op, t, what) != want:
            raise _fail(op, f"{what} is {list(t.static_shape)}; it must be {list(want)} (one scale per "
                            f"{MX_BLOCK} elements of K)",
                        f"lhs_scale is [M, K/{MX_BLOCK}], rhs_scale [K/{MX_BLOCK}, N]")
    return m, k, n


def _infer(name: str):
    def infer(args, attrs) -> Type:
        ops = [a.type for a in args]
        at = 1 if name.endswith("_acc") else 0
        m, _, n = mx_shapes(name, *ops[at:at + 4])
        if name.endswith("_acc"):
            acc = ops[0]
            if acc.dtype is not DataType.FP32 or _static(name, acc, "accumulator") != (m, n):
                raise _fail(name, f"the accumulator must be an FP32 [{m}, {n}] tile",
                            "accumulate into the result of pl.matmul_mx (FP32, [M, N])")
            mem = acc.memory_space or MemorySpace.Acc
            return TileType(acc.shape, acc.dtype, mem, None, _tl.canonical_tile_view(acc.shape, mem, acc.tile_view))
        if name.endswith("_bias"):
            bias = ops[4]
            if bias.dtype is not DataType.FP32 or _static(name, bias, "bias") != (1, n):
                raise _fail(name, f"the bias must be an FP32 [1, {n}] tile", "give one FP32 bias per result column")
        return TileType((ConstInt(m), ConstInt(n)), DataType.FP32, MemorySpace.Acc)
    return infer


def _scaled(data: np.ndarray, scale: np.ndarray, axis: int) -> np.ndarray:
    """``data`` (float64) with each block of ``MX_BLOCK`` elements along ``axis`` multiplied by its scale."""
    factor = np.repeat(np.asarray(scale).astype(np.float64), MX_BLOCK, axis=axis)
    return np.asarray(data).astype(np.float64) * factor


def mx_product(lhs: Any, lhs_scale: Any, rhs: Any, rhs_scale: Any) -> np.ndarray:
    """The MX product in FP32 (see the module text)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (_scaled(lhs, lhs_scale, 1) @ _scaled(rhs, rhs_scale, 0)).astype(np.float32)


def _golden(name: str):
    def golden(a, k):
        if name.endswith("_acc"):
            return np.asarray(a[0], np.float32) + mx_product(*a[1:5])
        out = mx_product(*a[:4])
        return out + np.asarray(a[4], np.float32).reshape(1, -1) if name.endswith("_bias") else out
    return golden


_MX_PARAMS = (Param("lhs", T, rank=2), Param("lhs_scale", T, rank=2), Param("rhs", T, rank=2),
              Param("rhs_scale", T, rank=2))
_EXTRA = {"note": _NOTE, "mx": True, "fixed_summation_order": True}
register_op(OpDef("tile.matmul_mx", _MX_PARAMS, _infer("tile.matmul_mx"), OpKind.MATMUL, Unit.CUBE,
                  _tl.ACC, golden=_golden("tile.matmul_mx"),
                  pto="tmatmul_mx", cost="cube", extra=dict(_EXTRA)))
register_op(OpDef("tile.matmul_mx_acc", (Param("acc", T, rank=2), *_MX_PARAMS), _infer("tile.matmul_mx_acc"),
                  OpKind.MATMUL, Unit.CUBE, _tl.INHERIT0, output_reuses_input=0,
                  golden=_golden("tile.matmul_mx_acc"), pto="tmatmul_mx_acc", cost="cube", extra=dict(_EXTRA)))
register_op(OpDef("tile.matmul_mx_bias", (*_MX_PARAMS, Param("bias", T, rank=2)), _infer("tile.matmul_mx_bias"),
                  OpKind.MATMUL, Unit.CUBE, _tl.ACC,
                  golden=_golden("tile.matmul_mx_bias"), pto="tmatmul_mx_bias", cost="cube", extra=dict(_EXTRA)))

__all__ = ["MX_BLOCK", "MX_DATA", "MX_SCALE", "mx_product", "mx_shapes"]
