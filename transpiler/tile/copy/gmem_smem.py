"""`copy` between global and shared memory (`gmem_smem`): the scope's threads share the region's
vectors round-robin (`[outer, threads, vec]`), each vector one 16-, 8-, 4- or 2-byte access where
both sides keep it contiguous and aligned (docs/tile-primitives.md, copy)."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy.vec_forced import hinted_load
from transpiler.tile.registry import Decline


def gmem_smem(call: ir.TileCall, cx) -> ir.Stmt:
    return synthesized(call, cx, cx.scope_threads(), cx.thread_in())


def synthesized(call: ir.TileCall, cx, threads: int, tid: ir.Expr) -> ir.Stmt:
    """`threads` threads (this one is `tid`) copy src to dst, vector by vector, round-robin."""
    dst, src = call.operand("dst"), call.operand("src")
    dtype = dst.buffer.dtype
    extents = regions.squeezed(dst)
    count = regions.num_elements(dst)
    forced = plan.forced_width(call)
    if isinstance(forced, str):
        raise Decline(forced)
    sides = [plan.affine(dst), plan.affine(src)]
    lanes, runs, why = 1, None, None
    if None not in sides:
        runs = plan.merge(extents, [s.strides for s in sides])
        for width in plan.widths(dtype, forced):
            why = plan.vector_fits(cx, dtype, width, runs, sides) if width > 1 else None
            if why is None:
                lanes = width
                break
    elif forced not in (None, 1):
        why = "an operand's layout is not affine, so it is copied element by element"
    if forced is not None and lanes != forced:
        raise Decline(f"`vec_len={forced}` does not fit: {why}")
    chunks = count // lanes

    bind = None
    if not isinstance(tid, (ir.IntImm, ir.Var, ir.Builtin)):
        tid, bind = cx.let("tid", tid)

    def body(f):
        q = ir.add(ir.mul(f, c(threads)), tid) if threads > 1 else f
        move = transfer(dst, src, sides, runs, ir.mul(q, c(lanes)), lanes, call, cx)
        if chunks % threads:  # the last round: only the first chunks % threads threads have a vector
            return ir.If(ir.binop("<", q, c(chunks)), move, None, call.span)
        return move

    loop = cx.loop("f", -(-chunks // threads), body)
    return loop if bind is None else ir.Seq((bind, loop), call.span)


def transfer(dst: ir.TileRegion, src: ir.TileRegion, sides, runs, first: ir.Expr, lanes: int, call=None,
             cx=None) -> ir.Stmt:
    """Elements first .. first + lanes - 1 of the region (row-major), src to dst; a load from
    global memory into registers with cache hints (`cache="nc"` ...) is one PTX ld."""
    if runs is not None:
        index = plan.split(first, runs.extents)
        d, s = sides
        at_dst = plan.offset(d.base, index, runs.strides[0])
        at_src = plan.offset(s.base, index, runs.strides[1])
        if call is not None and regions.memory(dst) == "local":
            hinted = hinted_load(call, cx, src, src.buffer.dtype, lanes, s.flat, at_src, d.flat,
                                 ir.add(d.flat.elem_offset, at_dst))
            if hinted is not None:
                return hinted
        value = plan.vec_load(src.buffer.dtype, lanes, s.flat, at_src, src.span)
        return plan.vec_store(d.flat, at_dst, value, dst.span)
    return regions.store(dst, regions.coords_of(dst, first), regions.load(src, regions.coords_of(src, first)))
