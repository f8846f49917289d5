"""What the stages hand each other about a whole file: the checked module (sema's
output, lower's input) and the program (lower's output, what codegen prints)."""
from __future__ import annotations

from dataclasses import dataclass, field

from transpiler.ir import nodes as ir
from transpiler.syntax.source import SourceFile, Span
from transpiler.target.ptx.model import Instruction
from transpiler.target.target import Target


class CNames:
    """The C names taken in one kernel. `fresh(name)` takes the first free one of
    name, name_1, name_2 ...; it remembers per name where the free ones start,
    so that a kernel with n loops over `i` costs O(n), not O(n²), probes."""

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.next_suffix: dict[str, int] = {}  # name -> k: name and name_1 ... name_{k-1} are taken

    def __contains__(self, name: str) -> bool:
        return name in self.taken

    def fresh(self, name: str) -> str:
        n = self.next_suffix.get(name, 0)
        candidate = f"{name}_{n}" if n else name
        while candidate in self.taken:
            n += 1
            candidate = f"{name}_{n}"
        self.taken.add(candidate)
        self.next_suffix[name] = n + 1
        return candidate

    def discard(self, name: str) -> None:
        self.taken.discard(name)
        self.next_suffix.clear()  # the freed name may come first again for its base


@dataclass(frozen=True)
class TileDispatch:
    """What dispatch did with one tile-primitive call (`tirxc info` lists these)."""
    span: Span
    call: str  # `Tx.warp.copy`
    operands: str  # the operands, as written in the comment above the lowered code
    variant: str
    why: str  # the conditions the chosen variant met
    rejected: tuple[tuple[str, str], ...]  # (variant, why it was ruled out), in the order tried


@dataclass
class Kernel:
    name: str
    span: Span
    name_span: Span  # the kernel's name on its `def` line (span starts at its decorator)
    params: list[ir.Param]  # C order: buffer pointers, scalars, symbolic extents
    args: list[ir.Param]  # the launcher's order: the source's declaration order (no extents)
    body: ir.Stmt
    grid: list[ir.Expr]
    block: list[ir.Expr]
    nonneg: set[str]
    min_arch: int
    arch_suffix: str
    arena: ir.Buffer | None
    arena_bytes: int
    views: list[ir.Buffer]
    static_shared_bytes: int
    attrs: dict = field(default_factory=dict)  # `T.attr` kernel attributes: key -> int
    cnames: CNames | None = None  # the C names the checker took (tile dispatch takes fresh ones)
    tile_dispatch: list[TileDispatch] = field(default_factory=list)
    # storage -> the alignment (bytes) the chosen tile variants need of it beyond its own (TMA,
    # wgmma and tcgen05 operands, vector accesses): dispatch's overlay, which lowering declares
    raised_align: dict[ir.Storage, int] = field(default_factory=dict)


@dataclass
class DeviceFunction:
    """A `@T.prim_func` that returns a value (`-> T.int32`): a `__device__` function the kernels
    call, not a kernel (no launch, no host interface)."""
    name: str  # its C name: the source's
    span: Span
    name_span: Span
    params: list[ir.Param]  # scalars, in the source's order
    returns: ir.DType
    body: ir.Stmt
    nonneg: set[str]
    min_arch: int
    arch_suffix: str


@dataclass
class CheckedModule:
    source: SourceFile
    kernels: list[Kernel]
    func_sources: dict[str, str]  # T.cuda.func_call name -> CUDA source, first-use order
    target: Target  # `--arch`'s (Target.ANY when none is named)
    # every PTX instruction a call of the module names, by its helper (wrapper) name: recorded by the
    # checker, extended by dispatch with the chosen tile variants' (target/ptx reads helpers through it)
    ptx_instructions: dict[str, Instruction] = field(default_factory=dict)
    environment_reads: tuple[str, ...] = ()  # the environment variables the file read, by name, in order
    functions: list[DeviceFunction] = field(default_factory=list)  # in definition order, before any caller


@dataclass
class LoweredKernel:
    """One kernel ready to print: its launch facts, storage-level body and dynamic arena."""
    spec: ir.LaunchSpec
    body: ir.Stmt
    arena: ir.Storage | None
    # The C name of each variable of the body that takes back its source name
    # (reuse_source_names), by its name in the body, which the checker made unique
    # in the kernel; the printer applies it: the body is not rebuilt around every
    # renamed loop variable.
    var_names: dict[str, str] = field(default_factory=dict)
    tile_dispatch: list[TileDispatch] = field(default_factory=list)
    launch: "KernelLaunch | None" = None  # the launch description (ir/launch.py) every host interface prints


@dataclass
class LoweredFunction:
    """One device function ready to print."""
    name: str
    params: list[ir.Param]
    returns: ir.DType
    body: ir.Stmt
    var_names: dict[str, str] = field(default_factory=dict)  # as LoweredKernel's
    span: Span | None = None


@dataclass
class Program:
    """Everything render_cuda and the launcher need about one .tx file."""
    source_name: str
    kernels: list[LoweredKernel]
    func_sources: dict[str, str]
    helpers: list[str]
    headers: list[str]
    min_arch: int
    arch_suffix: str
    func_lines: dict[str, int] = field(default_factory=dict)  # func_call name -> .tx line of its first source line
    # The <cstdint> names (`int32_t` ...) that the func_call sources use, which the .cu defines
    # before them (target/cnames.py FIXED_WIDTH order)
    fixed_width: list[str] = field(default_factory=list)
    ptx_instructions: dict[str, Instruction] = field(default_factory=dict)  # the checked module's
    # the environment variables the file read (`os.environ.get("M", ...)`), by name, in order: the
    # .cu header and `tirxc info --json` list them (an output that depends on them says so)
    environment_reads: list[str] = field(default_factory=list)
    functions: list[LoweredFunction] = field(default_factory=list)  # printed before the kernels

    @property
    def file_name(self) -> str:
        """The .tx file's name without its directories (either slash): the generated files
        name their source by it, never by a path of this machine."""
        return self.source_name.replace("\\", "/").rsplit("/", 1)[-1]
