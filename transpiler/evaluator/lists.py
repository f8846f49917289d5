"""What compile-time lists and sets do (their values are in box.py): list and set displays,
their methods (`append`, `pop`, `add` ...), `xs[i] = v` and `del xs[i]` in a plain helper, `A[*idx]`,
`xs + ys`, `xs * n` and `x in c`."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.evaluator.core import NO_KEY, dict_key, python_range, index_node, items_of, kind_of, pack, step, unpack
from transpiler.evaluator.box import NO_KEY, Box, ListConst, ListTuple, box_of, dict_value, from_python, new_list, \
    new_list_of, new_set, new_set_of, python_item, python_key, set_key, view
from transpiler.evaluator import environ as pyeval_environ, ops as pyeval_ops
from transpiler.evaluator.ops import TEXT_CHARS
from transpiler.evaluator.values import POISON, Poison, PyConst, PyDict


def reread(st, val, node: ast.Name):
    """A name's list or set value read again: a fresh view of its box, showing the items as they
    are now (a copy of a long list draws from the budget)."""
    box = val.source
    if box.cached is None and len(box.items) > 64:
        if not step(st, node.span, len(box.items) // 64):
            return POISON
    return view(box)


def display_items(st, elts, what: str):
    """The items of a list or set display (`*seq` expanded) and the node each came from; None after
    an error."""
    items, nodes = [], []
    for e in elts:
        if e.__class__ is ast.Starred:
            got = unpack(st, e.value, f"`*` in a {what} display")
            if got is None:
                return None
            items.extend(got)
            nodes.extend([e] * len(got))
        else:
            v = st.host.elab(st, e)
            if isinstance(v, Poison):
                return None
            items.append(v)
            nodes.append(e)
    return items, nodes


def _elab_List(st, node: ast.List):
    got = display_items(st, node.elts, "list")
    return POISON if got is None else new_list(got[0])


def _elab_Set(st, node: ast.Set):
    got = display_items(st, node.elts, "set")
    return POISON if got is None else new_set(st, *got, display=True)


# -- methods ---------------------------------------------------------------------------------------
# name -> (fewest, most arguments); mutating methods return None
LIST_METHODS = {"append": (1, 1), "extend": (1, 1), "insert": (2, 2), "pop": (0, 1), "remove": (1, 1),
                "clear": (0, 0), "reverse": (0, 0), "copy": (0, 0), "index": (1, 3), "count": (1, 1),
                "sort": (0, 0)}
SET_METHODS = {"add": (1, 1), "discard": (1, 1), "remove": (1, 1), "update": (1, 1), "clear": (0, 0),
               "copy": (0, 0), "union": (1, 1), "intersection": (1, 1), "difference": (1, 1),
               "symmetric_difference": (1, 1), "intersection_update": (1, 1), "difference_update": (1, 1),
               "symmetric_difference_update": (1, 1), "issubset": (1, 1), "issuperset": (1, 1),
               "isdisjoint": (1, 1)}
NONE = PyConst(None)  # what `xs.append(v)` gives, as in CPython (`xs.append(v) or v` is v); as a statement, nothing to run


def matches(items: list, needle, window: range) -> list:
    """The positions in window of the CPython items equal to needle, by CPython's own comparison
    (identity first, then `==`, as `list.index` compares: a held object as standins.Held)."""
    return [i for i in window if items[i] is needle or items[i] == needle]


def call_method(st, val, name: str, node: ast.Call, args: list):
    """`xs.name(*args)` of a list or set view (arguments already elaborated and counted)."""
    box = box_of(val)
    box.cached = None  # (the items may change)
    items = box.items

    def fail(message):
        st.diags.error("E0341", message, node.span)
        return POISON

    def sequence(arg, what):
        got = items_of(arg)
        if got is None:
            return fail(f"`{what}` needs a compile-time tuple, list, set, string, dict or `range`, not "
                        f"{kind_of(arg)}")
        return got if step(st, node.span, len(got)) else POISON

    if box.kind == "set":
        return _set_method(st, box, name, node, args, sequence, fail)
    if name == "append":
        items.append(python_item(args[0]))
    elif name == "extend":
        other = box_of(args[0])
        if other is not None and other.kind == "list":  # CPython's own `list.extend` of a list (itself too)
            if not step(st, node.span, len(other.items)):
                return POISON
            items.extend(other.items)
        else:
            got = sequence(args[0], "extend")
            if got is POISON:
                return POISON
            items.extend([python_item(i) for i in got])
    elif name == "insert":
        index = _int(st, args[0], node.args[0], "`insert`'s position")
        if index is None:
            return POISON
        items.insert(index, python_item(args[1]))
    elif name == "pop":
        index = -1 if not args else _int(st, args[0], node.args[0], "`pop`'s position")
        if index is None:
            return POISON
        if not items:
            return fail("`pop` from an empty list")
        if not -len(items) <= index < len(items):
            return fail(f"`pop` index {index} out of range (the list has {_count(items)})")
        return from_python(items.pop(index))
    elif name in ("remove", "index", "count"):
        bounds = [_int(st, a, n, "`index`'s position") for a, n in zip(args[1:], node.args[1:])]
        if None in bounds:
            return POISON
        window = range(len(items))[slice(*(bounds + [None, None])[:2])]  # (`index(x, start[, stop])`)
        if len(window) >= 64 and not step(st, node.span, len(window) // 64):
            return POISON
        same = matches(items, python_item(args[0]), window)
        if name == "count":
            return PyConst(len(same))
        if not same:
            return fail(f"`{name}`: the value is not in the list")
        if name == "index":
            return PyConst(same[0])
        del items[same[0]]
    elif name == "clear":
        items.clear()
    elif name == "reverse":
        items.reverse()
    elif name == "copy":
        return new_list_of(items.copy()) if len(items) < 64 or step(st, node.span, len(items) // 64) else POISON
    return NONE  # (`sort` is builtins.ct_method's: it takes `key=` and `reverse=`)


def _set_method(st, box: Box, name, node, args, sequence, fail):
    """A method of a set: CPython's own, on the box's real set (its items' keys)."""
    real = box.items
    if name in ("add", "discard", "remove"):
        key = set_key(st, args[0], node.args[0])
        if key is NO_KEY:
            return POISON
        if name == "remove" and key not in real:
            return fail("`remove`: the value is not in the set")
        return NONE if pyeval_ops.call(st, node.span, "set.method", real, name, key, what=f"set.{name}") \
            is not POISON else POISON
    if name in ("clear", "copy"):
        made = pyeval_ops.call(st, node.span, "set.method", real, name, what=f"set.{name}")
        return POISON if made is POISON else NONE if made is None else new_set_of(made)
    other = set_operand(st, args[0], node.args[0], name, sequence)
    if other is None or not step(st, node.span, len(real) + len(other)):
        return POISON
    made = pyeval_ops.call(st, node.span, "set.method", real, name, other, what=f"set.{name}")
    if made is POISON:
        return POISON
    if made is None:
        return NONE  # (`update` and the other `*_update`: in place)
    return PyConst(made) if isinstance(made, bool) else new_set_of(made)


def set_operand(st, arg, node, name: str, sequence=None):
    """What CPython's set method or operator is given for an argument: a set's own real set, a
    dict's keys (its real dict), or the keys of a sequence's items, in order; None after an error."""
    box = box_of(arg)
    if box is not None and box.kind == "set":
        return box.items
    if isinstance(arg, PyDict):
        return arg.items
    if sequence is None:
        return None
    items = sequence(arg, name)
    if items is POISON:
        return None
    keys = [set_key(st, i, node) for i in items]
    return None if any(k is NO_KEY for k in keys) else keys


def _count(items) -> str:
    return f"{len(items)} item{'s' if len(items) != 1 else ''}"


def _int(st, val, node, what):
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
        return val.value
    if isinstance(val, ir.IntImm):
        return val.value
    if not isinstance(val, Poison):
        st.diags.error("E0341", f"{what} is a compile-time integer, not {kind_of(val)}", node.span)
    return None


def set_item(st, base, target: ast.Subscript, value) -> bool:
    """`xs[i] = value` / `xs[a:b] = items` / `d[k] = value` in a plain helper; False after an error
    (reported)."""
    index_node = target.indices[0]
    if isinstance(base, PyDict):
        key = dict_key(st, st.host.elab(st, index_node), index_node)
        if key is NO_KEY:
            return False
        base.items[key] = python_item(value)
        return True
    box = box_of(base)
    if box is None or box.kind != "list":
        st.diags.error("E0341", f"{kind_of(base)} does not support item assignment", target.value.span,
                       help="only lists and dicts change in place; a tuple does not" if box is None else None)
        return False
    box.cached = None
    items = box.items
    if isinstance(index_node, ast.Slice):
        parts = (index_node.lower, index_node.upper, index_node.step)
        bounds = [None if p is None else st.host.const_int(st, p, "a slice bound") for p in parts]
        if any(b is None and p is not None for b, p in zip(bounds, parts)):
            return False
        new = items_of(value)
        if new is None:
            st.diags.error("E0341", f"a slice is assigned a compile-time sequence, not {kind_of(value)}",
                           target.span)
            return False
        try:
            items[slice(*bounds)] = [python_item(i) for i in new]
        except ValueError as err:
            st.diags.error("E0341", f"compile-time evaluation failed: {err}", target.span)
            return False
        return True
    index = _int(st, st.host.elab(st, index_node), index_node, "a list index")
    if index is None:
        return False
    if not -len(items) <= index < len(items):
        st.diags.error("E0341", f"list index {index} out of range (the list has {_count(items)})",
                       index_node.span)
        return False
    items[index] = python_item(value)
    return True


def delete_item(st, base, target: ast.Subscript) -> bool:
    """`del xs[i]` / `del xs[a:b:c]` / `del d[k]`, as Python's list and dict remove items; False after
    an error (reported)."""
    index_node = target.indices[0]
    if isinstance(base, PyDict):
        key = dict_key(st, st.host.elab(st, index_node), index_node)
        if key is NO_KEY:
            return False
        if key not in base.items:
            private = pyeval_environ.value_name(st, key)
            st.diags.error("E0137", f"key {key!r} is not in the dict" if private is None else
                           f"the value of environment variable `{private}` is not a key of the dict", index_node.span)
            return False
        del base.items[key]
        return True
    box = box_of(base)
    if box is None or box.kind != "list":
        if not isinstance(base, Poison):
            st.diags.error("E0341", f"{kind_of(base)} does not support item deletion", target.value.span)
        return False
    items = box.items
    if not step(st, target.span, 1 + len(items) // 64):  # (the items after it move)
        return False
    if isinstance(index_node, ast.Slice):
        parts = (index_node.lower, index_node.upper, index_node.step)
        bounds = [None if p is None else st.host.const_int(st, p, "a slice bound") for p in parts]
        if any(b is None and p is not None for b, p in zip(bounds, parts)):
            return False
        if bounds[2] == 0:
            st.diags.error("E0137", "a slice step cannot be zero", index_node.step.span)
            return False
        box.cached = None
        del items[slice(*bounds)]
        return True
    index = _int(st, st.host.elab(st, index_node), index_node, "a list index")
    if index is None:
        return False
    if not -len(items) <= index < len(items):
        st.diags.error("E0341", f"list index {index} out of range (the list has {_count(items)})", index_node.span)
        return False
    box.cached = None
    del items[index]
    return True


# -- `A[*idx]` --------------------------------------------------------------------------------------
def expand_subscript(st, node: ast.Subscript):
    """The subscript with each `*seq` index replaced by the sequence's items (already elaborated),
    as Python 3.11 reads `A[*idx]`; None after an error (reported)."""
    indices = node.indices
    if len(indices) == 1 and isinstance(indices[0], ast.Tuple):
        indices = indices[0].elts
    out: list = []
    for index in indices:
        if index.__class__ is not ast.Starred:
            out.append(index)
            continue
        items = unpack(st, index.value, "`*` in a subscript")
        if items is None:
            return None
        out.extend(index_node(item, index.span) for item in items)
    return ast.Subscript(node.span, node.value, (ast.Tuple(node.span, tuple(out)),) if len(out) != 1 else
                         tuple(out))




# -- `xs + ys`, `xs * n` -----------------------------------------------------------------------------
def is_sequence(val) -> bool:
    """Whether val is a compile-time tuple, list or string."""
    cls = val.__class__
    return cls is tuple or cls is ListTuple or cls is ListConst or (cls is PyConst and isinstance(val.value,
                                                                                               (tuple, str)))


_MAX_TEXT = TEXT_CHARS  # characters of a string made by `*`


def seq_arith(st, op: str, left, right, node):
    """`+` of two lists or two tuples (a new one), `*` of a list or tuple by a compile-time integer
    (repeated), as Python computes them."""
    if isinstance(left, Poison) or isinstance(right, Poison):
        return POISON
    if op == "+" and left.__class__ is PyConst and right.__class__ is PyConst:  # tuples of constants: as before
        return st.host.arith(st, op, left, right, node.span, node.left.span, node.right.span)
    not_list = next((v for v in (left, right) if box_of(v) is not None and box_of(v).kind != "list"), None)
    if not_list is not None:  # a set (or dict) is no sequence: CPython raises TypeError for `+` and `*`
        st.diags.error("E0306", f"`{op}` of {kind_of(left)} and {kind_of(right)}", node.span)
        return POISON
    if op == "+" and is_sequence(left) and is_sequence(right):
        if (box_of(left) is None) != (box_of(right) is None):
            st.diags.error("E0306", f"`+` joins two lists or two tuples, not {kind_of(left)} and {kind_of(right)}",
                           node.span, help="convert one with `list(...)` or `tuple(...)`")
            return POISON
        if box_of(left) is not None:  # CPython's own `list + list`
            made = box_of(left).items + box_of(right).items if box_of(right).kind == "list" else None
            if made is not None:
                return new_list_of(made) if step(st, node.span, len(made)) else POISON
        items = items_of(left) + items_of(right)
        if not step(st, node.span, len(items)):
            return POISON
        return new_list(items) if box_of(left) is not None else pack(items)
    seq, count = (left, right) if is_sequence(left) else (right, left)
    if op == "*" and isinstance(seq, PyConst) and isinstance(seq.value, str) and isinstance(count, PyConst) \
            and isinstance(count.value, int):  # `"-" * 40` (or `* True`, an int in CPython)
        size = len(seq.value) * max(0, count.value)
        if size > _MAX_TEXT:
            st.diags.error("E0318", f"a string of {size} characters; compile-time strings have at most "
                                    f"{_MAX_TEXT}", node.span)
            return POISON
        return PyConst(seq.value * count.value)
    if op == "*" and is_sequence(seq):
        n = count.value if isinstance(count, PyConst) and isinstance(count.value, int) or isinstance(count, ir.IntImm) \
            and isinstance(count.value, int) and not isinstance(count.value, bool) else None
        if n is None:
            st.diags.error("E0306", f"`*` repeats {kind_of(seq)} a compile-time number of times, not "
                                    f"{kind_of(count)}", node.span)
            return POISON
        box = box_of(seq)
        items = box.items if box is not None and box.kind == "list" else items_of(seq)
        if not step(st, node.span, max(0, n) * len(items)):
            return POISON
        if box is not None and box.kind == "list":
            return new_list_of(items * n)  # CPython's own `list * n`
        items = items * max(0, n)
        return new_list(items) if box is not None else pack(items)
    st.diags.error("E0306", f"`{op}` of {kind_of(left)} and {kind_of(right)}", node.span)
    return POISON




# -- `x in xs` ---------------------------------------------------------------------------------------
def contains(st, node: ast.Compare):
    """`x in c` / `x not in c` of a compile-time container: a list, tuple or set (an item equal to x:
    constants by value, other values by identity), a dict (a key) or a string (a substring). x must
    be known at compile time unless c holds it by identity, as Python's `==` on a run-time value has
    no truth to test."""
    if len(node.ops) != 1:
        st.diags.error("E0518", "`in` chained with other comparisons is not supported yet", node.span,
                       help="split the chain with `and`")
        return POISON
    needle, hay = st.host.elab(st, node.left), st.host.elab(st, node.comparators[0])
    if isinstance(needle, Poison) or isinstance(hay, Poison):
        return POISON
    if hay is pyeval_environ.ENVIRON:  # `"M" in os.environ`: one variable, by name
        found = pyeval_environ.contains(st, needle, node.left)
        return POISON if found is None else PyConst(found != (node.ops[0] == "not in"))
    if isinstance(hay, PyDict):
        key = dict_key(st, needle, node.left)
        if key is NO_KEY:
            return POISON
        found = key in hay.items
    elif isinstance(hay, PyConst) and isinstance(hay.value, str):
        if not (isinstance(needle, PyConst) and isinstance(needle.value, str)):
            st.diags.error("E0306", f"`in <string>` needs a string on its left, not {kind_of(needle)}", node.left.span)
            return POISON
        found = needle.value in hay.value
    elif python_range(hay) is not None and isinstance(needle, PyConst):
        found = needle.value in python_range(hay)  # CPython's own `in range(...)`: no item is made
    elif box_of(hay) is not None and box_of(hay).kind == "set" and python_key(needle) is not NO_KEY:
        found = pyeval_ops.call(st, node.span, "operator.contains", box_of(hay).items, python_key(needle),
                                what="`in`")  # CPython's own hashing
        if found is POISON:
            return POISON
    else:
        items = items_of(hay) if is_sequence(hay) or box_of(hay) is not None else None
        if items is None:
            st.diags.error("E0306", f"`in` looks into a compile-time list, tuple, set, dict or string, not "
                                    f"{kind_of(hay)}", node.comparators[0].span)
            return POISON
        if not step(st, node.span, len(items) // 64):
            return POISON
        found = _contained(hay, items, needle)
        if not found and not isinstance(needle, PyConst) and pyeval_ops.to_python(needle) is pyeval_ops.NOT_PYTHON:
            st.diags.error("E0133", f"`in` needs a value known at compile time, not {kind_of(needle)}", node.left.span,
                           help="compare explicitly at run time: `x == a or x == b`")
            return POISON
    return PyConst(found != (node.ops[0] == "not in"))




def _contained(hay, items, needle) -> bool:
    """Whether a list or tuple holds needle: CPython's own `in` over the list's items (over a
    tuple's items made CPython's)."""
    box = box_of(hay)
    wanted = python_item(needle)
    if box is not None and box.kind == "list":
        return wanted in box.items
    return bool(matches([python_item(i) for i in items], wanted, range(len(items))))


# -- `xs += ys`, `s |= t`: in place, as Python's list and set do -----------------------------------------
_SET_OPS = {"|": "union", "&": "intersection", "-": "difference", "^": "symmetric_difference"}
_OPERATORS = {"|": "operator.or_", "&": "operator.and_", "-": "operator.sub", "^": "operator.xor"}
_IN_PLACE = {"|": "operator.ior", "&": "operator.iand", "-": "operator.isub", "^": "operator.ixor"}


def augment(st, current, op: str, value, node):
    """`name op= value` of a list (`+=` extends by any iterable, `*=` repeats) or a set (`|=`, `&=`,
    `-=`, `^=` with a set), changing the object itself so that every alias sees it: the same view,
    POISON after an error, or None when current is neither (the caller computes `name op value`)."""
    if op == "|" and isinstance(current, PyDict) and isinstance(value, PyDict):  # `d |= e`: in place
        if not step(st, node.span, len(value.items)):
            return POISON
        current.items.update(value.items)  # (CPython's own `dict.update`: `|=` is it)
        return current
    box = box_of(current)
    if box is None or isinstance(value, Poison):
        return None
    if box.kind == "list" and op == "+":  # CPython's own `list += iterable` on the list itself
        other = box_of(value)
        items = other.items if other is not None and other.kind == "list" else items_of(value)
        if items is None:
            return None
        if not step(st, node.span, len(items)):
            return POISON
        box.cached = None
        made = box.items
        made += items if other is not None and items is other.items else [python_item(i) for i in items]
        return view(box)
    if box.kind == "list" and op == "*":
        n = _int(st, value, node, "`*=`'s count")
        if n is None or not step(st, node.span, max(0, n) * len(box.items)):
            return POISON
        box.cached = None
        made = box.items
        made *= n  # CPython's own `list *= n` on the list itself
        return view(box)
    if box.kind == "set" and op in _SET_OPS:
        other = box_of(value)
        if other is None or other.kind != "set":
            return None
        if not step(st, node.span, len(box.items) + len(other.items)):
            return POISON
        made = pyeval_ops.call(st, node.span, _IN_PLACE[op], box.items, other.items, what=f"`{op}=`")
        if made is POISON:
            return POISON
        box.cached = None
        return view(box)
    return None


def set_arith(st, op: str, left, right, node):
    """`a | b`, `a & b`, `a - b`, `a ^ b` of two sets, `d | e` of two dicts: a new set or dict; None
    when the operands are neither."""
    if op == "|" and isinstance(left, PyDict) and isinstance(right, PyDict):  # `d | e`: a new dict
        return dict_value(left.items | right.items) if step(st, node.span, len(left.items) + len(right.items)) \
            else POISON
    boxes = box_of(left), box_of(right)
    if op not in _SET_OPS or any(b is None or b.kind != "set" for b in boxes):
        return None
    if not step(st, node.span, len(boxes[0].items) + len(boxes[1].items)):
        return POISON
    made = pyeval_ops.call(st, node.span, _OPERATORS[op], boxes[0].items, boxes[1].items, what=f"`{op}`")
    return POISON if made is POISON else new_set_of(made)
