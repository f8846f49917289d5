"""Expression checking: names, literals, operators, subscripts and attributes.

`elab` turns an AST expression into what it denotes (values.py); `value`
additionally insists on a typed scalar expression. Literal operands adopt the
other side's dtype; two typed operands of different dtypes are an error.
"""
from __future__ import annotations

import re

from transpiler.syntax import ast
from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.target.dtypes import BOOL, FLOAT32, INT32, INT64, DType, int_range, parse_dtype
from transpiler.syntax.source import Span
from transpiler.sema.values import (POISON, ArrayType, Axis, AxisTerm, DTypeVal, IdTuple, LaunchConfig, LayoutPart, LayoutVal,
                     LetType, Method, Namespace, Poison, Pointer, PyConst, Ramp, Region, Void, Handle)

_BINOPS = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "floordiv", "%": "floormod",
           "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^"}
_INT_ONLY = ("floordiv", "floormod", "<<", ">>", "&", "|", "^")
# The index of a one-element scalar buffer (`acc` read or written by name): one shared tuple,
# as IR expressions are immutable and compare by value.
SCALAR_INDEX = (ir.IntImm(INT32, 0),)
_RING_OPS = ("+", "-", "*")  # valid on every scalar int and float dtype
_FLOOR_OPS = ("floordiv", "floormod")  # valid on every scalar int dtype, by anything but a constant 0
_LAYOUT_OPERANDS = (LayoutPart, AxisTerm)  # operand classes that make `+` a layout sum

BUFFER_ATTRS = ("data", "shape", "dtype", "elem_offset", "ptr_to", "vload", "vstore", "view", "permute",
                "local", "access_ptr", "scope")


# Compile-time constants stay small: integers of at most INT_BITS bits, and strings and
# tuples built by `+` of at most FOLD_BUDGET bytes per file in all (`S2 = S1 + S1` forty
# times over would otherwise ask for a terabyte).
INT_BITS = 4096
FOLD_BUDGET = 1 << 26


def to_float(value) -> float:
    """float(value), with an integer beyond the double range becoming an infinity (as C's
    conversion of an out-of-range value does on the GPU) instead of raising."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def fold_size(op: str, a, b) -> int:
    """An upper bound of the bits of py_binop(op, a, b) over two numbers; 0 when it is a float."""
    if isinstance(a, float) or isinstance(b, float):
        return 0
    bits_a, bits_b = abs(a).bit_length(), abs(b).bit_length()
    if op == "*":
        return bits_a + bits_b
    if op == "<<":
        return bits_a + max(0, b)
    return max(bits_a, bits_b) + 1


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
    raise KeyError(op)


def article(dtype) -> str:
    """`an int32`, `a float32`: the dtype with its indefinite article."""
    return f"{'an' if str(dtype).startswith('int') else 'a'} {dtype}"


def default_dtype(value) -> DType:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        lo, hi = int_range(INT32)
        return INT32 if lo <= value <= hi else INT64
    return FLOAT32


_SURROGATE = re.compile("[\ud800-\udfff]")


_VECTOR_OPERATORS = ("float16x2", "bfloat16x2")  # the vector types CUDA gives arithmetic operators


class MethodTable(dict):
    """Node class -> the checker class's `<prefix><NodeClass>` function (`_elab_BinOp`), or its
    `<prefix>unsupported` one: looked up by the built name once per node class, not once per
    node (the dispatch runs for every expression node and statement)."""

    def __init__(self, prefix: str, checker_class: type | None = None):
        super().__init__()
        self.prefix, self.checker_class = prefix, checker_class

    def __set_name__(self, owner: type, name: str) -> None:  # a class attribute: for that class
        self.checker_class = owner

    def __missing__(self, node_class: type):
        method = getattr(self.checker_class, self.prefix + node_class.__name__, None)
        self[node_class] = method = method or getattr(self.checker_class, self.prefix + "unsupported")
        return method


class ExprChecker:
    """Mixin: needs `self.module`, `self.diags`, `self.lookup(name, span)` and `self.call(func, node)`."""

    def source_text(self, span: Span) -> str:
        """The source text of a one-line span ("" for longer ones)."""
        if span.line != span.end_line:
            return ""
        return self.module.source.line_text(span.line)[span.col - 1:span.end_col - 1]

    # -- literals ------------------------------------------------------------------------------
    def literal(self, value, dtype: DType, span: Span):
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
            self.diags.error("E0303", f"a scalar literal cannot be used as a `{dtype}` vector", span)
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
                self.diags.error("E0318", f"literal {value} does not fit in {dtype} (range {lo}..{hi})", span,
                                 help=fix)
                return POISON
            return ir.IntImm(dtype, value, span)
        if isinstance(value, float):
            if not dtype.is_float:
                self.diags.error("E0303", f"float literal `{value!r}` used as {article(dtype)} value", span,
                                 help="write an integer literal, or convert the other side to a float type "
                                      "(`T.float32(x)`)")
                return POISON
            return ir.FloatImm(dtype, value, span)
        self.diags.error("E0306", f"{_kind(PyConst(value))} cannot be used as a number here", span)
        return POISON

    def as_value(self, val, span: Span, dtype: DType | None = None):
        """Insist on a typed scalar/vector expression; literals take `dtype` (or their natural one)."""
        if isinstance(val, ir.Expr):
            return val
        if isinstance(val, PyConst):
            if isinstance(val.value, (bool, int, float)):
                return self.literal(val.value, dtype or default_dtype(val.value), span)
            self.diags.error("E0306", f"{_kind(val)} cannot be used as a value", span)
            return POISON
        if val is POISON:
            return POISON
        if isinstance(val, ir.Buffer):
            if val.shape and len(val.shape) == 1 and isinstance(val.shape[0], ir.IntImm) \
                    and val.shape[0].value == 1 and val.scope in ("local", "shared"):
                return self.load(val, SCALAR_INDEX, span)
            self.diags.error("E0306", f"buffer `{val.name}` is not a value; index it (`{val.name}[i]`)", span)
            return POISON
        if isinstance(val, IdTuple) and len(val.vars) == 1:
            return val.vars[0]
        if isinstance(val, Void):
            call = val.stmt.value if isinstance(val.stmt, ir.Evaluate) else None
            inline = isinstance(call, ir.Call) and call.func in getattr(self.module, "func_sources", {})
            self.diags.error("E0313", "this call returns no value", span,
                             help="give the `T.cuda.func_call` a `return_type=` such as \"float32\"" if inline
                             else "use it as a statement of its own")
            return POISON
        if isinstance(val, Region):
            self.diags.error("E0306", f"a region of `{val.buffer.name}` is not a value", span,
                             help="index single elements, e.g. `A[i, j]`")
            return POISON
        self.diags.error("E0306", f"{_kind(val)} cannot be used as a value", span)
        return POISON

    def value(self, node: ast.Expr, dtype: DType | None = None):
        return self.as_value(self.elab(node), node.span, dtype)

    def int_value(self, node: ast.Expr):
        """An integer scalar (indices, loop bounds, offsets); literals become int32 (int64 when large)."""
        val = self.elab(node)
        if isinstance(val, ir.Expr) and val.dtype.is_int and val.dtype.lanes == 1:
            return val  # the common case, before the tests of everything else
        if isinstance(val, PyConst) and (not isinstance(val.value, int) or isinstance(val.value, bool)):
            found = f"float literal `{val.value!r}`" if isinstance(val.value, float) else _kind(val)
            self.diags.error("E0309", f"expected an integer, found {found}", node.span)
            return POISON
        v = self.as_value(val, node.span)
        if v is not POISON and not (v.dtype.is_int and v.dtype.lanes == 1):
            self.diags.error("E0309", f"expected an integer, found {v.dtype}", node.span,
                             help=f"convert it: `T.int32({self.source_text(node.span) or 'x'})`"
                             if v.dtype.lanes == 1 else None)
            return POISON
        return v

    def const_int(self, node: ast.Expr, what: str):
        """A compile-time integer (module constants, literals and their arithmetic)."""
        val = self.elab(node)
        if isinstance(val, Poison):
            return None
        if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
            return val.value
        if isinstance(val, ir.IntImm):
            return val.value
        self.diags.error("E0202", f"{what} must be a compile-time integer", node.span)
        return None

    def const_str(self, node: ast.Expr, what: str):
        val = self.elab(node)
        if isinstance(val, PyConst) and isinstance(val.value, str):
            return self.text_str(val.value, node.span)
        if not isinstance(val, Poison):
            self.diags.error("E0202", f"{what} must be a compile-time string", node.span)
        return None

    def text_str(self, value: str, span: Span):
        """The string itself, or None (with E0321) when it holds a lone surrogate, which no
        output file could hold."""
        bad = _SURROGATE.search(value)
        if bad is None:
            return value
        self.diags.error("E0321", f"the string holds the lone surrogate U+{ord(bad.group()):04X}, which cannot "
                                  "be written as UTF-8", span,
                         help="write the character itself, or its full code point as `\\U0001XXXX`")
        return None

    def dtype_arg(self, node: ast.Expr):
        """A dtype given as a string ("float32") or a dialect name (T.float32); None on error."""
        val = self.elab(node)
        if isinstance(val, Poison):
            return None
        if isinstance(val, DTypeVal):
            return val.dtype
        if isinstance(val, PyConst) and isinstance(val.value, str):
            dtype = parse_dtype(val.value)
            if dtype is None:
                self.unknown_dtype(val.value, node.span)
            return dtype
        self.diags.error("E0302", f"expected a dtype such as \"float32\", found {_kind(val)}", node.span)
        return None

    def unknown_dtype(self, name: str, span: Span) -> None:
        from transpiler.target.dtypes import UNLOWERABLE, VECTOR_LANES, known_dtype_names
        base, _, lanes = name.rpartition("x")
        if name in UNLOWERABLE:
            lowerable = [n for n in known_dtype_names() if n.startswith(name.split("_")[0])]
            self.diags.error("E0302", f"dtype `{name}` has no CUDA type", span,
                             help=did_you_mean(name, lowerable))
        elif parse_dtype(base) is not None and lanes.isdigit():
            self.diags.error("E0302", f"vector dtype `{name}` has {lanes} lanes", span,
                             help=f"vectors have {', '.join(map(str, VECTOR_LANES[:-1]))} or {VECTOR_LANES[-1]} "
                                  f"lanes")
        else:
            self.diags.error("E0302", f"unknown dtype `{name}`", span, help=did_you_mean(name, known_dtype_names()))

    # -- dispatch --------------------------------------------------------------------------
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._elab_methods = MethodTable("_elab_", cls)  # each checker class its own: its overrides are found

    def elab(self, node: ast.Expr):
        return self._elab_methods[node.__class__](self, node)

    def _elab_unsupported(self, node: ast.Expr):
        self.diags.error("E0306", f"{type(node).__name__.lower()} expressions are not supported here", node.span)
        return POISON

    def _elab_Name(self, node: ast.Name):
        return self.lookup(node.id, node.span)

    def _elab_Constant(self, node: ast.Constant):
        value = node.value
        if isinstance(value, int) and abs(value).bit_length() > INT_BITS:
            self.diags.error("E0318", f"integer constant of {abs(value).bit_length()} bits; constants have at most "
                                      f"{INT_BITS}", node.span)
            return POISON
        return PyConst(value)

    def _elab_Tuple(self, node: ast.Tuple):
        return self._sequence(node.elts)

    def _elab_List(self, node: ast.List):
        return self._sequence(node.elts)

    def _sequence(self, elts):
        items = [self.elab(e) for e in elts]
        if any(isinstance(i, Poison) for i in items):
            return POISON
        if all(isinstance(i, PyConst) for i in items):
            return PyConst(tuple(i.value for i in items))
        return tuple(items)

    def _elab_Call(self, node: ast.Call):
        return self.call(self.elab(node.func), node)

    def _elab_Dict(self, node: ast.Dict):
        self.diags.error("E0306", "dict literals are only accepted as `T.func_attr` arguments", node.span)
        return POISON

    def _elab_Slice(self, node: ast.Slice):
        self.diags.error("E0306", "a slice is only valid inside `[...]`", node.span)
        return POISON

    def _elab_IfExp(self, node: ast.IfExp):
        test = self.elab(node.test)
        if isinstance(test, PyConst):
            return self.elab(node.body if test.value else node.orelse)
        cond = self.condition(test, node.test.span)
        a, b = self.elab(node.body), self.elab(node.orelse)
        a, b = self.unify(a, b, node.body.span, node.orelse.span)
        if POISON in (cond, a, b):
            return POISON
        return ir.select(cond, a, b, node.span)

    def condition(self, val, span: Span):
        """A bool or integer scalar (C truthiness), never a float (reference 7.11)."""
        val = self.as_value(val, span, BOOL)
        if isinstance(val, ir.Expr) and (val.dtype.is_float or val.dtype.lanes > 1 or val.dtype.kind == "handle"):
            zero = "0.0" if val.dtype.is_float and val.dtype.lanes == 1 else "0"
            self.diags.error("E0309", f"a condition must be bool or an integer, found {val.dtype}", span,
                             help=f"compare explicitly, e.g. `x != {zero}`" if val.dtype.lanes == 1 else None)
            return POISON
        return val

    def _elab_BoolOp(self, node: ast.BoolOp):
        vals = [self.elab(v) for v in node.values]
        if all(isinstance(v, PyConst) for v in vals):
            result = vals[0].value
            for v in vals[1:]:
                result = (result and v.value) if node.op == "and" else (result or v.value)
            return PyConst(result)
        conds = [self.condition(v, n.span) for v, n in zip(vals, node.values)]
        if POISON in conds:
            return POISON
        out = conds[0]
        for c in conds[1:]:
            out = ir.binop("&&" if node.op == "and" else "||", out, c, node.span)
        return out

    def _elab_UnaryOp(self, node: ast.UnaryOp):
        operand = self.elab(node.operand)
        if isinstance(operand, Poison):
            return POISON
        if isinstance(operand, PyConst):
            v = operand.value
            if node.op == "not":
                return PyConst(not v)
            if not isinstance(v, (int, float)) or isinstance(v, str):
                self.diags.error("E0306", f"unary `{node.op}` needs a number", node.span)
                return POISON
            if node.op == "~":
                if isinstance(v, float):
                    self.diags.error("E0309", "`~` needs an integer", node.span)
                    return POISON
                return PyConst(~v)
            return PyConst(-v if node.op == "-" else +v)
        if node.op == "not":
            cond = self.condition(operand, node.operand.span)
            return POISON if cond is POISON else ir.unary("!", cond, node.span)
        val = self.as_value(operand, node.operand.span)
        if val is POISON:
            return POISON
        if node.op == "+":
            return val
        if node.op == "~" and not val.dtype.is_int:
            self.diags.error("E0309", f"`~` needs an integer, found {val.dtype}", node.span)
            return POISON
        if node.op == "-" and val.dtype.kind == "uint":
            self.diags.error("E0309", f"unary `-` on unsigned {val.dtype}", node.span,
                             help="cast to a signed type first")
            return POISON
        return ir.unary(node.op, val, node.span)

    def unify(self, a, b, span_a: Span, span_b: Span):
        """Two operands of one dtype: a literal takes the other's dtype."""
        if isinstance(a, ir.Expr):  # the common cases first: typed alike, or typed and a literal
            if isinstance(b, ir.Expr) and a.dtype is b.dtype:
                return a, b
            if isinstance(b, PyConst):
                return a, self.as_value(b, span_b, a.dtype)
        if a is POISON or b is POISON:
            return POISON, POISON
        a_literal, b_literal = isinstance(a, PyConst), isinstance(b, PyConst)
        if a_literal and not b_literal:
            b = self.as_value(b, span_b)
            if b is POISON:
                return POISON, POISON
            return self.as_value(a, span_a, b.dtype), b
        if b_literal and not a_literal:
            a = self.as_value(a, span_a)
            if a is POISON:
                return POISON, POISON
            return a, self.as_value(b, span_b, a.dtype)
        if a_literal and isinstance(a.value, float) != isinstance(b.value, float):  # 1 and 2.5: both float32
            dtype = FLOAT32 if all(isinstance(x.value, (int, float)) for x in (a, b)) else None
            return self.as_value(a, span_a, dtype), self.as_value(b, span_b, dtype)
        a, b = self.as_value(a, span_a), self.as_value(b, span_b)
        if a is POISON or b is POISON:
            return POISON, POISON
        if a.dtype != b.dtype:
            self.diags.error("E0303", f"operands have different dtypes: {a.dtype} and {b.dtype}",
                             span_a.to(span_b), help=self.conversion_help(a.dtype, b.dtype, span_a, span_b))
            return POISON, POISON
        return a, b

    def conversion_help(self, da: DType, db: DType, span_a: Span, span_b: Span) -> str:
        """Suggest converting the narrower operand (the integer one, when one side is a float)."""
        if da.lanes != db.lanes:
            return "a vector and a scalar do not combine; work on the vector's elements"
        widen_b = (da.is_float and not db.is_float) or (da.is_float == db.is_float and da.bits > db.bits)
        target, span = (da, span_b) if widen_b else (db, span_a)
        if target.lanes > 1:
            return "convert one side explicitly; vector operands need the same dtype"
        text = self.source_text(span) or "x"
        return f"convert one side explicitly, e.g. `T.{target}({text})`"

    def _elab_BinOp(self, node: ast.BinOp):
        left, right = self.elab(node.left), self.elab(node.right)
        if node.op == "@":
            return self.axis_term(left, right, node)
        if left.__class__ in _LAYOUT_OPERANDS or right.__class__ in _LAYOUT_OPERANDS:
            return self.layout_sum(left, right, node)
        return self.arith(_BINOPS[node.op], left, right, node.span, node.left.span, node.right.span)

    def fold_concat(self, a, b, span: Span):
        """`+` of two constant strings or tuples, within the file's folding budget."""
        weight = 1 if isinstance(a, str) else 8  # bytes per character / per tuple element (a pointer)
        budget = getattr(self.module, "fold_budget", FOLD_BUDGET) - weight * (len(a) + len(b))
        if budget < 0:
            self.diags.error("E0318", f"constant strings and tuples built with `+` exceed {FOLD_BUDGET >> 20} MiB "
                                      "in this file", span)
            return POISON
        if hasattr(self.module, "fold_budget"):
            self.module.fold_budget = budget
        return PyConst(a + b)

    def arith(self, op: str, left, right, span: Span, span_a: Span, span_b: Span):
        if isinstance(left, PyConst) and isinstance(right, PyConst):
            a, b = left.value, right.value
            if (isinstance(a, str) and isinstance(b, str) or isinstance(a, tuple) and isinstance(b, tuple)) \
                    and op == "+":
                return self.fold_concat(a, b, span)
            if not all(isinstance(x, (int, float)) for x in (a, b)):
                self.diags.error("E0306", f"`{_op_text(op)}` needs numbers", span)
                return POISON
            if op == "/" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
                self.diags.error("E0304", "`/` on two integers", span, help="use `//` for floor division")
                return POISON
            if op in ("<<", ">>", "&", "|", "^") and (isinstance(a, float) or isinstance(b, float)):
                self.diags.error("E0309", f"`{_op_text(op)}` needs integers", span)
                return POISON
            if op in ("floordiv", "floormod", "/") and b == 0:
                self.diags.error("E0306", "division by zero", span)
                return POISON
            if op in ("<<", ">>") and b < 0:
                self.diags.error("E0306", "negative shift count", span)
                return POISON
            if op == "<<" and b > 1024:
                self.diags.error("E0318", "shift count too large", span)
                return POISON
            if fold_size(op, a, b) > INT_BITS:
                self.diags.error("E0318", f"the constant would have more than {INT_BITS} bits", span)
                return POISON
            return PyConst(py_binop(op, a, b))
        a, b = self.unify(left, right, span_a, span_b)
        if a is POISON or b is POISON:
            return POISON
        dtype = a.dtype
        if dtype.lanes == 1 and (op in _RING_OPS and (dtype.is_int or dtype.is_float)
                                 or op in _FLOOR_OPS and dtype.is_int and not (b.__class__ is ir.IntImm
                                                                               and b.value == 0)):
            return ir.binop(op, a, b, span)  # what nearly all arithmetic is: nothing below can object
        if op == "/" and not dtype.is_float:
            self.diags.error("E0304", f"`/` on {dtype} operands", span, help="use `//` for floor division")
            return POISON
        if op in _INT_ONLY and not dtype.is_int:
            self.diags.error("E0309", f"`{_op_text(op)}` needs integer operands, found {dtype}", span)
            return POISON
        if dtype.is_bool and op in ("+", "-", "*", "/", "floordiv", "floormod"):
            self.diags.error("E0309", f"arithmetic `{_op_text(op)}` on bool operands", span,
                             help="cast to an integer type first")
            return POISON
        if dtype.lanes > 1 and not (dtype.name in _VECTOR_OPERATORS and op in ("+", "-", "*", "/")):
            # CUDA's float4, int4 ... are plain structs without operators; only half2 and
            # nv_bfloat162 define + - * /.
            self.diags.error("E0309", f"`{_op_text(op)}` on {dtype} vectors", span,
                             help="work on the lanes: store the vector into a local array and compute per element")
            return POISON
        if dtype.kind == "handle":
            self.diags.error("E0309", "arithmetic on pointers", span,
                             help="index the buffer instead: `A.ptr_to([i + 1])`")
            return POISON
        if op in ("floordiv", "floormod", "truncdiv", "truncmod") and isinstance(b, ir.IntImm) and b.value == 0:
            self.diags.error("E0306", "integer division by zero", span_b)
            return POISON
        if op in ("<<", ">>") and isinstance(b, ir.IntImm) and not 0 <= b.value < dtype.bits:
            self.diags.error("E0318", f"shift count {b.value} is outside 0..{dtype.bits - 1} for {dtype}", span_b,
                             help="shifting by the width of the type or more is undefined in CUDA C++")
            return POISON
        return ir.binop(op, a, b, span)

    def _elab_Compare(self, node: ast.Compare):
        operands = [node.left] + list(node.comparators)
        vals = [self.elab(o) for o in operands]
        result = None
        for i, op in enumerate(node.ops):
            left, right = vals[i], vals[i + 1]
            if isinstance(left, PyConst) and isinstance(right, PyConst):
                try:
                    part = PyConst({"<": left.value < right.value, "<=": left.value <= right.value,
                                    ">": left.value > right.value, ">=": left.value >= right.value,
                                    "==": left.value == right.value, "!=": left.value != right.value}[op])
                except TypeError:
                    self.diags.error("E0306", f"cannot compare {_kind(left)} and {_kind(right)}", node.span)
                    return POISON
            else:
                a, b = self.unify(left, right, operands[i].span, operands[i + 1].span)
                if a is POISON or b is POISON:
                    return POISON
                part = ir.binop(op, a, b, operands[i].span.to(operands[i + 1].span))
            if result is None:
                result = part
            elif isinstance(result, PyConst) and isinstance(part, PyConst):
                result = PyConst(result.value and part.value)
            else:
                result = ir.binop("&&", self.as_value(result, node.span, BOOL), self.as_value(part, node.span, BOOL),
                                  node.span)
        return result

    # -- subscripts and attributes ---------------------------------------------------------------
    def _elab_Subscript(self, node: ast.Subscript):
        base = self.elab(node.value)
        if isinstance(base, Poison):
            return POISON
        if isinstance(base, ir.Buffer):
            return self.subscript_buffer(base, node)
        if isinstance(base, Namespace) and base.path == ("T", "ptx"):
            if len(node.indices) == 1:
                mnemonic = self.const_str(node.indices[0], "a PTX mnemonic")
                if mnemonic is not None:
                    from transpiler.sema.values import PtxMnemonic
                    return PtxMnemonic(mnemonic)
                return POISON
        if isinstance(base, Namespace) or isinstance(base, DTypeVal) or isinstance(base, LetType):
            return self.subscript_type(base, node)
        from transpiler.sema.values import LayoutCtor
        if isinstance(base, LayoutCtor) and base.name in ("S", "R"):
            return self.layout_subscript(base.name, node)
        if isinstance(base, PyConst) and isinstance(base.value, tuple) and len(node.indices) == 1:
            index = self.const_int(node.indices[0], "a tuple index")
            if index is None:
                return POISON
            if not -len(base.value) <= index < len(base.value):
                self.diags.error("E0507", f"tuple index {index} out of range", node.indices[0].span)
                return POISON
            return PyConst(base.value[index])
        if isinstance(base, tuple) and len(node.indices) == 1:
            index = self.const_int(node.indices[0], "a tuple index")
            if index is None or not -len(base) <= index < len(base):
                return POISON
            return base[index]
        self.diags.error("E0306", f"{_kind(base)} cannot be indexed", node.value.span)
        return POISON

    def subscript_type(self, base, node: ast.Subscript):
        if isinstance(base, LetType):
            dtype = self.dtype_arg(node.indices[0]) if len(node.indices) == 1 else None
            return LetType(dtype) if dtype else POISON
        if isinstance(base, DTypeVal):
            shape = [self.const_int(i, "a local array extent") for i in node.indices]
            if None in shape:
                return POISON
            return ArrayType(base.dtype, tuple(shape))
        self.diags.error("E0306", f"`{'.'.join(base.path)}` cannot be indexed", node.span)
        return POISON

    def subscript_buffer(self, buf: ir.Buffer, node: ast.Subscript):
        indices, sliced = index_nodes(node)
        if sliced or len(indices) < len(buf.shape):
            return self.region(buf, indices, node)
        vector = self.ramp_access(buf, indices, node.span)
        if vector is not None:
            if vector is POISON or not self.direct_access_ok(buf, node.span, "read"):
                return POISON
            return ir.BufferVecLoad(vector[0], buf, vector[1], node.span)
        if len(indices) != len(buf.shape):
            self.wrong_index_count(buf, len(indices), node.span)
            return POISON
        vals = self.indices(buf, indices)
        if vals is POISON:
            return POISON
        return self.load(buf, vals, node.span)

    def wrong_index_count(self, buf: ir.Buffer, count: int, span: Span) -> None:
        dims = f"{buf.ndim} dimension{'s' if buf.ndim != 1 else ''}"
        given = f"{count} ind{'ex was' if count == 1 else 'ices were'} given"
        self.diags.error("E0506", f"`{buf.name}` has {dims} but {given}", span,
                         help=f"give one index per dimension: `{buf.name}[{', '.join('ijkl'[:buf.ndim])}]`"
                         if buf.ndim <= 4 else "give one index per dimension")

    def indices(self, buf: ir.Buffer, nodes):
        vals = []
        for dim, index in enumerate(nodes):
            v = self.int_value(index)
            if v is POISON:
                return POISON
            extent = buf.shape[dim]
            if isinstance(v, ir.IntImm) and isinstance(extent, ir.IntImm) and not 0 <= v.value < extent.value:
                self.diags.error("E0507", f"index {v.value} is out of bounds for dimension {dim} of "
                                          f"`{buf.name}` (extent {extent.value})", index.span)
                return POISON
            vals.append(v)
        return tuple(vals)

    def region(self, buf: ir.Buffer, indices, node):
        starts, extents = [], []
        for dim in range(buf.ndim):
            if dim >= len(indices):
                starts.append(ir.IntImm(INT32, 0))
                extents.append(buf.shape[dim])
                continue
            index = indices[dim]
            if isinstance(index, ast.Slice):
                if index.step is not None:
                    self.diags.error("E0518", "strided slices (vector access by slice) are not supported",
                                     index.span, help="use `vload` / `vstore`")
                    return POISON
                start = self.int_value(index.lower) if index.lower is not None else ir.IntImm(INT32, 0)
                stop = self.int_value(index.upper) if index.upper is not None else buf.shape[dim]
                if POISON in (start, stop):
                    return POISON
                starts.append(start)
                extents.append(ir.binop("-", stop, start))
            else:
                v = self.int_value(index)
                if v is POISON:
                    return POISON
                starts.append(v)
                extents.append(ir.IntImm(INT32, 1))
        return Region(buf, tuple(starts), tuple(extents))

    def _elab_Attribute(self, node: ast.Attribute):
        base = self.elab(node.value)
        if isinstance(base, Poison):
            return POISON
        if isinstance(base, Namespace):
            return self.namespace_attr(base, node)
        if isinstance(base, ir.Buffer):
            if node.attr == "data":
                return Pointer(base)
            if node.attr == "shape":
                return tuple(base.shape) if not all(isinstance(s, ir.IntImm) for s in base.shape) \
                    else PyConst(tuple(s.value for s in base.shape))
            if node.attr == "dtype":
                return PyConst(base.dtype.name)
            if node.attr in BUFFER_ATTRS:
                return Method(base, node.attr)
            self.diags.error("E0301", f"buffers have no attribute `{node.attr}`", node.span,
                             help=did_you_mean(node.attr, BUFFER_ATTRS))
            return POISON
        from transpiler.sema.pools import SmemPool, TmemPool
        if isinstance(base, (SmemPool, TmemPool)):
            return Method(base, node.attr)
        self.diags.error("E0306", f"{_kind(base)} has no attribute `{node.attr}`", node.span)
        return POISON

    # -- layouts (notation only; layout.py gives them meaning) ---------------------------------------
    def axis_term(self, left, right, node: ast.BinOp):
        if isinstance(right, Axis):
            value = self.as_value(left, node.left.span, INT32)
            return POISON if value is POISON else AxisTerm(value, right.name)
        if not isinstance(left, Poison) and not isinstance(right, Poison):
            self.diags.error("E0306", f"`@` binds a stride to a layout axis, but its right side is {_kind(right)}",
                             node.right.span,
                             help="import the axis from `tvm.tirx.layout` (e.g. `laneid`) and write `4 @ laneid`; "
                                  "`@` is not matrix multiplication")
        return POISON


def index_nodes(node: ast.Subscript):
    """The index expressions of a subscript (`A[(i, j)]` is `A[i, j]`), and whether one is a slice."""
    indices = node.indices
    if len(indices) == 1 and isinstance(indices[0], ast.Tuple):
        indices = indices[0].elts
    for index in indices:
        if isinstance(index, ast.Slice):
            return indices, True
    return indices, False


def _op_text(op: str) -> str:
    return {"floordiv": "//", "floormod": "%"}.get(op, op)


def _kind(val) -> str:
    if isinstance(val, PyConst):
        v = val.value
        if isinstance(v, str):
            return "a string"
        if isinstance(v, tuple):
            return "a tuple"
        if v is None:
            return "None"
        return f"`{v!r}`"
    if isinstance(val, ir.Buffer):
        return f"buffer `{val.name}`"
    if isinstance(val, ir.BufferAddress):
        return "a pointer"
    if isinstance(val, ir.Expr):
        return f"{article(val.dtype)} value"
    if isinstance(val, Namespace):
        return f"`{'.'.join(val.path)}`"
    if isinstance(val, Method):
        return f"method `{val.name}`"
    if isinstance(val, Pointer):
        return f"pointer `{val.buffer.name}.data`"
    if isinstance(val, IdTuple):
        return "a tuple of thread ids"
    if isinstance(val, Handle):
        return f"handle `{val.name}`"
    if isinstance(val, (LayoutVal, LayoutPart)):
        return "a layout"
    if isinstance(val, AxisTerm):
        return "a layout stride (`stride @ axis`)"
    if isinstance(val, Axis):
        return f"the layout axis `{val.name}`"
    if isinstance(val, tuple):
        return "a tuple"
    if isinstance(val, DTypeVal):
        return f"dtype `{val.dtype}`"
    if isinstance(val, Ramp):
        return "a `T.ramp` vector index"
    if isinstance(val, LaunchConfig):
        return "a launch configuration"
    return type(val).__name__.lower()


kind_of = _kind
