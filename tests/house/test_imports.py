"""The house rules of transpiler/ (docs/architecture.md): stage packages whose
imports point only downward, no import cycle, the launcher runtime standing
alone, and no source file too long to read in one sitting.

The graph counts every import, at module level or inside a function, so an
import moved into a function to dodge a cycle still fails here."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "transpiler"

# The stages from the bottom up. A module may import its own stage and the stages
# below it; the bottom stages (text and spans, diagnostics, target facts, the IR)
# may use one another, as long as no module cycle forms.
# The compile-time evaluator of the file's Python level sits below the checker, which hosts it
# (transpiler/evaluator/host.py).
# The simulator (sim) runs what the driver makes, below the command line that offers it.
RANKS = {"syntax": 0, "diag": 0, "target": 0, "ir": 0, "evaluator": 1, "dialect": 1, "sema": 2, "tile": 3, "lower": 4,
         "codegen": 5, "driver": 6, "sim": 7, "cli": 8, "__main__": 9}
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("transpiler",) + path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, each as the longest module name an import names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else []))
            names = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for imported in names:
            parts = imported.split(".")
            for k in range(len(parts), 0, -1):
                candidate = ".".join(parts[:k])
                if candidate in modules and candidate != name:
                    found.add(candidate)
                    break
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None  # None: the package root (version, data files)


def test_every_module_belongs_to_a_stage():
    stages = {_stage(m) for m in _graph()} - {None}
    assert stages <= set(RANKS) | {"runtime"}, sorted(stages - set(RANKS))


def test_imports_point_downward():
    upward = []
    for module, imported in sorted(_graph().items()):
        stage = _stage(module)
        for target in sorted(imported):
            target_stage = _stage(target)
            if target_stage is None or stage is None:
                continue
            if stage == "runtime" or target_stage == "runtime":
                if stage != target_stage:
                    upward.append(f"{module} -> {target} (the runtime imports nothing of tirxc and is not imported)")
            elif RANKS[target_stage] > RANKS[stage]:
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_import_cycles():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_runtime_imports_only_the_standard_library_and_cupy():
    allowed_roots = {"cupy", "cupy_backends", "numpy", "__future__"}
    problems = []
    for path in sorted((PACKAGE / "runtime").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue  # one of the runtime's own modules
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                root = name.split(".")[0]
                if root == "transpiler" or (root not in allowed_roots and root not in _stdlib()):
                    problems.append(f"{path.name}: imports {name}")
    assert problems == []


def _stdlib() -> frozenset[str]:
    import sys
    return frozenset(sys.stdlib_module_names)


def test_no_file_is_too_long_to_read_in_one_sitting():
    """At most ~800 lines a file, except generated ones, whose first line says
    `# Generated ...`."""
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > MAX_LINES and not (lines and lines[0].startswith("# Generated")):
            long.append(f"{path.relative_to(PACKAGE)}: {len(lines)} lines")
    assert long == []


def _stage_imports(importer: str, forbidden: set[str]) -> list[str]:
    """Each import of a module of stage `importer` that names a module of a stage in `forbidden`."""
    return [f"{module} -> {target}" for module, imported in sorted(_graph().items()) if _stage(module) == importer
            for target in sorted(imported) if _stage(target) in forbidden]


def test_tile_imports_nothing_of_the_checker():
    """The tile variants read the checked IR: the facts they share with the checker are hardware
    encodings (target/) or IR analyses (ir/), never the checker's own modules."""
    assert _stage_imports("tile", {"sema"}) == []


def test_the_command_line_reaches_the_checker_tile_and_lowering_through_the_driver():
    """cli/ shows what the stages made (the IR, the target facts, the printers' output) and runs
    them only through driver.py, so the stages' own modules can move without touching it."""
    assert _stage_imports("cli", {"evaluator", "sema", "tile", "lower"}) == []
