"""Values that are constant in each copy of a `T.unroll` loop: `vb * 64` in the body of
`for vb in T.unroll(4)` is 0, 64, 128 and 192 in the four copies lowering makes, so where TIRx
asks for a compile-time integer it is one, copy by copy, and tirxc checks each copy's value
(unrolled.py's replay of lowering's folding): a `T.ptx.addr` byte offset, the bounds of an inner
`T.unroll` loop (`for j in T.unroll(i + 1)`), the extents of a view over existing storage
(`T.decl_buffer((32 * (i + 1),), data=...)`, `buf.view(64 * (i + 1))`)."""
from __future__ import annotations

from itertools import product
from math import prod

from transpiler import ir
from transpiler.evaluator.values import Poison, PyConst
from transpiler.sema.expressions import expr
from transpiler.sema.kernel.unrolled import CHECK_BUDGET, inline_lets, substitute


def per_copy(st, e: ir.Expr) -> list[int] | None:
    """The value of the integer expression e in each copy of the enclosing `T.unroll` loops, when
    it is a constant in every copy (it mentions no other variable); None otherwise."""
    loops = st.unroll_vars
    if not loops or not isinstance(e, ir.Expr) or not e.dtype.is_int or e.dtype.lanes != 1:
        return None
    if st.unroll_lets:  # `x: T.let = i * 4` in the body: a constant in each copy too
        e = inline_lets(e, st.unroll_lets)
    mentioned = {node.name for node in ir.walk_expr(e) if node.__class__ is ir.Var}
    names = [n for n in loops if n in mentioned]  # outermost loop first
    if not names or mentioned - set(names):
        return None
    copies = prod(len(loops[n][1]) for n in names)
    if st.unroll_work + copies > CHECK_BUDGET:
        return None
    st.unroll_work += copies
    values = []
    for combination in product(*(loops[n][1] for n in names)):
        value = substitute(e, {n: ir.IntImm(loops[n][0].dtype, v) for n, v in zip(names, combination)})
        if value.__class__ is not ir.IntImm:
            return None
        values.append(value.value)
    return values


def const_int_per_copy(st, node, what: str):
    """A compile-time integer as expr.const_int reads it, or an expression constant in each copy of
    the enclosing `T.unroll` loops: (the integer, None), (the expression, its value in each copy),
    or (None, None) after an error."""
    value = expr.enum_value(expr.elab(st, node))
    if isinstance(value, Poison):
        return None, None
    if isinstance(value, PyConst) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return value.value, None
    if isinstance(value, ir.IntImm):
        return value.value, None
    copies = per_copy(st, value)
    if copies is not None:
        return value, copies
    st.diags.error("E0202", f"{what} must be a compile-time integer", node.span,
                   help="a constant, or an expression of `T.unroll` loop variables (a constant in each copy)")
    return None, None


def iteration_values(starts: list[int], stops: list[int], steps: list[int]) -> list[int]:
    """The values an unrolled loop's variable takes in some copy, given its bounds in each copy
    of the enclosing loops (the checks of unrolled.py try each; lowering expands each copy by its
    own bounds)."""
    values: set[int] = set()
    for start, stop, step in zip(starts, stops, steps):
        values.update(range(start, stop, step))
    return sorted(values)


def loop_bounds(st, start: ir.Expr, stop: ir.Expr, step: ir.Expr):
    """The bounds of an inner `T.unroll` loop that are constant in each copy of the enclosing ones,
    as (starts, stops, steps, largest trip count); None when one of them is not."""
    per = []
    for bound in (start, stop, step):
        if isinstance(bound, ir.IntImm):
            per.append(None)
            continue
        values = per_copy(st, _joined(bound, start, stop, step))
        if values is None:
            return None
        per.append(values)
    count = max((len(v) for v in per if v is not None), default=1)
    starts, stops, steps = ([b.value] * count if v is None else v for b, v in zip((start, stop, step), per))
    if any(len(x) != count for x in (starts, stops, steps)) or 0 in steps:
        return None
    trips = max(max(0, -(-(b - a) // c)) for a, b, c in zip(starts, stops, steps))
    return starts, stops, steps, trips


def _joined(bound: ir.Expr, *bounds: ir.Expr) -> ir.Expr:
    """`bound` over the loop variables all the bounds mention, so that each bound's per-copy values
    line up copy by copy (`bound + 0 * other`: folded away in each copy)."""
    joined = bound
    for other in bounds:
        if other is not bound and not isinstance(other, ir.IntImm):
            joined = ir.BinOp(bound.dtype, "+", joined, ir.BinOp(bound.dtype, "*", ir.IntImm(bound.dtype, 0),
                                                                 ir.cast(bound.dtype, other)))
    return joined

