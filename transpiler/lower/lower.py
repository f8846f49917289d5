"""Lowering: checked kernels to storage-level IR plus a LaunchSpec per kernel.

Buffers become C storage (pointer parameters, `__shared__` arrays, the one
extern arena, register arrays, typed view pointers); element accesses become
index expressions through the buffer's layout and elem_offset; `T.unroll`
loops are expanded; floor division is made exact in C; declarations nobody
reads are dropped. Nothing here produces text.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.ir.program import CheckedModule, Kernel, LoweredKernel, Program
from transpiler.diag.diagnostics import Diagnostics
from transpiler.target.dtypes import INT32, header
from transpiler.target.cmath import PURE_CALLS, via_float32
from transpiler.ir.fold import nonneg
from transpiler.lower import cforms
from transpiler.lower.narrow import exact_stmt
from transpiler.lower.tma_writes import written_by_ptx_outputs, written_through_maps
from transpiler.target import ptx
from transpiler.target.arch import BASE_ARCH
from transpiler.target.cnames import FIXED_WIDTH, fixed_width_names
from transpiler.ir.walk import all_exprs, all_stmts, declares



_FLOOR_OPS = ("floordiv", "floormod")


def _pow2(e: ir.Expr) -> int | None:
    if isinstance(e, ir.IntImm) and e.value > 0 and e.value & (e.value - 1) == 0:
        return e.value.bit_length() - 1
    return None


class KernelLowerer:
    def __init__(self, kernel: Kernel, module: CheckedModule, diags: Diagnostics):
        self.kernel = kernel
        self.module = module
        self.diags = diags
        self.nonneg_names = set(kernel.nonneg)  # the variables known to be >= 0 (ir.nonneg)
        self.facts: _Facts | None = None  # of the lowered body, once run() has lowered it
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
            return ir.Load(e.dtype, e.buffer.storage, self.index(e.buffer, e.indices), e.span)
        if cls is ir.Builtin:
            return self.id_vars.get(e, e)
        if cls is ir.BufferVecLoad:
            return ir.VecLoad(e.dtype, e.buffer.storage, self.index(e.buffer, e.indices), e.span)
        if cls is ir.BufferAddress:
            index = None if e.indices is None else self.index(e.buffer, e.indices)
            if index is None and not isinstance(e.buffer.elem_offset, ir.IntImm) or \
                    (index is None and e.buffer.elem_offset.value != 0):
                index = self.expr(e.buffer.elem_offset)
            return ir.Address(e.dtype, e.buffer.storage, index, e.span)
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

    # -- statements ----------------------------------------------------------------------------------------
    def stmt(self, s: ir.Stmt) -> ir.Stmt | None:
        cls = s.__class__
        if cls is ir.Seq:
            return ir.seq(self.stmt(x) for x in s.body)
        if cls is ir.Allocate:
            storage = s.buffer.storage
            if storage.kind == "arena":
                return None  # declared once at the top of the kernel
            if storage.kind == "workspace":
                self.workspaces.append(s.buffer)
                return None  # a pointer parameter (run() adds it)
            return ir.ArrayDecl(storage, s.span)
        if cls is ir.DeclView:
            storage = s.buffer.storage
            if s.buffer.scope == "tmem":  # columns, not C storage: recorded for `tirxc info`
                self.tmem.setdefault(id(s.buffer), _tmem_placement(s.buffer))
                return None
            if storage.kind == "view_pointer" and id(storage) not in self.declared_pointers:
                self.declared_pointers.add(id(storage))
                return ir.PointerDecl(storage, ir.IntImm(INT32, 0), s.span)
            return None
        if cls is ir.BufferStore:
            return ir.Store(s.buffer.storage, self.index(s.buffer, s.indices), self.expr(s.value), s.span)
        if cls is ir.BufferVecStore:
            return ir.VecStore(s.buffer.storage, self.index(s.buffer, s.indices), self.expr(s.value), s.span)
        if cls is ir.LetStmt:
            value = self.expr(s.value)
            if value.__class__ is ir.Builtin and not self.depth and s.var.dtype == value.dtype:
                self.id_vars[value] = s.var
            # The fact belongs to this binding: the copies of an unrolled body bind
            # the same name to different values (`t = tx` then `t = tx - 1`).
            if nonneg(value, self.nonneg_names):
                self.nonneg_names.add(s.var.name)
            else:
                self.nonneg_names.discard(s.var.name)
            return ir.LetStmt(s.var, value, s.span)
        if cls is ir.Evaluate:
            return ir.Evaluate(self.expr(s.value), s.span)
        if cls is ir.If:
            cond = self.expr(s.cond)
            if ir.is_const(cond):
                return self.stmt(s.then) if cond.value else (self.stmt(s.orelse) if s.orelse else None)
            then = self.nested(s.then) or ir.Seq(())
            orelse = self.nested(s.orelse) if s.orelse is not None else None
            return ir.If(cond, then, orelse, s.span)
        if cls is ir.While:
            return ir.While(self.expr(s.cond), self.nested(s.body) or ir.Seq(()), s.span)
        if cls is ir.Block:  # a lowered tile primitive's code (transpiler/tile/dispatch.py)
            return ir.Block(self.stmt(s.body) or ir.Seq(()), s.span)
        if cls is ir.For:
            return self.loop(s)
        if cls is ir.Trap:
            return ir.Trap(self.expr(s.cond), s.message, s.span)
        return s

    def nested(self, s: ir.Stmt) -> ir.Stmt | None:
        """A statement lowered inside another (a body or branch: not at the top of the kernel's)."""
        self.depth += 1
        lowered = self.stmt(s)
        self.depth -= 1
        return lowered

    def loop(self, s: ir.For) -> ir.Stmt | None:
        start, stop, step = self.expr(s.start), self.expr(s.stop), self.expr(s.step)
        if s.kind == "unroll":
            # Each copy is lowered with the variable bound to its value, so every expression
            # folds as it is rebuilt (one pass, however deep the unrolled loops nest).
            out = []
            outer = self.unrolled.get(s.var.name)
            for value in range(start.value, stop.value, step.value):
                self.unrolled[s.var.name] = ir.IntImm(s.var.dtype, value)
                lowered = self.nested(s.body)
                if lowered is None:
                    continue
                out.append(ir.Block(lowered) if declares(lowered) else lowered)
            if outer is None:
                del self.unrolled[s.var.name]
            else:
                self.unrolled[s.var.name] = outer
            return ir.seq(out) if out else None
        if ir.is_const(step):
            direction = 1 if step.value > 0 else -1
        else:
            direction = 1 if nonneg(step, self.nonneg_names) else 0
        if ir.is_const(start) and ir.is_const(stop) and ir.is_const(step) and \
                (start.value >= stop.value if step.value > 0 else start.value <= stop.value):
            return None  # an empty range
        body = self.nested(s.body) or ir.Seq(())
        return ir.For(s.var, start, stop, step, body, s.kind, s.unroll_factor, s.span, direction)

    # -- the kernel ---------------------------------------------------------------------------------------
    def run(self) -> LoweredKernel:
        k = self.kernel
        body = self.stmt(k.body) or ir.Seq(())
        # Renaming changes variable and array names only, so the facts of the
        # body as dropping left it answer every later question about it.
        body, facts = drop_unused(body, self.pure_calls)
        if facts.promoted:  # 8- or 16-bit integers: C's promotion made exact (lower/narrow.py)
            body = exact_stmt(body)
        self.facts = facts
        var_names = reuse_source_names(body, self.module.source, self._global_names(facts))
        _align_vector_arrays(facts, k.raised_align)
        readonly = _readonly_params(facts, k.params, body)
        params = []
        for p in k.params:
            if p.kind == "buffer" and p.buffer is not None and p.buffer.storage.name in readonly:
                p.buffer.storage.readonly = True
            params.append(p)
        workspaces = tuple(ws for ws in self.workspaces if id(ws.storage) in facts.used)
        params.extend(ir.Param(ws.storage.name, "workspace", ws.dtype, ws, ws.span) for ws in workspaces)
        arena = k.arena.storage if k.arena is not None else None
        if arena is not None and id(arena) not in facts.used:
            arena = None
        if arena is not None:
            align = max([arena.align] + [v.align for v in k.views])
            arena.align = align
        block = [self.expr(e) for e in k.block]
        threads = 1
        for e in block:
            threads = threads * e.value if isinstance(e, ir.IntImm) and threads is not None else None
        arena_map = tuple(_arena_placement(v) for v in [k.arena] + k.views if v is not None)
        spec = ir.LaunchSpec(
            name=k.name, symbol=f"{k.name}_kernel", params=tuple(params),
            grid=tuple(k.grid), block=tuple(block),  # host-side: floor division stays `//`
            static_shared_bytes=_static_shared_bytes(facts),
            dynamic_shared_bytes=max(k.arena_bytes if arena else 0, k.attrs.get("tirx.dyn_smem_bytes", 0)),
            min_blocks=k.attrs.get("tirx.launch_bounds_min_blocks_per_sm"),
            max_registers=k.attrs.get("tirx.max_registers"), cluster=k.attrs.get("tirx.cluster_dims"),
            min_arch=max(BASE_ARCH, k.min_arch), arch_suffix=k.arch_suffix, arena=arena_map,
            launch_bounds=threads or None,  # docs/design.md, decision 8: the constant block size, 1 included
            arg_order=tuple(p.name for p in k.args), tmem=tuple(self.tmem.values()),
            span=k.name_span,
            workspaces=tuple(ir.Workspace(ws.name, ws.storage.name, ws.dtype, ws.shape, ws.align, ws.span)
                             for ws in workspaces))
        return LoweredKernel(spec, body, arena, var_names, list(self.kernel.tile_dispatch))

    def _global_names(self, facts: "_Facts") -> set[str]:
        """C names visible everywhere in the kernel: parameters, storage, called functions."""
        names = {p.name for p in self.kernel.params}
        names.update(ws.storage.name for ws in self.workspaces)
        names.update(self.module.func_sources)
        names.update(ptx.HELPERS)
        if self.kernel.arena is not None:
            names.add(self.kernel.arena.storage.name)
        names.update(storage.name for storage in facts.accessed)
        names.update(facts.calls)
        names.update(storage.name for storage in facts.stored)
        names.update(storage.name for storage in facts.pointers)
        # arrays declared in the body are scoped like the variables
        names -= {storage.name for storage in facts.arrays}
        return names


class _Facts:
    """What lowering asks about a kernel body, from one walk (expressions in all_exprs
    order: `calls` lists the called functions by first call)."""

    def __init__(self) -> None:
        self.accessed: list[ir.Storage] = []  # storage of each Load, VecLoad and Address
        self.addressed: list[ir.Storage] = []  # of each Address
        self.vector_reads: list[tuple[ir.Storage, object]] = []  # (storage, vector dtype) of each VecLoad
        self.calls: dict[str, None] = {}  # called functions, in order of first call
        self.headers: set[str] = set()  # that the dtypes of the expressions, arrays and pointers need
        self.non_finite = False  # a float constant prints as an infinity or NaN
        self.promoted = False  # an 8- or 16-bit integer dtype appears (ir.promoted)
        self.stored: list[ir.Storage] = []  # storage of each Store and VecStore
        self.vector_writes: list[tuple[ir.Storage, object]] = []  # (storage, value dtype) of each VecStore
        self.pointers: list[ir.Storage] = []  # declared by PointerDecl
        self.arrays: list[ir.Storage] = []  # declared by ArrayDecl
        # ids of the storage accessed or stored into, and of the storage their views point into
        self.used: set[int] = set()
        # ids of the storage whose contents matter: read, addressed, or visible outside the
        # kernel. An array's reads inside stores into itself (`s_ptr[0] = s_ptr[0] + 1.0f`)
        # do not count: such an array is still dead when nothing else reads it.
        self.reads: set[int] = set()
        # how often each variable is read (a let's own name is no read of it; a loop's is)
        self.read_vars: dict[str, int] = {}

    def forget(self, dropped: list[ir.Stmt]) -> set[str] | None:
        """Take out what dropped statements read, when each is a `let` of plain arithmetic
        (the usual dead code: an unused thread id or index): then only variables lose
        reads. Returns the variables no longer read at all; None, changing nothing,
        when a dropped statement is anything else."""
        names = []
        for st in dropped:
            if st.__class__ is not ir.LetStmt or _header(st.var.dtype):
                return None
            for e in ir.walk_expr(st.value):
                cls = e.__class__
                if cls not in _ARITHMETIC or _header(e.dtype) or \
                        (cls is ir.FloatImm and not math.isfinite(ir.round_float(e.value, e.dtype))):
                    return None
                if cls is ir.Var:
                    names.append(e.name)
        unread = set()
        for name in names:
            left = self.read_vars[name] - 1
            if left:
                self.read_vars[name] = left
            else:
                del self.read_vars[name]
                unread.add(name)
        return unread


_ARITHMETIC = frozenset({ir.Var, ir.IntImm, ir.FloatImm, ir.Builtin, ir.BinOp, ir.UnaryOp, ir.Cast, ir.Select})
_ACCESSES = frozenset({ir.Load, ir.VecLoad, ir.Address})


def _header(dtype) -> str | None:
    """The header a dtype needs, if any."""
    return header(dtype) if dtype.kind not in ("void", "handle") else None


def _scan(body: ir.Stmt) -> _Facts:
    """The facts of a body, in one walk over its statements and expressions."""
    facts = _Facts()
    used, reads, read_vars, calls = facts.used, facts.reads, facts.read_vars, facts.calls
    dtypes: dict[int, object] = {}  # by id: hashing a dtype for every node would cost more than the rest
    last = None  # the dtype last noted: most nodes have their neighbour's
    exprs_of, leaves = ir.NODE_EXPRS, ir.LEAVES
    BinOp, Var, Call, FloatImm, VecLoad, Address = ir.BinOp, ir.Var, ir.Call, ir.FloatImm, ir.VecLoad, ir.Address
    for node in all_stmts(body):
        cls = node.__class__
        is_store = cls is ir.Store or cls is ir.VecStore
        own = node.storage if is_store and _private_array(node.storage) else None
        if cls is ir.LetStmt:
            dtypes[id(node.var.dtype)] = node.var.dtype
            stack = [node.value]  # the let's own name is not a read of it
        else:
            stack = list(exprs_of[cls](node))
            stack.reverse()
        push = stack.append
        while stack:
            e = stack.pop()
            ecls = e.__class__
            if e.dtype is not last:
                last = e.dtype
                dtypes[id(last)] = last
            if ecls is BinOp:  # the commonest node: exprs_of[BinOp] written out
                push(e.a)
                push(e.b)
                continue
            if ecls is Var:
                read_vars[e.name] = read_vars.get(e.name, 0) + 1
                continue
            if ecls in leaves:
                # No float format rounds a value within +-65504 (the largest half) to an infinity.
                if ecls is FloatImm and not facts.non_finite and not -65504.0 <= e.value <= 65504.0:
                    facts.non_finite = not math.isfinite(ir.round_float(e.value, e.dtype))
                continue
            if ecls is Call:
                calls[e.func] = None
            elif ecls in _ACCESSES:
                storage = e.storage
                facts.accessed.append(storage)
                used.add(id(storage))
                # (an address, even in a store to its own array, escapes: a call may read through it)
                if storage is not own or ecls is Address:
                    reads.add(id(storage))
                if storage.base is not None:
                    used.add(id(storage.base))
                    if storage is not own or ecls is Address:
                        reads.add(id(storage.base))
                if ecls is VecLoad:
                    facts.vector_reads.append((storage, e.dtype))
                elif ecls is Address:
                    facts.addressed.append(storage)
            stack.extend(exprs_of[ecls](e))
        if is_store:
            storage = node.storage
            facts.stored.append(storage)
            used.add(id(storage))
            if storage.base is not None:
                used.add(id(storage.base))
            if own is None:
                reads.add(id(storage))
            if cls is ir.VecStore:
                facts.vector_writes.append((storage, node.value.dtype))
        elif cls is ir.ArrayDecl:
            facts.arrays.append(node.storage)
            dtypes[id(node.storage.dtype)] = node.storage.dtype
        elif cls is ir.PointerDecl:
            facts.pointers.append(node.storage)
            dtypes[id(node.storage.dtype)] = node.storage.dtype
            reads.add(id(node.storage.base))
    facts.headers = {h for h in map(_header, dtypes.values()) if h}
    facts.promoted = any(map(ir.promoted, dtypes.values()))
    return facts


def _static_shared_bytes(facts: _Facts) -> int:
    """Bytes of the `__shared__` arrays that survived dead-code removal."""
    arrays = {id(st): st for st in facts.arrays if st.scope == "shared"}
    return sum(st.size * st.dtype.nbytes for st in arrays.values())


def align_vector_arrays(body: ir.Stmt) -> None:
    """A register or static shared array read or written as a vector (`*(float4*)r_ptr`)
    must be aligned to the vector's size; local arrays otherwise keep their natural
    alignment (docs/design.md, decision 12)."""
    _align_vector_arrays(_scan(body), {})


def _align_vector_arrays(facts: _Facts, raised: dict[ir.Storage, int]) -> None:
    need = {id(storage): (storage, align) for storage, align in raised.items()}  # by tile dispatch's variants

    def note(storage: ir.Storage, dtype) -> None:
        while storage.kind == "view_pointer" and storage.base is not None:
            storage = storage.base  # a typed view is aligned as the array it points into
        if storage.kind == "array":
            old = need.get(id(storage), (storage, 0))[1]
            need[id(storage)] = (storage, max(old, dtype.nbytes))
    for storage, dtype in facts.vector_reads + facts.vector_writes:
        note(storage, dtype)
    for storage, nbytes in need.values():
        if storage.align < nbytes:
            storage.align = nbytes


def _const_shape(buf: ir.Buffer) -> tuple[int, ...]:
    return tuple(e.value if isinstance(e, ir.IntImm) else 0 for e in buf.shape)


def _arena_placement(buf: ir.Buffer) -> ir.Placement:
    """A buffer's bytes in the arena: a typed view pointer starts `byte_offset` in, and the
    buffer's elem_offset counts from there."""
    shape = _const_shape(buf)
    if not isinstance(buf.elem_offset, ir.IntImm):
        return ir.Placement(buf.name, -1, -1, buf.dtype, shape, buf.align, buf.span)
    start = buf.elem_offset.value * buf.dtype.nbytes
    if buf.storage is not None and buf.storage.kind == "view_pointer":
        start += buf.storage.byte_offset
    return ir.Placement(buf.name, start, start + math.prod(shape) * buf.dtype.nbytes, buf.dtype, shape,
                        buf.align, buf.span)


def _tmem_placement(buf: ir.Buffer) -> ir.Placement:
    """A tensor-memory buffer's columns: from `allocated_addr` over the span of its TCol
    iters, in 32-bit cells."""
    shape = _const_shape(buf)
    cells = layouts.tmem_columns(buf.layout)
    if not isinstance(buf.allocated_addr, ir.IntImm) or cells is None:
        return ir.Placement(buf.name, -1, -1, buf.dtype, shape, 0, buf.span)
    start = buf.allocated_addr.value
    return ir.Placement(buf.name, start, start + -(-cells * buf.dtype.bits // 32), buf.dtype, shape, 0, buf.span)


# ---- statement utilities ---------------------------------------------------------------------------

_STORAGE_STMTS = frozenset({ir.Store, ir.VecStore, ir.ArrayDecl, ir.PointerDecl})
_SUFFIXED = re.compile(r"(.+)_[0-9]+")
_SUFFIXED_ARRAY = re.compile(r"(.+_ptr)_[0-9]+")  # `v_ptr_1`: the checker's second `v_ptr`


def reuse_source_names(body: ir.Stmt, source, taken: set[str]) -> dict[str, str]:
    """Give C locals back their source names where C scoping allows it.

    The checker makes every C name unique in the kernel, so the second of two
    sibling loops `for k in ...` becomes `k_1`, and a scalar declared in both
    branches of an `if` becomes `v_ptr` and `v_ptr_1`. C only needs a name to be
    unique among the declarations in scope: a loop variable, `let`, or array
    declared in a block whose name is its source name plus a numeric suffix takes
    the plain name when no declaration in scope, and nothing inside its own
    scope, already uses it. Arrays are renamed in place (Storage is shared by
    identity with every access); the new names of variables are returned, by
    their names in the body, for the printer (LoweredKernel.var_names).
    """
    renames: dict[str, str] = {}
    decided: set[int] = set()  # storages already considered (unrolled copies share them)

    def source_name(var: ir.Var) -> str | None:
        match = _SUFFIXED.fullmatch(var.name)
        span = var.span
        if match is None or span.line <= 0 or span.line != span.end_line:
            return None
        text = source.line_text(span.line)[span.col - 1:span.end_col - 1]
        base = match.group(1)
        return base if base in (text, text + "_") else None  # `half` is printed `half_`

    def names_in(stmts) -> set[str]:
        """The C names of the variables and storage that stmts declare or use."""
        out = set()
        exprs_of, leaves = ir.NODE_EXPRS, ir.LEAVES
        for st in stmts:
            for node in all_stmts(st):
                cls = node.__class__
                if cls in _STORAGE_STMTS:
                    out.add(node.storage.name)
                stack = list(exprs_of[cls](node))  # a let's variable and a loop's among them
                while stack:
                    e = stack.pop()
                    cls = e.__class__
                    if cls is ir.Var:
                        out.add(renames.get(e.name, e.name))
                    elif cls not in leaves:
                        if cls in _ACCESSES:
                            out.add(e.storage.name)
                        stack.extend(exprs_of[cls](e))
        return out

    def stmts_in(first: ir.Stmt, rest):
        """first, then the statements of `rest`: (statement tuple, start index) pairs."""
        yield first
        for items, start in rest:
            for index in range(start, len(items)):
                yield items[index]

    def free(want: str, visible: "_Scope", scope_stmts) -> bool:
        return want not in visible and want not in taken and want not in names_in(scope_stmts)

    def declare(var: ir.Var, visible: "_Scope", scope_stmts) -> None:
        if var.name not in renames:  # else a copy of an unrolled body: decided once
            want = source_name(var)
            if want is not None and free(want, visible, scope_stmts):
                renames[var.name] = want
        visible.add(renames.get(var.name, var.name))

    def declare_array(storage: ir.Storage, visible: "_Scope", scope_stmts) -> None:
        if id(storage) not in decided:
            decided.add(id(storage))
            match = _SUFFIXED_ARRAY.fullmatch(storage.name)
            if match is not None and free(match.group(1), visible, scope_stmts):
                storage.name = match.group(1)
        visible.add(storage.name)

    def visit(st: ir.Stmt, visible: "_Scope", rest=()) -> None:
        """`rest`: the statements after st in its scope (a let's scope runs to their
        end), as (statement tuple, start index) pairs, innermost first."""
        cls = st.__class__
        if cls is ir.Seq:
            body = st.body
            for i, item in enumerate(body):
                visit(item, visible, ((body, i + 1),) + rest)
            return
        if cls is ir.For:
            visible = _Scope(visible)  # the loop's own: its variable, then its body
            declare(st.var, visible, (st,))
        elif cls is ir.LetStmt:
            declare(st.var, visible, stmts_in(st, rest))
        elif cls is ir.ArrayDecl:
            declare_array(st.storage, visible, stmts_in(st, rest))
        elif cls is ir.PointerDecl:
            visible.add(st.storage.name)
        if cls is ir.For:
            visit(st.body, visible)
        elif cls is ir.Block or cls is ir.While:
            visit(st.body, _Scope(visible))
        elif cls is ir.If:
            visit(st.then, _Scope(visible))
            if st.orelse is not None:
                visit(st.orelse, _Scope(visible))

    visit(body, _Scope(None))
    return renames


class _Scope:
    """The C names declared in a block, and through `outer` those of the
    blocks around it (a nested block does not copy them)."""
    __slots__ = ("names", "outer")

    def __init__(self, outer: "_Scope | None"):
        self.names: set[str] = set()
        self.outer = outer

    def add(self, name: str) -> None:
        self.names.add(name)

    def __contains__(self, name: str) -> bool:
        scope = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.outer
        return False


def _impure_calls(e: ir.Expr, pure) -> list[ir.Expr]:
    """What must still run of e when its value is dropped, in evaluation order: the
    outermost calls that may have side effects, and whole any conditional (`?:`,
    `&&`, `||`) with such a call in a part the source may skip, so that the call
    runs only when the source evaluates it."""
    cls = e.__class__
    if cls is ir.Call and e.func not in pure:
        return [e]
    if (cls is ir.Select and (_impure_calls(e.a, pure) or _impure_calls(e.b, pure))) or \
            (cls is ir.BinOp and e.op in ("&&", "||") and _impure_calls(e.b, pure)):
        return [e]
    out = []
    for x in ir.NODE_EXPRS[e.__class__](e):
        out.extend(_impure_calls(x, pure))
    return out


def drop_unused(body: ir.Stmt, pure=PURE_CALLS) -> tuple[ir.Stmt, _Facts]:
    """Remove declarations nothing reads (nvcc warns about them), until none is left.
    Calls with side effects in a dropped value stay, as statements. Returns the body
    left and its facts."""
    facts = _scan(body)
    while True:
        used, reads, read_vars = facts.used, facts.reads, facts.read_vars  # as facts is now

        def keep(node):
            cls = node.__class__
            if cls is ir.LetStmt:
                return node.var.name in read_vars
            if cls is ir.ArrayDecl:
                return id(node.storage) in reads
            if cls is ir.PointerDecl:
                return id(node.storage) in used
            if (cls is ir.Store or cls is ir.VecStore) and _private_array(node.storage):
                return id(node.storage) in reads
            return True

        def effects(node) -> list[ir.Stmt]:
            calls = [c for e in ir.stmt_exprs(node) for c in _impure_calls(e, pure)]
            return [ir.Evaluate(c, c.span) for c in calls]
        changed: list = []
        body = _filter(body, keep, effects, changed)
        if not changed:  # nothing dropped: body is as it was
            return body, facts
        # keep() asks only whether a variable or storage is read or used at all: when
        # dropping left that as it was, another filter would drop nothing (and what is
        # left has nothing empty).
        unread = facts.forget(changed)
        if unread is None:
            before, facts = facts, _scan(body)
            if (facts.used, facts.reads, facts.read_vars.keys()) == \
                    (before.used, before.reads, before.read_vars.keys()):
                return body, facts
        elif not unread:
            return body, facts


def _private_array(storage: ir.Storage) -> bool:
    """A register or static shared array: only this kernel's own loads can observe
    it, so stores nobody reads are dead (nvcc: "set but never used")."""
    return storage.kind == "array" and storage.scope in ("local", "shared")


def _filter(s: ir.Stmt, keep, effects, changed: list) -> ir.Stmt:
    """Drop what `keep` rejects (keeping the `effects` of what is dropped), then
    statements left with nothing to do; appends each dropped statement to `changed`.
    A statement in which nothing is dropped comes back as it is."""
    cls = s.__class__
    if cls is ir.Seq:
        items = []
        same = True
        for x in s.body:
            if not keep(x):
                changed.append(x)
                items.extend(effects(x))
                same = False
                continue
            if x.__class__ not in _COMPOUND:  # kept, and nothing in it to drop or left empty
                items.append(x)
                continue
            y = _filter(x, keep, effects, changed)
            if _empty(y):
                changed.append(y)
                same = False
            else:
                items.append(y)
                same = same and y is x
        return s if same else ir.Seq(tuple(items), s.span)
    if cls is ir.Block:
        body = _filter(s.body, keep, effects, changed)
        return s if body is s.body else ir.Block(body, s.span)
    if cls is ir.For or cls is ir.While:
        body = _filter(s.body, keep, effects, changed)
        return s if body is s.body else replace(s, body=body)
    if cls is ir.If:
        then = _filter(s.then, keep, effects, changed)
        orelse = _filter(s.orelse, keep, effects, changed) if s.orelse else None
        return s if then is s.then and orelse is s.orelse else replace(s, then=then, orelse=orelse)
    if keep(s):
        return s
    changed.append(s)
    return ir.seq(effects(s))


_COMPOUND = frozenset({ir.Seq, ir.Block, ir.For, ir.While, ir.If})  # the statements holding statements


def _empty(s: ir.Stmt) -> bool:
    """A statement without effect: an empty block, or a `for` / `if` whose bodies are
    empty and whose bounds or condition call nothing (a `while` may never end: kept)."""
    cls = s.__class__
    if cls is ir.Seq:
        return all(_empty(x) for x in s.body)
    if cls is ir.Block:
        return _empty(s.body)
    if cls is ir.For:
        return _empty(s.body) and _pure(s.start, s.stop, s.step)
    if cls is ir.If:
        return _empty(s.then) and (s.orelse is None or _empty(s.orelse)) and _pure(s.cond)
    return False


def _pure(*exprs: ir.Expr) -> bool:
    return not any(isinstance(x, ir.Call) for e in exprs for x in ir.walk_expr(e))


def _readonly_params(facts: _Facts, params, body: ir.Stmt) -> set[str]:
    # a pointer may be written through, a store through a view writes its bases, a TMA store its buffer
    written = {s.name for s in facts.stored + facts.addressed for s in (s, s.base, s.base and s.base.base) if s}
    written.update(written_through_maps(body, params) | written_by_ptx_outputs(body))
    return {p.name for p in params if p.kind == "buffer" and p.name not in written}


# ---- the program --------------------------------------------------------------------------------------

def lower(module: CheckedModule, diags: Diagnostics) -> Program:
    lowerers = [KernelLowerer(k, module, diags) for k in module.kernels]
    kernels = [lowerer.run() for lowerer in lowerers]
    helpers: list[str] = []
    needed: set[str] = set()  # headers
    non_finite = printf = False
    for lowerer, lk in zip(lowerers, kernels):
        facts = lowerer.facts
        for func in facts.calls:
            if ptx.is_helper(func) and func.split("<", 1)[0] not in helpers:
                helpers.append(func.split("<", 1)[0])
        printf = printf or "printf" in facts.calls
        non_finite = non_finite or facts.non_finite
        needed |= facts.headers
        needed.update(h for h in map(_header, (p.dtype for p in lk.spec.params)) if h)
    if non_finite:  # printed as CUDART_INF_F / CUDART_NAN_F
        needed.add("math_constants.h")
    if printf:
        needed.add("cstdio")  # nvcc needs it; NVRTC has printf built in (the template guards it)
    order = ["cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h", "math_constants.h", "cstdio"]
    headers = sorted(needed, key=order.index)
    # the fixed helpers in table order first, then PTX wrappers by first use
    helpers.sort(key=lambda h: (list(ptx.HELPERS).index(h) if h in ptx.HELPERS else len(ptx.HELPERS)))
    archs = [ptx.helper_arch(h) for h in helpers]
    min_arch = max([BASE_ARCH] + [k.spec.min_arch for k in kernels] + [a for a, _ in archs])
    suffix = "a" if any(k.spec.arch_suffix == "a" for k in kernels) or any(s == "a" for _, s in archs) else ""
    used = {name for source in module.func_sources.values() for name in fixed_width_names(source)}
    return Program(module.source.name, kernels, dict(module.func_sources), helpers, headers, min_arch, suffix,
                   func_lines=_func_source_lines(module, kernels), fixed_width=[n for n in FIXED_WIDTH if n in used])


def _func_source_lines(module: CheckedModule, kernels: list[LoweredKernel]) -> dict[str, int]:
    """Where each `T.cuda.func_call` source starts in the .tx file, for `--line-info`: the
    line of the first character of the string, when the source stands verbatim in the file
    (a plain or raw string without escapes, so that its lines are the file's lines); else
    the line of the function's first call."""
    text = module.source.text
    lines: dict[str, int] = {}
    for name, source in module.func_sources.items():
        start = text.find(source)
        while start > 0 and text[start - 1] not in "\"'":
            start = text.find(source, start + 1)
        if start > 0:
            lines[name] = text.count("\n", 0, start) + 1
            continue
        calls = [e.span.line for lk in kernels for e in all_exprs(lk.body)
                 if isinstance(e, ir.Call) and e.func == name and e.span.line > 0]
        if calls:
            lines[name] = min(calls)
    return lines
