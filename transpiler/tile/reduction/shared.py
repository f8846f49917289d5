"""The reduction variant `shared` (docs/tile-primitives.md, ## reductions): src and dst in shared
memory. Groups of g lanes (g = the reduced length rounded up to a power of two, at most 32 and the
scope's thread count) each fold one output: the lanes gather the reduced elements round-robin, a
shuffle tree of width g combines them, lane 0 writes; the scope then synchronises. At thread
scope, a sequential loop."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import UINT32
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import loop, scope_sync
from transpiler.tile.reduction.common import Reduce, at, combine, identity, memories, parse, put, scratch
from transpiler.tile.reduction.registers import sequential
from transpiler.tile import regions


in_shared = memories("shared", "src and dst are in shared memory")


def lower_shared(call: ir.TileCall, cx) -> ir.Stmt:
    return shared_body(parse(call), cx)


def group_size(reduce_len: int, threads: int) -> int:
    """The lanes that fold one output: the reduced length rounded up to a power of two, at most
    32 and a power of two that divides the scope's thread count."""
    g = 1
    while g < reduce_len and g < 32 and threads % (g * 2) == 0:
        g *= 2
    return g


def shared_body(r: Reduce, cx) -> ir.Stmt:
    if cx.scope == "thread":
        return sequential(r, cx)
    dtype = r.src.buffer.dtype
    threads = cx.scope_threads()
    g = group_size(r.reduce_len, threads)
    par = threads // g
    alloc, acc = scratch(cx, "thread_data", dtype)
    tid_var, tid_let = cx.let("tid_in_scope", cx.thread_in(), nonneg=True)
    group = ir.binop("floordiv", tid_var, c(g))
    lane = ir.binop("floormod", tid_var, c(g))

    def per_step(step):
        spa = ir.add(ir.mul(step, c(par)), group)
        body = [put(acc, 0, identity(r.op, dtype))]

        def gather(t):
            red = ir.add(ir.mul(t, c(g)), lane)
            stmt = put(acc, 0, combine(r.op, at(acc, 0), regions.load(r.src, r.src_coords(spa, red))))
            return stmt if r.reduce_len % g == 0 else ir.If(ir.binop("<", red, c(r.reduce_len)), stmt, None)
        body.append(loop(cx, "t", -(-r.reduce_len // g), gather, unroll=-(-r.reduce_len // g) <= 8))
        mask = ir.Call(UINT32, "__activemask", ())
        k = 1
        while k < g:
            shuffled = ir.Call(dtype, "__shfl_xor_sync", (mask, at(acc, 0), c(k), c(g)) if g < 32 else
                               (mask, at(acc, 0), c(k)))
            body.append(put(acc, 0, combine(r.op, at(acc, 0), shuffled)))
            k *= 2
        coords = r.dst_coords(spa)
        value = combine(r.op, regions.load(r.dst, coords), at(acc, 0)) if r.accum else at(acc, 0)
        write = regions.store(r.dst, coords, value)
        body.append(write if g == 1 else ir.If(ir.binop("==", lane, c(0)), write, None))
        stmt = ir.Seq(tuple(body))
        if r.spatial_len % par:
            stmt = ir.If(ir.binop("<", spa, c(r.spatial_len)), stmt, None)
        return stmt
    steps = -(-r.spatial_len // par)
    return ir.Seq((alloc, tid_let, loop(cx, "step", steps, per_step), scope_sync(cx)))

