"""PyPTO's backend selection (``from pypto.backend import BackendType, set_backend_type``): tilefold's backends
are its targets, so a backend type names a target of ``tilefold.targets``."""

from __future__ import annotations

import enum


class BackendType(enum.Enum):
    Ascend910B = "Ascend910B"
    Ascend910C = "Ascend910C"
    Ascend950 = "Ascend950"


_current = BackendType.Ascend910B


def set_backend_type(backend: BackendType) -> None:
    """Select the target later compiles use by default (``tilefold.ir.compile`` without ``backend_type=``)."""
    global _current
    if not isinstance(backend, BackendType):
        from tilefold.errors import TilefoldError

        raise TilefoldError(f"set_backend_type takes a BackendType, got {backend!r}",
                            hint="e.g. set_backend_type(BackendType.Ascend910B)")
    _current = backend


def get_backend_type() -> BackendType:
    return _current


def reset_for_testing() -> None:
    global _current
    _current = BackendType.Ascend910B
