"""Custom-op kernels for ``tilefold run``: ``--kernels FILE.py|examples`` and the check that every custom op has one.

Contract: ``register_kernels(sources)`` registers the example kernels (``examples``) or runs a kernel file (the
only place the CLI executes user code, and only when asked to); a mistake in that file is reported as the user's,
at the file and line. ``check_custom_kernels(program, files)`` refuses, at the call, a custom op without a
registered kernel, saying where one would come from.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError


def register_kernels(sources: list[str] | tuple[str, ...]) -> None:
    """Register custom-op kernels before a run. ``examples`` registers the reference kernels of the
    example programs; a path runs that Python file, which is expected to call
    ``tilefold.register_custom_op`` (the analog of loading compiled kernels — this is the only place the
    CLI executes user code, and only when asked to)."""
    for source in sources:
        if source == "examples":
            from tilefold.ops.custom.library import register_example_kernels

            register_example_kernels()
            continue
        path = Path(source)
        if path.is_dir():
            raise TilefoldError(f"kernel file {source!r} is a directory",
                                hint="pass a Python file that calls tilefold.register_custom_op, or 'examples'")
        if not path.is_file():
            raise TilefoldError(f"kernel file {source!r} not found",
                                hint="pass a Python file that calls tilefold.register_custom_op, or 'examples'")
        _run_kernel_file(path)


def _run_kernel_file(path: Path) -> None:
    """Execute a ``--kernels`` file; its mistakes are reported as the user's, at the file and line."""
    import runpy
    import traceback

    from tilefold.errors import Span

    hint = ("this error is in the kernel file, not in tilefold: fix it there (the file is run as a Python script "
            "that calls tilefold.register_custom_op(symbol, kernel))")
    try:
        runpy.run_path(str(path), run_name="tilefold_kernels")
    except SyntaxError as exc:
        span = Span(exc.filename or str(path), exc.lineno or 0, exc.offset or 0, exc.text or "")
        raise TilefoldError(f"syntax error in kernel file {str(path)!r}: {exc.msg}", span=span, hint=hint) from None
    except TilefoldError as exc:
        if exc.span is not None:
            raise
        raise type(exc)(f"{exc.message} (while running kernel file {str(path)!r})",
                        span=_kernel_file_span(traceback.extract_tb(exc.__traceback__), path),
                        hint=exc.hint) from exc
    except SystemExit as exc:
        raise TilefoldError(f"kernel file {str(path)!r} called exit({exc.code!r}) while it was being loaded",
                            hint=hint) from None
    except Exception as exc:
        span = _kernel_file_span(traceback.extract_tb(exc.__traceback__), path)
        raise TilefoldError(f"kernel file {str(path)!r} raised {type(exc).__name__}: {exc}", span=span,
                            hint=hint) from exc


def _kernel_file_span(frames, path: Path):
    """Span of the innermost traceback frame in the kernel file ``path`` (None if it has none)."""
    from tilefold.errors import Span

    target = path.resolve()
    for fr in reversed(frames):
        try:
            if Path(fr.filename).resolve() == target:
                return Span(fr.filename, fr.lineno or 0, 0, fr.line or "")
        except OSError:
            continue
    return None


def check_custom_kernels(program, kernel_files: Sequence[str]) -> None:
    """Every custom op the program calls has a registered kernel; else say which --kernels file (or
    register_custom_op call) provides it, at the call."""
    from tilefold.ir.visitor import IRVisitor
    from tilefold.ops.custom.kernels import is_registered

    calls: list[Any] = []

    class _Customs(IRVisitor):
        def visit_Call(self, expr) -> None:
            symbol = expr.kwarg("symbol") if expr.op_name.startswith("tile.custom") else None
            if isinstance(symbol, str) and not is_registered(symbol):
                calls.append((symbol, expr))
            super().visit_Call(expr)

    for fn in program.functions:
        _Customs().visit_function(fn)
    if not calls:
        return
    symbol, call = calls[0]
    from tilefold.ops.custom.library import EXAMPLE_KERNELS

    if symbol in EXAMPLE_KERNELS:
        hint = "its reference kernel ships with the examples: add --kernels examples"
    else:
        given = f" (given: {', '.join(kernel_files)})" if kernel_files else ""
        hint = (f"pass --kernels FILE.py{given}, a Python file that calls tilefold.register_custom_op("
                f"{symbol!r}, kernel[, cost]); from Python, call tilefold.register_custom_op before running")
    raise TilefoldError(f"custom op {symbol!r} has no registered kernel", span=call.span if call.span.line else None,
                        hint=hint)
