"""The elementwise variant `reg` (docs/tile-primitives.md, ## elementwise): every operand in
registers. A register buffer spread over threads by its layout is processed where it lies: each
thread computes the elements it holds (the partition the layout induces, regions.partition),
reading each input from its own registers. A plain per-thread register buffer (no thread axes) is
the thread's own: only a thread-scope call may take one as dst, and it loops over all of it. On
sm_100 the f32x2 forms of packed.py take the calls they fit."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import SCOPE_AXES, aligned, bind_scalars, element, held_elements, loop, store, unflatten
from transpiler.tile.elementwise.ops import Plan, extents, plan
from transpiler.tile.elementwise.packed import packed
from transpiler.tile.registry import check


@check("dst's register layout fits the scope, and each thread holds the inputs of its elements")
def register_layouts(call, cx):
    p = plan(call)
    if isinstance(p, str):
        return p
    return layout_reason(p, call.scope)


def layout_reason(p: Plan, scope: str) -> str | None:
    dst = p.dst.buffer
    if not regions.is_distributed(dst):
        if scope != "thread":
            return (f"dst is a per-thread register buffer (no thread axes in its layout): call it at thread "
                    f"scope, or give it a layout over the {scope}'s threads")
        for name, value in p.inputs:
            if isinstance(value, ir.TileRegion) and regions.is_distributed(value.buffer):
                return f"{name} is spread over threads but dst is not"
        return None
    if dst.layout.swizzle is not None or dst.const_shape() is None:
        return "dst's register layout is not constant"
    axes = set(layouts.thread_axes(dst.layout))
    allowed = SCOPE_AXES.get(scope)
    if allowed is not None and not axes <= allowed:
        return f"dst's layout spreads it over `{sorted(axes - allowed)[0]}`, beyond the {scope}"
    for name, value in p.inputs:
        if isinstance(value, ir.TileRegion) and regions.is_distributed(value.buffer):
            reason = aligned(p.dst, value, name)
            if reason:
                return reason
    return None


def lower_reg(call: ir.TileCall, cx) -> ir.Stmt:
    p = plan(call)
    lowered = packed(call, p, cx)
    if lowered is not None:
        return lowered
    pre, values = bind_scalars(p, cx)
    return ir.Seq(tuple(pre) + (reg_body(p, cx, values),))


def reg_body(p: Plan, cx, values: dict) -> ir.Stmt:
    """dst's elements this thread computes: the ones it holds, or all of a per-thread buffer."""
    dst = p.dst
    if regions.is_distributed(dst.buffer):
        stmts = []
        regs = regions.registers(dst.buffer)
        for _, index, own, guard in held_elements(p, cx):
            value = element(p, index, values, own=own)
            stmt = ir.BufferStore(regs, (c(own["dst"]),), ir.cast(dst.buffer.dtype, value), dst.span)
            stmts.append(stmt if guard is True else ir.If(guard, stmt, None))
        return ir.Seq(tuple(stmts))

    def one(i):
        index = unflatten(i, extents(dst))
        return store(dst, tuple(ir.add(s, k) for s, k in zip(dst.starts, index)), element(p, index, values))
    return loop(cx, "i", regions.num_elements(dst), one, unroll=True)
