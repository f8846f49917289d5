"""What the elementwise variants (registers.py and shared.py, packed.py) and the fused ops share:
the scalar inputs bound once, one element's value, register loads and stores, the elements of a
register tile a thread holds (with guards and registers worked out from the constant layouts),
loops, the scope's barrier, and which threads hold which elements of a register layout."""
from __future__ import annotations

from itertools import product
from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import VOID
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.ops import Plan, as_dtype, extents, input_dtype, predicate, src_coords
from transpiler.tile.registry import Decline

# The thread axes a register layout may spread dst over, per scope (a call at one scope
# computes on the registers of that scope's threads).
SCOPE_AXES = {"warp": {"laneid"}, "warpgroup": {"laneid", "wid_in_wg", "tid_in_wg"},
              "cta": {"laneid", "warpid", "tx", "wgid", "wid_in_wg", "tid_in_wg"}}


def held_elements(p: Plan, cx) -> list[tuple[int, tuple, dict, object]]:
    """The elements of dst's region this thread holds: (dst register, index in the region, the
    register of each register input that is the same on every thread, the guard: True or the
    run-time test of an element only some threads hold inside the region)."""
    dst = p.dst
    held = partition(dst.buffer, cx)
    if isinstance(held, str):
        raise Decline(held)
    table = register_table(p)
    out = []
    for h in held:
        index = tuple(ir.binop("-", coord, start) for coord, start in zip(h.coords, dst.starts))
        known = table.get(h.register) if table is not None else None
        if table is not None and known is None:
            continue  # no thread holds an element of the region in this register
        guard = True if known is not None and known[0] else inside(dst, index)
        if guard is False:
            continue
        own = {"dst": h.register, **(known[1] if known is not None else {})}
        out.append((h.register, index, own, guard))
    return out


AXIS_RANGE = {"laneid": 32, "wid_in_wg": 4, "tid_in_wg": 128}


def partition(buf: ir.Buffer, cx) -> list[regions.Held] | str:
    """regions.partition, with each coordinate built per dimension where the layout's iters line
    up with the buffer's dimensions (`lane` rather than `(lane * 8) / 8`): the index arithmetic
    then folds, and the register of an input in a matching layout is a constant."""
    lay = buf.layout
    shape = buf.const_shape()
    if not constant_layout(buf) or lay.replica and any(it.axis == "m" for it in lay.replica):
        return regions.partition(buf, cx)
    groups = layouts.dim_groups([c(e) for e in shape], [it.extent for it in lay.shard])
    if groups is None or any(len(dims) != 1 for dims, _ in groups):
        return regions.partition(buf, cx)
    iters = list(lay.shard)

    def thread_digit(it):
        value = cx.axis_value(it.axis)
        if it.stride.value != 1:
            value = ir.binop("floordiv", value, it.stride)
        if AXIS_RANGE.get(it.axis) != it.stride.value * it.extent.value:
            value = ir.binop("floormod", value, it.extent)
        return value
    digits_t = {k: thread_digit(it) for k, it in enumerate(iters) if it.axis != "m" and it.extent.value > 1}
    memory = [k for k, it in enumerate(iters) if it.axis == "m"]
    base = sum(v.value for a, v in lay.offset if a == "m")
    out = []
    for digits in product(*(range(iters[k].extent.value) for k in memory)):
        chosen = dict(zip(memory, digits))
        register = base + sum(d * iters[k].stride.value for k, d in chosen.items())
        coords = [c(0)] * len(shape)
        for dims, its in groups:
            place, coord = 1, c(0)
            for k in reversed(its):
                digit = c(chosen[k]) if k in chosen else digits_t.get(k, c(0))
                coord = ir.add(coord, ir.mul(digit, c(place)))
                place *= iters[k].extent.value
            coords[dims[0]] = coord
        out.append(regions.Held(register, tuple(coords)))
    return out


def register_table(p: Plan) -> dict | None:
    """Per dst register holding an element of the region on some thread: (whether it does on every
    thread, {input: its register where every thread has the same one}); None when the layouts or
    starts are not constant (then guards and registers are computed at run time)."""
    dst = p.dst
    if not constant_layout(dst.buffer) or not all(isinstance(s, ir.IntImm) for s in dst.starts):
        return None
    shape = dst.buffer.const_shape()
    if prod(shape) > LIMIT:
        return None
    starts = [s.value for s in dst.starts]
    dims = extents(dst)
    # Each list runs over the elements in row-major order (the region's, or the whole buffer's),
    # built a dimension at a time: the registers of every element without a call per element.
    dst_registers = registers_by_index(dst.buffer.layout)
    in_region = [True]
    for size, start, extent in zip(shape, starts, dims):
        in_region = [inside and start <= x < start + extent for inside in in_region for x in range(size)]
    outside = {dst_registers[flat % len(dst_registers)] for flat, inside in enumerate(in_region) if not inside}
    row_major = [prod(shape[d + 1:]) for d in range(len(shape))]
    dst_regs = [dst_registers[flat % len(dst_registers)]
                for flat in region_indices(sum(s * w for s, w in zip(starts, row_major)), dims, row_major)]
    inputs = [(n, _src_registers(dst, v, dims)) for n, v in p.inputs
              if isinstance(v, ir.TileRegion) and regions.is_distributed(v.buffer)
              and constant_layout(v.buffer) and all(isinstance(s, ir.IntImm) for s in v.starts)]
    table: dict[int, tuple[bool, dict]] = {}
    seen: dict[int, dict[str, set]] = {}
    for k, reg in enumerate(dst_regs):
        regs = seen.setdefault(reg, {})
        for name, src_regs in inputs:
            regs.setdefault(name, set()).add(src_regs[k])
    for reg, regs in seen.items():
        table[reg] = (reg not in outside, {n: next(iter(r)) for n, r in regs.items() if len(r) == 1})
    return table


def region_indices(first: int, dims, weights) -> list[int]:
    """`first + sum(index[k] * weights[k])` for every index of a region of extents `dims`, in
    row-major order of the index."""
    out = [first]
    for extent, weight in zip(dims, weights):
        out = [x + k * weight for x in out for k in range(extent)]
    return out


def _src_registers(dst: ir.TileRegion, src: ir.TileRegion, dims) -> list[int]:
    """The register of the input element each element of dst's region reads (src_coords), in
    row-major order of dst's region."""
    shape = src.buffer.const_shape()
    row_major = [prod(shape[d + 1:]) for d in range(len(shape))]
    pairs = _src_coords_pairs(dst, src)
    first = sum(start * w for (start, _), w in zip(pairs, row_major))
    weights = [0] * len(dims)  # how far src's row-major index moves per step of each dim of dst's region
    for (_, at), w in zip(pairs, row_major):
        if at is not None:
            weights[at] += w
    registers = registers_by_index(src.buffer.layout)
    return [registers[flat % len(registers)] for flat in region_indices(first, dims, weights)]


# -- pieces shared with the fused ops ------------------------------------------------------------

def loop(cx, base: str, extent: int, body, unroll: bool = False) -> ir.Stmt:
    """`for base in range(extent)` (`#pragma unroll` when asked: register arrays indexed by the
    loop variable stay in registers only when the loop is unrolled); no loop for one iteration."""
    if extent <= 0:
        return ir.Seq(())
    if extent == 1:
        return body(c(0)) or ir.Seq(())
    var = cx.var(base, nonneg=True)
    inner = body(var) or ir.Seq(())
    return ir.For(var, c(0), c(extent), c(1), inner, "pragma_unroll" if unroll else "serial", -1 if unroll else 0)


def bind_scalars(p: Plan, cx) -> tuple[list[ir.Stmt], dict]:
    """The scalar inputs in the compute dtype, a run-time value bound once to a local."""
    pre, values = [], {}
    for name, value in p.inputs:
        if isinstance(value, (ir.TileRegion, ir.TileLambda)):
            continue
        expr = as_dtype(value, input_dtype(p, name))
        if not isinstance(expr, (ir.IntImm, ir.FloatImm, ir.Var)):
            var, let = cx.let(name, expr)
            pre.append(let)
            expr = var
        values[name] = expr
    return pre, values


def element(p: Plan, index: tuple[ir.Expr, ...], values: dict, own=None) -> ir.Expr:
    """The value of dst's element at `index` (offsets into dst's region). `own`: the registers
    that hold it, by operand ("dst" and inputs), where they are the same on every thread."""
    vals = dict(values)
    for name, value in p.inputs:
        if isinstance(value, ir.TileLambda):
            vals[name] = predicate(value, tuple(ir.add(s, k) for s, k in zip(p.dst.starts, index)))
        elif isinstance(value, ir.TileRegion):
            coords = src_coords(p.dst, value, index)
            loaded = load(value, coords, p.dst, own, name)
            vals[name] = as_dtype(loaded, input_dtype(p, name))
    return p.compute(vals)


def load(region: ir.TileRegion, coords, dst: ir.TileRegion | None = None, own=None, name="") -> ir.Expr:
    buf = region.buffer
    if regions.is_distributed(buf):
        own = own or {}
        reg = own.get(name, own.get("dst") if dst is not None and same_registers(region, dst) else None)
        if reg is not None:
            return ir.BufferLoad(buf.dtype, regions.registers(buf), (c(reg),), region.span)
        index = layouts.memory_index(buf.layout, coords, buf.shape, buf.elem_offset)
        return ir.BufferLoad(buf.dtype, regions.registers(buf), (index,), region.span)
    return regions.load(region, coords)


def store(region: ir.TileRegion, coords, value: ir.Expr) -> ir.Stmt:
    buf = region.buffer
    if regions.is_distributed(buf):
        index = layouts.memory_index(buf.layout, coords, buf.shape, buf.elem_offset)
        return ir.BufferStore(regions.registers(buf), (index,), ir.cast(buf.dtype, value), region.span)
    return regions.store(region, coords, value)


def same_registers(a: ir.TileRegion, b: ir.TileRegion) -> bool:
    """Whether two register regions put each element in the same register of the same thread."""
    x, y = a.buffer, b.buffer
    return (x.layout == y.layout and x.const_shape() == y.const_shape() and x.elem_offset == y.elem_offset
            and a.starts == b.starts and a.extents == b.extents)


def inside(region: ir.TileRegion, index) -> ir.Expr | bool:
    """Whether an element a thread holds lies in the region (True / False when known)."""
    conds = []
    shape = region.buffer.const_shape()
    for k, (offset, extent) in enumerate(zip(index, region.extents)):
        if ir.is_const(region.starts[k], 0) and shape is not None and extent.value == shape[k]:
            continue
        for cond in (ir.binop(">=", offset, c(0)), ir.binop("<", offset, extent)):
            if ir.is_const(cond):
                if not cond.value:
                    return False
                continue
            conds.append(cond)
    if not conds:
        return True
    out = conds[0]
    for cond in conds[1:]:
        out = ir.binop("&&", out, cond)
    return out


def unflatten(flat: ir.Expr, dims: tuple[int, ...]) -> tuple[ir.Expr, ...]:
    """Row-major offsets of element `flat` of a box with extents `dims` (unit dims are 0)."""
    out, stride, first = [], prod(dims), True
    for extent in dims:
        stride //= extent
        if extent == 1:
            out.append(c(0))
            continue
        part = ir.binop("floordiv", flat, c(stride)) if stride != 1 else flat
        out.append(part if first else ir.binop("floormod", part, c(extent)))
        first = False
    return tuple(out)


def scope_sync(cx) -> ir.Stmt:
    """The barrier after a shared-memory result: the scope's threads see each other's writes."""
    scope = cx.scope
    if scope == "cta":
        return ir.Evaluate(ir.Call(VOID, "__syncthreads", ()))
    if scope == "warp":
        return ir.Evaluate(ir.Call(VOID, "__syncwarp", ()))
    if scope == "warpgroup":  # named barrier 8 + the warpgroup's index (TIRx uses 8): one per warpgroup
        wg = ir.binop("floordiv", cx.tid(), c(128))
        return ir.Evaluate(ir.Call(VOID, "tirx_warpgroup_sync", (ir.add(c(8), wg),)))
    return ir.Seq(())


# -- which threads hold which elements (constant layouts, numerically) ----------------------------

def holders(layout: ir.Layout, shape: tuple[int, ...], coords: tuple[int, ...]) -> tuple[int, frozenset]:
    """(the register, the set of thread-axis value tuples) of a constant coordinate."""
    return holders_of(layout, shape)(coords)


def holders_of(layout: ir.Layout, shape: tuple[int, ...]):
    """`holders(layout, shape, coords)` as a function of coords, the layout read once (the layout
    checks ask for the holders of every element of a region)."""
    steps = [(it.axis, it.extent.value, it.stride.value) for it in reversed(layout.shard)]
    offsets = [(axis, value.value) for axis, value in layout.offset]
    # each replica copy: the amount it adds to each axis
    copies: list[dict[str, int]] = [{}]
    for it in layout.replica:
        copies = [{**d, it.axis: d.get(it.axis, 0) + r * it.stride.value} for d in copies
                  for r in range(it.extent.value)]
    axes = sorted(({axis for axis, _, _ in steps} | {axis for axis, _ in offsets}
                   | {it.axis for it in layout.replica}) - {"m"})

    def holders_at(coords: tuple[int, ...]) -> tuple[int, frozenset]:
        flat = 0
        for coord, extent in zip(coords, shape):
            flat = flat * extent + coord
        values: dict[str, int] = {}
        for axis, extent, stride in steps:
            values[axis] = values.get(axis, 0) + (flat % extent) * stride
            flat //= extent
        for axis, value in offsets:
            values[axis] = values.get(axis, 0) + value
        threads = frozenset(tuple((a, values.get(a, 0) + d.get(a, 0)) for a in axes) for d in copies)
        return values.get("m", 0), threads

    return holders_at


def owners_by_index(layout: ir.Layout) -> tuple[list[int], list[list[tuple]]]:
    """`holders` of every element at once, by the element's row-major index as in
    registers_by_index: the registers, and per replica copy each element's thread key (the
    `(axis, value)` pairs of holders' sets); the keys of one element over the copies are its
    set of holding threads."""
    offsets: dict[str, int] = {}
    for axis, value in layout.offset:
        offsets[axis] = offsets.get(axis, 0) + value.value
    axes = sorted(({it.axis for it in layout.shard} | set(offsets) | {it.axis for it in layout.replica}) - {"m"})
    values = {axis: [offsets.get(axis, 0)] for axis in axes}
    for it in layout.shard:
        extent, stride = it.extent.value, it.stride.value
        for axis, column in values.items():
            step = stride if axis == it.axis else 0
            values[axis] = [v + d * step for v in column for d in range(extent)]
    copies: list[dict[str, int]] = [{}]
    for it in layout.replica:
        copies = [{**d, it.axis: d.get(it.axis, 0) + r * it.stride.value} for d in copies
                  for r in range(it.extent.value)]
    registers = registers_by_index(layout)
    if not axes:  # held by every thread alike: the one key without axes
        return registers, [[()] * len(registers)]
    keys = [list(zip(*([(axis, v + copy.get(axis, 0)) for v in values[axis]] for axis in axes))) for copy in copies]
    return registers, keys


def registers_by_index(layout: ir.Layout) -> list[int]:
    """The register of every element of a constant layout, by the element's row-major index in
    the layout's iters (an index past them wraps around, as the outermost digit does), the
    threads left out: the layout's digits expanded outermost first."""
    registers = [sum(value.value for axis, value in layout.offset if axis == "m")]
    for it in layout.shard:
        step = it.stride.value if it.axis == "m" else 0
        registers = [r + d * step for r in registers for d in range(it.extent.value)]
    return registers


def _src_coords_pairs(dst: ir.TileRegion, src: ir.TileRegion) -> list[tuple[int, int | None]]:
    """`src_coords(dst, src, index)` for constant starts, per dim of src: (its start, the dim of
    dst's region whose offset it adds, or None): src's coordinates of the element at offsets
    `index` into dst's region are `start + index[at]`."""
    starts = [start.value for start in src.starts]
    if regions.squeezed(dst) == regions.squeezed(src):
        # coords_at over dst's non-unit offsets: src's non-unit dims take them in order
        picks = [k for k, e in enumerate(extents(dst)) if e != 1]
        unit = [isinstance(e, ir.IntImm) and e.value == 1 for e in src.extents]
        taken, k = [], 0
        for is_unit in unit:
            taken.append(None if is_unit else picks[k])
            if not is_unit:
                k += 1
    else:
        pad = len(dst.extents) - len(src.extents)
        taken = [None if k + pad < 0 or extent == 1 else k + pad for k, extent in enumerate(extents(src))]
    return list(zip(starts, taken))


def constant_layout(buf: ir.Buffer) -> bool:
    lay = buf.layout
    return (lay is not None and lay.swizzle is None and buf.const_shape() is not None
            and all(isinstance(it.extent, ir.IntImm) and isinstance(it.stride, ir.IntImm)
                    for it in lay.shard + lay.replica)
            and all(isinstance(v, ir.IntImm) for _, v in lay.offset))


LIMIT = 1 << 16  # elements a layout check enumerates


def aligned(dst: ir.TileRegion, src: ir.TileRegion, name: str) -> str | None:
    """None when every thread holding an element of dst also holds the input it reads."""
    if same_registers(src, dst):
        return None
    if not (constant_layout(dst.buffer) and constant_layout(src.buffer)):
        return f"{name}'s register layout is not constant"
    if not all(isinstance(s, ir.IntImm) for s in dst.starts + src.starts):
        return f"{name} or dst starts at a run-time position in a register tile spread over threads"
    if set(layouts.thread_axes(dst.buffer.layout)) != set(layouts.thread_axes(src.buffer.layout)):
        return f"{name} and dst are spread over different thread axes"
    dims = extents(dst)
    if prod(dims) > LIMIT:
        return "the register tiles are too large to check their layouts"
    dst_holders = holders_of(dst.buffer.layout, dst.buffer.const_shape())
    src_holders = holders_of(src.buffer.layout, src.buffer.const_shape())
    for index in product(*(range(e) for e in dims)):
        coords = tuple(s.value + k for s, k in zip(dst.starts, index))
        scoords = tuple(e.value for e in src_coords(dst, src, tuple(c(k) for k in index)))
        if not dst_holders(coords)[1] <= src_holders(scoords)[1]:
            return (f"{name}[{', '.join(map(str, scoords))}] is not held by every thread that holds "
                    f"dst[{', '.join(map(str, coords))}]")
    return None



