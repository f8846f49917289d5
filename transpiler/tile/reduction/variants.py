"""The reduction family (`Tx.sum` / `Tx.max` / `Tx.min` over `axes=`, `accum=`): docs/tile-primitives.md,
## reductions.

- `local`: src and dst in registers. At thread scope, plain per-thread buffers: a sequential loop
  per output element. At warp / warpgroup / CTA scope, register buffers spread over threads by
  their layouts: each thread folds the source elements it holds for each destination register,
  then an `__shfl_xor_sync` butterfly combines the partial results of the lanes that share one
  output (reduction_plan.py works out which registers and which lane masks, and proves that every
  thread gets exactly the elements of its outputs).
- `shared`: src and dst in shared memory. Groups of g lanes (g = the reduced length rounded up to a
  power of two, at most 32 and the scope's thread count) each fold one output: the lanes gather
  the reduced elements round-robin, a shuffle tree of width g combines them, lane 0 writes; the
  scope then synchronises. At thread scope, a sequential loop.
- `sm100_packed` (reduction_packed.py): Blackwell, thread scope, 1-D float32 of 8 or more elements
  to one: `add.f32x2` pairs (sum) or the three-input `max.f32` / `min.f32`."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import UINT32
from transpiler.tile import regions
from transpiler.tile.checks import all_threads_active, cooperative_scope
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import loop, scope_sync
from transpiler.tile.reduction.plan import plan_threads
from transpiler.tile.reduction.common import REDUCE_OPS, Reduce, at, combine, identity, memories, parse, parsed_check, put, scratch, valid
from transpiler.tile.reduction import keep_axes as keep, lanes as lanes
from transpiler.tile.registry import Check, Decline, variant

# -- local -----------------------------------------------------------------------------------

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
    """TIRx's reduction across a warp's lanes (reduction_lanes.py), for a call that `axes=` cannot
    describe (dst's size is not src's reduced over them); None otherwise."""
    if not isinstance(parse(call), str):
        return None
    found = lanes.pattern(call)
    return None if isinstance(found, str) else found


def kept_axes(call):
    """TIRx's form with dst keeping the reduced axes over the threads (reduction_keep.py), for a call
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


@variant(REDUCE_OPS, "local", priority=10,
         when=(all_threads_active, _or_forms(valid, says=FORMS),
               _or_forms(memories("local", "src and dst are in registers (local)")),
               _or_forms(local_layouts, _kept_plan)))
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


# -- shared ----------------------------------------------------------------------------------

@variant(REDUCE_OPS, "shared", priority=10,
         when=(all_threads_active, valid, memories("shared", "src and dst are in shared memory"), cooperative_scope))
def lower_shared(call: ir.TileCall, cx) -> ir.Stmt:
    return shared_body(parse(call), cx)


def group_size(reduce_len: int, threads: int) -> int:
    """The lanes that fold one output: the reduced length rounded up to a power of two, at most
    32 and a power of two that divides the scope's thread count."""
    g = 1
    while g < reduce_len and g < 32 and threads % (g * 2) == 0:
        g *= 2
    return g


def shared_body(r: Reduce, cx) -> ir.Stmt:
    if cx.scope == "thread":
        return sequential(r, cx)
    dtype = r.src.buffer.dtype
    threads = cx.scope_threads()
    g = group_size(r.reduce_len, threads)
    par = threads // g
    alloc, acc = scratch(cx, "thread_data", dtype)
    tid_var, tid_let = cx.let("tid_in_scope", cx.thread_in(), nonneg=True)
    group = ir.binop("floordiv", tid_var, c(g))
    lane = ir.binop("floormod", tid_var, c(g))

    def per_step(step):
        spa = ir.add(ir.mul(step, c(par)), group)
        body = [put(acc, 0, identity(r.op, dtype))]

        def gather(t):
            red = ir.add(ir.mul(t, c(g)), lane)
            stmt = put(acc, 0, combine(r.op, at(acc, 0), regions.load(r.src, r.src_coords(spa, red))))
            return stmt if r.reduce_len % g == 0 else ir.If(ir.binop("<", red, c(r.reduce_len)), stmt, None)
        body.append(loop(cx, "t", -(-r.reduce_len // g), gather, unroll=-(-r.reduce_len // g) <= 8))
        mask = ir.Call(UINT32, "__activemask", ())
        k = 1
        while k < g:
            shuffled = ir.Call(dtype, "__shfl_xor_sync", (mask, at(acc, 0), c(k), c(g)) if g < 32 else
                               (mask, at(acc, 0), c(k)))
            body.append(put(acc, 0, combine(r.op, at(acc, 0), shuffled)))
            k *= 2
        coords = r.dst_coords(spa)
        value = combine(r.op, regions.load(r.dst, coords), at(acc, 0)) if r.accum else at(acc, 0)
        write = regions.store(r.dst, coords, value)
        body.append(write if g == 1 else ir.If(ir.binop("==", lane, c(0)), write, None))
        stmt = ir.Seq(tuple(body))
        if r.spatial_len % par:
            stmt = ir.If(ir.binop("<", spa, c(r.spatial_len)), stmt, None)
        return stmt
    steps = -(-r.spatial_len // par)
    return ir.Seq((alloc, tid_let, loop(cx, "step", steps, per_step), scope_sync(cx)))

