"""Register fragments of the tensor-core instructions, matched against the layouts of register
buffers by evaluating the layouts at constant coordinates (docs/tile-primitives.md, gemm).

A register buffer spread over threads (a TileLayout with thread axes) holds each element in one
thread, at one register. `ThreadMap` evaluates that mapping for constant coordinates; `Operand`
reads a 2-D operand region in its logical orientation ((M, K) for A, (K, N) for B, (M, N) for
C and D); `atom` checks that one instruction tile of an operand sits in the fragment the
instruction wants (which lane holds which element, the register each element is in) and gives
the registers, so the lowering can pass them in the instruction's order. Nothing here builds
code: the lowerings in gemm/mma_sync.py and gemm_async/wgmma.py do."""
from __future__ import annotations

from functools import partial
from math import prod
from typing import NamedTuple

from transpiler import ir
from transpiler.tile import regions

# Each thread axis's value as a thread index inside the scope (lane + 32 * warp).
_LINEAR = {"laneid": 1, "tx": 1, "tid_in_wg": 1, "warpid": 32, "wid_in_wg": 32, "wgid": 128}
_WARP_AXES = ("tx", "tid_in_wg", "warpid", "wid_in_wg", "wgid")
_LANE_AXES = ("laneid", "tx", "tid_in_wg")


class NoMatch(Exception):
    """An operand's layout is not the fragment an instruction wants: `reason` says where."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Place(NamedTuple):
    """(A tuple: a fragment check builds one per element of the tile.)"""
    lane: int
    warp: int | None  # None: the layout has no warp-level axis (every warp holds its own copy)
    reg: int


# Place(...) without the named tuple's Python-level __new__: one is made for every element.
_new_place = partial(tuple.__new__, Place)


class ThreadMap:
    """Where each element of a distributed register buffer lives: `at(coords) -> Place`."""

    def __init__(self, buf: ir.Buffer):
        layout, shape = buf.layout, buf.const_shape()
        if shape is None or layout is None or layout.swizzle is not None:
            raise NoMatch(f"`{buf.name}` has no constant thread layout")
        if layout.replica:
            raise NoMatch(f"`{buf.name}`'s layout replicates elements over threads (not supported yet)")
        iters = []
        for it in layout.shard:
            if not isinstance(it.extent, ir.IntImm) or not isinstance(it.stride, ir.IntImm):
                raise NoMatch(f"`{buf.name}`'s layout has extents or strides that are not constant")
            if it.axis != "m" and it.axis not in _LINEAR:
                raise NoMatch(f"`{buf.name}`'s layout uses the axis `{it.axis}`, not a thread or register axis")
            iters.append((it.extent.value, it.stride.value, it.axis))
        if prod(e for e, _, _ in iters) != prod(shape):
            raise NoMatch(f"`{buf.name}`'s layout does not cover its shape")
        self.offset = {}
        for axis, value in layout.offset:
            if not isinstance(value, ir.IntImm):
                raise NoMatch(f"`{buf.name}`'s layout has an offset that is not constant")
            self.offset[axis] = self.offset.get(axis, 0) + value.value
        axes = {a for _, _, a in iters if a != "m"}
        if not axes & set(_LANE_AXES):
            raise NoMatch(f"`{buf.name}` is not spread over the lanes of a warp")
        self.has_warp = bool(axes & set(_WARP_AXES))
        self.name = buf.name
        self.shape = shape
        self.iters = iters
        self.row_major = [prod(shape[d + 1:]) for d in range(len(shape))]
        self._places: list[Place] | None = None

    def at(self, coords) -> Place:
        return self.at_flat(sum(c * s for c, s in zip(coords, self.row_major)))

    def at_flat(self, flat: int) -> Place:
        """The Place of the element at a row-major index (taken modulo the buffer's size, as the
        layout's outermost digit is)."""
        places = self.every_place()
        return places[flat % len(places)]

    def every_place(self) -> list[Place]:
        if self._places is None:
            self._places = self._every_place()
        return self._places

    def _every_place(self) -> list[Place]:
        """Every element's Place in row-major order, the layout's digits expanded outermost first
        (a fragment check asks for every element of the operand, most of them several times)."""
        regs, threads = [self.offset.get("m", 0)], [sum(v * _LINEAR[a] for a, v in self.offset.items() if a != "m")]
        for extent, stride, axis in self.iters:
            reg_step, thread_step = (stride, 0) if axis == "m" else (0, stride * _LINEAR[axis])
            regs = [r + d * reg_step for r in regs for d in range(extent)]
            threads = [t + d * thread_step for t in threads for d in range(extent)]
        has_warp = self.has_warp
        return [_new_place((t % 32, t // 32 if has_warp else None, r)) for t, r in zip(threads, regs)]


class Operand:
    """A 2-D register operand region in its logical orientation: `at(i, j)` is the Place of
    logical element (i, j); `transposed` operands are stored (j, i)."""

    def __init__(self, name: str, region: ir.TileRegion, transposed: bool = False):
        if regions.memory(region) != "local" or not regions.is_distributed(region.buffer):
            raise NoMatch(f"{name} is not a register buffer spread over threads by a layout")
        extents = regions.const_extents(region)
        if extents is None or not all(isinstance(s, ir.IntImm) for s in region.starts):
            raise NoMatch(f"{name}'s region is not constant")
        dims = [d for d, e in enumerate(extents) if e != 1]
        if len(dims) != 2:
            raise NoMatch(f"{name} is not a 2-D region (its non-unit extents are {tuple(extents[d] for d in dims)})")
        self.name = name
        self.map = ThreadMap(region.buffer)
        self.base = [s.value for s in region.starts]
        self.dims = dims[::-1] if transposed else dims
        self.rows, self.cols = extents[self.dims[0]], extents[self.dims[1]]
        self.buffer = region.buffer

        # the row-major index of logical element (i, j) is flat0 + i * row_step + j * col_step
        self.flat0 = sum(b * s for b, s in zip(self.base, self.map.row_major))
        self.row_step, self.col_step = self.map.row_major[self.dims[0]], self.map.row_major[self.dims[1]]

    def at(self, i: int, j: int) -> Place:
        return self.map.at_flat(self.flat0 + i * self.row_step + j * self.col_step)

    def places(self, elements) -> list[Place]:
        """`[at(i, j) for i, j in elements]`, the index arithmetic inline (a fragment check asks
        for every element of the operand)."""
        table, first, row_step, col_step = self.map.every_place(), self.flat0, self.row_step, self.col_step
        size = len(table)
        return [table[(first + i * row_step + j * col_step) % size] for i, j in elements]


def atom(op: Operand, slots, what: str) -> tuple[int | None, list[int]]:
    """The warp and registers of one instruction tile. `slots(lane)` lists, in the instruction's
    register order, each register's elements as logical (i, j) coordinates (`pack` elements
    per 32-bit register, low bits first). Each register's elements must be consecutive registers
    of the buffer, starting at a multiple of their count, the same for every lane, held by that
    lane; returns (the warp that holds the tile, the first register of each)."""
    first: list[int] | None = None
    warp: object = ...
    for lane in range(32):
        groups = slots(lane)
        every = op.places([element for elements in groups for element in elements])  # the lane's, at once
        regs = _lane_registers(every, groups, lane, warp)
        if regs is None:
            regs = _lane_registers_one_by_one(op, groups, every, lane, warp, what)
        if every:
            warp = every[0].warp
        if first is None:
            first = regs
        elif regs != first:
            raise NoMatch(f"the lanes hold {what} of {op.name} in different registers")
    return warp, first


def _lane_registers(every: list[Place], groups, lane: int, warp) -> list[int] | None:
    """The first register of each of a lane's groups when the lane holds them as the fragment
    wants (see atom), else None: the whole lane checked at once, column by column (the common
    case, every element of every operand of the tile)."""
    if any(p.lane != lane for p in every):
        return None
    warps = {p.warp for p in every}
    if len(warps) != 1 or (warp is not ... and warp not in warps):
        return None
    size = len(groups[0])
    if any(len(elements) != size for elements in groups):
        return None
    regs = [p.reg for p in every]
    bases = regs[::size]
    if any(base % size for base in bases):
        return None
    if any(regs[k::size] != [base + k for base in bases] for k in range(1, size)):
        return None
    return bases


def _lane_registers_one_by_one(op: Operand, groups, every: list[Place], lane: int, warp, what: str) -> list[int]:
    """_lane_registers register by register, in the instruction's order: NoMatch names the first
    register whose elements break the fragment."""
    regs = []
    at = 0
    for elements in groups:
        places = every[at:at + len(elements)]
        at += len(elements)
        base = places[0].reg
        if any(p.lane != lane for p in places):
            held = next(p for p in places if p.lane != lane)
            i, j = elements[places.index(held)]
            raise NoMatch(f"{op.name}[{i}, {j}] of {what} is in lane {held.lane}; the fragment wants lane {lane}")
        if any(p.reg != base + k for k, p in enumerate(places)) or base % len(places):
            raise NoMatch(f"{op.name}'s elements {elements[0]} .. {elements[-1]} of {what} are not {len(places)} "
                          f"consecutive registers starting at a multiple of {len(places)} (one 32-bit operand)")
        for p in places:
            if warp is ... or p.warp == warp:
                warp = p.warp
            else:
                raise NoMatch(f"{what} of {op.name} is spread over several warps")
        regs.append(base)
    return regs


# -- the fragments of mma.sync m16n8k* (PTX ISA 9.7.14.5.x); lane = 4 * group + thread_in_group ---------

def accumulator_slots(m0: int, n0: int):
    """C / D of m16n8: register s holds (g + 8 * (s // 2), 2t + s % 2)."""
    def slots(lane):
        g, t = divmod(lane, 4)
        return [[(m0 + g + 8 * (s // 2), n0 + 2 * t + s % 2)] for s in range(4)]
    return slots


def a_slots(m0: int, k0: int, k: int, pack: int):
    """A of m16n8k: register r holds rows g + 8 * (r % 2), columns pack * t + p + 4 * pack * (r // 2)."""
    count = 2 * k // (4 * pack)

    def slots(lane):
        g, t = divmod(lane, 4)
        return [[(m0 + g + 8 * (r % 2), k0 + pack * t + p + 4 * pack * (r // 2)) for p in range(pack)]
                for r in range(count)]
    return slots


def b_slots(k0: int, n0: int, k: int, pack: int):
    """B of m16n8k: register r holds rows (k) pack * t + p + 4 * pack * r, column g."""
    count = k // (4 * pack)

    def slots(lane):
        g, t = divmod(lane, 4)
        return [[(k0 + pack * t + p + 4 * pack * r, n0 + g) for p in range(pack)] for r in range(count)]
    return slots


# -- wgmma: the accumulator of m64nN and the A fragment of the register (rs) form -------------------------
# Warp w of the warpgroup holds rows 16w .. 16w + 15 in the m16n8 pattern; register 4j + s of the
# accumulator is column block j (8 columns), slot s as in mma.sync's accumulator.

def wgmma_accumulator_slots(m0: int, n0: int, n: int, pack: int = 1):
    """The registers of one warp's 16 rows of an m64nN accumulator (warp w adds 16w to m0)."""
    def slots(lane):
        g, t = divmod(lane, 4)
        out = []
        for j in range(n // 8):
            elems = [(m0 + g + 8 * (s // 2), n0 + 8 * j + 2 * t + s % 2) for s in range(4)]
            out += [[e] for e in elems] if pack == 1 else [elems[0:2], elems[2:4]]
        return out
    return slots
