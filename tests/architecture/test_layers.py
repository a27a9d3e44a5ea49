"""The layer contract (tools/layers.py): every import statement, lazy ones included (only ``if TYPE_CHECKING:``
bodies are skipped), runs downward; no module or package cycle; ``import tilefold.ir`` / ``tilefold.sim`` load
neither the front end nor the runtime."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import layers  # noqa: E402


def test_no_cycles_and_no_upward_imports():
    report = layers.check()
    assert report.module_cycles == []
    assert report.package_cycles == []
    assert report.upward == []


def test_every_module_belongs_to_a_listed_layer():
    graph = layers.build_graph()
    for module in graph.modules:
        assert layers.unit_of(module)  # raises for a module outside every layer


def _scan(source: str) -> layers.Report:
    """The contract applied to a small synthetic tree (to prove the check can fail)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {
            "tilefold/__init__.py": "",
            "tilefold/ir/__init__.py": "",
            "tilefold/ops/__init__.py": "",
            "tilefold/ir/a.py": source,
            "tilefold/ops/b.py": "from tilefold.ir import a\n",
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(textwrap.dedent(text))
        return layers.check(root)


def test_a_lazy_upward_import_is_caught():
    report = _scan("def f():\n    from tilefold.ops import b\n")
    assert report.upward and "tilefold.ir.a" in report.upward[0]
    assert report.module_cycles == [["tilefold.ir.a", "tilefold.ops.b"]]


def test_type_checking_imports_are_skipped():
    report = _scan("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tilefold.ops import b\n")
    assert report.ok


def test_imports_are_parsed_not_pattern_matched():
    # an import inside a string is no import
    report = _scan('TEXT = "from tilefold.ops import b"\n')
    assert report.ok and ast.parse('TEXT = "from tilefold.ops import b"')


def _loaded(module: str) -> set[str]:
    code = f"import {module}, sys; print(' '.join(m for m in sys.modules if m.startswith('tilefold')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_ir_and_sim_load_neither_front_end_nor_runtime():
    for module in ("tilefold.ir", "tilefold.sim"):
        loaded = _loaded(module)
        assert not {m for m in loaded if m.split(".")[1:2] in (["frontend"], ["language"], ["runtime"],
                                                                ["compiler"], ["passes"])}, module
    assert all(m == "tilefold" or m.startswith(("tilefold.ir", "tilefold.errors")) for m in _loaded("tilefold.ir"))
