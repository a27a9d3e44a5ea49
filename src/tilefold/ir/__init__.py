"""tilefold IR: types, expressions, statements, functions and programs, plus visitor / mutator,
structural equality and a hook to the `pl` printer (which lives in `tilefold.language`)."""

from tilefold.ir.affine import AffineMap
from tilefold.ir.expr import (
    Add,
    And,
    BinaryExpr,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Eq,
    Expr,
    FloorDiv,
    Ge,
    GlobalVar,
    Gt,
    IterArg,
    Le,
    Lt,
    MakeTuple,
    Max,
    Min,
    Mod,
    Mul,
    Ne,
    Neg,
    Not,
    Or,
    Sub,
    TupleGetItem,
    UnaryExpr,
    Var,
    as_expr,
    const_int,
    int_value,
)
from tilefold.ir.printing import python_print, register_printer
from tilefold.ir.shapes import make_shape, tensor_type, tile_type
from tilefold.ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    Function,
    FunctionType,
    IfStmt,
    ParamDirection,
    Program,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    final_yield,
    flatten_stmts,
)
from tilefold.ir.structural import assert_structural_equal, structural_equal, structural_hash
from tilefold.ir.types import (
    AtomicType,
    DataType,
    MemorySpace,
    MemRef,
    PadValue,
    PipeType,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    UnknownType,
    static_shape,
)
from tilefold.ir.visitor import IRMutator, IRVisitor, collect_uses, substitute


def __getattr__(name: str):
    # The one upward edge of ``ir``: PyPTO's ``ir.compile`` / ``ir.serialize`` / ``ir.deserialize`` and
    # ``ir.pass_manager`` (with ``PassManager``, ``OptimizationStrategy``, ``PassDumpLevel``, ``VerificationLevel``)
    # sit above the compiler, in ``tilefold.compat``.
    if name in ("compile", "serialize", "deserialize"):
        from tilefold.compat import ir_compile

        return getattr(ir_compile, name)
    if name == "pass_manager":
        from tilefold.compat import pass_manager

        return pass_manager
    if name in ("PassManager", "OptimizationStrategy", "PassDumpLevel", "VerificationLevel"):
        from tilefold.compat import pass_manager

        return getattr(pass_manager, name)
    raise AttributeError(f"module 'tilefold.ir' has no attribute {name!r}")


__all__ = [
    "AtomicType", "PadValue", "PipeType",
    "Add", "AffineMap", "And", "AssignStmt", "BinaryExpr", "Call", "ConstBool", "ConstFloat", "ConstInt",
    "DataType", "Eq", "EvalStmt", "Expr", "FloorDiv", "ForKind", "ForStmt", "Function", "FunctionType",
    "Ge", "GlobalVar", "Gt", "IRMutator", "IRVisitor", "IfStmt", "IterArg", "Le", "Lt", "MakeTuple", "Max",
    "MemRef", "MemorySpace", "Min", "Mod", "Mul", "Ne", "Neg", "Not", "Or", "ParamDirection", "Program",
    "ReturnStmt", "ScalarType", "ScopeStmt", "SeqStmts", "Stmt", "Sub", "TensorType", "TileType", "TileView",
    "TupleGetItem", "TupleType", "Type", "UnaryExpr", "UnknownType", "Var", "WhileStmt", "YieldStmt",
    "OptimizationStrategy", "PassDumpLevel", "PassManager", "VerificationLevel",
    "as_expr", "assert_structural_equal", "compile", "deserialize",
    "serialize", "collect_uses", "const_int", "final_yield", "flatten_stmts", "int_value",
    "make_shape", "python_print", "register_printer", "static_shape", "structural_equal", "structural_hash",
    "substitute", "tensor_type", "tile_type",
]
