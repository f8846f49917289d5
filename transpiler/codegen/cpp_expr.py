"""Host expressions (grids, buffer shapes and strides, workspace sizes) as C++ with the kernel's
integer semantics, for the C++ host interface (codegen/host_cpp.py, docs/cpp.md).

The CuPy launcher prints the same expressions as Python (codegen/launcher.py, py_expr); this
printer follows it operation by operation, and refuses exactly what py_expr refuses (it calls
py_expr first). Each operation whose result could leave its dtype's range, or whose value C
does not define (a zero divisor, a shift count past the width), is a call of a helper of the
header's `detail` namespace (templates/host.h.j2) that takes the evaluation's `arith` state:
the helper returns C's value, wrapped where the kernel wraps, or records the refusal, which
the caller reports after the expression. Values are held in the kernel's own C types
(`int`, `long long`, `unsigned int` ...), so the comparisons, selects and conversions are C's.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.codegen.launcher import py_expr
from transpiler.target.dtypes import c_type

_BINARY = {"+": "add", "-": "sub", "*": "mul", "floordiv": "floordiv", "floormod": "floormod",
           "truncdiv": "truncdiv", "truncmod": "truncmod", "<<": "shl", ">>": "shr"}
_BITWISE = {"&", "|", "^"}
_COMPARE = {"<": "detail::less({a}, {b})", "<=": "!detail::less({b}, {a})", ">": "detail::less({b}, {a})",
            ">=": "!detail::less({a}, {b})", "==": "detail::equal({a}, {b})", "!=": "!detail::equal({a}, {b})"}


def value_type(dtype) -> str:
    """The C++ type a host value of this dtype is held in: the kernel's own."""
    return c_type(dtype)


def int_literal(value: int, dtype) -> str:
    """A constant of this dtype as a C++ expression of the dtype's C type."""
    ctype = value_type(dtype)
    if dtype.is_bool:
        return "true" if value else "false"
    if ctype == "int" and -2 ** 31 < value < 2 ** 31:
        return str(value)
    if value == -2 ** 63:
        text = "(-9223372036854775807LL - 1)"
    elif value == -2 ** 31 and ctype == "int":
        return "(-2147483647 - 1)"
    elif value >= 2 ** 63:
        text = f"{value}ULL"
    else:
        text = f"{value}LL"
    return f"static_cast<{ctype}>({text})"


def cpp_expr(e: ir.Expr, names: dict[str, str], state: str = "tirx_ar") -> str:
    """`e` as a C++ expression; `names` maps each variable's name to the C++ local holding its
    value (of the variable's C type), `state` names the `detail::arith` local. Raises
    launcher.HostExprError where the CuPy launcher would."""
    py_expr(e)  # the same refusals as the CuPy launcher, with its words
    return _expr(e, names, state)


def _expr(e: ir.Expr, names: dict[str, str], st: str) -> str:
    cls = e.__class__
    ctype = value_type(e.dtype)
    if cls is ir.IntImm:
        return int_literal(e.value, e.dtype)
    if cls is ir.Var:
        return names[e.name]
    if cls is ir.Select:
        return (f"({_expr(e.cond, names, st)} ? static_cast<{ctype}>({_expr(e.a, names, st)}) : "
                f"static_cast<{ctype}>({_expr(e.b, names, st)}))")
    if cls is ir.Cast:
        return f"static_cast<{ctype}>({_expr(e.a, names, st)})"
    if cls is ir.UnaryOp:
        a = _expr(e.a, names, st)
        if e.op == "!":
            return f"(!static_cast<bool>({a}))"
        if e.op == "~":
            return f"detail::bit_not<{ctype}>({a})"
        return f"detail::neg<{ctype}>({a}, {st})"
    if cls is ir.Call:  # T.abs, T.clz, T.popcount
        operand = e.args[0]
        a = _expr(operand, names, st)
        name = ir.HOST_OPS[e.func]
        if name == "abs":
            return f"detail::abs_of<{ctype}>({a}, {st})"
        return f"static_cast<{ctype}>(detail::{name}<{value_type(operand.dtype)}>({a}, {operand.dtype.bits}))"
    a, b = _expr(e.a, names, st), _expr(e.b, names, st)
    op = e.op
    if op in ("&&", "||"):
        return f"(static_cast<bool>({a}) {op} static_cast<bool>({b}))"
    if op in _COMPARE:
        return "(" + _COMPARE[op].format(a=a, b=b) + ")"
    if op in _BITWISE:
        return f"static_cast<{ctype}>({a} {op} {b})"
    if op in ("min", "max"):
        return f"detail::{op}_of<{ctype}>({a}, {b})"
    if op in ("<<", ">>"):
        return f"detail::{_BINARY[op]}<{ctype}>({a}, {b}, {st})"
    return f"detail::{_BINARY[op]}<{ctype}>({a}, {b}, {st})"


def variables(exprs) -> list[ir.Var]:
    """The variables of these expressions, first occurrence first, each once."""
    seen, out = set(), []
    for e in exprs:
        for node in ir.walk_expr(e):
            if isinstance(node, ir.Var) and node.name not in seen:
                seen.add(node.name)
                out.append(node)
    return out
