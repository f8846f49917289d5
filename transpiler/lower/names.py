"""C locals take back their source names where C scoping allows it."""
from __future__ import annotations

import re

from transpiler import ir
from transpiler.ir.walk import all_stmts
from transpiler.lower.facts import ACCESSES


_STORAGE_STMTS = frozenset({ir.Store, ir.VecStore, ir.ArrayDecl, ir.PointerDecl})
_SUFFIXED = re.compile(r"(.+)_[0-9]+")
_SUFFIXED_ARRAY = re.compile(r"(.+_ptr)_[0-9]+")  # `v_ptr_1`: the checker's second `v_ptr`


def reuse_source_names(body: ir.Stmt, source, taken: set[str]) -> dict[str, str]:
    """Give C locals back their source names where C scoping allows it.

    The checker makes every C name unique in the kernel, so the second of two
    sibling loops `for k in ...` becomes `k_1`, and a scalar declared in both
    branches of an `if` becomes `v_ptr` and `v_ptr_1`. C only needs a name to be
    unique among the declarations in scope: a loop variable, `let`, or array
    declared in a block whose name is its source name plus a numeric suffix takes
    the plain name when no declaration in scope, and nothing inside its own
    scope, already uses it. Arrays are renamed in place, on lowering's own copy
    of their storage (shared by identity with every access); the new names of variables are returned, by
    their names in the body, for the printer (LoweredKernel.var_names).
    """
    renames: dict[str, str] = {}
    decided: set[int] = set()  # storages already considered (unrolled copies share them)

    def source_name(var: ir.Var) -> str | None:
        match = _SUFFIXED.fullmatch(var.name)
        span = var.span
        if match is None or span.line <= 0 or span.line != span.end_line:
            return None
        text = source.line_text(span.line)[span.col - 1:span.end_col - 1]
        base = match.group(1)
        return base if base in (text, text + "_") else None  # `half` is printed `half_`

    def names_in(stmts) -> set[str]:
        """The C names of the variables and storage that stmts declare or use."""
        out = set()
        exprs_of, leaves = ir.NODE_EXPRS, ir.LEAVES
        for st in stmts:
            for node in all_stmts(st):
                cls = node.__class__
                if cls in _STORAGE_STMTS:
                    out.add(node.storage.name)
                stack = list(exprs_of[cls](node))  # a let's variable and a loop's among them
                while stack:
                    e = stack.pop()
                    cls = e.__class__
                    if cls is ir.Var:
                        out.add(renames.get(e.name, e.name))
                    elif cls not in leaves:
                        if cls in ACCESSES:
                            out.add(e.storage.name)
                        stack.extend(exprs_of[cls](e))
        return out

    def stmts_in(first: ir.Stmt, rest):
        """first, then the statements of `rest`: (statement tuple, start index) pairs."""
        yield first
        for items, start in rest:
            for index in range(start, len(items)):
                yield items[index]

    def free(want: str, visible: "_Scope", scope_stmts) -> bool:
        return want not in visible and want not in taken and want not in names_in(scope_stmts)

    def declare(var: ir.Var, visible: "_Scope", scope_stmts) -> None:
        if var.name not in renames:  # else a copy of an unrolled body: decided once
            want = source_name(var)
            if want is not None and free(want, visible, scope_stmts):
                renames[var.name] = want
        visible.add(renames.get(var.name, var.name))

    def declare_array(storage: ir.Storage, visible: "_Scope", scope_stmts) -> None:
        if id(storage) not in decided:
            decided.add(id(storage))
            match = _SUFFIXED_ARRAY.fullmatch(storage.name)
            if match is not None and free(match.group(1), visible, scope_stmts):
                storage.name = match.group(1)
        visible.add(storage.name)

    def visit(st: ir.Stmt, visible: "_Scope", rest=()) -> None:
        """`rest`: the statements after st in its scope (a let's scope runs to their
        end), as (statement tuple, start index) pairs, innermost first."""
        cls = st.__class__
        if cls is ir.Seq:
            body = st.body
            for i, item in enumerate(body):
                visit(item, visible, ((body, i + 1),) + rest)
            return
        if cls is ir.For:
            visible = _Scope(visible)  # the loop's own: its variable, then its body
            declare(st.var, visible, (st,))
        elif cls is ir.LetStmt:
            declare(st.var, visible, stmts_in(st, rest))
        elif cls is ir.ArrayDecl:
            declare_array(st.storage, visible, stmts_in(st, rest))
        elif cls is ir.PointerDecl:
            visible.add(st.storage.name)
        if cls is ir.For:
            visit(st.body, visible)
        elif cls is ir.Block or cls is ir.While:
            visit(st.body, _Scope(visible))
        elif cls is ir.If:
            visit(st.then, _Scope(visible))
            if st.orelse is not None:
                visit(st.orelse, _Scope(visible))

    visit(body, _Scope(None))
    return renames


class _Scope:
    """The C names declared in a block, and through `outer` those of the
    blocks around it (a nested block does not copy them)."""
    __slots__ = ("names", "outer")

    def __init__(self, outer: "_Scope | None"):
        self.names: set[str] = set()
        self.outer = outer

    def add(self, name: str) -> None:
        self.names.add(name)

    def __contains__(self, name: str) -> bool:
        scope = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.outer
        return False
