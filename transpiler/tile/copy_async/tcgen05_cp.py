"""`copy_async` from shared memory to tensor memory with `tcgen05.cp` (the `tcgen05_cp` variant,
registered in copy_async/tcgen05.py): one thread issues one copy per atom of columns, the shared
rows named by a matrix descriptor.

Each PTX shape moves `rows` rows of `row_bytes` bytes, row r to a fixed lane (the shape's lane
pattern), some shapes into several lane quarters at once (multicast: the tensor-memory layout
declares it as a TLane replica). The descriptor reads the rows in 8-row groups (SBO apart): of
16-byte core-matrix rows (the second 16 bytes of a 32-byte row LBO further) without a swizzle,
or of 32-, 64- or 128-byte rows swizzled on address bits (bits [4, 4 + mode) ^= bits [7, 7 +
mode)). tirxc takes every field from the layouts and proves the copy by evaluation: each element
of the region, read where the descriptor says, is the one the shared layout keeps there."""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from transpiler import ir
from transpiler.target.tma import swizzle_address
from transpiler.tile import regions
from transpiler.tile.registry import Decline


@dataclass(frozen=True)
class CpShape:
    name: str  # "64x128b"
    multicast: str  # "", "warpx4", "warpx2::02_13", "warpx2::01_23"
    rows: int
    row_bytes: int
    lanes: tuple[int, ...]  # the lane of each row of one copy
    replica: tuple[int, int] | None  # the TLane replica (extent, stride) of the multicast

    @property
    def full(self) -> str:
        return self.name + (f".{self.multicast}" if self.multicast else "")


# Widest atom first, as TIRx infers them (a 256-bit source also fits 128 bits, at twice the copies).
CP_SHAPES = (
    CpShape("128x256b", "", 128, 32, tuple(range(128)), None),
    CpShape("4x256b", "", 4, 32, (0, 32, 64, 96), None),
    CpShape("128x128b", "", 128, 16, tuple(range(128)), None),
    CpShape("64x128b", "warpx2::02_13", 64, 16, tuple(range(64)), (2, 64)),
    CpShape("64x128b", "warpx2::01_23", 64, 16, tuple(r // 32 * 64 + r % 32 for r in range(64)), (2, 32)),
    CpShape("32x128b", "warpx4", 32, 16, tuple(range(32)), (4, 32)),
)
SWIZZLE_ROW = {0: 16, 1: 32, 2: 64, 3: 128}  # bytes between the rows of an 8-row group, per swizzle mode


def candidates(opts: dict) -> list[CpShape]:
    """The shapes `shape=` / `multicast=` allow (all, widest first, without them)."""
    forced, multicast = opts.get("shape"), opts.get("multicast")
    for name, value in (("shape", forced), ("multicast", multicast)):
        if value is not None and not isinstance(value, str):
            raise Decline(f"`{name}=` must be a string")
    names = sorted({s.name for s in CP_SHAPES})
    shapes = list(CP_SHAPES)
    if forced is not None:
        shapes = [s for s in shapes if forced in (s.name, s.full)]
        if not shapes:
            raise Decline(f"`shape={forced!r}` is not a `tcgen05.cp` shape here: " + ", ".join(f'"{n}"' for n in names))
        if multicast is None and len(shapes) > 1:
            raise Decline(f"`shape={forced!r}` needs `multicast=`: " + " or ".join(f'"{s.multicast}"' for s in shapes))
    if multicast is not None:
        allowed = shapes
        shapes = [s for s in shapes if s.multicast == multicast]
        if not shapes:
            takes = sorted({s.multicast for s in allowed if s.multicast})
            if forced is None:
                raise Decline(f"`multicast={multicast!r}` is not a `tcgen05.cp` multicast: "
                              + ", ".join(f'"{m}"' for m in takes))
            raise Decline(f"`shape={forced!r}` takes no `multicast=`" if not takes else
                          f"`shape={forced!r}` takes `multicast=` " + " or ".join(f'"{m}"' for m in takes))
    return shapes


def tmem_places(tmem: ir.TileRegion):
    """({(lane, column): the region's flat element}, the TLane replica (extent, stride) or None)
    of a tensor-memory region whose layout puts each element on a lane (TLane iters) and a
    column (TCol iters), any number of dimensions: the region must cover whole columns of a set
    of lanes starting at lane 0, each place once."""
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
    lanes = {lane for lane, _ in places}
    columns = sorted({col for _, col in places})
    if len(places) != count or len(lanes) * (columns[-1] - columns[0] + 1) != count:
        raise Decline("the tensor-memory region is not a rectangle of lanes x columns, each element in its own place")
    if min(lanes) != 0:
        raise Decline("the tensor-memory region must start at lane 0")
    return places, replica


def fit(places: dict, replica, shape: CpShape):
    """(first column, columns, {(row, column - first column): flat element}) when the region's lanes
    are the shape's rows and its replica the shape's multicast; else why not."""
    lanes = sorted({lane for lane, _ in places})
    if lanes != sorted(shape.lanes) or replica != shape.replica:
        quarters = f", replicated {replica[0]} times {replica[1]} lanes apart" if replica else ""
        return f"the tensor-memory tile ({len(lanes)} lanes{quarters}) is not `{shape.full}`'s"
    columns = sorted({col for _, col in places})
    col0 = columns[0]
    table = {(r, col - col0): places[lane, col] for r, lane in enumerate(shape.lanes) for col in columns}
    return col0, len(columns), table


def shared_swizzle(buf: ir.Buffer) -> tuple[int, ir.Buffer]:
    """(the descriptor's swizzle mode: 0 none, 1, 2, 3 the 32-, 64-, 128-byte swizzle; the buffer
    without its swizzle, whose addresses the descriptor takes) of the shared source; declines a
    swizzle the descriptor cannot name, or a buffer not aligned to the swizzle's pattern (the
    hardware swizzles address bits: the pattern must start where the layout's does)."""
    layout = buf.layout
    if layout is None or layout.swizzle is None:
        return 0, buf
    per_element, length, atom, inner = layout.swizzle
    eb = buf.dtype.nbytes
    if not inner or atom != 3 or length not in (1, 2, 3) or eb << per_element != 16:
        raise Decline("the shared layout's swizzle is not one a matrix descriptor names: 32-, 64- or 128-byte "
                      f"swizzles of 16-byte units, `ComposeLayout({(16 // eb).bit_length() - 1}, 1 to 3, 3, ...)` "
                      f"for {buf.dtype.name}")
    period = 128 << length
    offset = buf.elem_offset
    if buf.align % period or not isinstance(offset, ir.IntImm) or (offset.value * eb) % period:
        raise Decline(f"the swizzled shared buffer is not known to start on its {period}-byte swizzle pattern "
                      f"(give it `align={period}`)")
    return length, replace(buf, layout=replace(layout, swizzle=None))


def src_coords(src: ir.TileRegion, flat: int) -> list[int]:
    """The buffer coordinates of the region's flat element (row-major over its extents)."""
    extents = regions.const_extents(src)
    coords = []
    for start, extent in zip(reversed(src.starts), reversed(extents)):
        coords.append(start.value + flat % extent)
        flat //= extent
    return coords[::-1]


def plan(src: ir.TileRegion, offsets, plain, table, shape: CpShape, cols: int, nbytes: int, mode: int):
    """(SBO, LBO, the descriptor start offset of each atom) in bytes, when every element of the
    region sits where the descriptor says; else why not. The descriptor reads byte b of row r
    of an atom starting at S (an unswizzled offset) at S + (r // 8) * SBO + (r % 8) * 16 +
    (b // 16) * LBO + b % 16 without a swizzle, and at swizzle(S + (r // 8) * SBO + (r % 8) * W
    + b) with the W-byte swizzle (on address bits: the buffer starts on the pattern, so address
    bits are offset bits). `table` gives the region's element at each (row, column) of tensor
    memory, src's element of the same index being the one copied there; `offsets` is where the
    buffer keeps an element, `plain` the same without the swizzle."""
    def at(r, col):
        return offsets(src_coords(src, table[r, col])) * nbytes

    def linear(r, col):
        return plain(src_coords(src, table[r, col])) * nbytes

    rows, row_bytes = shape.rows, shape.row_bytes
    per_atom = row_bytes // nbytes
    width = SWIZZLE_ROW[mode]
    sbo = linear(8, 0) - linear(0, 0) if rows > 8 else 0
    if mode:
        lbo = 16  # unused by the hardware for swizzled layouts (the 16-byte units of a row are adjacent)
    else:
        lbo = linear(0, 16 // nbytes) - linear(0, 0) if row_bytes > 16 else 0
    group = "16-byte core-matrix rows" if not mode else f"{width}-byte swizzled rows"
    if sbo < 0 or lbo < 0 or sbo % 16 or lbo % 16 or sbo >> 4 >= 1 << 14 or lbo >> 4 >= 1 << 14:
        return f"the shared rows are not in 8-row groups of {group}"
    starts = []
    for k in range(cols // per_atom):
        start = linear(0, k * per_atom)
        if start % 16:
            return "an atom's rows do not start at a multiple of 16 bytes"
        if mode and (start >> 7) & ((1 << mode) - 1):
            return (f"an atom starts {start % (128 << mode)} bytes into its {128 << mode}-byte swizzle pattern, "
                    "past the pattern's first 128 bytes; tirxc's descriptors have base offset 0")
        for r in range(rows):
            row = start + (r // 8) * sbo
            for b in range(0, row_bytes, nbytes):
                want = row + (r % 8) * 16 + (b // 16) * lbo + b % 16 if not mode else \
                    swizzle_address(row + (r % 8) * width + b, mode)
                if at(r, k * per_atom + b // nbytes) != want:
                    return f"the shared layout is not the layout of a matrix descriptor of 8-row groups of {group}"
        starts.append(start)
    return sbo, lbo, starts
