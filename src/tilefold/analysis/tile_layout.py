"""Tile storage geometry shared by memory planning and PTO codegen.

How many bytes a tile occupies in a memory space (Acc pads to whole NZ fractals), its row pitch, the byte
offset of an element, a folder of constant scalar expressions over SSA definitions, and the (row, col)
origin of an N-D window. These are facts about layouts, not decisions: the planning passes
(``passes.init_mem_ref`` / ``memory_reuse`` / ``allocate_memory_addr``) and codegen both read them, so
they live below both.
"""


from tilefold.errors import NotSupportedError
from tilefold.ir.expr import (
    Add,
    BinaryExpr,
    ConstInt,
    Expr,
    FloorDiv,
    IterArg,
    Mod,
    Mul,
    Sub,
    Var,
)
from tilefold.ir.stmt import (
    AssignStmt,
    ForStmt,
    Function,
    IfStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
)
from tilefold.ir.types import DataType, MemorySpace, TileType
from tilefold.targets import Target


def ceil_to(x: int, m: int) -> int:
    return -(-x // m) * m


def tile_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    """The [rows, cols] a tile of any rank occupies (leading axes fold into rows)."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, shape[0]
    rows = 1
    for s in shape[:-1]:
        rows *= s
    return rows, shape[-1]


def static_dims(t: TileType, what: str) -> tuple[int, ...]:
    shape = t.static_shape
    if shape is None:
        raise NotSupportedError(f"{what} has a symbolic shape; memory planning needs static tile shapes",
                                hint="give the tile a constant shape and mark its valid region with "
                                     "pl.tile.set_validshape")
    return shape


def is_nz(space: MemorySpace) -> bool:
    return space is MemorySpace.Acc


def storage_bytes(t: TileType, space: MemorySpace, target: Target, what: str = "tile") -> int:
    """Bytes a dense tile of type ``t`` occupies in ``space`` (Acc pads to whole NZ fractals; the 4-bit types pack two
    elements per byte, and refuses a row that would end mid-byte)."""
    rows, cols = tile_2d(static_dims(t, what))
    if t.dtype.packed and cols % 2:
        raise NotSupportedError(f"{what}: an {t.dtype.name} tile row of {cols} elements ends mid-byte ({t.dtype.name} "
                                f"packs {8 // t.dtype.storage_bits} elements per byte)",
                                hint="give 4-bit (FP4 / INT4 / UINT4) tiles an even innermost extent: load or create "
                                     "an even-width window (valid_shapes can mark the columns that hold data)")
    if is_nz(space):
        fr, fc = target.acc_fractal
        return t.dtype.nbytes(ceil_to(rows, fr) * ceil_to(cols, fc))
    return t.dtype.nbytes(rows * cols)


def dense_pitch(t: TileType, space: MemorySpace, target: Target) -> int:
    """Row pitch (ND: elements per row) or NZ column-block stride (Acc: padded rows) of a dense tile."""
    rows, cols = tile_2d(static_dims(t, "tile"))
    if is_nz(space):
        return ceil_to(rows, target.acc_fractal[0])
    return cols


def element_offset_bytes(row: Expr, col: Expr, pitch: int, dtype: DataType, space: MemorySpace,
                         target: Target) -> Expr:
    """Byte offset of element (row, col) in a tile with the given pitch, as a folded expression (4-bit types: half a
    byte per element; an odd element offset, mid-byte, is refused by codegen and the simulator)."""
    if dtype.packed:
        return floordiv(mul(add(mul(row, pitch), col), dtype.storage_bits), 8)
    isz = dtype.itemsize
    if is_nz(space):
        fr, fc = target.acc_fractal
        frac = fr * fc * isz
        blocks = add(mul(floordiv(col, fc), pitch // fr), floordiv(row, fr))
        inner = add(mul(mod(row, fr), fc), mod(col, fc))
        return add(mul(blocks, frac), mul(inner, isz))
    return mul(add(mul(row, pitch), col), isz)


def _c(v: int) -> ConstInt:
    return ConstInt(v, DataType.INDEX)


def _arith(cls: type[BinaryExpr], fold, a: Expr, b: Expr | int) -> Expr:
    if isinstance(b, int):
        b = _c(b)
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return _c(fold(a.value, b.value))
    return cls(a, b, DataType.INDEX)


def add(a: Expr, b: Expr | int) -> Expr:
    if (isinstance(b, int) and b == 0) or (isinstance(b, ConstInt) and b.value == 0):
        return a
    if isinstance(a, ConstInt) and a.value == 0 and not isinstance(b, int):
        return b
    return _arith(Add, lambda x, y: x + y, a, b)


def mul(a: Expr, b: Expr | int) -> Expr:
    if isinstance(b, int) and b == 1:
        return a
    if isinstance(b, int) and b == 0:
        return _c(0)
    return _arith(Mul, lambda x, y: x * y, a, b)


def floordiv(a: Expr, b: int) -> Expr:
    return a if b == 1 else _arith(FloorDiv, lambda x, y: x // y, a, b)


def mod(a: Expr, b: int) -> Expr:
    return _c(0) if b == 1 else _arith(Mod, lambda x, y: x % y, a, b)


class ConstFolder:
    """Folds scalar expressions over ConstInt SSA definitions, aliases and arithmetic on constants."""

    _OPS = {Add: lambda a, b: a + b, Sub: lambda a, b: a - b, Mul: lambda a, b: a * b,
            FloorDiv: lambda a, b: a // b if b else None, Mod: lambda a, b: a % b if b else None}

    def __init__(self, fn: Function) -> None:
        self.values: dict[Var, Expr] = {}
        for stmt in all_stmts(fn.body):
            if isinstance(stmt, AssignStmt) and not isinstance(stmt.var.type, TileType):
                self.values[stmt.var] = stmt.value

    def value(self, expr: Expr, depth: int = 0) -> int | None:
        if isinstance(expr, ConstInt):
            return expr.value
        if depth > 64:
            return None
        if isinstance(expr, Var) and not isinstance(expr, IterArg):
            d = self.values.get(expr)
            return None if d is None else self.value(d, depth + 1)
        fold = self._OPS.get(type(expr))
        if fold is not None:
            a = self.value(expr.lhs, depth + 1)
            b = self.value(expr.rhs, depth + 1)
            if a is not None and b is not None:
                return fold(a, b)
        return None

    def fold(self, expr: Expr) -> Expr:
        v = self.value(expr)
        return _c(v) if v is not None else expr


def all_stmts(stmt: Stmt | None):
    if stmt is None:
        return
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            yield from all_stmts(s)
        return
    yield stmt
    if isinstance(stmt, (ForStmt, WhileStmt)):
        yield from all_stmts(stmt.body)
    elif isinstance(stmt, IfStmt):
        yield from all_stmts(stmt.then_body)
        yield from all_stmts(stmt.else_body)


def view_offset_2d(offsets: tuple[Expr, ...], src_shape: tuple[int, ...]) -> tuple[Expr, Expr]:
    """(row, col) of an N-D window origin in the source's [rows, cols] folding."""
    if len(offsets) == 1:
        return _c(0), offsets[0]
    row: Expr = _c(0)
    for axis, off in enumerate(offsets[:-1]):
        stride = 1
        for s in src_shape[axis + 1:-1]:
            stride *= s
        row = add(row, mul(off, stride))
    return row, offsets[-1]


__all__ = ["ConstFolder", "add", "all_stmts", "ceil_to", "dense_pitch", "element_offset_bytes", "floordiv",
           "is_nz", "mod", "mul", "static_dims", "storage_bytes", "tile_2d", "view_offset_2d"]
