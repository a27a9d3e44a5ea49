"""tilefold passes. Public API mirrors PyPTO: ``passes.canonicalize_tile_slice()(program)``.

Each pass lives in a module of its own; factories are imported on first use so that importing
``tilefold.passes`` stays cheap and free of cycles.
"""

from __future__ import annotations

import importlib
import sys
import types

from tilefold.passes.base import IRProperty, Pass, function_pass, program_pass

# factory / helper name -> module that defines it
_LAZY = {
    "PassContext": "tilefold.passes.pass_manager",
    "PassManager": "tilefold.passes.pass_manager",
    "VerificationInstrument": "tilefold.passes.pass_manager",
    "RoundTripInstrument": "tilefold.passes.pass_manager",
    "DumpInstrument": "tilefold.passes.pass_manager",
    "verify_properties": "tilefold.passes.verifier",
    "canonicalize_tile_slice": "tilefold.passes.canonicalize_tile_slice",
    "init_mem_ref": "tilefold.passes.memory_planning.init_mem_ref",
    "memory_reuse": "tilefold.passes.memory_planning.memory_reuse",
    "allocate_memory_addr": "tilefold.passes.memory_planning.allocate_memory_addr",
    "tile_and_bind_sub_block": "tilefold.passes.tile_and_bind_sub_block",
    "limit_unique_sub_block_id_to_store_copy": "tilefold.passes.tile_and_bind_sub_block",
    "flatten_tile_nd_to_2d": "tilefold.passes.flatten_tile_nd_to_2d",
    "auto_tile_matmul_l0": "tilefold.passes.auto_tile_matmul_l0",
    "infer_tile_memory_space": "tilefold.passes.infer_tile_memory_space",
    "outline_incore_scopes": "tilefold.passes.tensor_lowering.outline_incore_scopes",  # tensor level (@pl.jit programs)
    "convert_tensor_to_tile_ops": "tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops",
    "default_tile_pipeline": "tilefold.passes.pipeline",
    "get_pass": "tilefold.passes.pipeline",
    "list_passes": "tilefold.passes.pipeline",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tilefold.passes' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


class _PassesModule(types.ModuleType):
    """Importing ``tilefold.passes.<name>`` binds the submodule as a package attribute, which would shadow
    the factory of the same name (``passes.flatten_tile_nd_to_2d`` must stay the factory): resolve such
    names to the factory."""

    def __getattribute__(self, name: str):
        value = super().__getattribute__(name)
        if isinstance(value, types.ModuleType) and name in _LAZY and _LAZY[name].endswith("." + name):
            return getattr(value, name)
        return value


sys.modules[__name__].__class__ = _PassesModule


__all__ = ["IRProperty", "Pass", "function_pass", "program_pass", *_LAZY]
