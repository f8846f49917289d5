"""Python's scoping rules as its compiler applies them to a whole file, before anything runs: the
names a function binds (each local to all of it), the names its `global` / `nonlocal` statements
declare, and the `nonlocal` names no enclosing function binds (CPython's SyntaxError at compile
time, so a file holding one is refused even when the function is never called)."""
from __future__ import annotations

from transpiler.syntax import ast


def bound_names(body) -> frozenset:
    """The names a function's statements bind (assignment, `for`, `with ... as`, `del`, `import`,
    `def`, `class`), anywhere in its body but in nested functions and classes: Python's compiler
    makes each of them local to the whole function."""
    names = set()
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in (stmt.target, *getattr(stmt, "chain", ())):  # (`x: int` alone makes x local too)
                names |= target_names(target)
        elif isinstance(stmt, ast.For):
            names |= target_names(stmt.target)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                names |= target_names(item.target) if item.target is not None else set()
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                names |= target_names(target)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names |= {alias.asname or alias.name.split(".")[0] for alias in stmt.names}
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            continue
        for field in ("body", "orelse"):
            names |= bound_names(getattr(stmt, field, None) or ())
    return frozenset(names)


def target_names(target) -> set:
    """The names an assignment target binds (`a`, `a, *b`, `[a, (b, c)]`; not `a.x` or `a[i]`)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(target_names(elt) for elt in target.elts))
    return set()


def declared_names(body, declaration) -> frozenset:
    """The names a function's `global` (or `nonlocal`) statements declare, anywhere in its body but
    in nested functions: as in Python, the declaration holds for the whole function."""
    names = set()
    for stmt in body:
        if isinstance(stmt, declaration):
            names.update(stmt.names)
        elif not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            for field in ("body", "orelse"):
                names |= declared_names(getattr(stmt, field, None) or (), declaration)
    return frozenset(names)


def unbound_nonlocals(body, enclosing: tuple = ()):
    """(statement, name) for each `nonlocal name` in body's functions (at any depth) that no
    enclosing function binds or declares nonlocal itself; class bodies are no such scope."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            declared = declared_names(stmt.body, ast.Nonlocal)
            for where in _nonlocal_statements(stmt.body):
                for name in where.names:
                    if not any(name in names for names in enclosing):
                        yield where, name
            own = frozenset(p.name for p in stmt.params if p.name) | bound_names(stmt.body) | declared
            yield from unbound_nonlocals(stmt.body, enclosing + (own - declared_names(stmt.body, ast.Global),))
        elif isinstance(stmt, ast.ClassDef):
            yield from unbound_nonlocals(stmt.body, enclosing)
        else:
            for field in ("body", "orelse"):
                yield from unbound_nonlocals(getattr(stmt, field, None) or (), enclosing)


def _nonlocal_statements(body):
    """The `nonlocal` statements of a function's body, but those of nested functions and classes."""
    for stmt in body:
        if isinstance(stmt, ast.Nonlocal):
            yield stmt
        elif not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            for field in ("body", "orelse"):
                yield from _nonlocal_statements(getattr(stmt, field, None) or ())
