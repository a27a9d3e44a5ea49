"""Structural equality and structural hashing of IR.

Two IR objects are structurally equal when they have the same shape of nodes, ignoring variable names
and source spans:

- Definition sites (function params, assignment targets, loop vars, iter args, return vars, tuple-unpack
  targets, which are plain assignment targets in this IR) map one to one, in order of appearance; every
  later use must follow that mapping. Each function of a program is its own scope: the mapping starts afresh
  at every function, so one variable object that is a parameter of two functions (OutlineIncoreScopes keeps
  the orchestration's variables as the outlined kernel's parameters) compares like two distinct ones.
  A use of a variable that was never defined on either side compares
  by identity, unless ``enable_auto_mapping`` is set, in which case such free variables are mapped on
  first use like definitions.
- Types compare field by field: shapes (each extent structurally, so symbolic extents follow the variable
  mapping), dtype, memory space (including its absence), tile view and memref. MemRef base names are
  allocation names and map one to one like variables.
- Constants compare by value and dtype. Calls compare by op, operands and kwargs; kwarg values are
  compared with ``==`` for plain data (ints, strings, enums, ``AffineMap`` ...) and structurally for
  expressions. A call's result type is derived by inference and is not compared (the bound variable's
  type is). Kwargs and attrs (of programs, functions, for loops and if statements) compare as mappings
  (their order does not matter).
- The program name is ignored; function names are the program's interface and must be equal.

Both the comparison and the hash are iterative (an explicit work stack), so very long functions and
deeply nested expressions do not hit Python's recursion limit.

``assert_structural_equal`` raises ``ValueError`` naming the first difference, e.g.::

    structural mismatch at function 'kernel' > body[3] (AssignStmt) > value > args[2] > elements[0]:
    constant value differs: 0 vs 64
"""

from __future__ import annotations

import enum
import hashlib
import math
from typing import Any

from tilefold.ir.affine import AffineMap
from tilefold.ir.expr import (
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    MakeTuple,
    TupleGetItem,
    UnaryExpr,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    Function,
    IfStmt,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import MemRef, ScalarType, TensorType, TileType, TileView, TupleType, Type, UnknownType

__all__ = ["assert_structural_equal", "dump_ir", "format_node", "structural_equal", "structural_hash"]


# ------------------------------------------------------------------------------------------------
# paths: a linked list of (parent, label, lhs node, rhs node); labels are rendered only on failure
# ------------------------------------------------------------------------------------------------

_Path = tuple  # (parent | None, label, a, b)


def _label_text(label: tuple) -> str:
    kind = label[0]
    if kind == "f":
        return label[1]
    if kind == "i":
        return f"{label[1]}[{label[2]}]"
    if kind == "s":
        return f"{label[1]}[{label[2]}] ({label[3]})"
    if kind == "k":
        return f"{label[1]}[{label[2]!r}]"
    if kind == "fn":
        return f"function {label[1]!r}"
    return str(label)


def _render_path(path: _Path | None) -> tuple[str, Any, Any]:
    """The path text and the innermost enclosing statement pair (or (None, None))."""
    labels = []
    stmt_a = stmt_b = None
    node = path
    while node is not None:
        parent, label, a, b = node
        if label is not None:
            labels.append(_label_text(label))
        if stmt_a is None and isinstance(a, Stmt) and not isinstance(a, SeqStmts):
            stmt_a, stmt_b = a, b
        node = parent
    labels.reverse()
    return (" > ".join(labels) or "<root>"), stmt_a, stmt_b


class _Mismatch(Exception):
    def __init__(self, path: _Path | None, what: str, a: Any, b: Any) -> None:
        super().__init__(what)
        self.path = path
        self.what = what
        self.a = a
        self.b = b

    def render(self) -> str:
        where, stmt_a, stmt_b = _render_path(self.path)
        lines = [f"structural mismatch at {where}: {self.what}",
                 f"  lhs: {_indent(format_node(self.a))}",
                 f"  rhs: {_indent(format_node(self.b))}"]
        if stmt_a is not None and stmt_a is not self.a:
            lines.append(f"  in lhs statement: {_indent(format_node(stmt_a, max_lines=4))}")
            lines.append(f"  in rhs statement: {_indent(format_node(stmt_b, max_lines=4))}")
        return "\n".join(lines)


def _indent(text: str) -> str:
    return text.replace("\n", "\n       ")


# ------------------------------------------------------------------------------------------------
# compact formatting for messages (the `pl` printer is used when it can print the node)
# ------------------------------------------------------------------------------------------------


def format_node(node: Any, max_lines: int = 12) -> str:
    """A short human-readable rendering of any IR node or value, for error messages."""
    text = None
    if isinstance(node, (Program, Function, Stmt, Expr, Type)) and not isinstance(node, SeqStmts):
        try:
            from tilefold.ir.printing import python_print

            text = python_print(node)
        except Exception:  # printer missing or unable to print this node: fall back to the compact form
            text = None
    if text is None:
        try:
            text = _fmt(node)
        except Exception:
            text = repr(node)
    lines = text.rstrip("\n").split("\n")
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more lines)"]
    return "\n".join(lines)


def _fmt(x: Any) -> str:
    if x is None:
        return "None"
    if isinstance(x, Var):
        return f"%{x.name}"
    if isinstance(x, GlobalVar):
        return f"@{x.name}"
    if isinstance(x, (ConstInt, ConstFloat)):
        default = "INDEX" if isinstance(x, ConstInt) else "FP32"
        return repr(x.value) if x.dtype.name == default else f"{x.value!r}:{x.dtype.name}"
    if isinstance(x, ConstBool):
        return repr(x.value)
    if isinstance(x, Call):
        parts = [_fmt(a) for a in x.args] + [f"{k}={_fmt(v)}" for k, v in x.kwargs]
        return f"{x.op_name}({', '.join(parts)})"
    if isinstance(x, MakeTuple):
        return f"[{', '.join(_fmt(e) for e in x.elements)}]"
    if isinstance(x, TupleGetItem):
        return f"{_fmt(x.tuple_value)}[{x.index}]"
    if isinstance(x, BinaryExpr):
        if x.is_function_form:
            return f"{x.symbol}({_fmt(x.lhs)}, {_fmt(x.rhs)})"
        return f"({_fmt(x.lhs)} {x.symbol} {_fmt(x.rhs)})"
    if isinstance(x, UnaryExpr):
        return f"({x.symbol} {_fmt(x.operand)})"
    if isinstance(x, ScalarType):
        return f"Scalar[{x.dtype.name}]"
    if isinstance(x, (TileType, TensorType)):
        shape = ", ".join(_fmt(e) for e in x.shape)
        if isinstance(x, TensorType):
            return f"Tensor[[{shape}], {x.dtype.name}]"
        extra = ""
        if x.memory_space is not None:
            extra += f", {x.memory_space.name}"
        if x.tile_view is not None:
            extra += f", view={_fmt(x.tile_view)}"
        if x.memref is not None:
            extra += f", memref={_fmt(x.memref)}"
        return f"Tile[[{shape}], {x.dtype.name}{extra}]"
    if isinstance(x, TupleType):
        return f"Tuple[{', '.join(_fmt(t) for t in x.types)}]"
    if isinstance(x, UnknownType):
        return "Unknown"
    if isinstance(x, MemRef):
        return (f"MemRef({x.memory_space.name}, {x.base}, offset={_fmt(x.byte_offset)}, size={x.size}"
                + (f", address={x.address}" if x.address is not None else "") + ")")
    if isinstance(x, TileView):
        fields = []
        if x.valid_shape is not None:
            fields.append(f"valid_shape=[{', '.join(_fmt(e) for e in x.valid_shape)}]")
        for name in ("blayout", "slayout", "fractal", "pad"):
            if getattr(x, name) is not None:
                fields.append(f"{name}={getattr(x, name)!r}")
        return f"TileView({', '.join(fields)})"
    if isinstance(x, Stmt):
        return _fmt_stmt(x)
    if isinstance(x, Function):
        params = ", ".join(f"{_fmt(p)}: {_fmt(p.type)}" for p in x.params)
        return f"def {x.name}({params})  [{x.func_type.name}]"
    if isinstance(x, Program):
        return f"program {x.name} ({len(x.functions)} functions)"
    if isinstance(x, enum.Enum):
        return f"{type(x).__name__}.{x.name}"
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(_fmt(e) for e in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, AffineMap):
        return f"affine_map<{x}>"
    return repr(x)


def _fmt_stmt(s: Stmt) -> str:
    if isinstance(s, AssignStmt):
        return f"{_fmt(s.var)}: {_fmt(s.var.type)} = {_fmt(s.value)}"
    if isinstance(s, EvalStmt):
        return _fmt(s.expr)
    if isinstance(s, YieldStmt):
        return f"yield {', '.join(_fmt(v) for v in s.values)}"
    if isinstance(s, ReturnStmt):
        return f"return {', '.join(_fmt(v) for v in s.values)}"
    if isinstance(s, ForStmt):
        inits = ", ".join(f"{_fmt(ia)} = {_fmt(ia.init)}" for ia in s.iter_args)
        rets = ", ".join(_fmt(v) for v in s.return_vars)
        head = f"for {_fmt(s.loop_var)} in {s.kind.value}({_fmt(s.start)}, {_fmt(s.stop)}, {_fmt(s.step)})"
        if inits:
            head += f" iter_args({inits})"
        if rets:
            head = f"{rets} = {head}"
        return head + ": ..."
    if isinstance(s, WhileStmt):
        inits = ", ".join(f"{_fmt(ia)} = {_fmt(ia.init)}" for ia in s.iter_args)
        return f"while {_fmt(s.condition)} iter_args({inits}): ..."
    if isinstance(s, IfStmt):
        rets = ", ".join(_fmt(v) for v in s.return_vars)
        tags = f" [{', '.join(f'{k}={_fmt(v)}' for k, v in s.attrs)}]" if s.attrs else ""
        return (f"{rets} = " if rets else "") + f"if {_fmt(s.condition)}{tags}: ..."
    if isinstance(s, ScopeStmt):
        tags = "".join(f", {k}={_fmt(v)}" for k, v in s.attrs)
        return f"with pl.at(level=pl.Level.{s.level}{tags}): ..."
    if isinstance(s, SeqStmts):
        return "\n".join(_fmt_stmt(c) for c in s.stmts) or "<empty>"
    return repr(s)


def dump_ir(node: Any) -> str:
    """A complete compact text form of a Program / Function / Stmt (used when the `pl` printer is not
    available; it is for reading, not for parsing back)."""
    lines: list[str] = []

    def body(stmt: Stmt | None, indent: str) -> None:
        if stmt is None:
            return
        stmts = stmt.stmts if isinstance(stmt, SeqStmts) else (stmt,)
        if not stmts:
            lines.append(f"{indent}pass")
        for s in stmts:
            if isinstance(s, SeqStmts):
                body(s, indent)
                continue
            lines.append(indent + _fmt_stmt(s).removesuffix(" ..."))
            if isinstance(s, (ForStmt, WhileStmt, ScopeStmt)):
                body(s.body, indent + "    ")
            elif isinstance(s, IfStmt):
                body(s.then_body, indent + "    ")
                if s.else_body is not None:
                    lines.append(f"{indent}else:")
                    body(s.else_body, indent + "    ")

    def function(fn: Function, indent: str) -> None:
        params = ", ".join(f"{_fmt(p)}: {_fmt(p.type)}" + (f" [{d.name}]" if d.name != "In" else "")
                           for p, d in zip(fn.params, fn.param_directions, strict=False))
        rets = ", ".join(_fmt(t) for t in fn.return_types)
        lines.append(f"{indent}def {fn.name}({params}) -> ({rets}):  # {fn.func_type.name}")
        body(fn.body, indent + "    ")

    if isinstance(node, Program):
        lines.append(f"program {node.name}:")
        for fn in node.functions:
            function(fn, "    ")
    elif isinstance(node, Function):
        function(node, "")
    elif isinstance(node, Stmt):
        body(node, "")
    else:
        lines.append(_fmt(node))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------
# equality
# ------------------------------------------------------------------------------------------------

_NODE, _DEF, _LEN, _VALUE, _DEFTYPE, _SCOPE = range(6)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _plain_equal(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return a is b


class _Comparer:
    def __init__(self, auto_mapping: bool) -> None:
        self.auto_mapping = auto_mapping
        self.l2r: dict[Var, Var] = {}
        self.r2l: dict[Var, Var] = {}
        self.base_l2r: dict[str, str] = {}
        self.base_r2l: dict[str, str] = {}
        self.stack: list[tuple] = []

    # -- driver ---------------------------------------------------------------------------------
    def run(self, a: Any, b: Any) -> None:
        stack = self.stack
        root = (None, ("fn", a.name), a, b) if isinstance(a, Function) else None
        stack.append((_NODE, a, b, root))
        while stack:
            task = stack.pop()
            op = task[0]
            if op == _NODE:
                self.node(task[1], task[2], task[3])
            elif op == _DEF:
                self.define(task[1], task[2], task[3])
            elif op == _DEFTYPE:
                self.push(_NODE, task[1].type, task[2].type, task[3], ("f", "type"))
            elif op == _LEN:
                _, la, lb, path, what = task
                if la != lb:
                    raise _Mismatch(path, f"{what} count differs: {la} vs {lb}", la, lb)
            elif op == _SCOPE:  # a function starts: its variables are bound afresh
                self.l2r.clear()
                self.r2l.clear()
            else:
                self.value(task[1], task[2], task[3])

    def push(self, op: int, a: Any, b: Any, path: _Path | None, label: tuple | None) -> None:
        self.stack.append((op, a, b, (path, label, a, b)))

    def push_seq(self, todo: list[tuple]) -> None:
        self.stack.extend(reversed(todo))

    @staticmethod
    def sub(path: _Path | None, label: tuple, a: Any, b: Any) -> _Path:
        return (path, label, a, b)

    def fail(self, path: _Path | None, what: str, a: Any, b: Any) -> None:
        raise _Mismatch(path, what, a, b)

    # -- generic node comparison ----------------------------------------------------------------
    def node(self, a: Any, b: Any, path: _Path | None) -> None:
        if a is None or b is None:
            if a is not b:
                self.fail(path, "one side is missing", a, b)
            return
        if isinstance(a, Var) and isinstance(b, Var):
            self.use(a, b, path)
            return
        if type(a) is not type(b):
            self.fail(path, f"node kind differs: {type(a).__name__} vs {type(b).__name__}", a, b)
        handler = _HANDLERS.get(type(a))
        if handler is None:
            for klass in type(a).__mro__[1:]:
                handler = _HANDLERS.get(klass)
                if handler is not None:
                    break
        if handler is None:
            if not _plain_equal(a, b):
                self.fail(path, "values differ", a, b)
            return
        handler(self, a, b, path)

    def value(self, a: Any, b: Any, path: _Path | None) -> None:
        """kwarg / attr values: expressions structurally, sequences element-wise, the rest by ==."""
        if isinstance(a, (Expr, Type, TileView, MemRef)) or isinstance(b, (Expr, Type, TileView, MemRef)):
            self.node(a, b, path)
            return
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
            if type(a) is not type(b):
                self.fail(path, f"value kind differs: {type(a).__name__} vs {type(b).__name__}", a, b)
            todo = [(_VALUE, x, y, (path, ("i", "", i), x, y)) for i, (x, y) in enumerate(zip(a, b, strict=False))]
            todo.append((_LEN, len(a), len(b), path, "element"))
            self.push_seq(todo)
            return
        if not _plain_equal(a, b):
            self.fail(path, f"values differ: {_fmt(a)} vs {_fmt(b)}", a, b)

    # -- variables ------------------------------------------------------------------------------
    def define(self, a: Var, b: Var, path: _Path | None) -> None:
        if type(a) is not type(b):
            self.fail(path, f"definition kind differs: {type(a).__name__} vs {type(b).__name__}", a, b)
        if self._already_bound(a, b, path, "variable binding differs: {side} {x} is already bound to {other} {y} "
                                           "but is defined here against {z}"):
            return
        self.l2r[a] = b
        self.r2l[b] = a

    def use(self, a: Var, b: Var, path: _Path | None) -> None:
        if self._already_bound(a, b, path, "variable use differs: {side} {x} corresponds to {other} {y}, "
                                           "but {other} uses {z} here"):
            return
        if self.auto_mapping:
            if type(a) is not type(b):
                self.fail(path, f"variable kind differs: {type(a).__name__} vs {type(b).__name__}", a, b)
            self.l2r[a] = b
            self.r2l[b] = a
            self.push(_NODE, a.type, b.type, path, ("f", "type"))
            return
        if a is not b:
            self.fail(path, f"free variables differ: {_fmt(a)} vs {_fmt(b)} (neither is defined in the "
                            "compared IR; pass enable_auto_mapping=True to map free variables)", a, b)
        self.l2r[a] = b
        self.r2l[b] = a

    def _already_bound(self, a: Var, b: Var, path: _Path | None, clash: str) -> bool:
        """Is ``a`` already mapped to ``b``? Fails with ``clash`` (formatted with the side whose variable is
        bound elsewhere, that variable ``x``, its counterpart ``y`` and the variable ``z`` met here instead)
        when ``a`` or ``b`` is bound to another variable; False when neither is bound yet."""
        mapped = self.l2r.get(a)
        if mapped is not None:
            if mapped is not b:
                self.fail(path, clash.format(side="lhs", other="rhs", x=_fmt(a), y=_fmt(mapped), z=_fmt(b)), a, b)
            return True
        back = self.r2l.get(b)
        if back is not None:
            self.fail(path, clash.format(side="rhs", other="lhs", x=_fmt(b), y=_fmt(back), z=_fmt(a)), a, b)
        return False

    def memref_base(self, a: str, b: str, path: _Path | None) -> None:
        mapped = self.base_l2r.get(a)
        back = self.base_r2l.get(b)
        if mapped is None and back is None:
            self.base_l2r[a] = b
            self.base_r2l[b] = a
        elif mapped != b or back != a:
            self.fail(path, f"memref base differs: {a!r} corresponds to {mapped!r}, but rhs has {b!r}", a, b)

    # -- helpers used by handlers ---------------------------------------------------------------
    def field(self, path: _Path | None, name: str, x: Any, y: Any) -> None:
        """Compare a plain field right away."""
        if not _plain_equal(x, y):
            self.fail((path, ("f", name), x, y), f"{name} differs: {_fmt(x)} vs {_fmt(y)}", x, y)

    def seq(self, todo: list[tuple], path: _Path | None, name: str, xs: Any, ys: Any,
            op: int = _NODE) -> None:
        for i, (x, y) in enumerate(zip(xs, ys, strict=False)):
            todo.append((op, x, y, (path, ("i", name, i), x, y)))
        todo.append((_LEN, len(xs), len(ys), path, name))

    def defs(self, todo: list[tuple], path: _Path | None, name: str, xs: Any, ys: Any) -> None:
        """Definitions of a list of variables: bind all, then compare their types."""
        self.seq(todo, path, name, xs, ys, _DEF)
        for i, (x, y) in enumerate(zip(xs, ys, strict=False)):
            todo.append((_DEFTYPE, x, y, (path, ("i", name, i), x, y)))

    def body(self, todo: list[tuple], path: _Path | None, name: str, x: Stmt | None, y: Stmt | None) -> None:
        if isinstance(x, SeqStmts) and isinstance(y, SeqStmts):
            sub = (path, None, x, y)
            for i, (s, t) in enumerate(zip(x.stmts, y.stmts, strict=False)):
                todo.append((_NODE, s, t, (sub, ("s", name, i, type(s).__name__), s, t)))
            todo.append((_LEN, len(x.stmts), len(y.stmts), (path, ("f", name), x, y), "statement"))
        else:
            todo.append((_NODE, x, y, (path, ("f", name), x, y)))

    def mapping(self, todo: list[tuple], path: _Path | None, name: str, xs: tuple, ys: tuple) -> None:
        """Ordered (key, value) pairs compared as a mapping."""
        da, db = dict(xs), dict(ys)
        for key in da:
            if key not in db:
                self.fail((path, ("k", name, key), da[key], None), f"{name} entry {key!r} is missing on the rhs",
                          da[key], None)
        for key in db:
            if key not in da:
                self.fail((path, ("k", name, key), None, db[key]), f"{name} entry {key!r} is missing on the lhs",
                          None, db[key])
        for key, va in da.items():
            vb = db[key]
            todo.append((_VALUE, va, vb, (path, ("k", name, key), va, vb)))


# -- handlers: each compares plain fields immediately and pushes children in order ----------------


def _program(c: _Comparer, a: Program, b: Program, path: _Path | None) -> None:
    todo: list[tuple] = []
    c.mapping(todo, path, "attrs", a.attrs, b.attrs)
    for fa, fb in zip(a.functions, b.functions, strict=False):
        todo.append((_SCOPE, None, None, path))  # each function binds its own variables
        todo.append((_NODE, fa, fb, (path, ("fn", fa.name), fa, fb)))
    if len(a.functions) != len(b.functions):
        names_a = [f.name for f in a.functions]
        names_b = [f.name for f in b.functions]
        todo.append((_LEN, len(a.functions), len(b.functions),
                     (path, ("f", f"functions {names_a} vs {names_b}"), a, b), "function"))
    c.push_seq(todo)


def _function(c: _Comparer, a: Function, b: Function, path: _Path | None) -> None:
    c.field(path, "name", a.name, b.name)
    c.field(path, "func_type", a.func_type, b.func_type)
    if len(a.params) != len(b.params):
        c.fail((path, ("f", "params"), a.params, b.params),
               f"parameter count differs: {len(a.params)} vs {len(b.params)}", a, b)
    c.field(path, "param_directions", a.param_directions, b.param_directions)
    todo: list[tuple] = []
    c.defs(todo, path, "params", a.params, b.params)
    c.seq(todo, path, "return_types", a.return_types, b.return_types)
    c.mapping(todo, path, "attrs", a.attrs, b.attrs)
    c.body(todo, path, "body", a.body, b.body)
    c.push_seq(todo)


def _seq_stmts(c: _Comparer, a: SeqStmts, b: SeqStmts, path: _Path | None) -> None:
    todo: list[tuple] = []
    for i, (s, t) in enumerate(zip(a.stmts, b.stmts, strict=False)):
        todo.append((_NODE, s, t, (path, ("s", "stmts", i, type(s).__name__), s, t)))
    todo.append((_LEN, len(a.stmts), len(b.stmts), path, "statement"))
    c.push_seq(todo)


def _assign(c: _Comparer, a: AssignStmt, b: AssignStmt, path: _Path | None) -> None:
    sub = (path, ("f", "var"), a.var, b.var)
    c.push_seq([
        (_NODE, a.value, b.value, (path, ("f", "value"), a.value, b.value)),
        (_DEF, a.var, b.var, sub),
        (_DEFTYPE, a.var, b.var, sub),
    ])


def _eval(c: _Comparer, a: EvalStmt, b: EvalStmt, path: _Path | None) -> None:
    c.push(_NODE, a.expr, b.expr, path, ("f", "expr"))


def _iter_inits(c: _Comparer, todo: list[tuple], path: _Path | None, a: tuple, b: tuple) -> None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        todo.append((_NODE, x.init, y.init, ((path, ("i", "iter_args", i), x, y), ("f", "init"), x.init, y.init)))
    todo.append((_LEN, len(a), len(b), path, "iter_arg"))


def _for(c: _Comparer, a: ForStmt, b: ForStmt, path: _Path | None) -> None:
    c.field(path, "kind", a.kind, b.kind)
    todo: list[tuple] = []
    c.mapping(todo, path, "attrs", a.attrs, b.attrs)
    for name in ("start", "stop", "step"):
        x, y = getattr(a, name), getattr(b, name)
        todo.append((_NODE, x, y, (path, ("f", name), x, y)))
    _iter_inits(c, todo, path, a.iter_args, b.iter_args)
    lv = (path, ("f", "loop_var"), a.loop_var, b.loop_var)
    todo.append((_DEF, a.loop_var, b.loop_var, lv))
    todo.append((_DEFTYPE, a.loop_var, b.loop_var, lv))
    c.defs(todo, path, "iter_args", a.iter_args, b.iter_args)
    c.body(todo, path, "body", a.body, b.body)
    c.defs(todo, path, "return_vars", a.return_vars, b.return_vars)
    c.push_seq(todo)


def _while(c: _Comparer, a: WhileStmt, b: WhileStmt, path: _Path | None) -> None:
    todo: list[tuple] = []
    _iter_inits(c, todo, path, a.iter_args, b.iter_args)
    c.defs(todo, path, "iter_args", a.iter_args, b.iter_args)
    todo.append((_NODE, a.condition, b.condition, (path, ("f", "condition"), a.condition, b.condition)))
    c.body(todo, path, "body", a.body, b.body)
    c.defs(todo, path, "return_vars", a.return_vars, b.return_vars)
    c.push_seq(todo)


def _if(c: _Comparer, a: IfStmt, b: IfStmt, path: _Path | None) -> None:
    todo: list[tuple] = []
    c.mapping(todo, path, "attrs", a.attrs, b.attrs)
    todo.append((_NODE, a.condition, b.condition, (path, ("f", "condition"), a.condition, b.condition)))
    c.body(todo, path, "then_body", a.then_body, b.then_body)
    if (a.else_body is None) != (b.else_body is None):
        c.fail((path, ("f", "else_body"), a.else_body, b.else_body), "one side has no else branch",
               a.else_body, b.else_body)
    if a.else_body is not None:
        c.body(todo, path, "else_body", a.else_body, b.else_body)
    c.defs(todo, path, "return_vars", a.return_vars, b.return_vars)
    c.push_seq(todo)


def _scope(c: _Comparer, a: ScopeStmt, b: ScopeStmt, path: _Path | None) -> None:
    c.field(path, "level", a.level, b.level)
    todo: list[tuple] = []
    c.mapping(todo, path, "attrs", a.attrs, b.attrs)
    c.body(todo, path, "body", a.body, b.body)
    c.push_seq(todo)


def _values_stmt(c: _Comparer, a: YieldStmt | ReturnStmt, b: YieldStmt | ReturnStmt, path: _Path | None) -> None:
    todo: list[tuple] = []
    c.seq(todo, path, "values", a.values, b.values)
    c.push_seq(todo)


def _global_var(c: _Comparer, a: GlobalVar, b: GlobalVar, path: _Path | None) -> None:
    c.field(path, "name", a.name, b.name)


def _const(c: _Comparer, a: ConstInt | ConstFloat, b: ConstInt | ConstFloat, path: _Path | None) -> None:
    if not _plain_equal(a.value, b.value):
        c.fail(path, f"constant value differs: {a.value!r} vs {b.value!r}", a, b)
    c.field(path, "dtype", a.dtype, b.dtype)


def _const_bool(c: _Comparer, a: ConstBool, b: ConstBool, path: _Path | None) -> None:
    if a.value != b.value:
        c.fail(path, f"constant value differs: {a.value!r} vs {b.value!r}", a, b)


def _call(c: _Comparer, a: Call, b: Call, path: _Path | None) -> None:
    if isinstance(a.op, GlobalVar) != isinstance(b.op, GlobalVar) or a.op_name != b.op_name:
        c.fail((path, ("f", "op"), a.op, b.op), f"op differs: {a.op_name} vs {b.op_name}", a, b)
    todo: list[tuple] = []
    c.seq(todo, path, "args", a.args, b.args)
    c.mapping(todo, path, "kwargs", a.kwargs, b.kwargs)
    c.push_seq(todo)


def _make_tuple(c: _Comparer, a: MakeTuple, b: MakeTuple, path: _Path | None) -> None:
    todo: list[tuple] = []
    c.seq(todo, path, "elements", a.elements, b.elements)
    c.push_seq(todo)


def _tuple_get_item(c: _Comparer, a: TupleGetItem, b: TupleGetItem, path: _Path | None) -> None:
    c.field(path, "index", a.index, b.index)
    c.push(_NODE, a.tuple_value, b.tuple_value, path, ("f", "tuple_value"))


def _binary(c: _Comparer, a: BinaryExpr, b: BinaryExpr, path: _Path | None) -> None:
    c.field(path, "dtype", a.dtype, b.dtype)
    c.push_seq([(_NODE, a.lhs, b.lhs, (path, ("f", "lhs"), a.lhs, b.lhs)),
                (_NODE, a.rhs, b.rhs, (path, ("f", "rhs"), a.rhs, b.rhs))])


def _unary(c: _Comparer, a: UnaryExpr, b: UnaryExpr, path: _Path | None) -> None:
    c.field(path, "dtype", a.dtype, b.dtype)
    c.push(_NODE, a.operand, b.operand, path, ("f", "operand"))


def _scalar_type(c: _Comparer, a: ScalarType, b: ScalarType, path: _Path | None) -> None:
    c.field(path, "dtype", a.dtype, b.dtype)


def _shape(c: _Comparer, todo: list[tuple], path: _Path | None, name: str, xs: tuple, ys: tuple) -> None:
    if len(xs) != len(ys):
        c.fail((path, ("f", name), xs, ys), f"rank differs: {len(xs)} vs {len(ys)}", xs, ys)
    c.seq(todo, path, name, xs, ys)


def _tensor_type(c: _Comparer, a: TensorType, b: TensorType, path: _Path | None) -> None:
    c.field(path, "dtype", a.dtype, b.dtype)
    todo: list[tuple] = []
    _shape(c, todo, path, "shape", a.shape, b.shape)
    c.push_seq(todo)


def _tile_type(c: _Comparer, a: TileType, b: TileType, path: _Path | None) -> None:
    todo: list[tuple] = []
    _shape(c, todo, path, "shape", a.shape, b.shape)
    c.field(path, "dtype", a.dtype, b.dtype)
    c.field(path, "memory_space", a.memory_space, b.memory_space)
    todo.append((_NODE, a.tile_view, b.tile_view, (path, ("f", "tile_view"), a.tile_view, b.tile_view)))
    todo.append((_NODE, a.memref, b.memref, (path, ("f", "memref"), a.memref, b.memref)))
    c.push_seq(todo)


def _tuple_type(c: _Comparer, a: TupleType, b: TupleType, path: _Path | None) -> None:
    todo: list[tuple] = []
    c.seq(todo, path, "types", a.types, b.types)
    c.push_seq(todo)


def _unknown_type(c: _Comparer, a: UnknownType, b: UnknownType, path: _Path | None) -> None:
    return None


def _tile_view(c: _Comparer, a: TileView, b: TileView, path: _Path | None) -> None:
    for name in ("blayout", "slayout", "fractal", "pad"):
        c.field(path, name, getattr(a, name), getattr(b, name))
    if (a.valid_shape is None) != (b.valid_shape is None):
        c.fail((path, ("f", "valid_shape"), a.valid_shape, b.valid_shape), "one side has no valid_shape",
               a.valid_shape, b.valid_shape)
    if a.valid_shape is not None:
        todo: list[tuple] = []
        _shape(c, todo, path, "valid_shape", a.valid_shape, b.valid_shape)
        c.push_seq(todo)


def _memref(c: _Comparer, a: MemRef, b: MemRef, path: _Path | None) -> None:
    c.field(path, "memory_space", a.memory_space, b.memory_space)
    c.memref_base(a.base, b.base, (path, ("f", "base"), a.base, b.base))
    c.field(path, "size", a.size, b.size)
    c.field(path, "address", a.address, b.address)
    c.push(_NODE, a.byte_offset, b.byte_offset, path, ("f", "byte_offset"))


_HANDLERS: dict[type, Any] = {
    Program: _program,
    Function: _function,
    SeqStmts: _seq_stmts,
    AssignStmt: _assign,
    EvalStmt: _eval,
    ForStmt: _for,
    WhileStmt: _while,
    IfStmt: _if,
    ScopeStmt: _scope,
    YieldStmt: _values_stmt,
    ReturnStmt: _values_stmt,
    GlobalVar: _global_var,
    ConstInt: _const,
    ConstFloat: _const,
    ConstBool: _const_bool,
    Call: _call,
    MakeTuple: _make_tuple,
    TupleGetItem: _tuple_get_item,
    BinaryExpr: _binary,
    UnaryExpr: _unary,
    ScalarType: _scalar_type,
    TensorType: _tensor_type,
    TileType: _tile_type,
    TupleType: _tuple_type,
    UnknownType: _unknown_type,
    TileView: _tile_view,
    MemRef: _memref,
}


def _compare(a: Any, b: Any, enable_auto_mapping: bool) -> _Mismatch | None:
    comparer = _Comparer(enable_auto_mapping)
    try:
        comparer.run(a, b)
    except _Mismatch as exc:
        return exc
    return None


def structural_equal(a: Any, b: Any, enable_auto_mapping: bool = False) -> bool:
    """True when ``a`` and ``b`` (Programs, Functions, Stmts, Exprs or Types) are structurally equal."""
    return _compare(a, b, enable_auto_mapping) is None


def assert_structural_equal(a: Any, b: Any, enable_auto_mapping: bool = False) -> None:
    """Raise ``ValueError`` describing the first structural difference between ``a`` and ``b``."""
    mismatch = _compare(a, b, enable_auto_mapping)
    if mismatch is not None:
        raise ValueError(mismatch.render())


def structural_difference(a: Any, b: Any, enable_auto_mapping: bool = False) -> str | None:
    """The rendered first difference, or None when equal."""
    mismatch = _compare(a, b, enable_auto_mapping)
    return None if mismatch is None else mismatch.render()


# ------------------------------------------------------------------------------------------------
# hashing: a pre-order token stream (variables numbered by first appearance) fed to blake2b
# ------------------------------------------------------------------------------------------------


class _Hasher:
    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.vars: dict[Var, int] = {}
        self.bases: dict[str, int] = {}
        self.stack: list[tuple[int, Any]] = []

    def var(self, v: Var, define: bool) -> None:
        idx = self.vars.get(v)
        if idx is None:
            idx = self.vars[v] = len(self.vars)
            self.tokens.append(f"{'D' if define else 'F'}{type(v).__name__}#{idx}")
            self.stack.append((0, v.type))
        else:
            self.tokens.append(f"V#{idx}")

    def run(self, root: Any) -> int:
        stack = self.stack
        stack.append((0, root))
        tokens = self.tokens
        while stack:
            mode, x = stack.pop()
            if mode == 1:  # definition site
                self.var(x, True)
                continue
            if mode == 2:  # literal token
                tokens.append(x)
                continue
            if mode == 3:  # kwarg / attr value
                self.value(x)
                continue
            if mode == 4:  # a function starts: its variables are numbered afresh (as equality binds them)
                self.vars = {}
                continue
            self.node(x)
        data = "\x1f".join(tokens).encode()
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")

    def push(self, items: list[tuple[int, Any]]) -> None:
        self.stack.extend(reversed(items))

    def value(self, v: Any) -> None:
        if isinstance(v, (Expr, Type, TileView, MemRef)):
            self.node(v)
        elif isinstance(v, (tuple, list)):
            self.tokens.append(f"{type(v).__name__}/{len(v)}")
            self.push([(3, e) for e in v])
        else:
            self.tokens.append(_plain_token(v))

    def mapping(self, items: list[tuple[int, Any]], name: str, pairs: tuple) -> None:
        d = dict(pairs)
        items.append((2, f"{name}/{len(d)}"))
        for key in sorted(d, key=str):
            items.append((2, f"k:{key}"))
            items.append((3, d[key]))

    def node(self, x: Any) -> None:
        tokens = self.tokens
        if x is None:
            tokens.append("None")
            return
        if isinstance(x, Var):
            self.var(x, False)
            return
        tokens.append(type(x).__name__)
        if isinstance(x, (Program, Function, Stmt)):
            items = self.statement_items(x)
        elif isinstance(x, Expr):
            items = self.expression_items(x)
        else:
            items = self.type_items(x)
        if items:
            self.push(items)

    def statement_items(self, x: Program | Function | Stmt) -> list[tuple[int, Any]]:
        """The tokens of a program, function or statement (appended) and its children to visit (returned)."""
        tokens = self.tokens
        items: list[tuple[int, Any]] = []
        if isinstance(x, Program):
            self.mapping(items, "attrs", x.attrs)
            tokens.append(str(len(x.functions)))
            for f in x.functions:
                items.extend(((4, None), (0, f)))
        elif isinstance(x, Function):
            tokens.extend((x.name, x.func_type.name, ",".join(d.name for d in x.param_directions)))
            items.extend((1, p) for p in x.params)
            items.append((2, f"ret/{len(x.return_types)}"))
            items.extend((0, t) for t in x.return_types)
            self.mapping(items, "attrs", x.attrs)
            items.append((0, x.body))
        elif isinstance(x, SeqStmts):
            tokens.append(str(len(x.stmts)))
            items.extend((0, s) for s in x.stmts)
        elif isinstance(x, AssignStmt):
            items = [(0, x.value), (1, x.var)]
        elif isinstance(x, EvalStmt):
            items = [(0, x.expr)]
        elif isinstance(x, ForStmt):
            tokens.append(x.kind.name)
            self.mapping(items, "attrs", x.attrs)
            items.extend([(0, x.start), (0, x.stop), (0, x.step), (2, f"it/{len(x.iter_args)}")])
            items.extend((0, ia.init) for ia in x.iter_args)
            items.append((1, x.loop_var))
            items.extend((1, ia) for ia in x.iter_args)
            items.append((0, x.body))
            items.append((2, f"rv/{len(x.return_vars)}"))
            items.extend((1, v) for v in x.return_vars)
        elif isinstance(x, WhileStmt):
            items.append((2, f"it/{len(x.iter_args)}"))
            items.extend((0, ia.init) for ia in x.iter_args)
            items.extend((1, ia) for ia in x.iter_args)
            items.extend([(0, x.condition), (0, x.body), (2, f"rv/{len(x.return_vars)}")])
            items.extend((1, v) for v in x.return_vars)
        elif isinstance(x, IfStmt):
            self.mapping(items, "attrs", x.attrs)
            items.extend([(0, x.condition), (0, x.then_body), (0, x.else_body), (2, f"rv/{len(x.return_vars)}")])
            items.extend((1, v) for v in x.return_vars)
        elif isinstance(x, ScopeStmt):
            tokens.append(x.level)
            self.mapping(items, "attrs", x.attrs)
            items.append((0, x.body))
        elif isinstance(x, (YieldStmt, ReturnStmt)):
            tokens.append(str(len(x.values)))
            items.extend((0, v) for v in x.values)
        else:
            tokens.append(_plain_token(x))
        return items

    def expression_items(self, x: Expr) -> list[tuple[int, Any]]:
        """The tokens of an expression other than a variable (appended) and its operands to visit (returned)."""
        tokens = self.tokens
        items: list[tuple[int, Any]] = []
        if isinstance(x, GlobalVar):
            tokens.append(x.name)
        elif isinstance(x, (ConstInt, ConstFloat)):
            tokens.extend((_plain_token(x.value), x.dtype.name))
        elif isinstance(x, ConstBool):
            tokens.append(str(x.value))
        elif isinstance(x, Call):
            tokens.append(("@" if isinstance(x.op, GlobalVar) else "") + x.op_name)
            tokens.append(str(len(x.args)))
            items.extend((0, a) for a in x.args)
            self.mapping(items, "kwargs", x.kwargs)
        elif isinstance(x, MakeTuple):
            tokens.append(str(len(x.elements)))
            items.extend((0, e) for e in x.elements)
        elif isinstance(x, TupleGetItem):
            tokens.append(str(x.index))
            items = [(0, x.tuple_value)]
        elif isinstance(x, BinaryExpr):
            tokens.append(x.dtype.name)
            items = [(0, x.lhs), (0, x.rhs)]
        elif isinstance(x, UnaryExpr):
            tokens.append(x.dtype.name)
            items = [(0, x.operand)]
        else:
            tokens.append(_plain_token(x))
        return items

    def type_items(self, x: Any) -> list[tuple[int, Any]]:
        """The tokens of a type, tile view or MemRef (appended) and its parts to visit (returned)."""
        tokens = self.tokens
        items: list[tuple[int, Any]] = []
        if isinstance(x, ScalarType):
            tokens.append(x.dtype.name)
        elif isinstance(x, TensorType):
            tokens.extend((x.dtype.name, str(len(x.shape))))
            items.extend((0, e) for e in x.shape)
        elif isinstance(x, TileType):
            tokens.extend((x.dtype.name, str(x.memory_space), str(len(x.shape))))
            items.extend((0, e) for e in x.shape)
            items.extend([(0, x.tile_view), (0, x.memref)])
        elif isinstance(x, TupleType):
            tokens.append(str(len(x.types)))
            items.extend((0, t) for t in x.types)
        elif isinstance(x, TileView):
            tokens.extend(str(getattr(x, n)) for n in ("blayout", "slayout", "fractal", "pad"))
            if x.valid_shape is None:
                tokens.append("novalid")
            else:
                tokens.append(f"valid/{len(x.valid_shape)}")
                items.extend((0, e) for e in x.valid_shape)
        elif isinstance(x, MemRef):
            idx = self.bases.setdefault(x.base, len(self.bases))
            tokens.extend((x.memory_space.name, f"base#{idx}", str(x.size), str(x.address)))
            items = [(0, x.byte_offset)]
        elif isinstance(x, UnknownType):
            pass
        else:
            tokens.append(_plain_token(x))
        return items


def _plain_token(v: Any) -> str:
    if isinstance(v, bool):
        return f"b:{v}"
    if _is_number(v):
        f = float(v)
        if math.isnan(f):
            return "n:nan"
        if math.isfinite(f) and f == int(f) and abs(f) < 2**63:
            return f"n:{int(f)}" if isinstance(v, float) else f"n:{v}"
        return f"n:{f + 0.0!r}"
    if isinstance(v, enum.Enum):
        return f"e:{type(v).__name__}.{v.name}"
    if isinstance(v, str):
        return f"s:{v!r}"
    if isinstance(v, AffineMap):
        return f"m:{v}"
    return f"{type(v).__name__}:{v!r}"


def structural_hash(x: Any) -> int:
    """A 64-bit hash consistent with ``structural_equal`` (equal IR hashes equal), independent of
    variable names, spans and the Python hash seed."""
    return _Hasher().run(x)
