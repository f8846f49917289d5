"""Architecture and dtype facts live in transpiler/target/ only (target/arch.py, target/target.py,
target/dtypes.py): every other stage asks the `Target` or reads the dtype record. This test reads
each module of transpiler/ outside target/ as an AST and fails on

1. a comparison with an integer literal on one side and, on the other, a name or attribute that
   names an architecture (`arch`, `min_arch`, `cx.arch`, `GATHER_ARCH` ...: an identifier
   containing "arch");
2. an integer literal passed to a function whose name names an architecture (`require_arch(st,
   90, ...)`, `min_arch(100, ...)`, `arch_name(90)`);
3. a string that is an architecture name (`"sm_90"`, `"sm_100a"`), or an f-string that builds one
   (`f"sm_{arch}"`);
4. a dict display with three or more TIRx dtype names as keys (`{"float16": ..., "bfloat16": ...,
   "float32": ...}`): a per-dtype table, whose facts belong to target/dtypes.py.

Docstrings and comments are not code and may name architectures. The launcher runtime
(transpiler/runtime/) imports nothing of tirxc and names the device it runs on, so rule 3 does
not apply to it. TEMPORARY lists, by module, what is still outside target/ while other changes
replace it (the launch description, the dtype record): each entry names the rules it is exempt from."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from transpiler.target.dtypes import known_dtype_names, parse_dtype

ROOT = Path(__file__).resolve().parents[2] / "transpiler"

# Temporary: module -> the rules it is exempt from (none left: keep the mechanism for the next move).
TEMPORARY: dict[str, set[int]] = {
}

_ARCH_NAME = re.compile(r"sm_\d+[af]?")
_DTYPES = {name for name in known_dtype_names() if parse_dtype(name).name == name}


def _names_arch(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return "arch" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "arch" in node.attr.lower()
    return False


def _int_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _is_dtype_key(key: ast.AST | None) -> bool:
    if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
        return False
    base, _, lanes = key.value.rpartition("x")
    return key.value in _DTYPES or (lanes.isdigit() and base in _DTYPES)


def findings(path: Path) -> list[str]:
    """What `path` breaks of the rules above, as `file:line: what`."""
    rel = path.relative_to(ROOT).as_posix()
    exempt = TEMPORARY.get(rel, set()) | ({3} if rel.startswith("runtime/") else set())
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names_arch(s) for s in sides) and any(_int_literal(s) for s in sides):
                out.append(f"{where}: an architecture compared with an integer literal")
        elif isinstance(node, ast.Call):
            if "arch" in _callee(node).lower() and any(
                    _int_literal(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                out.append(f"{where}: an integer literal passed to {_callee(node)}()")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and 3 not in exempt:
            if _ARCH_NAME.fullmatch(node.value):
                out.append(f"{where}: the architecture name {node.value!r}")
        elif isinstance(node, ast.JoinedStr) and 3 not in exempt:
            for part, after in zip(node.values, node.values[1:]):
                if (isinstance(part, ast.Constant) and isinstance(part.value, str) and part.value.endswith("sm_")
                        and isinstance(after, ast.FormattedValue)):
                    out.append(f"{where}: an f-string that builds an architecture name")
        elif isinstance(node, ast.Dict) and 4 not in exempt:
            if sum(_is_dtype_key(k) for k in node.keys) >= 3:
                out.append(f"{where}: a per-dtype table (dict keyed by dtype names)")
    return out


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0] != "target")


def test_no_architecture_or_dtype_literal_outside_target():
    found = [f for path in _modules() for f in findings(path)]
    assert not found, "\n".join(found)


def test_the_rules_catch_what_they_name(monkeypatch):
    text = ('def f(cx, st):\n    """sm_90 in a docstring is fine."""\n'
            '    if cx.arch < 100:\n        require_arch(st, 90, "x")\n'
            '    name = "sm_90a"\n    text = f"sm_{cx.arch}"\n'
            '    return {"float16": 1, "bfloat16": 2, "float32": 3}\n')
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    kinds = sorted(f.split(": ", 1)[1] for f in findings(ROOT / "tile" / "sample.py"))
    assert kinds == sorted(["an architecture compared with an integer literal",
                            "an integer literal passed to require_arch()", "the architecture name 'sm_90a'",
                            "an f-string that builds an architecture name",
                            "a per-dtype table (dict keyed by dtype names)"])
