"""A module-level `if` whose branches define functions: the production library's builders pick
their kernel so (`if compact: @T.prim_func def k_compact ... else: @T.prim_func def k_strided ...`).
Python runs the `if` before TVMScript parses the kernels, so its condition is a compile-time value
and the taken branch's statements are module-level statements (kernels, helpers, constants), read
as if written there. An `if` that defines no function stays the module's own Python (macros.py)."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.evaluator import core as pyeval
from transpiler.sema.expressions import expr
from transpiler.sema.state import at_module_level


def defines_a_function(stmt) -> bool:
    """Whether a branch of the `if` (or of an `if` inside it) holds a `def` or a `class`."""
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return True
    if isinstance(stmt, ast.If):
        return any(defines_a_function(s) for s in stmt.body + stmt.orelse)
    return False


def taken_branch(ms, stmt: ast.If) -> list | None:
    """The statements of the branch the condition takes; None for an `if` that defines no function;
    no statements when the condition is not a compile-time value (reported)."""
    if not defines_a_function(stmt):
        return None
    st = at_module_level(ms)
    cond = pyeval.truth(st, expr.elab(st, stmt.test), stmt.test, "an `if` at module level")
    if cond is None:
        return []
    return list(stmt.body if cond else stmt.orelse)
