"""The layering rule the parser split relies on: ``ir`` imports no other tilefold package at module level (the
printer lives in ``tilefold.language`` and reaches ``ir`` through a registered hook; PyPTO's compat entry points
``ir.compile`` / ``ir.deserialize`` / ``ir.pass_manager`` import the compiler lazily, inside the call)."""

import ast
from pathlib import Path

import tilefold.ir as ir
import tilefold.language as pl

IR_DIR = Path(ir.__file__).parent


def _tilefold_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.parse(path.read_text()).body:  # module level
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tilefold"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tilefold"))
    return found


#: PyPTO module paths inside ir/ (issue 19): each module *is* its tilefold.compat implementation and nothing inside
#: tilefold imports it (tools/layers.py lists the same faces as its forwarders)
PYPTO_FACES = {"compiled_program.py", "instruments.py"}


def test_ir_imports_only_ir_and_errors():
    offenders = {}
    for path in sorted(IR_DIR.glob("*.py")):
        if path.name in PYPTO_FACES:
            continue
        bad = {m for m in _tilefold_imports(path) if not (m.startswith("tilefold.ir") or m == "tilefold.errors")}
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_as_python_goes_through_the_language_printer():
    prog = pl.parse(
        "import tilefold.language as pl\n\n"
        "@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) "
        "-> pl.Tensor[[16, 16], pl.FP32]:\n"
        "        t = pl.load(x, [0, 0], [16, 16])\n"
        "        out = pl.store(t, [0, 0], out)\n"
        "        return out\n")
    assert prog.as_python() == pl.python_print(prog) == ir.python_print(prog)
    assert pl.parse(prog.as_python()).as_python() == prog.as_python()
