"""The Python level of a `.tx` file, evaluated at compile time (never by exec/eval/import):
`*` and `**` unpacking, compile-time sequences and dicts, what a `for` iterates, tuple targets and
the step budget every compile-time loop draws from. The builtins are in builtins.py, the
comprehensions in comprehensions.py; the file's helper functions are the checker's
(sema/library/macros.py).

Compile-time containers: a tuple or list whose items are all Python constants is a
`PyConst(tuple)`; one holding other values (IR expressions, buffers, layouts ...) is a Python
tuple of those values (`pack`); a dict is a `PyDict` over CPython's own dict; a list or set is a
view of its box, which holds CPython's own list or set (box.py). Its `_elab_` functions are node rules (nodes.py) of the checker's dispatch."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.syntax import ast
from transpiler.evaluator import environ as pyeval_environ
from transpiler.evaluator import budget
from transpiler.evaluator.budget import ITEMS_SEEN, charge_items, step, weight
from transpiler.evaluator.box import NO_KEY, ListConst, box_of, constant_display, dict_value, fresh, from_key, \
    from_python, iterated_display, new_list, python_item, python_key, random_order, view
from transpiler.evaluator.values import Binding, Builtin, Helper, IdTuple, LoopRange, POISON, Poison, PyConst, PyDict, \
    SliceVal, describe

_SCALARS = (int, float, str, bool, type(None))


def kind_of(val) -> str:
    """What a value is, for a message."""
    box = box_of(val)
    if box is not None:
        return f"a {box.kind}"
    if isinstance(val, PyDict):
        return "a dict"
    if isinstance(val, Helper):
        return f"function `{val.fdef.name}`"
    if isinstance(val, Builtin):
        return f"the builtin `{val.name}`"
    if isinstance(val, LoopRange):
        return "a loop range"
    return describe(val)


def errors(st) -> int:
    return sum(d.severity == "error" for d in st.diags.items)


# -- values as sequences ---------------------------------------------------------------------------
def pack(items) -> object:
    """A compile-time sequence of elaborated items, as expr._sequence makes one."""
    items = tuple(items)
    if all(i.__class__ is PyConst for i in items):
        return PyConst(tuple(i.value for i in items))
    return items


def python_range(val) -> range | None:
    """CPython's range of a `range` of compile-time integers; None for anything else."""
    if isinstance(val, LoopRange) and val.kind == "serial" and len(val.starts) == 1 and all(
            isinstance(x, ir.IntImm) for x in (val.starts[0], val.stops[0], val.steps[0])):
        return range(val.starts[0].value, val.stops[0].value, val.steps[0].value)
    return None


def items_of(val):
    """The items of a compile-time sequence, each an elaborated value; None when val is not one."""
    box = box_of(val)
    if box is not None:
        whole = view(box)
        return [PyConst(i) for i in whole.value] if whole.__class__ is ListConst else [fresh(i) for i in whole]
    if isinstance(val, PyConst):
        v = val.value
        if isinstance(v, (tuple, str)):  # cut as a range is (below): the items are made before they are charged
            return [PyConst(x) for x in v[:budget.STEP_BUDGET + 1]]
        return None
    if isinstance(val, tuple):
        return [fresh(i) for i in val]
    if isinstance(val, PyDict):
        return [from_key(k) for k in val.items]
    if isinstance(val, IdTuple):
        return list(val.vars)
    whole = python_range(val)
    if whole is not None:
        # longer than the budget: cut (every caller draws len(items) steps, so the cut is reported)
        return [PyConst(i) for i in whole[:budget.STEP_BUDGET + 1]]
    members = getattr(val, "iteration_items", None)  # (an Enum class of the file: its members)
    return None if members is None else members()


def order_refused(st, val, node, what: str, ordering: bool = False) -> bool:
    """True (reported) when val is a set whose order CPython changes from run to run (one holding
    strings, enum members, None or a nan: box.random_order) and `what` depends on that order:
    tirxc's output must not. With `ordering` (`sorted`, `min`, `max`, which do not depend on it),
    only a set holding a nan, which orders no two items, is refused."""
    box = box_of(val)
    if box is None or not random_order(box) or ordering and not any(k != k for k in box.items
                                                                      if isinstance(k, float)):
        return False
    st.diags.error("E0137", f"{what} over a set holding strings, enum members, None or nan is not supported: "
                            f"CPython's order of it changes from run to run (hash randomisation)", node.span,
                   help="iterate `sorted(s)` instead")
    return True


# A generator expression, and the iterators `zip`, `enumerate` and `reversed` make, are taken only
# where one complete pass uses them up where they are made (`for`, a comprehension's `for`,
# `list(...)`, `sum(...)` ...): kept in a name and iterated twice, CPython's second pass is empty.
# So each is taken only as such an operand (the nodes in USED_UP_HERE while their consumer evaluates
# them) and refused by name anywhere else; used up by a builtin, it is its items.
USED_UP_HERE: set = set()
# A generator expression that a `for` or a comprehension iterates is not evaluated at once: its items
# are made as the consumer asks for them, between the consumer's own steps, as CPython makes them
# (transpiler/evaluator/comprehensions.py). Its value there is a MadeLazily, which only `iterate` takes.
ASKED_ITEM_BY_ITEM: set = set()


class MadeLazily:
    """A generator expression being used up by the `for` or comprehension that iterates it: `items`
    makes each item when asked (GeneratorStopped after an error it reported)."""
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class GeneratorStopped(Exception):
    """A generator expression made lazily met an error (reported): its consumer stops there."""


def used_up(st, node, item_by_item: bool = False):
    """node's value, evaluated as the operand that one pass uses up (see USED_UP_HERE); a generator
    expression's items made as they are asked for when item_by_item (see ASKED_ITEM_BY_ITEM)."""
    USED_UP_HERE.add(id(node))
    if item_by_item:
        ASKED_ITEM_BY_ITEM.add(id(node))
    try:
        return st.host.elab(st, node)
    finally:
        USED_UP_HERE.discard(id(node))
        ASKED_ITEM_BY_ITEM.discard(id(node))


def kept_iterator_refused(st, node, what: str) -> bool:
    """True (reported) when the iterator `what` makes at node is not used up where it is made."""
    if id(node) in USED_UP_HERE:
        return False
    st.diags.error("E0109", f"{what} kept as a value is not supported yet: tirxc takes it only where one pass "
                            "uses it up where it is made", node.span,
                   help="iterate it where it is made (`for ... in ...`, a comprehension, `list(...)`, "
                        "`tuple(...)`, `sum(...)`, `any(...)` ...), or make a list of it first")
    return True


def iterable(st, node):
    """The value a `for` or a comprehension iterates: node's, but for a set display of constants,
    which CPython iterates as the frozenset constant its optimiser folds it to (box.iterated_display)."""
    if not constant_display(node):
        return used_up(st, node, item_by_item=True)
    items = [st.host.elab(st, e) for e in node.elts]
    return POISON if any(isinstance(i, Poison) for i in items) else iterated_display(st, items, node.elts)


def iterate(st, val, node, what: str):
    """The items a `for` or a comprehension goes through, with an error naming `what` when val is
    not a compile-time sequence: a list, set or dict's live (`live`), a generator expression's made
    when asked (MadeLazily), a tuple's, string's or range's at once."""
    if val.__class__ is MadeLazily:
        return val.items
    if isinstance(val, Poison) or order_refused(st, val, node, what):
        return None
    if val is pyeval_environ.ENVIRON:
        pyeval_environ.refuse(st, node.span, f"iterating over `os.environ` in {what}")
        return None
    box = box_of(val)
    if box is not None:
        return live(st, box.items, from_python if box.kind == "list" else from_key, node)
    if isinstance(val, PyDict):
        return live(st, val.items, from_key, node)
    items = items_of(val)
    if items is not None:
        return items if step(st, node.span, len(items)) else None
    if isinstance(val, LoopRange):
        st.diags.error("E0132", f"{what} needs a `range` of compile-time integers", node.span,
                       help="a `range` over run-time bounds is a kernel loop: use `for`")
    else:
        st.diags.error("E0132", f"{what} iterates over a compile-time tuple, list, string, dict or `range`, "
                                f"not {kind_of(val)}", node.span)
    return None


def live(st, items, made, node):
    """CPython's own iterator over a list, set or dict (items), each item made into a value as it is
    reached: a `for` whose body appends to the list it iterates reaches the new items, and one that
    changes the size of a dict or set it iterates fails, as in CPython (GeneratorStopped after an
    error, reported)."""
    iterator = iter(items)
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except RuntimeError as err:  # (a dict or set changed size during iteration)
            st.diags.error("E0137", f"compile-time evaluation failed: {err}", node.span)
            raise GeneratorStopped from None
        if not step(st, node.span):
            raise GeneratorStopped
        yield made(item)


def as_node(value, span) -> ast.Expr:
    """An elaborated value standing in for an argument: a constant as a Constant (handlers look
    for `None` and literals), anything else as a Value."""
    if value.__class__ is PyConst and isinstance(value.value, _SCALARS):
        return ast.Constant(span, value.value)
    return ast.Value(span, value)


def index_node(item, span) -> ast.Expr:
    """An elaborated index standing in for one written out: a `slice(...)` value as the slice."""
    if isinstance(item, SliceVal):
        parts = (item.lower, item.upper, item.step)
        return ast.Slice(span, *(None if p is None else ast.Value(span, p) for p in parts))
    return as_node(item, span)


# -- `*` and `**` ------------------------------------------------------------------------------------
def has_unpacking(node: ast.Call) -> bool:
    for arg in node.args:
        if arg.__class__ is ast.Starred:
            return True
    for kw in node.keywords:
        if kw.__class__ is ast.DoubleStarred:
            return True
    return False


def expand_call(st, node: ast.Call):
    """The call with every `*seq` argument replaced by the sequence's items and every `**d` by
    its keywords, each an already elaborated value (ast.Value), so that no handler sees `*` or
    `**`. None after an error (reported)."""
    args: list = []
    ok = True
    for arg in node.args:
        if arg.__class__ is not ast.Starred:
            args.append(arg)
            continue
        items = unpack(st, arg.value, "`*` unpacking")
        if items is None:
            ok = False
        else:
            args.extend(as_node(item, arg.span) for item in items)
    keywords: list = []
    for kw in node.keywords:
        if kw.__class__ is not ast.DoubleStarred:
            keywords.append(kw)
            continue
        val = st.host.elab(st, kw.value)
        if isinstance(val, Poison):
            ok = False
        elif val is pyeval_environ.ENVIRON:
            pyeval_environ.refuse(st, kw.value.span, "`**os.environ`")
            ok = False
        elif not isinstance(val, PyDict) or not all(isinstance(k, str) for k in val.items):
            st.diags.error("E0131", f"`**` unpacks a compile-time dict with string keys, not {kind_of(val)}",
                           kw.value.span)
            ok = False
        else:
            keywords.extend(ast.Keyword(kw.span, k, as_node(from_python(v), kw.span)) for k, v in val.items.items())
    seen: dict[str, ast.Keyword] = {}
    for kw in keywords:
        if kw.name in seen:
            st.diags.error("E0305", f"keyword argument `{kw.name}` given twice", kw.span,
                           notes=[Note("first given here", seen[kw.name].span)])
            ok = False
        seen[kw.name] = kw
    return ast.Call(node.span, node.func, tuple(args), tuple(keywords)) if ok else None


def unpack(st, node: ast.Expr, what: str):
    """The items of `*node`: a compile-time sequence. None after an error."""
    val = used_up(st, node)  # (one pass: `f(*(x for x in xs))` is CPython's too)
    if isinstance(val, Poison):
        return None
    if val is pyeval_environ.ENVIRON:
        pyeval_environ.refuse(st, node.span, "`*os.environ`")
        return None
    if order_refused(st, val, node, what):
        return None
    items = items_of(val)
    if items is not None and not step(st, node.span, len(items)):
        return None
    if items is None:
        st.diags.error("E0131", f"{what} needs a compile-time tuple, list, string or `range`, not "
                                f"{kind_of(val)}", node.span)
    return items


def _elab_Starred(st, node: ast.Starred):
    st.diags.error("E0130", "`*` unpacks only into a call's arguments, a tuple or list display or a "
                            "tuple assignment's targets", node.span)
    return POISON


def _elab_DoubleStarred(st, node: ast.DoubleStarred):
    st.diags.error("E0130", "`**` unpacks only into a call's keyword arguments or a dict display", node.span)
    return POISON


def _elab_Value(st, node: ast.Value):
    return node.value


def sequence(st, elts):
    """A tuple or list display whose items may be `*seq`."""
    items: list = []
    for e in elts:
        if e.__class__ is ast.Starred:
            got = unpack(st, e.value, "`*` in a display")
            if got is None:
                return POISON
            items.extend(got)
        else:
            v = st.host.elab(st, e)
            if isinstance(v, Poison):
                return POISON
            items.append(v)
    return pack(items)


def dict_key(st, val, node):
    """A dict key: the CPython object of a hashable compile-time value (box.python_key: a constant,
    a tuple of them, a frozen dataclass instance, an enum member). NO_KEY after an error."""
    memo: dict = {}
    key = python_key(val, memo)
    if key is not NO_KEY and not charge_items(st, node.span, {ITEMS_SEEN: weight(key, 64 * budget.STEP_BUDGET)}):
        return NO_KEY  # (hashing goes through every item of a tuple, however it was built)
    if key is not NO_KEY:
        try:
            hash(key)  # (a stand-in's hash is computed from copied data: no code of the file runs)
            return key
        except TypeError as err:
            st.diags.error("E0137", f"compile-time evaluation failed: {err}", node.span)
            return NO_KEY
    if not isinstance(val, Poison):
        st.diags.error("E0137", f"a dict key is a compile-time number, string or tuple, not {kind_of(val)}",
                       node.span)
    return NO_KEY


def _elab_Dict(st, node: ast.Dict):
    items: dict = {}
    for key, value in zip(node.keys, node.values):
        if isinstance(value, ast.DoubleStarred):
            other = st.host.elab(st, value.value)
            if isinstance(other, Poison):
                return POISON
            if other is pyeval_environ.ENVIRON:
                return pyeval_environ.refuse(st, value.value.span, "`**os.environ`")
            if not isinstance(other, PyDict):
                st.diags.error("E0131", f"`**` in a dict display needs a compile-time dict, not {kind_of(other)}",
                               value.value.span)
                return POISON
            items.update(other.items)
            continue
        k = dict_key(st, st.host.elab(st, key), key)
        v = st.host.elab(st, value)
        if k is NO_KEY or isinstance(v, Poison):
            return POISON
        items[k] = python_item(v)
    return dict_value(items)


# -- indexing -------------------------------------------------------------------------------------------
def ct_subscript(st, base, node: ast.Subscript):
    """`t[i]`, `t[a:b:c]` of a compile-time tuple, list or string; `d[k]` of a compile-time dict."""
    index_node = node.indices[0]
    whole = python_range(base)
    if whole is not None and not isinstance(index_node, ast.Slice):
        index = st.host.const_int(st, index_node, "a range index")
        if index is None:
            return POISON
        if not -len(whole) <= index < len(whole):
            st.diags.error("E0507", f"range index {index} out of range", index_node.span)
            return POISON
        return PyConst(whole[index])  # `range(n)[i]`: CPython's, no item made
    if base is pyeval_environ.ENVIRON:  # `os.environ["M"]`
        return pyeval_environ.subscript(st, st.host.elab(st, index_node), index_node)
    if isinstance(base, PyDict):
        key = dict_key(st, st.host.elab(st, index_node), index_node)
        if key is NO_KEY:
            return POISON
        if key not in base.items:
            private = pyeval_environ.value_name(st, key)
            st.diags.error("E0137", f"key {key!r} is not in the dict" if private is None else
                           f"the value of environment variable `{private}` is not a key of the dict",
                           index_node.span)
            return POISON
        return from_python(base.items[key])
    box = box_of(base)
    if isinstance(base, PyConst) and not isinstance(base.value, (tuple, str)) or box is not None and box.kind == "set":
        st.diags.error("E0306", f"{kind_of(base)} cannot be indexed", node.value.span)
        return POISON
    items = items_of(base)
    text = isinstance(base, PyConst) and isinstance(base.value, str)
    index_value = None
    if not isinstance(index_node, ast.Slice):
        index_value = st.host.elab(st, index_node)
        if isinstance(index_value, SliceVal):  # `xs[slice(a, b, c)]`: the slice written out
            index_node = ast.Slice(index_node.span, *(None if p is None else ast.Value(index_node.span, p)
                                                      for p in (index_value.lower, index_value.upper, index_value.step)))
    if isinstance(index_node, ast.Slice):
        parts = (index_node.lower, index_node.upper, index_node.step)
        bounds = [None if p is None else st.host.const_int(st, p, "a slice bound") for p in parts]
        if any(b is None and p is not None for b, p in zip(bounds, parts)):
            return POISON
        if bounds[2] == 0:
            st.diags.error("E0137", "a slice step cannot be zero", (index_node.step or index_node).span)
            return POISON
        picked = items[slice(*bounds)]
        if text:
            return PyConst("".join(i.value for i in picked))
        return new_list(picked) if box_of(base) is not None else pack(picked)  # a list's slice is a new list
    index = st.host.const_int(st, ast.Value(index_node.span, index_value), "a tuple index")
    if index is None:
        return POISON
    if not -len(items) <= index < len(items):
        st.diags.error("E0507", f"{'string' if text else 'list' if box is not None else 'tuple'} index {index} out of range", index_node.span)
        return POISON
    return items[index]


def known_truth(val):
    """Python's truth of a compile-time value (a constant, a tuple, list, set or dict, even one
    holding kernel values: its truth is its length); None when it is known only at run time."""
    cls = val.__class__
    if isinstance(val, PyConst):
        return bool(val.value)
    if isinstance(val, tuple):
        return bool(val)
    if cls is PyDict:
        return bool(val.items)
    return None


def truth(st, val, node, what: str):
    """The truth of a compile-time value; None (reported) for a run-time one."""
    if isinstance(val, Poison):
        return None
    if isinstance(val, PyConst):
        return bool(val.value)
    if isinstance(val, (ir.IntImm, ir.FloatImm)):
        return bool(val.value)
    if isinstance(val, (tuple, PyDict)):
        return bool(val if isinstance(val, tuple) else val.items)
    st.diags.error("E0133", f"{what} needs a compile-time condition, not {kind_of(val)}", node.span,
                   help="a condition known only at run time belongs in an `if` statement")
    return None


def bind_target(st, target, value, scope: dict) -> bool:
    """Bind a comprehension's (or a compile-time loop's) target to a value: a name, or a tuple
    of targets, one of them possibly `*rest`. False after an error."""
    if isinstance(target, ast.Name):
        scope[target.id] = Binding(value, "const", target.span)
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        parts = split_items(st, target, value)
        if parts is None:
            return False
        return all(bind_target(st, t, v, scope) for t, v in parts)
    if isinstance(target, ast.Starred):
        st.diags.error("E0130", "a starred target is only valid inside a tuple of targets", target.span)
        return False
    st.diags.error("E0312", "a comprehension binds plain names or tuples of them", target.span)
    return False


def split_items(st, target, value):
    """[(target, value)] for a tuple of targets (`a, *rest, b`) unpacking value; None after an error."""
    if value is pyeval_environ.ENVIRON:
        pyeval_environ.refuse(st, target.span, "unpacking `os.environ`")
        return None
    if order_refused(st, value, target, "unpacking"):
        return None
    items = items_of(value)
    if items is not None and not step(st, target.span, len(items)):
        return None
    if items is None:
        if not isinstance(value, Poison):
            st.diags.error("E0131", f"cannot unpack {kind_of(value)} into {len(target.elts)} names", target.span)
        return None
    stars = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
    if len(stars) > 1:
        st.diags.error("E0130", "two starred targets in one tuple", target.elts[stars[1]].span)
        return None
    elts = target.elts
    if not stars:
        if len(items) != len(elts):
            st.diags.error("E0312", f"{len(elts)} names for {len(items)} values", target.span)
            return None
        return list(zip(elts, items))
    s = stars[0]
    after = len(elts) - s - 1
    if len(items) < len(elts) - 1:
        st.diags.error("E0312", f"at least {len(elts) - 1} values needed, got {len(items)}", target.span)
        return None
    rest = items[s:len(items) - after]
    return list(zip(elts[:s], items[:s])) + [(elts[s].value, new_list(rest))] + \
        list(zip(elts[s + 1:], items[len(items) - after:]))


