"""TIRx's reading of a register reduction whose dst keeps the reduced axes over the threads (part of
its `local` variant; registers.py tries it when dst's size is not src's reduced over `axes=`).

At warp (warpgroup, CTA) scope, src and dst spread over the threads by their layouts: each reduced
dimension of src spans some threads (TIRx's "thread extent": here, how many different sets of
threads hold its elements along it) and some registers. dst keeps, in the place of each reduced
dimension, one element per thread share: its extents are src's with each reduced dimension cut to
the threads it spans (dropped where that is one; dimensions of extent 1 do not count). E.g. src
(16, 128) with each row spread over the four lanes of a quad (lane % 4) and `axes=-1`: dst (16, 4).

Each element of dst takes the reduction of the elements of its output that its thread holds. With
`thread_reduce=True` a `__shfl_xor_sync` butterfly then combines the lanes that share the output,
so every element of dst holds the whole reduction (dst[i, j] = the sum of row i, for every j);
without it, dst's elements of an output are the per-thread partial results, which split the
output's reduced elements between them. `Tx.warp.sum(x, x, thread_reduce=True)` on such a dst
then finishes the reduction in place. `accum=True` combines each result with dst's old value.
plan.py proves, for every thread, that the layouts give exactly that."""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from transpiler import ir
from transpiler.tile import regions
from transpiler.tile.elementwise.common import constant_layout, holders
from transpiler.tile.reduction.common import REDUCE_OPS, Reduce, parse
from transpiler.tile.reduction.plan import ThreadPlan, plan_threads


@dataclass(frozen=True)
class Keep:
    r: Reduce
    dims: tuple[int | None, ...]  # per dim of dst's region: the src dim it stands for (None: extent 1)
    shuffle: bool  # thread_reduce=

    def output(self, index: tuple[int, ...]) -> int:
        """The output (row-major over src's spatial dims) of the element of dst's region at `index`."""
        spa = 0
        for d, k in zip(self.dims, index):
            if d is not None and d in self.r.spatial:
                spa = spa * self.r.src.extents[d].value + k
        return spa


def spread(region: ir.TileRegion, dim: int) -> int:
    """How many different sets of threads hold src's elements along `dim` (the others at the
    region's start)."""
    shape = region.buffer.const_shape()
    start = [s.value for s in region.starts]
    owners = set()
    for k in range(region.extents[dim].value):
        coords = list(start)
        coords[dim] += k
        owners.add(holders(region.buffer.layout, shape, tuple(coords))[1])
    return len(owners)


def _shape(extents) -> str:
    return "(" + ", ".join(map(str, extents)) + ("," if len(extents) == 1 else "") + ")"


def pattern(call: ir.TileCall) -> Keep | str | None:
    """The kept-axes form of the call, why a call of that form does not fit, or None when the call
    is not of that form (dst's size is not src's with its reduced axes kept over the threads)."""
    if call.scope == "thread" or call.op not in REDUCE_OPS:
        return None
    r = parse(call, count=False)
    if isinstance(r, str):
        return None
    for region in (r.dst, r.src):
        if regions.memory(region) != "local" or not regions.is_distributed(region.buffer) or \
                not constant_layout(region.buffer) or not all(isinstance(s, ir.IntImm) for s in region.starts):
            return None
    spans = {d: spread(r.src, d) for d in r.reduce}
    if prod(spans.values()) == 1 or regions.num_elements(r.dst) != r.spatial_len * prod(spans.values()):
        return None
    expected = []  # (src dim, the extent dst has for it)
    for d, e in enumerate(r.src.extents):
        kept = spans[d] if d in spans else e.value
        if kept > 1:
            expected.append((d, kept))
    dst_ext = [e.value for e in r.dst.extents]
    if [e for e in dst_ext if e != 1] != [e for _, e in expected]:
        return (f"dst is {_shape(dst_ext)}; src reduced over `axes` with each reduced axis kept over the threads "
                f"it spans is {_shape([e for _, e in expected])}")
    dims, pending = [], iter(expected)
    for e in dst_ext:
        dims.append(None if e == 1 else next(pending)[0])
    shuffle = call.option("thread_reduce", False)
    if not isinstance(shuffle, (bool, int)):
        return "`thread_reduce=` must be a constant True or False"
    return Keep(r, tuple(dims), bool(shuffle))


def plan(keep: Keep, scope: str, cx) -> ThreadPlan | str:
    return plan_threads(keep.r, scope, cx, dst_output=keep.output, shuffle=keep.shuffle)


def same_region(a: ir.TileRegion, b: ir.TileRegion) -> bool:
    """One buffer's same constant box (the regions of the kept-axes form have constant bounds)."""
    return a.buffer == b.buffer and [x.value for x in a.starts + a.extents] == [x.value for x in b.starts + b.extents]


def lower(keep: Keep, found: ThreadPlan, cx) -> ir.Stmt:
    """In place without `thread_reduce` each element is its own share: nothing to do, with `accum=`
    too (as TIRx, which then neither folds nor combines the old value)."""
    if same_region(keep.r.src, keep.r.dst) and not keep.shuffle:
        return ir.Seq(())
    return found.lower(keep.r, cx)
