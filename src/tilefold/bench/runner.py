"""Discovery and in-process execution of the benchmark scripts in ``benchmarks/`` (``tilefold bench``).

A benchmark is a ``benchmarks/<name>.py`` file (names starting with ``_`` are helpers, not benchmarks).
It either exposes ``main(argv=None) -> int`` — called with ``argv`` — or is a plain script, run as
``__main__``. Benchmarks print their own tables; the runner prints a header per benchmark and a final
summary, and returns a process exit code (0 when every benchmark succeeded).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import runpy
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from tilefold.bench.stats import print_table


def discover(root: str | Path = "benchmarks") -> dict[str, Path]:
    """Benchmark name -> script path, sorted by name."""
    path = Path(root)
    if not path.is_dir():
        return {}
    return {p.stem: p for p in sorted(path.glob("*.py")) if not p.stem.startswith("_")}


def _defines_main(path: Path) -> bool:
    """True when the script defines a top-level ``main`` function (checked without executing it)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError:
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main"
               for node in tree.body)


def _run_one(name: str, path: Path, argv: Sequence[str] | None) -> int:
    """Run one benchmark in-process, with the checkout (the parent of ``benchmarks/``) as the working
    directory, as ``python benchmarks/<name>.py`` run from the repository root would."""
    old_cwd = os.getcwd()
    os.chdir(path.parent.parent)
    try:
        return _run_in_process(name, path, argv)
    finally:
        os.chdir(old_cwd)


def _run_in_process(name: str, path: Path, argv: Sequence[str] | None) -> int:
    added = str(path.parent) not in sys.path
    if added:
        sys.path.insert(0, str(path.parent))  # let a benchmark import its helpers (benchmarks/_common.py)
    module_name = f"tilefold_benchmark_{name}"
    try:
        if _defines_main(path):
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load benchmark {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
            # never None: a benchmark's argparse would otherwise read the tilefold command line
            rc = module.main(list(argv or ()))
        else:
            old_argv = sys.argv
            sys.argv = [str(path), *(argv or [])]
            try:
                runpy.run_path(str(path), run_name="__main__")
            finally:
                sys.argv = old_argv
            rc = 0
    except SystemExit as exc:
        code = exc.code
        rc = code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.modules.pop(module_name, None)
        if added:
            sys.path.remove(str(path.parent))
    return int(rc or 0)


def find_root(root: str | Path = "benchmarks") -> Path:
    """``root`` if it is a directory; for the default relative name also look next to the checkout the
    package was installed from (so ``tilefold bench`` works from any directory of the repo)."""
    path = Path(root)
    if path.is_dir() or path.is_absolute():
        return path
    for parent in [Path.cwd(), *Path.cwd().parents, *Path(__file__).resolve().parents]:
        candidate = parent / path
        if candidate.is_dir():
            return candidate
    return path


def run_benchmarks(names: list[str] | None = None, root: str | Path = "benchmarks",
                   argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks called ``names`` (all when None or empty; ``x`` and ``x.py`` both name
    ``benchmarks/x.py``) found under ``root``. Returns 0 when all succeed, 1 when one fails, 2 when a
    requested name does not exist or there are no benchmarks."""
    root = find_root(root)
    names = [n[:-3] if n.endswith(".py") else n for n in (names or [])]
    root = root.resolve()
    found = discover(root)
    if not found:
        print(f"tilefold bench: no benchmarks found in {Path(root).resolve()}", file=sys.stderr)
        return 2
    selected = list(found) if not names else list(names)
    unknown = [n for n in selected if n not in found]
    if unknown:
        print(f"tilefold bench: unknown benchmark(s) {', '.join(unknown)}; available: {', '.join(found)}",
              file=sys.stderr)
        return 2
    summary = []
    worst = 0
    from tilefold.terminal import progress  # a bar over the benchmarks on a terminal; plain output when piped

    for name in progress(selected, "benchmarks"):
        print(f"=== benchmark {name} ({found[name]}) ===", flush=True)
        start = time.perf_counter()
        args = list(argv or ())
        if "--plot" in args and "--plot" not in found[name].read_text():
            print(f"(benchmark {name} draws no plot; running it without --plot)")
            args.remove("--plot")
        try:
            rc = _run_one(name, found[name], args)
        except Exception:  # noqa: BLE001  (a failing benchmark must not stop the others)
            traceback.print_exc()
            rc = 1
        elapsed = time.perf_counter() - start
        status = "ok" if rc == 0 else f"failed (exit {rc})"
        summary.append([name, status, elapsed])
        if rc != 0:
            worst = 1
        print(flush=True)
    print_table(["benchmark", "status", "seconds"], summary, title="=== summary ===")
    return worst


def main(names: Sequence[str] | None = None, argv: Sequence[str] | None = None) -> int:
    """Entry point used by ``tilefold bench [NAMES...] [--plot]`` (``argv`` goes to every benchmark)."""
    return run_benchmarks(list(names) if names else None, argv=argv)
