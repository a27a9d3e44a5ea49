"""The tensor-level lowering of ``@pl.jit`` programs to the tile IR the tile pipeline takes.

OutlineIncoreScopes (``outline_incore_scopes``: each ``pl.at`` scope becomes an InCore function and a call)
-> ConvertTensorToTileOps (``convert_tensor_to_tile_ops``: tensor operators become tile loads, tile ops and
stores). ``tensor_level_passes`` is the pair, ``is_tensor_level`` tells whether a program needs them.
"""

from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import (
    convert_tensor_to_tile_ops,
    is_tensor_level,
    tensor_level_passes,
)
from tilefold.passes.tensor_lowering.outline_incore_scopes import outline_incore_scopes

__all__ = ["convert_tensor_to_tile_ops", "is_tensor_level", "outline_incore_scopes", "tensor_level_passes"]
