"""The evaluator without the checker: hosted by a few lines that answer its questions with
CPython's own arithmetic and comparisons, it computes the file's Python level (comprehensions,
dicts, sets, `*`, f-strings, builtins) as CPython does. What it needs from a host is its Host
interface (transpiler/evaluator/host.py) and the context `st`, nothing of transpiler.sema."""
from __future__ import annotations

import operator

import pytest

from transpiler.diag.diagnostics import Diagnostics
from transpiler.evaluator import builtins, core, lists
from transpiler.evaluator.host import Host
from transpiler.evaluator.nodes import NODE_RULES
from transpiler.evaluator.ops import NOT_PYTHON, to_python
from transpiler.evaluator.values import Binding, Builtin, POISON, PyConst
from transpiler.syntax import ast
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
        "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne}


class _Module:
    def __init__(self, source: SourceFile):
        self.source, self.globals = source, {}


class _Context:
    def __init__(self, source: SourceFile):
        self.diags, self.scopes, self.module, self.host = Diagnostics(), [], _Module(source), _CPythonHost()


class _CPythonHost(Host):
    """Constants, names, tuples, operators, subscripts and calls of builtins; everything else the
    evaluator's."""

    def elab(self, st, node):
        rule = NODE_RULES.get(node.__class__)
        if rule is not None:
            return rule(st, node)
        if isinstance(node, ast.Constant):
            return PyConst(node.value)
        if isinstance(node, ast.Name):
            value = self.bound_value(st, node.id)
            return value if value is not None else Builtin(node.id)
        if isinstance(node, ast.Tuple):
            return core.sequence(st, node.elts)
        if isinstance(node, ast.BinOp):
            return self.arith(st, node.op, self.elab(st, node.left), self.elab(st, node.right), node.span, None, None)
        if isinstance(node, ast.Compare) and node.ops[0] in ("in", "not in"):
            return lists.contains(st, node)
        if isinstance(node, ast.Compare):
            left, right = self.elab(st, node.left), self.elab(st, node.comparators[0])
            return PyConst(_OPS[node.ops[0]](left.value, right.value))
        if isinstance(node, ast.Subscript):
            return core.ct_subscript(st, self.elab(st, node.value), node)
        if isinstance(node, ast.BoolOp):
            values = [self.elab(st, v) for v in node.values]
            result = all if node.op == "and" else any
            return PyConst(result(core.truth(st, v, node, "a test") for v in values))
        if isinstance(node, ast.Call):
            return builtins.call_builtin(st, self.elab(st, node.func).name, node)
        raise NotImplementedError(type(node).__name__)

    def const_int(self, st, node, what):
        return self.elab(st, node).value

    def arith(self, st, op, left, right, span, left_span, right_span):
        return PyConst(_OPS[op](left.value, right.value))

    def bound_value(self, st, name):
        for scope in reversed(st.scopes):
            if name in scope:
                return scope[name].value
        return None

    def class_isinstance(self, st, value, kinds):
        return None

    def call_function(self, st, function, args, node):
        return POISON

    def number_of(self, value):
        return None

    def class_of(self, value):
        return None

    library_modules: dict = {}
    library_builtins: dict = {}

    def library_import(self, module, name):
        return None

    def library_member(self, st, base, node):
        return None


def _python(value):
    """A value of the evaluator as the CPython value it stands for: a list, set or dict is one
    already (its box's own object)."""
    made = to_python(value)
    assert made is not NOT_PYTHON
    return made


def _evaluate(text: str, **names):
    source = SourceFile("host.tx", f"_ = {text}\n")
    diags = Diagnostics()
    module = parse(source, diags)
    assert not diags.has_errors, diags.items
    st = _Context(source)
    st.scopes.append({name: Binding(_value(v), "const", module.span) for name, v in names.items()})
    value = st.host.elab(st, module.body[0].value)
    assert not st.diags.items, [d.message for d in st.diags.items]
    return _python(value)


def _value(python):
    return PyConst(python)


@pytest.mark.parametrize("text", [
    "[x * 2 for x in xs if x != 2]",
    "{k: v + 1 for k, v in zip(('a', 'b'), xs)}",
    "sorted({3, 1, 2, 3})",
    "sum(x * x for x in xs)",
    "(*xs, 4, *xs[1:])",
    "[(i, c) for i, c in enumerate('ab')]",
    "f'{n:>4}|{len(xs)}|{xs!r}'",
    "3 in xs and 'b' not in 'abc'",
    "max(xs) - min(xs, default=0)",
    "{**{'a': 1}, 'b': len([y for y in xs for _ in xs])}",
])
def test_the_evaluator_hosted_by_cpython_agrees_with_cpython(text):
    names = {"xs": (1, 2, 3), "n": 7}
    assert _evaluate(text, **names) == eval(text, dict(names))
