"""The methods of compile-time dicts (`d.get`, `d.setdefault`, `d.pop`, `d.update`, `dict.fromkeys` ...).

A dict's value is a `PyDict`: a real CPython dict whose keys are CPython objects (box.python_key)
and whose values are CPython items (box.python_item: a list stored in a dict is that very list,
which every alias sees). Each method is CPython's own on that dict, and draws its size from the
step budget (one step per item it goes through)."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.evaluator.budget import step
from transpiler.evaluator.box import NO_KEY, dict_value, from_key, from_python, python_item
from transpiler.evaluator.core import ASKED_ITEM_BY_ITEM, MadeLazily, dict_key, items_of, kind_of, \
    kept_iterator_refused, live, pack
from transpiler.evaluator import environ as pyeval_environ
from transpiler.evaluator.lists import NONE
from transpiler.evaluator.values import POISON, PyConst, PyDict

# name -> (fewest, most positional arguments); `update` also takes keywords (string keys)
DICT_METHODS = {"items": (0, 0), "keys": (0, 0), "values": (0, 0), "get": (1, 2), "setdefault": (1, 2),
                "pop": (1, 2), "popitem": (0, 0), "update": (0, 1), "copy": (0, 0), "clear": (0, 0),
                "fromkeys": (1, 2)}
KEYWORD_METHODS = frozenset(("update",))


def _fail(st, node, message: str):
    st.diags.error("E0137", f"compile-time evaluation failed: {message}", node.span)
    return POISON


def call_method(st, obj: PyDict, name: str, node: ast.Call, args: list, keywords: dict):
    """`d.name(*args, **keywords)` of a compile-time dict (arguments already elaborated and counted):
    its result, the empty statement of lists.NONE for a method that returns None, POISON after an
    error (reported)."""
    items = obj.items
    if name in ("items", "keys", "values"):
        return _view(st, items, name, node)
    if name == "copy":
        return dict_value(items.copy()) if step(st, node.span, 1 + len(items) // 64) else POISON
    if name == "clear":
        items.clear()
        return NONE
    if name == "popitem":
        if not items:
            return _fail(st, node, "'popitem(): dictionary is empty'")
        key, value = items.popitem()
        return pack((from_key(key), from_python(value)))
    if name == "update":
        return NONE if _update(st, items, node, args, keywords) else POISON
    if name == "fromkeys":
        return _fromkeys(st, node, args)
    key = dict_key(st, args[0], node.args[0])
    if key is NO_KEY:
        return POISON
    default = args[1] if len(args) > 1 else PyConst(None)
    if name == "get":
        return from_python(items[key]) if key in items else default
    if name == "setdefault":
        return from_python(items.setdefault(key, python_item(default)))
    # pop
    if key in items:
        return from_python(items.pop(key))
    if len(args) > 1:
        return default
    return _fail(st, node, "`dict.pop`: the key is not in the dict")  # (CPython's KeyError; the key is not shown)


def _view(st, items: dict, name: str, node):
    """`d.keys()` / `d.values()` / `d.items()`. CPython's view follows the dict as it changes, which
    a tuple of its items cannot: iterated by a `for` or a comprehension, it is CPython's own
    iterator over the view, item by item (a change of the dict's size fails, as in CPython); used
    up where it is made by a builtin (`list(d.items())`, `sum(d.values())`), its items as they are;
    anywhere else (kept in a name, `len`, `in`, compared) refused by name."""
    made = _VIEW_ITEMS[name]
    view = getattr(items, name)()
    if id(node) in ASKED_ITEM_BY_ITEM:
        return MadeLazily(live(st, view, made, node))
    if kept_iterator_refused(st, node, f"a dict view (`.{name}()`)"):
        return POISON
    return pack(made(item) for item in view)


_VIEW_ITEMS = {"keys": from_key, "values": from_python,
               "items": lambda pair: pack((from_key(pair[0]), from_python(pair[1])))}


def _pairs(st, node, arg, arg_node):
    """The (key, value) pairs of `update`'s argument: a dict's items, or a sequence of 2-item
    sequences; None after an error (reported)."""
    if arg is pyeval_environ.ENVIRON:
        pyeval_environ.refuse(st, arg_node.span, "`dict.update(os.environ)`")
        return None
    if isinstance(arg, PyDict):
        return list(arg.items.items()) if step(st, node.span, len(arg.items)) else None
    seq = items_of(arg)
    if seq is None:
        _fail(st, node, f"`dict.update` needs a dict or a sequence of pairs, not {kind_of(arg)}")
        return None
    if not step(st, node.span, len(seq)):
        return None
    out = []
    for index, item in enumerate(seq):
        pair = items_of(item)
        if pair is None or len(pair) != 2:
            _fail(st, node, f"dictionary update sequence element #{index} is not a pair")
            return None
        key = dict_key(st, pair[0], arg_node)
        if key is NO_KEY:
            return None
        out.append((key, python_item(pair[1])))
    return out


def _update(st, items: dict, node, args, keywords) -> bool:
    pairs = [] if not args else _pairs(st, node, args[0], node.args[0])
    if pairs is None:
        return False
    items.update(pairs)
    items.update((k, python_item(v)) for k, v in keywords.items())  # (keyword names: CPython's own keys)
    return True


def _fromkeys(st, node, args):
    """`dict.fromkeys(keys[, value])`: a new dict, every key bound to the one value (shared, as
    CPython shares it)."""
    if args[0] is pyeval_environ.ENVIRON:
        return pyeval_environ.refuse(st, node.args[0].span, "`dict.fromkeys(os.environ)`")
    keys = items_of(args[0])
    if keys is None:
        return _fail(st, node, f"`dict.fromkeys` needs a compile-time sequence, not {kind_of(args[0])}")
    if not step(st, node.span, len(keys)):
        return POISON
    value = python_item(args[1]) if len(args) > 1 else None
    out: dict = {}
    for key_value in keys:
        key = dict_key(st, key_value, node.args[0])
        if key is NO_KEY:
            return POISON
        out[key] = value
    return dict_value(out)
