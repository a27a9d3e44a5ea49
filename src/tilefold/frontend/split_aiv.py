"""``for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.X):`` -- one region of a mixed kernel run by both AIV lanes
(PyPTO's language/04-scopes, "Clusters and AIV lanes").

The region becomes a ``ForStmt`` over ``range(0, 2)`` whose ``attrs`` hold ``("split_aiv", split)`` (PyPTO's
integer split encoding, ``ops/cross_core_ops.py``) and whose loop variable is the lane index ``aiv_id``. The
two lanes run in parallel, not one after the other: the golden interpreter (``golden/lanes.py``) and the
simulator (``sim/lanes.py``) run each lane from the values the region was entered with. Values leave the region
only as

- tensors written through inside the region (``out = pl.store(t, [aiv_id * 32, 0], out)``: a pre-region name
  rebound in the body is carried as an iter arg; only tensors may be, since lanes cannot hand a tile or scalar to
  each other), and
- ``pl.aic_gather`` results (names first bound in the region and read after it: the escaping-name promotion of
  ``frontend/escaping.py``, checked by ``passes/split_aiv_regions.py``).

``pl.aiv_shard`` / ``pl.aic_gather`` take their ``split=`` from the enclosing region; outside a region they are
located errors.
"""

from __future__ import annotations

import ast
from typing import Any

from tilefold.ir.expr import ConstInt, IterArg, Var
from tilefold.ir.stmt import AssignStmt, ForKind, ForStmt, SeqStmts, Stmt, YieldStmt
from tilefold.ir.types import DataType, MemorySpace, ScalarType, TensorType, TileType
from tilefold.ops.cross_core_ops import LANES, PIPE_OPS, SPLIT_AIV_ATTR, SPLIT_OF_MODE, popped_shape
from tilefold.ops.registry import make_call

_INDEX = ScalarType(DataType.INDEX)
_MODE_HINT = "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):  (or UP_DOWN / LEFT_RIGHT)"


def is_split_aiv_loop(p: Any, s: ast.For) -> bool:
    it = s.iter
    return (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "split_aiv"
            and p._is_pl(it.func.value))


def _mode(p: Any, call: ast.Call) -> int:
    if len(call.args) != 1 or not (isinstance(call.args[0], ast.Constant) and call.args[0].value == LANES
                                   and type(call.args[0].value) is int):
        raise p.error(call, f"pl.split_aiv takes the lane count {LANES} (a cluster has two AIV lanes)",
                      hint=_MODE_HINT)
    mode_node = None
    for kw in call.keywords:
        if kw.arg != "mode":
            raise p.error(kw.value, f"unknown keyword {kw.arg!r} for pl.split_aiv", hint=_MODE_HINT)
        mode_node = kw.value
    if mode_node is None:
        raise p.error(call, "pl.split_aiv needs mode=: how the two lanes divide the work", hint=_MODE_HINT)
    if isinstance(mode_node, ast.Attribute) and mode_node.attr in SPLIT_OF_MODE \
            and isinstance(mode_node.value, ast.Attribute) and mode_node.value.attr == "SplitMode" \
            and p._is_pl(mode_node.value.value):
        return SPLIT_OF_MODE[mode_node.attr]
    raise p.error(mode_node, f"unknown split mode {ast.unparse(mode_node)!r}", hint=_MODE_HINT)


def _rebound_names(p: Any, s: ast.For, lane: str) -> list[tuple[str, ast.AST]]:
    """Names bound before the region that its body rebinds (``out = pl.store(..., out)``, ``out[...] = v``)."""
    found: dict[str, ast.AST] = {}
    for node in s.body:
        for sub in ast.walk(node):
            name, at = None, sub
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                name = sub.id
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                    and isinstance(sub.targets[0], ast.Subscript) and isinstance(sub.targets[0].value, ast.Name):
                name = sub.targets[0].value.id
            if name is not None and name != lane and name in p.env and name not in found:
                found[name] = at
    return list(found.items())


def parse_split_aiv(p: Any, s: ast.For, out: list[Stmt]) -> None:
    """Parse one region (see the module docstring) into ``out``."""
    call = s.iter
    if getattr(p, "_split_aiv_mode", None) is not None:
        raise p.error(call, "pl.split_aiv regions cannot nest", hint="close the outer region first")
    if not p._on_chip():
        raise p.error(call, "a pl.split_aiv region belongs inside kernel code",
                      hint="write it inside `with pl.at(level=pl.Level.CORE_GROUP):` or an InCore function")
    if s.orelse:
        raise p.error(s.orelse[0], "for ... else is not supported", hint="move the else block after the region")
    if not isinstance(s.target, ast.Name):
        raise p.error(s.target, "the pl.split_aiv loop binds one lane index", hint=_MODE_HINT)
    split = _mode(p, call)
    lane = s.target.id
    carried = []
    for name, node in _rebound_names(p, s, lane):
        var = p.env[name]
        if not isinstance(var.type, TensorType):
            raise p.error(node, f"{name!r} is bound before the pl.split_aiv region and rebound inside it, but the "
                                "two lanes run in parallel: neither sees the other's value",
                          hint=f"give the region's value another name; to hand a vector tile to the cube, "
                               f"gather it: `{name}_full = pl.aic_gather(...)`")
        carried.append((name, var, node))
    loop_var = Var(lane, _INDEX, p.span(s.target))
    p._push("loop")
    p._define(lane, loop_var, s.target, header=True)
    iter_args = []
    for name, var, node in carried:
        ia = IterArg(name, var.type, p.span(node), var)
        iter_args.append(ia)
        p._define(name, ia, node, header=True)
    p._split_aiv_mode = split
    try:
        body = p._body(s.body, "loop")
    finally:
        p._split_aiv_mode = None
    if p._last_yield is not None:
        raise p.error(p._last_yield.node, "a pl.split_aiv region does not yield",
                      hint="values leave a region as written-through tensors or pl.aic_gather results")
    values = [p.env[name] for name, _var, _node in carried]
    escaping = p._escaping_names({lane, *(name for name, _v, _n in carried)})
    p._pop()
    return_vars = []
    for name, var, _node in carried:
        rv = Var(name, var.type, p.span(s))
        return_vars.append(rv)
        p._define(name, rv, s)
    if values:
        body = [*body, YieldStmt(tuple(values), span=p.span(s))]
    body, return_vars = _promote_gathers(p, s, escaping, body, iter_args, return_vars, out)
    out.append(ForStmt(loop_var, ConstInt(0, DataType.INDEX), ConstInt(LANES, DataType.INDEX),
                       ConstInt(1, DataType.INDEX), tuple(iter_args),
                       SeqStmts(tuple(body)), tuple(return_vars), ForKind.Sequential,
                       ((SPLIT_AIV_ATTR, split),), span=p.span(s)))


def _promote_gathers(p: Any, s: ast.For, escaping: list[tuple[str, Var]], body: list[Stmt], iter_args: list[IterArg],
                     return_vars: list[Var], out: list[Stmt]) -> tuple[list[Stmt], list[Var]]:
    """One more iter arg and return var per name first bound in the region and read after it (a gathered tile,
    checked by ``passes/split_aiv_regions.py``): its initial value is a Mat tile nothing reads (``tile.create``, no
    instruction), where the cube's pop lands; the body yields the name's last value."""
    extra_values = []
    for name, var in escaping:
        shape = getattr(var.type, "static_shape", None)
        if not isinstance(var.type, (TileType, TensorType)) or shape is None:
            raise p.error(s, f"{name!r} is first defined inside this pl.split_aiv region (line {var.span.line}) and "
                             "used after it, but each lane has its own value of it",
                          hint="only pl.aic_gather results (and tensors written through) leave a region")
        init = make_call("tile.create", [], {"shape": tuple(shape), "dtype": var.type.dtype,
                                             "target_memory": MemorySpace.Mat}, span=var.span)
        init_var = Var(f"{name}_dst", init.type, var.span)
        out.append(AssignStmt(init_var, init, span=var.span))
        iter_args.append(IterArg(f"{name}_iter", init.type, var.span, init_var))
        extra_values.append(var)
        rv = Var(name, init.type if isinstance(var.type, TileType) else var.type, p.span(s))
        return_vars = [*return_vars, rv]
        p._define(name, rv, s)
    if extra_values:
        if body and isinstance(body[-1], YieldStmt):
            last = body[-1]
            body = [*body[:-1], YieldStmt((*last.values, *extra_values), span=last.span)]
        else:
            body = [*body, YieldStmt(tuple(extra_values), span=p.span(s))]
    return body, return_vars


def boundary_call(p: Any, node: ast.Call, opname: str) -> ast.Call:
    """``pl.aiv_shard(x)`` / ``pl.aic_gather(x)``: inside a region, with the region's ``split=``."""
    split = getattr(p, "_split_aiv_mode", None)
    base = opname.split(".")[1]
    if split is None and not any(kw.arg == "split" for kw in node.keywords):
        raise p.error(node, f"pl.{base} names a tile crossing the edge of a pl.split_aiv region, but it is not "
                            "inside one", hint=f"call it inside `{_MODE_HINT}`")
    given = [kw for kw in node.keywords if kw.arg == "split"]
    if given and split is None:
        return node  # the printed form (passes/split_aiv_regions.py checks it sits in a region of that split)
    if given:
        v = given[0].value
        if not (isinstance(v, ast.Constant) and v.value == split):
            raise p.error(v, f"split= of pl.{base} must be the region's ({split})",
                          hint="leave split= out: the region's mode gives it")
        return node
    kw = ast.keyword(arg="split", value=ast.Constant(value=split))
    ast.copy_location(kw.value, node)
    new = ast.Call(func=node.func, args=node.args, keywords=[*node.keywords, kw])
    return ast.copy_location(new, node)


def _pipe_key(p: Any, direction: str, attrs: dict[str, Any]) -> tuple:
    return id(getattr(p, "_current_sig", None)), direction, attrs.get("id", 0)


def pipe_attrs(p: Any, node: ast.Call, opname: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """A pop without shape= / dtype= takes the type of the latest push to its pipe (direction and id) in the
    kernel being parsed, halved or joined by its split."""
    if opname not in PIPE_OPS or not opname.startswith("tile.tpop") or "shape" in attrs:
        return attrs
    direction = PIPE_OPS[opname][0]
    pushed = getattr(p, "_pipe_pushes", {}).get(_pipe_key(p, direction, attrs))
    if pushed is None:
        other = "pl.tpush_to_aiv" if direction == "c2v" else "pl.tpush_to_aic"
        raise p.error(node, f"pl.{opname[5:]}(id={attrs.get('id', 0)}) has no earlier {other} to the same pipe id "
                            "in this kernel", hint=f"push first ({other}(tile, split=..., id=...)), or give "
                                                   "shape=[rows, cols] and dtype=pl.<DTYPE>")
    shape, dtype = pushed
    return {**attrs, "shape": popped_shape(shape, direction, int(attrs.get("split", 0) or 0)), "dtype": dtype}


def record_push(p: Any, opname: str, call: Any) -> None:
    """Remember the tile type a push sends (``pipe_attrs`` gives it to the matching pop)."""
    if opname not in ("tile.tpush_to_aiv", "tile.tpush_to_aic"):
        return
    t = call.args[0].type
    shape = getattr(t, "static_shape", None)
    if shape is not None and len(shape) == 2:
        attrs = dict(call.kwargs)
        p.__dict__.setdefault("_pipe_pushes", {})[_pipe_key(p, PIPE_OPS[opname][0], attrs)] = (tuple(shape), t.dtype)


def refuse_scope(p: Any, call: ast.Call, name: str) -> Exception:
    """The error for ``with pl.split_aiv(...)`` / ``with pl.incore():`` (``pl.cluster()``: frontend/cluster.py)."""
    from tilefold.errors import NotSupportedError

    if name == "split_aiv":
        return p.error(call, "pl.split_aiv is a loop over the two AIV lanes, not a with scope", hint=_MODE_HINT)
    return NotSupportedError(f"pl.{name}(...) scopes are not supported", span=p.span(call),
                             hint="use `with pl.at(level=pl.Level.CORE_GROUP):`; tilefold places cube and vector "
                                  "work itself")


__all__ = ["boundary_call", "refuse_scope", "is_split_aiv_loop", "parse_split_aiv", "pipe_attrs", "record_push"]
