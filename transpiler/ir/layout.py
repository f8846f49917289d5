"""TileLayout: the mapping from a logical coordinate to physical axes.

Pure functions over ir.Layout. `apply` follows the TIRx definition (flatten
row-major, split across the shard extents, accumulate per axis, add the offset)
but splits per dimension where the shard extents line up with the shape, so a
column-major (4, 8) buffer gives `j * 4 + i`, not a div/mod chain.
"""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.target.dtypes import INT32

MEMORY_AXES = ("m", "TLane", "TCol")
THREAD_AXES = ("tx", "laneid", "warpid", "wgid", "tid_in_wg", "wid_in_wg",
               "bx", "by", "bz", "cbx", "cby", "cbz")
KNOWN_AXES = MEMORY_AXES + THREAD_AXES


@dataclass(frozen=True)
class Iter:
    extent: ir.Expr
    stride: ir.Expr
    axis: str = "m"


def c(value: int) -> ir.Expr:
    return ir.IntImm(INT32, value)


def row_major_strides(shape) -> list[ir.Expr]:
    strides = []
    running: ir.Expr = c(1)
    for extent in reversed(shape):
        strides.append(running)
        running = ir.mul(running, extent)
    return list(reversed(strides))


def tile_layout(extents, strides=None, axes=None, replica=(), offset=(), text="") -> ir.Layout:
    """A layout from shard extents and strides (memory axis unless named)."""
    if strides is None:
        strides = row_major_strides(extents)
    if axes is None:
        axes = ["m"] * len(extents)
    shard = tuple(Iter(e, s, a) for e, s, a in zip(extents, strides, axes))
    return ir.Layout(shard, tuple(replica), tuple(offset), None, text)


def is_memory_only(layout: ir.Layout) -> bool:
    return all(it.axis == "m" for it in layout.shard + layout.replica) and all(a == "m" for a, _ in layout.offset)


def thread_axes(layout: ir.Layout) -> list[str]:
    return [it.axis for it in layout.shard + layout.replica if it.axis in THREAD_AXES]


def num_elements(layout: ir.Layout) -> ir.Expr:
    total: ir.Expr = c(1)
    for it in layout.shard:
        total = ir.mul(total, it.extent)
    return total


def _const(e: ir.Expr) -> int | None:
    return e.value if isinstance(e, ir.IntImm) else None


def dim_groups(shape, extents):
    """Pair runs of dimensions with runs of shard iters of equal size, innermost first.

    Returns a list of (dims, iters) index lists, or None when the sizes never line up.
    """
    groups = []
    d, k = len(shape) - 1, len(extents) - 1
    while d >= 0 or k >= 0:
        if d >= 0 and k >= 0 and shape[d] == extents[k]:
            groups.append(([d], [k]))
            d, k = d - 1, k - 1
            continue
        dims, iters, pd, pk = [], [], 1, 1
        while True:
            if d >= 0 and (pd < pk or not dims) and _const(shape[d]) is not None and (pd <= pk or k < 0):
                dims.insert(0, d)
                pd *= _const(shape[d])
                d -= 1
            elif k >= 0 and _const(extents[k]) is not None and (pk < pd or not iters):
                iters.insert(0, k)
                pk *= _const(extents[k])
                k -= 1
            else:
                return None
            if pd == pk and dims and iters:
                # absorb unit extents so they do not open empty groups
                while d >= 0 and _const(shape[d]) == 1:
                    dims.insert(0, d)
                    d -= 1
                while k >= 0 and _const(extents[k]) == 1:
                    iters.insert(0, k)
                    k -= 1
                break
            if (d < 0 and pd < pk) or (k < 0 and pk < pd):
                return None
        groups.append((dims, iters))
    return groups


def _split(flat: ir.Expr, extents: list[ir.Expr]) -> list[ir.Expr]:
    """Components of `flat` across extents, outermost first, outermost without modulo."""
    comps = []
    inner: ir.Expr = c(1)
    for i in range(len(extents) - 1, -1, -1):
        part = ir.binop("floordiv", flat, inner)
        if i > 0:
            part = ir.binop("floormod", part, extents[i])
        comps.append(part)
        inner = ir.mul(inner, extents[i])
    return list(reversed(comps))


def _flatten(coords, shape) -> ir.Expr:
    flat: ir.Expr = c(0)
    for coord, stride in zip(coords, row_major_strides(shape)):
        flat = ir.add(flat, ir.mul(coord, stride))
    return flat


def components(layout: ir.Layout, coords, shape) -> list[ir.Expr]:
    """The shard component of each iter for a logical coordinate."""
    extents = [it.extent for it in layout.shard]
    groups = dim_groups(list(shape), extents)
    if groups is None:
        return _split(_flatten(coords, shape), extents)
    comps: list[ir.Expr] = [c(0)] * len(extents)
    for dims, iters in groups:
        flat = _flatten([coords[d] for d in dims], [shape[d] for d in dims])
        for k, part in zip(iters, _split(flat, [extents[k] for k in iters])):
            comps[k] = part
    return comps


def apply(layout: ir.Layout, coords, shape) -> dict[str, list[tuple[ir.Expr, ir.Expr]]]:
    """Per axis, the (component, stride) terms of a coordinate; offsets appear as (1, value)."""
    out: dict[str, list[tuple[ir.Expr, ir.Expr]]] = {}
    for it, comp in zip(layout.shard, components(layout, coords, shape)):
        out.setdefault(it.axis, []).append((comp, it.stride))
    for axis, value in layout.offset:
        out.setdefault(axis, []).append((c(1), value))
    return out


def row_major_terms(coords, shape) -> list[tuple[ir.Expr, ir.Expr]]:
    return list(zip(coords, row_major_strides(shape)))


def linear_index(terms, offset: ir.Expr | None = None) -> ir.Expr:
    """Sum of coefficient * expression terms (an iterable of pairs), printed in a
    fixed order: symbolic coefficients first, then constant coefficients from large
    to small, the constant part last (`((i * 8) + j) + 64`)."""
    constant = 0
    dtype = INT32
    symbolic, numeric = [], []
    IntImm = ir.IntImm
    for expr, coeff in terms:
        dtype = expr.dtype if expr.dtype.bits > dtype.bits else dtype
        if coeff.__class__ is IntImm:
            if expr.__class__ is IntImm:
                constant += expr.value * coeff.value
                continue
            if coeff.value == 0:
                continue
            if expr.__class__ is ir.BinOp and expr.op in ("+", "-") and expr.b.__class__ is IntImm:
                constant += (expr.b.value if expr.op == "+" else -expr.b.value) * coeff.value
                expr = expr.a
            numeric.append((expr, coeff))
        else:
            symbolic.append((expr, coeff))
    if len(numeric) > 1:
        numeric.sort(key=lambda t: -t[1].value)  # stable: equal strides keep dimension order
    total: ir.Expr | None = None
    for expr, coeff in symbolic + numeric:
        term = expr if coeff.__class__ is IntImm and coeff.value == 1 else ir.mul(expr, coeff)  # as mul folds it
        total = term if total is None else ir.add(total, term)
    if offset is not None:
        if offset.__class__ is IntImm:
            constant += offset.value
        else:
            total = offset if total is None else ir.add(total, offset)
    if constant or total is None:
        total = ir.IntImm(dtype, constant) if total is None else ir.add(total, ir.IntImm(total.dtype, constant))
    return total


def memory_index(layout: ir.Layout | None, coords, shape, elem_offset: ir.Expr) -> ir.Expr:
    """data + elem_offset + layout.apply(coord)["m"], as one index expression."""
    if layout is None:
        return linear_index(row_major_terms(coords, shape), elem_offset)
    terms = apply(layout, coords, shape).get("m", [])
    if layout.swizzle is None:
        return linear_index(terms, elem_offset)
    return ir.add(swizzle(linear_index(terms), layout.swizzle), elem_offset)


def swizzle_const(m: int, params) -> int:
    """`swizzle` on a constant element address."""
    if params is None:
        return m
    per_element, length, atom, inner = params
    unit = m >> per_element
    if inner:
        bits = (unit & (((1 << length) - 1) << atom)) >> atom
    else:
        bits = (unit & ((1 << length) - 1)) << atom
    return ((unit ^ bits) << per_element) + (m & ((1 << per_element) - 1))


def swizzle(m: ir.Expr, params) -> ir.Expr:
    """ComposeLayout's XOR swizzle of an element address (identity without params)."""
    if params is None:
        return m
    per_element, length, atom, inner = params
    unit = ir.binop(">>", m, c(per_element)) if per_element else m
    if inner:  # bits [atom, atom + length) fold into bits [0, length)
        bits = ir.binop(">>", ir.binop("&", unit, c(((1 << length) - 1) << atom)), c(atom))
    else:  # the mirror image: bits [0, length) fold into bits [atom, atom + length)
        bits = ir.binop("<<", ir.binop("&", unit, c((1 << length) - 1)), c(atom))
    mixed = ir.binop("^", unit, bits)
    if not per_element:
        return mixed
    return ir.add(ir.binop("<<", mixed, c(per_element)), ir.binop("&", m, c((1 << per_element) - 1)))


def coordinates(layout: ir.Layout, coords: tuple[int, ...], shape: tuple[int, ...]) -> list[dict[str, int]]:
    """The set L(x) of a constant coordinate: one {axis: value} per replica combination,
    the first replica iter outermost; the memory axis `m` is swizzled where the layout is."""
    terms = apply(layout, [c(v) for v in coords], [c(e) for e in shape])
    copies = [{axis: linear_index(axis_terms).value for axis, axis_terms in terms.items()}]
    for it in layout.replica:
        copies = [{**copy, it.axis: copy.get(it.axis, 0) + r * it.stride.value}
                  for copy in copies for r in range(it.extent.value)]
    if layout.swizzle is not None:
        for copy in copies:
            if "m" in copy:
                copy["m"] = swizzle(c(copy["m"]), layout.swizzle).value
    return copies


def permuted(layout: ir.Layout | None, shape, dims) -> tuple[ir.Layout, tuple]:
    """The layout and shape of `B.permute(*dims)`: same storage, axes swapped."""
    if layout is None:
        strides = row_major_strides(shape)
        new_shape = tuple(shape[d] for d in dims)
        return tile_layout(list(new_shape), [strides[d] for d in dims]), new_shape
    if len(layout.shard) != len(shape) or dim_groups(list(shape), [it.extent for it in layout.shard]) is None:
        return None, None
    new_shard = tuple(layout.shard[d] for d in dims)
    return ir.Layout(new_shard, layout.replica, layout.offset, layout.swizzle), tuple(shape[d] for d in dims)


def memory_span(layout: ir.Layout) -> int | None:
    """Elements of per-thread storage: 1 + sum over memory iters of (extent - 1) * stride, plus the offset."""
    span = 1
    for it in layout.shard + layout.replica:
        if it.axis != "m":
            continue
        extent, stride = _const(it.extent), _const(it.stride)
        if extent is None or stride is None:
            return None
        span += (extent - 1) * stride
    for axis, value in layout.offset:
        if axis == "m":
            if _const(value) is None:
                return None
            span += _const(value)
    return span


def describe(layout: ir.Layout | None) -> str:
    if layout is None:
        return "row-major"
    return layout.text or "TileLayout"


def tmem_columns(layout: ir.Layout) -> int | None:
    """How many 32-bit tensor-memory columns a layout spans from its first column
    (None when an extent or stride of its TCol iters is not a constant)."""
    iters = [(it.extent, it.stride) for it in layout.shard if it.axis == "TCol"]
    if not all(isinstance(e, ir.IntImm) and isinstance(st, ir.IntImm) for e, st in iters):
        return None
    return 1 + sum((e.value - 1) * st.value for e, st in iters)
