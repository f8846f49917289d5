"""f-strings, evaluated at compile time: each `{expression!conversion:spec}` field is parsed by the
file's own parser (where it is written, so that its errors point into the f-string) and
elaborated; its value must be known when the kernel is compiled (a number, string, bool, None, a
tuple of them, or a dtype), and is formatted as Python's `format` would."""
from __future__ import annotations

import re
import string

from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax import ast
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.evaluator.budget import step, weight
from transpiler.evaluator.core import kind_of
from transpiler.evaluator.standins import DataclassObject
from transpiler.evaluator import environ as pyeval_environ, ops as pyeval_ops
from transpiler.evaluator.values import DTypeVal, POISON, Poison, PyConst

_CONVERSIONS = {"": lambda v: v, "r": repr, "s": str, "a": ascii}


def field_node(st, text: str, line: int, col: int):
    """The expression of a field, parsed as if the rest of the file were blank (its spans are the
    file's); None after a syntax error (reported). Parsed once per field."""
    cache = st.module.__dict__.setdefault("fstring_fields", {})
    key = (text, line, col)
    if key in cache:
        return cache[key]
    # `_=[` opens a bracket on line 1, inside which the expression may sit at any line and column
    lead = "_=[" + "\n" * (line - 1) if line > 1 else "_=["
    pad = col - 1 - (len(lead) if line == 1 else 0)
    node = None
    if pad >= 0:
        diags = Diagnostics()
        module = parse(SourceFile(st.module.source.name, lead + " " * pad + text + "\n]\n"), diags)
        if diags.has_errors:
            st.diags.error("E0100", f"f-string: `{text.strip()}` is not an expression", st_span(st, line, col, text))
        elif module is not None and len(module.body) == 1 and isinstance(module.body[0], ast.Assign) \
                and isinstance(module.body[0].value, ast.List) and len(module.body[0].value.elts) == 1:
            node = module.body[0].value.elts[0]
        elif module is not None:
            st.diags.error("E0100", "an f-string field holds one expression", st_span(st, line, col, text))
    cache[key] = node
    return node


def st_span(st, line: int, col: int, text: str):
    return st.module.source.span(line, col, line, col + max(1, len(text.split("\n")[0])))


def _elab_FString(st, node: ast.FString):
    text = _joined(st, node.parts)
    return POISON if text is None else PyConst(text)


def _joined(st, parts) -> str | None:
    """The text of an f-string's parts (or of a format spec's parts); None after an error."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            continue
        text = _field_text(st, *part)
        if text is None:
            return None
        out.append(text)
    return "".join(out)


def _field_text(st, text: str, line: int, col: int, conversion: str, spec) -> str | None:
    """One `{expression!conversion:spec}` field formatted, as CPython does: the expression first,
    then the spec's own fields (`{x:>{width}}`), then `format(conversion(value), spec)`."""
    field = field_node(st, text, line, col)
    if field is None:
        return None
    val = st.host.elab(st, field)
    if isinstance(val, Poison):
        return None
    if isinstance(val, DTypeVal):
        val = PyConst(val.dtype.name)
    value = python_value(st, val, field, "an f-string")
    if value is NOT_FORMATTABLE:
        return None
    if conversion not in _CONVERSIONS:
        st.diags.error("E0137", f"unknown f-string conversion `!{conversion}`", field.span,
                       help="use `!r`, `!s` or `!a`")
        return None
    if not isinstance(spec, str):
        spec = _joined(st, spec)
        if spec is None:
            return None
    if any(int(digits) > 4096 for digits in re.findall(r"\d+", spec)):
        st.diags.error("E0137", "an f-string field wider than 4096 characters", field.span)
        return None
    try:
        return format(_CONVERSIONS[conversion](value), spec)
    except (TypeError, ValueError) as err:
        st.diags.error("E0137", f"compile-time evaluation failed: {err}", field.span)
        return None


NOT_FORMATTABLE = object()  # what python_value gives after an error (None formats as "None")


def python_value(st, val, node, what: str):
    """The Python value a compile-time value formats as (a dtype as its name, a list as a list);
    NOT_FORMATTABLE (reported) for a value known only at run time."""
    if isinstance(val, DTypeVal):
        return val.dtype.name
    if val is pyeval_environ.ENVIRON:
        pyeval_environ.refuse(st, node.span, f"formatting `os.environ` in {what}")
        return NOT_FORMATTABLE
    value = pyeval_ops.python_of(st, node.span, val)
    if value is POISON:
        return NOT_FORMATTABLE
    if isinstance(value, (tuple, list, dict, set, DataclassObject)):  # (each item prints at least one character)
        size = weight(value, pyeval_ops.TEXT_CHARS)
        if size > pyeval_ops.TEXT_CHARS:
            st.diags.error("E0318", f"{what}: the string would have more than {pyeval_ops.TEXT_CHARS} characters "
                                    f"(compile-time strings have at most {pyeval_ops.TEXT_CHARS})", node.span)
            return NOT_FORMATTABLE
        if not step(st, node.span, size // 64):
            return NOT_FORMATTABLE
    if value is not pyeval_ops.NOT_PYTHON and not pyeval_ops.holds_text_set(value):
        return value  # CPython's own object: it formats as CPython formats it
    if pyeval_ops.holds_text_set(value):
        st.diags.error("E0137", f"{what} of a set holding strings, enum members, None or nan is not supported: "
                                f"CPython's order of it changes from run to run", node.span,
                       help="format `sorted(s)` instead")
        return NOT_FORMATTABLE
    if not isinstance(val, Poison):
        st.diags.error("E0137", f"{what} formats compile-time values, not {kind_of(val)}", node.span,
                       help="a value known only at run time cannot be part of a string")
    return NOT_FORMATTABLE


def str_format(st, template: str, node: ast.Call):
    """`"...".format(*args, **kwargs)`: Python's `str.format` over compile-time values. Fields name
    an argument by position or keyword, and a spec may hold fields of its own (`'{:>{}}'`);
    `{0.attr}` and `{0[i]}` are not supported yet."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as err:
        st.diags.error("E0343", f"`str.format`: {err}", node.func.span)
        return POISON
    for _, name, spec, _ in fields:
        if name is not None and ("." in name or "[" in name):
            st.diags.error("E0343", f"`str.format` field `{{{name}}}`: attribute and item access are not "
                                    f"supported yet", node.func.span, help="pass the value itself")
            return POISON
        if spec and "{" not in spec and _too_wide(spec):
            st.diags.error("E0343", f"`str.format` field spec `{spec}`: nested fields and widths over 4096 are "
                                    f"not supported", node.func.span)
            return POISON
    args = [python_value(st, st.host.elab(st, a), a, "`str.format`") for a in node.args]
    kwargs = {k.name: python_value(st, st.host.elab(st, k.value), k.value, "`str.format`") for k in node.keywords}
    if any(v is NOT_FORMATTABLE for v in args + list(kwargs.values())):
        return POISON
    nested = any(spec and "{" in spec for _, _, spec, _ in fields)
    try:  # (a spec with fields of its own, `'{:>{}}'.format(x, w)`: each spec bounded once it is known)
        return PyConst(_BoundedFormatter().vformat(template, args, kwargs) if nested else
                       template.format(*args, **kwargs))
    except _TooWide as err:
        st.diags.error("E0343", f"`str.format` field spec `{err}`: widths over 4096 are not supported",
                       node.func.span)
        return POISON
    except (ValueError, IndexError, KeyError, TypeError) as err:
        st.diags.error("E0343", f"`str.format` failed: {type(err).__name__}: {err}", node.span)
        return POISON


def _too_wide(spec: str) -> bool:
    return any(int(d) > 4096 for d in re.findall(r"\d+", spec))


class _TooWide(Exception):
    pass


class _BoundedFormatter(string.Formatter):
    """CPython's own `str.format` rules (automatic numbering across a field and the fields of its
    spec, two levels at most), with each spec checked against the width limit before it formats."""

    def format_field(self, value, format_spec):
        if _too_wide(format_spec):
            raise _TooWide(format_spec)
        return super().format_field(value, format_spec)

