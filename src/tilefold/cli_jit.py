"""``tilefold run FILE.py`` on a file of ``@pl.jit`` kernels: the file is parsed as text (never imported or
run), one entry is picked (``--kernel NAME``), bare ``pl.Tensor`` parameters get shapes from
``--shape name=16x128[:fp16]`` (a ``pl.dynamic`` parameter too: its extents come from the shape given), and the
tensor-level program is checked on random inputs: golden of the tensor-level program against the simulator of the
lowered one. Sizes are checked from the shapes before any input is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, TensorType


def is_jit_file(path: str | Path) -> bool:
    """Does the file hold ``@pl.jit`` kernels (and no ``@pl.program``)? Source Python cannot parse is reported
    here, located, by the parser's own guard."""
    from tilefold.frontend.parse_base import parse_python
    from tilefold.runtime.jit import has_jit_entry

    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError):
        return False  # the program-form reader reports the file it cannot read
    if "jit" not in text or "@pl.program" in text:
        return False
    return has_jit_entry(parse_python(text, str(path)))


def parse_shapes(items: list[str]) -> dict[str, TensorType]:
    out: dict[str, TensorType] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        dims, _, dt = spec.partition(":")
        try:
            shape = tuple(int(d) for d in dims.lower().split("x"))
            if not sep or not name.strip() or any(d <= 0 for d in shape):
                raise ValueError
            dtype = DataType[dt.strip().upper()] if dt else DataType.FP32
        except (ValueError, KeyError):
            raise TilefoldError(f"--shape expects NAME=D0xD1[:dtype], got {item!r}",
                                hint="e.g. --shape a=16x128 --shape w=128x64:fp16") from None
        out[name.strip()] = TensorType(make_shape(shape), dtype)
    return out


def _fixed_scalars(entry: Any, settings: list[str], convert: Any) -> dict[str, Any]:
    """``--set NAME=VALUE`` for the entry's scalar parameters (``convert(name, text, dtype)`` reads a value)."""
    from tilefold.ir.types import ScalarType

    types = {p.name: p.type.dtype for p in entry.params if isinstance(p.type, ScalarType)}
    out: dict[str, Any] = {}
    for item in settings:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or name not in types:
            raise TilefoldError(f"--set {item}: {entry.name} has no scalar parameter {name!r}",
                                hint=f"the scalar parameters of {entry.name} are: {', '.join(types) or 'none'} "
                                     "(pl.dynamic extents come from --shape)")
        out[name] = convert(name, text.strip(), types[name])
    return out


def _concrete_inputs(program: Any, given: dict[str, TensorType], seed: int, fixed: dict[str, Any] | None = None
                     ) -> dict[str, Any]:
    """Random inputs of the entry, sizes checked first. ``pl.dynamic`` extents (hidden scalar parameters of the
    entry) take their values from the ``--shape`` of the tensors that carry them."""
    from tilefold.golden import select_entry
    from tilefold.ir.expr import ConstInt
    from tilefold.ir.types import ScalarType
    from tilefold.runtime.call_boundary import MAX_ARGUMENT_BYTES, logical_bytes
    from tilefold.runtime.execute import hidden_extents
    from tilefold.testing import random_inputs

    entry = select_entry(program, None)
    dims: dict[str, int] = {}
    for name, where in hidden_extents(entry).items():
        seen = {}
        for pname, axis in where:
            t = given.get(pname)
            if t is not None and t.static_shape is not None and axis < len(t.static_shape):
                seen[pname] = t.static_shape[axis]
        if not seen:
            carriers = ", ".join(p for p, _a in where)
            raise TilefoldError(f"the pl.dynamic extent {name!r} of {entry.name} has no value",
                                hint=f"give the shape of a tensor that carries it: --shape {where[0][0]}=...  "
                                     f"(carried by {carriers})")
        if len(set(seen.values())) > 1:
            raise TilefoldError(f"the --shape values disagree on the pl.dynamic extent {name!r}: " +
                                ", ".join(f"{p} gives {v}" for p, v in seen.items()),
                                hint=f"give every tensor that carries {name!r} the same extent on that axis")
        dims[name] = next(iter(seen.values()))
    values = {p: dims.get(p) for p in dims}
    for p in entry.params:  # sizes from the shapes alone: nothing is allocated before this check
        t = p.type
        if not isinstance(t, TensorType):
            continue
        shape = [e.value if isinstance(e, ConstInt) else values.get(getattr(e, "name", ""), 0) or 0 for e in t.shape]
        size = logical_bytes(shape, t.dtype.itemsize)
        if size > MAX_ARGUMENT_BYTES:
            raise TilefoldError(f"parameter {p.name} of {entry.name} is {shape} {t.dtype.name}: {size:,} bytes, above "
                                f"the {MAX_ARGUMENT_BYTES // 2**20} MiB limit for run inputs",
                                span=p.span if p.span.line else None,
                                hint="tilefold simulates byte by byte: run the kernel on a smaller tensor")
    scalars = {p.name: dims[p.name] for p in entry.params if isinstance(p.type, ScalarType) and p.name in dims}
    for name, value in (fixed or {}).items():
        if name in dims:
            raise TilefoldError(f"--set {name}=...: {name!r} is a pl.dynamic extent, read from the tensors' shapes",
                                hint="give it through --shape of a tensor that carries it")
        scalars[name] = value
    return random_inputs(program, None, seed, scalars=scalars)


def parse_jit_file(path: str | Path, kernel: str | None, shapes: list[str]) -> Any:
    """The tensor-level program of one jit entry of ``path`` as parsed (``tilefold compile`` / ``opt``: the
    pipeline outlines its scopes)."""
    from tilefold.runtime.jit import parse_jit_text

    p = Path(path)
    return parse_jit_text(p.read_text(), str(p), kernel, parse_shapes(shapes) or None)


def run_jit_file(path: str | Path, kernel: str | None, shapes: list[str], seed: int = 0, target: str | None = None,
                 block_dim: int = 1, skip_passes: tuple[str, ...] = (), options: dict[str, Any] | None = None,
                 max_steps: int | None = None, settings: list[str] | None = None, convert: Any = None,
                 codegen: str = "strict", dump_args: int = 0) -> Any:
    """(program, report) of one jit entry of ``path`` on random inputs (``tilefold.testing.run_and_compare``).
    ``shapes``: ``NAME=D0xD1[:dtype]`` for bare ``pl.Tensor`` parameters and for ``pl.dynamic`` ones (whose
    extents, hidden scalar parameters of the kernel, are read from these shapes as a call reads them)."""
    from tilefold.runtime.jit import parse_jit_text
    from tilefold.testing import run_and_compare

    p = Path(path)
    given = parse_shapes(shapes)
    from tilefold.golden import select_entry
    from tilefold.testing.harness import reference_program

    program = reference_program(parse_jit_text(p.read_text(), str(p), kernel, given or None))

    fixed = _fixed_scalars(select_entry(program, None), list(settings or ()), convert or (lambda n, t, d: t))
    inputs = _concrete_inputs(program, given, seed, fixed)
    kwargs: dict[str, Any] = {"block_dim": block_dim, "skip_passes": tuple(skip_passes), "options": options or {},
                              "codegen": codegen, "dump_args": dump_args}
    if target:
        kwargs["target"] = target
    if max_steps is not None:
        kwargs["max_steps"] = max_steps
    return program, run_and_compare(program, inputs, seed=seed, **kwargs)
