"""Terminal output of the command line and the demo, through ``rich`` when it helps.

On a terminal (stdout is a tty and ``NO_COLOR`` is not set) tables are drawn by rich with colour, and long
steps show a progress bar or a spinner on stderr. When the output is piped or redirected, or ``NO_COLOR`` is
set, the same functions print plain aligned text (what scripts, tests and FileCheck read) and draw no
progress. If rich is not installed the plain form is used everywhere.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: words coloured in result cells (rich markup style per word)
_STYLES = {"MATCH": "bold green", "ok": "green", "correct": "green", "yes": "green", "MISMATCH": "bold red",
           "DEVICE FAULT": "bold red", "wrong": "red", "trap": "red", "NO": "red", "FAILED": "bold red",
           "rejected": "yellow"}


def _rich():
    try:
        import rich  # noqa: F401
    except ImportError:
        return None
    return rich


def fancy(stream: Any = None) -> bool:
    """Draw with rich on ``stream`` (default stdout)? Only on a terminal, without NO_COLOR, with rich."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb" or _rich() is None:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def _styled(cell: str) -> Any:
    from rich.text import Text

    for word, style in _STYLES.items():
        if cell == word or cell.startswith(word + ":") or cell.startswith(word + " "):
            return Text(cell, style=style)
    return Text(cell)


def key_value_table(rows: Sequence[tuple[str, str]]) -> str | None:
    """Print a two-column key / value table: rich on a terminal (returns None), else returns plain text."""
    if not fancy():
        width = max((len(k) for k, _ in rows), default=0)
        return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for k, v in rows:
        table.add_row(k, _styled(v))
    _console().print(table)
    return None


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A titled table with a header row; cells are printed in full (never cut)."""
    if not fancy():
        widths = [len(h) for h in header]
        for r in rows:
            widths = [max(w, len(c)) for w, c in zip(widths, r, strict=True)]
        print(f"\n{title}")
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        return
    from rich.table import Table

    table = Table(title=title, title_justify="left", title_style="bold")
    for h in header:
        table.add_column(h, overflow="fold")
    for r in rows:
        table.add_row(*(_styled(c) for c in r))
    console = _console()
    console.print()
    console.print(table)


def progress(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate ``items`` with a progress bar on stderr when it is a terminal (transient: it disappears when
    done); plain iteration otherwise."""
    if not fancy(sys.stderr):
        yield from items
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=_console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)


@contextlib.contextmanager
def status(message: str) -> Iterator[None]:
    """A spinner with ``message`` on stderr while a long step runs (terminal only)."""
    if not fancy(sys.stderr):
        yield
        return
    with _console(stderr=True).status(message):
        yield


__all__ = ["fancy", "key_value_table", "print_table", "progress", "status"]
