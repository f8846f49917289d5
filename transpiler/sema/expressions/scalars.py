"""Values and operators: literals, converting a value to a typed expression (as_value),
unification of operand types, arithmetic and comparison folding, conditions, and direct loads."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.ir import layout as layouts
from transpiler.syntax.source import Span
from transpiler.sema.expressions import effects
from transpiler.sema.kernel import unrolled
from transpiler.target.dtypes import (BOOL, DType, FLOAT32, INT32, INT64, UNLOWERABLE, VECTOR_LANES, dtype_alias,
                                      int_range, known_dtype_names, parse_dtype, promoted)
from transpiler.evaluator import ops as pyeval_ops
from transpiler.evaluator.ops import INT_BITS
from transpiler.evaluator.values import IdTuple, POISON, PyConst, Void, article, describe
from transpiler.sema.values import Region


_INT_ONLY = ("floordiv", "floormod", "<<", ">>", "&", "|", "^")


# The index of a one-element scalar buffer (`acc` read or written by name): one shared tuple,
# as IR expressions are immutable and compare by value.
SCALAR_INDEX = (ir.IntImm(INT32, 0),)


_RING_OPS = ("+", "-", "*")  # valid on every scalar int and float dtype


_FLOOR_OPS = ("floordiv", "floormod")  # valid on every scalar int dtype, by anything but a constant 0


# Compile-time constants stay small: integers of at most INT_BITS bits, and strings and
# tuples built by `+` of at most FOLD_BUDGET bytes per file in all (`S2 = S1 + S1` forty
# times over would otherwise ask for a terabyte).
# INT_BITS is the evaluator's limit (evaluator/ops.py).
FOLD_BUDGET = 1 << 26


def to_float(value) -> float:
    """float(value), with an integer beyond the double range becoming an infinity (as C's
    conversion of an out-of-range value does on the GPU) instead of raising."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def fold_size(op: str, a, b) -> int:
    """An upper bound of the bits of py_binop(op, a, b) over two numbers for the operators that do
    not grow (`+`, `-`, `//`, `&` ...; `*`, `<<` and `**` are ops.py's); 0 when it is a float."""
    if isinstance(a, float) or isinstance(b, float):
        return 0
    return max(abs(a).bit_length(), abs(b).bit_length()) + 1


def py_binop(op: str, a, b):
    """Fold an operator over two Python constants with Python's (floor) semantics."""
    try:
        return _py_binop(op, a, b)
    except OverflowError:  # an int too large for a float operand: the float side overflows
        return _py_binop(op, to_float(a), to_float(b))


def _py_binop(op: str, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "floordiv":
        return a // b
    if op == "floormod":
        return a % b
    if op == "<<":
        return a << b
    if op == ">>":
        return a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "**":
        return a ** b
    raise KeyError(op)


def default_dtype(value) -> DType:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        lo, hi = int_range(INT32)
        return INT32 if lo <= value <= hi else INT64
    return FLOAT32


_VECTOR_OPERATORS = ("float16x2", "bfloat16x2")  # the vector types CUDA gives arithmetic operators


def _op_text(op: str) -> str:
    return {"floordiv": "//", "floormod": "%"}.get(op, op)


def source_text(st, span: Span) -> str:
    """The source text of a one-line span ("" for longer ones)."""
    if span.line != span.end_line:
        return ""
    return st.module.source.line_text(span.line)[span.col - 1:span.end_col - 1]


# -- literals ------------------------------------------------------------------------------
def literal(st, value, dtype: DType, span: Span):
    """A Python constant as an IR constant of dtype (the adopting side's)."""
    if dtype.lanes == 1:  # the common cases first: a plain int or float that fits
        if value.__class__ is int:
            if dtype.is_float:
                return ir.FloatImm(dtype, to_float(value), span)
            lo, hi = dtype.int_bounds
            if lo <= value <= hi:
                return ir.IntImm(dtype, value, span)
        elif value.__class__ is float and dtype.is_float:
            return ir.FloatImm(dtype, value, span)
    if isinstance(value, (bool, int, float)) and dtype.lanes > 1:
        st.diags.error("E0303", f"a scalar literal cannot be used as a `{dtype}` vector", span)
        return POISON
    if isinstance(value, bool):
        return ir.IntImm(dtype, int(value), span) if not dtype.is_float else ir.FloatImm(dtype, float(value), span)
    if isinstance(value, int):
        if dtype.is_float:
            return ir.FloatImm(dtype, to_float(value), span)
        lo, hi = int_range(dtype)
        if not lo <= value <= hi:
            if value < 0 and dtype.kind == "uint":
                fix = "the other side is unsigned; convert it to a signed type first"
            elif dtype.bits < 64:
                fix = "convert the other side to a wider type first, e.g. `T.int64(x)`"
            else:
                fix = None
            shown = value if abs(value) < 10 ** 40 else f"of {abs(value).bit_length()} bits"  # (not 600 digits)
            st.diags.error("E0318", f"literal {shown} does not fit in {dtype} (range {lo}..{hi})", span,
                             help=fix)
            return POISON
        return ir.IntImm(dtype, value, span)
    if isinstance(value, float):
        if not dtype.is_float:
            st.diags.error("E0303", f"float literal `{value!r}` used as {article(dtype)} value", span,
                             help="write an integer literal, or convert the other side to a float type "
                                  "(`T.float32(x)`)")
            return POISON
        return ir.FloatImm(dtype, value, span)
    st.diags.error("E0306", f"{describe(PyConst(value))} cannot be used as a number here", span)
    return POISON


def as_value(st, val, span: Span, dtype: DType | None = None):
    """Insist on a typed scalar/vector expression; literals take `dtype` (or their natural one)."""
    if isinstance(val, ir.Expr):
        return val
    if isinstance(val, PyConst):
        if isinstance(val.value, (bool, int, float)):
            return literal(st, val.value, dtype or default_dtype(val.value), span)
        st.diags.error("E0306", f"{describe(val)} cannot be used as a value", span)
        return POISON
    if val is POISON:
        return POISON
    if isinstance(val, ir.Buffer):
        if val.scalar or val.shape and len(val.shape) == 1 and isinstance(val.shape[0], ir.IntImm) \
                and val.shape[0].value == 1 and val.scope in ("local", "shared"):
            return load(st, val, SCALAR_INDEX, span)
        st.diags.error("E0306", f"buffer `{val.name}` is not a value; index it (`{val.name}[i]`)", span)
        return POISON
    if isinstance(val, IdTuple) and len(val.vars) == 1:
        return val.vars[0]
    if isinstance(val, Void):
        call = val.stmt.value if isinstance(val.stmt, ir.Evaluate) else None
        inline = isinstance(call, ir.Call) and call.func in getattr(st.module, "func_sources", {})
        st.diags.error("E0313", "this call returns no value", span,
                         help="give the `T.cuda.func_call` a `return_type=` such as \"float32\"" if inline
                         else "use it as a statement of its own")
        return POISON
    if isinstance(val, Region) and val.indices is not None:  # `A[i]` of a 2-D `A`: as a store says
        wrong_index_count(st, val.buffer, val.indices, span)
        return POISON
    if isinstance(val, Region):
        st.diags.error("E0306", f"a region of `{val.buffer.name}` is not a value", span,
                         help="index single elements, e.g. `A[i, j]`")
        return POISON
    st.diags.error("E0306", f"{describe(val)} cannot be used as a value", span)
    return POISON


def text_str(st, value: str, span: Span):
    """The string itself, or None (with E0321) when it holds a lone surrogate, which no
    output file could hold."""
    try:
        value.encode("utf-8")  # (a lone surrogate is the one code point UTF-8 refuses)
        return value
    except UnicodeEncodeError as err:
        bad = value[err.start]
    st.diags.error("E0321", f"the string holds the lone surrogate U+{ord(bad):04X}, which cannot "
                              "be written as UTF-8", span,
                     help="write the character itself, or its full code point as `\\U0001XXXX`")
    return None


def unknown_dtype(st, name: str, span: Span) -> None:
    base, _, lanes = name.rpartition("x")
    alias = dtype_alias(name)
    if alias is not None:  # another tool's spelling, or stray case or blanks: name the TIRx dtype
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)  # `float32\n`
        st.diags.error("E0302", f"unknown dtype `{shown}`", span, help=f"did you mean `{alias}`?")
    elif name in UNLOWERABLE:
        lowerable = [n for n in known_dtype_names() if n.startswith(name.split("_")[0])]
        st.diags.error("E0302", f"dtype `{name}` has no CUDA type", span,
                         help=did_you_mean(name, lowerable))
    elif parse_dtype(base) is not None and lanes.isdigit():
        st.diags.error("E0302", f"vector dtype `{name}` has {lanes} lanes", span,
                         help=f"vectors have {', '.join(map(str, VECTOR_LANES[:-1]))} or {VECTOR_LANES[-1]} "
                              f"lanes")
    else:
        st.diags.error("E0302", f"unknown dtype `{name}`", span, help=did_you_mean(name, known_dtype_names()))


def condition(st, val, span: Span):
    """A bool or integer scalar (C truthiness), never a float (reference 7.11)."""
    val = as_value(st, val, span, BOOL)
    if isinstance(val, ir.Expr) and (val.dtype.is_float or val.dtype.lanes > 1 or val.dtype.kind == "handle"):
        zero = "0.0" if val.dtype.is_float and val.dtype.lanes == 1 else "0"
        st.diags.error("E0309", f"a condition must be bool or an integer, found {val.dtype}", span,
                         help=f"compare explicitly, e.g. `x != {zero}`" if val.dtype.lanes == 1 else None)
        return POISON
    return val


def unify(st, a, b, span_a: Span, span_b: Span):
    """Two operands of one dtype: a literal takes the other's dtype."""
    if isinstance(a, ir.Expr):  # the common cases first: typed alike, or typed and a literal
        if isinstance(b, ir.Expr) and a.dtype is b.dtype:
            return a, b
        if isinstance(b, PyConst):
            return a, as_value(st, b, span_b, a.dtype)
    if a is POISON or b is POISON:
        return POISON, POISON
    a_literal, b_literal = isinstance(a, PyConst), isinstance(b, PyConst)
    if a_literal and not b_literal:
        b = as_value(st, b, span_b)
        if b is POISON:
            return POISON, POISON
        return as_value(st, a, span_a, b.dtype), b
    if b_literal and not a_literal:
        a = as_value(st, a, span_a)
        if a is POISON:
            return POISON, POISON
        return a, as_value(st, b, span_b, a.dtype)
    if a_literal and isinstance(a.value, float) != isinstance(b.value, float):  # 1 and 2.5: both float32
        dtype = FLOAT32 if all(isinstance(x.value, (int, float)) for x in (a, b)) else None
        return as_value(st, a, span_a, dtype), as_value(st, b, span_b, dtype)
    a, b = as_value(st, a, span_a), as_value(st, b, span_b)
    if a is POISON or b is POISON:
        return POISON, POISON
    if a.dtype != b.dtype:
        common = promoted(a.dtype, b.dtype)  # TIRx's BinaryOpMatchTypes (docs/design.md, decision 7)
        if common is None:
            st.diags.error("E0303", f"operands have different dtypes: {a.dtype} and {b.dtype}",
                           span_a.to(span_b), help=conversion_help(st, a.dtype, b.dtype, span_a, span_b))
            return POISON, POISON
        return ir.cast(common, a, span_a) if a.dtype != common else a, \
            ir.cast(common, b, span_b) if b.dtype != common else b
    return a, b


def conversion_help(st, da: DType, db: DType, span_a: Span, span_b: Span) -> str:
    """Suggest converting the narrower operand (the integer one, when one side is a float)."""
    if da.lanes != db.lanes:
        return "a vector and a scalar do not combine; work on the vector's elements"
    widen_b = (da.is_float and not db.is_float) or (da.is_float == db.is_float and da.bits > db.bits)
    target, span = (da, span_b) if widen_b else (db, span_a)
    if target.lanes > 1:
        return "convert one side explicitly; vector operands need the same dtype"
    text = source_text(st, span) or "x"
    return f"convert one side explicitly, e.g. `T.{target}({text})`"


def fold_concat(st, a, b, span: Span):
    """`+` of two constant strings or tuples, within the file's folding budget."""
    weight = 1 if isinstance(a, str) else 8  # bytes per character / per tuple element (a pointer)
    message = pyeval_ops.over_limit(("chars" if isinstance(a, str) else "items", len(a) + len(b)))
    if message is not None:  # the limits `*` and every string method honour
        st.diags.error("E0318", f"`+`: {message}", span)
        return POISON
    budget = getattr(st.module, "fold_budget", FOLD_BUDGET) - weight * (len(a) + len(b))
    if budget < 0:
        st.diags.error("E0318", f"constant strings and tuples built with `+` exceed {FOLD_BUDGET >> 20} MiB "
                                  "in this file", span)
        return POISON
    if hasattr(st.module, "fold_budget"):
        st.module.fold_budget = budget
    return PyConst(a + b)


def arith(st, op: str, left, right, span: Span, span_a: Span, span_b: Span):
    if isinstance(left, PyConst) and isinstance(right, PyConst):
        a, b = left.value, right.value
        if (isinstance(a, str) and isinstance(b, str) or isinstance(a, tuple) and isinstance(b, tuple)) \
                and op == "+":
            return fold_concat(st, a, b, span)
        if op == "floormod" and isinstance(a, str):  # (`"%d" % x` is valid Python)
            st.diags.error("E0306", "printf-style formatting (`str % values`) is not supported yet", span,
                           help="use an f-string or `str.format`")
            return POISON
        if not all(isinstance(x, (int, float)) for x in (a, b)):
            st.diags.error("E0306", f"`{_op_text(op)}` needs numbers", span)
            return POISON
        if op == "/" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) \
                and not st.at_module_level:  # (at module level Python's true division: `6 / 4` is 1.5)
            st.diags.error("E0304", "`/` on two integers", span, help="use `//` for floor division")
            return POISON
        if op in ("<<", ">>", "&", "|", "^") and (isinstance(a, float) or isinstance(b, float)):
            st.diags.error("E0309", f"`{_op_text(op)}` needs integers", span)
            return POISON
        if op in ("floordiv", "floormod", "/") and b == 0:
            st.diags.error("E0306", "division by zero", span)
            return POISON
        if op in ("<<", ">>") and b < 0:
            st.diags.error("E0306", "negative shift count", span)
            return POISON
        if op in pyeval_ops.INT_OPERATIONS and type(a) in (int, bool) and type(b) in (int, bool) \
                and not (op == "**" and b < 0):  # (one limit on integers: ops.py's, bound then charged)
            made = pyeval_ops.call(st, span, pyeval_ops.INT_OPERATIONS[op], a, b, what=op)
            return POISON if made is POISON else PyConst(made)
        message = pyeval_ops.over_limit(("bits", fold_size(op, a, b)))
        if message is not None:
            st.diags.error("E0318", f"`{_op_text(op)}`: {message}", span)
            return POISON
        if op == "**":
            return _constant_power(st, a, b, span)
        if op == "/" and isinstance(a, int) and isinstance(b, int):  # CPython's (`10**400 / 3` overflows)
            made = pyeval_ops.call(st, span, "operator.truediv", a, b, what="/")
            return POISON if made is POISON else PyConst(made)
        return PyConst(py_binop(op, a, b))
    a, b = unify(st, left, right, span_a, span_b)
    if a is POISON or b is POISON:
        return POISON
    dtype = a.dtype
    if op == "**":
        return _power(st, a, b, span)
    if st.unroll_vars and b.__class__ is not ir.IntImm and op in _CHECKED_OPS and dtype.is_int \
            and not checked_in_copies(st, op, b, dtype, span_a, span_b):
        return POISON
    if dtype.lanes == 1 and (op in _RING_OPS and (dtype.is_int or dtype.is_float)
                             or op in _FLOOR_OPS and dtype.is_int and not (b.__class__ is ir.IntImm
                                                                           and b.value == 0)):
        result = ir.binop(op, a, b, span)  # what nearly all arithmetic is: nothing below can object
        if result.__class__ is ir.IntImm and not (a.__class__ is ir.IntImm and b.__class__ is ir.IntImm):
            return effects.binop(st, op, a, b, span)  # `f() * 0`: folding must not drop f()
        return result
    if op == "/" and not dtype.is_float:
        st.diags.error("E0304", f"`/` on {dtype} operands", span, help="use `//` for floor division")
        return POISON
    if op in _INT_ONLY and not dtype.is_int and not (dtype.is_bool and op in ("&", "|", "^")):  # (TIRx's bool and/or)
        st.diags.error("E0309", f"`{_op_text(op)}` needs integer operands, found {dtype}", span)
        return POISON
    if dtype.is_bool and op in ("+", "-", "*", "/", "floordiv", "floormod"):
        st.diags.error("E0309", f"arithmetic `{_op_text(op)}` on bool operands", span,
                         help="cast to an integer type first")
        return POISON
    if dtype.lanes > 1 and not (dtype.name in _VECTOR_OPERATORS and op in ("+", "-", "*", "/")):
        # CUDA's float4, int4 ... are plain structs without operators; only half2 and
        # nv_bfloat162 define + - * /.
        st.diags.error("E0309", f"`{_op_text(op)}` on {dtype} vectors", span,
                         help="work on the lanes: store the vector into a local array and compute per element")
        return POISON
    if dtype.kind == "handle":
        st.diags.error("E0309", "arithmetic on pointers", span,
                         help="index the buffer instead: `A.ptr_to([i + 1])`")
        return POISON
    if op in ("floordiv", "floormod", "truncdiv", "truncmod") and isinstance(b, ir.IntImm) and b.value == 0:
        st.diags.error("E0306", "integer division by zero", span_b)
        return POISON
    if op in ("<<", ">>") and isinstance(b, ir.IntImm) and not 0 <= b.value < dtype.bits:
        st.diags.error("E0318", f"shift count {b.value} is outside 0..{dtype.bits - 1} for {dtype}", span_b,
                         help="shifting by the width of the type or more is undefined in CUDA C++")
        return POISON
    return effects.binop(st, op, a, b, span)


def _constant_power(st, a, b, span):
    """`a ** b` over two constants, as Python computes it (CPython decides which zero bases raise:
    `0 ** -1` does, `0.0 ** -inf` is inf)."""
    try:
        result = a ** b
    except ZeroDivisionError:
        st.diags.error("E0306", "division by zero: 0 raised to a negative power", span)
        return POISON
    except OverflowError:
        st.diags.error("E0318", "the constant is too large for a float", span)
        return POISON
    if isinstance(result, complex):
        st.diags.error("E0306", "a negative number raised to a fractional power is a complex number", span)
        return POISON
    return PyConst(result)


def _power(st, a: ir.Expr, b: ir.Expr, span: Span):
    """`x ** y` in a kernel: TIRx's power, `T.pow(x, y)` over the operands' common float dtype."""
    if not a.dtype.is_float or a.dtype.lanes != 1:
        st.diags.error("E0309", f"`**` takes floating-point operands, found {a.dtype}", span,
                       help="TIRx's power is a float function: convert first (`T.float32(x) ** 2`), or multiply out "
                            "a small integer power (`x * x`)")
        return POISON
    return ir.Call(a.dtype, "math:pow", (a, b), span)


_CHECKED_OPS = ("floordiv", "floormod", "truncdiv", "truncmod", "<<", ">>")  # see checked_in_copies


def checked_in_copies(st, op: str, b: ir.Expr, dtype: DType, span_a: Span, span_b: Span) -> bool:
    """Inside `T.unroll`: a divisor or shift count that becomes a constant in the unrolled copies
    is valid in each copy that runs it (unrolled.py). False after an error."""
    if op in ("<<", ">>"):
        return unrolled.check_operand(st, "shift", b, dtype, span_b)
    where = unrolled.operator_span(st, span_a, span_b, _op_text(op), span_b)
    return unrolled.check_operand(st, "division", b, dtype, where)


# -- element access ----------------------------------------------------------------------------------
def wrong_index_count(st, buf: ir.Buffer, count: int, span: Span) -> None:
    dims = f"{buf.ndim} dimension{'s' if buf.ndim != 1 else ''}"
    given = f"{count} ind{'ex was' if count == 1 else 'ices were'} given"
    st.diags.error("E0506", f"`{buf.name}` has {dims} but {given}", span,
                     help=f"give one index per dimension: `{buf.name}[{', '.join('ijkl'[:buf.ndim])}]`"
                     if buf.ndim <= 4 else "give one index per dimension")


def load(st, buf: ir.Buffer, indices, span):
    # (direct_access_ok can only object to tensor memory and laid-out buffers)
    if (buf.scope == "tmem" or buf.layout is not None) and not direct_access_ok(st, buf, span, "read"):
        return POISON
    return ir.BufferLoad(buf.dtype, buf, tuple(indices), span)


def direct_access_ok(st, buf: ir.Buffer, span, what: str) -> bool:
    """Element access is impossible on tensor memory and on registers spread over threads."""
    if buf.scope == "tmem":
        st.diags.error("E0719", f"`{buf.name}` is in tensor memory and cannot be {what} directly", span,
                         help="only tcgen05 operations touch tensor memory: `tcgen05.ld` / `tcgen05.st` into "
                              "registers, or tcgen05.mma / tcgen05.cp")
        return False
    if buf.layout is not None and layouts.thread_axes(buf.layout):
        st.diags.error("E0519", f"`{buf.name}` is spread over threads; which of its elements this thread "
                                  f"holds is not known from an index", span,
                         help=f"index this thread's registers through `{buf.name}.local()` "
                              f"(or `{buf.name}.local(d0, d1, ...)`)")
        return False
    return True
