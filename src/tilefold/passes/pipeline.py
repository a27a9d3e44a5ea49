"""The default tile-stage pipeline and the pass catalogue used by ``tilefold opt --passes``.

Order (DESIGN.md section 3; CanonicalizeTileSlice's slot is fixed by its seed):

    FlattenTileNdTo2D -> AutoTileMatmulL0 -> CanonicalizeTileSlice -> InferTileMemorySpace
    -> TileAndBindSubBlock -> CanonicalizeTileSlice (again) -> InitMemRef -> MemoryReuse
    -> AllocateMemoryAddr

CanonicalizeTileSlice runs a second time after TileAndBindSubBlock because the sub-block split can
leave new Vec ``tile.slice`` windows (half-windows of tiles whose producer is not a load); the slice
safety rules must hold for them too before memory planning makes them real addresses. The second run
is a no-op when the split added no slices.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tilefold.passes.base import Pass

# cli name -> (module, factory). Factories take keyword options they understand.
_CATALOGUE: dict[str, tuple[str, str]] = {
    "flatten-tile-nd-to-2d": ("tilefold.passes.flatten_tile_nd_to_2d", "flatten_tile_nd_to_2d"),
    "auto-tile-matmul-l0": ("tilefold.passes.auto_tile_matmul_l0", "auto_tile_matmul_l0"),
    "canonicalize-tile-slice": ("tilefold.passes.canonicalize_tile_slice", "canonicalize_tile_slice"),
    "infer-tile-memory-space": ("tilefold.passes.infer_tile_memory_space", "infer_tile_memory_space"),
    "tile-and-bind-sub-block": ("tilefold.passes.tile_and_bind_sub_block", "tile_and_bind_sub_block"),
    "limit-unique-sub-block-id-to-store-copy": (
        "tilefold.passes.tile_and_bind_sub_block", "limit_unique_sub_block_id_to_store_copy"),
    "init-mem-ref": ("tilefold.passes.memory_planning.init_mem_ref", "init_mem_ref"),
    "memory-reuse": ("tilefold.passes.memory_planning.memory_reuse", "memory_reuse"),
    "allocate-memory-addr": ("tilefold.passes.memory_planning.allocate_memory_addr", "allocate_memory_addr"),
}

DEFAULT_ORDER = (
    "flatten-tile-nd-to-2d",
    "auto-tile-matmul-l0",
    "canonicalize-tile-slice",
    "infer-tile-memory-space",
    "tile-and-bind-sub-block",
    "canonicalize-tile-slice",
    "init-mem-ref",
    "memory-reuse",
    "allocate-memory-addr",
)


def list_passes() -> list[str]:
    return sorted(_CATALOGUE)


def _factory(cli_name: str) -> Callable[..., Pass]:
    try:
        module, attr = _CATALOGUE[cli_name]
    except KeyError:
        raise KeyError(f"unknown pass {cli_name!r}; known passes: {', '.join(list_passes())}") from None
    return getattr(importlib.import_module(module), attr)


def get_pass(cli_name: str, **options: Any) -> Pass:
    """Instantiate a pass by its CLI name, handing it the options its factory accepts."""
    factory = _factory(cli_name)
    import inspect

    params = inspect.signature(factory).parameters
    accepted = {k: v for k, v in options.items() if k in params}
    return factory(**accepted)


#: Pipeline options that are not a parameter of any pass factory but are part of the documented interface.
PIPELINE_OPTIONS: dict[str, str] = {
    "target": "the target chip (name or Target); passes that depend on the chip read it",
    "enable_auto_bind_sub_block": "split InCore vector work across the two AIV sub-blocks (default True)",
    "custom_op_policy": "'split' (default) or 'limit-module': no AIV function of a module with a custom op is split",
}


def known_options(cli_names: tuple[str, ...] = DEFAULT_ORDER) -> list[str]:
    """Option names the pipeline understands: every keyword parameter of its pass factories plus the
    documented pipeline options."""
    import inspect

    names = set(PIPELINE_OPTIONS)
    for cli_name in cli_names:
        params = inspect.signature(_factory(cli_name)).parameters.values()
        names.update(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))
    return sorted(names)


def _validate(skip_passes: tuple[str, ...], options: dict[str, Any], pipeline: list[tuple[str, Pass]]) -> None:
    from tilefold.errors import TilefoldError

    pass_names = {p.name for _, p in pipeline} | {cli for cli, _ in pipeline}
    unknown = [n for n in skip_passes if n not in pass_names]
    if unknown:
        names = sorted({p.name for _, p in pipeline})
        raise TilefoldError(
            f"unknown pass name{'s' if len(unknown) > 1 else ''} in skip_passes: {', '.join(map(repr, unknown))}",
            hint=f"the default pipeline's passes are {', '.join(names)} (CLI names "
                 f"{', '.join(dict.fromkeys(DEFAULT_ORDER))} are accepted too); names are case-sensitive")
    known = known_options()
    bad = sorted(k for k in options if k not in known)
    if bad:
        raise TilefoldError(f"unknown pipeline option{'s' if len(bad) > 1 else ''}: {', '.join(map(repr, bad))}",
                            hint=f"known options: {', '.join(known)}")


def default_tile_pipeline(target: Any = None, *, skip_passes: tuple[str, ...] = (), **options: Any) -> list[Pass]:
    """The default tile pipeline as a list of passes. ``skip_passes`` holds pass names (e.g.
    ``"CanonicalizeTileSlice"``) or CLI names to leave out; ``options`` are pipeline options such as
    ``enable_auto_bind_sub_block``. An unknown pass name or option raises ``TilefoldError`` listing the
    known ones (a misspelt name must not silently run the pass it meant to skip)."""
    if isinstance(skip_passes, str):
        skip_passes = (skip_passes,)
    if target is not None:
        options["target"] = target
    pipeline = [(cli_name, get_pass(cli_name, **options)) for cli_name in DEFAULT_ORDER]
    _validate(tuple(skip_passes), options, pipeline)
    return [p for cli_name, p in pipeline if p.name not in skip_passes and cli_name not in skip_passes]
