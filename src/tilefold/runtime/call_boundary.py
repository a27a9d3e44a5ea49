"""The ``@pl.jit`` call boundary: a call's arguments bound to the kernel's parameters as Python binds a function's,
each checked against what its annotation asks for, and sizes bounded before anything is allocated.

- **Binding** follows Python's rules and messages (``k() takes 2 positional arguments but 3 were given``,
  ``k() missing argument 'out'``, ``k() got an unexpected keyword argument 'x'``, ``k() got multiple values for
  argument 'a'``), raised as ``ArgumentError`` (a ``TilefoldError``) instead of a ``TypeError``. A ``pl.dynamic``
  extent is not a parameter: it is read from the arrays, and passing it is refused with that hint.
- **Kinds** come from the annotation, read from the ast: a ``pl.Tensor`` parameter takes an array (or a
  ``TensorSpec``), a ``pl.Scalar[dtype]`` parameter a number of that kind: an integer scalar refuses floats (2.9
  is not silently truncated to 2) and bools, a float scalar takes ints and floats, a bool scalar bools only.
- **Sizes**: an array above ``MAX_ARGUMENT_BYTES`` (its logical size: a stride-0 view of 64 GiB counts 64 GiB) is
  refused from its shape alone, before the runtime copies it into simulated GM.
- **No user code runs**: numbers are read through the base types' own methods (``int.__int__``), so an ``int``
  subclass's ``__eq__`` / ``__mul__`` / ``__index__`` is never called; containers through ``tuple`` / ``list``'s.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.errors import Span, TilefoldError
from tilefold.ir.types import DataType
from tilefold.runtime.arrays import is_array

#: the largest array a jit call (or ``tilefold run``) hands to the simulator, per argument: its GM is byte-exact
MAX_ARGUMENT_BYTES = 256 * 2**20


class ArgumentError(TilefoldError):
    """A ``@pl.jit`` call whose arguments do not fit the kernel's parameters."""


@dataclass(frozen=True)
class ParamKind:
    name: str
    kind: str  # "tensor", "scalar" or "any" (an annotation tilefold does not classify here)
    dtype: DataType | None = None  # a scalar's dtype
    annotation: str = ""
    writes: bool = False  # a pl.Out / pl.InOut parameter


def _annotation_kind(name: str, node: ast.expr | None) -> ParamKind:
    text = ast.unparse(node) if node is not None else ""
    inner = node
    writes = False
    if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Attribute) \
            and inner.value.attr in ("Out", "InOut", "In"):
        writes = inner.value.attr != "In"
        inner = inner.slice
    head = inner.value if isinstance(inner, ast.Subscript) else inner
    if isinstance(head, ast.Attribute) and head.attr in ("Tensor", "TensorView"):
        return ParamKind(name, "tensor", annotation=text, writes=writes)
    if isinstance(head, ast.Attribute) and head.attr == "Scalar":
        dtype = None
        if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Attribute):
            dtype = DataType.__members__.get(inner.slice.attr)
        return ParamKind(name, "scalar", dtype, text)
    return ParamKind(name, "any", annotation=text)


def param_kinds(node: ast.FunctionDef) -> list[ParamKind]:
    """The parameters of a jit function's definition, with the kind each annotation asks for."""
    return [_annotation_kind(a.arg, a.annotation) for a in node.args.args]


def _names(items: Sequence[str]) -> str:
    quoted = [f"'{n}'" for n in items]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def bind(fname: str, params: Sequence[ParamKind], args: Sequence[Any], kwargs: dict[str, Any],
         dynamic: Sequence[str] = (), span: Span | None = None) -> tuple[Any, ...]:
    """The call's values in parameter order, bound with Python's rules (every parameter positional-or-keyword,
    none with a default: the jit form has no defaults); ``dynamic``: the ``pl.dynamic`` names of the signature."""
    names = [p.name for p in params]
    dyn_hint = (f"{_names(list(dynamic))} {'is a' if len(dynamic) == 1 else 'are'} pl.dynamic extent"
                f"{'' if len(dynamic) == 1 else 's'}: read from the arrays' shapes, never passed") if dynamic else None
    if len(args) > len(names):
        raise ArgumentError(f"{fname}() takes {len(names)} positional argument{'' if len(names) == 1 else 's'} but "
                            f"{len(args)} {'was' if len(args) == 1 else 'were'} given", span=span,
                            hint=dyn_hint or f"the parameters are {', '.join(names) or 'none'}")
    bound: dict[str, Any] = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if type(key) is not str or key not in names:
            hint = dyn_hint if key in dynamic else f"the parameters are {', '.join(names) or 'none'}"
            raise ArgumentError(f"{fname}() got an unexpected keyword argument '{key}'", span=span, hint=hint)
        if key in bound:
            raise ArgumentError(f"{fname}() got multiple values for argument '{key}'", span=span,
                                hint="pass each argument once, by position or by name")
        bound[key] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise ArgumentError(f"{fname}() missing argument{'' if len(missing) == 1 else 's'} {_names(missing)}",
                            span=span, hint=f"call {fname}({', '.join(names)}): an array (or number) per parameter")
    return tuple(bound[n] for n in names)


# ------------------------------------------------------------------------------------------------
# exact values: read without calling methods a user class may override
# ------------------------------------------------------------------------------------------------


def exact_value(value: Any, depth: int = 0) -> Any:
    """``value`` with every ``int`` / ``float`` / ``str`` / ``list`` / ``tuple`` replaced by a value of the exact base
    type, read through the base type's own method. Other objects are returned unchanged."""
    t = type(value)
    if t in (int, float, bool, str) or value is None:
        return value
    if issubclass(t, bool):  # pragma: no cover  (bool cannot be subclassed)
        return bool.__bool__(value)
    if issubclass(t, int):
        return int.__int__(value)
    if issubclass(t, float):
        return float.__float__(value)
    if issubclass(t, str):
        return str.__str__(value)
    if issubclass(t, (list, tuple)) and depth < 8:
        items = list.__iter__(value) if issubclass(t, list) else tuple.__iter__(value)
        elems = tuple(exact_value(v, depth + 1) for v in items)
        return list(elems) if t is list else elems
    return value


def _is_spec(v: Any) -> bool:
    """A ``TensorSpec`` (shape and dtype without data; defined with the jit decorator, above this layer)."""
    return type(v).__name__ == "TensorSpec" and type(v.__dict__.get("dtype")) is DataType \
        and type(v.__dict__.get("shape")) is tuple


def _number(value: Any) -> Any:
    """A Python number from a number-like argument (numpy scalars and 0-d arrays included), else None."""
    value = exact_value(value)
    if type(value) in (int, float, bool):
        return value
    mod = type(value).__module__ or ""
    if mod.startswith("numpy") and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    if mod.startswith("torch") and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return None


def _describe(value: Any) -> str:
    """What the argument is, for a message: an array's shape and dtype, else its type's name (no attribute of a
    user object is read: a property would run user code)."""
    if is_array(value):
        shape, _ = _array_extent(value)
        return f"an array of shape {list(shape)} ({value.dtype})"
    return f"a {type(value).__name__}"


def _check_array(where: str, p: ParamKind, value: Any, span: Span | None) -> None:
    """A numpy array argument of a dtype tilefold has no element type for (object, structured, complex, datetime)
    is refused by parameter name before anything is compiled or run."""
    import numpy as np

    from tilefold.ir.types import dtype_from_numpy

    if not isinstance(value, np.ndarray):
        return
    dt = value.dtype if value.dtype.isnative else value.dtype.newbyteorder("=")
    if dtype_from_numpy(dt) is None:
        raise ArgumentError(f"{where} is an array of dtype {value.dtype}, which no tilefold element type holds",
                            span=span, hint="pass a float32 / float16 / bfloat16 / integer / bool array "
                                            "(arr.astype(np.float32))")


def check_writable(fname: str, params: Sequence[ParamKind], values: Sequence[Any], span: Span | None = None) -> None:
    """A read-only numpy array for a pl.Out / pl.InOut parameter is refused before the run (after the size checks:
    a huge broadcast view is refused for its size first)."""
    import numpy as np

    for p, v in zip(params, values, strict=True):
        if p.writes and isinstance(v, np.ndarray) and not v.flags.writeable:
            raise ArgumentError(f"{fname}(): argument '{p.name}' is a read-only numpy array, but the kernel writes "
                                f"it ({p.annotation})", span=span,
                                hint="pass a writable array (np.zeros(...), or arr.copy() of a broadcast view)")


def check_kinds(fname: str, params: Sequence[ParamKind], values: Sequence[Any], span: Span | None = None) -> tuple:
    """Each value checked against its parameter's annotation; scalars returned as exact Python numbers."""
    out = []
    for p, v in zip(params, values, strict=True):
        where = f"{fname}(): argument '{p.name}'"
        if p.kind == "tensor":
            if not (is_array(v) or _is_spec(v)):
                raise ArgumentError(f"{where} is {_describe(v)}, but the parameter is {p.annotation}",
                                    span=span, hint="pass a numpy array (or a torch tensor, or a TensorSpec to "
                                                    "compile() / lower())")
            _check_array(where, p, v, span)
            out.append(v)
            continue
        if p.kind == "scalar":
            n = None if is_array(v) and getattr(v, "ndim", 1) != 0 else _number(v)
            if n is None:
                raise ArgumentError(f"{where} is {_describe(v)}, but the parameter is {p.annotation}",
                                    span=span, hint="pass a Python number for a pl.Scalar parameter")
            out.append(_check_scalar(where, p, n, span))
            continue
        out.append(exact_value(v) if _number(v) is not None else v)
    return tuple(out)


def _check_scalar(where: str, p: ParamKind, n: Any, span: Span | None) -> Any:
    d = p.dtype
    if d is None:
        return n
    if d.is_bool:
        if type(n) is not bool:
            raise ArgumentError(f"{where} is {n!r}, but the parameter is {p.annotation}", span=span,
                                hint="pass True or False")
        return n
    if d.is_float:
        if type(n) is bool:
            raise ArgumentError(f"{where} is {n!r} (a bool), but the parameter is {p.annotation}", span=span,
                                hint="pass a number")
        return float(n)
    # integer and INDEX scalars
    if type(n) is not int:
        what = "a bool" if type(n) is bool else ("not a whole number" if isinstance(n, float) and not
                                                   (math.isfinite(n) and n == int(n)) else "a float")
        raise ArgumentError(f"{where} is {n!r} ({what}), but the parameter is {p.annotation}", span=span,
                            hint="pass an int: an integer scalar (a trip count, an offset) is never rounded")
    bits = 63 if d is DataType.INDEX else max(d.bits - (0 if d.name.startswith("U") else 1), 1)
    lo = 0 if d.name.startswith("U") else -(2**bits)
    if not lo <= n < 2**bits:
        raise ArgumentError(f"{where} is {n}, which does not fit {d.name}", span=span,
                            hint=f"pass a value in [{lo}, {2**bits - 1}]")
    return n


def _array_extent(v: Any) -> tuple[tuple[int, ...], int]:
    """(shape, bytes per element) of a numpy array or torch tensor, read from its metadata (no copy)."""
    import numpy as np

    if isinstance(v, np.ndarray):
        return tuple(v.shape), v.dtype.itemsize
    shape, elem = getattr(v, "shape", None), getattr(v, "element_size", None)
    if shape is not None and callable(elem):
        return tuple(exact_value(tuple(shape))), int(elem())
    from tilefold.runtime.arrays import as_numpy

    arr = as_numpy(v)  # a torch tensor without the metadata accessors: numpy's view of it
    return tuple(arr.shape), arr.dtype.itemsize


def logical_bytes(shape: Sequence[Any], itemsize: int) -> int:
    n = itemsize
    for d in shape:
        n *= int(exact_value(d))
    return n


def check_sizes(fname: str, params: Sequence[ParamKind], values: Sequence[Any], span: Span | None = None,
                limit: int = MAX_ARGUMENT_BYTES) -> None:
    """Refuse an array (or TensorSpec) above ``limit`` bytes from its shape alone, before anything is copied."""
    for p, v in zip(params, values, strict=True):
        if _is_spec(v):
            shape, itemsize = v.shape, v.dtype.itemsize
        elif is_array(v):
            shape, itemsize = _array_extent(v)
        else:
            continue
        size = logical_bytes(shape, itemsize)
        if size > limit:
            raise ArgumentError(f"{fname}(): argument '{p.name}' is {list(exact_value(tuple(shape)))}: {size:,} "
                                f"bytes, above the {limit // 2**20} MiB limit per argument", span=span,
                                hint="tilefold simulates GM byte by byte: run the kernel on a smaller tensor (a "
                                     "broadcast / stride-0 view counts its full logical size)")


__all__ = ["ArgumentError", "MAX_ARGUMENT_BYTES", "ParamKind", "bind", "check_kinds", "check_sizes", "exact_value",
           "logical_bytes", "param_kinds"]
