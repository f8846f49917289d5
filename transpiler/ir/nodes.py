"""The kernel IR shared by check, lower and emit.

Expressions are typed frozen dataclasses; the constructor functions at the end
(`add`, `mul`, ...) fold constants as nodes are built, so every stage sees
simplified arithmetic. The checker produces buffer-level statements
(BufferStore, Allocate, ...); lowering replaces them with storage-level ones
(Store into a named C array, ArrayDecl ...) that the printer prints as they are.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, fields
from operator import attrgetter
from collections.abc import Callable

from transpiler.target.dtypes import BOOL, INT32, DType, int_range
from transpiler.syntax.source import Span

NOWHERE = Span("<generated>", 0, 0, 0, 0)


def _span_field():
    return field(default=NOWHERE, compare=False, repr=False)


_COMPARED: dict[type, Callable] = {}


def _compared(cls: type) -> Callable:
    """The fields an expression class compares and hashes, as one attrgetter."""
    key = _COMPARED.get(cls)
    if key is None:
        key = _COMPARED[cls] = attrgetter(*(f.name for f in fields(cls) if f.compare))
    return key


# ---- expressions -----------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class Expr:
    """A typed expression (every node below has its dtype first).

    Expressions compare, hash and print by value, as dataclasses do (folding
    and the tests rely on it), through the three methods here rather than
    methods generated for each class: generating them costs every tirxc
    process start-up time."""
    dtype: DType

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = _compared(self.__class__)
        return key(self) == key(other)

    def __hash__(self):
        return hash(_compared(self.__class__)(self))

    def __repr__(self):
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{self.__class__.__qualname__}({shown})"


@dataclass(frozen=True, eq=False, repr=False)
class IntImm(Expr):
    """An integer or boolean constant."""
    value: int
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class FloatImm(Expr):
    """A floating-point constant (printed in its dtype's precision)."""
    value: float
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Var(Expr):
    """A C scalar variable: kernel parameter, thread id, loop variable or let."""
    name: str
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Builtin(Expr):
    """A CUDA built-in register such as threadIdx.x, read as int."""
    name: str
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class BinOp(Expr):
    """A binary operation; build it with binop(), which folds constants."""
    op: str  # + - * / floordiv floormod truncdiv truncmod << >> & | ^ < <= > >= == != && ||
    a: Expr
    b: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class UnaryOp(Expr):
    """`-a`, `!a` or `~a`; build it with unary()."""
    op: str  # - ! ~
    a: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Select(Expr):
    """`cond ? a : b`; build it with select()."""
    cond: Expr
    a: Expr
    b: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Cast(Expr):
    """A value converted to dtype; build it with cast()."""
    a: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Reinterpret(Expr):
    """The bits of a read as dtype (a bit-cast of the same width)."""
    a: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Call(Expr):
    """A call of a C function or helper, already named in C."""
    func: str
    args: tuple[Expr, ...]
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class StrImm(Expr):
    """A string argument (printf formats); printed as a C string literal."""
    value: str
    span: Span = _span_field()


# -- buffer-level (from the checker) --

@dataclass(frozen=True, eq=False, repr=False)
class BufferLoad(Expr):
    """An element of a buffer (checker level; lowering makes it a Load)."""
    buffer: "Buffer"
    indices: tuple[Expr, ...]
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class BufferVecLoad(Expr):
    """`B.vload([i], dtype=...)`: dtype is the vector type."""
    buffer: "Buffer"
    indices: tuple[Expr, ...]
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class BufferAddress(Expr):
    """`B.ptr_to([i])`, `T.address_of(B[i])`, or `B.data` (no indices)."""
    buffer: "Buffer"
    indices: tuple[Expr, ...] | None
    span: Span = _span_field()


# -- storage-level (from lowering) --

@dataclass(frozen=True, eq=False, repr=False)
class Load(Expr):
    """`storage[index]`."""
    storage: "Storage"
    index: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class VecLoad(Expr):
    """A vector read at `storage[index]`: dtype is the vector type."""
    storage: "Storage"
    index: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Address(Expr):
    """&storage[index], or the storage pointer itself when index is None."""
    storage: "Storage"
    index: Expr | None
    span: Span = _span_field()


# ---- buffers and storage ------------------------------------------------------------

@dataclass(eq=False)
class Storage:
    """One C object that holds data: a pointer parameter, an array, the arena, a typed view pointer.

    Mutable on purpose: its C name, size (an SMEMPool's arena is sized at
    commit), alignment and read-only flag are settled after creation, and every
    buffer that shares the storage must see the change. Compared by identity."""
    name: str
    dtype: DType
    scope: str  # global shared shared.dyn local
    kind: str  # param static array arena view_pointer
    size: int | None = None  # elements, for arrays
    align: int = 0
    base: "Storage | None" = None  # for view_pointer: the storage it points into
    readonly: bool = False
    byte_offset: int = 0  # for view_pointer: where in `base` it points


@dataclass(frozen=True)
class Layout:
    """A memory layout of a buffer: `layout.py` builds and applies these."""
    shard: tuple  # of layout.Iter
    replica: tuple = ()
    offset: tuple = ()  # of (axis, value)
    swizzle: tuple | None = None  # (per_element, swizzle_len, atom_len, inner) for ComposeLayout
    text: str = ""


@dataclass(frozen=True, eq=False)
class Buffer:
    """A buffer as the checker sees it: shape, dtype, layout and offset over a Storage."""
    name: str
    shape: tuple[Expr, ...]
    dtype: DType
    scope: str
    storage: Storage | None
    layout: Layout | None = None  # None: dense row-major
    elem_offset: Expr = None
    align: int = 64
    span: Span = _span_field()
    scalar: bool = False  # the scalar sugar: read and written by name
    allocated_addr: Expr | None = None  # tmem column offset

    def __post_init__(self):
        if self.elem_offset is None:
            object.__setattr__(self, "elem_offset", IntImm(INT32, 0))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def const_shape(self) -> tuple[int, ...] | None:
        if all(isinstance(e, IntImm) for e in self.shape):
            return tuple(e.value for e in self.shape)
        return None


# ---- statements -----------------------------------------------------------------------
# Statements and the kernel records below compare by identity and have no generated
# repr: nothing compares them structurally, and every generated method costs start-up
# time. Expressions compare by value (see Expr).

@dataclass(frozen=True, eq=False, repr=False)
class Stmt:
    """A statement."""
    pass


@dataclass(frozen=True, eq=False, repr=False)
class Seq(Stmt):
    """Statements in order."""
    body: tuple[Stmt, ...]
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Block(Stmt):
    """A braced C block: keeps the declarations of one unrolled iteration apart."""
    body: Stmt
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Evaluate(Stmt):
    """An expression evaluated for its effects (a call)."""
    value: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class LetStmt(Stmt):
    """An immutable C local: `int half = m * 2;` (also thread ids)."""
    var: Var
    value: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class For(Stmt):
    """A counted loop over range(start, stop, step)."""
    var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: Stmt
    kind: str = "serial"  # serial unroll (expanded by lowering) pragma_unroll no_unroll
    unroll_factor: int = 0
    span: Span = _span_field()
    # The sign of a non-constant step as lowering proved it: 1 counts up, -1 down,
    # 0 unknown (the C condition then tests the step's sign, as Python's range does).
    direction: int = 0


@dataclass(frozen=True, eq=False, repr=False)
class While(Stmt):
    """A while loop."""
    cond: Expr
    body: Stmt
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class If(Stmt):
    """if / else (orelse is None without an else)."""
    cond: Expr
    then: Stmt
    orelse: Stmt | None
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Break(Stmt):
    """`break;`"""
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Continue(Stmt):
    """`continue;`"""
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Return(Stmt):
    """`return;`"""
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Trap(Stmt):
    """`assert cond` in device code: trap when cond is false."""
    cond: Expr
    message: str
    span: Span = _span_field()


# -- buffer-level --

@dataclass(frozen=True, eq=False, repr=False)
class Allocate(Stmt):
    """A buffer's own storage comes into scope (checker level)."""
    buffer: Buffer
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class DeclView(Stmt):
    """A buffer declared over existing storage; lowering may need a typed pointer for it."""
    buffer: Buffer
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class BufferStore(Stmt):
    """A store into a buffer element (checker level; lowering makes it a Store)."""
    buffer: Buffer
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class BufferVecStore(Stmt):
    """A vector store into a buffer (checker level; lowering makes it a VecStore)."""
    buffer: Buffer
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span_field()


# -- storage-level --

@dataclass(frozen=True, eq=False, repr=False)
class ArrayDecl(Stmt):
    """The declaration of a `__shared__` or register array."""
    storage: Storage
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class PointerDecl(Stmt):
    """The declaration of a typed pointer into another storage."""
    storage: Storage  # kind view_pointer
    offset: Expr  # elements of storage.dtype from the base storage's start, or bytes when byte_offset
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Store(Stmt):
    """`storage[index] = value;`"""
    storage: Storage
    index: Expr
    value: Expr
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class VecStore(Stmt):
    """A vector store at `storage[index]`."""
    storage: Storage
    index: Expr
    value: Expr
    span: Span = _span_field()


# ---- kernels ----------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class Param:
    """A kernel parameter."""
    name: str  # C name: A_ptr for buffers and workspaces, the source name for scalars
    kind: str  # buffer scalar extent workspace
    dtype: DType
    buffer: Buffer | None = None
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Placement:
    """Where one buffer lives: a byte range of the dynamic arena, or a column range of
    tensor memory (`tirxc info` draws these). start and end are -1 when not constant."""
    name: str
    start: int
    end: int
    dtype: DType
    shape: tuple[int, ...]  # 0 for an extent that is not constant
    align: int  # bytes; 0 for tensor memory
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class Workspace:
    """A global-memory buffer the kernel allocates (`T.alloc_buffer(..., scope="global")`,
    DECISIONS 19): a hidden pointer parameter after the others, which the launcher
    allocates, zero-fills before every launch and passes; the caller never sees it."""
    name: str  # the source name
    c_name: str  # the pointer parameter
    dtype: DType
    shape: tuple[Expr, ...]  # over constants, symbolic extents and integer scalar parameters
    align: int
    span: Span = _span_field()


@dataclass(frozen=True, eq=False, repr=False)
class LaunchSpec:
    """Everything the launcher, the printer and `tirxc info` need about one kernel."""
    name: str  # the source function name
    symbol: str  # the CUDA symbol
    params: tuple[Param, ...]
    grid: tuple[Expr, Expr, Expr]
    block: tuple[Expr, Expr, Expr]
    static_shared_bytes: int
    dynamic_shared_bytes: int
    min_arch: int  # e.g. 80, 90, 100
    arch_suffix: str  # "" or "a"
    arena: tuple[Placement, ...] = ()  # the arena buffer, then its views, as declared
    launch_bounds: int | None = None
    arg_order: tuple[str, ...] = ()  # C names of the parameters in the source's declaration order
    workspaces: tuple[Workspace, ...] = ()  # launcher-allocated buffers; also in params, as kind "workspace"
    span: Span = _span_field()  # the kernel's `def` (its name)
    tmem: tuple[Placement, ...] = ()  # tensor-memory buffers (columns), as declared


# ---- constructors that fold ---------------------------------------------------------

def round_float(value: float, dtype: DType) -> float:
    """A Python float rounded to the precision of a float dtype (nearest even;
    out of range gives an infinity). float64 and formats without a rounding rule
    here (fp8 and narrower) are returned unchanged."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    if dtype.bits == 32 or dtype.name == "bfloat16":
        try:
            value = struct.unpack("<f", struct.pack("<f", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
        if dtype.name == "bfloat16":
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
            if bits & 0x7F800000 == 0x7F800000:
                return math.copysign(math.inf, value)
            value = struct.unpack("<f", struct.pack("<I", bits))[0]
        return value
    if dtype.bits == 16:
        try:
            return struct.unpack("<e", struct.pack("<e", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def const(value, dtype: DType) -> Expr:
    if dtype.is_float:
        return FloatImm(dtype, round_float(value, dtype))
    return IntImm(dtype, int(value))


def is_const(e: Expr, value=None) -> bool:
    if e.__class__ in _IMMEDIATES:
        return value is None or e.value == value
    return False


def _wrap(value: int, dtype: DType) -> int:
    """Two's-complement wrap of a folded integer to the dtype's width."""
    if dtype.is_bool:
        return int(bool(value))
    bits = dtype.bits
    value &= (1 << bits) - 1
    if dtype.kind == "int" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _floordiv(a: int, b: int) -> int:
    return a // b


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_FOLD = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "floordiv": _floordiv, "floormod": lambda a, b: a % b,
    "truncdiv": _truncdiv, "truncmod": lambda a, b: a - _truncdiv(a, b) * b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b),
    "min": min, "max": max, "/": lambda a, b: a / b,
}
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_BOOL_RESULT = frozenset(COMPARISONS + ("&&", "||"))  # operations whose value is a bool
_IMMEDIATES = frozenset({IntImm, FloatImm})  # the classes is_const accepts

# The integer operations the generated launcher evaluates on the host (grid extents,
# workspace sizes), with their Python spelling; min and max are calls there. Host
# values are non-negative, so truncating division prints as `//` too.
HOST_OPS = {"+": "+", "-": "-", "*": "*", "floordiv": "//", "floormod": "%", "truncdiv": "//", "truncmod": "%",
            "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^"}


def is_host_node(e: Expr) -> bool:
    """Whether the launcher evaluates this node itself (its operands aside): integer
    constants, variables, the HOST_OPS, min and max, and integer casts."""
    if isinstance(e, (IntImm, Var)):
        return True
    if isinstance(e, BinOp):
        return e.op in HOST_OPS or e.op in ("min", "max")
    return isinstance(e, Cast) and e.dtype.is_int


_QUOTIENT_OF = {"floormod": "floordiv", "truncmod": "truncdiv"}


def _rejoin(scaled: Expr, rest: Expr, span: Span) -> Expr | None:
    """`(x / c) * c + x % c` -> `x` and `(p + x / c) * c + x % c` -> `p * c + x`, for
    floor and truncating division alike and for `>>` / `&` by a power of two: the
    index of a row-major buffer addressed as `[x // c, x % c]` is `x` itself."""
    if not (isinstance(scaled, BinOp) and scaled.op == "*" and is_const(scaled.b)
            and isinstance(rest, BinOp) and is_const(rest.b)):
        return None
    x, c = rest.a, scaled.b.value
    if rest.op in _QUOTIENT_OF and rest.b.value == c:
        quotient = (_QUOTIENT_OF[rest.op], c)
    elif rest.op == "&" and rest.b.value == c - 1 and c > 1 and c & (c - 1) == 0:
        quotient = (">>", c.bit_length() - 1)
    else:
        return None

    def is_quotient(q: Expr) -> bool:
        return isinstance(q, BinOp) and (q.op, q.b.value if is_const(q.b) else None) == quotient and q.a == x

    inner = scaled.a
    if is_quotient(inner):
        return x
    if isinstance(inner, BinOp) and inner.op == "+":
        for p, q in ((inner.a, inner.b), (inner.b, inner.a)):
            if is_quotient(q):
                return binop("+", binop("*", p, scaled.b, span), x, span)
    return None


def binop(op: str, a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    """Build a binary operation, folding constants and identities."""
    dtype = BOOL if op in _BOOL_RESULT else a.dtype
    a_const, b_const = a.__class__ in _IMMEDIATES, b.__class__ in _IMMEDIATES  # is_const, for every node built
    if a_const and b_const:
        if op in ("floordiv", "floormod", "truncdiv", "truncmod", "/") and b.value == 0:
            return BinOp(dtype, op, a, b, span)
        av, bv = a.value, b.value
        if a.dtype.is_float:  # fold in the operands' own precision
            av, bv = round_float(av, a.dtype), round_float(bv, b.dtype)
        try:
            value = _FOLD[op](av, bv)
        except (OverflowError, ValueError, ZeroDivisionError):
            return BinOp(dtype, op, a, b, span)
        if dtype.is_float:
            return FloatImm(dtype, round_float(value, dtype), span)
        if op in ("<<", ">>") and not 0 <= b.value < dtype.bits:
            return BinOp(dtype, op, a, b, span)
        return IntImm(dtype, _wrap(int(value), dtype), span)
    if dtype.is_float and op not in COMPARISONS:
        # Floating-point identities are only safe for exact cases that keep NaN and -0.0 behaviour.
        if op == "*" and b_const and b.value == 1.0:
            return a
        if op == "*" and a_const and a.value == 1.0:
            return b
        return BinOp(dtype, op, a, b, span)
    if op == "+":
        if b_const and b.value == 0:
            return a
        if a_const and a.value == 0:
            return b
        if a.__class__ is BinOp and b.__class__ is BinOp:  # what _rejoin looks for
            whole = _rejoin(a, b, span) or _rejoin(b, a, span)
            if whole is not None:
                return whole
        if b_const and dtype.is_int:
            # Keep unrolled indices tidy: (x + c1) + c2 -> x + (c1 + c2),
            # (x - c1) + c2 -> x + (c2 - c1), (c1 - x) + c2 -> (c1 + c2) - x.
            if isinstance(a, BinOp) and a.op == "+" and is_const(a.b):
                return binop("+", a.a, _iconst(a.b.value + b.value, dtype), span)
            if isinstance(a, BinOp) and a.op == "-" and is_const(a.b):
                return binop("+", a.a, _iconst(b.value - a.b.value, dtype), span)
            if isinstance(a, BinOp) and a.op == "-" and is_const(a.a):
                return binop("-", _iconst(a.a.value + b.value, dtype), a.b, span)
            if b.value < 0 and dtype.is_signed and -b.value <= int_range(dtype)[1]:
                return binop("-", a, _iconst(-b.value, dtype), span)  # x + -c -> x - c
    elif op == "-":
        if b_const and b.value == 0:
            return a
        if b_const and dtype.is_int:
            if b.value < 0 and dtype.is_signed and -b.value <= int_range(dtype)[1]:
                return binop("+", a, _iconst(-b.value, dtype), span)  # x - -c -> x + c
            if isinstance(a, BinOp) and a.op in ("+", "-") and is_const(a.b):
                # (x + c1) - c2 -> x + (c1 - c2); (x - c1) - c2 -> x + (-c1 - c2)
                c1 = a.b.value if a.op == "+" else -a.b.value
                return binop("+", a.a, _iconst(c1 - b.value, dtype), span)
    elif op == "*":
        if b_const and b.value == 1:
            return a
        if a_const and a.value == 1:
            return b
        if (a_const and a.value == 0) or (b_const and b.value == 0):
            return const(0, dtype)
        if b_const and dtype.is_int and isinstance(a, BinOp) and a.op == "*" and is_const(a.b):
            return binop("*", a.a, _iconst(a.b.value * b.value, dtype), span)  # (x * c1) * c2 -> x * (c1 * c2)
    elif op in ("floordiv", "truncdiv"):
        if b_const and b.value == 1:
            return a
    elif op in ("floormod", "truncmod"):
        if b_const and b.value == 1:
            return const(0, dtype)
    elif op == "&&":
        if a_const:
            return b if a.value else const(0, BOOL)
        if b_const and b.value:
            return a
    elif op == "||":
        if a_const:
            return const(1, BOOL) if a.value else b
        if b_const and not b.value:
            return a
    return BinOp(dtype, op, a, b, span)


def _iconst(value: int, dtype: DType) -> IntImm:
    return IntImm(dtype, _wrap(value, dtype))


def add(a: Expr, b: Expr) -> Expr:
    return binop("+", a, b)


def mul(a: Expr, b: Expr) -> Expr:
    return binop("*", a, b)


def unary(op: str, a: Expr, span: Span = NOWHERE) -> Expr:
    if is_const(a):
        if op == "-":
            return const(-a.value, a.dtype) if a.dtype.is_float else IntImm(a.dtype, _wrap(-a.value, a.dtype), span)
        if op == "!":
            return IntImm(BOOL, int(not a.value), span)
        if op == "~" and a.dtype.is_int:
            return IntImm(a.dtype, _wrap(~a.value, a.dtype), span)
    if op == "!" and isinstance(a, UnaryOp) and a.op == "!":
        return a.a
    return UnaryOp(BOOL if op == "!" else a.dtype, op, a, span)


def cast(dtype: DType, a: Expr, span: Span = NOWHERE) -> Expr:
    if a.dtype == dtype:
        return a
    if is_const(a) and dtype.lanes == 1 and a.dtype.lanes == 1:
        if dtype.is_float:
            return FloatImm(dtype, round_float(a.value, dtype), span)
        if dtype.is_bool:
            return IntImm(dtype, int(bool(a.value)), span)
        if dtype.is_int and isinstance(a, IntImm):
            return IntImm(dtype, _wrap(a.value, dtype), span)
        if dtype.is_int and isinstance(a, FloatImm) and math.isfinite(a.value):
            lo, hi = int_range(dtype)
            if lo <= math.trunc(a.value) <= hi:  # C truncates toward zero; out of range is undefined
                return IntImm(dtype, math.trunc(a.value), span)
    return Cast(dtype, a, span)


def select(cond: Expr, a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    if is_const(cond):
        return a if cond.value else b
    return Select(a.dtype, cond, a, b, span)


# ---- facts --------------------------------------------------------------------------------

def nonneg(e: Expr, facts: set[str]) -> bool:
    """Whether e is provably >= 0 (DECISIONS 7); `facts` names the variables known to be."""
    kind = e.dtype.kind
    if kind == "uint" or kind == "bool":
        return True
    cls = e.__class__
    if cls is BinOp:
        op = e.op
        if op in _NONNEG_IF_BOTH:
            return nonneg(e.a, facts) and nonneg(e.b, facts)
        if op == "floormod":
            return nonneg(e.b, facts)
        if op == "&":
            return nonneg(e.a, facts) or nonneg(e.b, facts)
        return op in _BOOL_RESULT
    if cls is Var:
        return e.name in facts
    if cls is IntImm or cls is FloatImm:
        return e.value >= 0
    if cls is Builtin:
        return True
    if cls is Cast:
        return e.a.dtype.is_int and nonneg(e.a, facts) and e.a.dtype.bits <= e.dtype.bits
    if cls is Select:
        return nonneg(e.a, facts) and nonneg(e.b, facts)
    if cls is Call and e.func == "__shfl_sync":
        return nonneg(e.args[1], facts)
    return False


_NONNEG_IF_BOTH = frozenset({"+", "*", "floordiv", "truncdiv", "truncmod", "min", "max", ">>", "|", "^"})


# ---- traversal ----------------------------------------------------------------------------

# Node classes with no expression inside: the walks stop at them (and map_children returns them as they are).
_LEAVES = frozenset({IntImm, FloatImm, Var, Builtin, StrImm})


# How a node of each class is rebuilt from f applied to the expressions directly in
# it (leaves have none): the node itself when f changes none of them, else a new
# one, made by the folding constructors.

def _map_binop(e: BinOp, f) -> Expr:
    a, b = f(e.a), f(e.b)
    return e if a is e.a and b is e.b else binop(e.op, a, b, e.span)


def _map_unary(e: UnaryOp, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else unary(e.op, a, e.span)


def _map_select(e: Select, f) -> Expr:
    cond, a, b = f(e.cond), f(e.a), f(e.b)
    return e if cond is e.cond and a is e.a and b is e.b else select(cond, a, b, e.span)


def _map_cast(e: Cast, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else cast(e.dtype, a, e.span)


def _map_reinterpret(e: Reinterpret, f) -> Expr:
    a = f(e.a)
    return e if a is e.a else Reinterpret(e.dtype, a, e.span)


def _map_call(e: Call, f) -> Expr:
    args = _map_all(e.args, f)
    return e if args is e.args else Call(e.dtype, e.func, args, e.span)


def _map_buffer_access(e: BufferLoad | BufferVecLoad, f) -> Expr:
    indices = _map_all(e.indices, f)
    return e if indices is e.indices else e.__class__(e.dtype, e.buffer, indices, e.span)


def _map_buffer_address(e: BufferAddress, f) -> Expr:
    indices = None if e.indices is None else _map_all(e.indices, f)
    return e if indices is e.indices else BufferAddress(e.dtype, e.buffer, indices, e.span)


def _map_access(e: Load | VecLoad, f) -> Expr:
    index = f(e.index)
    return e if index is e.index else e.__class__(e.dtype, e.storage, index, e.span)


def _map_address(e: Address, f) -> Expr:
    index = None if e.index is None else f(e.index)
    return e if index is e.index else Address(e.dtype, e.storage, index, e.span)


def _map_all(items: tuple, f) -> tuple:
    """f over a tuple; the tuple itself when nothing changed."""
    out = tuple(f(x) for x in items)
    for new, old in zip(out, items):
        if new is not old:
            return out
    return items


_REBUILD = {
    BinOp: _map_binop, UnaryOp: _map_unary, Select: _map_select, Cast: _map_cast,
    Reinterpret: _map_reinterpret, Call: _map_call, BufferLoad: _map_buffer_access,
    BufferVecLoad: _map_buffer_access, BufferAddress: _map_buffer_address,
    Load: _map_access, VecLoad: _map_access, Address: _map_address,
}


def map_children(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """e with f applied to each expression directly in it, rebuilt by the folding
    constructors; e itself when f returns every one of them unchanged."""
    rebuild = _REBUILD.get(e.__class__)
    return e if rebuild is None else rebuild(e, f)


def _exprs_in(items: tuple) -> tuple:
    return tuple(x for x in items if isinstance(x, Expr))


def _no_exprs(node) -> tuple:
    return ()


# For each node class, a function giving the expressions directly in a node, in field
# order. Lowering's walks use it as it is; stmt_exprs and walk_expr, which also walk
# the checker's IR, drop what is not an expression (the IR of a failed expression may
# hold a values.Poison). Every node class above has its entry (tests/lower/test_ir_fold.py).
NODE_EXPRS: dict[type, Callable[..., tuple]] = {
    IntImm: _no_exprs, FloatImm: _no_exprs, Var: _no_exprs, Builtin: _no_exprs, StrImm: _no_exprs,
    BinOp: attrgetter("a", "b"), UnaryOp: lambda e: (e.a,), Select: attrgetter("cond", "a", "b"),
    Cast: lambda e: (e.a,), Reinterpret: lambda e: (e.a,), Call: lambda e: _exprs_in(e.args),
    BufferLoad: lambda e: _exprs_in(e.indices), BufferVecLoad: lambda e: _exprs_in(e.indices),
    BufferAddress: lambda e: () if e.indices is None else _exprs_in(e.indices),
    Load: lambda e: (e.index,), VecLoad: lambda e: (e.index,),
    Address: lambda e: () if e.index is None else (e.index,),
    Seq: _no_exprs, Block: _no_exprs, Evaluate: lambda s: (s.value,), LetStmt: attrgetter("var", "value"),
    For: attrgetter("var", "start", "stop", "step"), While: lambda s: (s.cond,), If: lambda s: (s.cond,),
    Break: _no_exprs, Continue: _no_exprs, Return: _no_exprs, Trap: lambda s: (s.cond,),
    Allocate: _no_exprs, DeclView: _no_exprs,
    BufferStore: lambda s: _exprs_in(s.indices) + (s.value,),
    BufferVecStore: lambda s: _exprs_in(s.indices) + (s.value,),
    ArrayDecl: _no_exprs, PointerDecl: lambda s: (s.offset,),
    Store: attrgetter("index", "value"), VecStore: attrgetter("index", "value"),
}


def seq(stmts) -> Stmt:
    flat: list[Stmt] = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, Seq):
            flat.extend(s.body)
        else:
            flat.append(s)
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def walk_expr(e: Expr):
    """Every node of an expression, parents before children."""
    stack = [e]
    pop, extend = stack.pop, stack.extend
    exprs_of = NODE_EXPRS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        if cls not in _LEAVES:
            extend([x for x in exprs_of.get(cls, _no_exprs)(node) if isinstance(x, Expr)])


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions directly in a statement (a let's variable and a loop's among them)."""
    return [x for x in NODE_EXPRS.get(s.__class__, _no_exprs)(s) if isinstance(x, Expr)]
