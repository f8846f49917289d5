"""TMA gather4 (`gather4=`) and run-time descriptor selection (`src_selector=`) for the `tma`
copy_async variant (transpiler/tile/copy_async/tma.py; docs/tile-primitives.md, copy_async).

gather4 (sm_100a): `cp.async.bulk.tensor.2d...tile::gather4` reads four whole rows of a 2-d
tensor, named by four absolute row coordinates, through a tensor map whose box is one row high
(`{width, 1}`, innermost first); its coordinates are `{column, row0, row1, row2, row3}`. In
shared memory the four rows land one after another, as a 4 x width box would, with the map's
swizzle applied to the shared address bits; so the destination's first row may start anywhere
on a 128-byte boundary of a swizzled buffer, and the instruction is given the unswizzled
address of that start. Both are checked element by element against the shared layout.

`src_selector=[(cond, B), ...]`: a tensor map per candidate buffer (same box, swizzle and
options as the main one); the instruction takes the first candidate whose condition holds,
else the main buffer's, chosen at run time as a pointer (one instruction, no branch)."""
from __future__ import annotations

from itertools import product

from transpiler import ir
from transpiler.target import tma
from transpiler.target.dtypes import HANDLE, INT32, UINT64
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import Offsets, shared_stages, tma_swizzle
from transpiler.tile.registry import Decline

ROWS = 4
SHARED_ALIGN = 128  # bytes: where a TMA write into shared memory may start
MAX_STAGES = 4096  # run-time stage indices tried when the shared region starts at one


# -- gather4 --------------------------------------------------------------------------------------

def gather_rows(opts: dict, load: bool, cx) -> list[ir.Expr] | None:
    """`gather4=[r0, r1, r2, r3]` as four int32 row coordinates; None without the option."""
    value = opts.get("gather4")
    if value is None:
        return None
    if not load:
        raise Decline("`gather4=` is only for global-to-shared copies")
    cx.require("tcgen05", "TMA gather4 (`gather4=`)")
    if not isinstance(value, tuple) or len(value) != ROWS:
        count = f"{len(value)} values" if isinstance(value, tuple) else "one value"
        raise Decline(f"`gather4=` names exactly four rows, not {count}")
    rows = []
    for k, item in enumerate(value):
        if isinstance(item, int) and not isinstance(item, bool):
            if not 0 <= item < 1 << 31:
                raise Decline(f"row {k} of `gather4=` is {item}; a row coordinate is 0 to 2**31 - 1")
            rows.append(ir.IntImm(INT32, item))
        elif isinstance(item, ir.Expr) and item.dtype.is_int:
            rows.append(ir.cast(INT32, item))
        else:
            raise Decline(f"row {k} of `gather4=` is not an integer")
    return rows


def gather_box(g: ir.TileRegion, s: ir.TileRegion, swizzle: int) -> list[int]:
    """The box (outermost first: one row of the region's width) after checking the regions: the
    global one is row 0:1 of a 2-d tensor, the shared one four rows of that width."""
    gbuf = g.buffer
    if len(gbuf.shape) != 2:
        raise Decline(f"TMA gather4 reads rows of a 2-d tensor; `{gbuf.name}` has {len(gbuf.shape)} dimensions")
    rows, width = regions.const_extents(g)
    if rows != 1:
        raise Decline(f"the global region of a gather4 copy is one row (`{gbuf.name}[0:1, ...]`, the rows being "
                      f"`gather4=`'s), not {rows}")
    if not ir.is_const(g.starts[0], 0):
        raise Decline(f"the global region of a gather4 copy is row 0:1 of `{gbuf.name}`: the four rows "
                      f"`gather4=` names are absolute")
    nbytes = gbuf.dtype.nbytes
    limit = tma.MAX_BOX
    if swizzle:
        limit = min(limit, tma.SWIZZLE_BYTES[swizzle] // nbytes)
    if width > limit:
        why = f"the {tma.SWIZZLE_BYTES[swizzle]}-byte swizzle span" if limit < tma.MAX_BOX else "TMA's box limit"
        raise Decline(f"a gather4 row is {width} elements; one instruction moves rows of at most {limit} ({why}): "
                      f"split the columns over several calls")
    if (width * nbytes) % tma.GLOBAL_ALIGN:
        raise Decline(f"a gather4 row is {width * nbytes} bytes; TMA moves rows of a multiple of "
                      f"{tma.GLOBAL_ALIGN} bytes")
    shape = regions.squeezed(s)
    if shape != (ROWS, width):
        raise Decline(f"the shared region of a gather4 copy holds the four rows ({ROWS} x {width} elements), "
                      f"not {regions.const_extents(s)}")
    return [1, width]


def gather_destination(cx, s: ir.TileRegion, width: int, swizzle: int) -> ir.BufferAddress:
    """The shared address the instruction takes: where the four rows start before the swizzle,
    after checking that each element lands where the buffer's layout has it."""
    sbuf = s.buffer
    offsets, nbytes, variable, choices = shared_stages(cx, s, swizzle)
    extents = regions.const_extents(s)
    if len(list(product(*choices))) > MAX_STAGES:
        raise Decline("the region is too large for tirxc to check its shared layout")
    row_dim, col_dim = [d for d, e in enumerate(extents) if e != 1]
    swz = tma_swizzle(swizzle, nbytes)
    starts_of = {}
    for fixed in product(*choices):
        starts = [fixed[d] if d in variable else s.starts[d].value for d in range(len(extents))]

        def at(r, j):
            coords = list(starts)
            coords[row_dim] += r
            coords[col_dim] += j
            return offsets(coords)
        start = swz(at(0, 0))  # the swizzle undoes itself: the unswizzled offset of the first element
        if (start * nbytes) % SHARED_ALIGN:
            raise Decline(f"the gather4 rows start at byte {start * nbytes} of `{sbuf.name}`, not at a multiple of "
                          f"{SHARED_ALIGN} bytes")
        for r, j in product(range(ROWS), range(width)):
            if at(r, j) != swz(start + r * width + j):
                raise Decline(f"the layout of `{sbuf.name}` does not hold the four rows as TMA writes them "
                              f"({width}-element rows one after another{', swizzled' if swizzle else ''})")
        starts_of[fixed] = start
    return ir.BufferAddress(HANDLE, _flat(sbuf, offsets), (_start_expr(s, variable, starts_of),), s.span)


def _start_expr(s: ir.TileRegion, variable: list[int], starts_of: dict) -> ir.Expr:
    """The rows' start as an expression of the run-time stage indices (a constant step each)."""
    origin = tuple(0 if d in variable else None for d in range(len(s.starts)))
    base = starts_of[origin]
    steps = {}
    for d in variable:
        one = tuple(1 if k == d else v for k, v in enumerate(origin))
        steps[d] = starts_of[one] - base if one in starts_of else 0
    for fixed, start in starts_of.items():
        if start != base + sum(fixed[d] * steps[d] for d in variable):
            raise Decline(f"the stages of `{s.buffer.name}` are not a constant distance apart")
    expr = c(base)
    for d in variable:
        expr = ir.add(expr, ir.mul(ir.cast(INT32, s.starts[d]), c(steps[d])))
    return expr


def _flat(sbuf: ir.Buffer, offsets: Offsets) -> ir.Buffer:
    """The shared buffer's memory as a flat array of its elements (the instruction's address is
    an element offset from its start, not a coordinate of its layout)."""
    size = 1
    for extent in offsets.shape:
        size *= extent
    return ir.Buffer(sbuf.name, (c(size),), sbuf.dtype, sbuf.scope, sbuf.storage, None, sbuf.elem_offset,
                     sbuf.align, span=sbuf.span)


# -- src_selector ---------------------------------------------------------------------------------

def selected_map(cx, opts: dict, load: bool, main: ir.Buffer, main_map: ir.Buffer, make_map,
                 span) -> tuple[list, ir.Expr]:
    """The tensor map operand: the main map's address, or with `src_selector=` a uint64 local
    holding the first candidate's map whose condition holds (else the main one's); `make_map(buf)`
    makes (or reuses) the map of a candidate buffer with the main map's box and options."""
    main_addr = _map_address(main_map, span)
    value = opts.get("src_selector")
    if value is None or value == ():
        return [], main_addr
    if not load:
        raise Decline("`src_selector=` is only for global-to-shared copies")
    if not isinstance(value, tuple):
        raise Decline("`src_selector=` is a list of (condition, global buffer) pairs")
    chosen = []
    for k, item in enumerate(value):
        if not isinstance(item, tuple) or len(item) != 2:
            raise Decline(f"item {k} of `src_selector=` is not a (condition, global buffer) pair")
        cond, region = item
        if not isinstance(cond, ir.Expr) or not (cond.dtype.is_int or cond.dtype.is_bool):
            raise Decline(f"the condition of item {k} of `src_selector=` is not a run-time value")
        if not isinstance(region, ir.TileRegion) or region.buffer.scope != "global":
            raise Decline(f"the candidate of item {k} of `src_selector=` is not a global buffer")
        buf = region.buffer
        whole = all(ir.is_const(st, 0) for st in region.starts) and all(
            ir.is_const(ir.binop("-", e, full), 0) for e, full in zip(region.extents, buf.shape))
        if not whole:
            raise Decline(f"item {k} of `src_selector=` is a region of `{buf.name}`; a candidate is a whole "
                          f"buffer (a region or view of one is not supported yet)")
        if buf.dtype != main.dtype:
            raise Decline(f"the candidate `{buf.name}` of `src_selector=` is {buf.dtype.name}; `{main.name}` is "
                          f"{main.dtype.name}")
        if len(buf.shape) != len(main.shape):
            raise Decline(f"the candidate `{buf.name}` of `src_selector=` has {len(buf.shape)} dimensions; "
                          f"`{main.name}` has {len(main.shape)}")
        if not cond.dtype.is_bool:
            cond = ir.binop("!=", cond, ir.IntImm(cond.dtype, 0))
        chosen.append((cond, _map_address(make_map(buf), span)))
    selected = main_addr
    for cond, addr in reversed(chosen):  # the first candidate whose condition holds
        selected = ir.select(cond, addr, selected)
    var, let = cx.let("tmap", selected)
    return [let], var


def _map_address(tmap: ir.Buffer, span) -> ir.Expr:
    return ir.Cast(UINT64, ir.BufferAddress(HANDLE, tmap, None, span), span)
