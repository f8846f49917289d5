"""What the reduction variants (registers.py and shared.py, packed.py, plan.py) and the fused
ops share: a call parsed into its outputs and reduced dimensions, the reduction's identity and
combining step, scratch registers, and the checks over a parsed call."""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from transpiler import ir
from transpiler.target.dtypes import DType, int_range
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import Check

REDUCE_OPS = ("sum", "max", "min")


@dataclass(frozen=True)
class Reduce:
    op: str  # sum max min
    dst: ir.TileRegion
    src: ir.TileRegion
    reduce: tuple[int, ...]  # the region dims of src that are reduced
    spatial: tuple[int, ...]  # the others, in order
    accum: bool

    @property
    def spatial_len(self) -> int:
        return prod(self.src.extents[d].value for d in self.spatial)

    @property
    def reduce_len(self) -> int:
        return prod(self.src.extents[d].value for d in self.reduce)

    def src_coords(self, spa: ir.Expr, red: ir.Expr) -> tuple[ir.Expr, ...]:
        """src's coordinates of reduced element `red` of output `spa` (both row-major flat)."""
        out = list(self.src.starts)
        for dims, flat in ((self.spatial, spa), (self.reduce, red)):
            exts = [self.src.extents[d].value for d in dims]
            stride = prod(exts)
            first = True
            for d, e in zip(dims, exts):
                stride //= e
                if e == 1:
                    continue
                part = ir.binop("floordiv", flat, c(stride)) if stride != 1 else flat
                out[d] = ir.add(out[d], part if first else ir.binop("floormod", part, c(e)))
                first = False
        return tuple(out)

    def dst_coords(self, spa: ir.Expr) -> tuple[ir.Expr, ...]:
        return regions.coords_of(self.dst, spa)


def parse(call: ir.TileCall, op: str | None = None, names=("dst", "src", "axes", "accum"),
          count: bool = True) -> Reduce | str:
    """The call as a Reduce, or why it is not one; `count=False` leaves dst's size unchecked (the
    kept-axes form, keep_axes.py, sizes dst otherwise)."""
    ops = dict(call.operands)
    dst, src, axes, accum = (ops.get(n) for n in names)
    op = op or call.op
    if op not in REDUCE_OPS:
        return f"`{op}` is not a reduction (sum, max or min)"
    if not isinstance(dst, ir.TileRegion) or not isinstance(src, ir.TileRegion):
        return "dst and src must be buffer regions"
    if regions.num_elements(src) is None or regions.num_elements(dst) is None:
        return "the regions' extents are not constant"
    if dst.buffer.dtype != src.buffer.dtype:
        return f"dst is {dst.buffer.dtype.name} and src is {src.buffer.dtype.name}"
    if not isinstance(accum, (bool, int)):
        return "`accum=` must be a constant True or False"
    axes = (axes,) if isinstance(axes, int) else axes
    if not isinstance(axes, tuple) or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        return "`axes=` must be an int or a tuple of ints"
    ndim = len(src.extents)
    reduce = set()
    for a in axes:
        if not -ndim <= a < ndim:
            return f"axis {a} is out of range for src's {ndim} dimensions"
        reduce.add(a % ndim)
    spatial = tuple(d for d in range(ndim) if d not in reduce)
    r = Reduce(op, dst, src, tuple(sorted(reduce)), spatial, bool(accum))
    if count and regions.num_elements(dst) != r.spatial_len:
        return f"dst has {regions.num_elements(dst)} elements; src keeps {r.spatial_len} after the reduction"
    return r


def identity(op: str, dtype: DType) -> ir.Expr:
    if op == "sum":
        return ir.const(0.0 if dtype.is_float else 0, dtype)
    if dtype.is_float:
        return ir.FloatImm(dtype, float("-inf") if op == "max" else float("inf"))
    low, high = int_range(dtype)
    return ir.IntImm(dtype, low if op == "max" else high)


def combine(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.binop("+" if op == "sum" else op, a, b)


def scratch(cx, base: str, dtype: DType, size: int = 1) -> tuple[ir.Stmt, ir.Buffer]:
    """A fresh register array of the lowering's own."""
    name = cx.names.fresh(base + "_ptr")
    storage = ir.Storage(name, dtype, "local", "array", size, 0)
    buf = ir.Buffer(base, (c(size),), dtype, "local", storage, None, None, 0)
    return ir.Allocate(buf), buf


def at(buf: ir.Buffer, k) -> ir.Expr:
    return ir.BufferLoad(buf.dtype, buf, (c(k) if isinstance(k, int) else k,))


def put(buf: ir.Buffer, k, value: ir.Expr) -> ir.Stmt:
    return ir.BufferStore(buf, (c(k) if isinstance(k, int) else k,), ir.cast(buf.dtype, value))


def parsed_check(says: str, test) -> Check:
    def run(call, cx):
        r = parse(call)
        return r if isinstance(r, str) else test(r, call, cx)
    return Check(says, run)


def memories(wanted: str, says: str) -> Check:
    def test(r, call, cx):
        for name, region in (("dst", r.dst), ("src", r.src)):
            if regions.memory(region) != wanted:
                return f"{name} is in {regions.memory(region)} memory"
        return None
    return parsed_check(says, test)


valid = parsed_check("dst holds one element per output of src reduced over `axes`", lambda r, call, cx: None)


