"""Comprehensions and generator expressions, evaluated as CPython runs them: each `for` runs over a
compile-time sequence, each `if` is a compile-time condition, and the targets are bound in the
comprehension's own scope (as TVMScript evaluates a comprehension with Python, `range` being
Python's).

A list, set or dict comprehension makes its items at once. A generator expression makes them when
its consumer asks: iterated by a `for` or by a comprehension, each item is made between the
consumer's own steps, so the effects of both interleave as in CPython
(`for v in (xs.append(i) or i for i in ...)` appends before each pass of the body, and an error in
an item the consumer never asks for is never raised); `any`/`all` stop at the item that decides.
Its outermost iterable is evaluated where it is made, and its items see the scopes of that place,
not the consumer's. Used up at once by a builtin (`sum`, `list`, ...) it is its items; kept as a
value it is refused by name (core.kept_iterator_refused)."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.evaluator.box import NO_KEY, new_dict, new_list, new_set
from transpiler.evaluator.core import ASKED_ITEM_BY_ITEM, GeneratorStopped, MadeLazily, bind_target, dict_key, \
    iterable, iterate, kept_iterator_refused, pack, step, truth
from transpiler.evaluator.values import POISON, Poison, PyConst


def _elab_ListComp(st, node: ast.ListComp):
    """A comprehension's value: a new list, set or dict, or a generator expression's items (used
    up where it is made) or its lazily made items (asked for one at a time by a `for` or a
    comprehension)."""
    if node.kind == "generator":
        if id(node) in ASKED_ITEM_BY_ITEM:
            return _made_lazily(st, node)
        if kept_iterator_refused(st, node, "a generator expression"):
            return POISON
    items = _outermost(st, node)
    if items is None:
        return POISON
    scope: dict = {}
    st.scopes.append(scope)  # the comprehension's own scope: its targets may shadow outer names
    try:
        out = list(_made(st, node, 0, scope, items))
    except GeneratorStopped:
        out = None
    finally:
        st.scopes.pop()
    if out is None:
        return POISON
    if node.kind == "dict":
        return new_dict(dict(out))
    if node.kind == "list":
        return new_list(out)
    if node.kind == "set":
        return new_set(st, out, [node.elt] * len(out))
    return pack(out)  # a generator, used up where it is made: its items


def any_all_of_generator(st, name: str, node: ast.ListComp):
    """`any(... for ...)` / `all(... for ...)`: the items made one at a time up to the one that
    decides, as CPython makes them (the items after it are never evaluated)."""
    items = _outermost(st, node)
    if items is None:
        return POISON
    scope: dict = {}
    st.scopes.append(scope)
    try:
        for value in _made(st, node, 0, scope, items):
            found = truth(st, value, node, f"`{name}`")
            if found is None:
                return POISON
            if found == (name == "any"):
                return PyConst(found)
    except GeneratorStopped:
        return POISON
    finally:
        st.scopes.pop()
    return PyConst(name == "all")


def _made_lazily(st, node: ast.ListComp):
    """A generator expression a `for` or a comprehension iterates: its outermost iterable evaluated
    now, its items made when asked, each with the scopes of the place it was made (and its own)."""
    items = _outermost(st, node)
    if items is None:
        return POISON
    scope: dict = {}
    return MadeLazily(_resumed(st, list(st.scopes) + [scope], _made(st, node, 0, scope, items)))


def _resumed(st, scopes: list, made):
    """made's items, each made with scopes in place of the consumer's (restored after each)."""
    while True:
        consumer, st.scopes = st.scopes, list(scopes)
        try:
            item = next(made)
        except StopIteration:
            return
        finally:
            st.scopes = consumer
        yield item


def _outermost(st, node: ast.ListComp):
    """The items of the first `for`'s iterable, evaluated in the enclosing scopes as CPython does
    (None after an error)."""
    first = node.generators[0]
    return iterate(st, iterable(st, first.iter), first.iter, "a comprehension")


def _made(st, node: ast.ListComp, k: int, scope: dict, items):
    """The comprehension's items for its k-th `for` over items and the `for`s after it, made one
    at a time with the targets bound in scope; GeneratorStopped after an error (reported)."""
    gen = node.generators[k]
    for item in items:
        if not step(st, gen.span) or not bind_target(st, gen.target, item, scope):
            raise GeneratorStopped
        if not _kept(st, gen):
            continue
        if k + 1 < len(node.generators):
            inner = node.generators[k + 1]
            inner_items = iterate(st, iterable(st, inner.iter), inner.iter, "a comprehension")
            if inner_items is None:
                raise GeneratorStopped
            yield from _made(st, node, k + 1, scope, inner_items)
        else:
            yield _element(st, node)


def _kept(st, gen: ast.Comprehension) -> bool:
    """Whether every `if` of gen holds for the current item."""
    for test in gen.ifs:
        cond = truth(st, st.host.elab(st, test), test, "a comprehension's `if`")
        if cond is None:
            raise GeneratorStopped
        if not cond:
            return False
    return True


def _element(st, node: ast.ListComp):
    """The element (a dict comprehension's key and value) for the current targets."""
    if node.kind == "dict":
        key = dict_key(st, st.host.elab(st, node.key), node.key)
        value = st.host.elab(st, node.elt)
        if key is NO_KEY or isinstance(value, Poison):
            raise GeneratorStopped
        return key, value
    value = st.host.elab(st, node.elt)
    if isinstance(value, Poison):
        raise GeneratorStopped
    return value
