"""Shared-memory operands of the asynchronous tensor cores (wgmma, tcgen05.mma): which canonical
layout an operand region is in, the matrix-descriptor fields that name it, and the proof that the
descriptor reads every element of the region where the buffer's layout put it.

An operand is (rows, K), rows being M (A) or N (B); `transA` / `transB` (TIRx's meaning) say only
the order of the region's two dimensions: False (rows, K), True (K, rows). Which dimension is
contiguous in memory is read off the layout: K contiguous is K-major, rows contiguous MN-major
(wgmma's tnspA / tnspB, tcgen05's transpose bits). The canonical layouts (PTX ISA, shared memory
matrix layouts; in bytes, T = 16 bytes of elements):

- K-major, W-byte swizzle (32, 64, 128): atoms of 8 rows of W bytes; 8-row groups SBO apart; LBO
  unused (1). One instruction reads 32 bytes of K, inside one atom row.
- K-major, no swizzle: 8 x 16-byte core matrices (rows 16 bytes apart); core matrices LBO apart
  along K, SBO apart along the rows.
- MN-major, W-byte swizzle: atoms of 8 K-rows of W bytes of M / N; atoms LBO apart along M / N,
  8-K groups SBO apart.
- MN-major, no swizzle: core matrices of 8 K-rows of 16 bytes of M / N; LBO apart along K (8-K
  groups), SBO apart along M / N.

The hardware XORs address bits [4, 4 + s) with bits [7, 7 + s) (s = 1, 2, 3 for 32, 64, 128
bytes), the swizzle `ComposeLayout(log2(16 bytes / element), s, 3, ...)` applies to its offsets,
so a buffer's swizzled offsets are the hardware's when the buffer starts on an 8 x W-byte atom.
The proof evaluates, for every instruction tile and every element in it, the byte the descriptor
reads (its start address plus the canonical offset, swizzled) and the byte the layout holds it at.
Region starts that are run-time values must move the region by whole atoms (16 bytes without a
swizzle): the start's dimension is laid out linearly and its known factor times the stride is a
multiple of the atom."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import gcd, prod
from typing import Callable

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import HANDLE, INT32, UINT64
from transpiler.target.tma import swizzle_address
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.gemm.fragments import NoMatch
from transpiler.tile.periodic import periodic

SWIZZLE_BYTES = {1: 32, 2: 64, 3: 128}
MODE_TEXT = {0: "unswizzled", 1: "32-byte swizzled", 2: "64-byte swizzled", 3: "128-byte swizzled"}


@dataclass(frozen=True)
class SharedOperand:
    """A shared operand region, (rows = M or N, cols = K) in logical terms."""
    name: str
    region: ir.TileRegion
    view: ir.Buffer  # the buffer without its swizzle: addresses of tile starts
    dims: tuple[int, int]  # the buffer dims of (rows, K)
    rows: int
    cols: int
    swizzle: int  # 0: none (interleave); 1, 2, 3: 32, 64, 128-byte swizzle
    lbo: int  # leading-dimension byte offset, in 16-byte units
    sbo: int  # stride-dimension byte offset, in 16-byte units
    mn_major: bool
    place: Callable = field(compare=False, repr=False)  # (row, k) -> (byte without swizzle, byte)

    def address(self, row: int, k: int) -> ir.Expr:
        coords = list(self.region.starts)
        coords[self.dims[0]] = ir.add(coords[self.dims[0]], c(row))
        coords[self.dims[1]] = ir.add(coords[self.dims[1]], c(k))
        return ir.BufferAddress(HANDLE, self.view, tuple(coords))

    @property
    def major(self) -> str:
        return "MN-major" if self.mn_major else "K-major"

    @property
    def eb(self) -> int:
        return self.region.buffer.dtype.nbytes


def known_factor(e: ir.Expr) -> int:
    """A factor every value of `e` has (0: `e` is 0)."""
    if isinstance(e, ir.IntImm):
        return abs(e.value)
    if isinstance(e, ir.Cast):
        return known_factor(e.value)
    if isinstance(e, ir.BinOp):
        if e.op == "*":
            return known_factor(e.a) * known_factor(e.b)
        if e.op in ("+", "-"):
            return gcd(known_factor(e.a), known_factor(e.b))
        if e.op == "<<" and isinstance(e.b, ir.IntImm):
            return known_factor(e.a) << e.b.value
    return 1


def _evaluator(buf: ir.Buffer, shape: tuple[int, ...], name: str):
    """(element offset without swizzle, element offset) of a constant coordinate, relative to the
    buffer's start; per dimension the stride when the offset is linear in it (else None); and
    per dimension its group of the layout (the offset without swizzle is a sum of one part per
    group, each a function of its own dimensions' coordinates)."""
    layout = buf.layout
    if layout is None:
        strides = [prod(shape[d + 1:]) for d in range(len(shape))]
        return (lambda co: (sum(x * s for x, s in zip(co, strides)),) * 2), strides, list(range(len(shape)))
    iters = list(layout.shard)
    if layout.replica or any(not (isinstance(it.extent, ir.IntImm) and isinstance(it.stride, ir.IntImm))
                             or it.axis != "m" for it in iters):
        raise NoMatch(f"{name}'s layout is not constant memory")
    if any(axis != "m" or not isinstance(v, ir.IntImm) for axis, v in layout.offset):
        raise NoMatch(f"{name}'s layout is not constant memory")
    offset = sum(v.value for _, v in layout.offset)
    extents = [it.extent.value for it in iters]
    istrides = [it.stride.value for it in iters]
    groups = layouts.dim_groups([c(e) for e in shape], [it.extent for it in iters])
    if groups is None:
        groups = [(list(range(len(shape))), list(range(len(iters))))]
    linear: list[int | None] = [None] * len(shape)
    for dims, ks in groups:
        if len(ks) == 1:
            for d in dims:
                linear[d] = istrides[ks[0]] * prod(shape[e] for e in dims if e > d)
    swz = layout.swizzle
    group_of = [0] * len(shape)
    for index, (dims, _) in enumerate(groups):
        for d in dims:
            group_of[d] = index

    def at(co):
        u = offset
        for dims, ks in groups:
            flat = 0
            for d in dims:
                flat = flat * shape[d] + co[d]
            for k in reversed(ks[1:]):
                u += (flat % extents[k]) * istrides[k]
                flat //= extents[k]
            u += flat * istrides[ks[0]]
        return u, layouts.swizzle_const(u, swz)

    return at, linear, group_of


def shared_operand(cx, name: str, region: ir.TileRegion, transposed: bool) -> SharedOperand:
    """`region` as a (rows, K) operand (`transposed`: the region is (K, rows)), its canonical
    layout and descriptor fields; NoMatch with the reason where it is none. `prove` then checks
    the instruction tiles element by element."""
    buf = region.buffer
    if regions.memory(region) != "shared":
        raise NoMatch(f"{name} is in {regions.memory(region)} memory, not shared")
    extents = regions.const_extents(region)
    shape = buf.const_shape()
    if extents is None or shape is None:
        raise NoMatch(f"{name}'s shape or region is not constant")
    dims = [d for d, e in enumerate(extents) if e != 1]
    if len(dims) != 2:
        raise NoMatch(f"{name} is not a 2-D region")
    mn_dim, k_dim = (dims[1], dims[0]) if transposed else (dims[0], dims[1])
    eb = buf.dtype.nbytes
    layout = buf.layout
    mode = 0
    if layout is not None and layout.swizzle is not None:
        per_element, length, atom, inner = layout.swizzle
        if not inner or atom != 3 or length not in SWIZZLE_BYTES or eb << per_element != 16:
            raise NoMatch(f"{name}'s swizzle is not a 32, 64 or 128-byte tensor-core swizzle of 16-byte units "
                          f"(`ComposeLayout({(16 // eb).bit_length() - 1}, 1 to 3, 3, ...)` for {buf.dtype.name})")
        mode = length
    width = SWIZZLE_BYTES.get(mode, 16)
    period = 8 * width if mode else 16  # bytes a run-time start must move by
    at, linear, group_of = _evaluator(buf, shape, name)
    if layout is not None and prod(it.extent.value for it in layout.shard) != prod(shape):
        raise NoMatch(f"{name}'s layout does not cover its shape")
    base = [s.value if isinstance(s, ir.IntImm) else 0 for s in region.starts]
    for d, s in enumerate(region.starts):
        if isinstance(s, ir.IntImm):
            continue
        if linear[d] is None:
            raise NoMatch(f"{name}'s region starts at a run-time index of dimension {d}, along which its layout "
                          f"is not linear: tirxc cannot prove the tiles it reads")
        if (known_factor(s) * linear[d] * eb) % period:
            raise NoMatch(f"{name}'s region starts at a run-time index of dimension {d} that is not known to move "
                          f"it by whole {period}-byte {'swizzle atoms' if mode else 'units'}")
    aligned = cx.alignment(buf)  # counting what the variants chosen before raised (a TMA copy's)
    if aligned % period:
        raise NoMatch(f"{name}'s storage starts on {aligned} bytes; its {MODE_TEXT[mode]} tiles need {period} "
                      f"(`align={period}`)")
    shift = buf.elem_offset
    shift_bytes = shift.value * eb if isinstance(shift, ir.IntImm) else 0
    if (known_factor(shift) * eb) % period:
        where = f"{shift_bytes} bytes" if isinstance(shift, ir.IntImm) else "a run-time offset"
        raise NoMatch(f"{name} starts {where} into its storage, not at a multiple of the {period}-byte "
                      f"{'swizzle atom' if mode else 'unit'}")

    rows, cols = extents[mn_dim], extents[k_dim]
    swizzle = layout.swizzle if layout is not None else None

    def unswizzled(row: int, k: int) -> int:
        co = list(base)
        co[mn_dim] += row
        co[k_dim] += k
        return at(co)[0]

    # Where the layout groups the two dimensions apart, an element's offset is its row's part plus
    # its column's: read once per row and per column (prove asks for every element).
    row_part = [unswizzled(r, 0) for r in range(rows)] if group_of[mn_dim] != group_of[k_dim] else None
    col_part = [unswizzled(0, k) - row_part[0] for k in range(cols)] if row_part is not None else None

    # (the swizzle reads the bits of an offset below its period: 8 rows of the swizzle's width)
    swizzled = periodic(lambda u: layouts.swizzle_const(u, swizzle), 8 * width // eb if mode else 1)

    def place(row: int, k: int) -> tuple[int, int]:
        if row_part is not None and 0 <= row < rows and 0 <= k < cols:
            u = row_part[row] + col_part[k]
        else:
            u = unswizzled(row, k)
        return u * eb + shift_bytes, swizzled(u) * eb + shift_bytes

    u0 = place(0, 0)[0]

    def step(row: int, k: int) -> int:
        return place(row, k)[0] - u0

    k_step = step(0, 1) if cols > 1 else None
    mn_step = step(1, 0) if rows > 1 else None
    if k_step == eb:
        mn_major = False
    elif mn_step == eb:
        mn_major = True
    else:
        raise NoMatch(f"{name}'s elements are contiguous along neither K nor {_rows(name)}: no tensor-core "
                      f"layout reads it")
    lead = k_step if mn_major else mn_step
    unit = 16 // eb  # elements in 16 bytes
    if mode:
        if lead != width:
            what = f"K rows are {lead} bytes apart" if mn_major else f"rows are {lead} bytes"
            raise NoMatch(f"{name}'s {what}; a {width}-byte swizzle wants {'MN' if mn_major else 'K'}-major rows of "
                          f"{width} bytes ({width // eb} elements)")
        if mn_major:
            lbo = _units(name, "its swizzle atoms along " + _rows(name), step(width // eb, 0), rows > width // eb)
            sbo = _units(name, "its 8-row groups along K", step(0, 8), cols > 8, default=8 * width // 16)
        else:
            lbo = 1
            sbo = _units(name, "its 8-row groups", step(8, 0), rows > 8, default=8 * width // 16)
    else:
        if lead != 16:
            spell = f"its {'K ' if mn_major else ''}rows are {lead} bytes apart"
            raise NoMatch(f"{name} has no swizzled layout, and {spell}: an unswizzled operand is 8 x 16-byte core "
                          f"matrices, 16-byte rows (`mma_shared_layout(\"{buf.dtype.name}\", "
                          f"SwizzleMode.SWIZZLE_NONE, shape)`)")
        if mn_major:
            lbo = _units(name, "its core matrices along K", step(0, 8), cols > 8)
            sbo = _units(name, "its core matrices along " + _rows(name), step(unit, 0), rows > unit, default=8)
        else:
            lbo = _units(name, "its core matrices along K", step(0, unit), cols > unit)
            sbo = _units(name, "its 8-row groups", step(8, 0), rows > 8, default=8)
    view = buf if layout is None or layout.swizzle is None else replace(buf, layout=replace(layout, swizzle=None))
    return SharedOperand(name, region, view, (mn_dim, k_dim), rows, cols, mode, lbo, sbo, mn_major, place)


def _rows(name: str) -> str:
    return "M" if name == "A" else "N"


def _units(name: str, what: str, nbytes: int, used: bool, default: int = 1) -> int:
    """A descriptor offset in 16-byte units (`default` when the tile never crosses it)."""
    if not used:
        return default
    if nbytes <= 0 or nbytes % 16 or nbytes // 16 >= 1 << 14:
        raise NoMatch(f"{name}'s {what} are {nbytes} bytes apart; a matrix descriptor holds a positive multiple "
                      f"of 16 bytes below 256 KiB")
    return nbytes // 16


def canonical(op: SharedOperand, row: int, k: int) -> int:
    """The byte the descriptor names for element (row, k) of an instruction tile, before the
    swizzle, relative to the tile's start."""
    eb, lbo, sbo = op.eb, op.lbo * 16, op.sbo * 16
    if op.swizzle:
        width = SWIZZLE_BYTES[op.swizzle]
        if op.mn_major:
            across = width // eb
            return (row % across) * eb + (row // across) * lbo + (k % 8) * width + (k // 8) * sbo
        return (row % 8) * width + (row // 8) * sbo + k * eb
    unit = 16 // eb
    if op.mn_major:
        return (row % unit) * eb + (row // unit) * sbo + (k % 8) * 16 + (k // 8) * lbo
    return (row % 8) * 16 + (row // 8) * sbo + (k % unit) * eb + (k // unit) * lbo


def prove(op: SharedOperand, tile_rows: int, tile_k: int) -> None:
    """Every element of every (tile_rows, tile_k) instruction tile is where the tile's descriptor
    reads it; NoMatch names the first element that is not."""
    width = SWIZZLE_BYTES.get(op.swizzle, 0)
    # the descriptor's byte of each element relative to the tile's start, the same in every tile
    tile = [[canonical(op, dr, dk) for dk in range(tile_k)] for dr in range(tile_rows)]
    hardware = periodic(lambda byte: swizzle_address(byte, op.swizzle), 128 << op.swizzle)
    place = op.place
    for r0 in range(0, op.rows, tile_rows):
        for k0 in range(0, op.cols, tile_k):
            start = op.place(r0, k0)[0]
            if start % 16:
                raise NoMatch(f"{op.name}'s tile at ({_rows(op.name)} {r0}, K {k0}) starts at byte {start}, not on "
                              f"16 bytes")
            if width and start % (8 * width) >= width:
                raise NoMatch(f"{op.name}'s tile at ({_rows(op.name)} {r0}, K {k0}) starts "
                              f"{start % (8 * width) // width} rows into a {width}-byte swizzle atom")
            for dr, row in enumerate(tile):
                wants = [hardware(start + offset) for offset in row]
                gots = [place(r0 + dr, k0 + dk)[1] for dk in range(tile_k)]
                if gots != wants:
                    dk, got, want = next((dk, g, w) for dk, (g, w) in enumerate(zip(gots, wants)) if g != w)
                    raise NoMatch(f"{op.name}'s element ({_rows(op.name)} {r0 + dr}, K {k0 + dk}) is at byte {got} "
                                  f"of its buffer, but the {MODE_TEXT[op.swizzle]} {op.major} descriptor "
                                  f"(LBO {op.lbo * 16}, SBO {op.sbo * 16} bytes) reads byte {want}")


def _descriptor(helper: str, op: SharedOperand, row: int, k: int) -> ir.Expr:
    return ir.Call(UINT64, helper, (op.address(row, k), ir.IntImm(INT32, op.lbo), ir.IntImm(INT32, op.sbo),
                                    ir.IntImm(INT32, op.swizzle)))


def wgmma_descriptor(op: SharedOperand, row: int, k: int) -> ir.Expr:
    """The wgmma matrix descriptor of the tile starting at (row, k)."""
    return _descriptor("tirx_cuda_wgmma_make_desc", op, row, k)


def tcgen05_descriptor(op: SharedOperand, row: int, k: int) -> ir.Expr:
    return _descriptor("tirx_cuda_tcgen05_make_desc", op, row, k)
