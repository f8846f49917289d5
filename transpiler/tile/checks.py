"""Conditions shared by the variants of several families (variants.Check): each returns None when
the call meets it, else the reason it does not, worded for the user."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.target import Target
from transpiler.tile import regions
from transpiler.tile.registry import Check, check


@check("all threads of the scope reach the call")
def all_threads_active(call, cx):
    guard = cx.narrowed()
    if guard is None:
        return None
    return (f"an enclosing `if` depends on {guard.level}-level ids, so only part of the "
            f"{call.scope} runs the call")


@check("dst and src have the same dtype and the same non-unit extents")
def same_elements(call, cx):
    dst, src = call.operand("dst"), call.operand("src")
    if not isinstance(dst, ir.TileRegion) or not isinstance(src, ir.TileRegion):
        return "dst and src must be buffer regions"
    if dst.buffer.dtype != src.buffer.dtype:
        return f"dst is {dst.buffer.dtype.name} and src is {src.buffer.dtype.name}"
    a, b = regions.squeezed(dst), regions.squeezed(src)
    if a is None or b is None:
        return "the regions' extents are not constant"
    if a != b:
        return f"dst has extents {a or (1,)} and src {b or (1,)}"
    return None


def memories(dst: tuple[str, ...], src: tuple[str, ...], says: str) -> Check:
    """dst in one of `dst`'s memories and src in one of `src`'s (global, shared, local, tmem)."""
    def test(call, cx):
        d, s = call.operand("dst"), call.operand("src")
        if not isinstance(d, ir.TileRegion) or not isinstance(s, ir.TileRegion):
            return "dst and src must be buffer regions"
        dm, sm = regions.memory(d), regions.memory(s)
        if dm in dst and sm in src:
            return None
        return f"it copies {sm} to {dm}"
    return Check(says, test)


def needs(feature: str, what: str) -> Check:
    """The target (`--arch`, when given) has the instruction family `feature` (a FEATURES row of
    target/arch.py); `what` names it for the user."""
    def test(call, cx):
        return cx.target.refusal(feature, what)
    return Check(f"the target has {what} ({Target.needed(feature)})", test)


def scopes(*allowed: str) -> Check:
    def test(call, cx):
        return None if call.scope in allowed else f"it runs at {call.scope} scope"
    return Check(f"it runs at {' or '.join(allowed)} scope", test)


@check("the element count is a multiple of the scope's thread count")
def divides_threads(call, cx):
    threads = cx.scope_threads()
    if threads is None:
        return "the block shape is not constant"
    count = regions.num_elements(call.operand("dst"))
    if count % threads:
        return f"{count} elements do not split evenly over {threads} threads"
    return None


@check("it runs at thread, warp, warpgroup or CTA scope with a constant block shape")
def cooperative_scope(call, cx):
    if call.scope not in ("thread", "warp", "warpgroup", "cta"):
        return f"it runs at {call.scope} scope"
    if cx.scope_threads() is None:
        return "the block shape is not constant"
    return None
