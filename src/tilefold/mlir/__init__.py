"""HIVM MLIR in and out (AscendNPU-IR's IR): read it with xDSL, lower AIV functions to tilefold, run
TileAndBindSubBlock, print the result back as HIVM MLIR. See docs/mlir.md.

Front-end layer: it imports ir / ops / passes / language; nothing below imports it. xDSL is the optional extra
``tilefold[mlir]``; without it every entry point raises a clear error.
"""

from __future__ import annotations

from tilefold.mlir.opt import MlirUnavailable, main, require_xdsl


def load_program(path: str, function: str | None = None):
    """The tilefold Program of the (first, or named) AIV function of an HIVM MLIR file, for ``tilefold run``."""
    return load_lowering(path, function)[1]


def relocate_to_mlir(error, lowering) -> None:
    """Point an error or fault located in the lowered ``pl`` text (``FILE.mlir:fn (lowered):L:C``) at the MLIR op
    line L came from, so a user of ``tilefold run FILE.mlir`` sees their own file; left as is when unknown."""
    from tilefold.mlir.lower import lowered_line_span

    span = getattr(error, "span", None)
    if span is None or not str(getattr(span, "filename", "")).endswith("(lowered)"):
        return
    mlir_span = lowered_line_span(lowering, span.line)
    if mlir_span is not None:
        error.span = mlir_span


def load_lowering(path: str, function: str | None = None):
    """(Lowering, Program) of the (first, or named) AIV function of an HIVM MLIR file."""
    from tilefold.errors import TilefoldError

    require_xdsl()
    from xdsl.dialects import func

    from tilefold.mlir.bind_sub_block import is_candidate, lower_to_program
    from tilefold.mlir.opt import Chunk, parse_chunk, read_source

    source = read_source(path)
    chunk = Chunk(source, 0)
    module = parse_chunk(chunk, path)
    fns = [op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks]
    if function is not None:
        fns = [f for f in fns if f.sym_name.data == function]
    aiv = [f for f in fns if is_candidate(f)] or fns
    if not aiv:
        raise TilefoldError(f"{path}: no function with a body to run" + (f" named {function!r}" if function else ""),
                            hint="tilefold run simulates one AIV function (hivm.func_core_type = "
                                 "#hivm.func_core_type<AIV>) of the file")
    return lower_to_program(aiv[0], path, source)


__all__ = ["MlirUnavailable", "load_lowering", "load_program", "main", "relocate_to_mlir", "require_xdsl"]
