"""The AST schema: every node is a frozen dataclass carrying its source span.

Nodes mirror Python's syntax for the subset `.tx` files use; meaning is given
to them by the checker. `dump` prints a tree readably (`tirxc --emit ast`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Union

from .source import Span


@dataclass(frozen=True)
class Node:
    span: Span = field(compare=False, repr=False)


# ---- expressions ---------------------------------------------------------------

@dataclass(frozen=True)
class Name(Node):
    id: str


@dataclass(frozen=True)
class Constant(Node):
    value: Union[int, float, str, bool, None]


@dataclass(frozen=True)
class Attribute(Node):
    value: "Expr"
    attr: str


@dataclass(frozen=True)
class Keyword(Node):
    name: str
    value: "Expr"


@dataclass(frozen=True)
class Call(Node):
    func: "Expr"
    args: tuple["Expr", ...]
    keywords: tuple[Keyword, ...]


@dataclass(frozen=True)
class Slice(Node):
    lower: "Expr | None"
    upper: "Expr | None"
    step: "Expr | None"


@dataclass(frozen=True)
class Subscript(Node):
    value: "Expr"
    indices: tuple["Expr", ...]  # one entry per comma-separated index; Slice entries allowed


@dataclass(frozen=True)
class Tuple(Node):
    elts: tuple["Expr", ...]


@dataclass(frozen=True)
class List(Node):
    elts: tuple["Expr", ...]


@dataclass(frozen=True)
class Dict(Node):
    keys: tuple["Expr", ...]
    values: tuple["Expr", ...]


@dataclass(frozen=True)
class BinOp(Node):
    op: str  # + - * / // % @ << >> & | ^
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class UnaryOp(Node):
    op: str  # - + ~ not
    operand: "Expr"


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # and / or
    values: tuple["Expr", ...]


@dataclass(frozen=True)
class Compare(Node):
    left: "Expr"
    ops: tuple[str, ...]
    comparators: tuple["Expr", ...]


@dataclass(frozen=True)
class IfExp(Node):
    test: "Expr"
    body: "Expr"
    orelse: "Expr"


Expr = Union[Name, Constant, Attribute, Call, Slice, Subscript, Tuple, List, Dict, BinOp, UnaryOp,
             BoolOp, Compare, IfExp]


# ---- statements ----------------------------------------------------------------

@dataclass(frozen=True)
class ExprStmt(Node):
    value: Expr


@dataclass(frozen=True)
class Assign(Node):
    target: Expr
    value: Expr


@dataclass(frozen=True)
class AnnAssign(Node):
    target: Expr
    annotation: Expr
    value: Expr | None


@dataclass(frozen=True)
class AugAssign(Node):
    target: Expr
    op: str  # the binary operator, without "="
    value: Expr


@dataclass(frozen=True)
class If(Node):
    test: Expr
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]


@dataclass(frozen=True)
class For(Node):
    target: Expr
    iter: Expr
    body: tuple["Stmt", ...]


@dataclass(frozen=True)
class While(Node):
    test: Expr
    body: tuple["Stmt", ...]


@dataclass(frozen=True)
class WithItem(Node):
    context: Expr
    target: Expr | None


@dataclass(frozen=True)
class With(Node):
    items: tuple[WithItem, ...]
    body: tuple["Stmt", ...]


@dataclass(frozen=True)
class Break(Node):
    pass


@dataclass(frozen=True)
class Continue(Node):
    pass


@dataclass(frozen=True)
class Pass(Node):
    pass


@dataclass(frozen=True)
class Return(Node):
    value: Expr | None


@dataclass(frozen=True)
class Assert(Node):
    test: Expr
    msg: Expr | None


@dataclass(frozen=True)
class Param(Node):
    name: str
    annotation: Expr | None


@dataclass(frozen=True)
class FunctionDef(Node):
    name: str
    params: tuple[Param, ...]
    decorators: tuple[Expr, ...]
    body: tuple["Stmt", ...]
    name_span: Span = field(compare=False, repr=False, default=None)


@dataclass(frozen=True)
class ImportAlias(Node):
    name: str  # dotted for `import a.b`
    asname: str | None


@dataclass(frozen=True)
class Import(Node):
    names: tuple[ImportAlias, ...]


@dataclass(frozen=True)
class ImportFrom(Node):
    module: str
    names: tuple[ImportAlias, ...]


Stmt = Union[ExprStmt, Assign, AnnAssign, AugAssign, If, For, While, With, Break, Continue, Pass,
             Return, Assert, FunctionDef, Import, ImportFrom]


@dataclass(frozen=True)
class Module(Node):
    body: tuple[Stmt, ...]


# ---- printing ------------------------------------------------------------------

def dump(node: Any, indent: str = "  ") -> str:
    """A readable, deterministic tree: one node per line with its position."""
    lines: list[str] = []

    def walk(value: Any, depth: int, label: str) -> None:
        pad = indent * depth
        prefix = f"{label}=" if label else ""
        if isinstance(value, Node):
            scalars = []
            children = []
            for f in fields(value):
                if f.name in ("span", "name_span"):
                    continue
                item = getattr(value, f.name)
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
