"""The launch description: one kernel's launch ABI as language-neutral data.

Lowering builds one KernelLaunch per kernel (transpiler/lower/signature.py); every host
interface is printed from it -- the CuPy launcher (codegen/launcher.py, whose runtime reads
the facts it needs from the launcher's kernel table and keeps no table of its own) and the
C++ entry points (codegen/host_cpp.py) -- and `tirxc info --json` prints it (`to_json`). It
says what a host must know to call the kernel: each parameter's kind, element type as a host
passes it, shape and strides (host expressions over symbolic extents and integer scalars),
alignment and whether the kernel writes it; the workspaces; the tensor maps a host encodes
and the buffer each reaches; the grid, block, shared memory and architecture; and the checks a
host makes before a launch, each with its operands and message (ir/launch_checks.py).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from transpiler.ir.launch_checks import Check
from transpiler.ir.nodes import Expr, IntImm, Span, Var, NOWHERE


class ParamKind(enum.Enum):
    """What a kernel parameter is, to the checker, lowering and every host interface."""
    BUFFER = "buffer"  # a pointer to an argument array's element (0, ..., 0)
    SCALAR = "scalar"  # a value argument
    EXTENT = "extent"  # a symbolic extent: read off the arrays' shapes, never an argument
    WORKSPACE = "workspace"  # a global buffer the host allocates and zero-fills: never an argument
    TENSOR_MAP = "tensormap"  # a CUtensorMap, the caller's or one the host encodes from a buffer
    PENDING = "pending"  # the checker's: a handle until `T.match_buffer` gives it a buffer


@dataclass(frozen=True)
class ElementType:
    """An element as a host passes it (target/dtypes.py HOST_ARRAYS): the kernel's dtype, the bytes
    one element takes in memory (sub-byte formats one to a byte), the __cuda_array_interface__
    typestr an array must have (kind and size, any byte order but big-endian), the NumPy scalar
    type a scalar argument becomes (None: NumPy has none, so the bits travel as the unsigned
    integer of `typestr`), and the array dtypes refused with a reason (a format that packs
    several elements into a byte is not the one-element-per-byte storage the kernel reads)."""
    dtype: str
    itemsize: int
    typestr: str
    scalar: str | None
    refused: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TensorMapLaunch:
    """A CUtensorMap the host encodes before each launch, for the address of `buffer` (a buffer
    parameter's source name): its reach (extents in elements and byte strides, innermost first,
    as host expressions) and the fields of the encoding."""
    buffer: str
    data_type: int  # CUtensorMapDataType
    dims: tuple[Expr, ...]
    strides: tuple[Expr, ...]
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int
    span: Span = NOWHERE
    element_bits: int = 0  # of one element of data_type in global memory (target/tma.py DATA_TYPE_BITS)


# A layout that no strides describe: the host refuses every array for the buffer.
UNSUPPORTED_STRIDES = "unsupported"


@dataclass(frozen=True)
class LaunchParam:
    """One kernel parameter, in the kernel's C order. `name` is the source name the host knows the
    argument by, `c_name` the kernel's. For buffers and workspaces: shape (host expressions),
    element strides (None when dense row-major, UNSUPPORTED_STRIDES when no strides describe the
    layout), the elements between the kernel's pointer and element (0, ..., 0), the pointer's
    alignment in bytes and whether the kernel only reads it. `tensor_map` is set for a map the
    host encodes; a TENSOR_MAP parameter without one is the caller's."""
    name: str
    c_name: str
    kind: ParamKind
    element: ElementType
    shape: tuple[Expr, ...] = ()
    strides: tuple[Expr, ...] | str | None = None
    offset: int = 0
    align: int = 0
    readonly: bool = False
    tensor_map: TensorMapLaunch | None = None
    span: Span = NOWHERE


@dataclass(frozen=True)
class KernelLaunch:
    """One kernel's launch ABI. `params` in the kernel's C order; `args`, the C names of the
    arguments a caller passes, in the source's declaration order; `keyed`, the C names of the
    integer scalars that a shape, stride, workspace size, tensor-map reach or the grid reads
    (a host that caches what it checked keys the cache on their values); `overlaps`, the pairs
    of buffer parameters (C names, in parameter order) that must not share memory when both
    have elements: their pointers are `__restrict__` and the kernel writes one of them; `checks`,
    what a host checks before a launch (lower/checks.py)."""
    name: str
    symbol: str
    params: tuple[LaunchParam, ...]
    args: tuple[str, ...]
    keyed: tuple[str, ...]
    overlaps: tuple[tuple[str, str], ...]
    grid: tuple[Expr, Expr, Expr]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int] | None
    static_shared_bytes: int
    dynamic_shared_bytes: int
    min_arch: int
    arch_suffix: str
    span: Span = NOWHERE
    checks: tuple[Check, ...] = ()
    # where the kernel first synchronizes its whole grid (`T.cuda.grid_sync()`): a host launches it
    # cooperatively (every block resident at once), after checking that the grid fits
    cooperative: Span | None = None

    def param(self, c_name: str) -> LaunchParam:
        return next(p for p in self.params if p.c_name == c_name)

    def of_kind(self, kind: ParamKind) -> list[LaunchParam]:
        return [p for p in self.params if p.kind is kind]

    def check(self, key: str, subject: str = "", of: str | None = None) -> Check:
        """The check `key` ("kind.case") about `subject` (a parameter's C name; "" for the
        launch), and for a host value, of which value (`of`: "shape", "strides", "grid" ...)."""
        return next(c for c in self.checks if c.key == key and c.subject == subject
                    and (of is None or dict(c.operands).get("of") == of))

    def to_json(self, text) -> dict:
        """Plain data for `tirxc info --json`; `text` prints a host expression."""
        def exprs(items):
            return [text(e) for e in items]

        def param(p: LaunchParam) -> dict:
            out = {"name": p.name, "c_name": p.c_name, "kind": p.kind.value, "dtype": p.element.dtype,
                   "itemsize": p.element.itemsize, "typestr": p.element.typestr}
            if p.element.refused:
                out["refused"] = {name: why for name, why in p.element.refused}
            if p.kind in (ParamKind.BUFFER, ParamKind.WORKSPACE):
                out["shape"] = exprs(p.shape)
            if p.kind is ParamKind.BUFFER:
                out["strides"] = p.strides if p.strides is None or isinstance(p.strides, str) else exprs(p.strides)
                out.update(offset=p.offset, align=p.align, readonly=p.readonly)
            if p.tensor_map is not None:
                tm = p.tensor_map
                out["tensor_map"] = {"buffer": tm.buffer, "data_type": tm.data_type, "dims": exprs(tm.dims),
                                     "strides": exprs(tm.strides), "box": list(tm.box),
                                     "element_strides": list(tm.element_strides), "interleave": tm.interleave,
                                     "swizzle": tm.swizzle, "l2_promotion": tm.l2_promotion,
                                     "oob_fill": tm.oob_fill, "element_bits": tm.element_bits}
            return out
        cooperative = {} if self.cooperative is None else {"cooperative": True}
        return {
            **cooperative,
            "symbol": self.symbol, "params": [param(p) for p in self.params], "args": list(self.args),
            "keyed": list(self.keyed), "overlaps": [list(pair) for pair in self.overlaps],
            "grid": exprs(self.grid), "block": list(self.block),
            "cluster": list(self.cluster) if self.cluster else None,
            "static_shared_bytes": self.static_shared_bytes, "dynamic_shared_bytes": self.dynamic_shared_bytes,
            "min_arch": self.min_arch, "arch_suffix": self.arch_suffix,
            "checks": [c.to_json() for c in self.checks],
        }


def where(span: Span | None) -> str | None:
    """A source place as a host's message names it: `file:line:col`."""
    return None if span is None else f"{span.file}:{span.line}:{span.col}"


def dim(e: Expr):
    """A shape or stride entry as hosts often want it: an int, a symbolic extent's name, or the
    expression itself."""
    if isinstance(e, IntImm):
        return e.value
    if isinstance(e, Var):
        return e.name
    return e
