"""Running the ``@pl.jit`` example programs (``examples/jit``) for ``tilefold demo``: each file runs as
``python FILE.py`` would and must pass its own checks against numpy."""

from __future__ import annotations

import contextlib
import io
import runpy
import time
from pathlib import Path

from tilefold.runtime.jit import JITFunction


def run_examples(directory: Path) -> list[tuple[tuple[str, str, str, str], bool]]:
    """One row per example file: (file, jit kernels, result, seconds), ok."""
    rows = []
    for path in sorted(directory.glob("*.py")):
        start = time.perf_counter()
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                ns = runpy.run_path(str(path), run_name="__main__")
            n = sum(1 for v in ns.values() if isinstance(v, JITFunction))
            rows.append(((path.name, str(n), out.getvalue().strip().splitlines()[-1],
                          f"{time.perf_counter() - start:.1f}"), True))
        except Exception as exc:  # noqa: BLE001 - the demo reports every failure and continues
            rows.append(((path.name, "-", f"FAILED: {type(exc).__name__}: {str(exc).splitlines()[0]}",
                          f"{time.perf_counter() - start:.1f}"), False))
    return rows
