"""The default tile-stage pipeline and the pass catalogue used by ``tilefold opt --passes``.

Order (DESIGN.md section 3; CanonicalizeTileSlice's slot is fixed by its seed):

    VerifySplitAivRegions -> FlattenTileNdTo2D -> AutoTileMatmulL0 -> CanonicalizeTileSlice -> InferTileMemorySpace
    -> TileAndBindSubBlock -> CanonicalizeTileSlice (again) -> InitMemRef -> MemoryReuse
    -> AllocateMemoryAddr

CanonicalizeTileSlice runs a second time after TileAndBindSubBlock because the sub-block split can
leave new Vec ``tile.slice`` windows (half-windows of tiles whose producer is not a load); the slice
safety rules must hold for them too before memory planning makes them real addresses. The second run
is a no-op when the split added no slices. VerifySplitAivRegions (a check, no rewrite) runs first: the placement
rules of pl.split_aiv regions are about the ops the user wrote, before memory inference adds moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.stmt import Program
from tilefold.passes.auto_tile_matmul_l0 import auto_tile_matmul_l0
from tilefold.passes.base import Pass
from tilefold.passes.canonicalize_tile_slice import canonicalize_tile_slice
from tilefold.passes.flatten_tile_nd_to_2d import flatten_tile_nd_to_2d
from tilefold.passes.infer_tile_memory_space import infer_tile_memory_space
from tilefold.passes.inline_orchestration_calls import inline_orchestration_calls, needs_inlining
from tilefold.passes.memory_planning.allocate_memory_addr import allocate_memory_addr
from tilefold.passes.memory_planning.init_mem_ref import init_mem_ref
from tilefold.passes.memory_planning.memory_reuse import memory_reuse
from tilefold.passes.option_records import (
    AllocateMemoryAddrOptions,
    AutoTileMatmulL0Options,
    InferTileMemorySpaceOptions,
    InitMemRefOptions,
    PipelineOptions,
    TileAndBindSubBlockOptions,
)
from tilefold.passes.options import OptionInfo, as_keywords, option_infos, option_names, parse_options, project
from tilefold.passes.split_aiv_regions import verify_split_aiv_regions
from tilefold.passes.tensor_lowering.convert_tensor_to_tile_ops import is_tensor_level, tensor_level_passes
from tilefold.passes.tile_and_bind_sub_block import limit_unique_sub_block_id_to_store_copy, tile_and_bind_sub_block


@dataclass(frozen=True)
class CatalogueEntry:
    """A pass the CLI can name: its factory and the option record whose fields are the factory's keywords
    (None: the pass takes no options)."""

    factory: Callable[..., Pass]
    options: type | None = None


_CATALOGUE: dict[str, CatalogueEntry] = {
    "verify-split-aiv-regions": CatalogueEntry(verify_split_aiv_regions),
    "flatten-tile-nd-to-2d": CatalogueEntry(flatten_tile_nd_to_2d),
    "auto-tile-matmul-l0": CatalogueEntry(auto_tile_matmul_l0, AutoTileMatmulL0Options),
    "canonicalize-tile-slice": CatalogueEntry(canonicalize_tile_slice),
    "infer-tile-memory-space": CatalogueEntry(infer_tile_memory_space, InferTileMemorySpaceOptions),
    "tile-and-bind-sub-block": CatalogueEntry(tile_and_bind_sub_block, TileAndBindSubBlockOptions),
    "limit-unique-sub-block-id-to-store-copy": CatalogueEntry(limit_unique_sub_block_id_to_store_copy),
    "init-mem-ref": CatalogueEntry(init_mem_ref, InitMemRefOptions),
    "memory-reuse": CatalogueEntry(memory_reuse),
    "allocate-memory-addr": CatalogueEntry(allocate_memory_addr, AllocateMemoryAddrOptions),
}

DEFAULT_ORDER = (
    "verify-split-aiv-regions",
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


def _entry(cli_name: str) -> CatalogueEntry:
    try:
        return _CATALOGUE[cli_name]
    except KeyError:
        raise KeyError(f"unknown pass {cli_name!r}; known passes: {', '.join(list_passes())}") from None


def pass_options(cli_name: str) -> list[OptionInfo]:
    """The options of the pass called ``cli_name`` (its record's fields; empty when it takes none)."""
    record = _entry(cli_name).options
    return option_infos(record) if record is not None else []


def get_pass(cli_name: str, options: Any = None, /, **keywords: Any) -> Pass:
    """Instantiate a pass by its CLI name. ``options`` (a ``PipelineOptions``, a keyword dict or ``name=value``
    text) and ``keywords`` are pipeline options, checked; the pass receives the fields its record declares."""
    entry = _entry(cli_name)
    record = parse_options(PipelineOptions, options, **keywords)
    if entry.options is None:
        return entry.factory()
    return entry.factory(**as_keywords(project(record, entry.options)))


#: name -> one-line doc of every pipeline option (the fields of ``PipelineOptions``)
PIPELINE_OPTIONS: dict[str, str] = {info.name: info.doc for info in option_infos(PipelineOptions)}


def known_options(cli_names: tuple[str, ...] | None = None) -> list[str]:
    """Option names the pipeline understands (the fields of ``PipelineOptions``), or those the passes
    ``cli_names`` declare."""
    if cli_names is None:
        return sorted(option_names(PipelineOptions))
    return sorted({info.name for cli_name in cli_names for info in pass_options(cli_name)})


def _validate_skips(skip_passes: tuple[str, ...], pipeline: list[tuple[str, Pass]]) -> None:
    pass_names = {p.name for _, p in pipeline} | {cli for cli, _ in pipeline}
    unknown = [n for n in skip_passes if n not in pass_names]
    if unknown:
        names = sorted({p.name for _, p in pipeline})
        raise TilefoldError(
            f"unknown pass name{'s' if len(unknown) > 1 else ''} in skip_passes: {', '.join(map(repr, unknown))}",
            hint=f"the default pipeline's passes are {', '.join(names)} (CLI names "
                 f"{', '.join(dict.fromkeys(DEFAULT_ORDER))} are accepted too); names are case-sensitive")


def pipeline_options(target: Any = None, options: Any = None, **keywords: Any) -> PipelineOptions:
    """The checked pipeline record of ``options`` (a record, a keyword dict or ``name=value`` text) and
    ``keywords``; ``target``, when given, overrides the record's."""
    record = parse_options(PipelineOptions, options, **keywords)
    if target is not None:
        given = parse_options(PipelineOptions, target=target).target
        if record.target is not None and given is not None and record.target.name != given.name:
            # the passes would plan for one chip while codegen and the simulator model another
            raise TilefoldError(f"the pipeline option target={record.target.name} contradicts the target "
                                f"{given.name}", hint="give the target once (the target argument or the option)")
        record = replace(record, target=given)
    return record


def default_tile_pipeline(target: Any = None, *, skip_passes: tuple[str, ...] = (), options: Any = None,
                          **keywords: Any) -> list[Pass]:
    """The default tile pipeline as a list of passes. ``skip_passes`` holds pass names (e.g.
    ``"CanonicalizeTileSlice"``) or CLI names to leave out; ``options`` / ``keywords`` are pipeline options
    (``PipelineOptions`` fields such as ``enable_auto_bind_sub_block``). An unknown pass name, option name or a
    bad option value raises ``TilefoldError`` listing the known ones (a misspelt name must not silently run the
    pass it meant to skip)."""
    if isinstance(skip_passes, str):
        skip_passes = (skip_passes,)
    record = pipeline_options(target, options, **keywords)
    pipeline = [(cli_name, get_pass(cli_name, record)) for cli_name in DEFAULT_ORDER]
    _validate_skips(tuple(skip_passes), pipeline)
    return [p for cli_name, p in pipeline if p.name not in skip_passes and cli_name not in skip_passes]


def pipeline_for(program: Program, target: Any = None, options: Any = None, *,
                 skip_passes: tuple[str, ...] = ()) -> list[Pass]:
    """The passes that take ``program`` to a memory-planned tile program for ``target``: the tensor-level
    lowering first (OutlineIncoreScopes, ConvertTensorToTileOps) when it is a ``@pl.jit`` (tensor-level)
    program, then the default tile pipeline. ``options``: a ``PipelineOptions``, a keyword dict or text."""
    record = pipeline_options(target, options)
    passes = default_tile_pipeline(skip_passes=tuple(skip_passes), options=record)
    if is_tensor_level(program):  # a @pl.jit program: scopes and tensor-level ops are lowered first
        passes = [*tensor_level_passes(record.target), *passes]
    elif needs_inlining(program):  # orchestration helpers, hierarchy functions, Graph fragments of a tile program
        passes = [inline_orchestration_calls(), *passes]
    return passes


__all__ = ["DEFAULT_ORDER", "PIPELINE_OPTIONS", "CatalogueEntry", "PipelineOptions", "default_tile_pipeline",
           "get_pass", "known_options", "list_passes", "pass_options", "pipeline_for", "pipeline_options"]
