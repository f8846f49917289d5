"""The runtime's modules are real modules: each imports what it uses (the runtime's own modules
by relative imports, each only from modules the launcher loads before it) and uses no name it
neither defines nor imports (an AST check of every scope: pyflakes' `undefined name`)."""
from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from transpiler.codegen.launcher import RUNTIME_MODULES

RUNTIME = Path(__file__).resolve().parents[2] / "transpiler" / "runtime"


def test_the_launcher_embeds_every_module_each_after_those_it_imports():
    assert sorted(RUNTIME_MODULES) == sorted(p.stem for p in RUNTIME.glob("*.py") if p.stem != "__init__")
    for index, name in enumerate(RUNTIME_MODULES):
        tree = ast.parse((RUNTIME / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                imported = [node.module] if node.module else [alias.name for alias in node.names]
                assert all(m in RUNTIME_MODULES[:index] for m in imported), (name, node.lineno, imported)


def _bound(node: ast.AST) -> set[str]:
    """The names a scope binds: assignments, parameters, imports, definitions, globals."""
    out = set()
    for child in _own_nodes(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            out.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and child is not node:
            out.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            out.update((alias.asname or alias.name).split(".")[0] for alias in child.names)
        elif isinstance(child, ast.arg):
            out.add(child.arg)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            out.add(child.name)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            out.update(child.names)
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)


def _own_nodes(scope: ast.AST):
    """The nodes of a scope, without those of the scopes inside it (but their names, defaults,
    decorators and, for a function, its parameters)."""
    stack = [scope]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES) and child is not scope:
                yield child
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    stack += child.args.defaults + [d for d in child.args.kw_defaults if d]
                    stack += getattr(child, "decorator_list", [])
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is scope \
                    and isinstance(child, ast.arguments):
                stack += [child]
                continue
            stack.append(child)


def undefined_names(text: str) -> list[tuple[int, str]]:
    tree = ast.parse(text)
    out = []

    def visit(scope, outer: set[str]):
        known = outer | _bound(scope)
        for node in _own_nodes(scope):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known:
                out.append((node.lineno, node.id))
            if node is not scope and isinstance(node, _SCOPES):
                # a class body's names are not seen by its methods
                visit(node, outer if isinstance(scope, ast.ClassDef) else known)

    visit(tree, set(dir(builtins)) | {"__file__", "__name__"})
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in RUNTIME.glob("*.py")))
def test_no_module_of_the_runtime_uses_an_undefined_name(name):
    assert undefined_names((RUNTIME / name).read_text(encoding="utf-8")) == []


def test_the_check_finds_what_concatenation_used_to_hide():
    text = "def f(x):\n    y = [z for z in x]\n    return tensor_map_argument(y), _module(0)\n"
    assert sorted(undefined_names(text)) == [(3, "_module"), (3, "tensor_map_argument")]


def test_the_runtime_words_each_check_it_makes_with_the_descriptions_message():
    from transpiler.ir.launch_checks import MESSAGES
    text = "".join((RUNTIME / f"{name}.py").read_text(encoding="utf-8") for name in RUNTIME_MODULES)
    # made by the C++ entry points only: an extent is read off an array's shape here, the
    # architecture is NVRTC's to check when compiling, and CuPy sets the shared-memory opt-in
    only_cpp = {"extent.range", "architecture.device", "shared_memory.optin"}
    assert {key for key in MESSAGES if f'"{key}"' in text} == set(MESSAGES) - only_cpp
