"""Evaluation discipline of the checker's IR: every expression with side effects is evaluated
exactly once, however many times the C text it becomes needs its value.

Where the checker (or a later stage, from what the checker builds) uses one operand twice -- the
middle operand of `a < b < c`, the divisor of `T.ceildiv`, the element of `A[i] += v`, an index
through a layout that splits it, a view's offset, a loop's stop and step, which C re-reads at
every iteration -- or where folding would drop it (`f() * 0`), an operand that is not pure is
bound first to a fresh immutable local (`int tmp = atomicAdd(...);`), queued on `st.pending` so
that it lands just before the statement being checked (a `while` condition's before each
test). Inside a lazily evaluated operand (the right side of `and` / `or`, a branch of
`x if c else y` or of `T.if_then_else`) there is no such place: the value may not be computed
at all, so binding it first would change what the kernel does; that case is reported as not
supported yet.

`st.lazy` counts the lazily evaluated operands being checked; `st.conds` holds the conditions
under which the expression being checked is evaluated (enclosing `if`s, non-empty loops, the
guards of lazy operands), which unrolled.py uses to tell a division by zero that runs from one
that never does.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax.source import Span
from transpiler.sema import state
from transpiler.evaluator.values import POISON, PyConst
from transpiler.target.cmath import PURE_CALLS
from transpiler.target.dtypes import BOOL


# Nodes whose value depends only on their operands: no memory read, no call.
_INVARIANT_NODES = frozenset({ir.IntImm, ir.FloatImm, ir.Var, ir.Builtin, ir.StrImm, ir.BinOp, ir.UnaryOp,
                              ir.Select, ir.Cast, ir.Reinterpret, ir.BufferAddress})


def _pure_call(e: ir.Call) -> bool:
    return e.func.startswith("math:") or e.func in PURE_CALLS


def is_pure(e) -> bool:
    """Whether evaluating e twice is the same as evaluating it once (no call with effects)."""
    if not isinstance(e, ir.Expr):
        return True
    for node in ir.walk_expr(e):
        if node.__class__ is ir.Call and not _pure_call(node):
            return False
    return True


def is_invariant(e) -> bool:
    """Whether e has the same value wherever it is evaluated in the kernel: made of constants,
    immutable variables (parameters, lets, ids, loop variables), thread registers and pure math;
    no read of memory (a mutable scalar, a buffer) and no call with effects."""
    if not isinstance(e, ir.Expr):
        return True
    for node in ir.walk_expr(e):
        cls = node.__class__
        if cls is ir.Call:
            if not node.func.startswith("math:"):
                return False
        elif cls not in _INVARIANT_NODES:
            return False
    return True


def bind(st, value: ir.Expr, base: str, span: Span) -> ir.Var:
    """A fresh immutable local holding value, declared before the current statement."""
    var = ir.Var(value.dtype, state.fresh(st, base), span)
    if ir.nonneg(value, st.nonneg):
        st.nonneg.add(var.name)
    st.pending.append(ir.LetStmt(var, value, span))
    return var


def lazy_refusal(st, what: str, span: Span) -> None:
    st.diags.error("E0518", f"{what}, in an operand that may not be evaluated (after `and` / `or`, in a branch "
                            f"of a conditional), is not supported yet", span,
                   help="compute the value in a statement of its own (`t: T.let = ...`), under an `if` when it "
                        "must stay conditional")


def share(st, operands: list, shared, what: str, span: Span, base: str = "tmp"):
    """operands, in the order the source evaluates them; the indices in `shared` are used more
    than once by what is built from them. When one of those is not pure it is bound to a fresh
    local, and so is every operand before it that is not invariant (so that the order of
    effects and reads stays the source's). Returns the new operand list, or None after an error
    (a lazy context)."""
    last = -1
    for k in shared:
        if isinstance(operands[k], ir.Expr) and not is_pure(operands[k]):
            last = max(last, k)
    if last < 0:
        return operands
    if st.lazy:
        lazy_refusal(st, what, span)
        return None
    out = list(operands)
    for k in range(last + 1):
        value = out[k]
        if isinstance(value, ir.Expr) and not is_invariant(value):
            at = getattr(value, "span", None)
            out[k] = bind(st, value, base, at if at is not None and at.line > 0 else span)
    return out


def once(st, value, what: str, span: Span, base: str = "tmp"):
    """value, bound to a fresh local when it is not pure (it is about to be used twice); None
    after an error."""
    out = share(st, [value], (0,), what, span, base)
    return None if out is None else out[0]


class Lazy:
    """`with Lazy(st, cond):` around the checking of an operand that is evaluated only when cond
    holds (cond None: a condition not known as IR, e.g. after an error)."""

    def __init__(self, st, cond):
        self.st, self.cond = st, cond

    def __enter__(self):
        self.st.lazy += 1
        self.st.conds.append(self.cond if isinstance(self.cond, ir.Expr) else None)
        return self

    def __exit__(self, *exc):
        self.st.lazy -= 1
        self.st.conds.pop()
        return False


class Guard:
    """`with Guard(st, cond):` around the checking of statements that run only when cond holds."""

    def __init__(self, st, cond):
        self.st, self.cond = st, cond

    def __enter__(self):
        self.st.conds.append(self.cond if isinstance(self.cond, ir.Expr) else None)
        return self

    def __exit__(self, *exc):
        self.st.conds.pop()
        return False


def truth(value):
    """The condition a checked operand gives when it is tested (`a and b`: b runs when a is
    true), or None when it is not a scalar integer or bool."""
    if isinstance(value, ir.Expr) and value.dtype.lanes == 1 and (value.dtype.is_int or value.dtype.is_bool):
        return value
    if isinstance(value, PyConst) and isinstance(value.value, (bool, int, float)):
        return ir.IntImm(BOOL, int(bool(value.value)))
    return None


def negate(cond):
    return ir.unary("!", cond) if isinstance(cond, ir.Expr) else None


def binop(st, op: str, a: ir.Expr, b: ir.Expr, span: Span,
          what: str = "a call with side effects whose value the result does not depend on"):
    """ir.binop(op, a, b), except that folding never drops an operand with side effects: `f() * 0`
    and `f() % 1` fold to 0, so f() is bound first (and still runs once). POISON after an error."""
    result = ir.binop(op, a, b, span)
    if result.__class__ not in (ir.IntImm, ir.FloatImm) or (ir.is_const(a) and ir.is_const(b)):
        return result
    kept = share(st, [a, b], (0, 1), what, span)
    if kept is None:
        return POISON
    return ir.binop(op, kept[0], kept[1], span)
