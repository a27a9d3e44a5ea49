"""``tilefold.custom.library``: the example kernels (``tilefold.ops.custom.library``) under their user-facing name."""

from tilefold.ops.custom.library import (
    EXAMPLE_KERNELS,
    register_example_kernels,
    softmax,
    unregister_example_kernels,
)

__all__ = ["EXAMPLE_KERNELS", "register_example_kernels", "softmax", "unregister_example_kernels"]
