"""Python's builtins over compile-time values (PY_BUILTINS), and `T.meta_var`.

Each computes with Python on the file's compile-time values: nothing from the file is executed.
Where the arguments are known only at run time, the builtin that TVMScript would run in Python
(which would fail, or build an expression) is refused with the dialect's spelling of it, except
`sum`, which adds run-time values into one expression as Python's `sum` does in TVMScript."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.evaluator.core import NO_KEY, as_node, dict_key, index_node, items_of, kind_of, order_refused, pack, \
    step, truth, used_up, kept_iterator_refused
from transpiler.evaluator.box import python_key
from transpiler.evaluator.comprehensions import any_all_of_generator
from transpiler.evaluator import iterators
from transpiler.evaluator import box as pyeval_box, dicts as pyeval_dicts, environ as pyeval_environ, \
    fstring as pyeval_fstring, lists as pyeval_lists, ops as pyeval_ops
from transpiler.evaluator.values import Builtin, Helper, Method, POISON, Poison, PyConst, PyDict, SliceVal

# The Python builtins a `.tx` file may call at compile time (this module); `range` is the
# checker's loop range. A name the file binds hides the builtin.
PY_BUILTINS = frozenset(("len", "zip", "enumerate", "min", "max", "sum", "abs", "round", "divmod", "pow", "int",
                         "float", "bool", "str",
                         "tuple", "list", "dict", "set", "sorted", "reversed", "any", "all", "isinstance", "slice", "repr",
                         "callable", "getattr", "hasattr", "type"))

_TYPES = {"int": int, "float": float, "bool": bool, "str": str, "tuple": tuple, "list": list, "dict": PyDict,
          "set": set}


# the builtins that use up an iterable argument in one pass where they are called (core.USED_UP_HERE)
USE_UP = frozenset(("sum", "min", "max", "sorted", "tuple", "list", "set", "frozenset", "dict", "any", "all"))


def call_builtin(st, name: str, node: ast.Call):
    if name in ("any", "all") and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.ListComp) and node.args[0].kind == "generator":
        return any_all_of_generator(st, name, node.args[0])
    item_by_item = name in iterators.LAZY and iterators.asked_item_by_item(node)
    args = [used_up(st, a, item_by_item) if name in USE_UP or item_by_item or name == "len" and _dict_view(a)
            else st.host.elab(st, a) for a in node.args]
    kwargs = {k.name: st.host.elab(st, k.value) for k in node.keywords}
    if any(isinstance(v, Poison) for v in args + list(kwargs.values())):
        return POISON
    if any(v is pyeval_environ.ENVIRON for v in args + list(kwargs.values())):
        return pyeval_environ.refuse(st, node.span, f"`{name}(os.environ)`")
    fn, low, high, keywords = _TABLE.get(name) or st.host.library_builtins[name]
    bad = next((k for k in node.keywords if k.name not in keywords), None)
    if bad is not None:
        st.diags.error("E0311", f"`{name}` has no parameter `{bad.name}`", bad.span)
        return POISON
    if len(args) > high >= 64 or (name, len(args)) in _WIDER_IN_PYTHON:  # (Python takes these: not a mistake)
        st.diags.error("E0305", f"`{name}` with {len(args)} positional arguments is not supported yet", node.span)
        return POISON
    if not low <= len(args) <= high:
        count = f"{low}" if low == high else f"{low} to {high}"
        st.diags.error("E0305", f"`{name}` takes {count} positional argument{'s' if high != 1 else ''}, "
                                f"got {len(args)}", node.span)
        return POISON
    return fn(st, node, args, kwargs)


def _dict_view(node) -> bool:
    """Whether node is `d.keys()`, `d.values()` or `d.items()`, whose `len` is the dict's (a view,
    which `len` takes as it is made, dicts.py)."""
    return node.__class__ is ast.Call and node.func.__class__ is ast.Attribute and not node.args \
        and node.func.attr in ("keys", "values", "items")


def _fail(st, node, message: str, help: str | None = None):
    st.diags.error("E0137", message, node.span, help=help)
    return POISON


# calls Python accepts with more arguments than tirxc's table: `type(name, bases, namespace)` makes a class
_WIDER_IN_PYTHON = frozenset((("type", 3),))


# the builtins whose result does not depend on the order of their argument's items
_ORDER_FREE = frozenset(("len", "min", "max", "set", "any", "all", "sorted"))


def _seq(st, node, val, name: str):
    ordering = name in ("min", "max", "sorted")  # (their result depends on the order only with a nan)
    if (name not in _ORDER_FREE or ordering) and order_refused(st, val, node, f"`{name}`", ordering):
        return None
    items = items_of(val)
    if items is None:
        _fail(st, node, f"`{name}` needs a compile-time tuple, list, string, dict or `range`, not {kind_of(val)}")
    elif not step(st, node.span, len(items)):
        return None
    return items


def _consts(st, node, items, name: str, runtime_help: str | None = None):
    """The Python values of items, all compile-time constants; None (reported) otherwise."""
    out = []
    for item in items:
        if isinstance(item, PyConst):
            out.append(item.value)
        elif isinstance(item, (ir.IntImm, ir.FloatImm)):
            out.append(item.value)
        else:
            _fail(st, node, f"`{name}` over {kind_of(item)}, known only at run time", runtime_help)
            return None
    return out


def _py(st, node, fn, *values):
    """fn(*values), Python's errors (`int("x")`, comparing a string with a number) reported; the
    result charged and bounded as ops.call charges it (the builtins that come here make values no
    larger than their arguments: `min`, `abs`, `int`, `sorted` ...)."""
    try:
        result = fn(*values)
        return PyConst(result) if pyeval_ops.charge(st, node.span, result, "a builtin") else POISON
    except (TypeError, ValueError, OverflowError) as err:
        if pyeval_ops.private_failure(st, node.span, getattr(fn, "__name__", "the builtin"), values, err):
            return POISON
        return _fail(st, node, f"compile-time evaluation failed: {err}")


def _len(st, node, args, kwargs):
    items = _seq(st, node, args[0], "len")
    return POISON if items is None else PyConst(len(items))


def _minmax(name):
    def run(st, node, args, kwargs):
        items = args if len(args) > 1 else _seq(st, node, args[0], name)
        if items is None:
            return POISON
        if not items and "default" in kwargs:
            return kwargs["default"]
        values = _consts(st, node, items, name, f"use `T.{name}(a, b)` for values known at run time")
        if values is None:
            return POISON
        if not values:
            return _fail(st, node, f"`{name}` of an empty sequence")
        return _py(st, node, min if name == "min" else max, values)
    return run


def _sum(st, node, args, kwargs):
    items = _seq(st, node, args[0], "sum")
    if items is None:
        return POISON
    total = args[1] if len(args) > 1 else kwargs.get("start", PyConst(0))
    kind = pyeval_box.box_of(total)
    if kind is not None or isinstance(total, tuple) or isinstance(total, PyConst) and isinstance(total.value, tuple):
        return _sum_sequences(st, node, total, items)  # `sum(rows, [])`: one new list (or tuple)
    for item in items:
        if isinstance(total, PyConst) and isinstance(item, PyConst):
            total = _py(st, node, lambda a, b: a + b, total.value, item.value)
        else:
            total = st.host.arith(st, "+", total, item, node.span, node.span, node.span)
        if total is POISON:
            return POISON
    return total


def _sum_sequences(st, node, start, items):
    """`sum(seqs, start)` with a list or tuple start: CPython's `start + seq + ...`, each a list
    when start is one (a tuple with tuples)."""
    is_list = pyeval_box.box_of(start) is not None
    out = list(items_of(start))
    for item in items:
        if (pyeval_box.box_of(item) is not None) != is_list or items_of(item) is None or \
                not is_list and not (isinstance(item, tuple) or isinstance(item, PyConst) and isinstance(item.value, tuple)):
            return _fail(st, node, f"`sum` adds {kind_of(item)} to {'a list' if is_list else 'a tuple'}")
        got = items_of(item)
        if not step(st, node.span, len(got)):
            return POISON
        out += got
    return pyeval_box.new_list(out) if is_list else pack(out)


def _abs(st, node, args, kwargs):
    values = _consts(st, node, args, "abs", "use `T.abs(x)` for a value known at run time")
    return POISON if values is None else _py(st, node, abs, values[0])


def _convert(name):
    def run(st, node, args, kwargs):
        if not args:
            return PyConst(_TYPES[name]())
        if name == "str" and pyeval_ops.python_of(st, node.span, args[0]) is not pyeval_ops.NOT_PYTHON:  # `[1, 2]`
            value = pyeval_fstring.python_value(st, args[0], node, "`str`")
            return POISON if value is pyeval_fstring.NOT_FORMATTABLE else _py(st, node, str, value)
        if name == "bool":
            cond = truth(st, args[0], node, "`bool`")
            return POISON if cond is None else PyConst(cond)
        if name == "int" and "base" in kwargs:  # `int("ff", base=16)` (CPython's own parse)
            args = [*args, kwargs["base"]]
        values = _consts(st, node, args, name, f"use `T.{'int32' if name == 'int' else 'float32'}(x)` to "
                                               f"convert a value known at run time"
                         if name in ("int", "float") else None)
        if values is None:
            return POISON
        return _py(st, node, _TYPES[name], *values)
    return run


def _number_builtin(name: str, fn):
    """`round(x[, ndigits])` and `divmod(a, b)` of compile-time numbers: CPython's own."""
    def run(st, node, args, kwargs):
        args = args + [kwargs["ndigits"]] if "ndigits" in kwargs else args
        if name == "round" and len(args) == 2 and args[1].__class__ is PyConst and args[1].value is None:
            args = args[:1]  # (`round(x, None)` is `round(x)`)
        values = _consts(st, node, args, name)
        return POISON if values is None else _py(st, node, fn, *values)
    return run


def _pow(st, node, args, kwargs):
    """`pow(a, b)`: Python's `a ** b`, evaluated as the file's own `**` is (bounded, charged)."""
    if len(args) == 3:
        return _fail(st, node, "`pow` with a modulus is not supported yet")
    return st.host.elab(st, ast.BinOp(node.span, "**", *(ast.Value(node.span, a) for a in args)))


def _repr(st, node, args, kwargs):
    value = pyeval_fstring.python_value(st, args[0], node, "`repr`")
    if value is pyeval_fstring.NOT_FORMATTABLE:
        return POISON
    made = pyeval_ops.call(st, node.span, "repr", value, what="repr")
    return POISON if made is POISON else PyConst(made)


def _tuple(st, node, args, kwargs):
    if not args:
        return PyConst(())
    items = _seq(st, node, args[0], "tuple")
    return POISON if items is None else pack(items)


def _list(st, node, args, kwargs):
    items = _seq(st, node, args[0], "list") if args else []
    return POISON if items is None else pyeval_box.new_list(items)


def _set(st, node, args, kwargs):
    box = pyeval_box.box_of(args[0]) if args else None
    if box is not None and box.kind == "set":  # `set(s)`: CPython's copy of the set (its table, its order)
        made = pyeval_ops.call(st, node.span, "set.method", box.items, "copy", what="`set`")
        return POISON if made is POISON else pyeval_box.new_set_of(made)
    items = _seq(st, node, args[0], "set") if args else []
    return POISON if items is None else pyeval_box.new_set(st, items, [node.args[0] if args else node] * len(items))


def _callable(st, node, args, kwargs):
    return PyConst(isinstance(args[0], (Helper, Builtin)))


def _attribute(st, node, obj, name_value):
    """`obj.<name>` for `getattr` / `hasattr`, the name a compile-time string: elaborated as the
    attribute written out (a namespace's function, an instance's attribute, a module's name)."""
    if not (isinstance(name_value, PyConst) and isinstance(name_value.value, str) and name_value.value.isidentifier()):
        return _fail(st, node, "the attribute's name must be a compile-time string")
    return ast.Attribute(node.span, ast.Value(node.args[0].span, obj), name_value.value)


def _getattr(st, node, args, kwargs):
    """`getattr(obj, name[, default])`; with a default, a missing attribute gives the default (the
    error it would report is dropped, as Python catches the AttributeError)."""
    attr = _attribute(st, node, args[0], args[1])
    if attr is POISON:
        return POISON
    if len(args) < 3:
        return st.host.elab(st, attr)
    first = len(st.diags.items)
    value = st.host.elab(st, attr)
    if isinstance(value, Poison) and len(st.diags.items) > first:
        del st.diags.items[first:]
        return args[2]
    return value


def _hasattr(st, node, args, kwargs):
    attr = _attribute(st, node, args[0], args[1])
    if attr is POISON:
        return POISON
    first = len(st.diags.items)
    value = st.host.elab(st, attr)
    found = not (isinstance(value, Poison) and len(st.diags.items) > first)
    del st.diags.items[first:]
    return PyConst(found)


def _dict(st, node, args, kwargs):
    out = {}
    if args:
        if isinstance(args[0], PyDict):
            out.update(args[0].items)  # (CPython's items: `dict(d)` is CPython's copy)
        else:
            pairs = _seq(st, node, args[0], "dict")
            if pairs is None:
                return POISON
            for pair in pairs:
                kv = items_of(pair)
                key = NO_KEY if kv is None or len(kv) != 2 else python_key(kv[0])
                if key is NO_KEY:
                    return _fail(st, node, "`dict` takes pairs of a compile-time key and a value")
                key = dict_key(st, kv[0], node)
                if key is NO_KEY:
                    return POISON
                out[key] = pyeval_box.python_item(kv[1])
    out.update((k, pyeval_box.python_item(v)) for k, v in kwargs.items())
    return pyeval_box.dict_value(out)


def _zip(st, node, args, kwargs):
    if kept_iterator_refused(st, node, "`zip(...)`"):
        return POISON
    if iterators.asked_item_by_item(node):
        return iterators.zipped(st, node, args)
    seqs = [_seq(st, node, a, "zip") for a in args]
    if any(s is None for s in seqs):
        return POISON
    return pack(pack(group) for group in zip(*seqs))


def _enumerate(st, node, args, kwargs):
    if kept_iterator_refused(st, node, "`enumerate(...)`"):
        return POISON
    start = args[1] if len(args) > 1 else kwargs.get("start", PyConst(0))
    if not (isinstance(start, PyConst) and isinstance(start.value, int)):
        return _fail(st, node, "`enumerate` starts at a compile-time integer")
    if iterators.asked_item_by_item(node):
        return iterators.enumerated(st, node, args[0], start.value)
    items = _seq(st, node, args[0], "enumerate")
    if items is None:
        return POISON
    return pack(pack((PyConst(start.value + i), item)) for i, item in enumerate(items))


def _sorted(st, node, args, kwargs):
    if "key" in kwargs and order_refused(st, args[0], node, "`sorted` with a `key`"):  # (ties keep their order)
        return POISON
    items = _seq(st, node, args[0], "sorted")
    if items is None:
        return POISON
    ordered = sort_items(st, node, items, kwargs.get("key", PyConst(None)), kwargs.get("reverse", PyConst(False)),
                         "sorted")
    return POISON if ordered is None else pyeval_box.new_list(ordered)


def sort_items(st, node, items, key, reverse, what: str):
    """items in CPython's sorted order (stable; by `key(item)` when key is not None), each item the
    object it was; None after an error (reported)."""
    order = sort_order(st, node, items, key, reverse, what)
    return None if order is None else [items[i] for i in order]


def sort_order(st, node, items, key, reverse, what: str):
    """The positions of items in CPython's sorted order (sort_items); None after an error
    (reported). The keys are CPython's objects, ordered by CPython's `sorted`; only a `key`
    function of the file runs in the evaluator."""
    reverse = truth(st, reverse, node, "`reverse=`")
    if reverse is None:
        return None
    keyed = items
    if not (isinstance(key, PyConst) and key.value is None):
        keyed = [call_value(st, key, [item], node) for item in items]
        if any(k is POISON for k in keyed):
            return None
    keys = [pyeval_ops.python_of(st, node.span, k) for k in keyed]
    if POISON in keys:
        return None
    bad = next((k for k, v in zip(keyed, keys) if v is pyeval_ops.NOT_PYTHON), None)
    if bad is not None:
        _fail(st, node, f"`{what}` over {kind_of(bad)}, known only at run time")
        return None
    try:
        return sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)
    except TypeError as err:
        st.diags.error("E0341" if what == "list.sort" else "E0137", f"compile-time evaluation failed: {err}",
                       node.span)
        return None


def call_value(st, fn, args: list, node):
    """fn(*args) for a callable compile-time value: a builtin (`len`, `max`, `operator.add` ...) or a
    plain function or lambda of the file; POISON after an error (reported)."""
    if isinstance(fn, Builtin) and fn.name in _TABLE:
        run, low, high, _ = _TABLE[fn.name]
        if low <= len(args) <= high:
            return run(st, node, args, {})
    if isinstance(fn, Helper) and fn.kind == "def":
        names = [p.name for p in fn.fdef.params if not p.star]
        if len(names) == len(args):
            return st.host.call_function(st, fn, dict(zip(names, args)), node)
    return _fail(st, node, f"cannot call {kind_of(fn)} with {len(args)} argument{'s' if len(args) != 1 else ''} "
                           f"at compile time")


def _reversed(st, node, args, kwargs):
    if kept_iterator_refused(st, node, "`reversed(...)`"):
        return POISON
    live = iterators.reversed_live(st, node, args[0]) if iterators.asked_item_by_item(node) else None
    if live is not None:
        return live
    items = _seq(st, node, args[0], "reversed")
    return POISON if items is None else pack(reversed(items))


def _anyall(name):
    def run(st, node, args, kwargs):
        items = _seq(st, node, args[0], name)
        if items is None:
            return POISON
        for item in items:  # (up to the item that decides, as CPython reads them)
            found = truth(st, item, node, f"`{name}`")
            if found is None:
                return POISON
            if found == (name == "any"):
                return PyConst(found)
        return PyConst(name == "all")
    return run


def _isinstance(st, node, args, kwargs):
    value, kinds = args
    of_class = st.host.class_isinstance(st, value, kinds)  # classes of the file
    if of_class is not None:
        return of_class
    value = st.host.number_of(value) or value  # an IntEnum member is an int
    kind_items = items_of(kinds) if isinstance(kinds, tuple) else [kinds]
    types = []
    for k in kind_items or ():
        if getattr(k, "name", None) not in _TYPES:
            return _fail(st, node, "`isinstance` tests against int, float, bool, str, tuple, list, set or dict")
        types.append(_TYPES[k.name])
    box = pyeval_box.box_of(value)
    if box is not None:
        return PyConst((list if box.kind == "list" else set) in types)
    if isinstance(value, PyConst):
        return PyConst(any(isinstance(value.value, t) for t in types if t is not PyDict))
    if isinstance(value, tuple):
        return PyConst(tuple in types)
    return PyConst(isinstance(value, PyDict) and PyDict in types)


def _type(st, node, args, kwargs):
    """`type(x)` of a compile-time value: the builtin type (`type(x) is int`, `type(x).__name__`), or
    the class of an instance of the file (the host's)."""
    value = args[0]
    box = pyeval_box.box_of(value)
    if box is not None:
        return Builtin(box.kind)
    if isinstance(value, PyDict):
        return Builtin("dict")
    if isinstance(value, tuple):
        return Builtin("tuple")
    if isinstance(value, PyConst) and (type(value.value).__name__ in _TYPES or value.value is None):
        return Builtin(type(value.value).__name__)
    cls = st.host.class_of(value)
    if cls is not None:
        return cls
    return _fail(st, node, f"`type` of {kind_of(value)} is not supported yet")


def _slice(st, node, args, kwargs):
    parts = list(args) if len(args) > 1 else [PyConst(None)] + list(args)
    parts += [PyConst(None)] * (3 - len(parts))
    return SliceVal(*(None if isinstance(p, PyConst) and p.value is None else p for p in parts))


# name -> (function, fewest and most positional arguments, keywords)
_TABLE = {
    "len": (_len, 1, 1, ()), "min": (_minmax("min"), 1, 1 << 16, ("default",)),
    "max": (_minmax("max"), 1, 1 << 16, ("default",)), "sum": (_sum, 1, 2, ("start",)),
    "abs": (_abs, 1, 1, ()), "round": (_number_builtin("round", round), 1, 2, ("ndigits",)),
    "divmod": (_number_builtin("divmod", divmod), 2, 2, ()), "pow": (_pow, 2, 3, ()),
    "int": (_convert("int"), 0, 2, ("base",)), "float": (_convert("float"), 0, 1, ()),
    "bool": (_convert("bool"), 0, 1, ()), "str": (_convert("str"), 0, 1, ()), "tuple": (_tuple, 0, 1, ()),
    "list": (_list, 0, 1, ()), "set": (_set, 0, 1, ()), "callable": (_callable, 1, 1, ()),
    "dict": (_dict, 0, 1, None), "zip": (_zip, 0, 1 << 16, ()),
    "enumerate": (_enumerate, 1, 2, ("start",)), "sorted": (_sorted, 1, 1, ("reverse", "key")),
    "reversed": (_reversed, 1, 1, ()), "any": (_anyall("any"), 1, 1, ()), "all": (_anyall("all"), 1, 1, ()),
    "isinstance": (_isinstance, 2, 2, ()), "slice": (_slice, 1, 3, ()), "type": (_type, 1, 1, ()),
    "getattr": (_getattr, 2, 3, ()), "hasattr": (_hasattr, 2, 2, ()), "repr": (_repr, 1, 1, ()),
}
assert set(_TABLE) == PY_BUILTINS


class _AnyName(tuple):
    """`dict(...)` takes any keyword."""

    def __contains__(self, item) -> bool:
        return True


_TABLE["dict"] = (_dict, 0, 1, _AnyName())



def unbound_method(kind: str, name: str):
    """`str.upper`, `list.append`, `dict.get` ...: a method of a builtin type taken from the type, a
    builtin whose first argument is the object (`str.upper(s)`, `sorted(xs, key=str.lower)`); None
    when tirxc's table of that type lacks it."""
    full = f"{kind}.{name}"
    return Builtin(full) if full in _TABLE and _TABLE[full][0].__name__ == "unbound" else None


def _unbound(kind: str, name: str):
    def unbound(st, node, args, kwargs):
        """As CPython's method descriptor: the object first, of the type itself or a subclass."""
        if not args:
            return _fail(st, node, f"compile-time evaluation failed: unbound method {kind}.{name}() needs an argument")
        obj = args[0]
        if _method_kind(obj) != kind:
            what = _method_kind(obj) or kind_of(obj)
            return _fail(st, node, f"compile-time evaluation failed: descriptor '{name}' for '{kind}' objects "
                                   f"doesn't apply to {what if not _method_kind(obj) else f'a {what!r} object'}")
        span = node.span
        call = ast.Call(span, node.func, tuple(as_node(a, span) for a in args[1:]),
                        tuple(ast.Keyword(span, k, as_node(v, span)) for k, v in kwargs.items()))
        return ct_method(st, Method(obj, name), call)
    return unbound


def slice_index(st, node: ast.Subscript) -> ast.Subscript:
    """`A[fs]` with `fs` a name bound to (or a call giving: `A[tuple(slices)]`) a slice or a tuple of
    slices and indices: the subscript as if they were written out (`A[0:32, 0:8]`, `A[1, 2]`), as
    Python passes a tuple index to `__getitem__`; any other subscript as it is (a call's value
    evaluated once)."""
    index = node.indices[0]
    if index.__class__ is ast.Name:
        value = st.host.bound_value(st, index.id)
    else:
        value = st.host.elab(st, index)
    if isinstance(value, SliceVal):
        items = [value]
    elif isinstance(value, tuple):
        items = list(value)
    elif isinstance(value, PyConst) and isinstance(value.value, tuple):
        items = [PyConst(v) for v in value.value]
    else:
        return node if index.__class__ is ast.Name else ast.Subscript(node.span, node.value, (as_node(value, index.span),))
    span = index.span
    indices = tuple(index_node(v, span) for v in items)
    return ast.Subscript(node.span, node.value, indices)


# -- methods of compile-time values -------------------------------------------------------------------
# kind -> method name -> (fewest, most arguments); all compute with Python on constants but the
# dict ones and tuple `index` / `count`, which take any items
_METHODS = {
    "dict": pyeval_dicts.DICT_METHODS,
    "tuple": {"index": (1, 3), "count": (1, 1)},
    "str": {"format": (0, 1 << 16), **{m: (0, 0) for m in (  # every method of `str` but `encode` and `format_map`
        "capitalize", "casefold", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
        "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "lower", "swapcase", "title",
        "upper")},
        **{m: (1, 1) for m in ("join", "partition", "rpartition", "removeprefix", "removesuffix", "translate",
                               "zfill")},
        **{m: (1, 3) for m in ("count", "find", "rfind", "index", "rindex", "startswith", "endswith",
                               "maketrans")},
        **{m: (0, 1) for m in ("strip", "lstrip", "rstrip", "expandtabs", "splitlines")},
        **{m: (0, 2) for m in ("split", "rsplit")}, **{m: (1, 2) for m in ("center", "ljust", "rjust")},
        "replace": (2, 3)},
    "int": {"bit_length": (0, 0), "bit_count": (0, 0)},
    "float": {"is_integer": (0, 0)},
}
_STR_HELP = "tirxc evaluates every method of a compile-time str but `encode` (bytes) and `format_map`"
# the methods that take keywords (CPython checks their names)
_KEYWORD_METHODS = {"str": frozenset(("split", "rsplit", "splitlines", "expandtabs")),
                    "dict": pyeval_dicts.KEYWORD_METHODS}


def _method_kind(obj) -> str | None:
    box = pyeval_box.box_of(obj)
    if box is not None:
        return box.kind
    if isinstance(obj, PyDict):
        return "dict"
    if isinstance(obj, tuple) or (isinstance(obj, PyConst) and isinstance(obj.value, tuple)):
        return "tuple"
    if isinstance(obj, PyConst) and isinstance(obj.value, str):
        return "str"
    if isinstance(obj, PyConst) and isinstance(obj.value, int):
        return "int"
    if isinstance(obj, PyConst) and isinstance(obj.value, float):
        return "float"
    return None


def _table(kind: str):
    return pyeval_lists.LIST_METHODS if kind == "list" else pyeval_lists.SET_METHODS if kind == "set" \
        else _METHODS[kind]


def ct_attribute(st, base, node: ast.Attribute):
    if base is pyeval_environ.ENVIRON:
        if node.attr == "get":
            return Method(base, "get")
        return pyeval_environ.refuse(st, node.span, f"`os.environ.{node.attr}`")
    kind = _method_kind(base)
    if kind is None or node.attr not in _table(kind):
        if kind in ("tuple", "list", "set") and hasattr({"tuple": tuple, "list": list, "set": set}[kind], node.attr):
            st.diags.error("E0306", f"`{kind}.{node.attr}` is not supported yet", node.span)
            return POISON
        if kind in ("tuple", "list", "set"):  # (tirxc has every method Python's lists and sets have but `sort(key=)`)
            st.diags.error("E0306", f"{kind_of(base)} has no attribute `{node.attr}`", node.span,
                           help="a tuple does not change: make a list (`[...]`)"
                           if kind == "tuple" and node.attr in pyeval_lists.LIST_METHODS else None)
            return POISON
        known = ", ".join(f"`{m}`" for m in (_table(kind) if kind else ()))
        st.diags.error("E0306", f"{kind_of(base)} has no attribute `{node.attr}`" if kind is None else
                       f"`{kind}.{node.attr}` is not supported yet", node.span,
                       help=_STR_HELP if kind == "str" else
                       f"tirxc evaluates {known} of a compile-time {kind}" if known else None)
        return POISON
    return Method(base, node.attr)


def ct_method(st, method: Method, node: ast.Call):
    obj, name = method.obj, method.name
    if obj is pyeval_environ.ENVIRON:  # `os.environ.get(name[, default])`
        args = [st.host.elab(st, a) for a in node.args]
        if any(isinstance(a, Poison) for a in args):
            return POISON
        if node.keywords or not 1 <= len(args) <= 2:
            st.diags.error("E0305", "`os.environ.get` takes 1 to 2 positional arguments", node.span)
            return POISON
        return pyeval_environ.get(st, node, args)
    kind = _method_kind(obj)
    if kind == "str" and name == "format":
        return pyeval_fstring.str_format(st, obj.value, node)
    low, high = _table(kind)[name]
    use_up = name in ("join", "extend", "update")  # (their argument is used up in one pass)
    args = [used_up(st, a) if use_up else st.host.elab(st, a) for a in node.args]
    if any(isinstance(a, Poison) for a in args):
        return POISON
    keywords = {k.name: st.host.elab(st, k.value) for k in node.keywords}
    if kind == "list" and name == "sort" and set(keywords) <= {"key", "reverse"} and not args:
        if any(isinstance(v, Poison) for v in keywords.values()):
            return POISON
        box = pyeval_box.box_of(obj)
        order = sort_order(st, node, items_of(obj), keywords.get("key", PyConst(None)),
                           keywords.get("reverse", PyConst(False)), "list.sort")
        if order is None:
            return POISON
        box.cached = None
        box.items[:] = [box.items[i] for i in order]  # (the very objects, reordered)
        return pyeval_lists.NONE
    takes_keywords = name in _KEYWORD_METHODS.get(kind, ())
    if (node.keywords and not takes_keywords) or not low <= len(args) <= high:
        st.diags.error("E0305", f"`{kind}.{name}` takes {low if low == high else f'{low} to {high}'} positional "
                                f"argument{'s' if high != 1 else ''}", node.span)
        return POISON
    if any(isinstance(v, Poison) for v in keywords.values()):
        return POISON
    if kind in ("list", "set"):
        return pyeval_lists.call_method(st, obj, name, node, args)
    if kind == "dict":
        return pyeval_dicts.call_method(st, obj, name, node, args, keywords)
    if kind == "tuple":
        return _tuple_search(st, node, items_of(obj), name, args)
    if name == "join":
        parts = _seq(st, node, args[0], "str.join")
        values = None if parts is None else _consts(st, node, parts, "str.join")
        values = None if values is None else [values]
    elif kind == "str":
        values = _python_args(st, node, args, f"str.{name}")
        named = _python_args(st, node, keywords.values(), f"str.{name}")
        keywords = None if named is None else dict(zip(keywords, named))
    else:
        values = _consts(st, node, args, f"{kind}.{name}")
    if values is None or keywords is None:
        return POISON
    if kind == "str":
        result = pyeval_ops.call(st, node.span, "str.method", obj.value, name, *values, what=f"str.{name}",
                                 keywords=keywords)
        if isinstance(result, dict):  # `str.maketrans`: a new dict of constants
            return pyeval_box.dict_value(result)
    else:
        result = _py(st, node, getattr(obj.value, name), *values)
        result = result.value if isinstance(result, PyConst) else result
    if result is POISON:
        return POISON
    if isinstance(result, list):  # `str.split`: CPython's new list
        return pyeval_box.new_list_of(result)
    return PyConst(result)


def _python_args(st, node, args, name: str):
    """The CPython objects of a str method's arguments: constants as they are, a tuple of prefixes
    or a translation table (a dict) converted (ops.python_of); None (reported) for a value known
    only at run time."""
    out = []
    for arg in args:
        if isinstance(arg, (ir.IntImm, ir.FloatImm)):
            out.append(arg.value)
            continue
        value = pyeval_ops.python_of(st, node.span, arg)
        if value is POISON:
            return None
        if value is pyeval_ops.NOT_PYTHON:
            return _consts(st, node, [arg], name)  # (reports it)
        out.append(value)
    return out


def _tuple_search(st, node, items, name: str, args):
    """`t.count(x)`, `t.index(x[, start[, stop]])` of a tuple: by Python's `==` of its items."""
    bounds = [_int_arg(st, a, n) for a, n in zip(args[1:], node.args[1:])]
    if None in bounds:
        return POISON
    window = range(len(items))[slice(*(bounds + [None, None])[:2])]  # (`index(x, start[, stop])`)
    same = pyeval_lists.matches([pyeval_box.python_item(i) for i in items], pyeval_box.python_item(args[0]), window)
    if name == "count":
        return PyConst(len(same))
    return PyConst(same[0]) if same else _fail(st, node, "`index`: the value is not in the tuple")


def _int_arg(st, val, node):
    """A compile-time integer argument (a position); None (reported) otherwise."""
    if isinstance(val, PyConst) and isinstance(val.value, int):
        return val.value
    if isinstance(val, ir.IntImm):
        return val.value
    _fail(st, node, f"a position is a compile-time integer, not {kind_of(val)}")
    return None


def meta_var(st, node: ast.Call):
    """`T.meta_var(x)`: x itself, whatever it is (a compile-time value, or a run-time expression
    that is substituted at each use, as TVMScript does)."""
    if len(node.args) != 1 or node.keywords:
        st.diags.error("E0305", "`T.meta_var` takes one value", node.span)
        return POISON
    return st.host.elab(st, node.args[0])


# `str.upper`, `list.append` ... taken from the type (unbound_method); `dict.fromkeys` and
# `str.maketrans` are the type's own (modules.py)
for _kind in ("str", "list", "set", "dict", "tuple", "int", "float"):
    for _name in _table(_kind):
        if (_kind, _name) not in (("dict", "fromkeys"), ("str", "maketrans")):
            _TABLE[f"{_kind}.{_name}"] = (_unbound(_kind, _name), 1, 1 << 16, _AnyName())
