"""The elementwise variant `smem` (docs/tile-primitives.md, ## elementwise): every operand in shared
memory; the scope's threads take the elements in rounds of chunks of `vec` consecutive elements
(thread t the t-th chunk of each round: consecutive threads, consecutive chunks), then the scope
synchronises (`__syncwarp`,
a warpgroup barrier, `__syncthreads`), as TIRx's smem variant does, so the result is visible to
every thread of the scope."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import bind_scalars, element, loop, scope_sync, store, unflatten
from transpiler.tile.elementwise.ops import Plan, extents, plan


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
