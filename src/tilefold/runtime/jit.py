"""``@pl.jit`` / ``@pl.jit.incore`` / ``@pl.jit.inline``: kernels written as plain functions.

The decorator never runs the function. It keeps the function's source location and module namespace; on
``lower`` / ``compile`` / a call, the body is parsed with ``ast`` (``tilefold.frontend.jit_form``), specialised on
the shapes and dtypes of the arguments, lowered by the tensor-level passes and the default tile pipeline, and
cached per signature. Running (``kernel(a, b, out)``) is ``tilefold.runtime``'s job; this module only builds IR.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import tokenize
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tilefold.errors import ParseError, Span
from tilefold.frontend.jit_form import JitParser, JitSource
from tilefold.frontend.parse_base import _MISSING, parse_python
from tilefold.ir.shapes import make_shape
from tilefold.ir.stmt import Program
from tilefold.ir.types import DataType, ScalarType, TensorType, Type, dtype_from_numpy
from tilefold.runtime.tensor_args import TensorSpec
from tilefold.util.gc import no_gc

_KINDS = ("entry", "incore", "inline")
#: keyword options of ``@pl.jit(...)``
JIT_OPTIONS = ("auto_scope",)


class JITFunction:
    """A ``@pl.jit``-decorated function. ``lower(*args)`` -> post-pass ``ir.Program``; ``compile(*args)`` ->
    ``tilefold.compiler.CompiledProgram`` (cached per signature); calling it runs it (``tilefold.runtime``)."""

    def __init__(self, fn: Callable, kind: str = "entry", frame_locals: dict[str, Any] | None = None) -> None:
        self.fn = fn
        # names of the defining scope (closures used only in annotations are not in fn.__closure__)
        self.frame_locals = {k: v for k, v in (frame_locals or {}).items() if k not in fn.__globals__ or
                             fn.__globals__[k] is not v}
        self.kind = kind
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._cache: dict[Any, Any] = {}
        self._source: tuple[ast.FunctionDef, dict[str, Any]] | None = None
        self.compile_count = 0  # how many distinct signatures were compiled (a cache miss each)
        self.options: dict[str, Any] = {}  # @pl.jit(auto_scope=...) as written

    def __repr__(self) -> str:
        return f"<pl.jit{'' if self.kind == 'entry' else '.' + self.kind} {self.__name__}>"

    # ------------------------------------------------------------------ source

    def source(self) -> tuple[ast.FunctionDef, dict[str, Any]]:
        """The function's ast and the Parser arguments that locate it in its file."""
        if self._source is None:
            fn = self.fn
            try:
                lines, start = inspect.getsourcelines(fn)
                filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
            except (OSError, TypeError, tokenize.TokenError) as exc:
                raise ParseError(f"cannot read the source of {fn.__name__}: {exc}",
                                 hint="@pl.jit needs the function's source file; use pl.parse(text) for generated "
                                      "code") from None
            first = lines[0]
            indent = len(first) - len(first.lstrip())
            text = textwrap.dedent("".join(lines))
            file_lines = [ln.rstrip("\n") for ln in linecache.getlines(filename)] or None
            module_globals = fn.__globals__
            closure = {}
            if fn.__closure__:
                closure = {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__, strict=False)
                           if _cell_ok(c)}

            from tilefold.runtime.call_boundary import exact_value  # lazily: tilefold.runtime imports this module

            def read(name: str) -> Any:
                # exact values: an int subclass used as a shape must not get its __mul__ / __eq__ called
                if name in closure:
                    return exact_value(closure[name])
                if name in self.frame_locals:
                    return exact_value(self.frame_locals[name])
                return exact_value(module_globals.get(name, _MISSING))

            def lookup(name: str) -> Any:
                value = read(name)
                if _READS:  # a compile in progress: its cache entry depends on this value
                    _READS[-1].append((read, name, value))
                return value

            aliases = {k for k, v in module_globals.items() if getattr(v, "__name__", None) == "tilefold.language"}
            args = dict(source=text, filename=filename, line_offset=start - 1, col_offset=indent,
                        file_lines=file_lines, const_lookup=lookup, pl_aliases=aliases or {"pl"})
            tree = parse_python(text, filename, line_offset=start - 1, col_offset=indent, lines=file_lines)
            node = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
            if node is None:
                raise ParseError(f"{fn.__name__}: expected a function definition", hint="decorate a def")
            self._source = (node, args)
        return self._source

    def jit_source(self) -> JitSource:
        node, args = self.source()
        return JitSource(self.__name__, self.kind, node, args)

    def _resolver(self) -> Callable[[str], JitSource | None]:
        namespace = self.fn.__globals__

        def resolve(name: str) -> JitSource | None:
            head, *rest = name.split(".")
            obj = namespace.get(head)
            for part in rest:  # module.fn: read from the imported module's namespace (no attribute hook runs)
                obj = vars(obj).get(part) if isinstance(obj, ModuleType) else None
            if isinstance(obj, JITFunction) and obj.kind in ("incore", "inline"):
                return obj.jit_source()
            return None
        return resolve

    # ------------------------------------------------------------------ the call boundary

    def dynamic_names(self) -> list[str]:
        """The ``pl.dynamic`` extents of the signature, by their Python names (read from the ast)."""
        from tilefold.frontend.dsl import DynamicDim

        node, pargs = self.source()
        lookup = pargs["const_lookup"]
        names: list[str] = []
        for p in node.args.args:
            for e in ast.walk(p.annotation) if p.annotation is not None else ():
                if isinstance(e, ast.Name) and isinstance(lookup(e.id), DynamicDim) and e.id not in names:
                    names.append(e.id)
        for b in self._bindings():  # x.bind_dynamic(axis, M): M is a hidden extent too
            if b.dim not in names:
                names.append(b.dim)
        return names

    def _bindings(self) -> list[Any]:
        """The entry's ``x.bind_dynamic(axis, M)`` declarations (``tilefold.frontend.bind_dynamic``)."""
        from tilefold.frontend import bind_dynamic

        if self.kind != "entry":
            return []
        node, pargs = self.source()
        parser = JitParser(**pargs, resolve=self._resolver(), registry={})
        return bind_dynamic.bindings(node, pargs["const_lookup"], parser.error)

    def bind_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """The call's arguments in parameter order, bound and checked as ``tilefold.runtime.call_boundary`` says
        (Python's binding rules, a kind per annotation, a size limit), before anything is parsed or allocated."""
        from tilefold.runtime.call_boundary import bind, check_kinds, check_sizes, check_writable, param_kinds

        node, _ = self.source()
        params = param_kinds(node)
        span = span_of(self)
        values = bind(self.__name__, params, args, dict(kwargs or {}), self.dynamic_names(), span)
        values = check_kinds(self.__name__, params, values, span)
        check_sizes(self.__name__, params, values, span)
        check_writable(self.__name__, params, values, span)
        return values

    # ------------------------------------------------------------------ specialisation

    def signature_of(self, args: tuple[Any, ...]) -> tuple[Type, ...]:
        """The IR types of the call's arguments (arrays -> tensors, numbers -> scalars)."""
        return tuple(_type_of(a, i, self.__name__) for i, a in enumerate(args))

    @no_gc()  # the parse builds a large acyclic tree: collections would only rescan it
    def parse(self, *args: Any) -> Program:
        """The tensor-level program of this entry specialised for ``args`` (no pass has run)."""
        if self.kind != "entry":
            raise ParseError(f"{self.__name__} is a @pl.jit.{self.kind} function: call it from a @pl.jit entry",
                             hint="decorate the entry point with @pl.jit")
        types = self.signature_of(args) if args else None
        node, pargs = self.source()
        registry: dict[Any, Any] = {}
        parser = JitParser(**pargs, resolve=self._resolver(), registry=registry)
        entry = parser.parse_function(self.jit_source(), list(types) if types else None, self.__name__)
        subs = [registry[k] for k in registry.get("__order__", [])]
        return Program(self.__name__, (*subs, entry), span=entry.span)

    def _key(self, args: tuple[Any, ...], config: Any) -> Any:
        """The cache key: argument types with every ``pl.dynamic`` extent left out (one compile for all)."""
        axes = self.dynamic_axes()
        keys = []
        for i, t in enumerate(self.signature_of(args)):
            k = _key_of(t)
            if i in axes and isinstance(t, TensorType) and t.static_shape is not None:
                rank = len(t.static_shape)
                dyn = {ax + rank if ax < 0 else ax for ax in axes[i]}
                k = ("T", tuple(None if ax in dyn else s for ax, s in enumerate(t.static_shape)), t.dtype.name)
            keys.append(k)
        return (tuple(keys), _config_key(config))

    def dynamic_axes(self) -> dict[int, set[int]]:
        """Parameter index -> axes of its annotation that are ``pl.dynamic`` extents (read from the ast)."""
        from tilefold.frontend.dsl import DynamicDim

        node, pargs = self.source()
        lookup = pargs["const_lookup"]
        out: dict[int, set[int]] = {}
        for i, p in enumerate(node.args.args):
            ann = p.annotation
            if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Attribute) \
                    and ann.value.attr in ("Out", "InOut", "In"):
                ann = ann.slice
            if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and ann.slice.elts
                    and isinstance(ann.slice.elts[0], (ast.List, ast.Tuple))):
                continue
            for axis, e in enumerate(ann.slice.elts[0].elts):
                if (isinstance(e, ast.Name) and isinstance(lookup(e.id), DynamicDim)) or (
                        isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "dynamic"):
                    out.setdefault(i, set()).add(axis)
        index = {p.arg: i for i, p in enumerate(node.args.args)}
        for b in self._bindings():  # x.bind_dynamic(axis, M) on a bare pl.Tensor (negative axes: at the call)
            out.setdefault(index[b.param], set()).add(b.axis)
        return out

    def lower(self, *args: Any, config: Any = None, **kwargs: Any) -> Program:
        """Specialise on ``args``, run the tensor-level passes and the default tile pipeline: the post-pass
        ``ir.Program`` (no code generation, nothing cached)."""
        from tilefold.runtime.jit_compile import lower_program

        if args or kwargs:
            args = self.bind_arguments(args, kwargs)
        return lower_program(self.parse(*args), config)

    def compile(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        """The compiled artefact (``CompiledProgram``: ``.program`` / ``.ir``, ``.pto``), cached per signature."""
        from tilefold.runtime.jit_compile import compile_program

        if args or kwargs:
            args = self.bind_arguments(args, kwargs)
        key = self._key(args, config)
        hit = self._cache.get(key)
        if hit is not None and not all(_same_const(r(name), v) for r, name, v in hit[1]):
            hit = None  # a module constant or closure value the kernel read has changed since: compile again
        if hit is None:
            _READS.append([])
            try:
                compiled = compile_program(self.parse(*args), config)
            finally:
                reads = _READS.pop()
            hit = (compiled, tuple(reads))
            self._cache[key] = hit
            self.compile_count += 1
        return hit[0]

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        if self.kind != "entry":
            raise ParseError(f"{self.__name__} is a @pl.jit.{self.kind} function and is never executed",
                             hint="call it from a @pl.jit entry; call the entry with arrays to run it")
        from tilefold.runtime.execute import run_jit

        return run_jit(self, args, config, kwargs)


class _JitDecorator:
    """``pl.jit`` itself: ``@pl.jit``, ``@pl.jit.incore``, ``@pl.jit.inline``."""

    def __call__(self, fn: Callable | None = None, **options: Any) -> Any:
        unknown = sorted(set(options) - set(JIT_OPTIONS))
        if unknown:
            raise ParseError(f"unknown @pl.jit option(s) {unknown}",
                             hint=f"@pl.jit takes {', '.join(o + '=' for o in JIT_OPTIONS)}, or nothing")
        auto_scope = options.get("auto_scope", True)
        if not isinstance(auto_scope, bool):
            raise ParseError(f"@pl.jit(auto_scope=...) must be True or False, got {auto_scope!r}",
                             hint="@pl.jit(auto_scope=False) places runtime scopes by hand with pl.scope()")
        local = _caller_locals()

        def make(f: Callable) -> JITFunction:
            jf = JITFunction(f, "entry", local)
            # PyPTO's runtime-scope placement (which ring a task's buffers come from): no effect on results,
            # and tilefold has no rings; kept so the kernel reports what it asked for
            jf.options = dict(options)
            return jf

        return make if fn is None else make(fn)

    def incore(self, fn: Callable) -> JITFunction:
        return JITFunction(fn, "incore", _caller_locals())

    def inline(self, fn: Callable) -> JITFunction:
        return JITFunction(fn, "inline", _caller_locals())

    def _refuse(self, what: str) -> Callable:
        def deco(fn: Callable) -> Any:
            from tilefold.errors import NotSupportedError

            raise NotSupportedError(f"@pl.jit.{what} is not supported by tilefold",
                                    hint="tilefold models one chip: use @pl.jit, @pl.jit.incore or @pl.jit.inline")
        return deco

    @property
    def host(self) -> Callable:
        return self._refuse("host")

    def opaque(self, fn: Callable) -> JITFunction:
        """PyPTO's Opaque sub-function (orchestration code: loops and ``pl.at`` scopes): tilefold specialises the
        orchestration of a jit program at parse time, so it is spliced into its caller like an inline helper (the
        same launches, in the same order)."""
        return JITFunction(fn, "inline", _caller_locals())


jit = _JitDecorator()


def _caller_locals() -> dict[str, Any]:
    """The locals of the scope that applied the decorator (read, never evaluated), unless it is a module."""
    import sys

    frame = sys._getframe(2)
    return {} if frame.f_locals is frame.f_globals else dict(frame.f_locals)


def _cell_ok(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _dtype_of(arr: Any, where: str) -> DataType:
    import numpy as np

    dt = np.dtype(arr.dtype)
    if not dt.isnative:  # a byte-swapped array ('>f4' on a little-endian host) holds the same values
        dt = dt.newbyteorder("=")
    d = dtype_from_numpy(dt)
    if d is not None:
        return d
    raise ParseError(f"{where}: unsupported array dtype {dt}", hint="use float32 / float16 / bfloat16 / int32 arrays")


def _type_of(a: Any, i: int, fname: str) -> Type:
    from tilefold.runtime.arrays import as_numpy, is_array

    if isinstance(a, TensorSpec):
        return TensorType(make_shape(a.shape), a.dtype)
    if is_array(a):
        arr = as_numpy(a, f"{fname} argument #{i}")
        return TensorType(make_shape(tuple(int(s) for s in arr.shape)), _dtype_of(arr, f"{fname} argument #{i}"))
    if type(a).__module__ == "numpy" and hasattr(a, "item") and getattr(a, "ndim", None) == 0:
        a = a.item()  # a numpy scalar (np.float32(2.0)) is a number
    if isinstance(a, bool):
        return ScalarType(DataType.BOOL)
    if isinstance(a, int):
        return ScalarType(DataType.INDEX)
    if isinstance(a, float):
        return ScalarType(DataType.FP32)
    raise ParseError(f"{fname}: argument #{i} is a {type(a).__name__}",
                     hint="pass numpy arrays (or torch tensors), Python numbers, or tilefold.runtime.TensorSpec")


#: the names (reader, name, value) each compile in progress read from the kernels' modules and closures
_READS: list[list[tuple[Callable[[str], Any], str, Any]]] = []


def _same_const(a: Any, b: Any) -> bool:
    """Is a constant the kernel read unchanged? Numbers, strings and lists of them by value (exactly: ``1`` and
    ``1.0`` differ), anything else (a pl.dynamic, a module, a kernel) by identity."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_const(x, y) for x, y in zip(a, b, strict=True))
    return isinstance(a, (int, float, str, bytes)) and a == b


def _key_of(t: Type) -> Any:
    if isinstance(t, TensorType):
        return ("T", t.static_shape, t.dtype.name)
    return ("S", t.dtype.name) if isinstance(t, ScalarType) else str(t)


def _config_key(config: Any) -> Any:
    if config is None:
        from tilefold.runtime.config import RunConfig

        config = RunConfig()  # no config is the default config
    return getattr(config, "cache_key", lambda: id(config))()


def span_of(fn: JITFunction) -> Span:
    node, args = fn.source()
    return Span(args["filename"], node.lineno + args["line_offset"], 1, "")


__all__ = ["JITFunction", "TensorSpec", "jit"]


def _jit_kind(fn: ast.FunctionDef, pl_names: frozenset[str] = frozenset({"pl"})) -> str | None:
    """The kind a decorator gives, read from its text: ``@pl.jit`` an entry; ``@pl.jit.incore`` a kernel;
    ``@pl.jit.inline`` / ``@pl.jit.opaque`` / ``@pl.inline`` a helper spliced at its call sites (the object form's
    kinds, ``jit.inline`` / ``jit.opaque`` / ``language.inline``)."""
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "jit":
            return "entry"
        if isinstance(target, ast.Name) and target.id == "jit":
            return "entry"
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute) \
                and target.value.attr == "jit" and target.attr in ("incore", "inline", "opaque"):
            return "incore" if target.attr == "incore" else "inline"
        if isinstance(target, ast.Attribute) and target.attr == "inline" and isinstance(target.value, ast.Name) \
                and target.value.id in pl_names:
            return "inline"
    return None


def _pl_names(tree: ast.Module) -> frozenset[str]:
    """The names the module's imports give the language package (``pl`` and its aliases)."""
    names = {"pl"}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            names.update(a.asname for a in stmt.names if a.name.endswith(".language") and a.asname)
        elif isinstance(stmt, ast.ImportFrom):
            names.update(a.asname or a.name for a in stmt.names if a.name == "language")
    return frozenset(names)


def jit_functions(tree: ast.Module) -> dict[str, tuple[str, ast.FunctionDef]]:
    """name -> (kind, def) of the ``@pl.jit*`` (and ``@pl.inline``) functions at module level."""
    out = {}
    pl_names = _pl_names(tree)
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            kind = _jit_kind(stmt, pl_names)
            if kind is not None:
                out[stmt.name] = (kind, stmt)
    return out


def has_jit_entry(tree: ast.Module) -> bool:
    """Whether the module defines a ``@pl.jit`` entry (helpers alone belong to a program-form text)."""
    return any(kind == "entry" for kind, _f in jit_functions(tree).values())


@no_gc()  # as JITFunction.parse
def parse_jit_text(text: str, filename: str = "<string>", entry: str | None = None,
                   arg_types: dict[str, Type] | None = None, tree: ast.Module | None = None) -> Program:
    """The tensor-level program of a ``@pl.jit`` entry in source text, as ``JITFunction.parse`` gives it: no pass
    has run (its ``pl.at`` scopes are outlined by the pipeline, ``passes.pipeline.pipeline_for``). Parameters need
    full annotations (no call arguments to specialise on); module constants are folded statically. ``tree`` is
    the text's ast when the caller has parsed it already."""
    if tree is None:
        tree = parse_python(text, filename)
    fns = jit_functions(tree)
    entries = [n for n, (kind, _f) in fns.items() if kind == "entry"]
    if entry is not None:
        entries = [n for n in entries if n == entry]
    if len(entries) != 1:
        raise ParseError(f"expected one @pl.jit entry{f' named {entry!r}' if entry else ''}, found "
                         f"{len(entries)}{': ' + ', '.join(entries) if entries else ''}",
                         span=Span(filename, 1, 1, ""),
                         hint="choose one: tilefold run FILE --kernel NAME, or pl.parse(text, program_name=NAME)")
    base = JitParser(text, filename, resolve=lambda name: None, registry={})
    dynamic: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            base._note_import(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            dim = _dynamic_constant(stmt, base.pl)
            if dim is not None:
                dynamic[dim[0]] = dim[1]
                continue
            base._module_const(stmt)
    from tilefold.frontend.annotations import annotation_sources

    aliases = annotation_sources(base.__dict__.get("_nonconst_names", {}))  # T = pl.Tensor[...] used as x: T
    args = dict(source=text, filename=filename, consts=dict(base.consts), pl_aliases=set(base.pl),
                const_lookup=lambda name: dynamic.get(name, aliases.get(name, _MISSING)))

    def resolve(name: str) -> JitSource | None:
        got = fns.get(name)
        if got is None or got[0] == "entry":
            return None
        return JitSource(name, got[0], got[1], args)

    registry: dict[Any, Any] = {}
    parser = JitParser(**args, resolve=resolve, registry=registry)
    name = entries[0]
    node = fns[name][1]
    types = [(arg_types or {}).get(a.arg) for a in node.args.args] if arg_types else None
    unknown = sorted(set(arg_types or {}) - {a.arg for a in node.args.args})
    if unknown:
        raise ParseError(f"{name} has no parameter(s) {unknown}", span=Span(filename, node.lineno, 1, ""),
                         hint="parameters: " + ", ".join(a.arg for a in node.args.args))
    fn = parser.parse_function(JitSource(name, "entry", node, args), types, name)
    subs = [registry[k] for k in registry.get("__order__", [])]
    return Program(name, (*subs, fn), span=fn.span)


def _dynamic_constant(stmt: ast.Assign | ast.AnnAssign, pl_names: Any) -> tuple[str, Any] | None:
    """``N = pl.dynamic("N")`` at module level, recognised from its text (the file is never run): (name, dim)."""
    from tilefold.frontend.dsl import DynamicDim

    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    value = stmt.value
    if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not isinstance(value, ast.Call):
        return None
    f = value.func
    if not (isinstance(f, ast.Attribute) and f.attr == "dynamic" and isinstance(f.value, ast.Name)
            and f.value.id in pl_names and len(value.args) == 1 and not value.keywords
            and isinstance(value.args[0], ast.Constant) and isinstance(value.args[0].value, str)):
        return None
    return targets[0].id, DynamicDim(value.args[0].value)

