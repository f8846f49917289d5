"""8- and 16-bit integer arithmetic made exact in C (docs/design.md, decision 22: the
kernel computes what folding computes).

C widens such operands to int, so `a + b` of two uint8 is 300 where the IR's value, and
every folded constant, is 44: the rules are ir/fold.py's (promoted, leaves_range,
modular_operands, overflows_int). This pass converts a result back to its type,
`(unsigned char)(a + b)`, exactly where its consumer needs more than its low bits: not
in a store or `let` of its type, nor as an operand of another operation that wraps alike
(`(a + b) - c` wraps once, at its end), but in a division, a right shift, a comparison,
a call, a wider conversion or an 8-bit product. 16-bit products and left shifts of a
signed or 16-bit value, which could overflow int, are computed in unsigned int. 32- and
64-bit code is left as it is.

Only casts are added, as nodes built directly (the folding constructors would drop a
conversion of a value to its own dtype): it runs on the finished body, after the passes
that rebuild expressions.
"""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.ir.fold import leaves_range, modular_operands, overflows_int, promoted
from transpiler.target.dtypes import UINT32


def _need(dtype) -> int | None:
    """The low bits of a value that a conversion to dtype keeps (None: all of it)."""
    return dtype.bits if dtype.is_int and dtype.lanes == 1 else None


def _unsigned(x: ir.Expr) -> ir.Expr:
    """An operand of an operation computed in unsigned int, which needs only its low bits: an
    operation computed there already is taken as it is, without its conversion back."""
    if x.__class__ is ir.Cast and x.a.dtype == UINT32 and promoted(x.dtype):
        return x.a
    return ir.cast(UINT32, x)


def exact(e: ir.Expr, need: int | None = None) -> ir.Expr:
    """e with its narrow results converted back to their types wherever C's value could
    differ from the IR's in the low `need` bits that the consumer of e uses (None: all)."""
    cls = e.__class__
    if cls in ir.LEAVES:
        return e
    dtype = e.dtype
    if cls is ir.BinOp:
        op = e.op
        if promoted(dtype) and modular_operands(e):
            inner = need if op in ("&", "|", "^") else dtype.bits  # a bitwise result is as clean as its operands
            a, b = exact(e.a, inner), exact(e.b, None if op == "<<" else inner)
        else:
            a, b = exact(e.a), exact(e.b)
        node = e if a is e.a and b is e.b else ir.BinOp(dtype, op, a, b, e.span)
        if promoted(dtype) and leaves_range(node):
            if overflows_int(node):
                node = ir.BinOp(UINT32, op, _unsigned(a), _unsigned(b), e.span)
            elif need is not None and need <= dtype.bits:
                return node
            node = ir.Cast(dtype, node, e.span)
        return node
    if cls is ir.UnaryOp:
        modular = promoted(dtype) and modular_operands(e)
        a = exact(e.a, dtype.bits if modular else None)
        node = e if a is e.a else ir.UnaryOp(dtype, e.op, a, e.span)
        if modular and (need is None or need > dtype.bits):
            node = ir.Cast(dtype, node, e.span)
        return node
    if cls is ir.Cast or cls is ir.Reinterpret:
        # an integer conversion keeps the low bits of its target's width; anything else needs the value
        a = exact(e.a, _need(dtype) if e.a.dtype.is_int else None)
        return e if a is e.a else cls(dtype, a, e.span)
    if cls is ir.Select:
        branches = need if promoted(dtype) else None
        cond, a, b = exact(e.cond), exact(e.a, branches), exact(e.b, branches)
        return e if cond is e.cond and a is e.a and b is e.b else ir.Select(dtype, cond, a, b, e.span)
    return ir.map_children(e, exact)  # a call, a load, an address: every operand whole


def exact_stmt(s: ir.Stmt) -> ir.Stmt:
    """exact() over every expression of a lowered statement, with the context each has: a
    stored value or a `let` needs the low bits of its type, anything else its whole value."""
    cls = s.__class__
    if cls is ir.Seq:
        body = tuple(exact_stmt(x) for x in s.body)
        return s if all(x is y for x, y in zip(body, s.body)) else ir.Seq(body, s.span)
    if cls is ir.Block or cls is ir.While or cls is ir.For or cls is ir.If:
        changes = {}
        for name in ("cond", "start", "stop", "step"):
            old = getattr(s, name, None)
            if old is not None:
                new = exact(old)
                if new is not old:
                    changes[name] = new
        for name in ("body", "then", "orelse"):
            old = getattr(s, name, None)
            if old is not None:
                new = exact_stmt(old)
                if new is not old:
                    changes[name] = new
        return replace(s, **changes) if changes else s
    if cls is ir.Store:
        index, value = exact(s.index), exact(s.value, _need(s.storage.dtype))
        return s if index is s.index and value is s.value else ir.Store(s.storage, index, value, s.span)
    if cls is ir.LetStmt:
        value = exact(s.value, _need(s.var.dtype))
        return s if value is s.value else ir.LetStmt(s.var, value, s.span)
    if cls is ir.VecStore:
        index, value = exact(s.index), exact(s.value)
        return s if index is s.index and value is s.value else ir.VecStore(s.storage, index, value, s.span)
    if cls is ir.Evaluate:
        value = exact(s.value)
        return s if value is s.value else ir.Evaluate(value, s.span)
    if cls is ir.Trap:
        cond = exact(s.cond)
        return s if cond is s.cond else ir.Trap(cond, s.message, s.span)
    if cls is ir.PointerDecl:
        offset = exact(s.offset)
        return s if offset is s.offset else ir.PointerDecl(s.storage, offset, s.span)
    return s  # declarations and jumps hold no expression
