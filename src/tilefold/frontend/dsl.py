"""Run-time surface of the ``pl`` DSL.

A ``@pl.program`` class is never executed by tilefold: its source is parsed with ``ast``. Python still
evaluates a few things when the defining module is imported — decorators and *parameter* annotations
(``pl.Tensor[[16, 128], pl.FP32]``) — so the names used there exist here as harmless markers. Calling a
DSL operation outside a parsed program raises a clear error.
"""

from __future__ import annotations

import enum
from typing import Any

from tilefold.errors import NotSupportedError, Span
from tilefold.ir import types as _ir_types
from tilefold.ops.custom.structured import PARALLEL, REDUCTION


class TypeMarker:
    """What ``pl.Tensor[...]`` and friends evaluate to at run time (carries the subscript only)."""

    __slots__ = ("kind", "item")

    def __init__(self, kind: str, item: Any) -> None:
        self.kind = kind
        self.item = item

    def __repr__(self) -> str:
        return f"pl.{self.kind}[{self.item!r}]"


class _Subscriptable:
    _kind = "?"

    def __class_getitem__(cls, item: Any) -> TypeMarker:
        return TypeMarker(cls._kind, item)


class Tensor(_Subscriptable):
    """``pl.Tensor[[rows, cols], dtype]``: a tensor in global memory."""

    _kind = "Tensor"


class Tile(_Subscriptable):
    """``pl.Tile[[rows, cols], dtype, pl.Mem.X, pl.MemRef(...), pl.TileView(...)]``: an on-chip tile."""

    _kind = "Tile"


class Scalar(_Subscriptable):
    """``pl.Scalar[pl.INDEX]``: a scalar value."""

    _kind = "Scalar"


class Out(_Subscriptable):
    """``pl.Out[pl.Tensor[...]]``: an output parameter."""

    _kind = "Out"


class InOut(_Subscriptable):
    """``pl.InOut[pl.Tensor[...]]``: an input/output parameter."""

    _kind = "InOut"


class Tuple(_Subscriptable):
    """``pl.Tuple[T1, T2]``: the type of a multi-result value."""

    _kind = "Tuple"


def caller_span() -> Span | None:
    """Where user code called into ``tilefold.language`` at Python level: the innermost frame outside the tilefold
    package (read from the frame; nothing is evaluated)."""
    import linecache
    import sys

    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "tilefold":
        frame = frame.f_back
    if frame is None:
        return None
    filename, line = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(filename, line)
    column = len(text) - len(text.lstrip()) + 1 if text else 0
    return Span(filename, line, column, text.rstrip("\n"))


def _only_in_program(name: str):
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError(
            f"pl.{name}(...) is only meaningful inside a @pl.program class or a @pl.jit function (called at "
            "Python level, outside a kernel)", span=caller_span(),
            hint="tilefold parses kernels with Python's ast and never runs them: write the call in a kernel body "
                 "(@pl.program / @pl.jit) or parse it with pl.parse",
        )

    stub.__name__ = name
    stub.__qualname__ = name
    return stub


class UnknownNameError(NotSupportedError, AttributeError):
    """A ``pl`` name that does not exist, read at Python level: an ``AttributeError`` (so ``hasattr`` and
    ``getattr(pl.tile, name, None)`` behave as in Python) carrying the caller's location and a close match."""


class _IteratorKind(str):
    """``pl.parallel`` is both an iterator type (the string "parallel") and a loop kind (``pl.parallel(n)``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _only_in_program(str(self))(*args, **kwargs)


parallel = _IteratorKind(PARALLEL)
reduction = REDUCTION


def MemRef(*args: Any, **kwargs: Any) -> TypeMarker:  # noqa: N802  (mirrors the annotation syntax)
    """Marker for ``pl.MemRef(space, base, byte_offset, size, address=...)`` inside ``pl.Tile[...]``."""
    return TypeMarker("MemRef", (args, kwargs))


def TileView(*args: Any, **kwargs: Any) -> TypeMarker:  # noqa: N802
    """Marker for ``pl.TileView(valid_shape=[...], blayout=..., ...)`` inside ``pl.Tile[...]``."""
    return TypeMarker("TileView", (args, kwargs))


class TensorLayout(enum.Enum):
    """``pl.TensorLayout``: the layout constants of a ``pl.Tensor`` annotation (``pl.ND`` is ``TensorLayout.ND``)."""

    ND = "ND"
    DN = "DN"
    NZ = "NZ"


def TensorView(*args: Any, **kwargs: Any) -> TypeMarker:  # noqa: N802
    """Marker for ``pl.TensorView(stride=[...], layout=pl.TensorLayout.ND, valid_shape=[...])``, the third element of
    ``pl.Tensor[...]`` (read by the parser, inline or through a module / closure name)."""
    return TypeMarker("TensorView", (args, kwargs))


def function(fn: Any = None, **options: Any) -> Any:
    """``@pl.function(type=pl.FunctionType.InCore, attrs={...})``: a marker; the program parser reads it."""
    if fn is not None and callable(fn) and not options:
        return _mark_function(fn)

    def wrap(f: Any) -> Any:
        return _mark_function(f)

    return wrap


def _mark_function(f: Any) -> Any:
    # a module-level @pl.function is found by a program that calls it by bare name (its source is parsed)
    try:
        f.__tilefold_function__ = True
    except (AttributeError, TypeError):
        pass
    return f


class OpNamespace:
    """``pl.tile``: every registered op ``tile.<name>`` is reachable as ``pl.tile.<name>``, and so is each of
    ``parsed``: names the parser reads itself (``pl.tensor.dim``) or refuses with its reason."""

    def __init__(self, prefix: str, parsed: tuple[str, ...] = ()) -> None:
        self._prefix = prefix
        self._parsed = parsed

    def __getattr__(self, name: str) -> Any:
        from tilefold.ops import find_op

        if name.startswith("_") or (name not in self._parsed and find_op(f"{self._prefix}.{name}") is None):
            raise UnknownNameError(f"pl.{self._prefix} has no op {name!r}", span=caller_span(),
                                   hint=self._close_hint(name))
        return _only_in_program(f"{self._prefix}.{name}")

    def _close_hint(self, name: str) -> str:
        import difflib

        close = difflib.get_close_matches(name, self.__dir__(), n=3)
        if close:
            return "did you mean " + " / ".join(f"pl.{self._prefix}.{c}" for c in close) + "?"
        return f"dir(pl.{self._prefix}) lists its ops (`tilefold ops` prints every registered op)"

    def __dir__(self) -> list[str]:
        from tilefold.ops import all_ops

        return sorted({n.split(".", 1)[1] for n in all_ops() if n.startswith(self._prefix + ".")} | set(self._parsed))


range_ = _only_in_program("range")
pipeline = _only_in_program("pipeline")
unroll = _only_in_program("unroll")
while_ = _only_in_program("while_")
yield_ = _only_in_program("yield_")
cond = _only_in_program("cond")
store = _only_in_program("store")
load = _only_in_program("load")
create_tensor = _only_in_program("create_tensor")
create_tile = _only_in_program("create_tile")
min_ = _only_in_program("min")
max_ = _only_in_program("max")
const = _only_in_program("const")
make_tuple = _only_in_program("make_tuple")


class DynamicDim:
    """``pl.dynamic("M")``: a tensor extent taken from the call's argument (see docs/dsl.md, jit form)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"pl.dynamic({self.name!r})"


def dynamic(name: str) -> DynamicDim:
    return DynamicDim(name)


class Level(enum.Enum):
    """``pl.at(level=...)`` / ``@pl.function(level=...)``: PyPTO's hierarchy levels, innermost first, and its
    aliases (an alias is the same member: ``pl.Level.POD is pl.Level.CLUSTER_0``). tilefold models one chip; what
    each level means there is in ``frontend/hierarchy.py``."""

    AIV = "AIV"
    AIC = "AIC"
    CORE = "CORE"
    CORE_GROUP = "CORE_GROUP"
    CHIP_DIE = "CHIP_DIE"
    CHIP = "CHIP"
    HOST = "HOST"
    CLUSTER = "CLUSTER"
    CLUSTER_0 = "CLUSTER_0"
    CLUSTER_1 = "CLUSTER_1"
    CLUSTER_2 = "CLUSTER_2"
    GLOBAL = "GLOBAL"
    POD = "CLUSTER_0"  # aliases (dev/07-outline_hierarchy_scopes): resolve to the canonical member
    NODE = "HOST"
    UMA = "CHIP"


class Role(enum.Enum):
    """``role=`` of a hierarchy scope or function: who runs it at its level."""

    Orchestrator = "Orchestrator"
    Worker = "Worker"
    SubWorker = "SubWorker"


class ScopeMode(enum.Enum):
    """``pl.scope(mode=...)``: AUTO (the runtime orders tasks by their data) or MANUAL (the user does)."""

    AUTO = "AUTO"
    MANUAL = "MANUAL"


class CompactMode(enum.Enum):
    """``compact=`` of a ``pl.TileView``: ``normal`` is PTO's packed transfer format of a partial boxed tile."""

    normal = "normal"


# the pad / atomic enums are IR attributes (ops see them): one definition, in tilefold.ir.types
PadValue = _ir_types.PadValue
AtomicType = _ir_types.AtomicType
PipeType = _ir_types.PipeType  # pl.system.sync_src / sync_dst pipes (ops/pipe_sync_ops.py)


def at(*args: Any, **kwargs: Any) -> Any:
    raise NotSupportedError("pl.at(...) is a scope of a @pl.jit kernel body, which tilefold parses and never runs",
                            span=caller_span(),
                            hint="use it as `with pl.at(level=pl.Level.CORE_GROUP):` inside a @pl.jit function")


class SplitMode(enum.Enum):
    """``pl.split(pl.SplitMode.X)``: how vector work of a ``pl.at`` scope is halved across the two AIV
    sub-blocks (UP_DOWN: rows, LEFT_RIGHT: columns, NONE: not split)."""

    NONE = "NONE"
    UP_DOWN = "UP_DOWN"
    LEFT_RIGHT = "LEFT_RIGHT"


def _body_only(name: str, hint: str):
    def marker(*args: Any, **kwargs: Any) -> Any:
        raise NotSupportedError(f"pl.{name}(...) is read by the @pl.jit parser inside a kernel body and never runs",
                                span=caller_span(), hint=hint)

    marker.__name__ = name
    marker.__qualname__ = name
    return marker


def split(mode: SplitMode) -> TypeMarker:
    """``pl.split(mode)`` in ``pl.at(optimizations=[...])``: the parser reads it inline from the source."""
    return TypeMarker("split", mode)


def cross_core_slot(slot_num: int = 2) -> TypeMarker:
    """``pl.cross_core_slot(slot_num=N)`` in ``pl.at(optimizations=[...])`` (read inline by the parser)."""
    return TypeMarker("cross_core_slot", slot_num)


spmd = _body_only("spmd", "use it in a @pl.jit entry: for i in pl.spmd(4): ...")
scope = _body_only("scope", "use it in a @pl.jit entry: with pl.scope(): ...")
manual_scope = _body_only("manual_scope", "use it in a @pl.jit entry: with pl.manual_scope(): ...")


class _ArrayNamespace:
    """``pl.array.create(n, pl.TASK_ID)``: a task-id array of the orchestration code (parsed, never run)."""

    create = staticmethod(_body_only("array.create", "use it in a @pl.jit entry: tids = pl.array.create(4, "
                                                     "pl.TASK_ID)"))


array = _ArrayNamespace()
TASK_ID = "TASK_ID"


# ---- names PyPTO programs evaluate at Python level (decorator arguments, annotations, defaults) -------------
# Each exists so that a module using it imports; what the parser does with it (or why it refuses it, located)
# is in the parser. Kernel-only functions are the ``_only_in_program`` markers above.


class Array(_Subscriptable):
    """``pl.Array[extent, dtype]``: an on-core array of scalars (``frontend/arrays.py``)."""

    _kind = "Array"


class DistributedTensor(_Subscriptable):
    """``pl.DistributedTensor[[shape], dtype]``: a tensor spread over ranks (refused: tilefold simulates one chip)."""

    _kind = "DistributedTensor"


TaskId = TypeMarker("Scalar", TASK_ID)  # PyPTO's alias of pl.Scalar[pl.TASK_ID]


class _RuntimeValue:
    """``pl.RUNTIME``: "leave this scalar a run-time value" (``kernel.compile(n=pl.RUNTIME)``, a signature default)."""

    def __repr__(self) -> str:
        return "pl.RUNTIME"


RUNTIME = _RuntimeValue()

#: layout constants of an MX scale tensor (``pl.Tensor[..., pl.MX_A_ZZ]``); the MX scale layouts are not modelled
MX_A_ZZ = TypeMarker("layout", "MX_A_ZZ")
MX_B_NN = TypeMarker("layout", "MX_B_NN")

cluster = _only_in_program("cluster")
split_aiv = _only_in_program("split_aiv")
incore = _only_in_program("incore")
create_l1 = _only_in_program("create_l1")
dim = _only_in_program("dim")
dump_tag = _only_in_program("dump_tag")
func_attr = _only_in_program("func_attr")
static_assert = _only_in_program("static_assert")
static_print = _only_in_program("static_print")
submit = _only_in_program("submit")
spmd_submit = _only_in_program("spmd_submit")

#: ``pl.system.<name>`` spellings of PyPTO's device runtime beyond the registered ``system.*`` ops: the parser
#: reads them (task_dummy, the buffer set-up ops) or refuses them with its reason
SYSTEM_PARSED = ("task_dummy", "sync_src", "sync_dst", "bar_v", "bar_m", "bar_all", "reserve_buffer",
                 "import_peer_buffer", "aic_initialize_pipe", "aiv_initialize_pipe")
