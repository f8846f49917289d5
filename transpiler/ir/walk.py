"""Traversal of the IR: rebuilding a node from its children, walking every
expression or statement under a node."""
from __future__ import annotations

from collections.abc import Callable

from transpiler.ir.nodes import (Address, ArrayDecl, Block, For, If, LetStmt, PointerDecl, While, BinOp,
                                 BufferAddress, BufferLoad, BufferVecLoad, Call, Cast, Expr, Load, Reinterpret,
                                 Select, Seq, Stmt, UnaryOp, VecLoad)
from transpiler.ir.nodes import LEAVES, NODE_EXPRS, _no_exprs
from transpiler.ir.fold import binop, cast, select, unary

# How a node of each class is rebuilt from f applied to the expressions directly in
# it (leaves have none): the node itself when f changes none of them, else a new
# one, made by the folding constructors.

def _map_binop(e: BinOp, f) -> Expr:
    a, b = f(e.a), f(e.b)
    return e if a is e.a and b is e.b else binop(e.op, a, b, e.span)


def _map_unary(e: UnaryOp, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else unary(e.op, a, e.span)


def _map_select(e: Select, f) -> Expr:
    cond, a, b = f(e.cond), f(e.a), f(e.b)
    return e if cond is e.cond and a is e.a and b is e.b else select(cond, a, b, e.span)


def _map_cast(e: Cast, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else cast(e.dtype, a, e.span)


def _map_reinterpret(e: Reinterpret, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else Reinterpret(e.dtype, a, e.span)


def _map_call(e: Call, f) -> Expr:
    args = _map_all(e.args, f)
    return e if args is e.args else Call(e.dtype, e.func, args, e.span)


def _map_buffer_access(e: BufferLoad | BufferVecLoad, f) -> Expr:
    indices = _map_all(e.indices, f)
    return e if indices is e.indices else e.__class__(e.dtype, e.buffer, indices, e.span)


def _map_buffer_address(e: BufferAddress, f) -> Expr:
    indices = None if e.indices is None else _map_all(e.indices, f)
    return e if indices is e.indices else BufferAddress(e.dtype, e.buffer, indices, e.span)


def _map_access(e: Load | VecLoad, f) -> Expr:
    index = f(e.index)
    return e if index is e.index else e.__class__(e.dtype, e.storage, index, e.span)


def _map_address(e: Address, f) -> Expr:
    index = None if e.index is None else f(e.index)
    return e if index is e.index else Address(e.dtype, e.storage, index, e.span)


def _map_all(items: tuple, f) -> tuple:
    """f over a tuple; the tuple itself when nothing changed."""
    out = tuple(f(x) for x in items)
    for new, old in zip(out, items):
        if new is not old:
            return out
    return items


_REBUILD = {
    BinOp: _map_binop, UnaryOp: _map_unary, Select: _map_select, Cast: _map_cast,
    Reinterpret: _map_reinterpret, Call: _map_call, BufferLoad: _map_buffer_access,
    BufferVecLoad: _map_buffer_access, BufferAddress: _map_buffer_address,
    Load: _map_access, VecLoad: _map_access, Address: _map_address,
}


def map_children(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """e with f applied to each expression directly in it, rebuilt by the folding
    constructors; e itself when f returns every one of them unchanged."""
    rebuild = _REBUILD.get(e.__class__)
    return e if rebuild is None else rebuild(e, f)




def seq(stmts) -> Stmt:
    flat: list[Stmt] = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, Seq):
            flat.extend(s.body)
        else:
            flat.append(s)
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def walk_expr(e: Expr):
    """Every node of an expression, parents before children."""
    stack = [e]
    pop, extend = stack.pop, stack.extend
    exprs_of = NODE_EXPRS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        if cls not in LEAVES:
            extend([x for x in exprs_of.get(cls, _no_exprs)(node) if isinstance(x, Expr)])


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions directly in a statement (a let's variable and a loop's among them)."""
    return [x for x in NODE_EXPRS.get(s.__class__, _no_exprs)(s) if isinstance(x, Expr)]


def declares(s: Stmt) -> bool:
    """Whether a statement list declares C names at its own level."""
    items = s.body if isinstance(s, Seq) else (s,)
    return any(isinstance(x, (LetStmt, ArrayDecl, PointerDecl)) for x in items)


def all_stmts(s: Stmt):
    """Every statement under s (s included), parents before children, in program order."""
    stack = [s]
    bodied = _BODIED
    while stack:
        node = stack.pop()
        if node is None:
            continue
        yield node
        cls = node.__class__
        if cls is Seq:
            stack.extend(reversed(node.body))
        elif cls in bodied:
            stack.append(node.body)
        elif cls is If:
            stack.append(node.orelse)
            stack.append(node.then)


_BODIED = frozenset({Block, For, While})  # statements with one `body` statement


def all_exprs(s: Stmt):
    """Every expression node under s: the statements in all_stmts order, each
    one's expressions as walk_expr visits them, then a loop's variable."""
    exprs_of, leaves = NODE_EXPRS, LEAVES
    for node in all_stmts(s):
        stack = list(exprs_of[node.__class__](node))
        stack.reverse()
        while stack:
            e = stack.pop()
            yield e
            cls = e.__class__
            if cls not in leaves:
                stack.extend(exprs_of[cls](e))
        if node.__class__ is For:
            yield node.var
