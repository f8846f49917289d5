"""`copy_async` from this CTA's shared memory into another CTA's of the cluster (distributed shared
memory): one thread maps the destination and its mbarrier into the peer's window (`mapa`) and
issues `cp.async.bulk.shared::cluster.shared::cta` per contiguous chunk; the peer's mbarrier
counts the bytes (the caller arms it with expect_tx and waits). Options: `remote_cta_id=` (the
peer's rank in the cluster) and `mbar=` (the mbarrier, at the same offset in the peer)."""
from __future__ import annotations

from math import prod

from transpiler import ir
from transpiler.target.dtypes import HANDLE, UINT32, UINT64
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import address_option, options_of, ptx_call, seq, value_option
from transpiler.tile.registry import Decline, check

OPTIONS = ("mbar", "remote_cta_id")
BULK = "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
MAX_CHUNKS = 256  # bulk copies one call may unroll into


@check("the kernel runs in clusters")
def in_cluster(call, cx):
    return None if cx.threads.cluster is not None else "the kernel is not launched in clusters"


def dsmem(call: ir.TileCall, cx) -> ir.Stmt:
    dst, src = call.operand("dst"), call.operand("src")
    opts = options_of(call, OPTIONS, "dsmem")
    if opts.get("mbar") is None:
        raise Decline("`dsmem` needs `mbar=`, the mbarrier the peer CTA waits on")
    mbar = address_option(opts, "mbar", "the address of an mbarrier in shared memory")
    rank = value_option(opts, "remote_cta_id", "uint32")
    if rank is None:
        raise Decline("`dsmem` needs `remote_cta_id=`, the rank of the CTA that receives the data")
    dtype = dst.buffer.dtype
    sides = [plan.affine(dst), plan.affine(src)]
    if None in sides:
        raise Decline("an operand's layout is not one stride per dimension")
    if any(side.chunk for side in sides):
        raise Decline("bulk copies of swizzled shared buffers are not supported yet")
    runs = plan.merge(regions.squeezed(dst), [s.strides for s in sides])
    if not runs.extents or any(not ir.is_const(st[-1], 1) for st in runs.strides):
        chunk = 1
    else:
        chunk = runs.extents[-1]
    nbytes = chunk * dtype.nbytes
    if nbytes < 16 or nbytes % 16:
        raise Decline(f"the contiguous chunk is {nbytes} bytes; a bulk copy moves a multiple of 16 bytes")
    unit = max(1, 16 // dtype.nbytes)
    for side, strides in zip(sides, runs.strides):
        if (not all(plan.multiple_of(s, unit) for s in strides[:-1]) or not plan.multiple_of(side.base, unit)
                or not plan.multiple_of(side.flat.elem_offset, unit) or not plan.aligned_storage(cx, side.flat, 16)):
            raise Decline(f"the chunks of `{side.region.buffer.name}` do not start at multiples of 16 bytes")
    count = prod(runs.extents[:-1])
    if count > MAX_CHUNKS:
        raise Decline(f"the copy needs {count} bulk copies; at most {MAX_CHUNKS} are unrolled")
    name = cx.names.fresh("mapped")
    storage = ir.Storage(name, UINT64, "local", "array", 2)
    mapped = ir.Buffer(name, (c(2),), UINT64, "local", storage, span=call.span)

    def reg(k):
        return ir.BufferLoad(UINT64, mapped, (c(k),), call.span)

    stmts = [ir.Allocate(mapped, call.span), ptx_call(cx, "mapa.u64", reg(0), mbar, rank, span=call.span)]
    for k in range(count):
        index = plan.split(c(k * chunk), runs.extents)
        at = [plan.offset(side.base, index, strides) for side, strides in zip(sides, runs.strides)]
        peer = ir.BufferAddress(HANDLE, sides[0].flat, (at[0],), dst.span)
        stmts.append(ptx_call(cx, "mapa.u64", reg(1), peer, rank, span=call.span))
        stmts.append(ptx_call(cx, BULK, ir.Cast(HANDLE, reg(1), call.span),
                              ir.BufferAddress(HANDLE, sides[1].flat, (at[1],), src.span),
                              ir.IntImm(UINT32, nbytes), ir.Cast(HANDLE, reg(0), call.span), span=call.span))
    return seq(stmts)
