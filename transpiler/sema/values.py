"""What a `.tx` expression can stand for while the checker elaborates it.

Besides typed IR expressions (ir.Expr) and buffers (ir.Buffer), names and
expressions can denote namespaces, layouts, pointers, pools and so on; the values of
the file's Python level (constants, dicts, functions, builtins, dtypes ...) are the
evaluator's (transpiler/evaluator/values.py). Each of these is a small frozen dataclass here,
compared by identity and without a generated repr (cheaper to create at start-up).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from transpiler import ir
from transpiler.evaluator.values import CheckerValue
from transpiler.target.dtypes import DType
from transpiler.syntax.frozen import frozen_node
from transpiler.syntax.source import Span


@frozen_node
class LibraryName:
    """A name imported from TIRx's helper library (`from tvm.tirx.lang.pipeline import MBarrier`) that
    tirxc recognises but does not implement, or from a module it does not evaluate (`import numpy`):
    the import is accepted (a test file's imports are often unused by its kernels), a use is
    refused by name."""
    name: str
    module: str
    available: bool = True  # False: a module tirxc does not evaluate at all (`import numpy`)


@frozen_node
class Namespace(CheckerValue):
    """A dotted prefix of the dialect, e.g. ("T", "cuda")."""
    path: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.path[1:])

    def describe(self) -> str:
        return f"`{'.'.join(self.path)}`"


@frozen_node
class KernelName(CheckerValue):
    """A kernel's name read at module level (`kernel = k_compact`, as a builder picks its kernel):
    another name for the kernel, which stays the one named by its `def`."""
    name: str

    def describe(self) -> str:
        return f"kernel `{self.name}`"


@frozen_node
class LetType:
    """The annotation `T.let` or `T.let[dtype]`."""
    dtype: DType | None


@frozen_node
class ArrayType:
    """The annotation of a local array, `T.float32[4]`."""
    dtype: DType
    shape: tuple[int, ...]


@frozen_node
class HandleType:
    """The annotation `T.handle`."""


@frozen_node
class Handle(CheckerValue):
    """A `T.handle` parameter waiting for its `T.match_buffer`."""
    name: str
    span: Span

    def describe(self) -> str:
        return f"handle `{self.name}`"


@frozen_node
class Pointer(CheckerValue):
    """`B.data`: the typed base pointer of a buffer."""
    buffer: ir.Buffer

    def describe(self) -> str:
        return f"pointer `{self.buffer.name}.data`"


@frozen_node
class Region:
    """`A[m0:m0+BM, 0:BK]`: a rectangular part of a buffer, not a value. `indices`: how many
    indices it was written with when it has no slice (`A[i]` of a 2-D `A`), else None."""
    buffer: ir.Buffer
    starts: tuple
    extents: tuple
    indices: int | None = None


@frozen_node
class Axis(CheckerValue):
    """A named layout axis (`laneid`, `warpid` ...)."""
    name: str

    def describe(self) -> str:
        return f"the layout axis `{self.name}`"


@frozen_node
class AxisTerm(CheckerValue):
    """`4 @ laneid`: a stride (or offset) bound to a named axis."""
    value: object  # ir.Expr
    axis: str

    def describe(self) -> str:
        return "a layout stride (`stride @ axis`)"


@frozen_node
class LayoutPart(CheckerValue):
    """`S[extents : strides]`, `R[...]` or a `+ offset` term, before TileLayout(...) assembles them."""
    shard: tuple = ()
    replica: tuple = ()
    offset: tuple = ()

    def describe(self) -> str:
        return "a layout"


@frozen_node
class BufferIndexer:
    """`B.sub` or `B.tile(...)` before its `[...]`: the buffer and, for `tile`, the (dim, factors)
    specs (sema/memory/buffer_views.py)."""
    buffer: object  # ir.Buffer
    kind: str  # "sub" or "tile"
    specs: tuple = ()


@frozen_node
class LayoutVal(CheckerValue):
    """A finished layout: `TileLayout(...)`, `ComposeLayout(...)`."""
    layout: ir.Layout

    def describe(self) -> str:
        return "a layout"


@frozen_node
class LayoutCtor:
    """A layout constructor before its call: `TileLayout`, `S`, `R`, `ComposeLayout`."""
    name: str  # TileLayout S R ComposeLayout


@frozen_node
class PtxMnemonic:
    """`T.ptx["mnemonic"]`, waiting for its operands."""
    mnemonic: str


@frozen_node
class DynamicExtent:
    """`n = T.dynamic("n")` at module level: a symbolic extent each kernel that uses it
    declares for itself, as if it had written `n = T.int32()`."""
    name: str
    span: Span


@frozen_node
class Ramp(CheckerValue):
    """`T.ramp(base, 1, lanes)`: the index of a vector access, not a value (the stride is always 1)."""
    base: object  # ir.Expr
    lanes: int

    def describe(self) -> str:
        return "a `T.ramp` vector index"


@frozen_node
class LaunchConfig(CheckerValue):
    """`T.cuda.LaunchConfig(grid=..., block=..., ...)`, its arguments as written."""
    args: dict

    def describe(self) -> str:
        return "a launch configuration"


# SMEM and TMEM pools (pools.py): mutable, one per `T.SMEMPool()` / `T.TMEMPool(...)` of a kernel
@dataclass(eq=False)
class SmemPool:
    arena: ir.Buffer
    span: object
    cursor: int = 0
    high_water: int = 0
    committed: object = None  # the commit's span once committed
    allocations: list = field(default_factory=list)  # (buffer, start, end, span)


@dataclass(eq=False)
class TmemPool:
    smem: SmemPool | None
    slot: ir.Buffer
    total_cols: int
    cta_group: int
    alloc_warp: int
    dealloc_warp: int
    sync_after_alloc: bool
    span: object
    cursor: int = 0
    committed: object = None
    deallocated: object = None

