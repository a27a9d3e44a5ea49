"""``pl.array`` in kernel code (language/00-types, ops/01-catalog): a small on-core array of scalars.

PyPTO's ``pl.Array[extent, dtype]`` is a one-axis array the scalar unit reads and updates element by element;
the update is functional (it produces a new array value and rebinds the name, so an update in a loop is a
carried value like any other). tilefold keeps such an array in a rank-1 Vec tile of ``extent`` elements, read
and written by the scalar unit's UB element accesses (``tile.read`` = ``sgetval``, ``tile.write`` = ``ssetval``),
so golden, the simulator and the timing model treat it as they treat those ops:

- ``arr = pl.array.create(n, dtype)`` is ``pl.tile.full([n], dtype=dtype, value=0)``: a created array holds zeros
  (PyPTO's pages leave its first contents unsaid; tilefold defines them). ``n`` is a constant in
  ``[1, MAX_ARRAY_EXTENT]``; an INDEX array is stored as INT64 (INDEX is a 64-bit integer);
- ``x = arr[i]`` / ``pl.array.get_element(arr, i)`` is ``tile.read(arr, [i])``;
- ``arr[i] = v`` / ``arr = pl.array.update_element(arr, i, v)`` is ``arr = tile.write(arr, [i], v)``;
- a constant index outside ``[0, n)`` (negative ones too: Python's wrap-around is not an array access) is a
  compile-time error of the registry; a run-time one is a simulator fault (``OutOfBounds``).

Arrays of task ids (``pl.array.create(n, pl.TASK_ID)``) belong to the orchestration code and are handled there
(``jit_scopes.task_array_stmt``); an array of values in orchestration code is refused.
"""

from __future__ import annotations

import ast
from typing import Any

from tilefold.ir.expr import Expr, MakeTuple
from tilefold.ir.stmt import Stmt
from tilefold.ir.types import DataType, TileType

#: the largest array the front end creates (elements): arrays are the scalar unit's small working sets
MAX_ARRAY_EXTENT = 4096
_SPELLINGS = ("create", "get_element", "update_element")


def array_call(p: Any, node: ast.Call, name: str) -> Expr:
    """``pl.array.<name>(...)`` used as a value."""
    if name not in _SPELLINGS:
        raise p.error(node.func, f"unknown op pl.array.{name}",
                      hint="pl.array.create(n, dtype), pl.array.get_element(arr, i), "
                           "pl.array.update_element(arr, i, v)")
    if name == "create":
        return _create(p, node)
    args = list(node.args)
    want = 2 if name == "get_element" else 3
    if len(args) != want or node.keywords:
        shape = "(arr, i)" if name == "get_element" else "(arr, i, value)"
        raise p.error(node, f"pl.array.{name} takes {want} positional operands {shape}",
                      hint=f"e.g. pl.array.{name}{shape}")
    arr = p._expr(args[0])
    _check_array(p, args[0], arr)
    idx = MakeTuple((p._index_expr(args[1]),), span=p.span(args[1]))
    if name == "get_element":
        return _call(p, node, "tile.read", [arr, idx], {})
    return _call(p, node, "tile.write", [arr, idx, p._expr(args[2])], {})


def _create(p: Any, node: ast.Call) -> Expr:
    args = list(node.args)
    dtype_node = next((kw.value for kw in node.keywords if kw.arg == "dtype"), None)
    bad = [kw.arg for kw in node.keywords if kw.arg != "dtype"]
    if dtype_node is None and len(args) == 2:
        dtype_node = args.pop()
    if len(args) != 1 or dtype_node is None or bad:
        raise p.error(node, "pl.array.create takes the extent and the dtype", hint="pl.array.create(16, pl.INT32)")
    if isinstance(dtype_node, ast.Attribute) and dtype_node.attr == "TASK_ID" and p._is_pl(dtype_node.value):
        raise p.error(node, "an array of task ids belongs to the orchestration code, not to a kernel",
                      hint="create it in the orchestration (outside pl.at scopes): "
                           "tids = pl.array.create(n, pl.TASK_ID)")
    if not p._on_chip():
        raise p.error(node, "pl.array.create of values in orchestration code: an on-core array lives in kernel "
                            "code (an InCore function or a pl.at scope)",
                      hint="create it inside the kernel, or keep host values in a tensor (pl.tensor.read / write)")
    n = p._fold_number(args[0])
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_ARRAY_EXTENT:
        raise p.error(args[0], f"the extent of pl.array.create must be a constant in [1, {MAX_ARRAY_EXTENT}], got "
                               f"{ast.unparse(args[0])}",
                      hint="an array is the scalar unit's small working set; keep larger data in a tile")
    dtype = p._dtype(dtype_node)
    if dtype is DataType.INDEX:
        dtype = DataType.INT64  # INDEX is a 64-bit integer; tiles store it as INT64
    zero: Any = 0.0 if dtype.is_float else 0
    return _call(p, node, "tile.full", [], {"shape": (n,), "dtype": dtype, "value": zero})


def _call(p: Any, node: ast.Call, opname: str, args: list[Expr], attrs: dict[str, Any]) -> Expr:
    from tilefold.ops.registry import find_op

    return p._finish_call(node, opname, find_op(opname), args, attrs, ())


def _check_array(p: Any, node: ast.expr, arr: Expr) -> None:
    t = arr.type
    if not (isinstance(t, TileType) and len(t.shape) == 1):
        raise p.error(node, "expected an array (pl.array.create(n, dtype)), got "
                            f"{type(t).__name__.removesuffix('Type').lower()}",
                      hint="pass the array the kernel created with pl.array.create")


def element_write(p: Any, target: ast.Subscript, value_node: ast.expr, out: list[Stmt], s: ast.stmt) -> None:
    """``arr[i] = v`` (an array) or ``t[i, j] = v`` (any tile): the functional update ``arr = tile.write(arr, [i],
    v)``, which rebinds the name."""
    pl_name = next(iter(p.pl))
    items = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
    func = ast.Attribute(value=ast.Attribute(value=ast.Name(id=pl_name, ctx=ast.Load()), attr="tile",
                                             ctx=ast.Load()), attr="write", ctx=ast.Load())
    index = ast.List(elts=items, ctx=ast.Load())
    call = ast.Call(func=func, args=[ast.Name(id=target.value.id, ctx=ast.Load()), index, value_node],  # type: ignore
                    keywords=[])
    for n in (func, func.value, func.value.value, call, call.args[0]):
        ast.copy_location(n, target)
    ast.copy_location(index, target.slice)
    p._assign(target.value, target.value.id, call, None, out, s)  # type: ignore[attr-defined]


def is_element_subscript(target: ast.Subscript) -> bool:
    """``x[i]`` / ``x[i, j]`` with no slice among the subscripts."""
    items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return not any(isinstance(e, ast.Slice) for e in items)


__all__ = ["MAX_ARRAY_EXTENT", "array_call", "element_write", "is_element_subscript"]
