"""The AST schema: every node is a frozen dataclass carrying its source span.

Nodes mirror Python's syntax for the subset `.tx` files use; meaning is given
to them by the checker. `dump` prints a tree readably (`tirxc --emit ast`).
Nodes compare by identity and have no generated repr (`eq=False, repr=False`):
nothing compares trees structurally, and each generated method costs every
tirxc process start-up time (docs/benchmarks.md).
"""
from __future__ import annotations

from dataclasses import fields

from transpiler.syntax.frozen import frozen_node
from transpiler.syntax.source import Span


@frozen_node
class Node:
    """A node of the tree; every one knows where it was written."""
    span: Span


# ---- expressions ---------------------------------------------------------------

@frozen_node
class Name(Node):
    """`x`"""
    id: str


@frozen_node
class Constant(Node):
    """`1`, `2.5`, `"text"`, `True`, `None`"""
    value: int | float | str | bool | None


@frozen_node
class Attribute(Node):
    """`value.attr`"""
    value: "Expr"
    attr: str


@frozen_node
class Keyword(Node):
    """`name=value` in a call"""
    name: str
    value: "Expr"


@frozen_node
class Call(Node):
    """`func(args..., keywords...)`"""
    func: "Expr"
    args: tuple["Expr", ...]
    keywords: tuple[Keyword, ...]


@frozen_node
class Slice(Node):
    """`lower:upper:step` inside a subscript (each part optional)"""
    lower: "Expr | None"
    upper: "Expr | None"
    step: "Expr | None"


@frozen_node
class Subscript(Node):
    """`value[i, j]`"""
    value: "Expr"
    indices: tuple["Expr", ...]  # one entry per comma-separated index; Slice entries allowed


@frozen_node
class Tuple(Node):
    """`(a, b)` or `a, b`"""
    elts: tuple["Expr", ...]


@frozen_node
class List(Node):
    """`[a, b]`"""
    elts: tuple["Expr", ...]


@frozen_node
class Dict(Node):
    """`{k: v}`"""
    keys: tuple["Expr", ...]
    values: tuple["Expr", ...]


@frozen_node
class BinOp(Node):
    """`left op right`"""
    op: str  # + - * / // % @ << >> & | ^
    left: "Expr"
    right: "Expr"


@frozen_node
class UnaryOp(Node):
    """`op operand`"""
    op: str  # - + ~ not
    operand: "Expr"


@frozen_node
class BoolOp(Node):
    """`a and b and ...`, `a or b or ...`"""
    op: str  # and / or
    values: tuple["Expr", ...]


@frozen_node
class Compare(Node):
    """`left op1 right1 op2 right2 ...` (chained)"""
    left: "Expr"
    ops: tuple[str, ...]
    comparators: tuple["Expr", ...]


@frozen_node
class IfExp(Node):
    """`body if test else orelse`"""
    test: "Expr"
    body: "Expr"
    orelse: "Expr"


@frozen_node
class Starred(Node):
    """`*value` in a call's arguments, a tuple or list display or a tuple target"""
    value: "Expr"


@frozen_node
class DoubleStarred(Node):
    """`**value` among a call's keyword arguments"""
    value: "Expr"


@frozen_node
class Comprehension(Node):
    """`for target in iter if cond ...` of a comprehension"""
    target: "Expr"
    iter: "Expr"
    ifs: tuple["Expr", ...] = ()


@frozen_node
class ListComp(Node):
    """`[elt for ...]`, `(elt for ...)` (kind "generator") or `{key: elt for ...}` (kind "dict",
    with `key`): evaluated at compile time"""
    elt: "Expr"
    generators: tuple[Comprehension, ...]
    kind: str = "list"  # list generator dict set
    key: "Expr | None" = None


@frozen_node
class FString(Node):
    """An f-string, with the plain strings written next to it: each part is a literal `str`, or a
    `{...}` field as (expression text, line, column of its first character, conversion or "",
    format spec: a str, or a tuple of such parts when the spec holds fields, `{x:>{width}}`); the
    checker parses and evaluates the fields (evaluator/fstring.py)."""
    parts: tuple


@frozen_node
class Lambda(Node):
    """`lambda params: body`: a compile-time function (sema/library/macros.py)"""
    params: tuple["Param", ...]
    body: "Expr"


@frozen_node
class Set(Node):
    """`{a, b}`: a compile-time set"""
    elts: tuple["Expr", ...]


@frozen_node
class Value(Node):
    """A value the checker has already elaborated (an element of a `*` expansion), standing in
    for an expression: never made by the parser."""
    value: object


Expr = (Name | Constant | Attribute | Call | Slice | Subscript | Tuple | List | Dict | BinOp | UnaryOp
        | BoolOp | Compare | IfExp | Starred | DoubleStarred | ListComp | FString
        | Lambda | Set | Value)


# ---- statements ----------------------------------------------------------------

@frozen_node
class ExprStmt(Node):
    """An expression on its own line (a call, mostly)."""
    value: Expr


@frozen_node
class Assign(Node):
    """`target = value`; `a = b = value` keeps `b` (and any further targets) in chain"""
    target: Expr
    value: Expr
    chain: tuple[Expr, ...] = ()


@frozen_node
class AnnAssign(Node):
    """`target: annotation = value` (the value optional)"""
    target: Expr
    annotation: Expr
    value: Expr | None


@frozen_node
class AugAssign(Node):
    """`target op= value`"""
    target: Expr
    op: str  # the binary operator, without "="
    value: Expr


@frozen_node
class If(Node):
    """`if` / `elif` / `else` (an `elif` is an If alone in orelse)"""
    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]


@frozen_node
class For(Node):
    """`for target in iter:`; `orelse`: the `else:` block, run when the loop ends without `break`"""
    target: Expr
    iter: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] = ()


@frozen_node
class While(Node):
    """`while test:`; `orelse`: the `else:` block, run when the loop ends without `break`"""
    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] = ()


@frozen_node
class WithItem(Node):
    """`context as target` of a `with` statement"""
    context: Expr
    target: Expr | None


@frozen_node
class With(Node):
    """`with items:`"""
    items: tuple[WithItem, ...]
    body: tuple["Stmt", ...]


@frozen_node
class Break(Node):
    """`break`"""


@frozen_node
class Continue(Node):
    """`continue`"""


@frozen_node
class Pass(Node):
    """`pass`"""


@frozen_node
class Return(Node):
    """`return value`"""
    value: Expr | None


@frozen_node
class Try(Node):
    """A `try` statement, kept only to be refused where it would run: a helper function that is never
    called may hold one (its body is not kept)."""


@frozen_node
class Global(Node):
    """`global a, b`: in a plain helper function, assignments to these names rebind module-level names"""
    names: tuple[str, ...]


@frozen_node
class Nonlocal(Node):
    """`nonlocal a, b`: in a nested plain helper function, assignments to these names rebind the
    enclosing function's names"""
    names: tuple[str, ...]


@frozen_node
class Delete(Node):
    """`del a, xs[i], obj.x`: each target unbound or removed, in order"""
    targets: tuple[Expr, ...]


@frozen_node
class Assert(Node):
    """`assert test, msg`"""
    test: Expr
    msg: Expr | None


@frozen_node
class Param(Node):
    """`name: annotation = default` of a `def` (or a lambda); star "*" for `*args` (name "" for a bare
    `*`, the keyword-only marker), "**" for `**kwargs`"""
    name: str
    annotation: Expr | None
    default: Expr | None = None
    star: str = ""


@frozen_node
class FunctionDef(Node):
    """`def name(params):` with its decorators"""
    name: str
    params: tuple[Param, ...]
    decorators: tuple[Expr, ...]
    body: tuple["Stmt", ...]
    name_span: Span | None = None
    returns: Expr | None = None  # the `-> X` annotation, if any


@frozen_node
class ImportAlias(Node):
    """`name as asname` of an import"""
    name: str  # dotted for `import a.b`
    asname: str | None


@frozen_node
class Import(Node):
    """`import a.b as c`"""
    names: tuple[ImportAlias, ...]


@frozen_node
class ImportFrom(Node):
    """`from module import names`"""
    module: str
    names: tuple[ImportAlias, ...]


@frozen_node
class ClassDef(Node):
    """`class name(bases):` with its decorators (`@T.meta_class`): run at compile time (sema/library/classes.py)"""
    name: str
    bases: tuple[Expr, ...]
    decorators: tuple[Expr, ...]
    body: tuple["Stmt", ...]
    name_span: Span | None = None


@frozen_node
class Raise(Node):
    """`raise exc` (`from cause` is dropped): an error at compile time where it is reached"""
    exc: Expr | None


Stmt = (ExprStmt | Assign | AnnAssign | AugAssign | If | For | While | With | Break | Continue | Pass
        | Return | Assert | FunctionDef | ClassDef | Raise | Import | ImportFrom)


@frozen_node
class Module(Node):
    """The whole file."""
    body: tuple[Stmt, ...]


# ---- printing ------------------------------------------------------------------

def dump(node: object, indent: str = "  ") -> str:
    """A readable, deterministic tree: one node per line with its position."""
    lines: list[str] = []

    def walk(value: object, depth: int, label: str) -> None:
        pad = indent * depth
        prefix = f"{label}=" if label else ""
        if isinstance(value, Node):
            scalars = []
            children = []
            for f in fields(value):
                if f.name in ("span", "name_span"):
                    continue
                item = getattr(value, f.name)
                if item is None and f.name == "returns":
                    continue
                if isinstance(item, Node) or (isinstance(item, tuple) and item and isinstance(item[0], Node)):
                    children.append((f.name, item))
                elif isinstance(item, tuple) and not item:
                    continue
                else:
                    scalars.append(f"{f.name}={item!r}")
            where = f"@{value.span.line}:{value.span.col}-{value.span.end_line}:{value.span.end_col}"
            lines.append(f"{pad}{prefix}{type(value).__name__} {where}" + (" " + " ".join(scalars) if scalars else ""))
            for name, item in children:
                walk(item, depth + 1, name)
        elif isinstance(value, tuple):
            lines.append(f"{pad}{prefix}[")
            for item in value:
                walk(item, depth + 1, "")
            lines.append(f"{pad}]")
        else:
            lines.append(f"{pad}{prefix}{value!r}")

    walk(node, 0, "")
    return "\n".join(lines) + "\n"


def iter_children(node: Node):
    """Direct child nodes, in field order."""
    for f in fields(node):
        if f.name in ("span", "name_span"):
            continue
        item = getattr(node, f.name)
        if isinstance(item, Node):
            yield item
        elif isinstance(item, tuple):
            for sub in item:
                if isinstance(sub, Node):
                    yield sub
