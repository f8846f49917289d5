"""`copy` to and from registers (`reg`): a register buffer spread over threads by its layout's thread
axes is copied by each thread for the elements it holds (the partition is the layout's, not a
synthesized one), vectorized where the thread's registers and the other side are both contiguous;
a thread-scope copy of a thread's own registers is the round-robin copy of one thread."""
from __future__ import annotations

from itertools import product

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy.gmem_smem import synthesized
from transpiler.tile.copy.vec_forced import hinted_load
from transpiler.tile.registry import Decline, check

# The thread axes a register layout may spread over at each scope: those that stay inside it.
SCOPE_AXES = {"thread": (), "warp": ("laneid",), "warpgroup": ("laneid", "wid_in_wg", "tid_in_wg"),
              "cta": ("laneid", "warpid", "wid_in_wg", "tid_in_wg", "wgid", "tx")}
AXIS_RANGE = {"laneid": 32, "tid_in_wg": 128, "wid_in_wg": 4}  # the values an axis takes


@check("one side is in registers (local)")
def has_registers(call, cx):
    dst, src = call.operand("dst"), call.operand("src")
    if "local" not in (regions.memory(dst), regions.memory(src)):
        return f"it copies {regions.memory(src)} to {regions.memory(dst)}"
    if "tmem" in (regions.memory(dst), regions.memory(src)):
        return "one side is in tensor memory"
    return None


def reg(call: ir.TileCall, cx) -> ir.Stmt:
    dst, src = call.operand("dst"), call.operand("src")
    spread = [r for r in (dst, src) if regions.memory(r) == "local" and regions.is_distributed(r.buffer)]
    if not spread:
        if call.scope == "thread":
            return synthesized(call, cx, 1, c(0))
        if regions.memory(dst) == "local" and regions.memory(src) != "local":
            return synthesized(call, cx, 1, c(0))  # each thread loads the whole region into its registers
        raise Decline(f"the registers are not spread over the {call.scope}'s threads (their layout has "
                      f"no thread axes), so every thread would write the whole region")
    if call.scope == "thread":
        raise Decline("a register buffer spread over threads is copied at the scope of its threads, "
                      "not at thread scope")
    if len(spread) == 2:
        return _registers_to_registers(call, cx, dst, src)
    r = spread[0]
    other = src if r is dst else dst
    if regions.memory(other) == "local":
        raise Decline("copies between registers spread over threads and a thread's own registers are not "
                      "supported yet")
    axes = set(layouts.thread_axes(r.buffer.layout))
    wider = sorted(axes - set(SCOPE_AXES[call.scope]))
    if wider:
        raise Decline(f"the register layout spreads over `{wider[0]}`, wider than the {call.scope}")
    return held_copy(call, cx, r, other, to_registers=r is dst)


def held_copy(call, cx, r: ir.TileRegion, other: ir.TileRegion, to_registers: bool) -> ir.Stmt:
    """Each thread copies the elements of r it holds from / to the same elements of other."""
    buf = r.buffer
    held = regions.partition(buf, cx)
    if isinstance(held, str):
        raise Decline(held)
    regs = regions.registers(buf)
    forced = plan.forced_width(call)
    if isinstance(forced, str):
        raise Decline(forced)
    whole = all(ir.is_const(s, 0) for s in r.starts) and all(e == d for e, d in zip(r.extents, buf.shape))
    side = plan.affine(other)
    if whole and side is not None:
        return _vectorized(call, cx, r, other, side, regs, forced, to_registers)
    if forced not in (None, 1):
        raise Decline(f"`vec_len={forced}` does not fit: the copy is element by element (a part of the "
                      f"register buffer, or a layout that is not affine)")
    full = [ir.is_const(s, 0) and e == d for s, e, d in zip(r.starts, r.extents, buf.shape)]
    thread_flat, pairs, _ = flat_held(buf, cx)
    values = thread_values(buf)
    shape = buf.const_shape()
    out = []
    for register, offset in pairs:
        coords = []
        stride = 1
        for extent in reversed(shape):
            seen = {(v + offset) // stride % extent for v in values}
            k = len(shape) - 1 - len(coords)
            if len(seen) == 1:
                coords.append(c(seen.pop()))
            elif full[k]:
                part = ir.binop("floordiv", ir.add(thread_flat, c(offset)), c(stride)) if stride > 1 else \
                    ir.add(thread_flat, c(offset))
                coords.append(ir.binop("floormod", part, c(extent)) if k else part)
            else:
                raise Decline("the register region cuts across the threads' elements")
            stride *= extent
        coords.reverse()
        index = regions.offsets_in(r, coords)
        if index is None:
            continue
        out.append(_move(regs, register, other, regions.coords_at(other, index), to_registers))
    return ir.Seq(tuple(out), call.span)


def thread_values(buf: ir.Buffer) -> set[int]:
    """Every value the thread axes' part of the flat coordinate takes over the threads."""
    iters = list(buf.layout.shard)
    places = regions.place_values(iters)
    values = {0}
    for it, place in zip(iters, places):
        if it.axis != "m":
            values = {v + d * place for v in values for d in range(it.extent.value)}
    return values


def _move(regs, register, other, coords, to_registers) -> ir.Stmt:
    if to_registers:
        return ir.BufferStore(regs, (c(register),), regions.load(other, coords), other.span)
    return regions.store(other, coords, ir.BufferLoad(regs.dtype, regs, (c(register),), other.span))


def flat_held(buf: ir.Buffer, cx) -> tuple[ir.Expr, list[tuple[int, int]], int]:
    """(the flat coordinate the thread axes fix, [(register, flat offset)] in register-run order,
    the run length: consecutive entries of one run are consecutive registers and elements)."""
    layout = buf.layout
    iters = list(layout.shard)
    places = regions.place_values(iters)
    thread_flat: ir.Expr = c(0)
    for it, place in zip(iters, places):
        if it.axis != "m" and it.extent.value > 1:
            digit = ir.binop("floordiv", cx.axis_value(it.axis), it.stride)
            if AXIS_RANGE.get(it.axis) != it.stride.value * it.extent.value:  # else below the extent already
                digit = ir.binop("floormod", digit, it.extent)
            thread_flat = ir.add(thread_flat, ir.mul(digit, c(place)))
    mem = [(it, place) for it, place in zip(iters, places) if it.axis == "m"]
    base = sum(v.value for a, v in layout.offset if a == "m" and isinstance(v, ir.IntImm))
    pairs = []
    for digits in product(*(range(it.extent.value) for it, _ in mem)):
        register = base + sum(d * it.stride.value for d, (it, _) in zip(digits, mem))
        pairs.append((register, sum(d * place for d, (_, place) in zip(digits, mem))))
    last = iters[-1]
    run = last.extent.value if last.axis == "m" and ir.is_const(last.stride, 1) else 1
    return thread_flat, pairs, run


def _vectorized(call, cx, r, other, side, regs, forced, to_registers) -> ir.Stmt:
    dtype = r.buffer.dtype
    thread_flat, pairs, run = flat_held(r.buffer, cx)
    runs = plan.merge(regions.squeezed(other), [side.strides])
    lanes, why = 1, None
    for width in plan.widths(dtype, forced):
        if width == 1:
            why = None
            break
        why = plan.vector_fits(cx, dtype, width, runs, [side])
        if why is None and run % width:
            why = f"each thread holds runs of {run} consecutive elements, not a multiple of {width}"
        if why is None and any(reg % width for reg, _ in pairs[::width]):
            why = "the registers of a run do not start at a multiple of the width"
        if why is None and plan.aligned_storage(cx, regs, width * dtype.nbytes):
            lanes = width
            break
    if forced is not None and lanes != forced:
        raise Decline(f"`vec_len={forced}` does not fit: {why}")
    out, views = [], {}
    for register, offset in pairs[::lanes]:
        first = ir.add(thread_flat, c(offset))
        at = plan.offset(side.base, plan.split(first, runs.extents), runs.strides[0])
        hinted = hinted_load(call, cx, other, dtype, lanes, side.flat, at, regs, c(register), views) \
            if to_registers else None
        if hinted is not None:  # the cache hints of the call: one PTX ld
            out.append(hinted)
        elif to_registers:
            out.append(plan.vec_store(regs, c(register), plan.vec_load(dtype, lanes, side.flat, at, other.span),
                                      call.span))
        else:
            out.append(plan.vec_store(side.flat, at, plan.vec_load(dtype, lanes, regs, c(register), call.span),
                                      call.span))
    return ir.Seq(tuple(out), call.span)


def _registers_to_registers(call, cx, dst, src) -> ir.Stmt:
    a, b = dst.buffer, src.buffer
    same = a.layout.shard == b.layout.shard and a.layout.offset == b.layout.offset and \
        tuple(dst.starts) == tuple(src.starts) and tuple(dst.extents) == tuple(src.extents) and a.shape == b.shape
    if not same:
        raise Decline("copies between register buffers with different layouts or regions are not supported yet")
    held = regions.partition(a, cx)
    if isinstance(held, str):
        raise Decline(held)
    ra, rb = regions.registers(a), regions.registers(b)
    full = [ir.is_const(s, 0) and e == d for s, e, d in zip(dst.starts, dst.extents, a.shape)]
    out = []
    for h in held:
        if not all(f or ir.is_const(x) for f, x in zip(full, h.coords)):
            raise Decline("the register region cuts across the threads' elements")
        if regions.offsets_in(dst, h.coords) is None:
            continue
        out.append(ir.BufferStore(ra, (c(h.register),), ir.BufferLoad(rb.dtype, rb, (c(h.register),)), call.span))
    return ir.Seq(tuple(out), call.span)
