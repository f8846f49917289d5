"""Expression elaboration: `elab(st, node)` dispatches on the node's class to an `_elab_<Class>`
function. Here: names, constants, tuples, conditionals, boolean and unary operators, comparisons of
scalars, and the helpers every family uses to read its arguments (`value`, `int_value`,
`const_int`, `const_str`, `dtype_arg`). The nodes whose meaning depends on the value they apply to
(calls, attributes, subscripts, binary operators, `is` / `in`) are sema/dispatch.py's, at the top of
the checker, which hands them to the family of that value; this module imports no family, so
every family can import it. The Python level's own nodes (comprehensions, dicts, sets, `*`,
f-strings) are the evaluator's (evaluator/nodes.py)."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.target.dtypes import BOOL, DType, INT32, parse_dtype
from transpiler.sema.expressions import effects, scalars
from transpiler.sema import state
from transpiler.sema.library.class_values import Instance, dataclass_equal
from transpiler.evaluator import core as pyeval, lists as pyeval_lists, ops as pyeval_ops
from transpiler.evaluator.box import ListConst, ListTuple
from transpiler.evaluator.builtins import PY_BUILTINS
from transpiler.evaluator.nodes import NODE_RULES
from transpiler.evaluator.values import Builtin, DTypeVal, POISON, Poison, PyConst, describe
from transpiler.sema.values import Axis, AxisTerm, LibraryName, Namespace
from transpiler.sema.registry import DispatchTable, is_default
from transpiler.sema.expressions.scalars import INT_BITS


_BINOPS = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "floordiv", "%": "floormod",
           "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^", "**": "**"}


_BUILTIN_VALUES = {name: Builtin(name) for name in PY_BUILTINS | {"range"}}


kind_of = describe


def value(st, node: ast.Expr, dtype: DType | None = None):
    return scalars.as_value(st, elab(st, node), node.span, dtype)


def int_value(st, node: ast.Expr):
    """An integer scalar (indices, loop bounds, offsets); literals become int32 (int64 when large)."""
    val = elab(st, node)
    if isinstance(val, ir.Expr) and val.dtype.is_int and val.dtype.lanes == 1:
        return val  # the common case, before the tests of everything else
    if isinstance(val, PyConst) and (not isinstance(val.value, int) or isinstance(val.value, bool)):
        found = f"float literal `{val.value!r}`" if isinstance(val.value, float) else describe(val)
        st.diags.error("E0309", f"expected an integer, found {found}", node.span)
        return POISON
    v = scalars.as_value(st, val, node.span)
    if v is not POISON and not (v.dtype.is_int and v.dtype.lanes == 1):
        st.diags.error("E0309", f"expected an integer, found {v.dtype}", node.span,
                         help=f"convert it: `T.int32({scalars.source_text(st, node.span) or 'x'})`"
                         if v.dtype.lanes == 1 else None)
        return POISON
    return v


def const_int(st, node: ast.Expr, what: str):
    """A compile-time integer (module constants, literals and their arithmetic)."""
    val = enum_value(elab(st, node))
    if isinstance(val, Poison):
        return None
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
        return val.value
    if isinstance(val, ir.IntImm):
        return val.value
    st.diags.error("E0202", f"{what} must be a compile-time integer", node.span)
    return None


def const_str(st, node: ast.Expr, what: str):
    val = elab(st, node)
    if isinstance(val, PyConst) and isinstance(val.value, str):
        return scalars.text_str(st, val.value, node.span)
    if not isinstance(val, Poison):
        st.diags.error("E0202", f"{what} must be a compile-time string", node.span)
    return None


def dtype_arg(st, node: ast.Expr):
    """A dtype given as a string ("float32") or a dialect name (T.float32); None on error."""
    val = elab(st, node)
    if isinstance(val, Poison):
        return None
    if isinstance(val, DTypeVal):
        return val.dtype
    if isinstance(val, PyConst) and isinstance(val.value, str):
        dtype = parse_dtype(val.value)
        if dtype is None:
            scalars.unknown_dtype(st, val.value, node.span)
        return dtype
    st.diags.error("E0302", f"expected a dtype such as \"float32\", found {describe(val)}", node.span)
    return None


# -- dispatch --------------------------------------------------------------------------
def elab(st, node: ast.Expr):
    val = _ELAB[node.__class__](st, node)
    if val is POISON and not st.diags.has_errors:
        # an expression without a value must have said why: a silent POISON would drop the
        # statements that use it and leave a wrong kernel behind
        raise RuntimeError(f"internal: the expression at {node.span.line}:{node.span.col} has no value "
                           f"and no error was reported")
    return val


def _elab_unsupported(st, node: ast.Expr):
    st.diags.error("E0306", f"{type(node).__name__.lower()} expressions are not supported here", node.span)
    return POISON


def _elab_Name(st, node: ast.Name):
    val = _name_value(st, node)
    cls = val.__class__
    if cls is ListConst or cls is ListTuple:  # a list or set shows its items as they are now
        return pyeval_lists.reread(st, val, node)
    return val


def _name_value(st, node: ast.Name):
    name = node.id
    if st.at_module_level and st.scopes:  # a comprehension or helper at module level
        value = state.scoped_value(st, name, node.span)
        if value is not state.NOT_IN_SCOPES:
            return value
    if name in _BUILTIN_VALUES and state.binding(st, name) is None and name not in st.module.globals:
        return _BUILTIN_VALUES[name]
    val = state.lookup(st, name, node.span)
    if isinstance(val, LibraryName) and not val.available:  # `np` after `import numpy as np`
        return library_name(st, val, node)
    return val


def _elab_Constant(st, node: ast.Constant):
    value = node.value
    if isinstance(value, int) and abs(value).bit_length() > INT_BITS:
        st.diags.error("E0318", f"integer constant of {abs(value).bit_length()} bits; constants have at most "
                                  f"{INT_BITS}", node.span)
        return POISON
    return PyConst(value)


def _elab_Tuple(st, node: ast.Tuple):
    return _sequence(st, node.elts)


def _sequence(st, elts):
    for e in elts:
        if e.__class__ is ast.Starred:
            return pyeval.sequence(st, elts)
    items = [elab(st, e) for e in elts]
    if any(isinstance(i, Poison) for i in items):
        return POISON
    if all(i.__class__ is PyConst for i in items):
        return PyConst(tuple(i.value for i in items))
    return tuple(items)  # (a list in it stays a list: `([1, 2],)[0].append(3)`)


def _elab_Slice(st, node: ast.Slice):
    st.diags.error("E0306", "a slice is only valid inside `[...]`", node.span)
    return POISON


def _elab_IfExp(st, node: ast.IfExp):
    test = elab(st, node.test)
    known = pyeval.known_truth(test)
    if known is not None:
        return elab(st, node.body if known else node.orelse)
    cond = scalars.condition(st, test, node.test.span)
    with effects.Lazy(st, cond):  # each branch runs only when the test selects it
        a = elab(st, node.body)
    with effects.Lazy(st, effects.negate(cond)):
        b = elab(st, node.orelse)
    a, b = scalars.unify(st, a, b, node.body.span, node.orelse.span)
    if POISON in (cond, a, b):
        return POISON
    return ir.select(cond, a, b, node.span)


def _elab_BoolOp(st, node: ast.BoolOp):
    vals = [elab(st, node.values[0])]
    held = None  # the condition under which the next value is evaluated (None: not known)
    for later in node.values[1:]:  # evaluated only when the ones before leave the result open
        last = vals[-1]
        if pyeval.known_truth(last) == (node.op == "or") and all(pyeval.known_truth(v) is not None for v in vals):
            return last  # decided at compile time, as Python decides `x is not None and x > 0`
        tested = effects.truth(vals[-1])
        tested = tested if node.op == "and" or tested is None else effects.negate(tested)
        held = tested if held is None else held if tested is None else ir.binop("&&", held, tested)
        with effects.Lazy(st, held):
            vals.append(elab(st, later))
    if all(pyeval.known_truth(v) is not None for v in vals):  # Python's `or` / `and` give an operand itself
        result = vals[0]
        for v in vals[1:]:
            if pyeval.known_truth(result) == (node.op == "and"):
                result = v
        return result
    conds = [scalars.condition(st, v, n.span) for v, n in zip(vals, node.values)]
    if POISON in conds:
        return POISON
    out = conds[0]
    for c in conds[1:]:
        out = ir.binop("&&" if node.op == "and" else "||", out, c, node.span)
    return out


def _elab_UnaryOp(st, node: ast.UnaryOp):
    operand = elab(st, node.operand)
    if isinstance(operand, Poison):
        return POISON
    if node.op == "not" and not isinstance(operand, PyConst) and pyeval.known_truth(operand) is not None:
        return PyConst(not pyeval.known_truth(operand))  # `not xs` of a list, tuple or dict
    if isinstance(operand, PyConst):
        v = operand.value
        if node.op == "not":
            return PyConst(not v)
        if not isinstance(v, (int, float)) or isinstance(v, str):
            st.diags.error("E0306", f"unary `{node.op}` needs a number", node.span)
            return POISON
        if node.op == "~":
            if isinstance(v, float):
                st.diags.error("E0309", "`~` needs an integer", node.span)
                return POISON
            return PyConst(~v)
        return PyConst(-v if node.op == "-" else +v)
    if node.op == "not":
        cond = scalars.condition(st, operand, node.operand.span)
        return POISON if cond is POISON else ir.unary("!", cond, node.span)
    val = scalars.as_value(st, operand, node.operand.span)
    if val is POISON:
        return POISON
    if node.op == "+":
        return val
    if node.op == "~" and not val.dtype.is_int:
        st.diags.error("E0309", f"`~` needs an integer, found {val.dtype}", node.span)
        return POISON
    if node.op == "-" and val.dtype.kind == "uint":
        st.diags.error("E0309", f"unary `-` on unsigned {val.dtype}", node.span,
                         help="cast to a signed type first")
        return POISON
    return ir.unary(node.op, val, node.span)


def compare(st, node: ast.Compare):
    """A comparison (a chain) of scalars, constants, enum members and builtins; `is` and `in` are
    dispatch.py's."""
    operands = [node.left] + list(node.comparators)
    vals = _compare_operands(st, node, operands)
    if vals is None:
        return POISON
    result = None
    for i, op in enumerate(node.ops):
        left, right = vals[i], vals[i + 1]
        if op not in ("==", "!="):
            left, right = enum_value(left), enum_value(right)  # an IntEnum member is an int (`<`, `>=` ...)
        if op in ("==", "!=") and (left.__class__ in (Instance, Builtin) or right.__class__ in (Instance, Builtin)):
            left, right = enum_value(left), enum_value(right)  # an IntEnum member equals its value
            if left.__class__ is Instance and right.__class__ is Instance and left.cls.dataclass_fields is not None:
                same = dataclass_equal(left, right)  # the `__eq__` a `@dataclass` gets
                if same is None:
                    st.diags.error("E0306", f"cannot compare two `{left.cls.name}` instances at compile time: a "
                                            f"field holds a value known only at run time", node.span)
                    return POISON
                part = PyConst(same == (op == "=="))
                result = part if result is None else PyConst(result.value and part.value) \
                    if isinstance(result, PyConst) else result
                continue
            if left.__class__ in (Instance, Builtin) or right.__class__ in (Instance, Builtin):
                # (no `__eq__`: identity, as Python; a builtin such as a `SwizzleMode` member, by its name)
                same = left is right or (left.__class__ is Builtin and right.__class__ is Builtin
                                         and left.name == right.name)
                part = PyConst(same == (op == "=="))
                result = part if result is None else PyConst(result.value and part.value) \
                    if isinstance(result, PyConst) else result
                continue
        a, b = pyeval_ops.python_of(st, node.span, left), pyeval_ops.python_of(st, node.span, right)
        if a is POISON or b is POISON:
            return POISON
        if a is not pyeval_ops.NOT_PYTHON and b is not pyeval_ops.NOT_PYTHON:  # CPython's own comparison
            same = pyeval_ops.compare(op, a, b)
            if same is None:
                st.diags.error("E0306", f"cannot compare {describe(left)} and {describe(right)}", node.span)
                return POISON
            part = PyConst(same)
        else:
            a, b = scalars.unify(st, left, right, operands[i].span, operands[i + 1].span)
            if a is POISON or b is POISON:
                return POISON
            part = ir.binop(op, a, b, operands[i].span.to(operands[i + 1].span))
        if result is None:
            result = part
        elif isinstance(result, PyConst) and isinstance(part, PyConst):
            result = PyConst(result.value and part.value)
        else:
            result = ir.binop("&&", scalars.as_value(st, result, node.span, BOOL), scalars.as_value(st, part, node.span, BOOL),
                              node.span)
    return result


def enum_value(value):
    """An IntEnum member's int value (it is an int: arithmetic, comparison, an index); any other value
    as it is."""
    if value.__class__ is Instance and value.cls.enum is not None and value.cls.enum[0] == "IntEnum":
        return value.attrs["value"]
    return value


def _compare_operands(st, node: ast.Compare, operands):
    """The operands of a comparison, checked in order. `a < b < c` is `a < b and b < c` with b
    evaluated once: a b with side effects is bound first (effects.py); c and what follows are
    evaluated only when the comparisons before them hold (lazily). None after an error."""
    what = "a comparison chain around a call with side effects"
    vals = [elab(st, operands[0]), elab(st, operands[1])]
    if len(operands) == 2:
        return vals
    vals = effects.share(st, vals, (1,), what, operands[1].span)
    if vals is None:
        return None
    held = None  # the comparisons so far, as far as they are typed alike (a guard, nothing reported)
    opened = 0
    try:
        for k in range(2, len(operands)):
            left, right = vals[k - 2], vals[k - 1]
            if isinstance(left, ir.Expr) and isinstance(right, ir.Expr) and left.dtype == right.dtype \
                    and left.dtype.lanes == 1:
                part = ir.binop(node.ops[k - 2], left, right)
                held = part if held is None else ir.binop("&&", held, part)
            st.lazy += 1
            st.conds.append(held)
            opened += 1
            vals.append(elab(st, operands[k]))
            if k < len(operands) - 1 and not effects.is_pure(vals[k]):
                effects.lazy_refusal(st, what, operands[k].span)
                return None
    finally:
        st.lazy -= opened
        del st.conds[len(st.conds) - opened:]
    return vals


# -- layouts (notation only; layout.py gives them meaning) ---------------------------------------
def axis_term(st, left, right, node: ast.BinOp):
    if isinstance(right, Axis):
        value = scalars.as_value(st, left, node.left.span, INT32)
        if value is not POISON and not effects.is_pure(value):  # used in every index through the layout
            value = effects.once(st, value, "a layout value with side effects", node.left.span, "off")
        return POISON if value in (POISON, None) else AxisTerm(value, right.name)
    if not isinstance(left, Poison) and not isinstance(right, Poison):
        st.diags.error("E0306", f"`@` binds a stride to a layout axis, but its right side is {describe(right)}",
                         node.right.span,
                         help="import the axis from `tvm.tirx.layout` (e.g. `laneid`) and write `4 @ laneid`; "
                              "`@` is not matrix multiplication")
    return POISON


def library_name(st, value: LibraryName, node):
    if not value.available:
        st.diags.error("E0200", f"`{value.name}` comes from module `{value.module}`, which is not available in a "
                                f"standalone kernel file", node.span,
                       help="a kernel file may use the dialect, `tvm.tirx.layout`, TIRx's library, `math` and "
                            "`functools`; compute the value in the file")
        return POISON
    st.diags.error("E0518", f"`{value.name}` (from `{value.module}`) is not supported yet", node.span,
                   help="tirxc's own library (transpiler/sema/library/) has the pipeline and warp-role classes and "
                        "most tile schedulers, not this one; write it in the kernel or as a class of the file")
    return POISON


def is_dialect_call(st, node, names: tuple[str, ...], *, module_level: bool = False) -> bool:
    """Whether node is a call `T.<name>` of one of names, under any alias of the dialect: the
    attribute's base elaborates to a namespace. module_level: the base is a name the module binds
    to a namespace, judged without elaborating (nothing reported, kernel names not consulted)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names):
        return False
    base = node.func.value
    if module_level:
        binding = st.module.globals.get(base.id) if isinstance(base, ast.Name) else None
        return binding is not None and isinstance(binding.value, Namespace)
    return isinstance(elab(st, base), Namespace)


def dtype_or_default(st, arg):
    if is_default(arg):
        return parse_dtype(arg.value())
    return dtype_arg(st, arg)


# node class -> its _elab_ function; the rules of sema/dispatch.py join it when that module is imported
# (check.py imports it)
_ELAB = DispatchTable("_elab_", globals())
_ELAB.update(NODE_RULES)  # the Python level's own nodes (comprehensions, dicts, `*`, f-strings): the evaluator's

