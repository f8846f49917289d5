"""`permute_layout` (`warp_xor_swizzle`): a warp moves a region from src's layout to dst's, each
lane staging P = elements / 32 elements in registers. Lane l handles elements l + 32 j; the
order in which it visits them, j = r ^ ((l >> shift) & mask), is chosen so that the warp's
accesses of each step fall in distinct shared-memory banks in both phases where possible. A
`__syncwarp()` separates the reads from the writes, so src and dst may be the same memory."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import VOID
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import check


@check("the elements are 1, 2, 4, 8 or 16 bytes and neither side is in tensor memory")
def plain_elements(call, cx):
    dst, src = call.operand("dst"), call.operand("src")
    if dst.buffer.dtype.nbytes not in (1, 2, 4, 8, 16) or dst.buffer.dtype.bits < 8:
        return f"{dst.buffer.dtype.name} elements are not a whole number of 1 to 16 bytes"
    if "tmem" in (regions.memory(dst), regions.memory(src)):
        return "one side is in tensor memory"
    if "local" in (regions.memory(dst), regions.memory(src)):
        return "one side is in registers: use copy"
    return None


@check("the region's element count is a multiple of 32")
def warp_multiple(call, cx):
    count = regions.num_elements(call.operand("dst"))
    return None if count % 32 == 0 else f"{count} elements do not split evenly over a warp's 32 lanes"


def warp_xor_swizzle(call: ir.TileCall, cx) -> ir.Stmt:
    dst, src = call.operand("dst"), call.operand("src")
    dtype = dst.buffer.dtype
    per_lane = regions.num_elements(dst) // 32
    shift, mask = choose_xor(dst, src, per_lane)
    lane, bind = cx.let("lane", cx.lane())
    staged = cx.var(f"{dst.buffer.name or 'perm'}_regs")
    storage = ir.Storage(staged.name, dtype, "local", "array", per_lane, 0)
    regs = ir.Buffer("", (c(per_lane),), dtype, "local", storage, None, c(0), 0, call.span)
    swz = ir.binop("&", ir.binop(">>", lane, c(shift)), c(mask)) if mask else None

    extents = regions.squeezed(dst)
    inner = next((k for k in range(len(extents) + 1) if _prod(extents[k:]) == 32), None)

    def coords(region: ir.TileRegion, r: int) -> tuple[ir.Expr, ...]:
        """The coordinates of element lane + 32 j: the lane indexes the dimensions whose extents
        multiply to 32 where there are such, j the ones outside them."""
        j = c(r) if swz is None else ir.binop("^", c(r), swz)
        if inner is None:
            return regions.coords_of(region, ir.add(lane, ir.mul(j, c(32))))
        index = plan.split(j, extents[:inner]) + plan.split(lane, extents[inner:])
        return regions.coords_at(region, tuple(index))

    sync = ir.Evaluate(ir.Call(VOID, "__syncwarp", ()), call.span)
    reads = [ir.BufferStore(regs, (c(r),), regions.load(src, coords(src, r)), call.span)
             for r in range(per_lane)]
    writes = [regions.store(dst, coords(dst, r), ir.BufferLoad(dtype, regs, (c(r),)))
              for r in range(per_lane)]
    return ir.Seq((bind, ir.Allocate(regs, call.span), *reads, sync, *writes, sync), call.span)


def choose_xor(dst: ir.TileRegion, src: ir.TileRegion, per_lane: int) -> tuple[int, int]:
    """(shift, mask) of the lane swizzle: the fewest XOR bits, then the smallest shift, whose two
    phases have the fewest shared-memory bank conflicts (none where some choice has none)."""
    offsets = []
    for region in (src, dst):
        side = plan.affine(region)
        if side is None or not all(isinstance(s, ir.IntImm) for s in side.strides):
            return 0, 0  # the addresses are not known here: no swizzle
        offsets.append((regions.squeezed(region), [s.value for s in side.strides]))
    if per_lane & (per_lane - 1):
        return 0, 0  # an XOR permutes 0 .. P-1 only for a power of two
    nbytes = dst.buffer.dtype.nbytes
    best = None
    bits = per_lane.bit_length() - 1
    for k in range(bits + 1):
        for shift in range(0, 6 if k else 1):
            mask = (1 << k) - 1
            cost = sum(_conflicts(extents, strides, nbytes, per_lane, shift, mask) for extents, strides in offsets)
            if best is None or cost < best[0]:
                best = (cost, shift, mask)
            if cost == 0:
                return shift, mask
    return best[1], best[2]


def _conflicts(extents, strides, nbytes, per_lane, shift, mask) -> int:
    """Extra shared-memory wavefronts over the steps of one phase."""
    total = 0
    for r in range(per_lane):
        words_by_bank: dict[int, set[int]] = {}
        for lane in range(32):
            flat = lane + 32 * (r ^ ((lane >> shift) & mask))
            offset = 0
            for extent, stride in zip(reversed(extents), reversed(strides)):
                offset += (flat % extent) * stride
                flat //= extent
            first = offset * nbytes // 4
            for word in range(first, first + max(nbytes // 4, 1)):
                words_by_bank.setdefault(word % 32, set()).add(word)
        total += max(len(w) for w in words_by_bank.values()) - 1
    return total


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out

