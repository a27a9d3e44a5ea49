"""``with pl.cluster():`` — PyPTO's co-scheduling scope, in both forms, as far as PyPTO's documents specify it.

What the documents say (language/04-scopes, dev/01-statements, dev/03-functions, dev/07 and dev/10):

- it "groups AIC and AIV kernels so they are co-scheduled on the same physical cluster, producing a ``Group``
  function" (OutlineClusterScopes, named ``{func}_cluster_{n}``, run on Opaque and Orchestration functions);
- a Group (or Spmd) wrapper is a "transparent 1:1 forwarder of its params to a single inner InCore call"
  (dev/10, Phase 2a); a ``pl.spmd`` nested in it is unwrapped into the Group function, and
  ``allow_early_resolve=True`` on such a ``pl.spmd`` is rejected (dev/01).

So a cluster body that launches **one** kernel (one on-chip ``pl.at`` scope, one ``pl.spmd``, or one kernel call)
is that kernel, run on one cluster — which is where tilefold runs every kernel (one AIC and its two AIV lanes):
the scope changes no value and no launch, and tilefold keeps its statements where they are (the 1:1 Group
wrapper is not materialised). A body launching several kernels — separately written AIC and AIV kernels
working together — is refused: PyPTO's documents give OutlineClusterScopes no page, say nothing of how the
grouped kernels are paired or launched, and specify the cross-core pipe (``tpush_*`` / ``tpop_*`` /
``tfree_*``) only inside one InCore function (ops catalog, "AIC and AIV cooperating inside one InCore
function"), not between two kernels of a group.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from tilefold.errors import NotSupportedError
from tilefold.ir.expr import Call, GlobalVar
from tilefold.ir.hierarchy import ON_CHIP
from tilefold.ir.stmt import ForStmt, IfStmt, ScopeStmt, Stmt, WhileStmt
from tilefold.ir.visitor import IRVisitor

#: why a cluster of several kernels is refused: what PyPTO's documents leave unsaid
MISSING = ("PyPTO's documents define only the grouping (a Group function named {func}_cluster_{n}, a 1:1 "
           "forwarder to one InCore call): OutlineClusterScopes has no page, nothing says how the grouped AIC and "
           "AIV kernels are paired or launched, and the cross-core pipe (tpush / tpop / tfree) is specified only "
           "inside one InCore function, not between two kernels of a group")
HINT = ("write the cube and the vector work in one `with pl.at(level=pl.Level.CORE_GROUP):` scope (or one InCore "
        "function): tilefold runs it on one cluster, with `for aiv_id in pl.split_aiv(2, mode=...)` regions and "
        "pl.aiv_shard / pl.aic_gather (or pl.tpush_* / pl.tpop_* / pl.tfree_*) for the vector lanes")


class _Launches(IRVisitor):
    """Kernel launches of a statement list: on-chip scopes and calls of program functions; ``looped`` when one
    sits in a loop or an if (a count the body does not fix); ``hierarchy`` for a hierarchy scope."""

    def __init__(self, is_kernel: Callable[[str], bool]) -> None:
        self.is_kernel = is_kernel
        self.count = 0
        self.looped = False
        self.hierarchy: ScopeStmt | None = None
        self.orchestration: str | None = None  # a called function that is not a kernel (its launches are unseen)
        self._depth = 0

    def _note(self) -> None:
        self.count += 1
        self.looped = self.looped or self._depth > 0

    def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
        if stmt.level in ON_CHIP:
            self._note()
            return  # what runs inside the kernel is not a launch
        self.hierarchy = self.hierarchy or stmt
        super().visit_ScopeStmt(stmt)

    def visit_Call(self, expr: Call) -> None:
        if isinstance(expr.op, GlobalVar):
            self._note()
            if not self.is_kernel(expr.op.name):
                self.orchestration = self.orchestration or expr.op.name
        super().visit_Call(expr)

    def _nested(self, stmt: Stmt, visit: Callable[[Any], None]) -> None:
        self._depth += 1
        try:
            visit(stmt)
        finally:
            self._depth -= 1

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        self._nested(stmt, super().visit_ForStmt)

    def visit_WhileStmt(self, stmt: WhileStmt) -> None:
        self._nested(stmt, super().visit_WhileStmt)

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        self._nested(stmt, super().visit_IfStmt)


def _check_call(p: Any, s: ast.With) -> None:
    item = s.items[0]
    call = item.context_expr
    if isinstance(call, ast.Call) and (call.args or call.keywords):
        raise p.error(call, "pl.cluster() takes no arguments", hint="with pl.cluster():")
    if item.optional_vars is not None:
        raise p.error(item.optional_vars, "pl.cluster() binds no task id",
                      hint="bind `as tid` on the pl.at / pl.spmd scope inside it")
    for node in (n for b in s.body for n in ast.walk(b)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "spmd" \
                and any(kw.arg == "allow_early_resolve" for kw in node.keywords):
            kw = next(k for k in node.keywords if k.arg == "allow_early_resolve")
            raise p.error(kw.value, "allow_early_resolve= on a pl.spmd inside pl.cluster()",
                          hint="PyPTO unwraps a cluster-nested pl.spmd into the Group function, which never "
                               "becomes a submit: drop allow_early_resolve=")
        if isinstance(node, ast.Return):
            raise p.error(node, "return inside a pl.cluster() scope", hint="return after the with block")


def cluster_scope(p: Any, s: ast.With, out: list[Stmt], parse_stmt: Callable[[ast.stmt, list[Stmt]], None],
                  is_kernel: Callable[[str], bool]) -> None:
    """Parse ``with pl.cluster(): ...`` (the module doc): the body's statements go to ``out`` when they launch
    exactly one kernel (``is_kernel(name)``: the program function ``name`` is a kernel, not orchestration code);
    otherwise a located ``NotSupportedError`` saying what PyPTO's documents leave out."""
    _check_call(p, s)
    body: list[Stmt] = []
    for b in s.body:
        parse_stmt(b, body)
    found = _Launches(is_kernel)
    for st in body:
        found.visit_stmt(st)
    if found.orchestration is not None:
        raise NotSupportedError(f"with pl.cluster(): the body calls {found.orchestration!r}, which is orchestration "
                                "code (its own launches would be grouped); grouping separately written kernels is "
                                f"not supported: {MISSING}", span=p.span(s),
                                hint="call the one kernel itself inside pl.cluster()")
    if found.hierarchy is not None:
        raise p.error(s, f"a pl.Level.{found.hierarchy.level} scope inside pl.cluster(): a cluster is one AIC and "
                         "its AIV lanes", hint="put the hierarchy scope around the pl.cluster() scope")
    if found.count == 0:
        raise p.error(s, "a pl.cluster() body launches no kernel",
                      hint="put the kernel in it: a `with pl.at(level=pl.Level.CORE_GROUP):` scope, a pl.spmd "
                           "or a kernel call")
    if found.count > 1 or found.looped:
        what = "launches a kernel inside a loop or an if" if found.looped and found.count == 1 else \
            f"launches {found.count} kernels" if not found.looped else "launches kernels inside a loop or an if"
        raise NotSupportedError(f"with pl.cluster(): this body {what}; grouping separately written AIC and AIV "
                                f"kernels, co-scheduled on one cluster, is not supported: {MISSING}",
                                span=p.span(s), hint=HINT)
    out.extend(body)


__all__ = ["HINT", "MISSING", "cluster_scope"]
