"""`copy`'s catch-all (`fallback`): one thread of the scope copies every element, one at a time."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import check


@check("no operand is a register buffer spread over threads")
def not_spread(call, cx):
    for name in ("dst", "src"):
        region = call.operand(name)
        if regions.memory(region) == "local" and regions.is_distributed(region.buffer):
            return f"{name} is spread over threads' registers, which one thread cannot reach"
    return None


def fallback(call: ir.TileCall, cx) -> ir.Stmt:
    """One thread of the scope copies every element, one at a time (the catch-all). Under an `if`
    that leaves only part of the scope running, which thread that is cannot be known, so each
    thread that runs the call copies everything: the same values, written more than once."""
    dst, src = call.operand("dst"), call.operand("src")
    count = regions.num_elements(dst)

    def body(i):
        return regions.store(dst, regions.coords_of(dst, i), regions.load(src, regions.coords_of(src, i)))

    code = cx.loop("i", count, body)
    if call.scope == "thread" or cx.narrowed() is not None:
        return code
    return ir.If(ir.binop("==", cx.thread_in(), c(0)), code, None)

