"""tilefold: a tile-level kernel compiler for Ascend-style NPUs, with a memory-faithful simulator."""

from tilefold.errors import (
    CustomOpError,
    NotSupportedError,
    ParseError,
    PartialCodegenError,
    TilefoldError,
    TypeInferenceError,
    VerificationError,
)

# the `pl` printer lives beside the parser; importing it installs the hook `ir` prints through
from tilefold.language import printer as _printer  # noqa: E402, F401
from tilefold.ops.custom.kernels import register_custom_op, unregister_custom_op

__version__ = "0.1.0"

__all__ = [
    "CustomOpError", "NotSupportedError", "ParseError", "PartialCodegenError", "TilefoldError", "TypeInferenceError",
    "VerificationError", "register_custom_op", "unregister_custom_op", "__version__",
]
