"""What a `.tx` expression can stand for while the checker elaborates it.

Besides typed IR expressions (ir.Expr) and buffers (ir.Buffer), names and
expressions can denote compile-time constants, namespaces, layouts, pointers,
thread-id tuples and so on. Each of these is a small frozen dataclass here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ir
from .dtypes import DType
from .source import Span


@dataclass(frozen=True)
class Poison:
    """The value of an expression that already produced an error; silences cascades."""


POISON = Poison()


@dataclass(frozen=True)
class PyConst:
    """A compile-time Python value without a dtype: int, float, bool, str, None or a tuple of them."""
    value: Any


@dataclass(frozen=True)
class Namespace:
    """A dotted prefix of the dialect, e.g. ("T", "cuda")."""
    path: tuple[str, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.path[1:])


@dataclass(frozen=True)
class Method:
    obj: Any
    name: str


@dataclass(frozen=True)
class DTypeVal:
    dtype: DType


@dataclass(frozen=True)
class LetType:
    dtype: DType | None


@dataclass(frozen=True)
class ArrayType:
    dtype: DType
    shape: tuple[int, ...]


@dataclass(frozen=True)
class HandleType:
    pass


@dataclass(frozen=True)
class Handle:
    """A `T.handle` parameter waiting for its `T.match_buffer`."""
    name: str
    span: Span


@dataclass(frozen=True)
class Pointer:
    """`B.data`: the typed base pointer of a buffer."""
    buffer: ir.Buffer


@dataclass(frozen=True)
class Region:
    """`A[m0:m0+BM, 0:BK]`: a rectangular part of a buffer, not a value."""
    buffer: ir.Buffer
    starts: tuple
    extents: tuple


@dataclass(frozen=True)
class IdTuple:
    vars: tuple[ir.Var, ...]


@dataclass(frozen=True)
class Axis:
    name: str


@dataclass(frozen=True)
class AxisTerm:
    """`4 @ laneid`: a stride (or offset) bound to a named axis."""
    value: Any  # ir.Expr
    axis: str


@dataclass(frozen=True)
class LayoutPart:
    """`S[extents : strides]`, `R[...]` or a `+ offset` term, before TileLayout(...) assembles them."""
    shard: tuple = ()
    replica: tuple = ()
    offset: tuple = ()


@dataclass(frozen=True)
class LayoutVal:
    layout: ir.Layout


@dataclass(frozen=True)
class LayoutCtor:
    name: str  # TileLayout S R ComposeLayout


@dataclass(frozen=True)
class LoopRange:
    kind: str  # serial unroll grid
    starts: tuple
    stops: tuple
    steps: tuple
    unroll_factor: int = 0


@dataclass(frozen=True)
class PtxMnemonic:
    """`T.ptx["mnemonic"]`, waiting for its operands."""
    mnemonic: str


@dataclass(frozen=True)
class Builtin:
    """A Python builtin the dialect uses (range)."""
    name: str


@dataclass(frozen=True)
class Void:
    """The result of a call used as a statement only."""
    stmt: ir.Stmt


@dataclass
class Binding:
    """What a name means, what kind of binding it is, and where it was bound."""
    value: Any
    kind: str  # const buffer scalar let var id param handle pointer loopvar other;
    #            module level: const namespace builtin (the implicit `T`) layout axis import
    span: Span
