"""SMEM and TMEM pools: `T.SMEMPool()` / `T.TMEMPool(...)` and their methods (alloc, move_base_to,
commit, dealloc), and the checks made when the kernel ends (finish_pools)."""
from __future__ import annotations

from math import prod
from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.ir import layout as layouts
from transpiler.ir.walk import all_stmts
from transpiler.syntax import ast
from transpiler.target import ptx
from transpiler.target.arch import TMEM_COLUMNS, TMEM_MIN_ALLOC_COLUMNS
from transpiler.target.dtypes import INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry
from transpiler.sema.expressions import expr
from transpiler.sema.kernel import threads
from transpiler.sema.calls import ptx as ptx_calls
from transpiler.sema.memory import views
from transpiler.evaluator.values import POISON, Void
from transpiler.sema.values import SmemPool, TmemPool
from transpiler.sema.registry import handler, is_default


SWIZZLE_BYTES = {"auto": 128, "128B": 128, "64B": 64, "32B": 32, "none": 0}


def _name(buf: ir.Buffer) -> str:
    """A pool view's source name (the view recorded at allocation is named later, its storage too)."""
    return buf.name or buf.storage.name.removesuffix("_ptr")


def _key(buf: ir.Buffer) -> int:
    """Pool views have typed pointers of their own; the buffer object itself is renamed
    (copied) when bound to a name, its storage is not."""
    return id(buf.storage)


def liveness(body: ir.Stmt) -> dict[int, tuple[int, int]]:
    """For each pool view (by storage): the position of its declaration and of its last use,
    in program order."""
    spans: dict[int, list[int]] = {}
    for position, node in enumerate(all_stmts(body)):
        if isinstance(node, (ir.Allocate, ir.DeclView)):
            spans.setdefault(_key(node.buffer), [position, position])
            continue
        buffers = []
        if isinstance(node, (ir.BufferStore, ir.BufferVecStore)):
            buffers.append(node.buffer)
        for top in ir.stmt_exprs(node):
            for e in ir.walk_expr(top):
                if isinstance(e, (ir.BufferLoad, ir.BufferVecLoad, ir.BufferAddress)):
                    buffers.append(e.buffer)
        for buf in buffers:
            entry = spans.setdefault(_key(buf), [position, position])
            entry[1] = max(entry[1], position)
    return {key: (first, last) for key, (first, last) in spans.items()}


@handler("SMEMPool", "ptr=None")
def _smem_pool(st, node, a):
    if not is_default(a["ptr"]):
        st.diags.error("E0518", "`T.SMEMPool(ptr)` over caller-owned storage is not supported yet", node.span)
        return POISON
    arena = views.new_allocation(st, (ir.IntImm(INT32, 0),), parse_dtype("uint8"), "shared.dyn", None, 16, node.span)
    if arena is POISON:
        return POISON
    arena.storage.size = None  # known at commit()
    pool = SmemPool(arena, node.span)
    st.pools.append(pool)
    return pool


def pool_method(st, pool, name: str, node: ast.Call):
    if isinstance(pool, TmemPool):
        return tmem_pool_method(st, pool, name, node)
    method = {"alloc": pool_alloc, "alloc_tcgen05_mma_AB": pool_alloc_mma, "alloc_mma": pool_alloc_mma,
              "move_base_to": pool_move, "commit": pool_commit}.get(name)
    if method is None:
        st.diags.error("E0301", f"`SMEMPool` has no method `{name}`", node.func.span,
                         help=did_you_mean(name, ["alloc", "alloc_tcgen05_mma_AB", "move_base_to", "commit"]))
        return POISON
    return method(st, pool, node)


def _pool_open(st, pool: SmemPool, node) -> bool:
    if pool.committed is not None:
        st.diags.error("E0710", "allocation from an `SMEMPool` after its `commit()`", node.span,
                         notes=[Note("committed here", pool.committed)],
                         help="call `commit()` after the last allocation")
        return False
    return True


def pool_alloc(st, pool: SmemPool, node, *, layout=None, default_align=0, dtype_default="float32"):
    args = registry.bind_args(st, node, ("shape", f"dtype='{dtype_default}'", "strides=None", "scope='shared.dyn'",
                                 f"align={default_align}", "layout='default'"), "pool.alloc")
    if args is None or not _pool_open(st, pool, node):
        return POISON
    shape = views.shape_arg(st, args["shape"], symbolic=False)
    dtype = expr.dtype_or_default(st, args["dtype"])
    align = views.align_arg(st, args["align"], default_align)
    if None in (shape, dtype, align):
        return POISON
    if layout is None:
        layout = views.layout_arg(st, args["layout"], shape, dtype, "shared.dyn", node.span)
        if layout is POISON:
            return POISON
    align = max(align, dtype.nbytes)
    start = -(-pool.cursor // align) * align
    count = prod(e.value for e in shape)
    nbytes = -(-count * dtype.bits // 8)
    view = views.new_view(st, pool.arena, shape, dtype, "shared.dyn", layout,
                         ir.IntImm(INT32, start // dtype.nbytes), align, node.span)
    if view is POISON:
        return POISON
    pool.cursor = start + nbytes
    pool.high_water = max(pool.high_water, pool.cursor)
    pool.allocations.append((view, start, start + nbytes, node.span))
    return view


def pool_alloc_mma(st, pool: SmemPool, node):
    """A shared tile in the MMA swizzle layout (`auto` is the 128-byte swizzle), 1024-byte aligned."""
    swizzle_node = next((k.value for k in node.keywords if k.name == "swizzle_mode"), None)
    mode = "auto" if swizzle_node is None else expr.const_str(st, swizzle_node, "`swizzle_mode`")
    if mode not in SWIZZLE_BYTES:
        if mode is not None:
            st.diags.error("E0305", f"unknown swizzle mode \"{mode}\"", swizzle_node.span,
                             help="use \"auto\", \"128B\", \"64B\", \"32B\" or \"none\"")
        return POISON
    stripped = ast.Call(node.span, node.func, node.args, tuple(k for k in node.keywords if k.name != "swizzle_mode"))
    shape_node = stripped.args[0] if stripped.args else next((k.value for k in stripped.keywords
                                                              if k.name == "shape"), None)
    dtype_node = stripped.args[1] if len(stripped.args) > 1 else next((k.value for k in stripped.keywords
                                                                       if k.name == "dtype"), None)
    shape = views.shape_arg(st, shape_node, symbolic=False) if shape_node is not None else None
    dtype = expr.dtype_arg(st, dtype_node) if dtype_node is not None else parse_dtype("float16")
    if shape is None or dtype is None:
        return POISON
    layout = mma_layout(st, shape, dtype, SWIZZLE_BYTES[mode], node)
    if layout is POISON:
        return POISON
    return pool_alloc(st, pool, stripped, layout=layout, default_align=1024, dtype_default=dtype.name)


def mma_layout(st, shape, dtype, swizzle_bytes: int, node):
    if len(shape) < 2:
        st.diags.error("E0517", "an MMA operand tile needs at least two dimensions", node.span)
        return POISON
    rows, cols = prod(e.value for e in shape[:-1]), shape[-1].value
    row_bytes = cols * dtype.bits // 8
    if swizzle_bytes == 0:
        return None
    if row_bytes % swizzle_bytes or rows % 8:
        st.diags.error("E0517", f"a {swizzle_bytes}-byte swizzle needs rows that are a multiple of "
                                  f"{swizzle_bytes} bytes and a multiple of 8 rows; this tile has {row_bytes}-byte "
                                  f"rows and {rows} rows", node.span,
                         help="use a smaller `swizzle_mode` (\"64B\", \"32B\") or \"none\"")
        return POISON
    per_element = max((128 // dtype.bits).bit_length() - 1, 0)
    length = {128: 3, 64: 2, 32: 1}[swizzle_bytes]
    base = layouts.tile_layout(list(shape))
    return ir.Layout(base.shard, (), (), (per_element, length, 3, True), f"{swizzle_bytes}B MMA swizzle")


def pool_move(st, pool: SmemPool, node):
    args = registry.bind_args(st, node, ("offset",), "pool.move_base_to")
    if args is None or not _pool_open(st, pool, node):
        return POISON
    offset = expr.const_int(st, args["offset"], "the pool offset")
    if offset is None:
        return POISON
    if offset < 0:
        st.diags.error("E0505", f"pool offset {offset} is negative", args["offset"].span)
        return POISON
    pool.cursor = offset
    return Void(ir.Seq(()))


def pool_commit(st, pool: SmemPool, node):
    args = registry.bind_args(st, node, ("size=None",), "pool.commit")
    if args is None:
        return POISON
    if pool.committed is not None:
        st.diags.error("E0710", "`commit()` called twice on one pool", node.span,
                         notes=[Note("first committed here", pool.committed)])
        return POISON
    size = pool.high_water
    if not is_default(args["size"]):
        given = expr.const_int(st, args["size"], "the committed size")
        if given is None:
            return POISON
        if given < pool.high_water:
            st.diags.error("E0711", f"`commit({given})` is smaller than the {pool.high_water} bytes the pool's "
                                      f"allocations reach", args["size"].span)
            return POISON
        size = given
    pool.committed = node.span
    storage = pool.arena.storage
    storage.size = size
    st.arena_size_from_pool = size
    return Void(ir.Seq(()))


def finish_pools(st, body) -> None:
    """At the end of the kernel: every pool committed; overlaps after rewinds that are both used."""
    live = liveness(body)
    for pool in st.pools:
        if isinstance(pool, SmemPool):
            if pool.committed is None and pool.allocations:
                st.diags.error("E0710", "this `SMEMPool` is never committed", pool.span,
                                 help="call `pool.commit()` after the last allocation; it fixes the arena size")
            for i, (a, a0, a1, aspan) in enumerate(pool.allocations):
                for b, b0, b1, bspan in pool.allocations[i + 1:]:
                    # b reuses a's bytes while a is still read or written after b appears
                    ka, kb = _key(a), _key(b)
                    if a0 < b1 and b0 < a1 and ka in live and kb in live and live[ka][1] > live[kb][0]:
                        a_name, b_name = _name(a), _name(b)
                        st.diags.warning("W0101", f"`{b_name}` (bytes {b0}..{b1}) overlaps `{a_name}` "
                                                    f"(bytes {a0}..{a1}), which is still in use", bspan,
                                           notes=[Note(f"`{a_name}` is allocated here", aspan)],
                                           help="make sure their lifetimes do not overlap, or allocate "
                                                "after the cursor instead of rewinding")
        elif pool.committed is not None and pool.deallocated is None:
            st.diags.error("E0712", "this `TMEMPool` is committed but never deallocated", pool.span,
                             help="call `tmem_pool.dealloc()` before the kernel ends")


# -- TMEMPool ---------------------------------------------------------------------------------
@handler("TMEMPool", "pool", "total_cols=512", "cta_group=1", "alloc_warp=0", "dealloc_warp=None",
         "tmem_addr=None", "sync_after_alloc=True")
def _tmem_pool(st, node, a):
    smem = expr.elab(st, a["pool"])
    if not isinstance(smem, SmemPool):
        if smem is not POISON:
            st.diags.error("E0305", "`T.TMEMPool` takes the kernel's `T.SMEMPool`", a["pool"].span)
        return POISON
    total = TMEM_COLUMNS if is_default(a["total_cols"]) else expr.const_int(st, a["total_cols"], "`total_cols`")
    group = 1 if is_default(a["cta_group"]) else expr.const_int(st, a["cta_group"], "`cta_group`")
    alloc_warp = 0 if is_default(a["alloc_warp"]) else expr.const_int(st, a["alloc_warp"], "`alloc_warp`")
    dealloc_warp = alloc_warp if is_default(a["dealloc_warp"]) else \
        expr.const_int(st, a["dealloc_warp"], "`dealloc_warp`")
    sync = True if is_default(a["sync_after_alloc"]) else bool(expr.elab(st, a["sync_after_alloc"]).value)
    if None in (total, group, alloc_warp, dealloc_warp):
        return POISON
    if total < TMEM_MIN_ALLOC_COLUMNS or total > TMEM_COLUMNS or total & (total - 1):
        st.diags.error("E0701", f"{total} tensor-memory columns: the count must be a power of two from "
                                  f"{TMEM_MIN_ALLOC_COLUMNS} to {TMEM_COLUMNS}", a["total_cols"].span)
        return POISON
    if group not in (1, 2):
        st.diags.error("E0701", f"`cta_group={group}` must be 1 or 2", a["cta_group"].span)
        return POISON
    if is_default(a["tmem_addr"]):
        slot = pool_alloc(st, smem, ast.Call(node.span, node.func, (
            ast.Tuple(node.span, (ast.Constant(node.span, 1),)), ast.Constant(node.span, "uint32")), ()))
    else:
        slot = expr.elab(st, a["tmem_addr"])
    if slot is POISON:
        return POISON
    if not isinstance(slot, ir.Buffer) or slot.scope not in ("shared", "shared.dyn") or slot.dtype != UINT32:
        st.diags.error("E0704", "`tmem_addr` must be a shared uint32 slot", node.span,
                         help="pass `pool.alloc((1,), \"uint32\")`, or leave it out")
        return POISON
    tpool = TmemPool(smem, slot, total, group, alloc_warp, dealloc_warp, sync, node.span)
    st.pools.append(tpool)
    return tpool


def tmem_pool_method(st, pool: TmemPool, name: str, node):
    if name == "alloc":
        return tmem_pool_alloc(st, pool, node)
    if name == "commit":
        return tmem_pool_commit(st, pool, node)
    if name == "dealloc":
        return tmem_pool_dealloc(st, pool, node)
    st.diags.error("E0301", f"`TMEMPool` has no method `{name}`", node.func.span,
                     help=did_you_mean(name, ["alloc", "commit", "dealloc"]))
    return POISON


def tmem_pool_alloc(st, pool: TmemPool, node):
    args = registry.bind_args(st, node, ("shape", "dtype='float32'", "layout=None", "cols=None"), "tmem_pool.alloc")
    if args is None:
        return POISON
    shape = views.shape_arg(st, args["shape"], symbolic=False)
    dtype = expr.dtype_or_default(st, args["dtype"])
    if shape is None or dtype is None:
        return POISON
    if not is_default(args["cols"]):
        cols = expr.const_int(st, args["cols"], "`cols`")
    elif len(shape) == 2:
        rows = shape[0].value
        cols = shape[1].value * dtype.bits // 32 * (rows // 128 if rows > 128 else 1)
    else:
        st.diags.error("E0305", "give `cols=` for a tensor-memory buffer that is not 2-D", node.span)
        return POISON
    if cols is None:
        return POISON
    start = pool.cursor
    if start + cols > pool.total_cols:
        st.diags.error("E0708", f"`{start + cols - pool.total_cols}` columns too many: this allocation needs "
                                  f"columns {start}..{start + cols} of a pool of {pool.total_cols}", node.span)
        return POISON
    pool.cursor = start + cols
    layout = None
    if not is_default(args["layout"]) and not (isinstance(args["layout"], ast.Constant)
                                               and args["layout"].value is None):
        layout = views.layout_value(st, args["layout"])
        if layout is POISON:
            return POISON
    return ptx_calls.tmem_buffer(st, shape, dtype, layout, ir.IntImm(INT32, start), node.span)


def _warp_var(st, node):
    warp = threads.warp_id_var(st)
    if warp is None:
        st.diags.error("E0709", "a `TMEMPool` needs the kernel's warp ids to pick the warp that allocates",
                         node.span, help="declare `warp_id = T.warp_id([n])` at the top of the kernel body")
    return warp


def tmem_pool_commit(st, pool: TmemPool, node):
    if pool.committed is not None:
        st.diags.error("E0710", "`commit()` called twice on one `TMEMPool`", node.span,
                         notes=[Note("first committed here", pool.committed)])
        return POISON
    warp = _warp_var(st, node)
    if warp is None:
        return POISON
    pool.committed = node.span
    alloc = ptx.lookup(f"tcgen05.alloc.cta_group::{pool.cta_group}.sync.aligned.shared::cta.b32")
    slot_ptr = ir.BufferAddress(parse_dtype("handle"), pool.slot, (ir.IntImm(INT32, 0),), node.span)
    call = ir.Call(VOID, alloc.helper, (slot_ptr, ir.IntImm(UINT32, pool.total_cols)), node.span)
    st.module.ptx_instructions[alloc.helper] = alloc
    state.require(st, alloc.feature, "tensor memory (`T.TMEMPool`)", node.span)
    st.tmem_alloc = (pool.slot, pool.total_cols, node.span)
    stmts = [ir.If(ir.binop("==", warp, ir.IntImm(INT32, pool.alloc_warp)), ir.Evaluate(call, node.span),
                   None, node.span)]
    if pool.sync_after_alloc:
        stmts.append(ir.Evaluate(ir.Call(VOID, "__syncthreads", (), node.span), node.span))
        fence = ptx.lookup("tcgen05.fence::after_thread_sync")
        st.module.ptx_instructions[fence.helper] = fence
        stmts.append(ir.Evaluate(ir.Call(VOID, fence.helper, (), node.span), node.span))
    return Void(ir.seq(stmts))


def tmem_pool_dealloc(st, pool: TmemPool, node):
    if pool.committed is None:
        st.diags.error("E0710", "`dealloc()` before `commit()`", node.span)
        return POISON
    if pool.deallocated is not None:
        st.diags.error("E0710", "`dealloc()` called twice on one `TMEMPool`", node.span,
                         notes=[Note("first deallocated here", pool.deallocated)])
        return POISON
    warp = _warp_var(st, node)
    if warp is None:
        return POISON
    pool.deallocated = node.span
    group = pool.cta_group
    relinquish = ptx.lookup(f"tcgen05.relinquish_alloc_permit.cta_group::{group}.sync.aligned")
    dealloc = ptx.lookup(f"tcgen05.dealloc.cta_group::{group}.sync.aligned.b32")
    st.module.ptx_instructions.update({relinquish.helper: relinquish, dealloc.helper: dealloc})
    base = ir.BufferLoad(UINT32, pool.slot, (ir.IntImm(INT32, 0),), node.span)
    body = ir.seq([ir.Evaluate(ir.Call(VOID, relinquish.helper, (), node.span), node.span),
                   ir.Evaluate(ir.Call(VOID, dealloc.helper, (base, ir.IntImm(UINT32, pool.total_cols)),
                                       node.span), node.span)])
    return Void(ir.If(ir.binop("==", warp, ir.IntImm(INT32, pool.dealloc_warp)), body, None, node.span))


