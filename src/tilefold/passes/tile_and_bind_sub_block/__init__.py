"""TileAndBindSubBlock: split vector (AIV) work 1:2 across the two vector sub-blocks.

Contract
--------
Applies to AIV functions and to InCore functions whose work is all vector (no cube op, no tile outside
Vec). For each such function it either

* **splits** it: one parallel axis class (chosen with ``tilefold.analysis.dimensions``) is halved in
  every store and, transitively, in every producer of the stored tiles. Sub-block ``sb =
  get_subblock_idx()`` computes the window at offset ``sb * half`` on that axis. Stores and custom ops
  that were split carry the ``tiled_op=True`` attribute; the function becomes ``AIV`` (it runs on both
  sub-blocks) and gets the attribute ``sub_block_axis``. A custom op no consumer wants halved but whose
  result split work reads whole runs whole on both sub-blocks (``sub_block_replicated=True``) when it is
  safe to duplicate (else the function rolls back); one nothing unguarded reads is fenced to sub-block 0;
  or
* **rolls back**: the untouched original function is kept, and LimitUniqueSubBlockIdToStoreCopy puts
  every store and every custom op not marked ``tiled_op`` under ``if get_subblock_idx() == 0`` (an
  ``IfStmt`` tagged ``limit_sub_block_id0``; an op with results yields its output inits on the other
  branch). The function gets ``tile_and_bind_subblock_reverted=<reason>`` and the program
  ``tile_and_bind_subblock_reverted=True``.

Either way the results are unchanged. Every decision is reported as a remark (pass name
``TileAndBindSubBlock``): the chosen axis and why, each op split, each refusal with the failed check
and the operand, each rollback with its reason.

With ``enable_auto_bind_sub_block=False`` nothing is split, but the device still runs every AIV function on
both sub-blocks, so LimitUniqueSubBlockIdToStoreCopy still guards every store and custom op of each
candidate function that does not read ``get_subblock_idx`` (upstream's ``enable-tile=false``).

Required: SSAForm, TypeChecked, NormalizedStmtStructure, TileMemoryInferred. Produces the same
properties (new IR is built with the registry's type inference and keeps SSA form).

Algorithm (all analysis happens before any IR is created, so a refusal never leaves a half rewrite):

0. tile-valued nested calls are hoisted into fresh variables (a rollback keeps the original function);
   a function without any store is rolled back when it has custom ops (they are fenced to sub-block 0);
1. dimension analysis; a "broadcast on two different axes" conflict involving the selected axis turns strict
   mode off for this function only (other conflicts are recorded, strict mode kept); an unranked custom
   operand gives up on the function;
2. axis choice per store: parallel, static, even, a column split's half row a multiple of 32 bytes;
   one axis class must cover every store; the outer axis is preferred, and each candidate is tried in turn
   when the demand pass refuses the previous one (e.g. a loaded / intermediate tile halved on its columns
   with a half row under 32 B);
3. demand propagation (the bubbling of the marked half-windows), in reverse program order, one
   strategy per ``OpKind``; custom ops follow the seed's checks in order (see ``check_custom_op``); loop
   demands are iterated to a fixpoint before anything is decided;
   stores outside the chosen axis class stay whole and guarded (partial split); while loops carry halves like
   for loops; transposes swap the axis; reshapes map it when it survives as a contiguous block; a
   ``set_validshape`` store is clipped per half;
3b. GM data flow across the halves (``gm_hazards``): an axis on which a sub-block may read or write GM bytes
   the other one writes is refused;
4. rewrite: loads get narrowed GM windows, elementwise / broadcast / reduction / custom ops are
   re-emitted on half tiles, loops and ifs carry halves, stores write ``[off + sb * half]``. A flattened
   2-D tile of an N-D tensor (FlattenTileNdTo2D's ``tile.load(..., flatten=True)`` /
   ``tile.store(..., shapes=...)``) is split on the N-D window axis its halving maps to
   (``analysis.dimensions.flattened_split_axis``), or the axis is refused (``flattened_window``).

A function attribute ``sub_block_split`` (``pl.at(optimizations=[pl.split(mode)])`` of a jit scope) asks for an
axis: ``UP_DOWN`` -> 0, ``LEFT_RIGHT`` -> 1 are tried first and fall back with a ``split-request-fallback`` remark
when refused; ``NONE`` splits nothing (stores / custom ops limited to sub-block 0). Every check still applies.

The pass never raises for a valid program: an unexpected failure (a bug of this pass) rolls the function
back with the reason ``internal: ...`` and an ``internal-error`` remark.
"""

from __future__ import annotations

from tilefold.ir.stmt import FunctionType, Program
from tilefold.passes.base import IRProperty, Pass
from tilefold.passes.option_records import CustomOpPolicy, TileAndBindSubBlockOptions
from tilefold.passes.options import parse_options
from tilefold.passes.tile_and_bind_sub_block.axis import axis_plans, choose_axis
from tilefold.passes.tile_and_bind_sub_block.common import (
    AXIS_ATTR,
    LIMIT_PASS_NAME,
    LIMIT_TAG,
    PASS_NAME,
    REPLICATED,
    REVERTED,
    TILED_OP,
    Refusal,
    _remark,
    _scan,
    is_candidate,
)
from tilefold.passes.tile_and_bind_sub_block.custom import (
    CustomPlan,
    check_aligned_output_inits,
    check_custom_op,
    check_replicable,
    check_safe_to_duplicate,
    check_sliceable_inputs,
    check_slices_only_parallel_dimensions,
    check_supported_explicit_maps,
    project_to_inputs,
    recover_iteration_window,
    recover_result_windows,
)
from tilefold.passes.tile_and_bind_sub_block.driver import hoist_nested_calls, split_function
from tilefold.passes.tile_and_bind_sub_block.rollback import _revert, limit_function_to_sub_block0


def _context_enabled() -> bool:
    """The ``enable_auto_bind_sub_block`` option of the active PassContext (default on)."""
    from tilefold.passes.base import PassContext

    return PassContext.current().options.enable_auto_bind_sub_block


def _limit_only(program: Program) -> Program:
    """The pass with splitting disabled: every candidate function not yet bound to sub-blocks keeps its work
    whole, and its stores and custom ops run on sub-block 0 only (both sub-blocks execute the function)."""
    fns = []
    changed = False
    for fn in program.functions:
        new = fn
        if is_candidate(fn) and not _scan(fn).found and fn.attr(REVERTED) is None and fn.attr(AXIS_ATTR) is None:
            new = limit_function_to_sub_block0(fn)
            if new is not fn:
                _remark(PASS_NAME, fn.name, "disabled", "enable_auto_bind_sub_block is off: nothing split; stores "
                        "and custom ops limited to sub-block 0")
        changed = changed or new is not fn
        fns.append(new)
    return program.with_fields(functions=tuple(fns)) if changed else program


CUSTOM_OP_POLICIES: tuple[str, ...] = CustomOpPolicy.__args__  # type: ignore[attr-defined]
#: function attribute carrying a pl.split request (set by OutlineIncoreScopes) and the tile axis it asks for
SPLIT_REQUEST = "sub_block_split"
REQUESTED_AXIS = {"UP_DOWN": 0, "LEFT_RIGHT": 1, "NONE": None}


def _context_policy() -> str:
    """The ``custom_op_policy`` option of the active PassContext (default ``"split"``)."""
    from tilefold.passes.base import PassContext

    return PassContext.current().options.custom_op_policy or "split"


def _has_custom_op(program: Program) -> bool:
    return any(_scan(fn).customs for fn in program.functions)


def _limit_module(program: Program) -> Program:
    """``custom_op_policy="limit-module"`` on a module with a custom op: every candidate function not yet bound
    to sub-blocks is rolled back (its stores and custom ops guarded to sub-block 0), as upstream master does."""
    fns = []
    changed = False
    for fn in program.functions:
        new = fn
        if is_candidate(fn) and not _scan(fn).found and fn.attr(REVERTED) is None and fn.attr(AXIS_ATTR) is None:
            new = _revert(fn, "custom_op_policy=limit-module: the module contains a custom op, so no AIV "
                          "function of it is split")
            changed = True
        fns.append(new)
    return program.with_fields(functions=tuple(fns)).with_attr(REVERTED, True) if changed else program


def _transform(program: Program, policy: str | None = None) -> Program:
    if not _context_enabled():
        return _limit_only(program)
    if (policy or _context_policy()) == "limit-module" and _has_custom_op(program):
        return _limit_module(program)
    fns = []
    reverted = False
    changed = False
    for fn in program.functions:
        request = fn.attr(SPLIT_REQUEST)  # pl.at(optimizations=[pl.split(mode)]) of a @pl.jit scope
        if not is_candidate(fn):
            if request is not None and fn.func_type is FunctionType.InCore:
                _remark(PASS_NAME, fn.name, "split-request-ignored",
                        f"pl.split({request}) has no effect: the function also does cube work (or holds tiles "
                        "outside Vec), and only vector-only functions are split", request=request)
            fns.append(fn)
            continue
        scan = _scan(fn)
        if scan.found or fn.attr(REVERTED) is not None or fn.attr(AXIS_ATTR) is not None:
            fns.append(fn)  # already bound to sub-blocks
            continue
        if scan.element_writes:  # the split analysis does not model element writes: run it once, on sub-block 0
            fns.append(_revert(fn, "the function has element writes (pl.write): its stores, element writes and "
                               "custom ops are fenced to sub-block 0"))
            reverted = changed = True
            continue
        if request == "NONE" and (scan.stores or scan.customs):
            # pl.SplitMode.NONE: keep the work whole; both sub-blocks still run the function, so its stores and
            # custom ops run on sub-block 0 only (as with enable_auto_bind_sub_block=False)
            new = limit_function_to_sub_block0(fn)
            _remark(PASS_NAME, fn.name, "split-request-none", "pl.split(pl.SplitMode.NONE): nothing split; stores "
                    "and custom ops limited to sub-block 0", request=request)
            changed = changed or new is not fn
            fns.append(new)
            continue
        if scan.stores == 0:
            if scan.customs == 0:
                _remark(PASS_NAME, fn.name, "skipped", "no store and no custom op: nothing to split or fence")
                fns.append(fn)
                continue
            # the seed: no store could be split -> roll back; the custom ops (e.g. one writing GM through a
            # tensor output init) are fenced to sub-block 0 so they do not run twice
            new = _revert(fn, "no store could be split: the function has no store; its custom ops are fenced "
                          "to sub-block 0")
            reverted = True
            changed = True
            fns.append(new)
            continue
        new, rev = split_function(fn, REQUESTED_AXIS.get(request))
        reverted = reverted or rev
        changed = changed or new is not fn
        fns.append(new)
    if not changed:
        return program
    out = program.with_fields(functions=tuple(fns))
    if reverted:
        out = out.with_attr(REVERTED, True)
    return out


_PROPS = dict(
    required=(IRProperty.SSAForm, IRProperty.TypeChecked, IRProperty.NormalizedStmtStructure),
    produced=(IRProperty.SSAForm, IRProperty.TypeChecked, IRProperty.NormalizedStmtStructure),
)


def tile_and_bind_sub_block(enable_auto_bind_sub_block: bool = True, custom_op_policy: str | None = None) -> Pass:
    """Factory of the TileAndBindSubBlock pass; the keywords are the fields of ``TileAndBindSubBlockOptions``
    (checked: a bad value is a ``TilefoldError``). With ``enable_auto_bind_sub_block=False`` nothing is split and
    the stores / custom ops of every candidate function are limited to sub-block 0. ``custom_op_policy``:
    ``"split"`` (custom ops that pass the seed's checks are split) or ``"limit-module"`` (upstream master: a
    module containing any custom op has none of its AIV functions split); ``None`` reads the PassContext option
    of the same name (default ``"split"``)."""
    opts = parse_options(TileAndBindSubBlockOptions, enable_auto_bind_sub_block=enable_auto_bind_sub_block,
                         custom_op_policy=custom_op_policy)
    if not opts.enable_auto_bind_sub_block:
        return Pass(PASS_NAME, _limit_only, cli_name="tile-and-bind-sub-block", **_PROPS)
    return Pass(PASS_NAME, lambda program: _transform(program, opts.custom_op_policy),
                cli_name="tile-and-bind-sub-block", **_PROPS)


def _limit_transform(program: Program) -> Program:
    fns = []
    changed = False
    for fn in program.functions:
        new = limit_function_to_sub_block0(fn) if (fn.func_type is FunctionType.AIV or is_candidate(fn)) else fn
        changed = changed or new is not fn
        fns.append(new)
    return program.with_fields(functions=tuple(fns)) if changed else program


def limit_unique_sub_block_id_to_store_copy() -> Pass:
    """Factory of LimitUniqueSubBlockIdToStoreCopy: each store and each custom op not marked ``tiled_op``
    runs under ``if get_subblock_idx() == 0`` (tagged ``limit_sub_block_id0``)."""
    return Pass(LIMIT_PASS_NAME, _limit_transform, cli_name="limit-unique-sub-block-id-to-store-copy", **_PROPS)


__all__ = [
    "AXIS_ATTR", "CUSTOM_OP_POLICIES", "TileAndBindSubBlockOptions",
    "LIMIT_PASS_NAME", "REQUESTED_AXIS", "SPLIT_REQUEST",
    "LIMIT_TAG", "PASS_NAME", "REPLICATED", "REVERTED",
    "TILED_OP",
    "recover_result_windows", "CustomPlan", "Refusal", "check_aligned_output_inits", "check_custom_op",
    "check_safe_to_duplicate",
    "check_slices_only_parallel_dimensions", "check_sliceable_inputs", "check_supported_explicit_maps",
    "axis_plans", "check_replicable", "choose_axis", "hoist_nested_calls", "is_candidate",
    "limit_function_to_sub_block0", "limit_unique_sub_block_id_to_store_copy",
    "project_to_inputs", "recover_iteration_window", "split_function", "tile_and_bind_sub_block",
]
