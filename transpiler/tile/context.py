"""What a lowering works with: the call, fresh C names, the thread indices of each scope, loops.

One `Lowering` is made per tile-primitive call. The thread indices are built from `threadIdx`
and the declared block shape (not from the kernel's own id variables, which may not exist), so
a lowering never depends on which ids the kernel happened to declare."""
from __future__ import annotations

from collections.abc import Callable
from math import prod

from transpiler import ir
from transpiler.ir.analysis import base_alignment
from transpiler.ir.program import CNames
from transpiler.ir.tile_ops import SCOPE_THREADS
from transpiler.target.dtypes import INT32, DType
from transpiler.target.ptx import Instruction
from transpiler.target.target import Target
from transpiler.tile.levels import finer_than
from transpiler.tile.registry import Decline


def c(value: int) -> ir.Expr:
    return ir.IntImm(INT32, value)


class Lowering:
    def __init__(self, call: ir.TileCall, names: CNames, nonneg: set[str], kernel_arch: int | None = None):
        self.call = call
        self.names = names
        self.nonneg = nonneg  # the kernel's names known to be >= 0 (lowering prints their division as C's)
        self.threads = call.threads
        self.kernel_arch = kernel_arch
        # storage alignments raised beyond the checked storage's own (a TMA, wgmma or tcgen05 operand,
        # a vector access): those of the variants chosen so far, then this one's; dispatch keeps them
        # only when this variant is chosen, and lowering declares the storage so aligned
        self.raised: dict[ir.Storage, int] = {}
        # the TMA tensor maps the variants chosen so far made, then this one's: each a kernel
        # parameter and the buffer that stands for it in the code
        self.tensor_maps: list[tuple[ir.Param, ir.Buffer]] = []
        # the PTX instructions this variant's code calls, by helper name: dispatch adds them to the
        # module's record (CheckedModule.ptx_instructions) when the variant is chosen
        self.instructions: dict[str, Instruction] = {}

    # -- facts ---------------------------------------------------------------------------------
    @property
    def target(self) -> Target:
        """The target a variant may use: `--arch`'s; without it, first what the kernel needs anyway
        (Target.within(kernel_arch)), then, when no variant fits that, Target.ANY (the kernel's
        minimum architecture then records what the chosen variant needs)."""
        if self.threads.target.named or not self.kernel_arch:
            return self.threads.target
        return Target.within(self.kernel_arch)

    def require(self, feature: str, what: str) -> None:
        """Decline unless the target may use the instruction family `feature` (a FEATURES row of
        target/arch.py); `what` names the use in the reason."""
        refused = self.target.refusal(feature, what)
        if refused is not None:
            raise Decline(refused)

    @property
    def scope(self) -> str:
        return self.call.scope

    def block_size(self) -> int | None:
        """Threads in the CTA, when the block shape is constant."""
        return self.constant_block_size(self.threads.block)

    @staticmethod
    def constant_block_size(dims) -> int | None:
        """Threads in a CTA of these threadIdx extents, when they are constant."""
        if not dims:
            return None
        if all(isinstance(d, ir.IntImm) for d in dims):
            return prod(d.value for d in dims)
        return None

    def scope_threads(self, scope: str | None = None) -> int | None:
        """How many threads cooperate at a scope (None: the block shape is not constant)."""
        scope = scope or self.scope
        if scope in SCOPE_THREADS:
            return SCOPE_THREADS[scope]
        size = self.block_size()
        if scope == "cluster" and size is not None:
            return size * prod(self.threads.cluster or (1,))
        return size

    def alignment(self, buf: ir.Buffer) -> int:
        """The alignment the start of buf's storage has, counting the raises so far."""
        return base_alignment(buf, self.raised)

    def raise_alignment(self, storage: ir.Storage, nbytes: int) -> None:
        """Have `storage` (an array or the arena tirxc declares) start on a multiple of nbytes."""
        if nbytes > max(storage.align, self.raised.get(storage, 0)):
            self.raised[storage] = nbytes

    def instruction(self, instr: Instruction) -> Instruction:
        """Record that this variant's code calls `instr` (by its helper name); returns it."""
        self.instructions[instr.helper] = instr
        return instr

    def sub_lowering(self, call: ir.TileCall) -> Lowering:
        """The lowering of a part of this call (a fused op's elementwise op or reduction), which
        sees this one's raised alignments; `adopt` keeps the part's own once it is used."""
        sub = Lowering(call, self.names, self.nonneg)
        sub.raised = dict(self.raised)
        return sub

    def adopt(self, sub: Lowering) -> None:
        self.raised = sub.raised
        self.instructions.update(sub.instructions)

    # -- thread indices --------------------------------------------------------------------------
    def tid(self) -> ir.Expr:
        """The thread's linear index in its CTA."""
        dims = self.threads.block
        x, y, z = (ir.Builtin(INT32, f"threadIdx.{a}") for a in "xyz")
        if len(dims) <= 1:
            return x
        if len(dims) == 2:
            return ir.add(x, ir.mul(y, dims[0]))
        return ir.add(x, ir.mul(dims[0], ir.add(y, ir.mul(z, dims[1]))))

    def lane(self) -> ir.Expr:
        return ir.binop("floormod", self.tid(), c(32))

    def warp(self) -> ir.Expr:
        """The warp's index in the CTA."""
        return ir.binop("floordiv", self.tid(), c(32))

    def thread_in(self, scope: str | None = None) -> ir.Expr:
        """The thread's index among the threads of a scope that cooperate in the call."""
        scope = scope or self.scope
        if scope == "thread":
            return c(0)
        if scope == "warp":
            return self.lane()
        if scope == "warpgroup":
            return ir.binop("floormod", self.tid(), c(128))
        return self.tid()

    def axis_value(self, axis: str) -> ir.Expr:
        """The value of a layout's thread axis for this thread (ir/layout.py THREAD_AXES)."""
        tid = self.tid()
        return {"laneid": lambda: self.lane(), "warpid": lambda: self.warp(), "tx": lambda: tid,
                "wgid": lambda: ir.binop("floordiv", tid, c(128)),
                "tid_in_wg": lambda: ir.binop("floormod", tid, c(128)),
                "wid_in_wg": lambda: ir.binop("floormod", ir.binop("floordiv", tid, c(32)), c(4))}[axis]()

    def narrowed(self) -> ir.ThreadGuard | None:
        """The first enclosing guard that leaves only part of the call's scope running, if any."""
        for guard in self.threads.guards:
            if finer_than(guard.level, self.scope):
                return guard
        return None

    # -- building code -------------------------------------------------------------------------
    def var(self, base: str, dtype: DType = INT32, nonneg: bool = False) -> ir.Var:
        var = ir.Var(dtype, self.names.fresh(base))
        if nonneg:
            self.nonneg.add(var.name)
        return var

    def let(self, base: str, value: ir.Expr, nonneg: bool = False) -> tuple[ir.Var, ir.LetStmt]:
        """A named local holding value; `nonneg` says the value is never negative."""
        var = self.var(base, value.dtype, nonneg)
        return var, ir.LetStmt(var, value)

    def loop(self, base: str, extent: int | ir.Expr, body: Callable[[ir.Expr], ir.Stmt | None],
             kind: str = "serial", start: int | ir.Expr = 0) -> ir.Stmt | None:
        """`for base in range(start, start + extent)`; an extent of 1 is no loop at all."""
        extent = c(extent) if isinstance(extent, int) else extent
        start = c(start) if isinstance(start, int) else start
        if isinstance(extent, ir.IntImm) and extent.value <= 0:
            return None
        if isinstance(extent, ir.IntImm) and extent.value == 1:
            return body(start)
        var = self.var(base, nonneg=ir.nonneg(start, self.nonneg))
        inner = body(var)
        if inner is None:
            return None
        return ir.For(var, start, ir.add(start, extent), c(1), inner, kind)
