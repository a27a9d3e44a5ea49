"""A late-bound hook to the ``pl`` printer.

The printer writes DSL text and asks the op registry about kwargs, so it lives in ``tilefold.language``
(beside the parser) and ``ir`` cannot import it. ``tilefold.frontend.printer`` registers itself here when it
is imported (importing ``tilefold`` does that), so ``Program.as_python()`` and ``ir.python_print`` keep working
while ``ir`` depends on no other tilefold package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tilefold.errors import NotSupportedError

_printer: Callable[[Any], str] | None = None


def register_printer(printer: Callable[[Any], str] | None) -> None:
    """Install the function that prints an IR node as ``pl`` text (None removes it)."""
    global _printer
    _printer = printer


def printer_available() -> bool:
    return _printer is not None


def python_print(node: Any) -> str:
    """``pl`` text for a Program, Function, Stmt, Expr or Type (through the registered printer)."""
    if _printer is None:
        raise NotSupportedError("the pl printer is not loaded",
                                hint="import tilefold.language (it registers the printer) before printing IR")
    return _printer(node)
