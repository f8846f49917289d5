"""`copy_async` global -> shared with `cp.async` (LDGSTS): the scope's threads share the region's
vectors round-robin (`[outer, threads, vec]`, the partition of copy's gmem_smem variant), each
vector one 4-, 8- or 16-byte `cp.async`; nothing waits (the caller commits and waits).

Options, as TIRx: `predicate=` (a value; where it is 0 nothing is copied, or with
`fill_mode="zero"` the vector is filled with zeros instead: `cp.async`'s src-size 0),
`prefetch_size=` (64, 128 or 256: the `.L2::<n>B` prefetch), `direct=True` (thread scope: the
region is one 4-, 8- or 16-byte vector, copied from the region starts as it is)."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import HANDLE, UINT32
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import address, bool_option, int_option, options_of, ptx_call
from transpiler.tile.registry import Decline

OPTIONS = ("predicate", "fill_mode", "prefetch_size", "direct")
CP_SIZES = (16, 8, 4)  # bytes, widest first


def ldgsts(call: ir.TileCall, cx) -> ir.Stmt:
    dst, src = call.operand("dst"), call.operand("src")
    opts = options_of(call, OPTIONS, "ldgsts")
    issue = _issuer(cx, opts)
    dtype = dst.buffer.dtype
    if bool_option(opts, "direct"):
        if call.scope != "thread":
            raise Decline("`direct=True` copies one vector per thread: call it at thread scope (`Tx.copy_async`)")
        nbytes = regions.num_elements(dst) * dtype.nbytes
        if nbytes not in CP_SIZES:
            raise Decline(f"`direct=True` copies a 4-, 8- or 16-byte region; this one is {nbytes} bytes")
        return issue(address(dst, dst.starts), address(src, src.starts), nbytes)
    threads = cx.scope_threads()
    count = regions.num_elements(dst)
    sides = [plan.affine(dst), plan.affine(src)]
    if None in sides:
        if dtype.nbytes not in CP_SIZES:
            raise Decline("an operand's layout is not affine, and one element is not a 4-, 8- or 16-byte copy")
        lanes, runs = 1, None
    else:
        runs = plan.merge(regions.squeezed(dst), [s.strides for s in sides])
        lanes, why = 0, None
        for size in CP_SIZES:
            if size % dtype.nbytes or size < dtype.nbytes:
                continue
            why = _fits(cx, dtype, size // dtype.nbytes, runs, sides)
            if why is None:
                lanes = size // dtype.nbytes
                break
        if not lanes:
            raise Decline(f"no 4-, 8- or 16-byte vector fits: {why}")
    tid = cx.thread_in()
    chunks = count // lanes
    nbytes = lanes * dtype.nbytes

    def body(f):
        q = ir.add(ir.mul(f, c(threads)), tid) if threads > 1 else f
        first = ir.mul(q, c(lanes))
        if runs is not None:
            index = plan.split(first, runs.extents)
            at = [plan.offset(side.base, index, strides) for side, strides in zip(sides, runs.strides)]
            move = issue(ir.BufferAddress(HANDLE, sides[0].flat, (at[0],), dst.span),
                         ir.BufferAddress(HANDLE, sides[1].flat, (at[1],), src.span), nbytes)
        else:
            move = issue(address(dst, regions.coords_of(dst, first)), address(src, regions.coords_of(src, first)),
                         nbytes)
        if chunks % threads:  # the last round: only some threads have a vector
            return ir.If(ir.binop("<", q, c(chunks)), move, None, call.span)
        return move

    rounds = -(-chunks // threads)
    return cx.loop("f", rounds, body, "unroll" if rounds <= 16 else "serial")


def _fits(cx, dtype, lanes: int, runs, sides) -> str | None:
    """None when vectors of `lanes` elements along the runs are contiguous and aligned on both
    sides (copy_plan.vector_fits, without asking for a C vector type: cp.async moves bytes)."""
    nbytes = lanes * dtype.nbytes
    if not runs.extents:
        return "the region has one element" if lanes > 1 else None
    inner = runs.extents[-1]
    if inner % lanes:
        return f"the contiguous run of {inner} elements is not a multiple of {lanes}"
    for side, strides in zip(sides, runs.strides):
        name = side.region.buffer.name
        if lanes > 1 and not ir.is_const(strides[-1], 1):
            return f"`{name}` is not contiguous along the region's last dimension"
        if side.chunk and side.chunk < lanes:
            return f"`{name}`'s swizzle keeps only {side.chunk} elements together"
        if not all(plan.multiple_of(s, lanes) for s in strides[:-1]) or not plan.multiple_of(side.base, lanes):
            return f"`{name}`'s rows do not start at multiples of {nbytes} bytes"
        if not plan.multiple_of(side.flat.elem_offset, lanes):
            return f"`{name}` does not start at a multiple of {nbytes} bytes"
        if cx.alignment(side.flat) < nbytes:
            return f"`{name}` is only {cx.alignment(side.flat)}-byte aligned"
    return None


def _issuer(cx, opts: dict):
    """A function (shared address, global address, bytes) -> the cp.async statement."""
    prefetch = int_option(opts, "prefetch_size", -1)
    if prefetch not in (-1, 64, 128, 256):
        raise Decline(f"`prefetch_size=` is 64, 128 or 256, not {prefetch}")
    fill = opts.get("fill_mode", "")
    if fill not in ("", "zero", None):
        raise Decline(f"`fill_mode=` is \"zero\" (or absent), not {fill!r}")
    pred = opts.get("predicate")
    if isinstance(pred, ir.IntImm) and pred.value == -1 or pred == -1:
        pred = None
    if fill == "zero" and pred is None:
        raise Decline("`fill_mode=\"zero\"` fills where `predicate=` is 0: give the predicate")
    if pred is not None:
        if isinstance(pred, bool) or isinstance(pred, int):
            pred = ir.IntImm(UINT32, int(bool(pred)))
        elif not isinstance(pred, ir.Expr) or not (pred.dtype.is_int or pred.dtype.is_bool):
            raise Decline("`predicate=` must be an integer or bool value")
    suffix = f".L2::{prefetch}B" if prefetch != -1 else ""

    def issue(shared, glob, nbytes):
        mnemonic = f"cp.async.{'cg' if nbytes == 16 else 'ca'}.shared.global{suffix}"
        if pred is None:
            return ptx_call(cx, mnemonic, shared, glob, nbytes)
        test = ir.binop("!=", pred, ir.IntImm(pred.dtype, 0)) if not pred.dtype.is_bool else pred
        if fill == "zero":
            size = ir.select(test, ir.IntImm(UINT32, nbytes), ir.IntImm(UINT32, 0))
            return ptx_call(cx, mnemonic, shared, glob, nbytes, size)
        return ptx_call(cx, mnemonic, shared, glob, nbytes, pred=ir.cast(UINT32, test))
    return issue
