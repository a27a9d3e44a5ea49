"""The rewrite walk: every statement once, in program order; consumers go to their rule, escapes to rule 6.

Contract: ``SliceRewriter(ctx).mutate_function(fn)`` returns ``fn`` rewritten by the rules, with the copies they
asked for placed right before their consumers (or at ``ctx``'s hoist anchors). The walk

- dispatches each call that reads a slice (``rewrite_call``): ``tile.extract`` to ``extract_fold`` (rule 2), an
  ``OpKind.MATMUL`` op to ``matmul_operands`` (rule 3), an ``OpKind.COL_BROADCAST`` op to ``col_expand``
  (rule 4), any other call to ``vector_operands`` (rule 5); a ``tile.slice`` (a chain link) is skipped;
- runs the per-operand loop the operand rules share (``rewrite_operands``): obtain or reuse the copy, substitute
  it, release the slice, let the rule report;
- materializes escapes (``escapes``, rule 6) at plain alias definitions, loop inits (rebuilding the IterArg and
  renaming its reads) and yields;
- opens a copy scope per block, so a copy is reused only where it dominates.

Dead slices are not removed here (``dead_slices`` does that afterwards).
"""

from __future__ import annotations

from tilefold.ir.expr import Call, Expr, Var
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from tilefold.ir.types import MemorySpace
from tilefold.ir.visitor import IRMutator
from tilefold.ops.registry import OpKind, op_of
from tilefold.passes.canonicalize_tile_slice.col_expand import col_broadcast_rule
from tilefold.passes.canonicalize_tile_slice.context import RewriteContext
from tilefold.passes.canonicalize_tile_slice.copies import OperandRule
from tilefold.passes.canonicalize_tile_slice.escapes import materialize_escape
from tilefold.passes.canonicalize_tile_slice.extract_fold import fold_extract
from tilefold.passes.canonicalize_tile_slice.matmul_operands import matmul_operand_rule
from tilefold.passes.canonicalize_tile_slice.vector_operands import vector_operand_rule


class SliceRewriter(IRMutator):
    """One walk over a function: statements in program order, each consumer through its rule."""

    def __init__(self, ctx: RewriteContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.constructs: list[tuple[tuple[Var, ...], tuple[Var, ...]]] = []  # enclosing loops / ifs

    # -- statements ----------------------------------------------------------------------------------

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt | list[Stmt]:
        ctx = self.ctx
        ctx.push_scope()  # a copy made in this block dominates the rest of it and the blocks inside
        out: list[Stmt] = []
        changed = False
        block = id(stmt)
        try:
            for i, s in enumerate(stmt.stmts):
                ctx.position.append((block, i))
                try:
                    if ctx.anchors:
                        hoisted = ctx.hoisted_at(block, i, s)
                        if hoisted:
                            out.extend(hoisted)
                            changed = True
                    r = self.mutate_stmt(s)
                finally:
                    ctx.position.pop()
                if isinstance(r, list):
                    out.extend(r)
                    changed = True
                else:
                    out.append(r)
                    changed = changed or r is not s
        finally:
            ctx.pop_scope()
        return stmt.with_fields(stmts=tuple(out)) if changed else stmt

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt | list[Stmt]:
        value = stmt.value
        ctx = self.ctx
        if isinstance(value, Var):
            if stmt.var in ctx.dead:
                return stmt  # an alias nobody reads: dropped with its slice
            info = ctx.lookup(value)
            built = materialize_escape(ctx, value, (), stmt, "alias") if info is not None else None
            if built is not None:
                pre, copy = built
                ctx.bind_alias(stmt.var, None)
                if pre:  # the alias itself becomes the copy, and later consumers reuse it
                    new_var = stmt.var
                    ctx.remember(info, MemorySpace.Vec, new_var)  # type: ignore[arg-type]
                    return stmt.with_fields(value=self._remap_expr(pre[0].value))  # type: ignore[attr-defined]
                return stmt.with_fields(value=self._remap_expr(copy))
            ctx.bind_alias(stmt.var, info)
            return super().mutate_AssignStmt(stmt) if self.var_map else stmt
        pre: list[Stmt] = []
        if isinstance(value, Call):
            if stmt.var in ctx.slices:
                ctx.refresh(stmt.var)
            value, pre = self.rewrite_call(stmt, value)
        if self.var_map:  # only loop-init escapes rename IterArgs; skip the expression walk otherwise
            value = self.mutate_expr(value)
            pre = self._remap(pre)
        new = stmt if value is stmt.value else stmt.with_fields(value=value)
        return [*pre, new] if pre else new

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt | list[Stmt]:
        expr = stmt.expr
        pre: list[Stmt] = []
        if isinstance(expr, Call):
            expr, pre = self.rewrite_call(stmt, expr)
        if self.var_map:
            expr = self.mutate_expr(expr)
            pre = self._remap(pre)
        new = stmt if expr is stmt.expr else stmt.with_fields(expr=expr)
        return [*pre, new] if pre else new

    def _remap_expr(self, expr: Expr) -> Expr:
        """``expr`` with the IterArgs renamed by loop-init escapes replaced (identity when none were)."""
        return self.mutate_expr(expr) if self.var_map else expr

    def _remap(self, stmts: list[Stmt]) -> list[Stmt]:
        """Copies built by the rewrite read the analysis' Vars; an enclosing loop whose init escaped has a
        rebuilt IterArg, so map those reads to it (else the copy reads a Var no longer defined)."""
        if not self.var_map:
            return stmts
        out: list[Stmt] = []
        for st in stmts:
            if isinstance(st, AssignStmt):
                v = self.mutate_expr(st.value)
                st = st if v is st.value else st.with_fields(value=v)
            elif isinstance(st, EvalStmt):
                e = self.mutate_expr(st.expr)
                st = st if e is st.expr else st.with_fields(expr=e)
            out.append(st)
        return out

    def _escape_inits(self, stmt: ForStmt | WhileStmt) -> tuple[list[Stmt], ForStmt | WhileStmt]:
        pre: list[Stmt] = []
        new_iter_args = []
        for i, ia in enumerate(stmt.iter_args):
            holders = (ia, stmt.return_vars[i]) if i < len(stmt.return_vars) else (ia,)
            built = materialize_escape(self.ctx, ia.init, holders, stmt, "loop init")
            if built is None:
                new_iter_args.append(ia)
                continue
            pre.extend(self._remap(list(built[0])))
            new_ia = ia.with_fields(init=self._remap_expr(built[1]))
            self.var_map[ia] = new_ia
            new_iter_args.append(new_ia)
        if len(new_iter_args) and any(a is not b for a, b in zip(new_iter_args, stmt.iter_args, strict=True)):
            stmt = stmt.with_fields(iter_args=tuple(new_iter_args))
        return pre, stmt

    def _in_construct(self, stmt: Stmt, iter_args: tuple[Var, ...], return_vars: tuple[Var, ...], mutate):
        self.constructs.append((iter_args, return_vars))
        try:
            return mutate(stmt)
        finally:
            self.constructs.pop()

    def mutate_ForStmt(self, stmt: ForStmt) -> Stmt | list[Stmt]:
        pre, changed = self._escape_inits(stmt)
        out = self._in_construct(changed, stmt.iter_args, stmt.return_vars, super().mutate_ForStmt)
        return [*pre, *(out if isinstance(out, list) else [out])] if pre else out

    def mutate_WhileStmt(self, stmt: WhileStmt) -> Stmt | list[Stmt]:
        pre, changed = self._escape_inits(stmt)
        out = self._in_construct(changed, stmt.iter_args, stmt.return_vars, super().mutate_WhileStmt)
        return [*pre, *(out if isinstance(out, list) else [out])] if pre else out

    def mutate_IfStmt(self, stmt: IfStmt) -> Stmt | list[Stmt]:
        return self._in_construct(stmt, (), stmt.return_vars, super().mutate_IfStmt)

    def mutate_YieldStmt(self, stmt: YieldStmt) -> Stmt | list[Stmt]:
        pre: list[Stmt] = []
        values = list(stmt.values)
        iter_args, return_vars = self.constructs[-1] if self.constructs else ((), ())
        for i, v in enumerate(values):
            holders = tuple(h[i] for h in (iter_args, return_vars) if i < len(h))
            built = materialize_escape(self.ctx, v, holders, stmt, "yield")
            if built is None:
                continue
            pre.extend(built[0])
            values[i] = built[1]
        if any(a is not b for a, b in zip(values, stmt.values, strict=True)):
            stmt = stmt.with_fields(values=tuple(values))
        out = super().mutate_YieldStmt(stmt) if self.var_map else stmt
        pre = self._remap(pre)
        return [*pre, out] if pre else out  # type: ignore[list-item]

    # -- consumers -----------------------------------------------------------------------------------

    def rewrite_call(self, stmt: Stmt, call: Call) -> tuple[Call, list[Stmt]]:
        ctx = self.ctx
        if not any(ctx.lookup(a) is not None for a in call.args):
            return call, []
        od = op_of(call)
        if od is ctx.slice_op:
            return call, []
        if od is ctx.extract_op:
            return fold_extract(ctx, call), []  # rule 2
        if od is not None and od.kind is OpKind.MATMUL:
            return self.rewrite_operands(stmt, call, matmul_operand_rule(ctx, call, od))  # rule 3
        if od is not None and od.kind is OpKind.COL_BROADCAST:
            return self.rewrite_operands(stmt, call, col_broadcast_rule(ctx, call))  # rule 4
        return self.rewrite_operands(stmt, call, vector_operand_rule(ctx, call, od))  # rule 5


    def rewrite_operands(self, stmt: Stmt, call: Call, rule: OperandRule) -> tuple[Call, list[Stmt]]:
        """The per-operand loop of rules 3-5. For each operand of ``call`` that is a slice, ``rule(i, info)``
        either leaves it (returns None, having reported why) or asks for a copy; the copy is obtained (or
        reused, ``obtain``), replaces the operand, the slice is released and the copy reported. Returns the
        call (the same object when no operand changed) and the statements to place before ``stmt``."""
        ctx = self.ctx
        args = list(call.args)
        pre: list[Stmt] = []
        for i, a in enumerate(call.args):
            info = ctx.lookup(a)
            if info is None:
                continue
            copy = rule(i, info)
            if copy is None:
                continue
            built = ctx.obtain(info, copy.memory, copy.suffix, stmt)
            if built is None:
                continue
            pre.extend(built[0])
            args[i] = built[1]
            ctx.release(a)  # type: ignore[arg-type]
            copy.report(built)
        if all(x is y for x, y in zip(args, call.args, strict=True)):
            return call, []
        return call.with_fields(args=tuple(args)), pre
