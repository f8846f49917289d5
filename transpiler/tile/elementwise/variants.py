"""The elementwise family's variants (docs/tile-primitives.md, ## elementwise):

- `reg`: every operand in registers. A register buffer spread over threads by its layout is
  processed where it lies: each thread computes the elements it holds (the partition the layout
  induces, regions.partition), reading each input from its own registers. A plain per-thread
  register buffer (no thread axes) is the thread's own: only a thread-scope call may take one
  as dst, and it loops over all of it.
- `smem`: every operand in shared memory; the scope's threads take the elements round-robin
  (thread t takes elements t, t + T, t + 2T ...; consecutive threads, consecutive elements),
  then the scope synchronises (`__syncwarp`, a warpgroup barrier, `__syncthreads`), as TIRx's
  smem variant does, so the result is visible to every thread of the scope.

The ops' arithmetic is in elementwise_ops.py; the f32x2 forms of sm_100 in elementwise_packed.py."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.tile import regions
from transpiler.tile.checks import all_threads_active, cooperative_scope
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import SCOPE_AXES, aligned, bind_scalars, element, held_elements, loop, scope_sync, store, unflatten
from transpiler.tile.elementwise.ops import OPS, Plan, broadcast_reason, extents, plan
from transpiler.tile.elementwise.packed import packed
from transpiler.tile.registry import Check, check, variant

@check("the operands are buffer regions or scalars that match dst")
def parses(call, cx):
    p = plan(call)
    if isinstance(p, str):
        return p
    for name, value in p.inputs:
        if isinstance(value, ir.TileRegion):
            reason = broadcast_reason(p.dst, value, name)
            if reason:
                return reason
    return None


def _memory(wanted: str, says: str) -> Check:
    def test(call, cx):
        p = plan(call)
        if isinstance(p, str):
            return p
        for name, region in [("dst", p.dst)] + [(n, v) for n, v in p.inputs if isinstance(v, ir.TileRegion)]:
            if regions.memory(region) != wanted:
                return f"{name} is in {regions.memory(region)} memory"
        return None
    return Check(says, test)


in_registers = _memory("local", "every operand is in registers (local)")
in_shared = _memory("shared", "every operand is in shared memory")


@check("dst's register layout fits the scope, and each thread holds the inputs of its elements")
def register_layouts(call, cx):
    p = plan(call)
    if isinstance(p, str):
        return p
    return layout_reason(p, call.scope)


def layout_reason(p: Plan, scope: str) -> str | None:
    dst = p.dst.buffer
    if not regions.is_distributed(dst):
        if scope != "thread":
            return (f"dst is a per-thread register buffer (no thread axes in its layout): call it at thread "
                    f"scope, or give it a layout over the {scope}'s threads")
        for name, value in p.inputs:
            if isinstance(value, ir.TileRegion) and regions.is_distributed(value.buffer):
                return f"{name} is spread over threads but dst is not"
        return None
    if dst.layout.swizzle is not None or dst.const_shape() is None:
        return "dst's register layout is not constant"
    axes = set(layouts.thread_axes(dst.layout))
    allowed = SCOPE_AXES.get(scope)
    if allowed is not None and not axes <= allowed:
        return f"dst's layout spreads it over `{sorted(axes - allowed)[0]}`, beyond the {scope}"
    for name, value in p.inputs:
        if isinstance(value, ir.TileRegion) and regions.is_distributed(value.buffer):
            reason = aligned(p.dst, value, name)
            if reason:
                return reason
    return None


# -- the variants ------------------------------------------------------------------------------

@variant(OPS + ("binary_chain",), "reg", priority=10, when=(all_threads_active, parses, in_registers, register_layouts))
def lower_reg(call: ir.TileCall, cx) -> ir.Stmt:
    p = plan(call)
    lowered = packed(call, p, cx)
    if lowered is not None:
        return lowered
    pre, values = bind_scalars(p, cx)
    return ir.Seq(tuple(pre) + (reg_body(p, cx, values),))


def reg_body(p: Plan, cx, values: dict) -> ir.Stmt:
    """dst's elements this thread computes: the ones it holds, or all of a per-thread buffer."""
    dst = p.dst
    if regions.is_distributed(dst.buffer):
        stmts = []
        regs = regions.registers(dst.buffer)
        for _, index, own, guard in held_elements(p, cx):
            value = element(p, index, values, own=own)
            stmt = ir.BufferStore(regs, (c(own["dst"]),), ir.cast(dst.buffer.dtype, value), dst.span)
            stmts.append(stmt if guard is True else ir.If(guard, stmt, None))
        return ir.Seq(tuple(stmts))

    def one(i):
        index = unflatten(i, extents(dst))
        return store(dst, tuple(ir.add(s, k) for s, k in zip(dst.starts, index)), element(p, index, values))
    return loop(cx, "i", regions.num_elements(dst), one, unroll=True)


@variant(OPS + ("binary_chain",), "smem", priority=10, when=(all_threads_active, parses, in_shared, cooperative_scope))
def lower_smem(call: ir.TileCall, cx) -> ir.Stmt:
    p = plan(call)
    pre, values = bind_scalars(p, cx)
    return ir.Seq(tuple(pre) + (smem_body(p, cx, values), scope_sync(cx)))


def smem_body(p: Plan, cx, values: dict) -> ir.Stmt:
    """Each thread takes `vec` consecutive elements per round, the partition the shared-memory copy
    variants use (TIRx's), so a thread works on the elements it copied in: no barrier is needed
    between a `Tx.cta.copy` into shared memory and the elementwise op over it."""
    dst = p.dst
    threads = cx.scope_threads()
    total = regions.num_elements(dst)
    tid = cx.thread_in()
    vec = _chunk(p, total, threads)

    def one(s):
        def lane(k):
            flat = ir.add(ir.add(ir.mul(s, c(vec * threads)), ir.mul(tid, c(vec))), k)
            index = unflatten(flat, extents(dst))
            stmt = store(dst, tuple(ir.add(st, i) for st, i in zip(dst.starts, index)), element(p, index, values))
            if total % (threads * vec):
                stmt = ir.If(ir.binop("<", flat, c(total)), stmt, None)
            return stmt
        return loop(cx, "k", vec, lane, unroll=True)
    rounds = -(-total // (threads * vec))
    return loop(cx, "s", rounds, one, unroll=rounds <= 8)


def _chunk(p: Plan, total: int, threads: int) -> int:
    """The widest chunk of up to 16 bytes that divides each thread's share and every operand's
    innermost extent (1 when the threads do not share the elements evenly)."""
    if total % threads:
        return 1
    bits = max(r.buffer.dtype.bits for r in p.regions())
    inners = [r.extents[-1].value for r in p.regions() if isinstance(r.extents[-1], ir.IntImm)]
    for width in (128, 64, 32, 16, 8):
        n = width // bits
        if n >= 1 and (total // threads) % n == 0 and all(i % n == 0 for i in inners):
            return n
    return 1


