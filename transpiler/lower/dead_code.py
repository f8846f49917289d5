"""Dead-code removal on a lowered body: declarations nothing reads, and the statements left
with nothing to do."""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.lower.facts import Facts, private_array, scan
from transpiler.target.cmath import PURE_CALLS


def _impure_calls(e: ir.Expr, pure) -> list[ir.Expr]:
    """What must still run of e when its value is dropped, in evaluation order: the
    outermost calls that may have side effects, and whole any conditional (`?:`,
    `&&`, `||`) with such a call in a part the source may skip, so that the call
    runs only when the source evaluates it."""
    cls = e.__class__
    if cls is ir.Call and e.func not in pure:
        return [e]
    if (cls is ir.Select and (_impure_calls(e.a, pure) or _impure_calls(e.b, pure))) or \
            (cls is ir.BinOp and e.op in ("&&", "||") and _impure_calls(e.b, pure)):
        return [e]
    out = []
    for x in ir.NODE_EXPRS[e.__class__](e):
        out.extend(_impure_calls(x, pure))
    return out


def drop_unused(body: ir.Stmt, pure=PURE_CALLS) -> tuple[ir.Stmt, Facts]:
    """Remove declarations nothing reads (nvcc warns about them), until none is left.
    Calls with side effects in a dropped value stay, as statements. Returns the body
    left and its facts."""
    facts = scan(body)
    while True:
        used, reads, read_vars = facts.used, facts.reads, facts.read_vars  # as facts is now

        def keep(node):
            cls = node.__class__
            if cls is ir.LetStmt:
                return node.var.name in read_vars
            if cls is ir.ArrayDecl:
                return id(node.storage) in reads
            if cls is ir.PointerDecl:
                return id(node.storage) in used
            if (cls is ir.Store or cls is ir.VecStore) and private_array(node.storage):
                return id(node.storage) in reads
            return True

        def effects(node) -> list[ir.Stmt]:
            calls = [c for e in ir.stmt_exprs(node) for c in _impure_calls(e, pure)]
            return [ir.Evaluate(c, c.span) for c in calls]
        changed: list = []
        body = _filter(body, keep, effects, changed)
        if not changed:  # nothing dropped: body is as it was
            return body, facts
        # keep() asks only whether a variable or storage is read or used at all: when
        # dropping left that as it was, another filter would drop nothing (and what is
        # left has nothing empty).
        unread = facts.forget(changed)
        if unread is None:
            before, facts = facts, scan(body)
            if (facts.used, facts.reads, facts.read_vars.keys()) == \
                    (before.used, before.reads, before.read_vars.keys()):
                return body, facts
        elif not unread:
            return body, facts


def _filter(s: ir.Stmt, keep, effects, changed: list) -> ir.Stmt:
    """Drop what `keep` rejects (keeping the `effects` of what is dropped), then
    statements left with nothing to do; appends each dropped statement to `changed`.
    A statement in which nothing is dropped comes back as it is."""
    cls = s.__class__
    if cls is ir.Seq:
        items = []
        same = True
        for x in s.body:
            if not keep(x):
                changed.append(x)
                items.extend(effects(x))
                same = False
                continue
            if x.__class__ not in _COMPOUND:  # kept, and nothing in it to drop or left empty
                items.append(x)
                continue
            y = _filter(x, keep, effects, changed)
            if _empty(y):
                changed.append(y)
                same = False
            else:
                items.append(y)
                same = same and y is x
        return s if same else ir.Seq(tuple(items), s.span)
    if cls is ir.Block:
        body = _filter(s.body, keep, effects, changed)
        return s if body is s.body else ir.Block(body, s.span)
    if cls is ir.For or cls is ir.While:
        body = _filter(s.body, keep, effects, changed)
        return s if body is s.body else replace(s, body=body)
    if cls is ir.If:
        then = _filter(s.then, keep, effects, changed)
        orelse = _filter(s.orelse, keep, effects, changed) if s.orelse else None
        return s if then is s.then and orelse is s.orelse else replace(s, then=then, orelse=orelse)
    if keep(s):
        return s
    changed.append(s)
    return ir.seq(effects(s))


_COMPOUND = frozenset({ir.Seq, ir.Block, ir.For, ir.While, ir.If})  # the statements holding statements


def _empty(s: ir.Stmt) -> bool:
    """A statement without effect: an empty block, or a `for` / `if` whose bodies are
    empty and whose bounds or condition call nothing (a `while` may never end: kept)."""
    cls = s.__class__
    if cls is ir.Seq:
        return all(_empty(x) for x in s.body)
    if cls is ir.Block:
        return _empty(s.body)
    if cls is ir.For:
        return _empty(s.body) and _pure(s.start, s.stop, s.step)
    if cls is ir.If:
        return _empty(s.then) and (s.orelse is None or _empty(s.orelse)) and _pure(s.cond)
    return False


def _pure(*exprs: ir.Expr) -> bool:
    return not any(isinstance(x, ir.Call) for e in exprs for x in ir.walk_expr(e))
