"""tilefold IR: types, expressions, statements, functions and programs, plus visitor / mutator,
structural equality and a hook to the `pl` printer (which lives in `tilefold.language`)."""

from tilefold.ir.affine import AffineMap
from tilefold.ir.compat import compile, deserialize, serialize  # noqa: A004
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
from tilefold.ir.types import (
    AtomicType,
    DataType,
    MemorySpace,
    MemRef,
    PadValue,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    UnknownType,
    make_shape,
    static_shape,
    tensor_type,
    tile_type,
)
from tilefold.ir.visitor import IRMutator, IRVisitor, collect_uses, substitute

_LAZY = {
    "structural_equal": "tilefold.ir.structural",
    "assert_structural_equal": "tilefold.ir.structural",
    "structural_hash": "tilefold.ir.structural",
}


def __getattr__(name: str):
    # structural equality is large and rarely needed at import time: load it on first use
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = [
    "AtomicType", "PadValue",
    "Add", "AffineMap", "And", "AssignStmt", "BinaryExpr", "Call", "ConstBool", "ConstFloat", "ConstInt",
    "DataType", "Eq", "EvalStmt", "Expr", "FloorDiv", "ForKind", "ForStmt", "Function", "FunctionType",
    "Ge", "GlobalVar", "Gt", "IRMutator", "IRVisitor", "IfStmt", "IterArg", "Le", "Lt", "MakeTuple", "Max",
    "MemRef", "MemorySpace", "Min", "Mod", "Mul", "Ne", "Neg", "Not", "Or", "ParamDirection", "Program",
    "ReturnStmt", "ScalarType", "ScopeStmt", "SeqStmts", "Stmt", "Sub", "TensorType", "TileType", "TileView",
    "TupleGetItem", "TupleType", "Type", "UnaryExpr", "UnknownType", "Var", "WhileStmt", "YieldStmt",
    "as_expr", "assert_structural_equal", "compile", "deserialize",
    "serialize", "collect_uses", "const_int", "final_yield", "flatten_stmts", "int_value",
    "make_shape", "python_print", "register_printer", "static_shape", "structural_equal", "structural_hash",
    "substitute", "tensor_type", "tile_type",
]
