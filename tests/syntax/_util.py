"""Helpers shared by the syntax tests: parse text, list diagnostics, show ASTs compactly."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile


def parse_text(text: str, name: str = "t.tx"):
    """(module or None, diagnostics in source order)."""
    diags = Diagnostics()
    module = parse(SourceFile(name, text), diags)
    return module, diags.sorted()


def problems(text: str) -> list[tuple[int, int, str, str]]:
    """(line, col, code, message) of every diagnostic, in source order."""
    return [(d.span.line, d.span.col, d.code, d.message) for d in parse_text(text)[1]]


def parse_ok(text: str) -> ast.Module:
    module, diags = parse_text(text)
    assert not diags, [(d.span.line, d.span.col, d.code, d.message) for d in diags]
    assert module is not None
    return module


def sx(node) -> str:
    """An AST as a compact s-expression, for precedence and shape checks:
    `(BinOp + a (BinOp * b c))`. Names print bare, constants with repr."""
    if node is None:
        return "_"
    if isinstance(node, tuple):
        return "[" + " ".join(sx(n) for n in node) + "]"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.BinOp):
        return f"({node.op} {sx(node.left)} {sx(node.right)})"
    if isinstance(node, ast.UnaryOp):
        return f"({node.op} {sx(node.operand)})"
    if isinstance(node, ast.BoolOp):
        return f"({node.op} {' '.join(sx(v) for v in node.values)})"
    if isinstance(node, ast.Compare):
        parts = [sx(node.left)]
        for op, right in zip(node.ops, node.comparators):
            parts += [op, sx(right)]
        return "(cmp " + " ".join(parts) + ")"
    if isinstance(node, ast.IfExp):
        return f"(ifexp {sx(node.test)} {sx(node.body)} {sx(node.orelse)})"
    if isinstance(node, ast.Attribute):
        return f"{sx(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        args = [sx(a) for a in node.args] + [f"{k.name}={sx(k.value)}" for k in node.keywords]
        return f"(call {sx(node.func)}{''.join(' ' + a for a in args)})"
    if isinstance(node, ast.Subscript):
        return f"(sub {sx(node.value)} {sx(node.indices)})"
    if isinstance(node, ast.Slice):
        return f"(slice {sx(node.lower)} {sx(node.upper)} {sx(node.step)})"
    if isinstance(node, ast.Tuple):
        return "(tuple" + "".join(" " + sx(e) for e in node.elts) + ")"
    if isinstance(node, ast.List):
        return "(list" + "".join(" " + sx(e) for e in node.elts) + ")"
    if isinstance(node, ast.Dict):
        return "(dict" + "".join(f" {sx(k)}:{sx(v)}" for k, v in zip(node.keys, node.values)) + ")"
    # statements: the class name and the fields in order
    fields = [f for f in node.__dataclass_fields__ if f not in ("span", "name_span")
              and not (f == "chain" and not getattr(node, f))  # `a = b = c` only
              and not (f == "orelse" and not getattr(node, f) and isinstance(node, (ast.For, ast.While)))]
    return "(" + type(node).__name__ + "".join(" " + sx(getattr(node, f)) if not isinstance(getattr(node, f), str)
                                               else " " + getattr(node, f) for f in fields) + ")"


def stmt(text: str):
    """The s-expression of the only statement of text."""
    module = parse_ok(text)
    assert len(module.body) == 1, module.body
    return sx(module.body[0])


def expr(text: str) -> str:
    """The s-expression of an expression (parsed as `x = <text>`)."""
    module = parse_ok(f"x = {text}\n")
    return sx(module.body[0].value)
