"""The keyword options and companion scopes of ``pl.at`` in the ``@pl.jit`` form.

PyPTO's runtime builds a task graph from the orchestration code and runs whatever is ready; tilefold runs
the orchestration in program order on one simulated chip. So every ordering construct (``deps=``, ``as tid``,
``no_dep_args=``, ``pl.manual_scope()``, ``pl.create_tensor(..., manual_dep=True)``) is *satisfied* here by
construction: tilefold checks that it names what it must name (a dep is a task id, an opted-out argument is a
tensor the scope touches) and records it, and never lets it change a result. Options that shape the outlined
kernel are carried onto it: ``name_hint=`` names the InCore function; ``optimizations=[pl.split(mode)]`` is
the split axis TileAndBindSubBlock is asked to use (it still proves the split safe, or falls back with a
remark); ``pl.cross_core_slot(slot_num=N)`` is the depth of the kernel's pipes without a set-up (their rings are
reserved on chip by AllocateMemoryAddr, ``ops/pipe_setup.auto_rings``).
``pl.spmd(n)`` outlines its body into one kernel launched on ``n`` blocks (``block_dim``), the block index read
with ``tile.get_block_idx``: the simulator runs the blocks as the device does and reports GM races between them.
"""

from __future__ import annotations

import ast
import keyword
from typing import Any

from tilefold.errors import NotSupportedError
from tilefold.frontend import hierarchy
from tilefold.ir.expr import Var
from tilefold.ir.stmt import AssignStmt, ScopeStmt, SeqStmts, Stmt
from tilefold.ir.types import TensorType
from tilefold.ir.visitor import collect_uses

#: pl.SplitMode member -> what TileAndBindSubBlock halves (UP_DOWN: rows, LEFT_RIGHT: columns, NONE: nothing)
SPLIT_MODES = ("UP_DOWN", "LEFT_RIGHT", "NONE")
AT_OPTIONS = ("level", "role", "name_hint", "optimizations", "deps", "no_dep_args", "dumps", "allow_early_resolve")


class _Tasks:
    """Task ids bound by ``with pl.at(...) as tid`` and ``pl.array.create(n, pl.TASK_ID)`` arrays, per parser."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.arrays: dict[str, int] = {}
        self.manual_depth = 0
        self.current: dict[str, str] = {}  # task-id name -> the unique key of the task it names now
        self.members: dict[str, list[str]] = {}  # task-id array -> keys stored in it
        self.count = 0


def tasks(p: Any) -> _Tasks:
    t = getattr(p, "_tf_tasks", None)
    if t is None:
        t = p._tf_tasks = _Tasks()
    return t


def _src(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - only used in messages
        return "?"


def _is_pl_attr(p: Any, node: ast.expr, *path: str) -> bool:
    """``node`` is ``pl.<path[0]>.<path[1]>...`` (``pl`` any alias of tilefold.language)."""
    for name in reversed(path):
        if not (isinstance(node, ast.Attribute) and node.attr == name):
            return False
        node = node.value
    return p._is_pl(node)


def _pl_call_name(p: Any, node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and p._is_pl(node.func.value):
        return node.func.attr
    return None


def _bool_literal(p: Any, node: ast.expr, what: str) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    raise p.error(node, f"{what} must be True or False", hint=f"write {what}=True")


def _inline_list(p: Any, node: ast.expr, what: str) -> list[ast.expr]:
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    raise p.error(node, f"{what}= must be a list written inline at the call site",
                  hint=f"the parser reads the source, not values: write {what}=[...] in the pl.at(...) call")


def _split_mode(p: Any, call: ast.Call) -> str:
    args = list(call.args) + [kw.value for kw in call.keywords if kw.arg == "mode"]
    bad = [kw.arg for kw in call.keywords if kw.arg != "mode"]
    if len(args) != 1 or bad:
        raise p.error(call, "pl.split takes one split mode", hint="pl.split(pl.SplitMode.UP_DOWN)")
    mode = args[0]
    if isinstance(mode, ast.Attribute) and mode.attr in SPLIT_MODES and _is_pl_attr(p, mode.value, "SplitMode"):
        return mode.attr
    raise p.error(mode, f"unknown split mode {_src(mode)!r}",
                  hint="use pl.SplitMode.UP_DOWN (rows), pl.SplitMode.LEFT_RIGHT (columns) or pl.SplitMode.NONE")


def _slot_num(p: Any, call: ast.Call) -> int:
    args = list(call.args) + [kw.value for kw in call.keywords if kw.arg == "slot_num"]
    bad = [kw.arg for kw in call.keywords if kw.arg != "slot_num"]
    if len(args) != 1 or bad:
        raise p.error(call, "pl.cross_core_slot takes slot_num=", hint="pl.cross_core_slot(slot_num=4)")
    n = p._fold_number(args[0])
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise p.error(args[0], f"slot_num must be a positive integer constant, got {_src(args[0])}",
                      hint="the ring depth of the cross-core pipeline, e.g. pl.cross_core_slot(slot_num=4)")
    return n


def _optimizations(p: Any, node: ast.expr, attrs: dict[str, Any]) -> None:
    for e in _inline_list(p, node, "optimizations"):
        name = _pl_call_name(p, e)
        if name == "split":
            if "sub_block_split" in attrs:
                raise p.error(e, "pl.split given twice", hint="one split mode per scope")
            attrs["sub_block_split"] = _split_mode(p, e)
        elif name == "cross_core_slot":
            if "cross_core_slot" in attrs:
                raise p.error(e, "pl.cross_core_slot given twice", hint="one ring depth per scope")
            attrs["cross_core_slot"] = _slot_num(p, e)
        else:
            raise p.error(e, f"unknown pl.at optimization {_src(e)!r}",
                          hint="optimizations= holds pl.split(pl.SplitMode.X) and pl.cross_core_slot(slot_num=N), "
                               "written inline")


def deps_option(p: Any, node: ast.expr) -> tuple[str, ...]:
    """Validate ``deps=[...]``: every entry is a task id (``with ... as tid``) or a task-id array."""
    t = tasks(p)
    out: list[str] = []
    for e in _inline_list(p, node, "deps"):
        base = e.value if isinstance(e, ast.Subscript) else e
        if isinstance(base, ast.Name) and (base.id in t.arrays if isinstance(e, ast.Subscript)
                                           else base.id in t.ids or base.id in t.arrays):
            # the keys of the tasks named (a whole array: every task stored in it so far)
            out.extend([t.current[base.id]] if base.id in t.current else t.members.get(base.id, []))
            continue
        raise p.error(e, f"deps= entry {_src(e)!r} is not a task id",
                      hint="bind one with `with pl.at(...) as tid:` before this scope (or collect several in "
                           "`tids = pl.array.create(n, pl.TASK_ID)`) and write deps=[tid]")
    return tuple(out)


def _no_dep_args(p: Any, node: ast.expr) -> tuple[str, ...]:
    out: list[str] = []
    for e in _inline_list(p, node, "no_dep_args"):
        v = p.env.get(e.id) if isinstance(e, ast.Name) else None
        if v is None or not isinstance(v.type, TensorType):
            raise p.error(e, f"no_dep_args= entry {_src(e)!r} is not a tensor",
                          hint="name tensors the scope reads or writes, e.g. no_dep_args=[out]")
        out.append(e.id)
    return tuple(out)


def at_options(p: Any, call: ast.Call) -> tuple[str, dict[str, Any]]:
    """The level and the validated keyword options of a ``pl.at(...)`` call."""
    level = "CORE_GROUP"
    level_node: ast.AST = call
    attrs: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg == "level":
            value = kw.value
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute) \
                    and value.value.attr == "Level":
                level = hierarchy.canonical_level(p, value, value.attr)
                level_node = value
            else:
                raise p.error(value, "level= must be a pl.Level member", hint="e.g. pl.at(level=pl.Level.CORE_GROUP)")
        elif kw.arg == "name_hint":
            v = kw.value.value if isinstance(kw.value, ast.Constant) else p.consts.get(getattr(kw.value, "id", None))
            if not isinstance(v, str) or not v.isidentifier() or keyword.iskeyword(v):
                raise p.error(kw.value, f"name_hint= must be a string naming a function, got {_src(kw.value)}",
                              hint='e.g. name_hint="matmul" (letters, digits and _, not starting with a digit)')
            attrs["name_hint"] = v
        elif kw.arg == "optimizations":
            _optimizations(p, kw.value, attrs)
        elif kw.arg == "deps":
            attrs["deps"] = deps_option(p, kw.value)
        elif kw.arg == "no_dep_args":
            attrs["no_dep_args"] = _no_dep_args(p, kw.value)
        elif kw.arg == "dumps":  # taken out again by scope_dumps: statements before the scope, not an attribute
            from tilefold.frontend.dump_tags import dumps_option

            attrs["dumps"] = (kw.value, dumps_option(p, kw.value, "pl.at"))
        elif kw.arg == "allow_early_resolve":
            attrs["allow_early_resolve"] = _bool_literal(p, kw.value, "allow_early_resolve")  # timing only
        elif kw.arg == "role":
            attrs["role"] = hierarchy.role_of(p, kw.value)
        elif kw.arg == "predicate":
            raise p.error(kw.value, "pl.at has no predicate= option",
                          hint="PyPTO offers predicate= on pl.submit / pl.spmd; tilefold does not support it: "
                               "branch with `if` inside the scope")
        else:
            raise p.error(kw.value if kw.arg else call, f"unknown pl.at option {kw.arg!r}",
                          hint=f"pl.at takes {', '.join(o + '=' for o in AT_OPTIONS)}")
    hierarchy.check_placement(p, level_node, level, attrs.get("role"), scope=True)
    if tasks(p).manual_depth:
        attrs["manual_scope"] = True
    return level, attrs


def check_hierarchy_options(p: Any, s: ast.With, attrs: dict[str, Any]) -> None:
    """A hierarchy scope (level above the core group) takes ``role=`` and ``name_hint=`` only: the options that
    shape a kernel or order a task belong to the on-chip scope inside it."""
    for bad in ("deps", "no_dep_args", "dumps", "optimizations", "allow_early_resolve"):
        if bad in attrs or (bad == "optimizations" and ("sub_block_split" in attrs or "cross_core_slot" in attrs)):
            raise p.error(s.items[0].context_expr, f"{bad}= is an option of an on-chip pl.at scope",
                          hint="give it to the pl.at(level=pl.Level.CORE_GROUP) scope inside")
    if attrs.get("manual_scope"):
        raise p.error(s.items[0].context_expr, "a hierarchy pl.at scope inside pl.manual_scope()",
                      hint="open pl.manual_scope() inside the hierarchy scope, around the on-chip scopes")
    if s.items[0].optional_vars is not None:
        raise p.error(s.items[0].optional_vars, "a hierarchy scope binds no task id",
                      hint="bind `as tid` on the on-chip pl.at scope inside it")


def bind_task_id(p: Any, s: ast.With, attrs: dict[str, Any] | None = None) -> None:
    """``with pl.at(...) as tid:``: ``tid`` names the scope's task (usable in later ``deps=``); the task's unique
    key goes into ``attrs["task_key"]`` (an unrolled loop binds one name to a task per iteration)."""
    target = s.items[0].optional_vars
    if target is None:
        return
    if not isinstance(target, ast.Name):
        raise p.error(target, "`with pl.at(...) as NAME` binds one task id", hint="with pl.at(...) as tid:")
    if target.id in p.env:
        raise p.error(target, f"{target.id!r} is already a value; a task id needs its own name",
                      hint="use a fresh name, e.g. `as tid`")
    t = tasks(p)
    t.ids.add(target.id)
    t.count += 1
    t.current[target.id] = f"{target.id}#{t.count}"
    if attrs is not None:
        attrs["task_key"] = t.current[target.id]


def env_mark(p: Any) -> set[str]:
    """The names bound before a scope body is parsed (see ``forget_scope_locals``)."""
    return set(p.env)


def forget_scope_locals(p: Any, before: set[str]) -> None:
    """Drop the tiles and scalars a scope body defined: they live in the outlined kernel, and no later code
    can read them (only written tensors cross out), so a later scope may reuse the name for a fresh value
    (``t = pl.load(...)`` in two scopes, also as a loop temporary) instead of carrying the dead one."""
    gone = getattr(p, "_scope_locals", None)
    if gone is None:
        gone = p._scope_locals = set()
    for name in [n for n in p.env if n not in before]:
        if not isinstance(p.env[name].type, TensorType):
            del p.env[name]
            p.depth_of.pop(name, None)
            gone.add(name)


def scope_dumps(p: Any, s: ast.With, attrs: dict[str, Any], body: list[Stmt]) -> list[Stmt]:
    """``dumps=[...]`` of a scope (popped from ``attrs``): the marks of its one task, placed just before it; each
    tensor named must be one the scope reads or writes."""
    if "dumps" not in attrs:
        return []
    from tilefold.frontend.dump_tags import next_launch_tags

    node, tensors = attrs.pop("dumps")
    used = set(collect_uses(SeqStmts(tuple(body))))
    for e, v in zip(node.elts, tensors, strict=True):
        if v not in used:
            raise p.error(e, f"dumps= names {v.name!r}, which this scope does not touch",
                          hint="list only tensors the scope reads or writes (pl.dump_tag(t) marks a tensor for "
                               "every later task)")
    return next_launch_tags(p, tensors, node)


def check_no_dep_args(p: Any, s: ast.With, attrs: dict[str, Any], body: list[Stmt]) -> None:
    names = attrs.get("no_dep_args")
    if not names:
        return
    used = {v.name for v in collect_uses(SeqStmts(tuple(body)))}
    for n in names:
        if n not in used:
            raise p.error(s.items[0].context_expr, f"no_dep_args= names {n!r}, which this scope does not touch",
                          hint="list only tensors the scope reads or writes")


def task_array_stmt(p: Any, s: ast.stmt) -> bool:
    """``tids = pl.array.create(n, pl.TASK_ID)`` and ``tids[i] = tid`` in the entry; True when handled."""
    t = tasks(p)
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return False
    target, value = s.targets[0], s.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "create" and _is_pl_attr(p, value.func.value, "array"):
        if len(value.args) == 2 and _is_pl_attr(p, value.args[1], "TASK_ID") and not value.keywords:
            n = p._fold_number(value.args[0])
            if not isinstance(n, int) or n < 1:
                raise p.error(value.args[0], "a task-id array needs a positive constant size",
                              hint="pl.array.create(4, pl.TASK_ID)")
            t.arrays[target.id] = n
            return True
        return False  # an array of values: kernel code (frontend/arrays.py)
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in t.arrays:
        if not (isinstance(value, ast.Name) and value.id in t.ids):
            raise p.error(value, f"{_src(value)!r} is not a task id",
                          hint="store the id bound by `with pl.at(...) as tid:`")
        idx = p._fold_number(target.slice)
        if isinstance(idx, int) and not 0 <= idx < t.arrays[target.value.id]:
            raise p.error(target, f"task-id array index {idx} out of range [0, {t.arrays[target.value.id]})",
                          hint="size the array for every task stored in it")
        t.members.setdefault(target.value.id, []).append(t.current[value.id])
        return True
    return False


def task_dummy_stmt(p: Any, s: ast.stmt) -> bool:
    """``j = pl.system.task_dummy(deps=[...])`` in orchestration code (tutorials/04): a join with no work, one
    task id standing for several producers. Program order already follows every dep: the deps are checked and
    ``j`` becomes a task id; True when handled."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "task_dummy"
            and _is_pl_attr(p, s.value.func.value, "system")):
        return False
    call, target = s.value, s.targets[0]
    if call.args or any(kw.arg != "deps" for kw in call.keywords) or not call.keywords:
        raise p.error(call, "pl.system.task_dummy takes deps=[...] only", hint="j = pl.system.task_dummy(deps=[a, b])")
    deps_option(p, call.keywords[0].value)
    if not isinstance(target, ast.Name):
        raise p.error(target, "pl.system.task_dummy gives one task id", hint="j = pl.system.task_dummy(deps=[a, b])")
    if target.id in p.env:
        raise p.error(target, f"{target.id!r} is already a value; a task id needs its own name",
                      hint="use a fresh name")
    t = tasks(p)
    t.ids.add(target.id)
    t.count += 1
    t.current[target.id] = f"{target.id}#{t.count}"
    return True


def launch_count(p: Any, node: ast.expr) -> int | str | None:
    """A launch size: a positive compile-time integer, or a device query written inline
    (``pl.system.available_aiv_count()`` / ``available_cluster_count()``), kept by name and resolved on the target
    (``targets/system.py``); None when ``node`` is neither."""
    from tilefold.targets.system import QUERIES

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in QUERIES \
            and _is_pl_attr(p, node.func.value, "system"):
        if node.args or node.keywords:
            raise p.error(node, f"pl.system.{node.func.attr}() takes no arguments",
                          hint=f"pl.spmd(pl.system.{node.func.attr}())")
        return node.func.attr
    n = p._fold_number(node)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return None
    return n


def _spmd_blocks(p: Any, call: ast.Call) -> tuple[int | str, dict[str, Any]]:
    if not call.args or len(call.args) > 1:
        raise p.error(call, "pl.spmd takes the number of blocks", hint="pl.spmd(4)")
    n = launch_count(p, call.args[0])
    if n is None:
        raise NotSupportedError(f"pl.spmd needs a positive constant block count, got {_src(call.args[0])}",
                                span=p.span(call.args[0]),
                                hint="write a constant (module-level names are fine), or a device query inline: "
                                     "pl.spmd(pl.system.available_aiv_count()) (a query bound to a name first is "
                                     "not a compile-time count)")
    attrs: dict[str, Any] = {"block_dim": n}
    for kw in call.keywords:
        if kw.arg == "deps":
            attrs["deps"] = deps_option(p, kw.value)
        elif kw.arg == "allow_early_resolve":
            attrs["allow_early_resolve"] = _bool_literal(p, kw.value, "allow_early_resolve")
        elif kw.arg == "name_hint":
            v = kw.value.value if isinstance(kw.value, ast.Constant) else None
            if not isinstance(v, str) or not v.isidentifier() or keyword.iskeyword(v):
                raise p.error(kw.value, "name_hint= must be a string naming a function", hint='name_hint="blocks"')
            attrs["name_hint"] = v
        else:
            raise NotSupportedError(f"pl.spmd option {kw.arg!r} is not supported", span=p.span(kw.value),
                                    hint="pl.spmd takes the block count, deps=, name_hint= and allow_early_resolve=")
    if tasks(p).manual_depth:
        attrs["manual_scope"] = True
    return n, attrs


def _check_entry_level(p: Any, s: ast.stmt, what: str) -> None:
    if p.kind != "entry":
        raise p.error(s, f"{what} belongs in the @pl.jit entry", hint="an @pl.jit.incore function already runs "
                                                                      "on the chip")
    if p.in_scope:
        raise p.error(s, f"{what} inside a pl.at scope", hint="open it in the orchestration code, around pl.at "
                                                              "scopes")


def _scope_body(p: Any, stmts: list[ast.stmt], prologue: list[Stmt], before: set[str]) -> list[Stmt]:
    body: list[Stmt] = list(prologue)
    p.in_scope = True
    try:
        p._future.run(stmts, lambda _i, b: p._stmt(b, body))
    finally:
        p.in_scope = False
    forget_scope_locals(p, before)
    return body


def _block_index(p: Any, name_node: ast.Name) -> Stmt:
    call = p._make(name_node, "tile.get_block_idx", [])
    v = Var(name_node.id, call.type, p.span(name_node))
    p._define(name_node.id, v, name_node)
    return AssignStmt(v, call, span=p.span(name_node))


def spmd_loop(p: Any, s: ast.For, out: list[Stmt]) -> bool:
    """``for i in pl.spmd(n):`` in the entry: one kernel on ``n`` blocks, ``i`` its block index."""
    call = s.iter
    if _pl_call_name(p, call) != "spmd":
        return False
    _check_entry_level(p, s, "pl.spmd")
    if not isinstance(s.target, ast.Name) or s.orelse:
        raise p.error(s.target, "the pl.spmd loop binds one block index", hint="for i in pl.spmd(4):")
    _n, attrs = _spmd_blocks(p, call)
    before = env_mark(p)
    body = _scope_body(p, s.body, [_block_index(p, s.target)], before)
    out.append(ScopeStmt("CORE_GROUP", SeqStmts(tuple(body)), attrs=tuple(attrs.items()), span=p.span(s)))
    return True


def other_with(p: Any, s: ast.With, out: list[Stmt]) -> bool:
    """``pl.manual_scope()``, ``pl.scope()``, ``with pl.spmd(n):`` and ``with pl.cluster():``
    (frontend/cluster.py); True when ``s`` was one of them."""
    if len(s.items) != 1:
        return False
    call = s.items[0].context_expr
    name = _pl_call_name(p, call)
    if name in ("manual_scope", "scope"):
        _check_entry_level(p, s, f"pl.{name}()")
        if call.args or call.keywords or s.items[0].optional_vars is not None:
            raise p.error(call, f"pl.{name}() takes no arguments", hint=f"with pl.{name}():")
        t = tasks(p)
        t.manual_depth += name == "manual_scope"
        try:
            for b in s.body:  # a runtime scope, not a kernel: its statements stay in the orchestration code
                p._stmt(b, out)
        finally:
            t.manual_depth -= name == "manual_scope"
        return True
    if name == "spmd":
        _check_entry_level(p, s, "pl.spmd")
        _n, attrs = _spmd_blocks(p, call)
        reads_block = any(isinstance(n, ast.Attribute) and n.attr == "get_block_idx" for b in s.body
                          for n in ast.walk(b))
        if not reads_block:
            raise p.error(s, "a `with pl.spmd(n):` body that neither reads the block index nor dispatches a kernel "
                             "does the same work on every block",
                          hint="read pl.tile.get_block_idx() in the body, or write the loop form "
                               "`for i in pl.spmd(n):` (dispatching a kernel from pl.spmd needs @pl.program)")
        body = _scope_body(p, s.body, [], env_mark(p))
        bind_task_id(p, s, attrs)
        out.append(ScopeStmt("CORE_GROUP", SeqStmts(tuple(body)), attrs=tuple(attrs.items()), span=p.span(s)))
        return True
    if name == "cluster":
        from tilefold.frontend.cluster import cluster_scope

        _check_entry_level(p, s, "pl.cluster()")
        cluster_scope(p, s, out, p._stmt, lambda _name: True)  # an entry calls @pl.jit.incore kernels only
        return True
    if name in ("split_aiv", "incore"):
        from tilefold.frontend.split_aiv import refuse_scope

        raise refuse_scope(p, call, name)
    return False


__all__ = ["AT_OPTIONS", "SPLIT_MODES", "at_options", "bind_task_id", "check_hierarchy_options", "check_no_dep_args",
           "deps_option", "other_with", "spmd_loop", "task_array_stmt", "task_dummy_stmt", "tasks"]
