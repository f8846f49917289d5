"""The reduction variant `local` (docs/tile-primitives.md, ## reductions): src and dst in registers.
At thread scope, plain per-thread buffers: a sequential loop per output element. At warp /
warpgroup / CTA scope, register buffers spread over threads by their layouts: each thread folds
the source elements it holds for each destination register, then an `__shfl_xor_sync` butterfly
combines the partial results of the lanes that share one output (plan.py works out which
registers and which lane masks, and proves that every thread gets exactly the elements of its
outputs). TIRx's forms across a warp's lanes (lanes.py) and with dst keeping the reduced axes
(keep_axes.py) are lowered here too."""
from __future__ import annotations

from transpiler import ir
from transpiler.tile import regions
from transpiler.tile.elementwise.common import loop
from transpiler.tile.reduction.plan import plan_threads
from transpiler.tile.reduction.common import Reduce, at, combine, identity, memories, parse, parsed_check, put, scratch, valid
from transpiler.tile.reduction import keep_axes as keep, lanes as lanes
from transpiler.tile.registry import Check, Decline


def _local_layouts(r: Reduce, call, cx):
    dist = [regions.is_distributed(x.buffer) for x in (r.dst, r.src)]
    if call.scope == "thread":
        if any(dist):
            return "at thread scope src and dst are the thread's own registers (no thread axes)"
        return None
    if not all(dist):
        return (f"at {call.scope} scope src and dst are register buffers spread over the {call.scope}'s "
                f"threads by their layouts")
    found = plan_threads(r, call.scope, cx)
    return found if isinstance(found, str) else None


local_layouts = parsed_check("the threads hold whole outputs, or lanes of one warp share them", _local_layouts)


def across_lanes(call):
    """TIRx's reduction across a warp's lanes (lanes.py), for a call that `axes=` cannot
    describe (dst's size is not src's reduced over them); None otherwise."""
    if not isinstance(parse(call), str):
        return None
    found = lanes.pattern(call)
    return None if isinstance(found, str) else found


def kept_axes(call):
    """TIRx's form with dst keeping the reduced axes over the threads (keep_axes.py), for a call
    that `axes=` cannot describe and that is not across lanes: a Keep, why it does not fit, or None."""
    if not isinstance(parse(call), str) or across_lanes(call):
        return None
    return keep.pattern(call)


def _or_forms(case, kept=None, says=None):
    """`case` for a call `axes=` describes; across lanes, nothing more; kept axes: its shape, and
    `kept(found, call, cx)` if given."""
    def test(call, cx):
        if across_lanes(call):
            return None
        found = kept_axes(call)
        if found is None:
            return case.test(call, cx)
        if isinstance(found, str):
            return found
        return kept(found, call, cx) if kept else None
    return Check(says or case.says, test)


FORMS = ("dst holds one element per output of src reduced over `axes`, or keeps the reduced axes over the "
         "threads, or is replicated over the lanes")


def _kept_plan(found, call, cx):
    plan = keep.plan(found, call.scope, cx)
    return plan if isinstance(plan, str) else None


# the conditions of `local`: each a condition of the `axes=` form that the two other forms skip
valid_forms = _or_forms(valid, says=FORMS)
in_registers = _or_forms(memories("local", "src and dst are in registers (local)"))
layouts_fit = _or_forms(local_layouts, _kept_plan)


def lower_local(call: ir.TileCall, cx) -> ir.Stmt:
    found = across_lanes(call)
    if found is not None:
        return lanes.lower(found, call, cx)
    found = kept_axes(call)
    if found is not None:
        plan = keep.plan(found, call.scope, cx)
        if isinstance(plan, str):
            raise Decline(plan)
        return keep.lower(found, plan, cx)
    return local_body(parse(call), call.scope, cx)


def local_body(r: Reduce, scope: str, cx) -> ir.Stmt:
    if scope == "thread":
        return sequential(r, cx)
    found = plan_threads(r, scope, cx)
    if isinstance(found, str):
        raise Decline(found)
    return found.lower(r, cx)


def sequential(r: Reduce, cx) -> ir.Stmt:
    """One thread folds every output in turn (loops over registers unrolled, so that they stay
    registers; over shared memory only when short)."""
    dtype = r.src.buffer.dtype
    alloc, acc = scratch(cx, "acc", dtype)
    in_registers = regions.memory(r.src) == "local" or regions.memory(r.dst) == "local"

    def per_output(spa):
        first = regions.load(r.dst, r.dst_coords(spa)) if r.accum else identity(r.op, dtype)
        body = [put(acc, 0, first)]
        body.append(loop(cx, "red", r.reduce_len, lambda red: put(
            acc, 0, combine(r.op, at(acc, 0), regions.load(r.src, r.src_coords(spa, red)))),
                         unroll=in_registers or r.reduce_len <= 8))
        body.append(regions.store(r.dst, r.dst_coords(spa), at(acc, 0)))
        return ir.Seq(tuple(body))
    return ir.Seq((alloc, loop(cx, "spa", r.spatial_len, per_output, unroll=in_registers or r.spatial_len <= 8)))
