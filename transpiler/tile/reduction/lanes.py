"""TIRx's warp reduction across lanes (part of its `local` variant; registers.py tries it when `axes=`
does not describe the call): src's layout spreads its elements over the 32 lanes (`laneid` shard
iters covering every lane once) and dst's replicates its elements over them (`laneid` replica
iters covering every lane), each lane holding as many elements of dst as of src. Element k of the
lane's dst registers (in the order of the layout's memory iters) becomes the reduction, over the
32 lanes, of element k of its src registers: a five-step `__shfl_xor_sync` butterfly, the result
in every lane. This is how TIRx reads such a call whatever `axes=` says, e.g. src (32, 4) spread
one row per lane reduced into a replicated (4,) dst: the column sums."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from transpiler import ir
from transpiler.target.dtypes import UINT32
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.reduction.common import REDUCE_OPS, at, combine, put, scratch


@dataclass(frozen=True)
class Lanes:
    op: str
    src_regs: tuple[int, ...]  # the lane's src registers, element k first
    dst_regs: tuple[int, ...]
    accum: bool


def _covers_lanes(iters) -> bool:
    """laneid iters whose digits give every lane 0..31 exactly once (a mixed radix)."""
    radix = 1
    for it in sorted(iters, key=lambda it: it.stride.value):
        if it.extent.value > 1 and it.stride.value != radix:
            return False
        radix *= it.extent.value
    return radix == 32


def _memory_registers(layout) -> tuple[int, ...]:
    """The registers of a thread's elements in the order of the layout's memory iters."""
    mem = [it for it in layout.shard if it.axis == "m"]
    base = sum(v.value for a, v in layout.offset if a == "m" and isinstance(v, ir.IntImm))
    return tuple(base + sum(d * it.stride.value for d, it in zip(digits, mem))
                 for digits in product(*(range(it.extent.value) for it in mem)))


def pattern(call: ir.TileCall) -> Lanes | str:
    """The lane reduction of a warp-scope call, or why the call is not one."""
    ops = dict(call.operands)
    dst, src, accum = ops.get("dst"), ops.get("src"), ops.get("accum")
    if call.op not in REDUCE_OPS or call.scope != "warp":
        return "a reduction across lanes runs at warp scope"
    if not isinstance(dst, ir.TileRegion) or not isinstance(src, ir.TileRegion):
        return "dst and src must be buffer regions"
    if regions.memory(dst) != "local" or regions.memory(src) != "local":
        return "src and dst are not both in registers"
    if dst.buffer.dtype != src.buffer.dtype or not isinstance(accum, (bool, int)):
        return "dst and src differ in dtype, or `accum=` is not a constant"
    for region in (dst, src):
        buf = region.buffer
        whole = all(ir.is_const(s, 0) for s in region.starts) and tuple(region.extents) == tuple(buf.shape)
        layout = buf.layout
        if not whole or layout is None or layout.swizzle is not None or not all(
                isinstance(it.extent, ir.IntImm) and isinstance(it.stride, ir.IntImm)
                for it in list(layout.shard) + list(layout.replica)):
            return "src and dst are not whole register buffers with constant layouts"
    s, d = src.buffer.layout, dst.buffer.layout
    if s.replica or {it.axis for it in s.shard} - {"m", "laneid"} or \
            not _covers_lanes([it for it in s.shard if it.axis == "laneid"]):
        return "src's layout does not spread its elements over the 32 lanes (`laneid`) alone"
    if any(it.axis != "m" for it in d.shard) or any(it.axis != "laneid" for it in d.replica) or \
            not _covers_lanes(list(d.replica)):
        return "dst's layout does not replicate its elements over the 32 lanes"
    src_regs, dst_regs = _memory_registers(s), _memory_registers(d)
    if len(src_regs) != len(dst_regs):
        return f"each lane holds {len(src_regs)} elements of src but {len(dst_regs)} of dst"
    return Lanes(call.op, src_regs, dst_regs, bool(accum))


def lower(lanes: Lanes, call: ir.TileCall, cx) -> ir.Stmt:
    src = regions.registers(call.operand("src").buffer)
    dst = regions.registers(call.operand("dst").buffer)
    dtype = src.dtype
    n = len(lanes.src_regs)
    alloc, acc = scratch(cx, "acc", dtype, n)
    full = ir.IntImm(UINT32, 0xFFFFFFFF)
    body = [alloc]
    for k, reg in enumerate(lanes.src_regs):
        body.append(put(acc, k, at(src, reg)))
        for m in (16, 8, 4, 2, 1):
            body.append(put(acc, k, combine(lanes.op, at(acc, k),
                                            ir.Call(dtype, "__shfl_xor_sync", (full, at(acc, k), c(m))))))
    for k, reg in enumerate(lanes.dst_regs):  # after every read: src and dst may share registers
        body.append(put(dst, reg, combine(lanes.op, at(dst, reg), at(acc, k)) if lanes.accum else at(acc, k)))
    return ir.Seq(tuple(body), call.span)
