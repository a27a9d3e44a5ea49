"""Error types a user can cause. Every one carries a source location (when known) and a fix hint."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A source location: file, 1-based line and column, and the source line text when known."""

    filename: str = "<unknown>"
    line: int = 0
    column: int = 0
    source_line: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"

    def render(self) -> str:
        """Location plus the offending line with a caret under the column."""
        text = str(self)
        if self.source_line:
            caret = " " * max(self.column - 1, 0) + "^"
            text += f"\n    {self.source_line.rstrip()}\n    {caret}"
        return text


UNKNOWN_SPAN = Span()


class TilefoldError(Exception):
    """Base of every error tilefold reports to a user."""

    def __init__(self, message: str, *, span: Span | None = None, hint: str | None = None) -> None:
        self.message = message
        self.span = span
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        parts = []
        if self.span is not None and self.span.line:
            parts.append(f"{self.span.render()}\n")
        parts.append(f"error: {self.message}")
        if self.hint:
            parts.append(f"\nhint: {self.hint}")
        return "".join(parts)


class ParseError(TilefoldError):
    """The `pl` source is malformed or uses something the DSL does not know."""


class TypeInferenceError(TilefoldError, TypeError):
    """An op was applied to operands of the wrong kind, rank, dtype or memory."""


class VerificationError(TilefoldError):
    """An IR property a pass requires or produces does not hold."""


class NotSupportedError(TilefoldError):
    """A valid program uses a feature tilefold does not implement (yet)."""


class CustomOpError(TilefoldError):
    """A custom op is malformed, unregistered or registered twice."""


class PartialCodegenError(TilefoldError):
    """Code generation failed for part of a program (PyPTO's name). tilefold generates a program whole or not at
    all: ``tilefold.ir.compile`` raises this when codegen rejects a function of an otherwise compiled program."""
