"""tilefold: a tile-level kernel compiler for Ascend-style NPUs, with a memory-faithful simulator.

Importing ``tilefold`` (which every ``tilefold.<package>`` import does first) loads only the error types: the
package layers (docs/architecture.md) load when they are imported. ``register_custom_op`` /
``unregister_custom_op`` are forwarded from the custom-op home ``tilefold.ops.custom`` on first use.
"""

from tilefold.errors import (
    CustomOpError,
    NotSupportedError,
    ParseError,
    PartialCodegenError,
    TilefoldError,
    TypeInferenceError,
    VerificationError,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    if name in ("register_custom_op", "unregister_custom_op"):
        from tilefold.ops.custom import kernels

        return getattr(kernels, name)
    raise AttributeError(f"module 'tilefold' has no attribute {name!r}")


__all__ = [
    "CustomOpError", "NotSupportedError", "ParseError", "PartialCodegenError", "TilefoldError", "TypeInferenceError",
    "VerificationError", "register_custom_op", "unregister_custom_op", "__version__",
]
