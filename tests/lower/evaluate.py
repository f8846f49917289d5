"""A tiny interpreter for integer index expressions of the kernel IR, with the
semantics each operator has in the generated C (floor ops as Python's // and
%, C's truncating / and % for truncdiv / truncmod, 32-bit wrap-around)."""
from __future__ import annotations

from transpiler import ir


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b, "floormod": lambda a, b: a % b,
    "truncdiv": _trunc_div, "truncmod": lambda a, b: a - _trunc_div(a, b) * b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "min": min, "max": max,
}


def wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def evaluate(e: ir.Expr, env: dict[str, int]) -> int:
    if isinstance(e, ir.IntImm):
        return e.value
    if isinstance(e, ir.Var):
        return env[e.name]
    if isinstance(e, ir.BinOp):
        return wrap32(_OPS[e.op](evaluate(e.a, env), evaluate(e.b, env)))
    if isinstance(e, ir.UnaryOp):
        a = evaluate(e.a, env)
        return wrap32({"-": -a, "~": ~a, "!": int(not a)}[e.op])
    if isinstance(e, ir.Select):
        return evaluate(e.a, env) if evaluate(e.cond, env) else evaluate(e.b, env)
    if isinstance(e, ir.Call) and e.func in ("tirx_floordiv", "tirx_floormod"):
        a, b = (evaluate(x, env) for x in e.args)
        return a // b if e.func == "tirx_floordiv" else a % b
    raise TypeError(f"cannot evaluate {type(e).__name__}")
