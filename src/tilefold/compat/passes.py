"""PyPTO's ``pypto_core.passes`` (``from pypto.pypto_core import passes``): tilefold's passes under PyPTO's names,
PyPTO's pass objects, pipelines and instruments, and ``MemoryPlanner``.

- **Pass factories.** One snake_case factory per pass of tilefold's registry (``tilefold.passes.list_passes()``
  and the tensor-level pair ``tensor_level_passes``): ``passes.init_mem_ref()``, ``passes.outline_incore_scopes()``
  ... each returns a ``CompatPass`` (a tilefold ``Pass`` with PyPTO's ``get_name()`` /
  ``get_required_properties()`` / ``get_produced_properties()`` / ``get_invalidated_properties()``). The
  properties are the ones the tilefold pass declares, under PyPTO's ``IRProperty`` names. ``convert_to_ssa()``
  gives the versions of a re-assigned name PyPTO's names (``x__ssa_v0``, ``x__phi_v2``, ``sum__iter_v1``,
  ``sum__rv_v3``: ``compat/ssa_names.py``; tilefold's front end builds SSA) and refuses IR that is not SSA. A PyPTO pass
  tilefold has no counterpart of (``passes.lower_composite_ops()`` ...) raises ``NotSupportedError`` naming it.
- ``PassPipeline`` (``add_pass``, ``run``, ``get_pass_names``, ``get_passes``); ``PassContext(instruments,
  verification_level)``; ``VerificationInstrument(VerificationMode.X)``, ``CallbackInstrument``,
  ``ReportInstrument(dir)``; ``VerificationLevel`` NONE / BASIC / ROUNDTRIP, which ``PassPipeline.run``,
  ``ir.PassManager.run_passes`` and ``ir.compile`` apply (``automatic_instruments``).
- ``MemoryPlanner`` selects who assigns on-chip addresses: PyPTO's own ``AllocateMemoryAddr`` (``PYPTO``, the
  default) or ptoas (``PTOAS``). On the simulator tilefold's ``AllocateMemoryAddr`` plans memory under either
  choice (there is no ptoas); the computed values do not depend on the planner, so both are accepted.
"""

from __future__ import annotations

import enum
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.stmt import Program
from tilefold.passes.base import IRProperty as _TfProperty
from tilefold.passes.base import Pass
from tilefold.passes.pass_manager import PassContext as _PassContext
from tilefold.passes.pass_manager import PassDumpLevel as PassDumpLevel  # re-exported: passes.PassDumpLevel
from tilefold.passes.pass_manager import PassInstrument
from tilefold.passes.pass_manager import VerificationInstrument as _VerificationInstrument


class MemoryPlanner(enum.Enum):
    PYPTO = "PYPTO"
    PTOAS = "PTOAS"


class VerificationMode(enum.Enum):
    NONE = "NONE"
    BEFORE = "BEFORE"
    AFTER = "AFTER"
    BEFORE_AND_AFTER = "BEFORE_AND_AFTER"


class VerificationLevel(enum.Enum):
    NONE = "NONE"
    BASIC = "BASIC"
    ROUNDTRIP = "ROUNDTRIP"
    Basic = "BASIC"  # noqa: PIE796  (PyPTO's C++ spellings, aliases)
    Roundtrip = "ROUNDTRIP"  # noqa: PIE796


# ------------------------------------------------------------------------------------------------
# properties: tilefold's property model under PyPTO's names
# ------------------------------------------------------------------------------------------------

#: tilefold properties whose PyPTO name differs (tilefold's MemRefAllocated checks that every tile of a kernel
#: carries a MemRef: PyPTO's HasMemRefs); every other tilefold property has PyPTO's name
_PYPTO_NAME = {_TfProperty.MemRefAllocated: "HasMemRefs"}


def pypto_name(prop: _TfProperty) -> str:
    return _PYPTO_NAME.get(prop, prop.value)


#: PyPTO's ``IRProperty``: the properties tilefold declares and verifies, under PyPTO's names
IRProperty = enum.Enum("IRProperty", {pypto_name(p): pypto_name(p) for p in _TfProperty})


def _tilefold_property(prop: Any) -> _TfProperty:
    name = prop.value if isinstance(prop, (IRProperty, _TfProperty)) else prop
    for p in _TfProperty:
        if pypto_name(p) == name or p.value == name:
            return p
    raise TilefoldError(f"unknown IR property {prop!r}",
                        hint=f"tilefold declares {', '.join(pypto_name(p) for p in _TfProperty)}")


class IRPropertySet:
    """An immutable set of ``IRProperty`` (PyPTO's bitset): ``contains``, ``contains_all``, ``union``,
    ``difference``, ``to_string``; ``str()`` is ``{SSAForm, TileOps2D}`` in declaration order."""

    def __init__(self, props: Iterable[Any] = ()) -> None:
        if isinstance(props, (str, bytes)) or not isinstance(props, Iterable):
            raise TilefoldError(f"IRPropertySet({props!r}): give an iterable of IRProperty",
                                hint="e.g. IRPropertySet([IRProperty.SSAForm])")
        self._props = frozenset(_tilefold_property(p) for p in props)

    def __iter__(self) -> Iterator[Any]:
        return (IRProperty[pypto_name(p)] for p in _TfProperty if p in self._props)

    def __len__(self) -> int:
        return len(self._props)

    def __contains__(self, prop: Any) -> bool:
        return _tilefold_property(prop) in self._props

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IRPropertySet):
            return self._props == other._props
        if isinstance(other, (set, frozenset)):
            return self._props == IRPropertySet(other)._props
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._props)

    def contains(self, prop: Any) -> bool:
        return prop in self

    def contains_all(self, other: Iterable[Any]) -> bool:
        return all(p in self for p in other)

    def union(self, other: Iterable[Any]) -> IRPropertySet:
        return IRPropertySet([*self, *other])

    def difference(self, other: Iterable[Any]) -> IRPropertySet:
        drop = IRPropertySet(other)
        return IRPropertySet(p for p in self if p not in drop)

    def empty(self) -> bool:
        return not self._props

    def to_string(self) -> str:
        return "{" + ", ".join(p.value for p in self) + "}"

    __str__ = to_string

    def __repr__(self) -> str:
        return f"IRPropertySet({self.to_string()})"


# ------------------------------------------------------------------------------------------------
# pass objects and factories
# ------------------------------------------------------------------------------------------------


class CompatPass(Pass):
    """A tilefold pass with PyPTO's accessors. Calling it runs the pass through the active ``PassContext``."""

    def __init__(self, inner: Pass) -> None:
        super().__init__(inner.name, inner.run, required=inner.required, produced=inner.produced,
                         invalidated=inner.invalidated, cli_name=inner.cli_name)

    def get_name(self) -> str:
        return self.name

    def get_required_properties(self) -> IRPropertySet:
        return IRPropertySet(self.required)

    def get_produced_properties(self) -> IRPropertySet:
        return IRPropertySet(self.produced)

    def get_invalidated_properties(self) -> IRPropertySet:
        return IRPropertySet(self.invalidated)


def as_compat_pass(p: Pass) -> CompatPass:
    return p if isinstance(p, CompatPass) else CompatPass(p)


def _registry() -> dict[str, Callable[..., Pass]]:
    """snake_case name -> factory of every pass of tilefold's registry (the tile catalogue and the two
    tensor-level passes), read from the registry itself."""
    from tilefold.passes.inline_orchestration_calls import inline_orchestration_calls
    from tilefold.passes.pipeline import get_pass, list_passes
    from tilefold.passes.tensor_lowering import convert_tensor_to_tile_ops, outline_incore_scopes
    from tilefold.passes.tensor_lowering.outline_hierarchy_scopes import outline_hierarchy_scopes

    found: dict[str, Callable[..., Pass]] = {}
    for cli_name in list_passes():
        found[cli_name.replace("-", "_")] = lambda _n=cli_name, **kw: get_pass(_n, **kw)
    # the tensor-level passes of tensor_level_passes (the Default strategy runs all four before the tile pipeline)
    for factory in (outline_hierarchy_scopes, outline_incore_scopes, inline_orchestration_calls,
                    convert_tensor_to_tile_ops):
        found[factory().cli_name.replace("-", "_")] = factory
    return found


def _convert_to_ssa(program: Program) -> Program:
    from tilefold.passes.verifier import check_properties, violation_error

    violations = check_properties(program, (_TfProperty.SSAForm,))
    if violations:
        error = violation_error(violations, "ConvertToSSA")
        raise NotSupportedError(f"ConvertToSSA: tilefold does not rename IR that is not in SSA form: "
                                f"{error.message}", span=error.span,
                                hint="tilefold's front end (@pl.program, pl.parse, @pl.jit) builds SSA form; build "
                                     "IR by hand with one Var per definition")
    from tilefold.compat.ssa_names import rename_program

    return rename_program(program)  # the front end's versions of a name, under PyPTO's names (x__ssa_v0, ...)


def convert_to_ssa() -> CompatPass:
    """PyPTO's ConvertToSSA on tilefold's SSA IR (all IR tilefold's front ends build): the versions of a
    re-assigned name get PyPTO's names (``compat/ssa_names.py``); ``NotSupportedError`` naming the first
    re-definition of one ``Var`` (hand-built IR that is not SSA)."""
    return CompatPass(Pass("ConvertToSSA", _convert_to_ssa, produced=(_TfProperty.SSAForm,),
                           cli_name="convert-to-ssa"))


_DISTRIBUTED = "distributed (multi-card) programs are not supported: tilefold simulates one chip"
#: PyPTO passes with no tilefold counterpart, and why (the Default strategy's rows of PyPTO's per-pass table)
_NOT_IN_TILEFOLD: dict[str, str] = {
    **{n: "tilefold has no such pass: its own pipeline reaches a memory-planned tile program without it" for n in (
        "InlineFunctions", "UnrollLoops", "CtrlFlowTransform", "Simplify", "NormalizeStmtStructure",
        "FlattenCallExpr", "OutlineClusterScopes", "OptimizeOrchTensors",
        "LowerCompositeOps", "LegalizeTileCast", "InsertMxScaleAddr", "ResolveBackendOpLayouts",
        "LowerAutoVectorSplit", "ExpandMixedKernel", "InjectGMPipeBuffer", "SplitVectorKernel", "StampTfreeSplit",
        "NormalizeReturnOrder", "SkewCrossCorePipeline", "LowerPipelineToSlots", "LowerPipelineLoops",
        "CanonicalizeIOOrder", "MaterializeTensorStrides", "MaterializeSemanticAliases", "FoldNoOpReshape",
        "FuseCreateAssembleToSlice", "DeriveCallDirections", "AutoDeriveTaskDependencies", "ExpandManualPhaseFence",
        "MaterializeRuntimeScopes", "ClassifyIterArgCarry", "MaterializeValidShapeSymbols")},
    **{n: _DISTRIBUTED for n in ("SynthesizeAllReduceSignals", "MaterializeCommDomainScopes",
                                 "LowerHostTensorCollectives", "MaterializeDistTensorCtx", "InsertCommFence")},
}


def _snake(camel: str) -> str:
    out = []
    for i, ch in enumerate(camel):
        if ch.isupper() and i and (not camel[i - 1].isupper() or (i + 1 < len(camel) and camel[i + 1].islower())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def _unsupported_factory(pypto: str, reason: str) -> Callable[..., CompatPass]:
    def factory(*_args: Any, **_kw: Any) -> CompatPass:
        from tilefold.passes.pipeline import list_passes

        raise NotSupportedError(f"PyPTO's {pypto} pass (passes.{_snake(pypto)}()) is not supported: {reason}",
                                hint="run the whole pipeline with ir.PassManager.get_strategy("
                                     "ir.OptimizationStrategy.Default).run_passes(program), or use a tilefold pass: "
                                     + ", ".join(n.replace("-", "_") for n in list_passes()))

    factory.__name__ = _snake(pypto)
    return factory


def _factory(name: str) -> Callable[..., CompatPass] | None:
    registry = _registry()
    if name in registry:
        make = registry[name]

        def factory(*args: Any, **kw: Any) -> CompatPass:
            if args:  # the factories take their options by keyword only (a positional one used to replace the name)
                raise TilefoldError(f"passes.{name}() takes its options as keywords, got {len(args)} positional "
                                    "argument(s)", hint=f"e.g. passes.{name}() or passes.{name}(target='Ascend910B')")
            return CompatPass(make(**kw))

        factory.__name__ = name
        return factory
    for pypto, reason in _NOT_IN_TILEFOLD.items():
        if _snake(pypto) == name:
            return _unsupported_factory(pypto, reason)
    return None


def pass_factory_names() -> list[str]:
    """The snake_case pass factories of this module: tilefold's passes, convert_to_ssa, and the PyPTO passes
    that raise ``NotSupportedError``."""
    return sorted({*_registry(), "convert_to_ssa", *(_snake(n) for n in _NOT_IN_TILEFOLD)})


# ------------------------------------------------------------------------------------------------
# instruments
# ------------------------------------------------------------------------------------------------


def VerificationInstrument(mode: VerificationMode = VerificationMode.BEFORE_AND_AFTER,  # noqa: N802
                           *, before: bool | None = None, after: bool | None = None, **kw: Any) -> PassInstrument:
    """PyPTO's ``VerificationInstrument(VerificationMode.X)``, or tilefold's keyword form: BEFORE checks the
    properties a pass requires on its input, AFTER those it produces on its output, with tilefold's verifiers
    (``tilefold.passes.verifier``); a violation raises ``VerificationError``."""
    if not isinstance(mode, VerificationMode):
        raise TilefoldError(f"VerificationInstrument({mode!r}): not a VerificationMode",
                            hint="passes.VerificationInstrument(passes.VerificationMode.AFTER)")
    b = mode in (VerificationMode.BEFORE, VerificationMode.BEFORE_AND_AFTER) if before is None else before
    a = mode in (VerificationMode.AFTER, VerificationMode.BEFORE_AND_AFTER) if after is None else after
    return _VerificationInstrument(before=b, after=a, **kw)


class CallbackInstrument(PassInstrument):
    """``CallbackInstrument(before_pass=fn, after_pass=fn, name=...)``: each callback gets ``(pass, program)``
    (the pass has ``get_name()``; ``after_pass`` gets the pass's output)."""

    def __init__(self, before_pass: Callable[[Any, Program], Any] | None = None,
                 after_pass: Callable[[Any, Program], Any] | None = None, name: str = "CallbackInstrument") -> None:
        for key, fn in (("before_pass", before_pass), ("after_pass", after_pass)):
            if fn is not None and not callable(fn):
                raise TilefoldError(f"CallbackInstrument({key}={fn!r}) is not callable",
                                    hint=f"{key}= takes a function of (pass, program), or None")
        self._before, self._after, self._name = before_pass, after_pass, name

    def get_name(self) -> str:
        return self._name

    def before_pass(self, pass_: Pass, program: Program) -> None:
        if self._before is not None:
            self._before(as_compat_pass(pass_), program)

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        if self._after is not None:
            self._after(as_compat_pass(pass_), after)


class ReportInstrument(PassInstrument):
    """``ReportInstrument(output_dir)``: writes ``<output_dir>/pass_report.json`` and ``pass_report.txt``, one
    record per pass run in its context, rewritten after each pass: the pass's number (execution order), name,
    whether it changed the program, the functions it changed, the time it took, and the properties it declares
    (required / produced / invalidated, PyPTO names)."""

    def __init__(self, output_dir: str | os.PathLike) -> None:
        if not isinstance(output_dir, (str, os.PathLike)) or "\0" in str(output_dir):
            raise TilefoldError(f"ReportInstrument({output_dir!r}): not a directory path",
                                hint="ReportInstrument('build/report') writes pass_report.json / .txt there")
        self._dir = str(output_dir)
        self.records: list[dict[str, Any]] = []
        self._start = 0.0

    def get_output_dir(self) -> str:
        return self._dir

    def get_name(self) -> str:
        return "ReportInstrument"

    def before_pass(self, pass_: Pass, program: Program) -> None:
        self._start = time.perf_counter()

    def after_pass(self, pass_: Pass, before: Program, after: Program) -> None:
        old = {fn.name: fn for fn in before.functions}
        changed = [fn.name for fn in after.functions if old.get(fn.name) is not fn]
        view = as_compat_pass(pass_)
        self.records.append({
            "index": len(self.records), "pass": pass_.name, "changed": after is not before,
            "functions_changed": changed, "ms": round((time.perf_counter() - self._start) * 1e3, 3),
            "required": [p.value for p in view.get_required_properties()],
            "produced": [p.value for p in view.get_produced_properties()],
            "invalidated": [p.value for p in view.get_invalidated_properties()],
        })
        out = Path(self._dir)
        lines = [f"{r['index']:02d} {r['pass']:<24} {'changed' if r['changed'] else 'unchanged':<9} "
                 f"{r['ms']:9.3f} ms  functions changed: {', '.join(r['functions_changed']) or '-'}"
                 for r in self.records]
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "pass_report.json").write_text(json.dumps(self.records, indent=1))
            (out / "pass_report.txt").write_text("\n".join(lines) + "\n")
        except OSError as exc:
            raise TilefoldError(f"ReportInstrument: cannot write the pass report to {self._dir!r}: "
                                f"{exc.strerror or exc}", hint="give a directory you can create and write") from None


# ------------------------------------------------------------------------------------------------
# the context, the verification level and pipelines
# ------------------------------------------------------------------------------------------------


class PassContext(_PassContext):
    """``PassContext(instruments, verification_level=VerificationLevel.BASIC)``: with ``NONE`` no verification
    instrument of the context runs; the level also decides what pipelines run inside it verify
    (``automatic_instruments``)."""

    def __init__(self, instruments: Iterable[PassInstrument] = (), verification_level: Any = None,
                 **kw: Any) -> None:
        from tilefold.passes.base import checked_instruments

        items = checked_instruments(instruments)
        if verification_level is not None and not isinstance(verification_level, VerificationLevel):
            raise TilefoldError(f"PassContext: {verification_level!r} is not a VerificationLevel",
                                hint="passes.VerificationLevel.NONE, .BASIC or .ROUNDTRIP")
        if verification_level is VerificationLevel.NONE:
            items = [i for i in items if not isinstance(i, _VerificationInstrument)]
        super().__init__(items, **kw)
        self.verification_level = verification_level or VerificationLevel.BASIC

    def get_verification_level(self) -> VerificationLevel:
        return self.verification_level


def env_verification_level() -> VerificationLevel | None:
    """``PYPTO_VERIFY_LEVEL`` (none / basic / roundtrip) as a level; None when it is not set."""
    raw = os.environ.get("PYPTO_VERIFY_LEVEL")
    if raw is None or not raw.strip():
        return None
    try:
        return VerificationLevel[raw.strip().upper()]
    except KeyError:
        raise TilefoldError(f"PYPTO_VERIFY_LEVEL={raw!r} is not a verification level",
                            hint="set it to none, basic or roundtrip") from None


def requested_level() -> VerificationLevel | None:
    """The level of the innermost PyPTO-style ``PassContext``, else ``PYPTO_VERIFY_LEVEL``, else None."""
    ctx = _PassContext.current()
    if isinstance(ctx, PassContext):
        return ctx.verification_level
    return env_verification_level()


def automatic_instruments(level: VerificationLevel | None) -> list[PassInstrument]:
    """What a pipeline run adds at ``level``: BASIC verifies the properties each pass produces (unless the
    context already holds a verification instrument), ROUNDTRIP also prints and re-parses after each pass."""
    from tilefold.testing.round_trip import RoundTripInstrument

    if level is None or level is VerificationLevel.NONE:
        return []
    have = _PassContext.current().instruments
    extra: list[PassInstrument] = []
    if not any(isinstance(i, _VerificationInstrument) for i in have):
        extra.append(_VerificationInstrument(before=False, after=True))
    if level is VerificationLevel.ROUNDTRIP and not any(isinstance(i, RoundTripInstrument) for i in have):
        extra.append(RoundTripInstrument())
    return extra


def run_verified(passes: Iterable[Pass], program: Program, level: VerificationLevel | None = None) -> Program:
    """Run ``passes`` in order through the current context, with the instruments of ``level`` (default: the
    requested level, else BASIC) added."""
    from tilefold.passes.pass_manager import added_instruments

    if not isinstance(program, Program):
        raise TilefoldError(f"a pass pipeline runs on an ir.Program, got {type(program).__name__}",
                            hint="pass a @pl.program class or pl.parse(...)")
    chosen = level or requested_level() or VerificationLevel.BASIC
    with added_instruments(automatic_instruments(chosen)):
        for p in passes:
            program = p(program)
    return program


class PassPipeline:
    """PyPTO's ``PassPipeline``: ``add_pass(p)`` appends, ``run(program)`` runs them in order (instruments fire
    around each; the verification level applies, see ``run_verified``)."""

    def __init__(self) -> None:
        self._passes: list[CompatPass] = []

    def add_pass(self, pass_: Pass) -> None:
        if not isinstance(pass_, Pass):
            raise TilefoldError(f"PassPipeline.add_pass takes a pass, got {type(pass_).__name__}",
                                hint="e.g. pipeline.add_pass(passes.init_mem_ref())")
        self._passes.append(as_compat_pass(pass_))

    def run(self, program: Program) -> Program:
        return run_verified(self._passes, program)

    __call__ = run

    def get_pass_names(self) -> list[str]:
        return [p.name for p in self._passes]

    def get_passes(self) -> list[CompatPass]:
        return list(self._passes)


_OWN = {"MemoryPlanner", "VerificationMode", "VerificationLevel", "VerificationInstrument", "PassContext",
        "PassPipeline", "CallbackInstrument", "ReportInstrument", "IRProperty", "IRPropertySet", "PassDumpLevel",
        "convert_to_ssa"}


def __getattr__(name: str) -> Any:
    # a pass factory of tilefold's registry (or a PyPTO pass tilefold lacks: it raises when called), then any
    # other public name of tilefold.passes
    factory = _factory(name)
    if factory is not None:
        return factory
    if not name.startswith("_"):
        import importlib

        try:
            return getattr(importlib.import_module("tilefold.passes"), name)
        except AttributeError:
            pass
    raise AttributeError(f"module 'tilefold.pypto_core.passes' has no attribute {name!r}")


__all__ = sorted(_OWN | {"PassInstrument"})
