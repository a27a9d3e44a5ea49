"""tilefold's function-length limit and the check that enforces it.

Every function and method under ``src/tilefold`` (nested ones too: a nested function counts on its own and as
part of the function around it) must span at most ``LIMIT`` lines, from its ``def`` line to its last line,
docstring and comments included. A longer function is split where a name explains each part (the standard in
HELPERS.md asks for ~80 lines; the check fails past 100).

``python tools/function_length.py`` prints every function over the limit and exits 1 when there is one that
is not on ``ALLOWED``; ``tests/architecture/test_function_length.py`` runs the same check in ``make test``.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
LIMIT = 100

# Functions allowed over the limit ("module:qualified.name"). Empty: every function is within it. An entry
# that is no longer over the limit fails the check too, so the list cannot go stale.
ALLOWED: set[str] = set()


@dataclass(frozen=True)
class LongFunction:
    key: str  # "module:qualified.name"
    path: Path
    line: int
    length: int

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.key} is {self.length} lines (limit {LIMIT})"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _functions(tree: ast.AST, prefix: str = ""):
    """``(qualified name, def node)`` of every function in ``tree``, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{node.name}"
            yield name, node
            yield from _functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def scan_source(source: str, module: str, path: Path, limit: int = LIMIT) -> list[LongFunction]:
    """The functions of one module's source longer than ``limit`` lines."""
    found = []
    for name, node in _functions(ast.parse(source)):
        length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
        if length > limit:
            found.append(LongFunction(f"{module}:{name}", path, node.lineno, length))
    return found


def long_functions(root: Path = ROOT, limit: int = LIMIT) -> list[LongFunction]:
    """Every function under ``root`` longer than ``limit`` lines, longest first."""
    found = []
    for path in sorted(root.rglob("*.py")):
        found += scan_source(path.read_text(encoding="utf-8"), module_name(path, root), path, limit)
    return sorted(found, key=lambda f: (-f.length, f.key))


@dataclass
class Report:
    over: list[LongFunction]  # over the limit and not allowed
    allowed: list[LongFunction]  # over the limit, on ALLOWED
    stale: list[str]  # ALLOWED entries that are no longer over the limit (or no longer exist)

    @property
    def ok(self) -> bool:
        return not self.over and not self.stale


def check(root: Path = ROOT, allowed: set[str] = ALLOWED, limit: int = LIMIT) -> Report:
    found = long_functions(root, limit)
    keys = {f.key for f in found}
    return Report([f for f in found if f.key not in allowed], [f for f in found if f.key in allowed],
                  sorted(allowed - keys))


def main() -> int:
    report = check()
    for f in report.over:
        print(f"too long: {f.describe()}")
    for f in report.allowed:
        print(f"allowed for now: {f.describe()}")
    for key in report.stale:
        print(f"stale allow-list entry (no longer over {LIMIT} lines): {key}: remove it from ALLOWED")
    print(f"{len(report.over)} functions over {LIMIT} lines, {len(report.allowed)} allowed for now, "
          f"{len(report.stale)} stale allow-list entries")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
