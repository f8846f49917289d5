"""`copy_async` between tensor memory and a warpgroup's registers with the 16-lane shapes
`.16x64b`, `.16x128b` and `.16x256b` (TIRx: copy_async/tcgen05_ldst.py, the `.16x*b` path).

The registers are a whole `T.alloc_tcgen05_ldst_frag(shape, (rows, cols), dtype)` fragment (or a
view with `tcgen05_atom_layout`): sema/tcgen05_frag.py says which thread and register hold each
(row, column). Each warp moves 16 lanes of its own 32-lane slab per issue. 64 rows are the
datapath F image (row r on lane (r // 16) * 32 + r % 16, the lower or, with `sub_slab=1`, the
upper 16 lanes of each slab); 128 rows are datapath D (row r on lane r), moved as two issues,
the lower then the upper 16 lanes. A copy is one issue per slab with `.x{cols / atom columns}`;
registers are the fragment's, in order, per slab.

Also the 64-row `.32x32b` fragment of a CTA pair's accumulator (datapath B: the column halves on
lanes 64 apart): thread t holds lane t, so it is a 128-lane `.32x32b` copy of N / 2 columns."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema.tcgen05_frag import fragment_iters
from transpiler.target.dtypes import INT32
from transpiler.tile import regions
from transpiler.tile.variants import Decline

SHAPES = ("16x64b", "16x128b", "16x256b")
REGS_PER_REP = {"16x64b": 1, "16x128b": 2, "16x256b": 4}  # 32-bit registers per thread per .x1


def fragment_shape(local: ir.TileRegion) -> tuple[str, int, int] | None:
    """(shape, rows, cols) when the register buffer's layout is a `.16x*b` fragment; else None."""
    buf = local.buffer
    shape = buf.const_shape()
    layout = buf.layout
    if shape is None or len(shape) != 2 or layout is None or layout.replica or layout.offset:
        return None
    have = [(it.extent.value, it.stride.value, it.axis) if ir.is_const(it.extent) and ir.is_const(it.stride)
            else None for it in layout.shard]
    for name in SHAPES:
        if fragment_iters(name, shape[0], shape[1], buf.dtype.bits) == have:
            return name, shape[0], shape[1]
    return None


def _placer(tmem: ir.TileRegion, rows: int, cols: int, shape: str):
    """(i, j) -> (lane, column) of the region's element (i, j), or None where not constant;
    raises Decline when the region is not a constant rows x cols tile or (0, 0) has no place."""
    buf = tmem.buffer
    t_extents = regions.const_extents(tmem)
    dims = [d for d, e in enumerate(t_extents or []) if e != 1]
    if buf.layout is None or not all(isinstance(s, ir.IntImm) for s in tmem.starts) or len(dims) != 2 \
            or [t_extents[d] for d in dims] != [rows, cols]:
        raise Decline(f"the tensor-memory region is not a constant {rows} x {cols} tile (the `{shape}` fragment's "
                      "shape)")

    def at(i: int, j: int) -> tuple[int, int] | None:
        coords = [s.value for s in tmem.starts]
        coords[dims[0]] += i
        coords[dims[1]] += j
        axes = layouts.apply(buf.layout, [ir.IntImm(INT32, v) for v in coords], list(buf.shape))
        lane, col = layouts.linear_index(axes.get("TLane", [])), layouts.linear_index(axes.get("TCol", []))
        return (lane.value, col.value) if ir.is_const(lane) and ir.is_const(col) else None

    if at(0, 0) is None:
        raise Decline("the tensor-memory layout is not constant")
    return at


def slab_plan(tmem: ir.TileRegion, local: ir.TileRegion, shape: str, rows: int, cols: int):
    """(num, first lane, first column (elements), issues) of a copy of the whole fragment, or
    raises Decline saying why not."""
    extents = regions.const_extents(local)
    if not all(isinstance(s, ir.IntImm) and s.value == 0 for s in local.starts) or list(extents or ()) != [rows, cols]:
        raise Decline(f"the `{shape}` copy moves the whole register fragment ({rows} x {cols}); "
                      "a part of it is not supported yet")
    buf = tmem.buffer
    at = _placer(tmem, rows, cols, shape)
    lane0, col0 = at(0, 0)
    row_set = sorted({r for g in range(0, rows, 16) for r in (g, g + 1, g + 15)})
    col_set = sorted({0, 1, cols - 1})
    for i in row_set:
        for j in col_set:
            want = ((i // 16) * 32 + i % 16 if rows == 64 else i, j)
            got = at(i, j)
            if got is None or (got[0] - lane0, got[1] - col0) != want:
                which = "datapath F (`tmem_datapath_layout(\"F\", 64, N)`)" if rows == 64 else \
                    "datapath D (row r on lane r)"
                raise Decline(f"a {rows}-row `{shape}` fragment reads {which}; the tensor-memory layout is not it")
    allowed = (0, 16) if rows == 64 else (0,)
    if lane0 not in allowed:
        raise Decline(f"the tensor-memory tile starts at lane {lane0}; a {rows}-row `{shape}` copy starts at lane "
                      + " or ".join(map(str, allowed)))
    per = 32 // buf.dtype.bits
    if col0 % per:
        raise Decline(f"the tensor-memory tile starts inside a 32-bit column ({per} {buf.dtype.name} each)")
    per_rep = {"16x64b": 2, "16x128b": 4, "16x256b": 8}[shape] * per
    return cols // per_rep, lane0, col0, rows // 64


def pair_image_plan(tmem: ir.TileRegion, local: ir.TileRegion) -> tuple[int, int] | None:
    """(columns per lane, first column) when the registers are the 64-row `.32x32b` fragment
    (sema/tcgen05_frag.py) and tensor memory is datapath B; None when the registers are not that
    fragment; raises Decline when they are but the copy does not fit."""
    buf = local.buffer
    shape = buf.const_shape()
    layout = buf.layout
    if shape is None or len(shape) != 2 or shape[0] != 64 or layout is None or layout.replica or layout.offset:
        return None
    have = [(it.extent.value, it.stride.value, it.axis) if ir.is_const(it.extent) and ir.is_const(it.stride)
            else None for it in layout.shard]
    rows, cols = shape
    if fragment_iters("32x32b", rows, cols, buf.dtype.bits) != have:
        return None
    extents = regions.const_extents(local)
    if not all(isinstance(s, ir.IntImm) and s.value == 0 for s in local.starts) or list(extents or ()) != [rows, cols]:
        raise Decline(f"the 64-row `32x32b` copy moves the whole register fragment ({rows} x {cols}); "
                      "a part of it is not supported yet")
    at = _placer(tmem, rows, cols, "32x32b")
    lane0, col0 = at(0, 0)
    half = cols // 2
    for i in sorted({0, 1, 15, 16, 31, 32, 63}):
        for j in sorted({0, 1, half - 1, half, cols - 1}):
            got = at(i, j)
            if got is None or (got[0] - lane0, got[1] - col0) != (i + 64 * (j // half), j % half):
                raise Decline("a 64-row `32x32b` fragment reads datapath B (`tmem_datapath_layout(\"B\", 64, N)`); "
                              "the tensor-memory layout is not it")
    if lane0 != 0:
        raise Decline(f"the tensor-memory tile starts at lane {lane0}; a 64-row `32x32b` copy starts at lane 0")
    return half, col0
