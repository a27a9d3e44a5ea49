"""The structured-op view of a custom op (``tile.custom`` / ``tile.custom_macro``).

A custom op is a user kernel described the way MLIR describes a structured (linalg-like) op: operands in
segments (``ins``, ``outs`` = destinations, ``tmps`` = scratch, ``sync_related_args``), one affine indexing
map per input and per output (from the loop dims ``d0..dn`` to the operand's axes), and one iterator type per
loop dim (``parallel`` or ``reduction``). ``StructuredView`` answers every question about that description
in one place:

- ``segments`` / ``ins`` / ``outs`` / ``operand_map(k)``: the operands and their maps;
- ``loop_ranges()``: the extent of each loop dim, read off the static operand shapes through the maps;
- ``operand_shape(k, ranges)``: the map from loop ranges to the shape operand ``k`` covers;
- ``verify()``: the one verifier of the description (the registry's type inference calls it);
- ``kernel()``: the registered numpy kernel (``kernels.py``), and ``cost_declaration()``: what the op
  declared about its price (today the kernel's registered cost function; a work-based declaration over the
  iteration space belongs here too).

Parsing (``pl.parallel`` / ``pl.reduction`` are ``PARALLEL`` / ``REDUCTION``), the registry's checks, dimension
analysis, TileAndBindSubBlock's custom-op strategy, golden and the simulator all read custom ops through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tilefold.errors import TypeInferenceError
from tilefold.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from tilefold.ir.expr import ConstInt, Expr
from tilefold.ir.types import TensorType, TileType, Type
from tilefold.ops.operand_checks import describe as _describe

PARALLEL = "parallel"
REDUCTION = "reduction"
ITERATOR_TYPES = (PARALLEL, REDUCTION)

CUSTOM_OPS = ("tile.custom", "tile.custom_macro")
CUSTOM_SEGMENTS = ("ins", "outs", "tmps", "sync_related_args")


def split_segments(args: Sequence[Expr], sizes: Sequence[int] | None) -> dict[str, tuple[Expr, ...]]:
    """The operand segments of a custom call from its flat operand list and ``operand_segment_sizes``."""
    out: dict[str, tuple[Expr, ...]] = {}
    pos = 0
    for name, size in zip(CUSTOM_SEGMENTS, sizes or (), strict=False):
        out[name] = tuple(args[pos:pos + size])
        pos += size
    for name in CUSTOM_SEGMENTS:
        out.setdefault(name, ())
    return out


def custom_segments(call) -> dict[str, tuple[Expr, ...]]:
    """The operand segments (ins, outs, tmps, sync_related_args) of a custom / custom_macro call."""
    return split_segments(call.args, call.kwarg("operand_segment_sizes"))


@dataclass(frozen=True)
class StructuredView:
    """A custom op's structured description: operands by segment, indexing maps, iterator types."""

    op_name: str
    segments: Mapping[str, tuple[Expr, ...]]
    indexing_maps: tuple[AffineMap, ...]
    iterator_types: tuple[str, ...]
    attrs: Mapping[str, Any]

    @staticmethod
    def of(call) -> StructuredView:
        """The view of a custom ``Call``."""
        return StructuredView.from_parts(call.op_name, call.args, dict(call.kwargs))

    @staticmethod
    def from_parts(op_name: str, args: Sequence[Expr], attrs: Mapping[str, Any]) -> StructuredView:
        """The view of a call under construction (type inference sees operands and attributes, no Call)."""
        return StructuredView(op_name, split_segments(args, attrs.get("operand_segment_sizes")),
                              tuple(attrs.get("indexing_maps") or ()), tuple(attrs.get("iterator_types") or ()),
                              attrs)

    # -- operands and maps ------------------------------------------------------------------------

    @property
    def ins(self) -> tuple[Expr, ...]:
        return self.segments["ins"]

    @property
    def outs(self) -> tuple[Expr, ...]:
        return self.segments["outs"]

    @property
    def mapped_operands(self) -> tuple[Expr, ...]:
        """The operands that carry an indexing map, in map order: the inputs, then the outputs."""
        return self.ins + self.outs

    @property
    def has_explicit_maps(self) -> bool:
        """Both maps and iterator types given (without them the op is opaque to every analysis)."""
        return bool(self.indexing_maps) and bool(self.iterator_types)

    @property
    def num_loops(self) -> int:
        return len(self.iterator_types)

    def operand_map(self, k: int) -> AffineMap:
        """The map of mapped operand ``k`` (inputs first, then outputs)."""
        return self.indexing_maps[k]

    def result_map(self, j: int) -> AffineMap:
        """Result ``j`` is written through output init ``j``: it shares that output's map."""
        return self.indexing_maps[len(self.ins) + j]

    def is_parallel(self, dim: int) -> bool:
        return self.iterator_types[dim] == PARALLEL

    @property
    def all_parallel_identity(self) -> bool:
        """Every loop parallel and every map the identity: the op is elementwise over its operands."""
        return all(it == PARALLEL for it in self.iterator_types) and all(m.is_identity() for m in self.indexing_maps)

    # -- loops <-> operand shapes ----------------------------------------------------------------

    def loop_ranges(self) -> tuple[int | None, ...]:
        """The extent of each loop dim: the static extent of the first operand axis its map binds to the bare
        dim (None when no operand binds it statically)."""
        ranges: list[int | None] = [None] * self.num_loops
        for operand, m in zip(self.mapped_operands, self.indexing_maps, strict=False):
            t = operand.type
            if not isinstance(t, (TileType, TensorType)):
                continue
            for e, ext in zip(m.results, t.shape, strict=False):
                if isinstance(e, AffineDimExpr) and e.position < self.num_loops and ranges[e.position] is None \
                        and isinstance(ext, ConstInt):
                    ranges[e.position] = ext.value
        return tuple(ranges)

    def operand_shape(self, k: int, ranges: Sequence[int | None]) -> tuple[int | None, ...]:
        """The shape mapped operand ``k`` covers when the loops run over ``ranges``: a bare dim ``dN`` takes
        ``ranges[N]``, the broadcast constant 0 one element; any other expression is unknown (None)."""
        shape: list[int | None] = []
        for e in self.operand_map(k).results:
            if isinstance(e, AffineDimExpr) and e.position < len(ranges):
                shape.append(ranges[e.position])
            elif isinstance(e, AffineConstantExpr) and e.value == 0:
                shape.append(1)
            else:
                shape.append(None)
        return tuple(shape)

    # -- the kernel and its price ----------------------------------------------------------------

    @property
    def symbol(self) -> str | None:
        return self.attrs.get("symbol")

    def kernel(self):
        """The registered numpy kernel of this op (``kernels.CustomKernel``); raises ``CustomOpError`` when none."""
        from tilefold.ops.custom.kernels import get_custom_op

        return get_custom_op(self.symbol)

    def cost_declaration(self):
        """What the op declared about its price: the registered kernel's cost (a function of the input shapes or
        a per-target mapping of such functions), None when it declared nothing."""
        from tilefold.ops.custom.kernels import is_registered

        return self.kernel().cost if self.symbol and is_registered(self.symbol) else None

    # -- the verifier ----------------------------------------------------------------------------

    def verify(self) -> list[Type]:
        """Check the description; returns the result types (one per output init). Raises a
        ``TypeInferenceError`` with a hint on the first problem."""
        op = self.op_name
        sizes = self.attrs.get("operand_segment_sizes")
        n_args = sum(len(v) for v in self.segments.values())
        if not isinstance(sizes, tuple) or sum(sizes) != n_args:
            raise _fail(op, "operand segments do not add up to the operand count",
                        "pass operands through ins=[...], outs=[...], tmps=[...] and let the DSL count them; "
                        "operand_segment_sizes must sum to the number of operands")
        symbol = self.symbol
        if symbol is not None and not isinstance(symbol, str):
            raise _fail(op, f"the symbol (first argument) must be a string naming the kernel, got "
                            f"{_describe(getattr(symbol, 'type', symbol))}",
                        'pass the registered kernel name, e.g. pl.tile.custom("my.kernel", ins=[...], outs=[...])')
        if not bool(self.attrs.get("builtin", False)) and not symbol:
            raise _fail(op, "a non-builtin custom op needs a symbol naming its kernel",
                        "pass the registered kernel name as the first argument")
        if not self.outs:
            raise _fail(op, "a custom op needs at least one output init in outs=[...]",
                        "add outs=[init] with one init tile per result, e.g. outs=[pl.tile.create(...)]")
        self._verify_maps()
        if op == "tile.custom_macro":
            slots = self.attrs.get("sync_event_slots") or ()
            if len(slots) != sizes[3]:
                raise _fail(op, f"{sizes[3]} sync_related_args given for {len(slots)} sync_event_slots",
                            "give one sync-related argument per sync event slot")
        result_types = []
        for o in self.outs:
            if not isinstance(o.type, (TileType, TensorType)):
                raise _fail(op, "each output init must be a tile",
                            f"outs=[...] takes tiles, got {_describe(o.type)}: create the init with "
                            "pl.tile.create / pl.tile.full or load it")
            result_types.append(o.type)
        return result_types

    def _verify_maps(self) -> None:
        op = self.op_name
        iters = self.iterator_types
        for it in iters:
            if it not in ITERATOR_TYPES:
                raise _fail(op, f"iterator type {it!r} is neither parallel nor reduction",
                            "use pl.parallel or pl.reduction")
        maps = self.indexing_maps
        if not maps:
            return
        n_ins, n_outs = len(self.ins), len(self.outs)
        if len(maps) != n_ins + n_outs:
            raise _fail(op, f"{len(maps)} indexing maps given for {n_ins} ins + {n_outs} outs",
                        "give one map per input and per output (temp buffers take no map)")
        for i, (m, operand) in enumerate(zip(maps, self.mapped_operands, strict=True)):
            if not isinstance(m, AffineMap):
                raise _fail(op, f"indexing map #{i} is not an affine map",
                            'write maps as pl.affine_map("(d0, d1) -> (d0, d1)")')
            if m.num_dims != len(iters):
                raise _fail(op, f"indexing map #{i} '{m}' has {m.num_dims} dims but there are "
                                f"{len(iters)} iterator types",
                            "give one iterator type per map dim (d0, d1, ...)")
            t = operand.type
            if isinstance(t, (TileType, TensorType)) and m.num_results != t.rank:
                raise _fail(op, f"indexing map #{i} '{m}' has {m.num_results} results but its operand "
                                f"has rank {t.rank}", "a map needs one result per axis of its operand")


def _fail(op: str, msg: str, hint: str | None = None) -> TypeInferenceError:
    return TypeInferenceError(f"{op}: {msg}", hint=hint)


