"""PyPTO's ``backend.pto_backend``: PTO code generation for a memory-planned program (``generate``) and the error
a failed generation raises (``PartialCodegenError``, a ``TilefoldError``)."""

from __future__ import annotations

from typing import Any

from tilefold.errors import PartialCodegenError, TilefoldError


def generate(program: Any, target: Any = None, **options: Any) -> Any:
    """The PTO program of ``program`` (already through the tile pipeline) for ``target`` (default: the backend
    type set with ``set_backend_type``). A failure is a ``PartialCodegenError`` naming the cause."""
    from tilefold.backend.backend_type import get_backend_type
    from tilefold.backend.codegen import generate as codegen
    from tilefold.targets import get_target

    tgt = get_target(target if isinstance(target, str) else (target or get_backend_type()).value)
    try:
        return codegen(program, tgt, **options)
    except PartialCodegenError:
        raise
    except TilefoldError as exc:
        raise PartialCodegenError(f"code generation failed: {exc.message}", span=exc.span, hint=exc.hint) from None


__all__ = ["PartialCodegenError", "generate"]
