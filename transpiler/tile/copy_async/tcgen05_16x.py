"""`copy_async` between tensor memory and a warpgroup's registers with the 16-lane shapes
`.16x64b`, `.16x128b` and `.16x256b` (TIRx: copy_async/tcgen05.py, the `.16x*b` path).

The registers are a whole `T.alloc_tcgen05_ldst_frag(shape, (rows, cols), dtype)` fragment (or a
view with `tcgen05_atom_layout`): sema/calls/tcgen05_frag.py says which thread and register hold each
(row, column). Each warp moves 16 lanes of its own 32-lane slab per issue. 64 rows are the
datapath F image (row r on lane (r // 16) * 32 + r % 16, the lower or, with `sub_slab=1`, the
upper 16 lanes of each slab); 128 rows are datapath D (row r on lane r), moved as two issues,
the lower then the upper 16 lanes. A copy is one issue per slab with `.x{cols / atom columns}`;
registers are the fragment's, in order, per slab. A column slice of whole repetitions (a constant
start, or a run-time one known to be a multiple of a repetition) reads the slice's registers
(from the start's repetition on) and tensor-memory columns, in `.xN` pieces (N a power of two).

Also the 64-row `.32x32b` fragment of a CTA pair's accumulator (datapath B: the column halves on
lanes 64 apart): thread t holds lane t, so it is a 128-lane `.32x32b` copy of N / 2 columns."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import INT32
from transpiler.target.tcgen05 import FP32_COLUMNS, fragment_iters
from transpiler.tile import regions
from transpiler.tile.copy.plan import multiple_of
from transpiler.tile.registry import Decline

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
    """((i, j) -> (lane, column) of the region's element (i, j), or None where not constant;
    the run-time column start or None): a run-time column start s is taken out (the places are
    those of the region starting at column 0, each column s further on), which needs a layout
    that puts the buffer's consecutive columns on consecutive TCol columns. Raises Decline when
    the region is not a rows x cols tile or (0, 0) has no place."""
    buf = tmem.buffer
    t_extents = regions.const_extents(tmem)
    dims = [d for d, e in enumerate(t_extents or []) if e != 1]
    if buf.layout is None or len(dims) != 2 or [t_extents[d] for d in dims] != [rows, cols]:
        raise Decline(f"the tensor-memory region is not a constant {rows} x {cols} tile (the `{shape}` fragment's "
                      "shape)")
    starts = list(tmem.starts)
    shift = None
    if not isinstance(starts[dims[1]], ir.IntImm):
        shift, starts[dims[1]] = starts[dims[1]], ir.IntImm(INT32, 0)
    if not all(isinstance(s, ir.IntImm) for s in starts):
        raise Decline("the tensor-memory region starts at a run-time lane; only its column start may be a "
                      "run-time value")

    def place(coords) -> tuple[int, int] | None:
        axes = layouts.apply(buf.layout, [ir.IntImm(INT32, v) for v in coords], list(buf.shape))
        lane, col = layouts.linear_index(axes.get("TLane", [])), layouts.linear_index(axes.get("TCol", []))
        return (lane.value, col.value) if ir.is_const(lane) and ir.is_const(col) else None

    def at(i: int, j: int) -> tuple[int, int] | None:
        coords = [s.value for s in starts]
        coords[dims[0]] += i
        coords[dims[1]] += j
        return place(coords)

    if at(0, 0) is None:
        raise Decline("the tensor-memory layout is not constant")
    if shift is not None:
        _columns_in_order(buf, [s.value for s in starts], dims, rows, place)
    return at, shift


def _columns_in_order(buf: ir.Buffer, coords: list[int], dims: list[int], rows: int, place) -> None:
    """Declines unless column x of the buffer (every x, at the region's rows) sits x TCol columns
    after column 0 on the same lane: then a region starting at a run-time column s is the one
    starting at column 0, s columns further on."""
    shape = buf.const_shape()
    if shape is None:
        raise Decline("the tensor-memory buffer's shape is not constant")
    for i in sorted({0, 1, rows // 2, rows - 1}):
        at = list(coords)
        at[dims[0]] += i
        first = place(at)
        for x in range(shape[dims[1]]):
            at[dims[1]] = x
            got = place(at)
            if first is None or got != (first[0], first[1] + x):
                raise Decline("the tensor-memory region starts at a run-time column, and the layout does not put "
                              "the buffer's consecutive columns on consecutive TCol columns")


def _whole_reps(start: ir.Expr, extent: int, per_rep: int, what: str) -> None:
    """Declines unless [start, start + extent) is whole repetitions of per_rep columns."""
    if extent % per_rep:
        raise Decline(f"{what} moves whole repetitions of {per_rep} columns; {extent} columns are not")
    if isinstance(start, ir.IntImm):
        if start.value % per_rep:
            raise Decline(f"{what} moves whole repetitions of {per_rep} columns; the slice starts at column "
                          f"{start.value}, inside one")
    elif not multiple_of(start, per_rep):
        raise Decline(f"{what} moves whole repetitions of {per_rep} columns; the slice's run-time start is not "
                      f"known to be a multiple of {per_rep}")


def exact_div(e: ir.Expr, n: int) -> ir.Expr:
    """e / n for an e known to be a multiple of n (folded where e is a constant or a product with one)."""
    if n == 1:
        return e
    if isinstance(e, ir.IntImm):
        return ir.IntImm(e.dtype, e.value // n)
    if isinstance(e, ir.BinOp) and e.op == "*":
        for a, b in ((e.a, e.b), (e.b, e.a)):
            if isinstance(b, ir.IntImm) and b.value % n == 0:
                return ir.mul(a, ir.IntImm(b.dtype, b.value // n))
    return ir.binop("floordiv", e, ir.IntImm(e.dtype, n))


@dataclass(frozen=True)
class SlabPlan:
    """A `.16x*b` copy of whole repetitions: per issue (one per 16-lane half of each warp's slab),
    `.x{reps}` pieces of the fragment's registers from `reg0` on (32-bit registers; `regs_per_slab`
    further for the next half) and of tensor memory from column `col0` (elements) on, plus
    `shift` (a run-time column start of the tensor-memory region, or None)."""
    reps: int
    lane0: int
    col0: int
    issues: int
    reg0: ir.Expr
    regs_per_slab: int
    shift: ir.Expr | None


def slab_plan(tmem: ir.TileRegion, local: ir.TileRegion, shape: str, rows: int, cols: int) -> SlabPlan:
    """The plan of a copy of whole rows of the fragment and a column slice of whole repetitions
    (constant or run-time start), or raises Decline saying why not."""
    extents = regions.const_extents(local)
    per = 32 // tmem.buffer.dtype.bits
    per_rep = FP32_COLUMNS[shape] * per
    if extents is None or len(local.starts) != 2 or not ir.is_const(local.starts[0], 0) or extents[0] != rows:
        raise Decline(f"the `{shape}` copy moves whole rows of the register fragment ({rows} rows); a part of "
                      "them is not supported yet")
    width = extents[1]
    _whole_reps(local.starts[1], width, per_rep, f"the `{shape}` copy")
    buf = tmem.buffer
    at, shift = _placer(tmem, rows, width, shape)
    lane0, col0 = at(0, 0)
    row_set = sorted({r for g in range(0, rows, 16) for r in (g, g + 1, g + 15)})
    col_set = sorted({0, 1, width - 1})
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
    if col0 % per:
        raise Decline(f"the tensor-memory tile starts inside a 32-bit column ({per} {buf.dtype.name} each)")
    if shift is not None and not multiple_of(shift, per):
        raise Decline(f"the tensor-memory region's run-time column start is not known to be a whole 32-bit column "
                      f"({per} {buf.dtype.name} each)")
    regs = REGS_PER_REP[shape]
    reg0 = ir.mul(exact_div(local.starts[1], per_rep), ir.IntImm(INT32, regs))
    return SlabPlan(width // per_rep, lane0, col0, rows // 64, reg0, regs * (cols // per_rep), shift)


def pair_image_plan(tmem: ir.TileRegion, local: ir.TileRegion) -> tuple[int, int] | None:
    """(columns per lane, first column) when the registers are the 64-row `.32x32b` fragment
    (sema/calls/tcgen05_frag.py) and tensor memory is datapath B; None when the registers are not that
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
    at, shift = _placer(tmem, rows, cols, "32x32b")
    if shift is not None:
        raise Decline("the 64-row `32x32b` copy reads tensor memory from a constant column")
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
