"""``tilefold.custom``: the user-facing name of the custom-op kernel registry.

The registry lives with the rest of the custom-op concept in ``tilefold.ops.custom`` (``kernels``: numpy
kernels and their cost functions; ``structured``: the structured-op view of a custom call); this module
re-exports what a kernel author calls.
"""

from tilefold.ops.custom.kernels import (
    CustomKernel,
    call_cost,
    call_kernel,
    describe_kernel,
    get_custom_op,
    is_registered,
    register_custom_op,
    registered_symbols,
    source_location,
    unregister_custom_op,
)

__all__ = ["CustomKernel", "call_cost", "call_kernel", "describe_kernel", "get_custom_op", "is_registered",
           "register_custom_op", "registered_symbols", "source_location", "unregister_custom_op"]
