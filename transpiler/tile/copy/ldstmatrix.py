"""`copy` between a warp's m8n8 matrix fragments in registers and shared memory (`ldstmatrix`):
one warp-collective `ldmatrix` / `stmatrix` moves `num` (4, 2 or 1) 8x8 16-bit matrices, each lane
giving the address of one 16-byte matrix row. Tried before `reg`; it declines to it when the
register layout is not the m8n8 fragment (lane i holds row i // 4, columns 2 (i % 4) and 2 (i % 4) + 1
of each matrix) or the shared rows are not 16-byte rows at a common stride."""
from __future__ import annotations

from itertools import product

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target import ptx
from transpiler.target.dtypes import HANDLE, UINT32, VOID
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import Decline, check


@check("the elements are 16-bit")
def sixteen_bit(call, cx):
    dtype = call.operand("dst").buffer.dtype
    return None if dtype.bits == 16 and dtype.lanes == 1 else f"the elements are {dtype.name}, not 16-bit"


def ldstmatrix(call: ir.TileCall, cx) -> ir.Stmt:
    dst, src = call.operand("dst"), call.operand("src")
    load = regions.memory(dst) == "local"
    r, s = (dst, src) if load else (src, dst)
    buf = r.buffer
    if not regions.is_distributed(buf) or set(layouts.thread_axes(buf.layout)) != {"laneid"}:
        raise Decline("the register layout is not spread over a warp's lanes (laneid) alone")
    if buf.layout.replica or buf.layout.offset or not (all(ir.is_const(x, 0) for x in r.starts) and tuple(r.extents) == tuple(buf.shape)):
        raise Decline("the register operand is not a whole fragment buffer")
    if regions.partition(buf, cx).__class__ is str:
        raise Decline(regions.partition(buf, cx))
    side = plan.affine(s)
    if side is None or not all(isinstance(x, ir.IntImm) for x in side.strides):
        raise Decline("the shared layout is not affine with constant strides")
    if side.chunk and side.chunk < 8:
        raise Decline(f"the shared layout's swizzle keeps only {side.chunk} elements together")
    if not (plan.multiple_of(side.base, 8) and plan.multiple_of(side.flat.elem_offset, 8)
            and plan.aligned_storage(cx, side.flat, 16)):
        raise Decline("the shared region does not start at a multiple of 16 bytes")
    table = _lane_offsets(buf, regions.squeezed(s), [x.value for x in side.strides])
    if isinstance(table, str):
        raise Decline(table)
    fit = _fit(table)
    if fit is None:
        raise Decline("the layouts are not m8n8 matrix fragments with 16-byte shared rows")
    num, trans, groups = fit
    if not load:
        cx.require("stmatrix", "stmatrix")
    words = _words(cx, buf)
    plan.aligned_storage(cx, regions.registers(buf), 4)
    mnemonic = f"{'ld' if load else 'st'}matrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"
    inst = cx.instruction(ptx.lookup(mnemonic))
    lane = cx.lane()
    out = [ir.DeclView(words, call.span)]
    for g, (start, p, steps) in enumerate(groups):
        # lane l gives row l % 8 of matrix l // 8 (lanes past 8 num repeat the addresses)
        row = ir.mul(ir.binop("floormod", lane, c(8)), c(p))
        for bit, step in enumerate(steps):
            digit = ir.binop("&", ir.binop(">>", lane, c(3 + bit)), c(1))
            row = ir.add(row, ir.mul(digit, c(step)))
        index = ir.add(ir.add(side.base, c(start)), row)
        address = ir.BufferAddress(HANDLE, side.flat, (index,), call.span)
        regs = tuple(ir.BufferLoad(UINT32, words, (c(g * num + j),), call.span) for j in range(num))
        args = regs + (address,) if load else (address,) + regs
        out.append(ir.Evaluate(ir.Call(VOID, inst.helper, args, call.span), call.span))
    return ir.Seq(tuple(out), call.span)


def _words(cx, buf: ir.Buffer) -> ir.Buffer:
    """The thread's registers of buf as 32-bit words (a typed pointer over the same array)."""
    regs = regions.registers(buf)
    span = regs.shape[0].value
    storage = ir.Storage(cx.names.fresh(f"{buf.name or 'regs'}_u32"), UINT32, "local", "view_pointer", span // 2,
                         4, base=regs.storage)
    return ir.Buffer("", (c(span // 2),), UINT32, "local", storage, None, c(0), 4)


def _lane_offsets(buf: ir.Buffer, extents, strides) -> list[list[int]] | str:
    """For each lane, the shared offset (from the region's first element) of each register."""
    layout = buf.layout
    iters = list(layout.shard)
    places = regions.place_values(iters)
    mem = [(it, place) for it, place in zip(iters, places) if it.axis == "m"]
    count = 1
    for it, _ in mem:
        count *= it.extent.value
    registers = {}
    for digits in product(*(range(it.extent.value) for it, _ in mem)):
        register = sum(d * it.stride.value for d, (it, _) in zip(digits, mem))
        registers[register] = sum(d * place for d, (_, place) in zip(digits, mem))
    if sorted(registers) != list(range(count)) or count % 2:
        return "the thread's registers are not one dense array of an even length"
    table = []
    for lane in range(32):
        base = sum(((lane // it.stride.value) % it.extent.value) * place
                   for it, place in zip(iters, places) if it.axis != "m")
        row = []
        for register in range(count):
            flat, offset = base + registers[register], 0
            for extent, stride in zip(reversed(extents), reversed(strides)):
                offset += (flat % extent) * stride
                flat //= extent
            row.append(offset)
        table.append(row)
    return table


def _fit(table):
    """(num, trans, [(row 0's offset, row stride p, the step of each bit of the matrix index) per
    instruction]) or None."""
    words = len(table[0]) // 2
    for num in (4, 2, 1):
        if words % num:
            continue
        for trans in (False, True):
            groups = []
            for g in range(words // num):
                rows = [_rows(table, 2 * (g * num + j), trans) for j in range(num)]
                if None in rows:
                    break
                start, p = rows[0][0], rows[0][1] - rows[0][0]
                # matrix j = sum of its bits b_k 2^k starts at start + sum b_k steps[k]
                steps = [rows[1 << k][0] - start for k in range(num.bit_length() - 1)]
                if any(rows[j][k] != start + sum(s for b, s in enumerate(steps) if j >> b & 1) + k * p
                       for j in range(num) for k in range(8)):
                    break
                groups.append((start, p, tuple(steps)))
            else:
                return num, trans, groups
    return None


def _rows(table, k: int, trans: bool) -> list[int] | None:
    """The 8 row offsets of the matrix whose fragment is registers k, k + 1, or None."""
    if trans:  # lane i holds stored rows 2 (i % 4) and 2 (i % 4) + 1 at column i // 4
        rows = [table[r // 2][k + r % 2] for r in range(8)]
        ok = all(table[i][k + h] == rows[2 * (i % 4) + h] + i // 4 for i in range(32) for h in range(2))
    else:  # lane i holds row i // 4, columns 2 (i % 4) and 2 (i % 4) + 1
        rows = [table[4 * r][k] for r in range(8)]
        ok = all(table[i][k + h] == rows[i // 4] + 2 * (i % 4) + h for i in range(32) for h in range(2))
    if not ok or any(r % 8 for r in rows):
        return None
    return rows
