"""tilefold's layer contract and the check that enforces it.

Every import statement under ``src/tilefold`` counts: module level, inside functions (lazy imports), in
``try`` blocks; only the bodies of ``if TYPE_CHECKING:`` are skipped (they never run). From those edges the
check reports

- cycles between modules (strongly connected components of the module graph),
- cycles between packages (the same over the layer units below),
- upward imports: a module importing a unit of a higher layer, or a sibling of its own layer.

``python tools/layers.py`` prints the report and exits 1 when the contract is broken; ``tests/test_layers.py``
runs the same check in ``make test``.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"

# Bottom to top. A unit (package or top-level module) may import units of lower layers only; units written
# on one line are siblings that must not import each other.
LAYERS: list[list[str]] = [
    ["tilefold.util", "tilefold.terminal"],
    ["tilefold.errors"],
    ["tilefold.budget"],
    ["tilefold.ir"],
    ["tilefold.targets"],
    ["tilefold.ops"],
    ["tilefold.analysis"],
    ["tilefold.passes"],
    ["tilefold.backend"],
    ["tilefold.sim", "tilefold.golden"],
    ["tilefold.frontend"],
    ["tilefold.compiler"],
    ["tilefold.runtime"],
    ["tilefold.language", "tilefold.custom", "tilefold"],
    ["tilefold.testing", "tilefold.bench", "tilefold.mlir"],  # mlir: HIVM MLIR in and out (a front end)
    ["tilefold.compat", "tilefold.debug"],
    ["tilefold.demo", "tilefold.cli_jit"],
    ["tilefold.cli"],
    ["tilefold.__main__"],
]

# The only edges allowed to run upward: PyPTO-shaped faces inside a lower package that forward into
# ``tilefold.compat`` (nothing inside tilefold imports them). One line per face: the forwarding module.
# Their edges into compat are left out of the cycle counts too (compat imports the package they sit in).
UPWARD_FORWARDERS: set[str] = {
    "tilefold.ir",  # ir/__init__.py's one __getattr__: ir.compile, ir.serialize, ir.deserialize, ir.pass_manager (and
    # its PassManager, OptimizationStrategy, PassDumpLevel, VerificationLevel)
    "tilefold.ir.pass_manager",  # PyPTO's module path of ir.pass_manager
    # PyPTO module paths (issue 19): each module *is* its tilefold.compat implementation
    "tilefold.runtime.runner", "tilefold.runtime.tensor_spec", "tilefold.ir.compiled_program",
    "tilefold.ir.instruments", "tilefold.backend.pto_backend", "tilefold.pypto_core.passes", "tilefold.debug",
}
FORWARD_TARGET = "tilefold.compat"


@dataclass
class Graph:
    modules: set[str] = field(default_factory=set)
    # importer -> {imported module: first line number}
    edges: dict[str, dict[str, int]] = field(default_factory=dict)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST):
    """Every Import / ImportFrom node, lazy ones included, except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def build_graph(root: Path = ROOT) -> Graph:
    graph = Graph()
    files = sorted((root / "tilefold").rglob("*.py"))
    graph.modules = {module_name(f, root) for f in files}
    for file in files:
        name = module_name(file, root)
        is_package = file.name == "__init__.py"
        targets: dict[str, int] = {}
        for node in _imports(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.Import):
                bases = [alias.name for alias in node.names]
                candidates = bases
            else:
                if node.level:
                    package = name.split(".") if is_package else name.split(".")[:-1]
                    package = package[: len(package) - node.level + 1]
                    base = ".".join(package + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                # `from a import b` depends on a.b when that is a module, otherwise on a
                candidates = [f"{base}.{a.name}" if f"{base}.{a.name}" in graph.modules else base
                              for a in node.names]
            for target in candidates:
                while target and target not in graph.modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in graph.modules and target != name:
                    targets.setdefault(target, node.lineno)
        graph.edges[name] = targets
    return graph


def unit_of(module: str) -> str:
    best = ""
    for layer in LAYERS:
        for unit in layer:
            if (module == unit or module.startswith(unit + ".")) and len(unit) > len(best):
                best = unit
    if not best:
        raise KeyError(f"{module} belongs to no layer: add its package to tools/layers.py LAYERS")
    return best


def layer_index(unit: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if unit in layer)


def strongly_connected(nodes: set[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively; returns the components with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


@dataclass
class Report:
    module_cycles: list[list[str]]
    package_cycles: list[list[str]]
    upward: list[str]

    @property
    def ok(self) -> bool:
        return not (self.module_cycles or self.package_cycles or self.upward)


def check(root: Path = ROOT) -> Report:
    graph = build_graph(root)
    for face in UPWARD_FORWARDERS & set(graph.edges):
        graph.edges[face] = {t: n for t, n in graph.edges[face].items() if unit_of(t) != FORWARD_TARGET}
    module_edges = {m: set(t) for m, t in graph.edges.items()}
    unit_edges: dict[str, set[str]] = {}
    upward = []
    for importer, targets in sorted(graph.edges.items()):
        src = unit_of(importer)
        for target, line in sorted(targets.items()):
            dst = unit_of(target)
            if dst == src:
                continue
            unit_edges.setdefault(src, set()).add(dst)
            if layer_index(dst) >= layer_index(src):
                upward.append(f"{importer} (line {line}) imports {target}: {dst} is not below {src}")
    units = {unit_of(m) for m in graph.modules}
    return Report(strongly_connected(graph.modules, module_edges), strongly_connected(units, unit_edges), upward)


def main() -> int:
    report = check()
    for cycle in report.module_cycles:
        print(f"module cycle ({len(cycle)}): {' '.join(cycle)}")
    for cycle in report.package_cycles:
        print(f"package cycle ({len(cycle)}): {' '.join(cycle)}")
    for line in report.upward:
        print(f"upward import: {line}")
    print(f"{len(report.module_cycles)} module cycles, {len(report.package_cycles)} package cycles, "
          f"{len(report.upward)} upward imports")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
