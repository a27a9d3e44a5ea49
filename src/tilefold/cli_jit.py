"""``tilefold run FILE.py`` on a file of ``@pl.jit`` kernels: the file is parsed as text (never imported or
run), one entry is picked (``--kernel NAME``), bare ``pl.Tensor`` parameters get shapes from
``--shape name=16x128[:fp16]``, and the tensor-level program is checked on random inputs: golden of the
tensor-level program against the simulator of the lowered one."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.shapes import make_shape
from tilefold.ir.types import DataType, TensorType


def is_jit_file(path: str | Path) -> bool:
    from tilefold.runtime.jit import jit_functions

    try:
        text = Path(path).read_text()
        return bool(jit_functions(ast.parse(text))) and "@pl.program" not in text
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return False


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


def run_jit_file(path: str | Path, kernel: str | None, shapes: list[str], seed: int = 0, target: str | None = None,
                 block_dim: int = 1, skip_passes: tuple[str, ...] = (), options: dict[str, Any] | None = None) -> Any:
    """(program, report) of one jit entry of ``path`` on random inputs (``tilefold.testing.run_and_compare``)."""
    from tilefold.runtime.jit import parse_jit_text
    from tilefold.testing import run_and_compare

    p = Path(path)
    program = parse_jit_text(p.read_text(), str(p), kernel, parse_shapes(shapes) or None)
    kwargs: dict[str, Any] = {"block_dim": block_dim, "skip_passes": tuple(skip_passes), "options": options or {}}
    if target:
        kwargs["target"] = target
    return program, run_and_compare(program, "random", seed=seed, **kwargs)
