"""tilefold passes. Public API mirrors PyPTO: ``passes.canonicalize_tile_slice()(program)``.

Each pass lives in a module (or package) of its own: ``memory_planning/`` (InitMemRef, MemoryReuse,
AllocateMemoryAddr), ``tensor_lowering/`` (OutlineIncoreScopes, ConvertTensorToTileOps),
``tile_and_bind_sub_block/``; ``pipeline.py`` decides which passes run (``pipeline_for``,
``default_tile_pipeline``); ``option_records.py`` holds the typed option records (``PipelineOptions``) and
``options.py`` their one parser (``parse_options``). The factories are re-exported here; importing a factory's
module binds it over the submodule of the same name, so ``passes.flatten_tile_nd_to_2d`` is the factory.
"""

from __future__ import annotations

from tilefold.passes.auto_tile_matmul_l0 import auto_tile_matmul_l0
from tilefold.passes.base import IRProperty, Pass, PassContext, function_pass, program_pass
from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice
from tilefold.passes.flatten_tile_nd_to_2d import flatten_tile_nd_to_2d
from tilefold.passes.infer_tile_memory_space import infer_tile_memory_space
from tilefold.passes.memory_planning import allocate_memory_addr, init_mem_ref, memory_reuse
from tilefold.passes.option_records import PipelineOptions
from tilefold.passes.options import parse_options
from tilefold.passes.pass_manager import DumpInstrument, PassManager, VerificationInstrument
from tilefold.passes.pipeline import default_tile_pipeline, get_pass, list_passes, pipeline_for
from tilefold.passes.tensor_lowering import convert_tensor_to_tile_ops, outline_incore_scopes
from tilefold.passes.tile_and_bind_sub_block import limit_unique_sub_block_id_to_store_copy, tile_and_bind_sub_block
from tilefold.passes.verifier import verify_properties

__all__ = [
    "DumpInstrument", "IRProperty", "Pass", "PassContext", "PassManager", "PipelineOptions", "VerificationInstrument",
    "allocate_memory_addr", "auto_tile_matmul_l0", "canonicalize_tile_slice", "convert_tensor_to_tile_ops",
    "default_tile_pipeline", "flatten_tile_nd_to_2d", "function_pass", "get_pass", "infer_tile_memory_space",
    "init_mem_ref", "limit_unique_sub_block_id_to_store_copy", "list_passes", "memory_reuse",
    "outline_incore_scopes", "parse_options", "pipeline_for", "program_pass", "tile_and_bind_sub_block",
    "verify_properties",
]
