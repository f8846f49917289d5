"""CPython's own operations on the file's compile-time Python values, through one whitelist that
charges the cost model.

The evaluator does not re-implement Python's values where CPython can compute them: a
comparison, a membership test, a builtin or a method of `str` / `math` / `operator` over
compile-time values takes their CPython objects (`to_python`: a list, set or dict is its own real
object already, box.py; an instance or enum member its stand-in) and calls CPython's function.
Every such call goes through `call`, which

- admits only the functions of `OPERATIONS` (a function not listed is an internal error);
- bounds, before the call, what the result can be (`_bound`: the bits of an integer power or
  shift, the length of a joined or repeated string ...) and refuses a call that would exceed the
  limits below, naming the limit (E0318), so that no builtin computes a huge value first;
- charges the file's step budget (core.step) by the size of what the call made: one step, plus
  one per 64 bits of an integer and one per 64 items or characters of a container or string (a
  string method also by the string it goes through: `s.count(x)` reads all of s);
- reports CPython's own error (`TypeError`, `ValueError` ...) as a located compile-time error.

A value the evaluator cannot give CPython (a kernel expression, a buffer, an instance of a class
of the file without a stand-in, or a container holding one) is not converted: `to_python` gives
NOT_PYTHON and the caller keeps its own rule (identity, the kernel's arithmetic) or refuses it by
name. A list's or dict's own methods (`append`, `sort`, `setdefault` ...) are CPython's, called on
the real object by lists.py and dicts.py, which charge the budget by the items they go through."""
from __future__ import annotations

import math
import operator

from transpiler.evaluator.box import plain, python_item
from transpiler.evaluator.budget import ITEMS_SEEN, charge_items, step
from transpiler.evaluator.standins import DataclassObject, Held, random_order
from transpiler.evaluator.values import POISON, PyConst

# The limits of compile-time values (docs/errors.md E0318 and docs/design.md state them too).
INT_BITS = 4096  # bits of a compile-time integer
TEXT_CHARS = 1 << 20  # characters of a compile-time string
ITEMS = 1 << 20  # items of a compile-time list, tuple, set or dict made by one operation

NOT_PYTHON = object()  # to_python's answer for a value CPython cannot be given


def to_python(val, memo: dict | None = None):
    """The CPython object of a compile-time value: a constant as itself, a list, set or dict as its
    own real object (box.py: one object, shared by every alias), an instance or enum member of the
    file as its stand-in; NOT_PYTHON for anything else (a kernel expression, a buffer) and for a
    container holding one at any depth, which CPython could not compare or print as Python would.
    memo counts the items gone through (python_of charges them)."""
    cls = val.__class__
    if cls is PyConst:
        return val.value
    memo = {} if memo is None else memo
    made = python_item(val)
    if made.__class__ is Held:
        stand_in = getattr(val, "python_stand_in", None)
        return NOT_PYTHON if stand_in is None else stand_in(memo)
    seen = memo.get(_SEEN)  # (shared with the conversions of the fields of an instance it holds)
    if seen is None:
        seen = memo[_SEEN] = set()
    return made if _all_python(made, memo, seen) else NOT_PYTHON


_SEEN = "seen"  # a memo's set of the lists and dicts already gone through


def _all_python(obj, memo: dict, seen: set) -> bool:
    """Whether every object obj holds has a CPython object (a held one a stand-in), counting the
    items gone through into memo (a list or dict once, however often it is reached)."""
    cls = obj.__class__
    if cls is Held:
        stand_in = getattr(obj.value, "python_stand_in", None)
        return stand_in is not None and stand_in(memo) is not NOT_PYTHON
    if cls is set or cls is frozenset:
        memo[ITEMS_SEEN] = memo.get(ITEMS_SEEN, 0) + len(obj)  # (CPython's own set of keys)
        return True
    if cls is list or cls is dict:
        if cls is list:  # (a list's items are counted each time it is reached, a dict's once)
            memo[ITEMS_SEEN] = memo.get(ITEMS_SEEN, 0) + len(obj)
        if id(obj) in seen:
            return True
        seen.add(id(obj))
    elif cls is not tuple or plain(obj):
        return True
    if cls is not list:
        memo[ITEMS_SEEN] = memo.get(ITEMS_SEEN, 0) + len(obj)
    return all(_all_python(item, memo, seen) for item in (obj.values() if cls is dict else obj))


def python_of(st, span, val):
    """to_python, charged: one step per 64 items it went through (every container's items, a
    stand-in's fields), so that converting a large value again and again draws from the budget;
    POISON when the budget is spent (reported), NOT_PYTHON as to_python."""
    memo: dict = {}
    made = to_python(val, memo)
    return made if charge_items(st, span, memo) else POISON


def holds_text_set(value, seen: set | None = None) -> bool:
    """Whether a Python value holds a set (at any depth) whose iteration order CPython randomises
    per process (a set of strings, standins.random_order): tirxc does not print or iterate it."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return False  # (a list that holds itself)
    if isinstance(value, (set, frozenset)):
        return any(random_order(v) for v in value)
    if isinstance(value, (list, tuple, dict)):
        seen.add(id(value))
        return any(holds_text_set(v, seen) for v in (value.values() if isinstance(value, dict) else value))
    if isinstance(value, DataclassObject):
        seen.add(id(value))
        return any(holds_text_set(v, seen) for _, v in value.fields)
    if isinstance(value, Held):
        return holds_text_set(value.stand_in(), seen)
    return False


# -- the whitelist -------------------------------------------------------------------------------------
# name -> the CPython function; `call` admits nothing else
OPERATIONS = {
    **{f"operator.{n}": getattr(operator, n) for n in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift",
        "eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "not_", "invert", "contains", "is_", "is_not",
        "ior", "iand", "isub", "ixor")},
    **{f"math.{n}": getattr(math, n) for n in (
        "gcd", "lcm", "ceil", "floor", "trunc", "sqrt", "isqrt", "exp", "log", "log2", "log10", "pow", "fabs",
        "isfinite", "isinf", "isnan", "comb", "factorial", "copysign", "sin", "cos", "tanh")},
    "math.prod": lambda *xs: math.prod(xs), "math.exp2": lambda x: 2.0 ** x,
    **{n: f for n, f in (("abs", abs), ("min", min), ("max", max), ("int", int), ("float", float),
                         ("str", str), ("bool", bool), ("repr", repr), ("format", format))},
    "str.method": lambda s, name, *args, **keywords: getattr(s, name)(*args, **keywords),
    "set.method": lambda s, name, *args: getattr(s, name)(*args),
}
_COMPARISONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
                ">=": operator.ge}


def _bits(x) -> int:
    return abs(x).bit_length() if isinstance(x, int) else 0


def _bound(name: str, args, keywords: dict | None = None) -> tuple[str, int] | None:
    """An upper bound of what the call makes before it is made, ("bits" | "chars", size); None when
    the result is small by construction (a float, a bool, a comparison)."""
    ints = all(isinstance(a, int) for a in args)
    if name in ("operator.pow",) and ints and len(args) == 2:
        a, b = args
        return ("bits", 0 if b < 0 or _bits(a) <= 1 else _bits(a) * b)
    if name == "operator.lshift" and ints and len(args) == 2:
        return ("bits", _bits(args[0]) + max(0, args[1]))
    if name == "operator.mul" and len(args) == 2:
        a, b = args
        if ints:
            return ("bits", _bits(a) + _bits(b))
        seq, n = (a, b) if isinstance(b, int) else (b, a)
        if isinstance(n, int) and hasattr(seq, "__len__"):
            return ("chars" if isinstance(seq, str) else "items", len(seq) * max(0, n))
    if name in ("operator.add",) and len(args) == 2 and all(hasattr(a, "__len__") for a in args):
        return ("chars" if isinstance(args[0], str) else "items", len(args[0]) + len(args[1]))
    if name in ("set.method", "operator.or_", "operator.ior", "operator.xor", "operator.ixor") and \
            any(isinstance(a, (set, frozenset)) for a in args):  # a set made: at most all items of its operands
        return ("items", sum(len(a) for a in args if isinstance(a, (set, frozenset, list, dict))))
    if name == "math.prod" and ints:
        return ("bits", sum(_bits(a) for a in args))
    if name == "math.lcm" and ints:
        return ("bits", sum(_bits(a) for a in args))
    if name == "math.factorial" and ints and args:
        n = args[0]
        return ("bits", 0 if n < 2 else int(n * math.log2(n)) + 1)
    if name == "math.comb" and ints and len(args) == 2:  # comb(n, k) <= n ** min(k, n - k)
        n, k = args
        return ("bits", max(0, min(k, n - k)) * _bits(n))
    if name == "str.method" and isinstance(args[0], str):
        return _text_bound(args[0], args[1], args[2:], keywords or {})
    if name == "format" and len(args) == 2 and isinstance(args[1], str):
        widths = [int(d) for d in "".join(c if c.isdigit() else " " for c in args[1]).split()]
        return ("chars", max(widths, default=0) + 64)
    return None


def _text_bound(text: str, method: str, args, keywords: dict) -> tuple[str, int] | None:
    if method == "join" and args:
        parts = args[0]
        if isinstance(parts, (list, tuple)):
            size = sum(len(p) for p in parts if isinstance(p, str)) + len(text) * max(0, len(parts) - 1)
            return ("chars", size)
    if method == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        count = text.count(old) if old else len(text) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        return ("chars", len(text) + count * max(0, len(new) - len(old)))
    if method in ("ljust", "rjust", "center", "zfill") and args and isinstance(args[0], int):
        return ("chars", max(len(text), args[0]))
    if method == "expandtabs":  # each tab becomes at most `tabsize` spaces
        size = args[0] if args else keywords.get("tabsize", 8)
        return ("chars", len(text) + text.count("\t") * max(0, size if isinstance(size, int) else 0))
    if method == "translate" and args:  # each character becomes at most the longest string of the table
        table = args[0]
        mapped = table.values() if isinstance(table, dict) else table if isinstance(table, (list, tuple)) else ()
        return ("chars", len(text) * max([1] + [len(m) for m in mapped if isinstance(m, str)]))
    return ("chars", len(text))


def over_limit(bound) -> str | None:
    """The message naming the limit a bound exceeds; None when it fits."""
    if bound is None:
        return None
    kind, size = bound
    if kind == "bits" and size > INT_BITS:
        return f"the integer would have more than {INT_BITS} bits (compile-time integers have at most {INT_BITS})"
    if kind == "chars" and size > TEXT_CHARS:
        return f"the string would have {size} characters (compile-time strings have at most {TEXT_CHARS})"
    if kind == "items" and size > ITEMS:
        return f"the sequence would have {size} items (compile-time containers have at most {ITEMS})"
    return None


def size_steps(value) -> int:
    """The steps a made value costs: one, plus one per 64 bits, items or characters."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return 1
    if isinstance(value, int):
        return 1 + _bits(value) // 64
    if isinstance(value, (str, tuple, list, dict, set, frozenset)):
        return 1 + len(value) // 64
    return 1


def call(st, span, name: str, *args, what: str | None = None, keywords: dict | None = None):
    """CPython's `name` of the whitelist over Python values (and keywords), bounded and charged: its
    result, or POISON after an error (reported at span, naming `what` or the operation)."""
    fn = OPERATIONS[name]
    bound = _bound(name, args, keywords)
    message = over_limit(bound)
    if message is not None and not _loose(bound):
        st.diags.error("E0318", f"`{what or name}`: {message}", span)
        return POISON
    try:
        result = fn(*args, **(keywords or {}))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError, IndexError, KeyError) as err:
        if private_failure(st, span, what or name, args, err):
            return POISON
        st.diags.error("E0137", f"compile-time evaluation failed: {err}", span)
        return POISON
    if name == "str.method" and len(args[0]) >= 64 and not step(st, span, len(args[0]) // 64):
        return POISON  # (a search or a test goes through the whole string, however small its result)
    return result if charge(st, span, result, what or name) else POISON


def _loose(bound) -> bool:
    """Whether an integer bound over the limit is loose enough that the value is made and its own
    size decides (charge): `2 ** 4094` is bounded by 2 x 4094 bits but has 4095."""
    return bound[0] == "bits" and bound[1] <= 2 * INT_BITS + 64


INT_OPERATIONS = {"*": "operator.mul", "<<": "operator.lshift", "**": "operator.pow"}  # (the ones that grow)


def private_failure(st, span, what: str, args, err) -> bool:
    """Report a failure over a value read from the environment by the variable's name, never its
    value (environ.py); False when no argument is one (the caller reports CPython's message)."""
    from transpiler.evaluator.environ import value_name
    names = [n for n in (value_name(st, a) for a in args) if n is not None]
    if not names:
        return False
    st.diags.error("E0137", f"compile-time evaluation failed: `{what}` of environment variable `{names[0]}` "
                            f"({type(err).__name__}; its value is not shown)", span)
    return True


def charge(st, span, result, what: str) -> bool:
    """Check a made value against the limits and draw its size from the step budget; False after
    an error (reported)."""
    message = over_limit(("bits", _bits(result)) if isinstance(result, int) and not isinstance(result, bool)
                         else ("chars", len(result)) if isinstance(result, str) else None)
    if message is not None:
        st.diags.error("E0318", f"`{what}`: {message}", span)
        return False
    return step(st, span, size_steps(result))


def compare(op: str, a, b):
    """CPython's `a op b` of two Python values: a bool, or None when CPython refuses the
    comparison (`None < 0`), which the caller reports."""
    try:
        return bool(_COMPARISONS[op](a, b))
    except TypeError:
        return None
