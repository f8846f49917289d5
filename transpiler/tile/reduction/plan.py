"""The `local` reduction over register buffers spread over threads (registers.py): which of its
registers each thread folds into each output register, and which lanes' partial results an
`__shfl_xor_sync` butterfly must combine.

The layouts are evaluated for every thread of the scope (constant layouts only). The code is the
same for every thread, so the plan is read off thread 0 and then proved for every thread: it holds
the same output registers; the source registers it folds for each are the same; and the lanes
`t ^ m` (m in the span of the shuffle masks, all inside t's warp) together hold each element of
that output's reduction exactly once."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target.dtypes import UINT32
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import SCOPE_AXES, constant_layout, holders_of, owners_by_index, \
    region_indices
from transpiler.tile.reduction.common import at, combine, identity, put, scratch

LIMIT = 1 << 20  # elements x threads the check may enumerate


def axis_values(scope: str, t: int) -> dict[str, int]:
    if scope == "warp":
        return {"laneid": t}
    if scope == "warpgroup":
        return {"laneid": t % 32, "wid_in_wg": t // 32, "tid_in_wg": t}
    return {"tx": t, "laneid": t % 32, "warpid": t // 32, "wgid": t // 128, "tid_in_wg": t % 128,
            "wid_in_wg": (t // 32) % 4}


def _axes(layout: ir.Layout) -> tuple[str, ...]:
    return tuple(sorted({it.axis for it in layout.shard + layout.replica if it.axis != "m"}
                        | {a for a, _ in layout.offset if a != "m"}))


def _key(axes, values) -> tuple:
    return tuple((a, values[a]) for a in axes)


@dataclass(frozen=True)
class ThreadPlan:
    outputs: tuple[tuple[int, tuple[int, ...]], ...]  # (dst register, the src registers folded into it)
    masks: tuple[tuple[int, ...], ...]  # per output: the shuffle xor masks

    def lower(self, r, cx) -> ir.Stmt:
        """Each distinct (folded registers, masks) once (dst registers that hold copies of one
        result share it), every dst register written after every read (src and dst may be one)."""
        dtype = r.src.buffer.dtype
        src, dst = regions.registers(r.src.buffer), regions.registers(r.dst.buffer)
        slots: dict[tuple, int] = {}
        for (_, folded), masks in zip(self.outputs, self.masks):
            slots.setdefault((folded, masks), len(slots))
        alloc, acc = scratch(cx, "acc", dtype, len(slots))
        body = [alloc]
        full = ir.IntImm(UINT32, 0xFFFFFFFF)
        for (folded, masks), k in slots.items():
            body.append(put(acc, k, identity(r.op, dtype)))
            for reg in folded:
                body.append(put(acc, k, combine(r.op, at(acc, k), at(src, reg))))
            for m in masks:
                body.append(put(acc, k, combine(r.op, at(acc, k), ir.Call(dtype, "__shfl_xor_sync",
                                                                           (full, at(acc, k), c(m))))))
        for (reg, folded), masks in zip(self.outputs, self.masks):
            k = slots[(folded, masks)]
            body.append(put(dst, reg, combine(r.op, at(dst, reg), at(acc, k)) if r.accum else at(acc, k)))
        return ir.Seq(tuple(body))


def plan_threads(r, scope: str, cx, dst_output=None, shuffle: bool = True) -> ThreadPlan | str:
    """The plan of `r` over the scope's threads, or why there is none. `dst_output(index)` gives the
    output (row-major over src's spatial dims) of the element of dst's region at `index`; without it
    dst holds one element per output, in row-major order. With `shuffle=False` (the kept-axes form
    without `thread_reduce`, keep_axes.py) no lanes are combined: each element of dst takes the
    result over the elements its thread holds, the threads holding one element must agree, and the
    elements of one output must split its reduced elements between them."""
    return _plan(r, scope, cx.scope_threads(scope), dst_output, shuffle)


@lru_cache(maxsize=256)
def _plan(r, scope: str, threads: int | None, dst_output, shuffle: bool) -> ThreadPlan | str:
    """plan_threads over `threads` threads: a pure function of its (frozen) arguments, asked once
    when the variant is chosen and again when it is lowered."""
    for name, region in (("dst", r.dst), ("src", r.src)):
        if not constant_layout(region.buffer):
            return f"{name}'s register layout is not constant"
        extra = set(layouts.thread_axes(region.buffer.layout)) - SCOPE_AXES[scope]
        if extra:
            return f"{name}'s layout spreads it over `{sorted(extra)[0]}`, beyond the {scope}"
    if threads is None:
        return "the block shape is not constant"
    if r.spatial_len * r.reduce_len * 2 + threads * r.spatial_len > LIMIT:
        return "the register tiles are too large to check their layouts"
    src_ext = [e.value for e in r.src.extents]
    src_start = [s.value if isinstance(s, ir.IntImm) else None for s in r.src.starts]
    dst_start = [s.value if isinstance(s, ir.IntImm) else None for s in r.dst.starts]
    if None in src_start or None in dst_start:
        return "the regions' starts are not constant"
    # which thread holds which element: thread key -> [(element, register)]
    src_lay, dst_lay = r.src.buffer.layout, r.dst.buffer.layout
    src_shape, dst_shape = r.src.buffer.const_shape(), r.dst.buffer.const_shape()
    src_map: dict[tuple, dict[int, tuple[int, int]]] = {}
    spatial_ext = [src_ext[d] for d in r.spatial]
    reduce_ext = [src_ext[d] for d in r.reduce]
    # the elements' row-major indices in src's buffer: each output's first, each reduced element's offset
    src_rows = [prod(src_shape[d + 1:]) for d in range(len(src_shape))]
    firsts = region_indices(sum(s * w for s, w in zip(src_start, src_rows)), spatial_ext, [src_rows[d] for d in r.spatial])
    steps = region_indices(0, reduce_ext, [src_rows[d] for d in r.reduce])
    src_registers, src_keys = owners_by_index(src_lay)
    size = len(src_registers)
    for spa, first in enumerate(firsts):
        for red, step in enumerate(steps):
            flat = (first + step) % size
            reg = src_registers[flat]
            for keys in src_keys:
                src_map.setdefault(keys[flat], {})[reg] = (spa, red)
    dst_holders = holders_of(dst_lay, dst_shape)
    dst_ext = [e.value for e in r.dst.extents]
    dst_map: dict[tuple, dict[int, tuple]] = {}  # thread key -> register -> (output, index in the region)
    for flat, index in enumerate(product(*(range(e) for e in dst_ext))):
        reg, owners = dst_holders(tuple(s + k for s, k in zip(dst_start, index)))
        spa = flat if dst_output is None else dst_output(index)
        for owner in owners:
            dst_map.setdefault(owner, {})[reg] = (spa, index)
    src_axes, dst_axes = _axes(src_lay), _axes(dst_lay)

    # per thread key: output -> the src registers holding its elements (threads of one key share it)
    folded_of = {key: _folded(regs) for key, regs in src_map.items()}
    table, src_folds = [], []
    for t in range(threads):
        values = axis_values(scope, t)
        src_key = _key(src_axes, values)
        table.append((dst_map.get(_key(dst_axes, values), {}), src_map.get(src_key, {})))
        src_folds.append(folded_of.get(src_key, {}))
    held = table.__getitem__

    dst0, src0 = held(0)
    if not dst0:
        return "thread 0 of the scope holds no element of dst"
    outputs, masks = [], []
    for reg in sorted(dst0):
        spa = dst0[reg][0]
        folded = src_folds[0].get(spa, ())
        if not folded:
            return f"thread 0 holds dst's output {spa} but none of the elements reduced into it"
        if not shuffle:
            outputs.append((reg, folded))
            masks.append(())
            continue
        lanes = [u for u in range(min(32, threads)) if any(held(u)[1].get(rs, (None,))[0] == spa for rs in folded)]
        span, basis = {0}, []
        for u in lanes:
            if u not in span:
                basis.append(u)
                span |= {x ^ u for x in span}
        if span != set(lanes):
            return "the lanes that hold one output's elements are not a butterfly group (an xor subspace of lane ids)"
        outputs.append((reg, folded))
        masks.append(tuple(basis))
    group_masks = [sorted(_span(m)) for m in masks]
    partials: dict[tuple, frozenset] = {}  # dst's element -> the reduced elements folded into it
    combined = set()  # (the lowest lane of a butterfly group, dst register, output) whose lanes were checked
    for t in range(threads):
        dst_t, src_t = held(t)
        if sorted(dst_t) != [reg for reg, _ in outputs]:
            return f"thread {t} holds other registers of dst than thread 0"
        for (reg, folded), span in zip(outputs, group_masks):
            spa, index = dst_t[reg]
            if src_folds[t].get(spa, ()) != folded:
                return f"thread {t} holds the elements of its output {spa} in other registers than thread 0"
            if not shuffle:
                part = frozenset(src_t[rs][1] for rs in folded)
                if partials.setdefault(index, part) != part:
                    return (f"the threads holding dst's element {_coords(r.dst, index)} hold different elements "
                            f"of src (`thread_reduce=True` combines them)")
                continue
            # The lanes of one butterfly group combine the same elements: checked once per group.
            group = (min(t ^ m for m in span), reg, spa)
            if group in combined:
                continue
            combined.add(group)
            seen = []
            for m in span:
                u = t ^ m
                if u >= threads:
                    return f"the shuffle partner {u} of thread {t} is outside the {scope}"
                src_u = held(u)[1]
                seen.extend(src_u.get(rs) for rs in folded)
            if any(s is None or s[0] != spa for s in seen) or len(seen) != r.reduce_len \
                    or len(set(seen)) != len(seen):
                return f"the lanes combined for thread {t}'s output {spa} do not hold its elements exactly once"
    if dst_output is not None:
        reason = _kept(r, dst_ext, dst_output, None if shuffle else partials, table, scope)
        if reason:
            return reason
    return ThreadPlan(tuple(outputs), tuple(masks))


def _coords(region, index) -> str:
    coords = [s.value + k for s, k in zip(region.starts, index)]
    return "(" + ", ".join(map(str, coords)) + ("," if len(coords) == 1 else "") + ")"


def _kept(r, dst_ext, dst_output, partials, table, scope) -> str | None:
    """The kept-axes form: some thread of the scope holds each element of dst; without the shuffle,
    the elements of one output split its reduced elements between them."""
    held = set()
    for dst_t, _ in table:
        held.update(index for _, index in dst_t.values())
    for index in product(*(range(e) for e in dst_ext)):
        if index not in held:
            return f"no thread of the {scope} holds dst's element {_coords(r.dst, index)}"
    if partials is None:
        return None
    shares: dict[int, list] = {}
    for index, part in partials.items():
        shares.setdefault(dst_output(index), []).append(part)
    for spa in sorted(shares):
        parts = shares[spa]
        if sum(map(len, parts)) != r.reduce_len or len(frozenset().union(*parts)) != r.reduce_len:
            return (f"dst's elements of output {spa} do not split its {r.reduce_len} reduced elements between "
                    f"them (each takes one thread's share)")
    return None


def _folded(regs: dict[int, tuple[int, int]]) -> dict[int, tuple[int, ...]]:
    """A thread's src registers ({register: (output, reduced element)}) grouped by output, sorted."""
    by_output: dict[int, list[int]] = {}
    for reg, (spa, _) in regs.items():
        by_output.setdefault(spa, []).append(reg)
    return {spa: tuple(sorted(group)) for spa, group in by_output.items()}


def _span(basis) -> set[int]:
    span = {0}
    for m in basis:
        span |= {x ^ m for x in span}
    return span

