"""The op registry (see ``tilefold.ops.registry``) and the tile op declarations."""

# the op declarations register themselves when imported: the core tile ops, the tensor-level forms, the
# PyPTO catalog beyond the core set. Importing any ``tilefold.ops`` module runs this first.
from tilefold.ops import tile_ops  # noqa: F401  # isort: skip
from tilefold.ops import tensor_ops  # noqa: F401  # isort: skip
from tilefold.ops import catalog_ops  # noqa: F401  # isort: skip
from tilefold.ops import index_ops  # noqa: F401  # isort: skip
from tilefold.ops import mask_ops  # noqa: F401  # isort: skip
from tilefold.ops import reciprocal  # noqa: F401  # isort: skip
from tilefold.ops import mx_ops  # noqa: F401  # isort: skip
from tilefold.ops import cross_core_ops  # noqa: F401  # isort: skip
from tilefold.ops import pipe_setup  # noqa: F401  # isort: skip
from tilefold.ops import system_ops  # noqa: F401  # isort: skip
from tilefold.ops import pipe_sync_ops  # noqa: F401  # isort: skip
from tilefold.ops import scan_ops  # noqa: F401  # isort: skip
from tilefold.ops.custom.structured import StructuredView, custom_segments
from tilefold.ops.registry import (
    MemoryRule,
    MemoryRuleKind,
    OpDef,
    OpKind,
    Param,
    ParamKind,
    Unit,
    all_ops,
    find_op,
    get_op,
    make_call,
    op_of,
    register_op,
    result_memory,
)
from tilefold.ops.tensor_ops import tensor_level_ops
from tilefold.ops.tile_ops import result_destination_indices, result_destinations

__all__ = [
    "MemoryRule", "MemoryRuleKind", "OpDef", "StructuredView", "OpKind", "Param", "ParamKind", "Unit", "all_ops",
    "custom_segments", "find_op", "get_op", "make_call", "op_of", "register_op", "result_destination_indices",
    "result_destinations", "result_memory", "tensor_level_ops",
]
