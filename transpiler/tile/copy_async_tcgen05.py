"""`copy_async` with tensor memory (Blackwell, sm_100a): `tcgen05_ldst`, a warpgroup moving a
tile between tensor memory and its registers (`tcgen05.ld` / `tcgen05.st`), and `tcgen05_cp`,
one thread copying shared memory into tensor memory (`tcgen05.cp`, by matrix descriptor). Only
the issue: the caller waits (`tcgen05.wait::ld` / `::st`) or commits (`tcgen05.commit`)."""
from __future__ import annotations

from math import prod

from transpiler import ir
from transpiler.sema import tmem_packing
from transpiler.target.dtypes import HANDLE, UINT32, UINT64
from transpiler.tile import copy_async_tcgen05_16x as x16, regions
from transpiler.tile.checks import min_arch, scopes
from transpiler.tile.context import c
from transpiler.tile.copy_async_common import CONSTANT_EXTENTS, Offsets, options_of, pair, ptx_call, seq
from transpiler.tile.copy_async_ldgsts import SAME_ELEMENTS
from transpiler.tile.variants import Check, Decline, variant

ALLOC = "tirx_ptx_tcgen05_alloc"
MAX_NUM = 128  # registers of one tcgen05.ld / st .32x32b (its largest .num)


def _one_tmem_side(call, cx):
    kinds = {regions.memory(call.operand("dst")), regions.memory(call.operand("src"))}
    return None if kinds == {"tmem", "local"} else "one side must be tensor memory and the other registers"


@variant("copy_async", "tcgen05_ldst", priority=10, when=(
        pair(("tmem", "local"), ("tmem", "local"), "it copies between tensor memory and registers"),
        Check("one side is tensor memory, the other registers", _one_tmem_side),
        scopes("warpgroup"), CONSTANT_EXTENTS, SAME_ELEMENTS, min_arch(100, "tensor memory")))
def tcgen05_ldst(call: ir.TileCall, cx) -> ir.Stmt:
    """The `.32x32b` shape: thread t of the warpgroup holds row t of a 128-lane tile (datapath D),
    its registers the row's columns in order; `.xN` as wide as the columns allow. A register
    fragment of a `.16x*b` shape takes that shape instead (copy_async_tcgen05_16x.py)."""
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
        first, lane0 = 0, 0
    else:
        rows, cols = _tmem_tile(tmem)
        first = _register_row(local, rows, cx)
        lane0, col0 = (s.value for s in tmem.starts)
    if cols % per or first % per:
        raise Decline(f"the columns are not whole 32-bit registers ({per} {dtype.name} each)")
    base = _tmem_base(cx)
    stmts = []
    words = _words(call, cx, local, per, stmts)
    total = cols // per
    done = 0
    while done < total:
        num = 1 << ((total - done).bit_length() - 1)
        num = min(num, MAX_NUM)
        column = tmem_packing.column(c(col0 + done * per), dtype, tmem.buffer.allocated_addr)
        taddr = ir.add(base, ir.cast(UINT32, ir.add(c(lane0 << 16), column)))
        operands = [ir.BufferLoad(words.dtype, words, (c(first // per + done + k),), call.span) for k in range(num)]
        if load:
            stmts.append(ptx_call(f"tcgen05.ld.sync.aligned.32x32b.x{num}.b32", *operands, taddr, span=call.span))
        else:
            stmts.append(ptx_call(f"tcgen05.st.sync.aligned.32x32b.x{num}.b32", taddr, *operands, span=call.span))
        done += num
    return seq(stmts)


def _sixteen(call, cx, load: bool, tmem, local, shape: str, rows: int, cols: int) -> ir.Stmt:
    """A `.16x64b` / `.16x128b` / `.16x256b` fragment (copy_async_tcgen05_16x.py): one issue per
    16-lane half of each warp's slab, the fragment's registers in order."""
    num, lane0, col0, issues = x16.slab_plan(tmem, local, shape, rows, cols)
    dtype = tmem.buffer.dtype
    base = _tmem_base(cx)
    stmts = []
    words = _words(call, cx, local, 32 // dtype.bits, stmts)
    regs = x16.REGS_PER_REP[shape] * num
    column = tmem_packing.column(c(col0), dtype, tmem.buffer.allocated_addr)
    for k in range(issues):
        taddr = ir.add(base, ir.cast(UINT32, ir.add(c((lane0 + 16 * k) << 16), column)))
        operands = [ir.BufferLoad(words.dtype, words, (c(k * regs + i),), call.span) for i in range(regs)]
        if load:
            stmts.append(ptx_call(f"tcgen05.ld.sync.aligned.{shape}.x{num}.b32", *operands, taddr, span=call.span))
        else:
            stmts.append(ptx_call(f"tcgen05.st.sync.aligned.{shape}.x{num}.b32", taddr, *operands, span=call.span))
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
            storage.align = max(storage.align, 4)
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
    if not all(isinstance(s, ir.IntImm) for s in tmem.starts):
        raise Decline("the tensor-memory region starts at a run-time offset")
    if tmem.starts[0].value != 0 or extents[0] != 128 or shape[0] != 128:
        raise Decline("the `.32x32b` copy moves all 128 lanes: the region must span rows 0 to 128")
    return extents[0], extents[1]


def _register_row(local: ir.TileRegion, rows: int, cx) -> int:
    """The register of the region's first column, for a fragment whose rows are the warpgroup's
    threads (`tid_in_wg`, stride 1) and whose columns are consecutive registers."""
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
    if not all(isinstance(s, ir.IntImm) for s in local.starts) or local.starts[0].value != 0 \
            or regions.const_extents(local)[0] != rows:
        raise Decline("the register region must span all 128 rows")
    offset = sum(v.value for a, v in layout.offset if a == "m" and isinstance(v, ir.IntImm))
    return offset + local.starts[1].value


def _tmem_base(cx) -> ir.Expr:
    """The allocation's address: the slot `tcgen05.alloc` wrote (as the checker's tensor-memory
    addresses take it)."""
    for s in ir.all_stmts(cx.kernel.body):
        if isinstance(s, ir.Evaluate) and isinstance(s.value, ir.Call) and s.value.func.startswith(ALLOC):
            slot = s.value.args[0]
            if isinstance(slot, ir.BufferAddress):
                index = slot.indices if slot.indices else (c(0),)
                return ir.BufferLoad(UINT32, slot.buffer, tuple(index), slot.span)
    raise Decline("the kernel allocates no tensor memory (`tcgen05.alloc`) before this copy")


# -- tcgen05.cp: shared -> tensor memory ------------------------------------------------------------

# (shape, rows per instruction, bytes per row, TLane replica (extent, stride) or None)
CP_SHAPES = (("128x256b", 128, 32, None), ("128x128b", 128, 16, None), ("32x128b.warpx4", 32, 16, (4, 32)))
MAKE_DESC = "tirx_cuda_tcgen05_make_desc"


@variant("copy_async", "tcgen05_cp", priority=10, when=(
        pair(("tmem",), ("shared",), "it copies shared memory to tensor memory"),
        scopes("thread"), CONSTANT_EXTENTS, SAME_ELEMENTS, min_arch(100, "tensor memory")))
def tcgen05_cp(call: ir.TileCall, cx) -> ir.Stmt:
    """One thread issues `tcgen05.cp` per atom of columns: the shared rows, in groups of 8 of
    16-byte core-matrix rows, named by a matrix descriptor (no swizzle)."""
    dst, src = call.operand("dst"), call.operand("src")
    opts = options_of(call, ("cta_group", "shape"), "tcgen05_cp")
    group = opts.get("cta_group", 1)
    group = group.value if isinstance(group, ir.IntImm) else group
    if group not in (1, 2):
        raise Decline(f"`cta_group=` is 1 or 2, not {group!r}")
    if group == 2:
        raise Decline("`cta_group=2` copies are not supported yet")
    dtype = dst.buffer.dtype
    if 32 % dtype.bits or dtype.lanes != 1:
        raise Decline(f"tensor memory holds 8-, 16- and 32-bit data, not {dtype.name}")
    if src.buffer.layout is not None and src.buffer.layout.swizzle is not None:
        raise Decline("copies from swizzled shared layouts are not supported yet")
    offsets = Offsets.make(src.buffer)
    if offsets is None or not all(isinstance(s, ir.IntImm) for s in src.starts):
        raise Decline("the shared layout is not a constant memory layout over a constant region")
    lane0, col0, rows, cols, replica, table = _cp_tmem_table(dst)
    forced = opts.get("shape")
    nbytes = dtype.nbytes
    why = None
    for shape, atom_rows, row_bytes, rep in CP_SHAPES:
        if forced is not None and shape != forced and shape.split(".")[0] != forced:
            continue
        if atom_rows != rows or rep != replica:
            why = why or f"the tensor-memory tile ({rows} lanes{', replicated' if replica else ''}) is not `{shape}`'s"
            continue
        per_atom = row_bytes // nbytes  # columns (elements) one instruction moves per row
        if cols % per_atom:
            why = f"{cols} columns are not whole {row_bytes}-byte rows of `{shape}`"
            continue
        plan = _cp_plan(src, offsets, table, rows, cols, per_atom, nbytes, row_bytes)
        if isinstance(plan, str):
            why = plan
            continue
        sbo, lbo, starts = plan
        stmts = []
        base = _tmem_base(cx)
        for k, start in enumerate(starts):
            column = tmem_packing.column(c(col0 + k * per_atom), dtype, dst.buffer.allocated_addr)
            taddr = ir.add(base, ir.cast(UINT32, ir.add(c(lane0 << 16), column)))
            at = tuple(c(x) for x in _src_coords(src, table[0, k * per_atom]))
            address = ir.BufferAddress(HANDLE, src.buffer, at, src.span)
            desc = ir.Call(UINT64, MAKE_DESC, (address, c(lbo >> 4), c(sbo >> 4), c(0)), call.span)
            stmts.append(ptx_call(f"tcgen05.cp.cta_group::{group}.{shape}", taddr, desc, span=call.span))
        return seq(stmts)
    if forced is not None and why is None:
        raise Decline(f"`shape={forced!r}` is not one of " + ", ".join(s for s, *_ in CP_SHAPES))
    raise Decline(why or "no tcgen05.cp shape fits")


def _cp_tmem_table(tmem: ir.TileRegion):
    """(first lane, first column, rows, columns, the TLane replica, {(row, column): the region's flat
    element}) of a tensor-memory region whose layout puts each element on a lane (TLane iters) and
    a column (TCol iters), any number of dimensions: the region must cover a rectangle of lanes x
    columns, each place once. A replica (4, 32@TLane) repeats 32 rows in each lane quarter."""
    buf = tmem.buffer
    layout = buf.layout
    shape = buf.const_shape()
    extents = regions.const_extents(tmem)
    if shape is None or layout is None or extents is None or not all(isinstance(s, ir.IntImm) for s in tmem.starts):
        raise Decline("the tensor-memory buffer is not a constant tile over a constant region")
    iters = list(layout.shard)
    if any(it.axis not in ("TLane", "TCol") or not ir.is_const(it.extent) or not ir.is_const(it.stride)
           for it in iters) or any(a not in ("TLane", "TCol") or not ir.is_const(v) for a, v in layout.offset):
        raise Decline("the tensor-memory layout is not constant TLane and TCol iters")
    replica = None
    if layout.replica:
        if len(layout.replica) != 1 or layout.replica[0].axis != "TLane":
            raise Decline("the tensor-memory layout's replica is not one TLane iter")
        it = layout.replica[0]
        replica = (it.extent.value, it.stride.value) if ir.is_const(it.extent) and ir.is_const(it.stride) else None
    count = prod(extents)  # (enumerated: shared memory bounds it)
    base = {"TLane": 0, "TCol": 0}
    for axis, value in layout.offset:
        base[axis] += value.value
    places = {}
    for flat in range(count):
        coords, rest = [], flat
        for start, extent in zip(reversed(tmem.starts), reversed(extents)):
            coords.append(start.value + rest % extent)
            rest //= extent
        coords.reverse()
        index = 0
        for x, extent in zip(coords, shape):
            index = index * extent + x
        at = dict(base)
        for it in reversed(iters):
            at[it.axis] += (index % it.extent.value) * it.stride.value
            index //= it.extent.value
        places[at["TLane"], at["TCol"]] = flat
    lanes = sorted({lane for lane, _ in places})
    columns = sorted({col for _, col in places})
    lane0, col0 = lanes[0], columns[0]
    rows, cols = lanes[-1] - lane0 + 1, columns[-1] - col0 + 1
    if len(places) != count or rows * cols != count:
        raise Decline("the tensor-memory region is not a rectangle of lanes x columns, each element in its own place")
    if lane0 != 0:
        raise Decline("the tensor-memory region must start at lane 0")
    table = {(lane - lane0, col - col0): flat for (lane, col), flat in places.items()}
    return lane0, col0, rows, cols, replica, table


def _src_coords(src: ir.TileRegion, flat: int) -> list[int]:
    """The buffer coordinates of the region's flat element (row-major over its extents)."""
    extents = regions.const_extents(src)
    coords = []
    for start, extent in zip(reversed(src.starts), reversed(extents)):
        coords.append(start.value + flat % extent)
        flat //= extent
    return coords[::-1]


def _cp_plan(src: ir.TileRegion, offsets, table, rows: int, cols: int, per_atom: int, nbytes: int,
             row_bytes: int):
    """(SBO, LBO, the descriptor start offset of each atom) in bytes, when every element of the
    region sits where the no-swizzle descriptor says: byte (r // 8) * SBO + (r % 8) * 16 +
    (b // 16) * LBO + b % 16 of its atom (b the byte in the row); else why not. `table` gives the
    region's element at each (row, column) of tensor memory, src's element of the same index
    being the one copied there."""
    def at(r, col):
        return offsets(_src_coords(src, table[r, col])) * nbytes

    atoms = cols // per_atom
    sbo = at(8, 0) - at(0, 0) if rows > 8 else 0
    lbo = at(0, 16 // nbytes) - at(0, 0) if row_bytes > 16 else 0
    if sbo < 0 or lbo < 0 or sbo % 16 or lbo % 16:
        return "the shared rows are not in 8-row groups of 16-byte core-matrix rows"
    starts = []
    for k in range(atoms):
        start = at(0, k * per_atom)
        if start % 16:
            return "a core matrix does not start at a multiple of 16 bytes"
        for r in range(rows):
            for b in range(0, row_bytes, nbytes):
                want = start + (r // 8) * sbo + (r % 8) * 16 + (b // 16) * lbo + b % 16
                if at(r, k * per_atom + b // nbytes) != want:
                    return "the shared layout is not the core-matrix layout of a no-swizzle descriptor"
        starts.append(start)
    return sbo, lbo, starts
