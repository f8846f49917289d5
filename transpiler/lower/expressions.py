"""Lowering of expressions: buffer accesses become storage accesses through the buffer's layout,
floor division and math calls their C forms (transpiler/lower/cforms.py)."""
from __future__ import annotations

import copy
import dataclasses

from transpiler import ir
from transpiler.diag.diagnostics import Diagnostics
from transpiler.ir import layout as layouts
from transpiler.ir.fold import nonneg
from transpiler.ir.program import CheckedModule, Kernel
from transpiler.lower import cforms
from transpiler.lower.facts import Facts
from transpiler.target.cmath import PURE_CALLS, via_float32
from transpiler.target.dtypes import INT32

_FLOOR_OPS = ("floordiv", "floormod")


def _pow2(e: ir.Expr) -> int | None:
    if isinstance(e, ir.IntImm) and e.value > 0 and e.value & (e.value - 1) == 0:
        return e.value.bit_length() - 1
    return None


class ExpressionLowerer:
    """One kernel's lowering state, and its expressions lowered (KernelLowerer, in statements.py,
    lowers the statements and the kernel)."""

    def __init__(self, kernel: Kernel, module: CheckedModule, diags: Diagnostics):
        self.kernel = kernel
        self.module = module
        self.diags = diags
        self.nonneg_names = set(kernel.nonneg)  # the variables known to be >= 0 (ir.nonneg)
        self.facts: Facts | None = None  # of the lowered body, once run() has lowered it
        self.declared_pointers: set[int] = set()
        self.pure_calls: set[str] = set(PURE_CALLS)  # and the math functions lowering names
        self.tmem: dict[int, ir.Placement] = {}  # tensor-memory buffers by id (unrolled copies share one)
        # by buffer id: the strides of a row-major buffer of constant shape and offset, else None
        self.row_major_strides: dict[int, list[ir.Expr] | None] = {}
        # The thread-id registers that a `let` at the top of the body has bound, to its variable:
        # later reads of the register read the variable (`tx / 32`, not `((int)threadIdx.x) / 32`).
        self.id_vars: dict[ir.Builtin, ir.Var] = {}
        self.depth = 0  # statements around the one being lowered (0: it lands at the top of the body)
        # the variables of the `T.unroll` loops being expanded, bound to this copy's value
        self.unrolled: dict[str, ir.Expr] = {}
        # global workspaces (docs/design.md, decision 19), as stmt() meets them: at the kernel's top level, in source order
        self.workspaces: list[ir.Buffer] = []
        # lowering's own copy of each checked storage, by the checked one's id (kept with it, so the id
        # stays its own): names, alignment and read-only-ness are settled on the copies, and the checked
        # module stays as dispatch returned it
        self.storages: dict[int, tuple[ir.Storage, ir.Storage]] = {}

    def own(self, storage: ir.Storage | None) -> ir.Storage | None:
        """Lowering's copy of a checked storage (a view's `base` the copy of its base)."""
        if storage is None:
            return None
        entry = self.storages.get(id(storage))
        if entry is None:
            mine = copy.copy(storage)
            mine.base = self.own(storage.base)
            entry = self.storages[id(storage)] = (storage, mine)
        return entry[1]

    def own_buffer(self, buf: ir.Buffer) -> ir.Buffer:
        """buf over lowering's copy of its storage (for the launch description: its read-only-ness)."""
        return dataclasses.replace(buf, storage=self.own(buf.storage))

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> ir.Expr:
        """e lowered, bottom-up: buffer accesses become storage accesses, floor division and
        math calls their C forms, the variables of unrolled loops their values, thread-id
        registers the variables bound to them (id_vars). The commonest nodes first: this
        runs for every node of every expression."""
        cls = e.__class__
        if cls is ir.BinOp:
            if e.op in _FLOOR_OPS:
                return self.division(e)
            if e.a.dtype.bits < 16 and e.a.dtype.is_float:  # fp8 and narrower: through float32
                return cforms.arith(e.op, self.expr(e.a), self.expr(e.b), e.span)
            return ir.map_children(e, self.expr)
        if cls is ir.Var:
            return self.unrolled.get(e.name, e)
        if cls is ir.IntImm or cls is ir.FloatImm:
            return e
        if cls is ir.BufferLoad:
            return ir.Load(e.dtype, self.own(e.buffer.storage), self.index(e.buffer, e.indices), e.span)
        if cls is ir.Builtin:
            return self.id_vars.get(e, e)
        if cls is ir.BufferVecLoad:
            return ir.VecLoad(e.dtype, self.own(e.buffer.storage), self.index(e.buffer, e.indices), e.span)
        if cls is ir.BufferAddress:
            index = None if e.indices is None else self.index(e.buffer, e.indices)
            if index is None and not isinstance(e.buffer.elem_offset, ir.IntImm) or \
                    (index is None and e.buffer.elem_offset.value != 0):
                index = self.expr(e.buffer.elem_offset)
            return ir.Address(e.dtype, self.own(e.buffer.storage), index, e.span)
        if cls is ir.Call and e.func.startswith("math:"):
            return self.math(e)
        if cls is ir.UnaryOp and via_float32(e.a.dtype):
            return cforms.unary(e.op, self.expr(e.a), e.span)
        if cls is ir.Cast and via_float32(e.dtype):
            return cforms.convert(e.dtype, self.expr(e.a), e.span)
        return ir.map_children(e, self.expr)

    def index(self, buf: ir.Buffer, indices) -> ir.Expr:
        coords = list(map(self.expr, indices))
        strides = self.row_major_strides.get(id(buf), False)
        if strides is False:  # a buffer not seen yet
            plain = buf.layout is None and isinstance(buf.elem_offset, ir.IntImm) and buf.const_shape() is not None
            strides = self.row_major_strides[id(buf)] = layouts.row_major_strides(buf.shape) if plain else None
        if strides is None:
            return self.expr(layouts.memory_index(buf.layout, coords, buf.shape, buf.elem_offset))
        # A row-major buffer of constant shape and offset: its index is arithmetic on the
        # lowered coordinates and constants, with nothing left to lower.
        return layouts.linear_index(zip(coords, strides), buf.elem_offset)

    def division(self, e: ir.BinOp) -> ir.Expr:
        a, b = self.expr(e.a), self.expr(e.b)
        if ir.is_const(a) and ir.is_const(b):  # e.g. in an unrolled copy
            return ir.binop(e.op, a, b, e.span)
        if e.dtype.is_float:  # each operation rounded to the dtype, as folding computes it
            floor = self.math(ir.Call(e.dtype, "math:floor", (cforms.arith("/", a, b),)))
            return floor if e.op == "floordiv" else cforms.arith("-", a, cforms.arith("*", b, floor))
        if nonneg(a, self.nonneg_names) and nonneg(b, self.nonneg_names):
            return ir.binop("truncdiv" if e.op == "floordiv" else "truncmod", a, b, e.span)
        shift = _pow2(b)
        if shift is not None:
            if e.op == "floordiv":
                return ir.binop(">>", a, ir.IntImm(b.dtype, shift), e.span)
            return ir.binop("&", a, ir.IntImm(b.dtype, b.value - 1), e.span)
        helper = "tirx_floordiv" if e.op == "floordiv" else "tirx_floormod"
        if e.dtype.bits < 32:
            # C promotes narrower operands to int, so `T` of the helper template could
            # not be deduced from (int, char); divide in int, where the result fits.
            wide = ir.Call(INT32, helper, (ir.cast(INT32, a), ir.cast(INT32, b)), e.span)
            return ir.cast(e.dtype, wide, e.span)
        return ir.Call(e.dtype, helper, (a, b), e.span)

    def math(self, e: ir.Call) -> ir.Expr:
        args = tuple(self.expr(a) for a in e.args)
        return cforms.math(e.func[len("math:"):], args, e.dtype, e.span, self.pure_calls)
