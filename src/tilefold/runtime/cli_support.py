"""``tilefold run FILE.py`` on a file of ``@pl.jit`` kernels: the file is parsed as text (never imported or
run), one entry is picked (``--kernel NAME``), bare ``pl.Tensor`` parameters get shapes from
``--shape name=16x128[:fp16]``, and the tensor-level program is checked on random inputs: golden of the
tensor-level program against the simulator of the lowered one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.ir.types import DataType, TensorType, make_shape


def is_jit_file(path: str | Path) -> bool:
    """Does the file hold ``@pl.jit`` kernels (and no ``@pl.program``)? Source Python cannot parse is reported
    here, located, by the parser's own guard."""
    from tilefold.language.jit import jit_functions
    from tilefold.language.parse_base import parse_python

    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError):
        return False  # the program-form reader reports the file it cannot read
    return bool(jit_functions(parse_python(text, str(path)))) and "@pl.program" not in text


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
    from tilefold.language.jit import parse_jit_text
    from tilefold.testing import run_and_compare

    p = Path(path)
    program = parse_jit_text(p.read_text(), str(p), kernel, parse_shapes(shapes) or None)
    kwargs: dict[str, Any] = {"block_dim": block_dim, "skip_passes": tuple(skip_passes), "options": options or {}}
    if target:
        kwargs["target"] = target
    return program, run_and_compare(program, "random", seed=seed, **kwargs)
