"""Custom ops in one place: the structured-op view (``structured``: segments, indexing maps, iterator types,
loop ranges, loops -> operand shapes, the verifier, the cost declaration), the kernel registry
(``kernels``: numpy kernels and cost functions, calling user code) and the example kernels (``library``)."""

from tilefold.ops.custom.kernels import (
    CustomKernel,
    call_cost,
    call_kernel,
    describe_kernel,
    get_custom_op,
    is_registered,
    register_custom_op,
    registered_symbols,
    unregister_custom_op,
)
from tilefold.ops.custom.structured import (
    CUSTOM_OPS,
    CUSTOM_SEGMENTS,
    ITERATOR_TYPES,
    PARALLEL,
    REDUCTION,
    StructuredView,
    custom_segments,
    split_segments,
)

__all__ = [
    "CUSTOM_OPS", "CUSTOM_SEGMENTS", "ITERATOR_TYPES", "PARALLEL", "REDUCTION", "CustomKernel", "StructuredView",
    "call_cost", "call_kernel", "custom_segments", "describe_kernel", "get_custom_op", "is_registered",
    "register_custom_op", "registered_symbols", "split_segments", "unregister_custom_op",
]
