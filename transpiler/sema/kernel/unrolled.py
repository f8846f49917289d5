"""What `T.unroll` makes of its body, checked before lowering expands it.

Lowering binds the loop variable of each copy to a constant and folds every expression as it is
rebuilt. A divisor or a shift count that only becomes constant there (`7 // i` in the copy where
`i` is 0, `1 << (i * 1000000)`) would reach folding or the printer unchecked; `check_operand`
replays that folding here, copy by copy, for the divisors and shift counts that mention the
variables of the enclosing `T.unroll` loops, and reports the first copy that would run a
division by zero or an out-of-range shift (a copy whose guards fold to false never runs it).

`unrolled_size` measures the code an unrolled loop becomes (expression nodes and statements,
nested unrolled loops multiplied out), which statements.py holds to UNROLL_NODES.
"""
from __future__ import annotations

from itertools import product
from math import prod

from transpiler import ir
from transpiler.syntax.source import Span


UNROLL_NODES = 1 << 19  # expression nodes and statements after unrolling, in one kernel statement


# Substituted copies the checks of one kernel may evaluate; past it the checks stop (the
# unrolled code is then too large anyway, and UNROLL_NODES reports it at the loop).
CHECK_BUDGET = 1 << 20


def substitute(e: ir.Expr, env: dict) -> ir.Expr:
    """e with the variables of env replaced by their constants and folded as lowering folds it,
    except that a shift by a constant outside the operand's width is never folded (folding it
    would build an unbounded integer)."""
    cls = e.__class__
    if cls is ir.Var:
        return env.get(e.name, e)
    if cls in ir.LEAVES:
        return e
    if cls is ir.BinOp and e.op in ("<<", ">>"):
        a, b = substitute(e.a, env), substitute(e.b, env)
        if b.__class__ is ir.IntImm and not 0 <= b.value < e.dtype.bits:
            return ir.BinOp(e.dtype, e.op, a, b, e.span)
        return ir.binop(e.op, a, b, e.span)
    return ir.map_children(e, lambda x: substitute(x, env))


def _names(e: ir.Expr) -> list[str]:
    return [node.name for node in ir.walk_expr(e) if node.__class__ is ir.Var]


def check_operand(st, kind: str, operand: ir.Expr, dtype, span: Span) -> bool:
    """kind "division": operand is a divisor that must not be 0 in any copy that runs it; kind
    "shift": a shift count that must stay in 0..bits-1 of dtype. False after reporting."""
    loops = st.unroll_vars
    if not loops or operand.__class__ is ir.IntImm:
        return True
    lets = st.unroll_lets
    if lets:  # `x: T.let = i - 1` in the body: a constant in each copy too
        operand = inline_lets(operand, lets)
    names = [n for n in _names(operand) if n in loops]
    if not names:
        return True
    guards = [inline_lets(g, lets) if lets else g for g in st.conds if g is not None]
    if any(_false(g) for g in guards):
        return True  # never runs (`False and 7 // i`)
    guards = [g for g in guards if any(n in loops for n in _names(g))]
    for g in guards:
        names += [n for n in _names(g) if n in loops]
    names = [n for n in loops if n in names]  # once each, outermost loop first
    copies = prod(len(loops[n][1]) for n in names)
    if st.unroll_work + copies > CHECK_BUDGET:
        return True
    st.unroll_work += copies
    for values in product(*(loops[n][1] for n in names)):
        env = {n: ir.IntImm(loops[n][0].dtype, v) for n, v in zip(names, values)}
        if any(_false(substitute(g, env)) for g in guards):
            continue
        value = substitute(operand, env)
        if value.__class__ is not ir.IntImm:
            continue
        where = " and ".join(f"`{loops[n][2]}` is {v}" for n, v in zip(names, values))
        if kind == "division" and value.value == 0:
            st.diags.error("E0306", f"integer division by zero in the copy of `T.unroll` where {where}", span,
                           help="guard the division (`if ...:`) or change the loop's range")
            return False
        if kind == "shift" and not 0 <= value.value < dtype.bits:
            st.diags.error("E0318", f"shift count {value.value} is outside 0..{dtype.bits - 1} for {dtype} in the "
                                    f"copy of `T.unroll` where {where}", span,
                           help="shifting by the width of the type or more is undefined in CUDA C++")
            return False
    return True


def inline_lets(e: ir.Expr, lets: dict) -> ir.Expr:
    """e with the `T.let` variables of unrolled bodies replaced by their values."""
    cls = e.__class__
    if cls is ir.Var:
        value = lets.get(e.name)
        return e if value is None else inline_lets(value, lets)
    if cls in ir.LEAVES:
        return e
    return ir.map_children(e, lambda x: inline_lets(x, lets))


def _false(cond: ir.Expr) -> bool:
    return cond.__class__ is ir.IntImm and not cond.value


def operator_span(st, left: Span, right: Span, text: str, fallback: Span) -> Span:
    """The span of the operator `text` between two operands on one line (`7 // i`: the `//`),
    else fallback."""
    if left.end_line != right.line or left.line <= 0:
        return fallback
    line = st.module.source.line_text(left.end_line)
    at = line.find(text, left.end_col - 1, right.col - 1)
    if at < 0:
        return fallback
    return Span(left.file, left.end_line, at + 1, left.end_line, at + 1 + len(text))


# -- size -----------------------------------------------------------------------------------------------
def unrolled_size(stmts) -> int:
    """Statements and expression nodes of stmts as lowering will print them: nested `T.unroll`
    loops count once per copy, and an expression shared between places once per place."""
    memo: dict[int, int] = {}
    return sum(_stmt_size(s, memo) for s in stmts)


def _expr_size(e, memo: dict) -> int:
    if not isinstance(e, ir.Expr):
        return 0
    key = id(e)
    known = memo.get(key)
    if known is not None:
        return known
    cls = e.__class__
    size = 1
    if cls not in ir.LEAVES:
        size += sum(_expr_size(x, memo) for x in ir.NODE_EXPRS[cls](e))
    memo[key] = size
    return size


def _stmt_size(s, memo: dict) -> int:
    if s is None:
        return 0
    cls = s.__class__
    size = 1 + sum(_expr_size(x, memo) for x in ir.NODE_EXPRS.get(cls, lambda _: ())(s))
    if cls is ir.Seq:
        size += sum(_stmt_size(x, memo) for x in s.body)
    elif cls is ir.For:
        body = _stmt_size(s.body, memo)
        if s.kind == "unroll" and all(isinstance(x, ir.IntImm) for x in (s.start, s.stop, s.step)):
            body *= len(range(s.start.value, s.stop.value, s.step.value))
        size += body
    elif cls in (ir.Block, ir.While):
        size += _stmt_size(s.body, memo)
    elif cls is ir.If:
        size += _stmt_size(s.then, memo) + _stmt_size(s.orelse, memo)
    return size
