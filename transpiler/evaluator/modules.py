"""The Python modules a kernel file may import for its compile-time arithmetic: `math`,
`functools.reduce`, `operator` and TVM's `DataType`, evaluated by tirxc on compile-time values (never imported). `import math`
binds the module; `math.gcd(...)`, or `gcd` after `from math import gcd`, is a builtin of
builtins.py's table under the name `math.gcd`. The modules of TIRx's library (`dataclasses`, the
TMA layout helpers) are the host's: `modules(host)` lists them all."""
from __future__ import annotations

import math
import operator

from transpiler.diag.diagnostics import did_you_mean
from transpiler.syntax import ast
from transpiler.evaluator import box as pyeval_box, environ as pyeval_environ, ops as pyeval_ops
from transpiler.evaluator import builtins as pyeval_builtins, stdlib as pyeval_stdlib, typing_names as pyeval_typing
from transpiler.evaluator.builtins import _consts, _fail, _py, _seq
from transpiler.evaluator.values import Builtin, DTypeVal, Helper, Method, POISON, Poison, PyConst
from transpiler.target.dtypes import parse_dtype

_CLASS_METHODS = (("dict", "fromkeys"), ("str", "maketrans"))  # (their result does not depend on the instance)
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}

# name -> (Python function, fewest and most arguments): each over compile-time numbers only
_MATH = {
    "gcd": (math.gcd, 0, 64), "lcm": (math.lcm, 0, 64), "prod": (lambda *xs: math.prod(xs), 1, 1),
    "ceil": (math.ceil, 1, 1), "floor": (math.floor, 1, 1), "trunc": (math.trunc, 1, 1),
    "sqrt": (math.sqrt, 1, 1), "isqrt": (math.isqrt, 1, 1), "exp": (math.exp, 1, 1), "exp2": (lambda x: 2.0 ** x, 1, 1),
    "log": (math.log, 1, 2), "log2": (math.log2, 1, 1), "log10": (math.log10, 1, 1), "pow": (math.pow, 2, 2),
    "fabs": (math.fabs, 1, 1), "isfinite": (math.isfinite, 1, 1), "isinf": (math.isinf, 1, 1),
    "isnan": (math.isnan, 1, 1), "comb": (math.comb, 2, 2), "factorial": (math.factorial, 1, 1),
    "copysign": (math.copysign, 2, 2), "sin": (math.sin, 1, 1), "cos": (math.cos, 1, 1), "tanh": (math.tanh, 1, 1),
}
# operator's functions of two compile-time numbers (`functools.reduce(operator.mul, shape, 1)`)
_OPERATOR = {name: getattr(operator, name) for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift", "eq", "ne",
    "lt", "le", "gt", "ge")}
MODULES = {"math": tuple(_MATH) + tuple(_CONSTANTS), "functools": ("reduce",), "operator": tuple(_OPERATOR),
           # `tvm.DataType(dtype).bits` / `tvm.runtime.DataType`: a dtype's facts (`import tvm` binds the module)
           "tvm": ("DataType", "runtime"), "tvm.runtime": ("DataType",),
           "typing": pyeval_typing.NAMES, **pyeval_stdlib.NAMES}
# modules of which tirxc evaluates a few names only: an import of another name is accepted and
# refused where it is used, as an import of a module tirxc does not evaluate
PARTIAL = tuple(pyeval_stdlib.NAMES)
DTYPE_FACTS = {"bits": lambda d: d.bits, "lanes": lambda d: d.lanes, "itemsize": lambda d: d.nbytes}


def _math(name: str):
    fn = _MATH[name][0]

    def run(st, node, args, kwargs):
        if name == "prod":  # math.prod(iterable, start=1)
            items = _seq(st, node, args[0], "math.prod")
            values = None if items is None else _consts(st, node, items, "math.prod")
            return POISON if values is None else _called(st, node, f"math.{name}", values)
        values = _consts(st, node, args, f"math.{name}",
                         "the math module computes with Python numbers; use `T.ceil`, `T.sqrt` ... in kernel code")
        return POISON if values is None else _called(st, node, f"math.{name}", values)
    return run


# operator's functions are Python's operators: `operator.add(a, b)` is `a + b`, evaluated as the
# file's own `+` is (a list's sum is a list, a kernel value's an expression)
_OPERATOR_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
                     "and_": "&", "or_": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "eq": "==", "ne": "!=",
                     "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _operator(name: str):
    symbol = _OPERATOR_SYMBOLS[name]

    def run(st, node, args, kwargs):
        left, right = (ast.Value(node.span, a) for a in args)
        if symbol in ("==", "!=", "<", "<=", ">", ">="):
            return st.host.elab(st, ast.Compare(node.span, left, (symbol,), (right,)))
        return st.host.elab(st, ast.BinOp(node.span, symbol, left, right))
    return run


def _called(st, node, name: str, values):
    """CPython's `name` over values through the whitelist (ops.call: bounded and charged)."""
    result = pyeval_ops.call(st, node.span, name, *values)
    return POISON if result is POISON else PyConst(result)


def _reduce(st, node, args, kwargs):
    """`functools.reduce(f, items[, initial])`: f (a lambda, a plain helper or an `operator`
    function) called item by item."""
    fn = args[0]
    is_operator = isinstance(fn, Builtin) and fn.name in pyeval_builtins._TABLE  # `operator.mul`, `max` ...
    if not is_operator and (not isinstance(fn, Helper) or fn.kind != "def"):
        return _fail(st, node, "`functools.reduce` takes a lambda, a plain function or an `operator` function first")
    items = _seq(st, node, args[1], "functools.reduce")
    if items is None:
        return POISON
    items = list(items)
    if len(args) == 3:
        acc = args[2]
    elif items:
        acc = items.pop(0)
    else:
        return _fail(st, node, "`functools.reduce` of an empty sequence with no initial value")
    if is_operator:
        for item in items:
            acc = pyeval_builtins.call_value(st, fn, [acc, item], node)
            if isinstance(acc, Poison):
                return POISON
        return acc
    names = [p.name for p in fn.fdef.params if not p.star]
    if len(names) != 2:
        return _fail(st, node, "`functools.reduce`'s function takes two arguments")
    for item in items:
        acc = st.host.call_function(st, fn, {names[0]: acc, names[1]: item}, node)
        if isinstance(acc, Poison):
            return POISON
    return acc


def _data_type(st, node, args, kwargs):
    """`tvm.DataType("float16")` (or of a dtype value): the dtype, whose `.bits`, `.lanes` and
    `.itemsize` are compile-time numbers."""
    value = args[0]
    if isinstance(value, DTypeVal):
        return value
    dtype = parse_dtype(value.value) if isinstance(value, PyConst) and isinstance(value.value, str) else None
    if dtype is None:
        return _fail(st, node, "`DataType` takes a dtype name such as \"float16\" or a dtype")
    return DTypeVal(dtype)


def dtype_attr(st, base: DTypeVal, node):
    """`DataType(...).bits` ..."""
    if node.attr in DTYPE_FACTS:
        return PyConst(DTYPE_FACTS[node.attr](base.dtype))
    st.diags.error("E0306", f"a dtype has no attribute `{node.attr}`", node.span,
                   help=did_you_mean(node.attr, DTYPE_FACTS) or "it has `bits`, `lanes` and `itemsize`")
    return POISON


def module_attr(st, base: Builtin, node):
    """`math.gcd`, `math.pi`, `functools.reduce`: a builtin, or a constant's value."""
    member = st.host.library_member(st, base, node)  # `SwizzleMode.SWIZZLE_128B_ATOM`, `.value`
    if member is None:
        member = pyeval_stdlib.attribute(base, node.attr)  # `os.environ`
    if member is not None:
        return member
    if (base.name, node.attr) in _CLASS_METHODS:  # `dict.fromkeys`, `str.maketrans`: of an empty instance
        return Method(pyeval_box.dict_value({}) if base.name == "dict" else PyConst(""), node.attr)
    if node.attr == "__name__" and (base.name in pyeval_builtins._TYPES or base.name == "NoneType"):  # `type(x).__name__`
        return PyConst(base.name)
    unbound = pyeval_builtins.unbound_method(base.name, node.attr)  # `str.upper`, `list.append`
    if unbound is not None:
        return unbound
    known = modules(st.host)
    if f"{base.name}.{node.attr}" in known:  # `tvm.runtime`
        return Builtin(f"{base.name}.{node.attr}")
    if base.name not in known:
        st.diags.error("E0306", f"`{base.name}` has no attribute `{node.attr}`", node.span)
        return POISON
    if base.name == "math" and node.attr in _CONSTANTS:
        return PyConst(_CONSTANTS[node.attr])
    if base.name == "typing" and node.attr == "TYPE_CHECKING":
        return PyConst(False)
    if node.attr not in known[base.name]:
        st.diags.error("E0301", f"`{base.name}.{node.attr}` is not supported yet", node.span,
                       help=did_you_mean(node.attr, known[base.name])
                       or f"tirxc evaluates {', '.join(f'`{base.name}.{n}`' for n in known[base.name])}")
        return POISON
    return Builtin(f"{base.name}.{node.attr}")


def modules(host) -> dict:
    """Every module a file may import names of, to those names: the evaluator's and the host's
    library's."""
    return {**MODULES, **host.library_modules}


def imported(host, module: str, name: str):
    """What `from module import name` binds: a builtin or a constant; None when tirxc lacks it."""
    if module == "math" and name in _CONSTANTS:
        return PyConst(_CONSTANTS[name])
    if module == "typing" and name == "TYPE_CHECKING":
        return PyConst(False)
    if module == "os" and name == "environ":
        return pyeval_environ.ENVIRON
    if module in host.library_modules:
        return host.library_import(module, name)
    if f"{module}.{name}" in MODULES:
        return Builtin(f"{module}.{name}")
    return Builtin(f"{module}.{name}") if name in MODULES.get(module, ()) else None


for _name, (_fn, _low, _high) in _MATH.items():
    pyeval_builtins._TABLE[f"math.{_name}"] = (_math(_name), _low, _high, ())
for _name in _OPERATOR:
    pyeval_builtins._TABLE[f"operator.{_name}"] = (_operator(_name), 2, 2, ())
pyeval_builtins._TABLE["functools.reduce"] = (_reduce, 2, 3, ())
pyeval_builtins._TABLE["tvm.DataType"] = pyeval_builtins._TABLE["tvm.runtime.DataType"] = (_data_type, 1, 1, ())
