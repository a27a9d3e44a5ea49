"""Helpers shared by the DSL tests (imported as a plain module: pytest puts this directory on sys.path)."""

from __future__ import annotations

import pytest

import tilefold.language as pl
from tilefold import ir
from tilefold.errors import TilefoldError


def roundtrip(program: ir.Program) -> str:
    """print -> parse -> structurally equal, and the printed text is a fixed point. Returns the text."""
    text = ir.python_print(program)
    again = pl.parse(text)
    ir.assert_structural_equal(program, again)
    assert ir.python_print(again) == text
    return text


def parse_error(src: str, exc: type[TilefoldError] = TilefoldError) -> TilefoldError:
    with pytest.raises(exc) as info:
        pl.parse(src, "kernel.py")
    return info.value
