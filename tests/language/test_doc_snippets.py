"""The ```python blocks of README.md and docs/ work as written.

- A complete script (it imports ``tilefold.language``) runs, from the repository root, as a file: its own assertions and
  calls are the check (a ``@pl.jit`` kernel it calls is compiled and simulated).
- A ``@pl.program`` block parses with ``pl.parse``, compiles, and its device run matches golden.
- A ``@pl.jit`` fragment (no imports: an illustration inside a page) is completed with the ``pl`` import, each
  entry is specialised on small FP32 arrays, lowered, compiled and simulated, and must match golden.

Other blocks are IR fragments (before / after pictures of a pass) and are not programs.
"""

from __future__ import annotations

import ast
import inspect
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.runtime.jit import JITFunction
from tilefold.runtime.jit_compile import outlined
from tilefold.testing import run_and_compare

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")))
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SMALL = (16, 64)  # the shape a bare ``pl.Tensor`` parameter of a fragment is specialised on


def _imports_pl(code: str) -> bool:
    """Does the block import ``tilefold.language`` itself (a complete script or program, not a fragment)?"""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Import) and any(a.name == "tilefold.language" for a in n.names)
               or isinstance(n, ast.ImportFrom) and n.module == "tilefold.language" for n in tree.body)


def _blocks(kind: str) -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for i, match in enumerate(FENCE.finditer((ROOT / doc).read_text(encoding="utf-8"))):
            code = match.group(1)
            script = _imports_pl(code)
            if kind == "program" and script and "@pl.program" in code:
                found.append((f"{doc}#{i}", code))
            elif kind == "script" and script and "@pl.program" not in code:
                found.append((f"{doc}#{i}", code))
            elif kind == "jit-fragment" and not script and "@pl.jit" in code:
                found.append((f"{doc}#{i}", code))
    return found


def _ids(blocks):
    return [name for name, _ in blocks]


def test_there_are_snippets_to_check():
    assert {name.split("#")[0] for name, _ in _blocks("program")} >= {"docs/dsl.md"}
    scripts = _blocks("script")
    assert {name.split("#")[0] for name, _ in scripts} >= {"README.md", "docs/dsl.md"}
    assert sum("@pl.jit" in code for _, code in scripts) >= 2  # the README's and the DSL page's softmax
    assert _blocks("jit-fragment")


@pytest.mark.parametrize("name, code", _blocks("script"), ids=_ids(_blocks("script")))
def test_doc_script_runs(name, code, tmp_path, monkeypatch, capsys):
    path = tmp_path / (re.sub(r"\W", "_", name) + ".py")  # a file: @pl.jit reads its kernels' source
    path.write_text(code, encoding="utf-8")
    monkeypatch.chdir(ROOT)  # the scripts name example files relative to the checkout
    namespace = runpy.run_path(str(path), run_name="__doc_snippet__")
    capsys.readouterr()
    for fn in (v for v in namespace.values() if isinstance(v, JITFunction) and v.kind == "entry"):
        assert fn.compile_count >= 1, f"{name}: the @pl.jit kernel {fn.__name__} is never run"


@pytest.mark.parametrize("name, code", _blocks("program"), ids=_ids(_blocks("program")))
def test_doc_program_compiles_and_matches_golden(name, code):
    program = pl.parse(code, filename=name)
    assert program.functions
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, f"{name}: {report.summary()}"


@pytest.mark.parametrize("name, code", _blocks("jit-fragment"), ids=_ids(_blocks("jit-fragment")))
def test_doc_jit_fragment_lowers_compiles_and_matches_golden(name, code, tmp_path):
    path = tmp_path / (re.sub(r"\W", "_", name) + ".py")
    path.write_text("import tilefold.language as pl\n\n" + code, encoding="utf-8")
    namespace = runpy.run_path(str(path), run_name="__doc_snippet__")
    entries = [v for v in namespace.values() if isinstance(v, JITFunction) and v.kind == "entry"]
    assert entries, f"{name}: no @pl.jit entry"
    for fn in entries:
        n_params = len(inspect.signature(fn.__wrapped__).parameters)
        rng = np.random.default_rng(0)
        args = [rng.uniform(-1, 1, SMALL).astype(np.float32) for _ in range(n_params)]
        program = outlined(fn.parse(*args))  # golden runs the outlined tensor-level program
        report = run_and_compare(program, "random")
        assert report.fault is None and report.matches, f"{name}: {fn.__name__}: {report.summary()}"
