"""The kernel IR's schema, shared by sema, lower and codegen.

Expressions are typed frozen dataclasses; the constructor functions of fold.py
(`add`, `mul`, ...) fold constants as nodes are built, so every stage sees
simplified arithmetic. The checker produces buffer-level statements
(BufferStore, Allocate, ...); lowering replaces them with storage-level ones
(Store into a named C array, ArrayDecl ...) that the printer prints as they are.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from collections.abc import Callable

from transpiler.target.dtypes import INT32, DType
from transpiler.target.target import Target
from transpiler.syntax.frozen import frozen_node
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

@frozen_node
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


@frozen_node
class IntImm(Expr):
    """An integer or boolean constant."""
    value: int
    span: Span = _span_field()


@frozen_node
class FloatImm(Expr):
    """A floating-point constant (printed in its dtype's precision)."""
    value: float
    span: Span = _span_field()


@frozen_node
class Var(Expr):
    """A C scalar variable: kernel parameter, thread id, loop variable or let."""
    name: str
    span: Span = _span_field()


@frozen_node
class Builtin(Expr):
    """A CUDA built-in register such as threadIdx.x, read as int."""
    name: str
    span: Span = _span_field()


@frozen_node
class BinOp(Expr):
    """A binary operation; build it with binop(), which folds constants."""
    op: str  # + - * / floordiv floormod truncdiv truncmod << >> & | ^ < <= > >= == != && ||
    a: Expr
    b: Expr
    span: Span = _span_field()


@frozen_node
class UnaryOp(Expr):
    """`-a`, `!a` or `~a`; build it with unary()."""
    op: str  # - ! ~
    a: Expr
    span: Span = _span_field()


@frozen_node
class Select(Expr):
    """`cond ? a : b`; build it with select()."""
    cond: Expr
    a: Expr
    b: Expr
    span: Span = _span_field()


@frozen_node
class Cast(Expr):
    """A value converted to dtype; build it with cast()."""
    a: Expr
    span: Span = _span_field()


@frozen_node
class Reinterpret(Expr):
    """The bits of a read as dtype (a bit-cast of the same width)."""
    a: Expr
    span: Span = _span_field()


@frozen_node
class Call(Expr):
    """A call of a C function or helper, already named in C."""
    func: str
    args: tuple[Expr, ...]
    span: Span = _span_field()


@frozen_node
class StrImm(Expr):
    """A string argument (printf formats); printed as a C string literal."""
    value: str
    span: Span = _span_field()


# -- buffer-level (from the checker) --

@frozen_node
class BufferLoad(Expr):
    """An element of a buffer (checker level; lowering makes it a Load)."""
    buffer: "Buffer"
    indices: tuple[Expr, ...]
    span: Span = _span_field()


@frozen_node
class BufferVecLoad(Expr):
    """`B.vload([i], dtype=...)`: dtype is the vector type."""
    buffer: "Buffer"
    indices: tuple[Expr, ...]
    span: Span = _span_field()


@frozen_node
class BufferAddress(Expr):
    """`B.ptr_to([i])`, `T.address_of(B[i])`, or `B.data` (no indices)."""
    buffer: "Buffer"
    indices: tuple[Expr, ...] | None
    span: Span = _span_field()


# -- storage-level (from lowering) --

@frozen_node
class Load(Expr):
    """`storage[index]`."""
    storage: "Storage"
    index: Expr
    span: Span = _span_field()


@frozen_node
class VecLoad(Expr):
    """A vector read at `storage[index]`: dtype is the vector type."""
    storage: "Storage"
    index: Expr
    span: Span = _span_field()


@frozen_node
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
    address: "Expr | None" = None  # for a view_pointer without a base: the generic address it points at


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

@frozen_node
class Stmt:
    """A statement."""
    pass


@frozen_node
class Seq(Stmt):
    """Statements in order."""
    body: tuple[Stmt, ...]
    span: Span = _span_field()


@frozen_node
class Block(Stmt):
    """A braced C block: keeps the declarations of one unrolled iteration apart."""
    body: Stmt
    span: Span = _span_field()


@frozen_node
class Evaluate(Stmt):
    """An expression evaluated for its effects (a call)."""
    value: Expr
    span: Span = _span_field()


@frozen_node
class LetStmt(Stmt):
    """An immutable C local: `int half = m * 2;` (also thread ids)."""
    var: Var
    value: Expr
    span: Span = _span_field()


@frozen_node
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


@frozen_node
class While(Stmt):
    """A while loop."""
    cond: Expr
    body: Stmt
    span: Span = _span_field()


@frozen_node
class If(Stmt):
    """if / else (orelse is None without an else)."""
    cond: Expr
    then: Stmt
    orelse: Stmt | None
    span: Span = _span_field()


@frozen_node
class Comment(Stmt):
    """`// text` on a line of its own: what a lowered tile primitive came from."""
    text: str
    span: Span = _span_field()


@frozen_node
class Break(Stmt):
    """`break;`"""
    span: Span = _span_field()


@frozen_node
class Continue(Stmt):
    """`continue;`"""
    span: Span = _span_field()


@frozen_node
class Return(Stmt):
    """`return;`"""
    span: Span = _span_field()


@frozen_node
class ReturnValue(Stmt):
    """`return value;`: the end of a device function (sema/kernel/device_functions.py)."""
    value: Expr
    span: Span = _span_field()


@frozen_node
class Trap(Stmt):
    """`assert cond` in device code: trap when cond is false."""
    cond: Expr
    message: str
    span: Span = _span_field()


# -- buffer-level --

@frozen_node
class Allocate(Stmt):
    """A buffer's own storage comes into scope (checker level)."""
    buffer: Buffer
    span: Span = _span_field()


@frozen_node
class DeclView(Stmt):
    """A buffer declared over existing storage; lowering may need a typed pointer for it."""
    buffer: Buffer
    span: Span = _span_field()


@frozen_node
class BufferStore(Stmt):
    """A store into a buffer element (checker level; lowering makes it a Store)."""
    buffer: Buffer
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span_field()


@frozen_node
class BufferVecStore(Stmt):
    """A vector store into a buffer (checker level; lowering makes it a VecStore)."""
    buffer: Buffer
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span_field()


@frozen_node
class TileRegion:
    """A tile-primitive operand: the box `starts[d] .. starts[d] + extents[d]` of a buffer."""
    buffer: Buffer
    starts: tuple[Expr, ...]
    extents: tuple[Expr, ...]
    span: Span = _span_field()


@frozen_node
class TileLambda:
    """A tile-primitive operand that is a function of the destination's coordinates (`select`'s
    `pred=lambda i, j: i < j`): its body, built over `params`, one variable per dimension."""
    params: tuple[Var, ...]
    body: Expr


@frozen_node
class ThreadGuard:
    """A condition of an `if` around a tile-primitive call that depends on thread ids, with the
    finest level of the thread hierarchy it depends on: "thread" (lane-level ids, `elect_sync()`),
    "warp", "warpgroup" or "cta". A call at a scope wider than that level runs on part of its threads."""
    cond: Expr
    level: str


@frozen_node
class ThreadContext:
    """What tile-primitive dispatch knows of the threads that reach a call."""
    block: tuple[Expr, ...]  # threadIdx extents (x, y, z), as declared
    cluster: tuple[int, ...] | None  # the cluster's shape, when the kernel has one
    guards: tuple[ThreadGuard, ...] = ()
    target: Target = Target.ANY  # `--arch`'s target (Target.ANY when none is named)
    tmem_slot: object = None  # the `tcgen05.alloc` slot (a shared uint32 Buffer), once one is seen


@frozen_node
class TileCall(Stmt):
    """`Tx.<scope>.<op>(...)` before dispatch (checker level; transpiler/tile replaces it).
    operands: (name, value) in the order of the op's signature (transpiler/ir/tile_ops.py), each value
    a TileRegion, an Expr, a compile-time Python value or None; config: the other keyword arguments."""
    op: str
    scope: str  # thread warp warpgroup cta cluster
    operands: tuple[tuple[str, object], ...]
    config: tuple[tuple[str, object], ...]
    workspace: tuple[tuple[str, object], ...]
    dispatch: str | None
    threads: ThreadContext
    span: Span = _span_field()

    def operand(self, name: str):
        return dict(self.operands)[name]

    def option(self, name: str, default=None):
        return dict(self.config).get(name, default)


def tile_call_exprs(call: TileCall) -> tuple:
    out = []
    for _, item in call.operands + call.config:
        if isinstance(item, TileRegion):
            out.extend(item.starts)
        elif isinstance(item, Expr):
            out.append(item)
    return tuple(out)


# -- storage-level --

@frozen_node
class ArrayDecl(Stmt):
    """The declaration of a `__shared__` or register array."""
    storage: Storage
    span: Span = _span_field()


@frozen_node
class PointerDecl(Stmt):
    """The declaration of a typed pointer into another storage."""
    storage: Storage  # kind view_pointer
    offset: Expr  # elements of storage.dtype from the base storage's start, or bytes when byte_offset
    span: Span = _span_field()


@frozen_node
class Store(Stmt):
    """`storage[index] = value;`"""
    storage: Storage
    index: Expr
    value: Expr
    span: Span = _span_field()


@frozen_node
class VecStore(Stmt):
    """A vector store at `storage[index]`."""
    storage: Storage
    index: Expr
    value: Expr
    span: Span = _span_field()


# ---- kernels ----------------------------------------------------------------------------

@frozen_node
class Param:
    """A kernel parameter."""
    name: str  # C name: A_ptr for buffers and workspaces, the source name for scalars
    kind: "ParamKind"  # transpiler/ir/launch.py
    dtype: DType
    buffer: Buffer | None = None
    span: Span = _span_field()
    tensor_map: "TensorMapSpec | None" = None  # kind "tensormap"


@frozen_node
class TensorMapSpec:
    """A TMA tensor map the launcher encodes before each launch (docs/design.md, decision 24): what
    `T.call_packed("runtime.cuTensorMapEncodeTiled", ...)` said, innermost dimension first."""
    buffer: Buffer  # the parameter buffer whose data it maps
    data_type: int  # CUtensorMapDataType
    dims: tuple[Expr, ...]  # elements, host expressions
    strides: tuple[Expr, ...]  # bytes, of dimensions 1 .. rank-1
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int
    span: Span = _span_field()


@frozen_node
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


@frozen_node
class Workspace:
    """A global-memory buffer the kernel allocates (`T.alloc_buffer(..., scope="global")`,
    docs/design.md, decision 19): a hidden pointer parameter after the others, which the launcher
    allocates, zero-fills before every launch and passes; the caller never sees it."""
    name: str  # the source name
    c_name: str  # the pointer parameter
    dtype: DType
    shape: tuple[Expr, ...]  # over constants, symbolic extents and integer scalar parameters
    align: int
    span: Span = _span_field()


@frozen_node
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
    min_blocks: int | None = None  # `__launch_bounds__`'s second argument
    max_registers: int | None = None  # `__maxnreg__`, in place of `__launch_bounds__`
    cluster: tuple[int, int, int] | None = None  # thread-block cluster shape (`__cluster_dims__`)
    cooperative: Span | None = None  # the kernel's first `T.cuda.grid_sync()`: it is launched cooperatively


# ---- tables derived from the schema -------------------------------------------------------

# Node classes with no expression inside: the walks stop at them (and map_children returns them as they are).
LEAVES = frozenset({IntImm, FloatImm, Var, Builtin, StrImm})

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
    Comment: _no_exprs, Break: _no_exprs, Continue: _no_exprs, Return: _no_exprs, Trap: lambda s: (s.cond,),
    ReturnValue: lambda s: (s.value,),
    Allocate: _no_exprs, DeclView: _no_exprs,
    BufferStore: lambda s: _exprs_in(s.indices) + (s.value,),
    BufferVecStore: lambda s: _exprs_in(s.indices) + (s.value,),
    TileCall: tile_call_exprs,
    ArrayDecl: _no_exprs, PointerDecl: lambda s: (s.offset,),
    Store: attrgetter("index", "value"), VecStore: attrgetter("index", "value"),
}
