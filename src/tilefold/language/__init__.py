"""The ``pl`` DSL (PyPTO syntax): ``import tilefold.language as pl``.

Entry points
- ``pl.parse(text, filename="<string>")`` -> ``ir.Program`` (the source must define one ``@pl.program`` class);
- ``pl.parse_file(path)`` -> ``ir.Program``;
- ``@pl.program`` on a class: parses the class source (via ``inspect``) and returns the ``ir.Program``.

Kernels are parsed with Python's ``ast`` and never executed. See ``docs/dsl.md`` for the syntax.
"""

from __future__ import annotations

import inspect
import linecache
import sys
import textwrap
from pathlib import Path
from types import FrameType
from typing import Any

from tilefold.errors import ParseError, Span
from tilefold.frontend import dsl as _dsl
from tilefold.frontend.dsl import (
    InOut,
    MemRef,
    OpNamespace,
    Out,
    Scalar,
    Tensor,
    TensorLayout,
    TensorView,
    Tile,
    TileView,
    Tuple,
    function,
    parallel,
    reduction,
)
from tilefold.frontend.parser import _MISSING, Parser
from tilefold.frontend.printer import python_print
from tilefold.ir.affine import AffineMap
from tilefold.ir.expr import ConstInt as _ConstInt
from tilefold.ir.stmt import FunctionType, Program
from tilefold.ir.types import DataType, MemorySpace
from tilefold.runtime.jit import JITFunction, jit

Mem = MemorySpace
GM = MemorySpace.DDR
ND, DN, NZ = TensorLayout.ND, TensorLayout.DN, TensorLayout.NZ

BOOL = DataType.BOOL
INT4 = DataType.INT4
INT8 = DataType.INT8
INT16 = DataType.INT16
INT32 = DataType.INT32
INT64 = DataType.INT64
UINT4 = DataType.UINT4
UINT8 = DataType.UINT8
UINT16 = DataType.UINT16
UINT32 = DataType.UINT32
UINT64 = DataType.UINT64
FP8E4M3 = DataType.FP8E4M3
FP8E5M2 = DataType.FP8E5M2
FP8E4M3FN = DataType.FP8E4M3FN
FP8E8M0 = DataType.FP8E8M0
FP4 = DataType.FP4
FP16 = DataType.FP16
BF16 = DataType.BF16
FP32 = DataType.FP32
FP64 = DataType.FP64
HF4 = DataType.HF4  # no documented encoding: declared only (DataType.encoded)
HF8 = DataType.HF8
INDEX = DataType.INDEX

tile = OpNamespace("tile")
tensor = OpNamespace("tensor", parsed=("dim",))  # pl.tensor.create(...) == pl.create_tensor(...)

range = _dsl.range_  # noqa: A001  (pl.range mirrors PyPTO)
pipeline = _dsl.pipeline
unroll = _dsl.unroll
while_ = _dsl.while_
yield_ = _dsl.yield_
cond = _dsl.cond
store = _dsl.store
load = _dsl.load
create_tensor = _dsl.create_tensor
create_tile = _dsl.create_tile
min = _dsl.min_  # noqa: A001
max = _dsl.max_  # noqa: A001
const = _dsl.const
make_tuple = _dsl.make_tuple
dynamic = _dsl.dynamic
Level = _dsl.Level
PadValue = _dsl.PadValue
AtomicType = _dsl.AtomicType
PipeType = _dsl.PipeType
at = _dsl.at
SplitMode = _dsl.SplitMode
split = _dsl.split
cross_core_slot = _dsl.cross_core_slot
spmd = _dsl.spmd
scope = _dsl.scope
manual_scope = _dsl.manual_scope
array = _dsl.array
TASK_ID = _dsl.TASK_ID
# -- PyPTO names evaluated at Python level (hierarchy, enums, type constructors, kernel-only markers): one block --
Role = _dsl.Role
ScopeMode = _dsl.ScopeMode
CompactMode = _dsl.CompactMode
Array = _dsl.Array
DistributedTensor = _dsl.DistributedTensor
TaskId = _dsl.TaskId
RUNTIME = _dsl.RUNTIME
MX_A_ZZ, MX_B_NN = _dsl.MX_A_ZZ, _dsl.MX_B_NN
InlineFunction = JITFunction  # what @pl.inline / @pl.jit.inline give: a template the parser splices
ConstInt = _ConstInt  # the IR builder's integer constant: pl.ConstInt(0x1000, pl.INT64, span)
system = OpNamespace("system", parsed=_dsl.SYSTEM_PARSED)
cluster = _dsl.cluster
split_aiv = _dsl.split_aiv
incore = _dsl.incore
create_l1 = _dsl.create_l1
dim = _dsl.dim
dump_tag = _dsl.dump_tag
func_attr = _dsl.func_attr
static_assert = _dsl.static_assert
static_print = _dsl.static_print
submit = _dsl.submit
spmd_submit = _dsl.spmd_submit
_PYPTO_NAMES = ["Role", "ScopeMode", "PipeType", "CompactMode", "Array", "DistributedTensor", "TaskId", "RUNTIME",
                "MX_A_ZZ", "MX_B_NN", "InlineFunction", "ConstInt", "system", "cluster", "split_aiv", "incore",
                "create_l1", "dim", "dump_tag", "func_attr", "static_assert", "static_print", "submit",
                "spmd_submit"]
# -- end of the block --
AUTO = None  # PyPTO's sentinel for a compiler-chosen value: pl.reserve_buffer(base=pl.AUTO) lets the planner place it


def __getattr__(name: str) -> Any:
    """``pl.<op>`` is the top-level alias of ``pl.tile.<op>`` (``pl.add``, ``pl.muls`` ...), as in PyPTO."""
    from tilefold.frontend.dsl import UnknownNameError, caller_span
    from tilefold.ops import find_op

    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if find_op(f"tile.{name}") is not None:
        return getattr(tile, name)
    import difflib

    close = difflib.get_close_matches(name, [n for n in dir(tile) + list(globals()) if not n.startswith("_")], n=3)
    raise UnknownNameError(f"module {__name__!r} has no attribute {name!r}", span=caller_span(),
                           hint=("did you mean " + " / ".join(f"pl.{c}" for c in close) + "?") if close else
                           "dir(pl) lists the names of tilefold.language; `tilefold ops` lists every op")


def inline(fn: Any = None, **options: Any) -> Any:
    """PyPTO's ``@pl.inline``: a helper spliced into every ``@pl.function`` (or ``@pl.jit``) body that calls it by
    name; no function is added to the program. The same template as ``@pl.jit.inline`` (never executed: the
    parser reads its source, ``frontend/inline.py``)."""
    if options:
        raise ParseError(f"unknown @pl.inline option(s) {sorted(options)}", hint="write @pl.inline")
    frame = sys._getframe(1)
    local = {} if frame.f_locals is frame.f_globals else dict(frame.f_locals)

    def make(f: Any) -> JITFunction:
        return JITFunction(f, "inline", local)

    return make if fn is None else make(fn)


def _inline_resolver(lookup: Any) -> Any:
    """name -> the ``@pl.inline`` / ``@pl.jit.inline`` helper ``lookup`` gives for it (its source and the
    resolver of its own module, for the helpers it calls), else None."""

    def resolve(name: str) -> Any:
        obj = lookup(name)
        if not (isinstance(obj, JITFunction) and obj.kind == "inline"):
            return None
        src = obj.jit_source()
        src.resolve = _inline_resolver(src.parser_args["const_lookup"])
        return src

    return resolve


def affine_map(text: str) -> AffineMap:
    """``pl.affine_map("(d0, d1) -> (d0, 0)")``: an indexing map in MLIR syntax."""
    return AffineMap.parse(text)


def parse(text: str, filename: str = "<string>", *, program_name: str | None = None) -> Program:
    """Parse ``pl`` source text into an ``ir.Program``. Module-level constants are folded statically.

    The text holds a ``@pl.program`` class, bare ``@pl.function`` functions, or a fully annotated ``@pl.jit``
    entry (with its ``@pl.jit.incore`` / ``.inline`` helpers). Parsing runs no pass: the jit form comes back as
    ``JITFunction.parse`` gives it, ``pl.at`` scopes and tensor-level ops included (``compile`` outlines and
    lowers them: ``passes.pipeline.pipeline_for``)."""
    from tilefold.frontend.parse_base import parse_python
    from tilefold.runtime.jit import has_jit_entry, parse_jit_text

    tree = None
    if "jit" in text and "@pl.program" not in text:  # a jit entry is spelt pl.jit: skip a second ast.parse else
        tree = parse_python(text, filename)
    if tree is not None and has_jit_entry(tree):
        return parse_jit_text(text, filename, program_name, tree=tree)
    return Parser(text, filename).parse_module(program_name)


loads = parse  # PyPTO's name for parsing text


def parse_file(path: str | Path, *, program_name: str | None = None) -> Program:
    """Parse a ``.py`` file holding one ``@pl.program`` class."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ParseError(f"cannot read {p}: {exc.strerror}", span=Span(str(p), 0, 0, ""),
                         hint="check the path") from None
    return Parser(text, str(p)).parse_module(program_name)


def _frame_lookup(frame: FrameType):
    local_ns = dict(frame.f_locals)
    global_ns = frame.f_globals

    def lookup(name: str) -> Any:
        if name in local_ns:
            return local_ns[name]
        if name in global_ns:
            return global_ns[name]
        return _MISSING

    aliases = {"pl"}
    this = sys.modules[__name__]
    for ns in (global_ns, local_ns):
        for k, v in ns.items():
            if v is this:
                aliases.add(k)
    return lookup, aliases


def _parse_class_object(cls: type, frame: FrameType | None) -> Program:
    try:
        lines, start = inspect.getsourcelines(cls)
        filename = inspect.getsourcefile(cls) or "<unknown>"
    except (OSError, TypeError) as exc:
        if frame is not None and linecache.getlines(frame.f_code.co_filename):
            # the defining module is not importable by name (e.g. exec'd from a spec): read its file
            filename = frame.f_code.co_filename
            text = "".join(linecache.getlines(filename))
            lookup, aliases = _frame_lookup(frame)
            parser = Parser(text, filename, const_lookup=lookup, pl_aliases=aliases)
            parser.inline_resolver = _inline_resolver(lookup)
            return parser.parse_module(cls.__name__)
        raise ParseError(f"cannot read the source of class {cls.__name__}: {exc}",
                         hint="@pl.program needs the class source; use pl.parse(text) for generated code") from None
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    source = textwrap.dedent("".join(lines))
    file_lines = [ln.rstrip("\n") for ln in linecache.getlines(filename)] or None
    if frame is not None:
        lookup, aliases = _frame_lookup(frame)
    else:
        lookup, aliases = None, {"pl"}
    parser = Parser(source, filename, line_offset=start - 1, col_offset=indent, file_lines=file_lines,
                    const_lookup=lookup, pl_aliases=aliases)
    if lookup is not None:
        parser.module_functions = _module_functions(source, filename, lookup, start - 1, indent)
        parser.inline_resolver = _inline_resolver(lookup)
    return parser.parse_module(cls.__name__)


def _module_functions(source: str, filename: str, lookup: Any, line_offset: int, indent: int) -> dict[str, Any]:
    """The ``@pl.function``s defined at module level in the class's file that the class calls by bare name, as
    ast nodes positioned for the class's parser (their source is read, never run)."""
    import ast as _ast

    from tilefold.frontend.program_form import bare_name_calls, relocate

    try:
        wanted = bare_name_calls([_ast.parse(source)])
    except (SyntaxError, RecursionError, MemoryError):
        return {}  # the program parser reports it, located
    wanted = {n for n in wanted if getattr(lookup(n), "__tilefold_function__", False)}
    if not wanted:
        return {}
    try:
        tree = _ast.parse("".join(linecache.getlines(filename)), filename=filename)
    except (SyntaxError, RecursionError, MemoryError):
        return {}
    found: dict[str, Any] = {}
    pending = set(wanted)
    defs = {n.name: n for n in tree.body if isinstance(n, _ast.FunctionDef)}
    while pending:  # module functions may call further module functions
        name = pending.pop()
        node = defs.get(name)
        if node is None or name in found:
            continue
        found[name] = node
        pending |= {n for n in bare_name_calls([node]) if n in defs and n not in found
                    and getattr(lookup(n), "__tilefold_function__", False)}
    for node in found.values():
        relocate(node, line_offset, indent)
    return found


def program(cls: type | None = None, **options: Any) -> Any:
    """``@pl.program`` / ``@pl.program(attrs={...})``: parse the decorated class into an ``ir.Program``.

    Constants used in the class (shapes held by module or closure variables) are read from the
    defining frame; nothing in the class is executed."""
    frame = sys._getframe(1)

    def build(c: type) -> Program:
        return _parse_class_object(c, frame)

    if cls is None:
        return build
    return build(cls)


__all__ = [
    "BF16", "BOOL", "FP16", "FP32", "FP64", "FP4", "FP8E4M3", "FP8E4M3FN",
    "FP8E5M2", "FP8E8M0", "GM", "HF4", "HF8", "INDEX", "PipeType", "INT16", "INT32", "INT4", "INT64",
    "INT8", "JITFunction", "Level", "PadValue", "AtomicType", "SplitMode", "TASK_ID", "array", "at", "cross_core_slot",
    "dynamic", "jit", "manual_scope", "scope", "split", "spmd",
    "UINT16", "UINT32", "UINT4", "UINT64", "UINT8", "FunctionType", "InOut", "Mem", "MemRef", "MemorySpace", "Out",
    "Scalar", "Tensor", "TensorLayout", "TensorView", "ND", "DN", "NZ",
    "Tile", "TileView", "Tuple", "affine_map", "cond", "const", "create_tensor", "create_tile",
    "function",
    "load", "loads", "make_tuple", "max", "min", "parallel", "parse", "parse_file", "pipeline", "program",
    "python_print", "range",
    "reduction", "store", "tensor", "tile", "unroll", "while_", "yield_", *_PYPTO_NAMES,
]
