"""`copy_async` with tensor memory (Blackwell, sm_100a): `tcgen05_ldst`, a warpgroup moving a
tile between tensor memory and its registers (`tcgen05.ld` / `tcgen05.st`), and `tcgen05_cp`,
one thread copying shared memory into tensor memory (`tcgen05.cp`, by matrix descriptor). Only
the issue: the caller waits (`tcgen05.wait::ld` / `::st`) or commits (`tcgen05.commit`)."""
from __future__ import annotations


from transpiler import ir
from transpiler.ir.tmem import column as tmem_column
from transpiler.target.dtypes import HANDLE, UINT32, UINT64
from transpiler.target.tcgen05 import FP32_COLUMNS
from transpiler.tile.copy_async import tcgen05_16x as x16, tcgen05_cp as cp
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import Offsets, options_of, ptx_call, seq
from transpiler.tile.copy.plan import multiple_of
from transpiler.tile.registry import Decline, check

MAX_NUM = 128  # registers of one tcgen05.ld / st .32x32b (its largest .num)


@check("one side is tensor memory, the other registers")
def one_tmem_side(call, cx):
    kinds = {regions.memory(call.operand("dst")), regions.memory(call.operand("src"))}
    return None if kinds == {"tmem", "local"} else "one side must be tensor memory and the other registers"


def tcgen05_ldst(call: ir.TileCall, cx) -> ir.Stmt:
    """The `.32x32b` shape: thread t of the warpgroup holds row t of a 128-lane tile (datapath D),
    its registers the row's columns in order; `.xN` as wide as the columns allow. A register
    fragment of a `.16x*b` shape takes that shape instead (copy_async/tcgen05_16x.py)."""
    dst, src = call.operand("dst"), call.operand("src")
    options_of(call, (), "tcgen05_ldst")
    load = regions.memory(src) == "tmem"
    tmem, local = (src, dst) if load else (dst, src)
    dtype = tmem.buffer.dtype
    if dtype.bits not in (8, 16, 32) or dtype.lanes != 1:
        raise Decline(f"tensor memory moves 8-, 16- and 32-bit data, not {dtype.name}")
    per = 32 // dtype.bits  # elements per 32-bit register and column
    sixteen = x16.fragment_shape(local)
    if sixteen is not None:
        return _sixteen(call, cx, load, tmem, local, *sixteen)
    pair = x16.pair_image_plan(tmem, local)
    if pair is not None:  # a CTA pair's 64-row accumulator: 128 lanes of half the columns
        cols, col0 = pair
        first, lane0, col0 = c(0), 0, c(col0)
    else:
        rows, cols = _tmem_tile(tmem)
        first = _register_row(local, rows, cx)
        lane0, col0 = tmem.starts[0].value, tmem.starts[1]
    if cols % per or not _multiple(first, per):
        raise Decline(f"the columns are not whole 32-bit registers ({per} {dtype.name} each)")
    if not _multiple(col0, per):
        raise Decline(f"the tensor-memory region does not start on a 32-bit column ({per} {dtype.name} each)")
    base = _tmem_base(cx)
    stmts = []
    words = _words(call, cx, local, per, stmts)
    reg0 = x16.exact_div(first, per)
    for done, num in _pieces(cols // per, MAX_NUM):
        column = tmem_column(ir.add(col0, c(done * per)), dtype, tmem.buffer.allocated_addr)
        taddr = ir.add(base, ir.cast(UINT32, ir.add(c(lane0 << 16), column)))
        operands = [ir.BufferLoad(words.dtype, words, (ir.add(reg0, c(done + k)),), call.span) for k in range(num)]
        stmts.append(_move(cx, load, f"32x32b.x{num}", taddr, operands, call.span))
    return seq(stmts)


def _pieces(total: int, most: int | None = None):
    """(first, count) of each `.xN` issue covering `total` repetitions: N a power of two, largest
    first, at most `most`."""
    done = 0
    while done < total:
        num = 1 << ((total - done).bit_length() - 1)
        num = num if most is None else min(num, most)
        yield done, num
        done += num


def _move(cx, load: bool, shape: str, taddr: ir.Expr, operands: list, span) -> ir.Stmt:
    """One `tcgen05.ld` (registers first) or `tcgen05.st` (the address first) of a shape `.xN`."""
    if load:
        return ptx_call(cx, f"tcgen05.ld.sync.aligned.{shape}.b32", *operands, taddr, span=span)
    return ptx_call(cx, f"tcgen05.st.sync.aligned.{shape}.b32", taddr, *operands, span=span)


def _sixteen(call, cx, load: bool, tmem, local, shape: str, rows: int, cols: int) -> ir.Stmt:
    """A `.16x64b` / `.16x128b` / `.16x256b` fragment, whole or a column slice of whole
    repetitions (copy_async/tcgen05_16x.py): per 16-lane half of each warp's slab, `.xN` pieces
    (N a power of two) of the slice's registers in order."""
    plan = x16.slab_plan(tmem, local, shape, rows, cols)
    dtype = tmem.buffer.dtype
    base = _tmem_base(cx)
    stmts = []
    per = 32 // dtype.bits
    words = _words(call, cx, local, per, stmts)
    regs = x16.REGS_PER_REP[shape]
    per_rep = FP32_COLUMNS[shape] * per
    for k in range(plan.issues):
        for done, num in _pieces(plan.reps):
            start = c(plan.col0 + done * per_rep)
            start = start if plan.shift is None else ir.add(plan.shift, start)
            column = tmem_column(start, dtype, tmem.buffer.allocated_addr)
            taddr = ir.add(base, ir.cast(UINT32, ir.add(c((plan.lane0 + 16 * k) << 16), column)))
            first = k * plan.regs_per_slab + done * regs
            operands = [ir.BufferLoad(words.dtype, words, (ir.add(plan.reg0, c(first + i)),), call.span)
                        for i in range(num * regs)]
            stmts.append(_move(cx, load, f"{shape}.x{num}", taddr, operands, call.span))
    return seq(stmts)


def _words(call, cx, local, per: int, stmts: list):
    """The thread's registers as 32-bit words: the register array itself, or for 16-bit data a
    typed pointer over it (declared into stmts)."""
    regs = regions.registers(local.buffer)
    words = regs
    if per > 1:  # the registers as 32-bit words: a typed pointer over the same array
        storage = regs.storage
        name = cx.names.fresh(f"{local.buffer.name or 'regs'}_words")
        view = ir.Storage(name, UINT32, "local", "view_pointer", None, 4, base=storage)
        words = ir.Buffer("", (c(regs.shape[0].value // per),), UINT32, "local", view, None, c(0), 4, call.span)
        stmts.append(ir.DeclView(words, call.span))
        if storage.kind == "array":
            cx.raise_alignment(storage, 4)
    return words


def _tmem_tile(tmem: ir.TileRegion) -> tuple[int, int]:
    """(rows, columns) of a 128-lane tensor-memory region with lane = row, column = TCol index."""
    buf = tmem.buffer
    layout = buf.layout
    shape = buf.const_shape()
    if shape is None or len(shape) != 2 or layout is None or len(layout.shard) != 2 or layout.replica:
        raise Decline("the tensor-memory buffer is not a 2-D tile with one TLane and one TCol iter")
    lane, col = layout.shard
    if (lane.axis, col.axis) != ("TLane", "TCol") or not ir.is_const(lane.stride, 1) or not ir.is_const(col.stride, 1):
        raise Decline("the tensor-memory layout is not rows on lanes and columns on columns (stride 1 each); "
                      "only the 128-lane datapath D is supported yet")
    extents = regions.const_extents(tmem)
    if not isinstance(tmem.starts[0], ir.IntImm):
        raise Decline("the tensor-memory region starts at a run-time lane")
    if tmem.starts[0].value != 0 or extents[0] != 128 or shape[0] != 128:
        raise Decline("the `.32x32b` copy moves all 128 lanes: the region must span rows 0 to 128")
    return extents[0], extents[1]


def _multiple(e: ir.Expr, n: int) -> bool:
    return e.value % n == 0 if isinstance(e, ir.IntImm) else multiple_of(e, n)


def _register_row(local: ir.TileRegion, rows: int, cx) -> ir.Expr:
    """The register of the region's first column (a run-time value where the region's column start
    is), for a fragment whose rows are the warpgroup's threads (`tid_in_wg`, stride 1) and whose
    columns are consecutive registers."""
    buf = local.buffer
    layout = buf.layout
    shape = buf.const_shape()
    if layout is None or shape is None or len(shape) != 2 or layout.replica or len(layout.shard) != 2:
        raise Decline("the registers are not a (rows, columns) fragment spread over the warpgroup")
    row, col = layout.shard
    axis_ok = row.axis == "tid_in_wg" or (row.axis == "tx" and cx.block_size() == 128)
    if not (axis_ok and ir.is_const(row.stride, 1) and ir.is_const(row.extent, 128)
            and col.axis == "m" and ir.is_const(col.stride, 1)):
        raise Decline("the register layout is not the `.32x32b` fragment (row = `tid_in_wg`, columns in "
                      "consecutive registers)")
    if not ir.is_const(local.starts[0], 0) or regions.const_extents(local)[0] != rows:
        raise Decline("the register region must span all 128 rows")
    first = local.starts[1]
    for axis, value in layout.offset:
        if axis == "m":
            first = ir.add(first, value)
    return first


def _tmem_base(cx) -> ir.Expr:
    """The allocation's address: the slot `tcgen05.alloc` wrote (or that the tensor-memory buffers'
    `allocated_addr=` read, sema/memory/tmem_packing.py), as the checker's tensor-memory addresses
    take it."""
    slot = cx.call.threads.tmem_slot
    if slot is None:
        raise Decline("the kernel allocates no tensor memory (`tcgen05.alloc`) before this copy")
    return ir.BufferLoad(UINT32, slot, (c(0),), cx.call.span)


# -- tcgen05.cp: shared -> tensor memory (the planning: copy_async/tcgen05_cp.py) -------------------

MAKE_DESC = "tirx_cuda_tcgen05_make_desc"


def tcgen05_cp(call: ir.TileCall, cx) -> ir.Stmt:
    """One thread issues `tcgen05.cp` per atom of columns, with the first shape (widest first, or
    the one `shape=` / `multicast=` name) whose rows and multicast are the tensor-memory tile's
    lanes and whose descriptor reads every element where the shared layout keeps it. With
    `cta_group=2` the same copies are pair-collective: issued by one CTA of the pair, each CTA
    copies its own shared tile (the same offsets) into its own tensor memory."""
    dst, src = call.operand("dst"), call.operand("src")
    opts = options_of(call, ("cta_group", "shape", "multicast"), "tcgen05_cp")
    group = opts.get("cta_group", 1)
    group = group.value if isinstance(group, ir.IntImm) else group
    if group not in (1, 2):
        raise Decline(f"`cta_group=` is 1 or 2, not {group!r}")
    shapes = cp.candidates(opts)
    dtype = dst.buffer.dtype
    if dtype.bits not in (8, 16, 32) or dtype.lanes != 1:  # 4-bit: one to a byte in shared, packed in columns
        raise Decline(f"`tcgen05.cp` moves 8-, 16- and 32-bit data here, not {dtype.name} (not supported yet)")
    mode, view = cp.shared_swizzle(src.buffer)
    offsets, plain = Offsets.make(src.buffer), Offsets.make(view)
    if offsets is None or plain is None or not all(isinstance(s, ir.IntImm) for s in src.starts):
        raise Decline("the shared layout is not a constant memory layout over a constant region")
    places, replica = cp.tmem_places(dst)
    nbytes = dtype.nbytes
    why = None
    for shape in shapes:
        fitted = cp.fit(places, replica, shape)
        if isinstance(fitted, str):
            why = why or fitted
            continue
        col0, cols, table = fitted
        if (col0 * dtype.bits) % 128:
            why = (f"the tensor-memory tile starts at column {col0} ({dtype.name}), not at a multiple of 128 bits "
                   "(`tcgen05.cp` writes whole 128-bit units)")
            continue
        per_atom = shape.row_bytes // nbytes  # columns (elements) one instruction moves per row
        if cols % per_atom:
            why = f"{cols} columns are not whole {shape.row_bytes}-byte rows of `{shape.full}`"
            continue
        found = cp.plan(src, offsets, plain, table, shape, cols, nbytes, mode)
        if isinstance(found, str):
            why = found
            continue
        sbo, lbo, starts = found
        stmts = []
        base = _tmem_base(cx)
        for k, start in enumerate(starts):
            column = tmem_column(c(col0 + k * per_atom), dtype, dst.buffer.allocated_addr)
            taddr = ir.add(base, ir.cast(UINT32, column))
            at = tuple(c(x) for x in cp.src_coords(src, table[0, k * per_atom]))
            address = ir.BufferAddress(HANDLE, view, at, src.span)  # the unswizzled address
            desc = ir.Call(UINT64, MAKE_DESC, (address, c(lbo >> 4), c(sbo >> 4), c(mode)), call.span)
            stmts.append(ptx_call(cx, f"tcgen05.cp.cta_group::{group}.{shape.full}", taddr, desc, span=call.span))
        return seq(stmts)
    raise Decline(why or "no tcgen05.cp shape fits")
