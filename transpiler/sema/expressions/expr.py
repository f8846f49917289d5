"""Expression elaboration: `elab(st, node)` dispatches on the node's class to an `_elab_<Class>`
function; calls go through the tables of registry.py, so this module imports no call family."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.ir import layout as layouts
from transpiler.ir.analysis import base_alignment, modular
from transpiler.syntax import ast
from transpiler.target.dtypes import BOOL, DType, INT32, has_c_vector, known_dtype_names, parse_dtype
from transpiler.sema.expressions import effects, scalars
from transpiler.sema import state
from transpiler.sema.library.class_values import CALLABLE, WITH_ATTRS, Instance
from transpiler.evaluator.values import Builtin, DTypeVal, Method, POISON, Poison, PyConst, Helper, PyDict
from transpiler.sema.values import (ArrayType, Axis, AxisTerm, HandleType, LayoutCtor, LayoutPart, LayoutVal,
                                    LetType, Namespace, Pointer, PtxMnemonic, BufferIndexer, Region, SmemPool,
                                    TmemPool, LibraryName)
from transpiler.evaluator import builtins as pyeval_builtins, core as pyeval, lists as pyeval_lists, \
    modules as pyeval_modules
from transpiler.evaluator.box import ListConst, ListTuple
from transpiler.evaluator.builtins import PY_BUILTINS
from transpiler.evaluator.nodes import NODE_RULES
from transpiler.sema.registry import (CALLS, HANDLERS, LAYOUT_CTORS, DispatchTable, _dtype_value,
                                      _known_dotted_names, _suggest, bind_args, is_default)
from transpiler.sema.expressions.scalars import INT_BITS
from transpiler.evaluator.values import describe


_BINOPS = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "floordiv", "%": "floormod",
           "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^", "**": "**"}


_LAYOUT_OPERANDS = (LayoutPart, AxisTerm)
_BUILTIN_VALUES = {name: Builtin(name) for name in PY_BUILTINS | {"range"}}  # operand classes that make `+` a layout sum


BUFFER_ATTRS = ("data", "shape", "dtype", "elem_offset", "ptr_to", "vload", "vstore", "view", "permute",
                "local", "access_ptr", "scope")
BUFFER_VIEW_ATTRS = ("layout", "sub", "tile", "rearrange", "elem_offset_of")  # sema/memory/buffer_views.py


def index_nodes(node: ast.Subscript):
    """The index expressions of a subscript (`A[(i, j)]` is `A[i, j]`), and whether one is a slice."""
    indices = node.indices
    if len(indices) == 1 and isinstance(indices[0], ast.Tuple):
        indices = indices[0].elts
    for index in indices:
        if isinstance(index, ast.Slice):
            return indices, True
    return indices, False


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
    val = elab(st, node)
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
    return _ELAB[node.__class__](st, node)


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
    if st.at_module_level and st.scopes:  # a comprehension or helper at module level (pyeval.py)
        for scope in reversed(st.scopes):
            if name in scope:
                return scope[name].value
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


def _elab_Call(st, node: ast.Call):
    func = elab(st, node.func)
    for arg in node.args:
        if arg.__class__ is ast.Starred:
            break
    else:
        if not node.keywords or not any(k.__class__ is ast.DoubleStarred for k in node.keywords):
            return call(st, func, node)
    if isinstance(func, Poison):
        return POISON
    node = pyeval.expand_call(st, node)  # `*seq` / `**d`, expanded once for every handler (pyeval.py)
    return POISON if node is None else call(st, func, node)


def _elab_Slice(st, node: ast.Slice):
    st.diags.error("E0306", "a slice is only valid inside `[...]`", node.span)
    return POISON


def _elab_IfExp(st, node: ast.IfExp):
    test = elab(st, node.test)
    if isinstance(test, PyConst):
        return elab(st, node.body if test.value else node.orelse)
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
        if last.__class__ is PyConst and bool(last.value) == (node.op == "or") \
                and all(v.__class__ is PyConst for v in vals):
            return last  # decided at compile time, as Python decides `x is not None and x > 0`
        tested = effects.truth(vals[-1])
        tested = tested if node.op == "and" or tested is None else effects.negate(tested)
        held = tested if held is None else held if tested is None else ir.binop("&&", held, tested)
        with effects.Lazy(st, held):
            vals.append(elab(st, later))
    if all(isinstance(v, PyConst) for v in vals):
        result = vals[0].value
        for v in vals[1:]:
            result = (result and v.value) if node.op == "and" else (result or v.value)
        return PyConst(result)
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


def _elab_BinOp(st, node: ast.BinOp):
    left, right = elab(st, node.left), elab(st, node.right)
    if node.op == "@":
        return axis_term(st, left, right, node)
    if left.__class__ in _LAYOUT_OPERANDS or right.__class__ in _LAYOUT_OPERANDS:
        return CALLS["layout_sum"](st, left, right, node)
    if (node.op == "+" or node.op == "*") and (pyeval_lists.is_sequence(left) or pyeval_lists.is_sequence(right)):
        return pyeval_lists.seq_arith(st, node.op, left, right, node)  # `xs + ys`, `xs * n` (pyeval_lists.py)
    return scalars.arith(st, _BINOPS[node.op], left, right, node.span, node.left.span, node.right.span)


def _elab_Compare(st, node: ast.Compare):
    if "is" in node.ops or "is not" in node.ops:
        return CALLS["class_is"](st, node)  # identity of compile-time values (classes.py)
    if "in" in node.ops or "not in" in node.ops:
        return pyeval_lists.contains(st, node)  # membership in compile-time containers (pyeval_lists.py)
    operands = [node.left] + list(node.comparators)
    vals = _compare_operands(st, node, operands)
    if vals is None:
        return POISON
    result = None
    for i, op in enumerate(node.ops):
        left, right = vals[i], vals[i + 1]
        if op in ("==", "!=") and (left.__class__ in (Instance, Builtin) or right.__class__ in (Instance, Builtin)):
            left, right = _enum_value(left), _enum_value(right)  # an IntEnum member equals its value
            if left.__class__ in (Instance, Builtin) or right.__class__ in (Instance, Builtin):
                # (no `__eq__`: identity, as Python; a builtin such as a `SwizzleMode` member, by its name)
                same = left is right or (left.__class__ is Builtin and right.__class__ is Builtin
                                         and left.name == right.name)
                part = PyConst(same == (op == "=="))
                result = part if result is None else PyConst(result.value and part.value) \
                    if isinstance(result, PyConst) else result
                continue
        if isinstance(left, PyConst) and isinstance(right, PyConst):
            try:
                part = PyConst({"<": left.value < right.value, "<=": left.value <= right.value,
                                ">": left.value > right.value, ">=": left.value >= right.value,
                                "==": left.value == right.value, "!=": left.value != right.value}[op])
            except TypeError:
                st.diags.error("E0306", f"cannot compare {describe(left)} and {describe(right)}", node.span)
                return POISON
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


def _enum_value(value):
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


# -- subscripts and attributes ---------------------------------------------------------------
def _elab_Subscript(st, node: ast.Subscript):
    if any(i.__class__ is ast.Starred for i in index_nodes(node)[0]):  # `A[*idx]`, `A[(i, *idx)]` (pyeval_lists.py)
        node = pyeval_lists.expand_subscript(st, node)
        if node is None:
            return POISON
    base = elab(st, node.value)
    if isinstance(base, Poison):
        return POISON
    if isinstance(base, ir.Buffer):
        if len(node.indices) == 1 and (node.indices[0].__class__ is ast.Name or is_sequence_call(node.indices[0])):
            # `A[fs]`, `A[tuple(fs)]`: a tuple index is the indices written out
            node = pyeval_builtins.slice_index(st, node)
        return subscript_buffer(st, base, node)
    if isinstance(base, Namespace) and base.path == ("T", "ptx"):
        if len(node.indices) == 1:
            mnemonic = const_str(st, node.indices[0], "a PTX mnemonic")
            if mnemonic is not None:
                return PtxMnemonic(mnemonic)
            return POISON
    if isinstance(base, Namespace) or isinstance(base, DTypeVal) or isinstance(base, LetType):
        return subscript_type(st, base, node)
    if isinstance(base, Builtin) and base.name.startswith("typing."):
        return base  # `Literal["fp8", "fp4"]`, `Optional[int]`: an annotation, standing for itself
    if isinstance(base, LayoutCtor) and base.name in ("S", "R"):
        return CALLS["layout_subscript"](st, base.name, node)
    if isinstance(base, (PyConst, tuple, PyDict)) and len(node.indices) == 1:
        return pyeval.ct_subscript(st, base, node)  # pyeval.py
    if isinstance(base, BufferIndexer):  # `B.sub[...]`, `B.tile(...)[...]` (buffer_views.py)
        return CALLS["buffer_indexer"](st, base, node)
    st.diags.error("E0306", f"{describe(base)} cannot be indexed", node.value.span)
    return POISON


def is_sequence_call(node) -> bool:
    """`tuple(...)` / `list(...)` as a subscript's index (a compile-time sequence of indices)."""
    return node.__class__ is ast.Call and isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list")


def subscript_type(st, base, node: ast.Subscript):
    if isinstance(base, LetType):
        dtype = dtype_arg(st, node.indices[0]) if len(node.indices) == 1 else None
        return LetType(dtype) if dtype else POISON
    if isinstance(base, DTypeVal):
        shape = [const_int(st, i, "a local array extent") for i in node.indices]
        if None in shape:
            return POISON
        return ArrayType(base.dtype, tuple(shape))
    st.diags.error("E0306", f"`{'.'.join(base.path)}` cannot be indexed", node.span)
    return POISON


def subscript_buffer(st, buf: ir.Buffer, node: ast.Subscript):
    indices, sliced = index_nodes(node)
    if sliced or len(indices) < len(buf.shape):
        return region(st, buf, indices, node, None if sliced else len(indices))
    vector = ramp_access(st, buf, indices, node.span)
    if vector is not None:
        if vector is POISON or not scalars.direct_access_ok(st, buf, node.span, "read"):
            return POISON
        return ir.BufferVecLoad(vector[0], buf, vector[1], node.span)
    if len(indices) != len(buf.shape):
        wrong_index_count(st, buf, len(indices), node.span)
        return POISON
    vals = index_values(st, buf, indices)
    if vals is POISON:
        return POISON
    return scalars.load(st, buf, vals, node.span)


wrong_index_count = scalars.wrong_index_count


def index_values(st, buf: ir.Buffer, nodes):
    vals = []
    for dim, index in enumerate(nodes):
        v = int_value(st, index)
        if v is POISON:
            return POISON
        extent = buf.shape[dim]
        if isinstance(v, ir.IntImm) and isinstance(extent, ir.IntImm) and not 0 <= v.value < extent.value:
            st.diags.error("E0507", f"index {v.value} is out of bounds for dimension {dim} of "
                                      f"`{buf.name}` (extent {extent.value})", index.span)
            return POISON
        vals.append(v)
    if buf.layout is not None and not all(map(effects.is_pure, vals)):
        # a layout may use a coordinate more than once (`i // 8`, `i % 8`; a swizzle): evaluated once
        vals = effects.share(st, vals, range(len(vals)), "an index with side effects", nodes[0].span, "idx")
        if vals is None:
            return POISON
    return tuple(vals)


def region(st, buf: ir.Buffer, indices, node, count=None):
    starts, extents = [], []
    for dim in range(buf.ndim):
        if dim >= len(indices):
            starts.append(ir.IntImm(INT32, 0))
            extents.append(buf.shape[dim])
            continue
        index = indices[dim]
        if isinstance(index, ast.Slice):
            if index.step is not None:
                st.diags.error("E0518", "strided slices (vector access by slice) are not supported",
                                 index.span, help="use `vload` / `vstore`")
                return POISON
            start = int_value(st, index.lower) if index.lower is not None else ir.IntImm(INT32, 0)
            stop = int_value(st, index.upper) if index.upper is not None else buf.shape[dim]
            if POISON in (start, stop):
                return POISON
            bounds = effects.share(st, [start, stop], (0,), "a slice bound with side effects", index.span, "idx")
            if bounds is None:  # the start is in the extent too: evaluated once
                return POISON
            start, stop = bounds
            starts.append(start)
            extents.append(ir.difference(stop, start))  # `A[m0:m0 + 64]` spans 64 (tile primitives need it)
        else:
            v = int_value(st, index)
            if v is POISON:
                return POISON
            starts.append(v)
            extents.append(ir.IntImm(INT32, 1))
    if not all(map(effects.is_pure, starts)):  # a tensor-memory address uses a start twice (lane, column)
        starts = effects.share(st, starts, range(len(starts)), "a region index with side effects", node.span, "idx")
        if starts is None:
            return POISON
    return Region(buf, tuple(starts), tuple(extents), count)


def _elab_Attribute(st, node: ast.Attribute):
    base = elab(st, node.value)
    if isinstance(base, Poison):
        return POISON
    if isinstance(base, Namespace):
        return namespace_attr(st, base, node)
    if isinstance(base, ir.Buffer):
        if node.attr == "data":
            return Pointer(base)
        if node.attr == "shape":
            return tuple(base.shape) if not all(isinstance(s, ir.IntImm) for s in base.shape) \
                else PyConst(tuple(s.value for s in base.shape))
        if node.attr == "dtype":
            return PyConst(base.dtype.name)
        if node.attr == "allocated_addr" and base.scope == "tmem":  # TIRx's full addresses (tmem_packing.py)
            return CALLS["tmem_allocated_addr"](st, base, node)
        if node.attr in BUFFER_ATTRS:
            return Method(base, node.attr)
        if node.attr in BUFFER_VIEW_ATTRS:  # `B.layout`, `B.sub[...]`, `B.rearrange(...)` ... (buffer_views.py)
            return CALLS["buffer_view_attr"](st, base, node)
        st.diags.error("E0301", f"buffers have no attribute `{node.attr}`", node.span,
                         help=did_you_mean(node.attr, BUFFER_ATTRS + BUFFER_VIEW_ATTRS))
        return POISON
    if isinstance(base, (SmemPool, TmemPool)):
        return Method(base, node.attr)
    if isinstance(base, (PyDict, PyConst, tuple)):
        return pyeval_builtins.ct_attribute(st, base, node)  # `d.items`, `", ".join` ... (pyeval_builtins.py)
    if isinstance(base, LibraryName):
        return library_name(st, base, node.value)
    if isinstance(base, LayoutVal):
        return CALLS["layout_attr"](st, base, node)  # layout_attrs.py
    if isinstance(base, WITH_ATTRS):
        return CALLS["class_attr"](st, base, node)  # classes.py
    if isinstance(base, Builtin):  # `math.gcd` (pyeval_modules.py)
        return pyeval_modules.module_attr(st, base, node)
    if isinstance(base, DTypeVal):  # `tvm.DataType("float16").bits` (pyeval_modules.py)
        return pyeval_modules.dtype_attr(st, base, node)
    st.diags.error("E0306", f"{describe(base)} has no attribute `{node.attr}`", node.span)
    return POISON


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


def call(st, func, node: ast.Call):
    """A call of an elaborated callee: dispatched by its kind through the tables of registry.py."""
    if st.at_module_level:
        return _module_call(st, func, node)
    if isinstance(func, Poison):
        return POISON
    if isinstance(func, Namespace):
        if func.path == _META_VAR:
            return pyeval_builtins.meta_var(st, node)
        return CALLS["dialect"](st, func, node)
    if isinstance(func, Helper):
        return CALLS["helper"](st, func, node)
    if isinstance(func, DTypeVal):
        return CALLS["dtype"](st, func.dtype, node)
    if isinstance(func, Method):
        if isinstance(func.obj, (PyDict, PyConst, tuple)):
            return pyeval_builtins.ct_method(st, func, node)
        if isinstance(func.obj, (SmemPool, TmemPool)):
            return CALLS["pool"](st, func.obj, func.name, node)
        if isinstance(func.obj, LayoutVal):
            return CALLS["layout_method"](st, func.obj.layout, func.name, node)
        return CALLS["buffer"](st, func, node)
    if isinstance(func, PtxMnemonic):
        return CALLS["ptx"](st, (), node, func.mnemonic)
    if isinstance(func, LayoutCtor):
        return CALLS["layout"](st, func.name, node)
    if isinstance(func, Builtin):
        return _builtin_call(st, func, node)
    if isinstance(func, LibraryName):
        return library_name(st, func, node.func)
    if isinstance(func, CALLABLE):
        return CALLS["class_call"](st, func, node)  # classes.py
    st.diags.error("E0306", f"{kind_of(func)} is not callable", node.func.span)
    return POISON


# T.* calls that fold over constants and need no kernel
PURE_CALLS = ("min", "max", "ceildiv", "floordiv", "floormod", "meta_var", "dynamic", "IntImm", "FloatImm")


def _builtin_call(st, func: Builtin, node: ast.Call):
    if func.name == "range":
        args = bind_args(st, node, ("start", "stop=None", "step=1"),
                         "range" if isinstance(node.func, ast.Name) else "T.serial")
        return POISON if args is None else CALLS["range"](st, "serial", node, args)
    return pyeval_builtins.call_builtin(st, func.name, node)


_META_VAR = ("T", "meta_var")


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


def _module_call(st, func, node: ast.Call):
    """A call in a module-level constant: only those that fold over constants."""
    if isinstance(func, Poison):
        return POISON
    if isinstance(func, LibraryName):
        return library_name(st, func, node.func)
    if isinstance(func, Builtin):
        return _builtin_call(st, func, node)
    if isinstance(func, CALLABLE):
        return CALLS["class_call"](st, func, node)  # classes.py
    if isinstance(func, Helper):
        return CALLS["helper"](st, func, node)
    if isinstance(func, Method) and isinstance(func.obj, (PyDict, PyConst, tuple)):
        return pyeval_builtins.ct_method(st, func, node)
    if isinstance(func, Method) and isinstance(func.obj, LayoutVal):
        return CALLS["layout_method"](st, func.obj.layout, func.name, node)
    if isinstance(func, Namespace) and func.path == _META_VAR:
        return pyeval_builtins.meta_var(st, node)
    if isinstance(func, LayoutCtor):
        return CALLS["layout"](st, func.name, node)
    if isinstance(func, DTypeVal) and (node.args or node.keywords):
        return CALLS["dtype"](st, func.dtype, node)
    if isinstance(func, Namespace) and func.dotted in PURE_CALLS:
        return CALLS["dialect"](st, func, node)
    st.diags.error("E0202", "module-level constants cannot call functions", node.span,
                   help="module level holds literals, tuples and arithmetic over earlier constants; "
                        "make the call inside a kernel")
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


def namespace_attr(st, base: Namespace, node: ast.Attribute):
    if base.path == ("T",):
        if node.attr == "handle":
            return HandleType()
        dtype = _dtype_value(node.attr)
        if dtype is not None:
            return dtype
        if node.attr == "let":
            return LetType(None)
        ctor = LAYOUT_CTORS.get(node.attr)
        if ctor is not None:  # the newer spelling: `T.TileLayout(T.S[...])`
            return ctor
    path = base.path + (node.attr,)
    dotted = ".".join(path[1:])
    if len(path) > 1 and path[1] == "ptx":
        return Namespace(path)  # PTX mnemonics are checked against the table when called
    names, names_and_prefixes = _known_dotted_names(len(HANDLERS))
    if dotted in names_and_prefixes or path[0] == "Tx":
        return Namespace(path)
    known = list(names)
    if base.path == ("T",):
        known += known_dtype_names() + ["handle", "let"]
    st.diags.error("E0301", f"`{'.'.join(path)}` is not a TIRx function tirxc knows", node.span,
                     help=_suggest(dotted, known, path[0]))
    return POISON


def dtype_or_default(st, arg):
    if is_default(arg):
        return parse_dtype(arg.value())
    return dtype_arg(st, arg)


def check_vector_access(st, buf: ir.Buffer, vec: DType, indices, node, index_node) -> bool:
    """A `vload` / `vstore` of `vec` at `indices`: inside the innermost dimension, over contiguous
    elements, and aligned to the vector's size (as far as the checker can tell)."""
    lanes, nbytes = vec.lanes, vec.nbytes
    base = base_alignment(buf)
    if base < nbytes:
        st.diags.error("E0515", f"{nbytes}-byte vector access to `{buf.name}`, which is only {base}-byte "
                                  f"aligned", node.span,
                         help=f"declare `{buf.name}` with `align={nbytes}`")
        return False
    extent, last = buf.shape[-1], indices[-1]
    if isinstance(extent, ir.IntImm) and lanes > extent.value:
        st.diags.error("E0515", f"a vector of {lanes} elements does not fit in the innermost dimension of "
                                  f"`{buf.name}` (extent {extent.value})", node.span)
        return False
    if isinstance(extent, ir.IntImm) and isinstance(last, ir.IntImm) and last.value + lanes > extent.value:
        st.diags.error("E0507", f"the vector covers elements {last.value}..{last.value + lanes - 1} of "
                                  f"dimension {buf.ndim - 1} of `{buf.name}` (extent {extent.value})",
                         index_node.elts[-1].span)
        return False
    if buf.layout is not None and not vector_contiguous(buf, indices, lanes):
        st.diags.error("E0515", f"the innermost dimension of `{buf.name}` is not contiguous in memory, so "
                                  f"it cannot be accessed as a vector", node.span,
                         help="vector accesses need a layout with stride 1 in the last dimension")
        return False
    offset = layouts.memory_index(buf.layout, indices, buf.shape, buf.elem_offset)
    modulus, residue = modular(offset)
    size = buf.dtype.nbytes
    if (modulus * size) % nbytes == 0 and (residue * size) % nbytes:
        step = nbytes // size
        where = f"starts at element {residue}" if modulus == 0 else \
            f"always starts {residue % step} elements past a multiple of {step}"
        st.diags.error("E0515", f"misaligned vector access to `{buf.name}`: it {where}", index_node.span,
                         help=f"a {nbytes}-byte vector starts at a multiple of {step} elements")
        return False
    return True


def ramp_access(st, buf: ir.Buffer, nodes, span):
    """`A[i, T.ramp(base, 1, lanes)]`, the newer spelling of `A.vload([i, base], dtype=...)` /
    `A.vstore(...)`: (vector dtype, indices) for the same checks and IR; None when no index is a
    ramp, POISON after an error."""
    for node in nodes:
        if isinstance(node, ast.Call):
            break
    else:
        return None  # no index is a call: what nearly all indexing is, decided without building a list
    ramps = [k for k, n in enumerate(nodes) if is_dialect_call(st, n, ("ramp", "Ramp"))]
    if not ramps:
        return None
    if len(nodes) != buf.ndim:
        wrong_index_count(st, buf, len(nodes), span)
        return POISON
    misplaced = next((k for k in ramps if k != len(nodes) - 1), None)
    if misplaced is not None:
        st.diags.error("E0524", "only the last index can be a `T.ramp`", nodes[misplaced].span,
                         help="a vector access covers consecutive elements of the innermost dimension")
        return POISON
    leading = index_values(st, buf, nodes[:-1])
    ramp = elab(st, nodes[-1])
    if leading is POISON or ramp is POISON:
        return POISON
    vec = buf.dtype.with_lanes(ramp.lanes) if buf.dtype.lanes == 1 else None
    if vec is None or not has_c_vector(vec):
        st.diags.error("E0524", f"no CUDA vector type holds {ramp.lanes} {buf.dtype} elements",
                         nodes[-1].span, help=f"use a lane count such as {max(1, 16 // buf.dtype.nbytes)} "
                                              f"(vectors move at most 16 bytes)")
        return POISON
    indices = tuple(leading) + (ramp.base,)
    access, index_list = ast.Tuple(span, tuple(nodes)), ast.Tuple(nodes[-1].span, tuple(nodes))
    if not check_vector_access(st, buf, vec, indices, access, index_list):
        return POISON
    return vec, indices


def vector_contiguous(buf: ir.Buffer, indices, lanes: int) -> bool:
    """Whether `lanes` consecutive elements of the last dimension are consecutive in memory
    (checked at the given indices when they are constant, else at the origin)."""
    if not all(isinstance(i, ir.IntImm) for i in indices) or not buf.const_shape():
        indices = [ir.IntImm(INT32, 0)] * len(indices)
        if not buf.const_shape():
            return True
    first = layouts.memory_index(buf.layout, indices, buf.shape, ir.IntImm(INT32, 0))
    for k in range(1, lanes):
        moved = list(indices[:-1]) + [ir.IntImm(INT32, indices[-1].value + k)]
        at = layouts.memory_index(buf.layout, moved, buf.shape, ir.IntImm(INT32, 0))
        if isinstance(first, ir.IntImm) and isinstance(at, ir.IntImm) and at.value != first.value + k:
            return False
    return True


_ELAB = DispatchTable("_elab_", globals())  # node class -> its _elab_ function
_ELAB.update(NODE_RULES)  # the Python level's own nodes (comprehensions, dicts, `*`, f-strings): the evaluator's
