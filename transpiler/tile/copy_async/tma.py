"""`copy_async` between global and shared memory through TMA (`cp.async.bulk.tensor`): one
thread issues; the tensor map is made by tirxc from the global buffer and the shared region and
becomes a kernel parameter that the launcher encodes (docs/tile-primitives.md, copy_async).
gather4 (`gather4=`) and `src_selector=` are planned in copy_async/tma_gather.py.

The plan: the box is the global region's extents (the inner one cut to the swizzle span and
every one to 256 elements), one instruction per box; the shared side must hold each box
exactly where TMA writes it (a dense row-major box, XOR-swizzled on its address bits), which
is checked element by element against the shared buffer's layout."""
from __future__ import annotations

from itertools import product
from math import gcd, prod

from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.target import tma
from transpiler.target.dtypes import HANDLE, INT32, UINT64
from transpiler.tile.copy_async import tma_gather as gather
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import address, address_option, bool_option, int_option, options_of, ptx_call, seq, shared_stages, tma_swizzle, value_option
from transpiler.tile.registry import Decline

OPTIONS = ("mbar", "cta_group", "cta_mask", "cache_hint", "oob", "use_tma_reduce", "prefetch_tensormap",
           "tensormap_l2_promotion", "gather4", "src_selector")
CACHE_POLICIES = {"evict_normal": 0x1000000000000000, "evict_first": 0x12F0000000000000,
                  "evict_last": 0x14F0000000000000}
REDUCE_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
L2_NAMES = {"none": 0, "L2::none": 0, "L2::64B": 1, "L2::128B": 2, "L2::256B": 3}
MAX_ISSUES = 64  # instructions one call may unroll into
MAX_CHECKED = 1 << 20  # elements compared against the shared layout


def tma_copy(call: ir.TileCall, cx) -> ir.Stmt:
    """One thread issues one `cp.async.bulk.tensor` per box (one `.tile::gather4` with `gather4=`)."""
    dst, src = call.operand("dst"), call.operand("src")
    load = regions.memory(src) == "global"
    if regions.memory(dst) == regions.memory(src):
        raise Decline(f"it copies {regions.memory(src)} to {regions.memory(dst)}")
    g, s = (src, dst) if load else (dst, src)
    opts = options_of(call, OPTIONS, "tma")
    _explicit_only(call, opts)
    config = _config(opts, load)
    rows = gather.gather_rows(opts, load, cx)
    if config["cta_group"] == 2:
        cx.require("tcgen05", "`cta_group=2`")
    if config["mask"] is not None:
        cx.require("bulk.multicast", "TMA multicast (`cta_mask=`)")
    gbuf, sbuf = g.buffer, s.buffer
    if gbuf.dtype != sbuf.dtype:
        raise Decline(f"dst is {dst.buffer.dtype.name} and src is {src.buffer.dtype.name}")
    data_type = tma.DATA_TYPES.get(gbuf.dtype.name) if gbuf.dtype.lanes == 1 else None
    if data_type is None:
        raise Decline(f"TMA does not move {gbuf.dtype.name} elements")
    strides = _global_strides(gbuf)
    swizzle = swizzle_mode(sbuf)
    if rows is not None:  # gather4: one instruction, four rows named by `gather4=`
        box = gather.gather_box(g, s, swizzle)
        issues = [([ir.cast(INT32, g.starts[1]), *rows], gather.gather_destination(cx, s, box[1], swizzle))]
    else:
        if regions.squeezed(g) != regions.squeezed(s):
            raise Decline(f"the global region has extents {regions.squeezed(g) or (1,)} and the shared one "
                          f"{regions.squeezed(s) or (1,)}")
        box, counts = _box(g, swizzle, gbuf.dtype.nbytes)
        steps = list(product(*(range(n) for n in counts)))
        if len(steps) > MAX_ISSUES:
            raise Decline(f"the copy needs {len(steps)} TMA instructions; at most {MAX_ISSUES} are unrolled")
        origins = [_shared_origin(g, s, step, box) for step in steps]
        _check_shared(cx, g, s, box, steps, swizzle)
        issues = [([ir.cast(INT32, ir.add(start, c(i * b))) for start, i, b in zip(g.starts, step, box)][::-1],
                   address(s, origin)) for step, origin in zip(steps, origins)]  # coordinates innermost first
    tmap = _tensor_map(cx, gbuf, data_type, strides, box, swizzle, config, call.span)
    stmts, tmap_addr = gather.selected_map(
        cx, opts, load, gbuf, tmap, lambda buf: _tensor_map(cx, buf, data_type, _global_strides(buf), box, swizzle, config,
                                                      call.span), call.span)
    if config["prefetch"]:  # the main map only, as TIRx
        stmts.insert(0, ptx_call(cx, "prefetch.tensormap", ir.BufferAddress(HANDLE, tmap, None, call.span),
                                 span=call.span))
    rank = len(gbuf.shape)
    hint = config["policy"]
    for coords, shared in issues:
        if load:
            mask = config["mask"]
            mnemonic = (f"cp.async.bulk.tensor.{rank}d.shared::cluster.global"
                        + (".tile::gather4" if rows is not None else ".tile") + ".mbarrier::complete_tx::bytes"
                        + (".multicast::cluster" if mask is not None else "")
                        + (".cta_group::2" if config["cta_group"] == 2 else "")
                        + (".L2::cache_hint" if hint is not None else ""))
            args = [shared, tmap_addr, *coords, config["mbar"]] + ([mask] if mask is not None else []) \
                + ([hint] if hint is not None else [])
        else:
            reduce = config["reduce"]
            mnemonic = ((f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{reduce}" if reduce else
                         f"cp.async.bulk.tensor.{rank}d.global.shared::cta") + ".tile.bulk_group"
                        + (".L2::cache_hint" if hint is not None else ""))
            args = [tmap_addr, *coords, shared] + ([hint] if hint is not None else [])
        stmts.append(ptx_call(cx, mnemonic, *args, span=call.span))
    return seq(stmts)


def _explicit_only(call: ir.TileCall, opts: dict) -> None:
    """As TIRx, `gather4=` and `src_selector=` are taken only by the explicit TMA variant
    (dispatch="tma_explicit", or tirxc's own name "tma")."""
    given = [f"`{name}=`" for name in ("gather4", "src_selector") if opts.get(name) is not None]
    if given and call.dispatch not in ("tma_explicit", "tma"):
        raise Decline(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} dispatch=\"tma_explicit\"")


# -- options --------------------------------------------------------------------------------------

def _config(opts: dict, load: bool) -> dict:
    cta_group = int_option(opts, "cta_group", 1)
    if cta_group not in (1, 2):
        raise Decline(f"`cta_group=` is 1 or 2, not {cta_group}")
    if cta_group == 2 and not load:
        raise Decline("`cta_group=2` is only for global-to-shared copies")
    mask = _multicast_mask(opts, load)
    mbar = None
    if load:
        if opts.get("mbar") is None:
            raise Decline("a global-to-shared TMA copy needs `mbar=`, the mbarrier it completes on")
        mbar = address_option(opts, "mbar", "the address of an mbarrier in shared memory")
        if not mbar.buffer.scope.startswith("shared"):
            raise Decline(f"`mbar=` points into {mbar.buffer.scope} memory; an mbarrier is in shared memory")
    elif opts.get("mbar") is not None:
        raise Decline("`mbar=` is only for global-to-shared copies; a store completes in a bulk group")
    reduce = opts.get("use_tma_reduce")
    if reduce is not None:
        if load:
            raise Decline("`use_tma_reduce=` is only for shared-to-global copies")
        if reduce not in REDUCE_OPS:
            raise Decline(f"`use_tma_reduce=` is one of {', '.join(REDUCE_OPS)}, not {reduce!r}")
    oob = opts.get("oob")
    if oob is not None and not load:
        raise Decline("`oob=` is only for global-to-shared copies")
    if oob not in (None, "zero", "nan"):
        raise Decline(f"`oob=` is \"zero\" or \"nan\", not {oob!r}")
    l2 = opts.get("tensormap_l2_promotion")
    l2 = 2 if l2 is None else L2_NAMES.get(l2, l2) if isinstance(l2, str) else int_option(opts, "tensormap_l2_promotion")
    if l2 not in range(4):
        raise Decline("`tensormap_l2_promotion=` is 0 to 3, \"none\", \"L2::64B\", \"L2::128B\" or \"L2::256B\"")
    hint = opts.get("cache_hint")
    policy = None
    if isinstance(hint, str) and hint:
        if hint not in CACHE_POLICIES:
            raise Decline(f"`cache_hint=` names one of {', '.join(CACHE_POLICIES)} (or is a uint64 policy), "
                          f"not {hint!r}")
        policy = ir.IntImm(UINT64, CACHE_POLICIES[hint])
    elif hint is not None and hint != "":
        policy = value_option(opts, "cache_hint", "uint64")
    return {"mbar": mbar, "reduce": reduce, "oob": 1 if oob == "nan" else 0, "l2": l2, "policy": policy,
            "prefetch": bool_option(opts, "prefetch_tensormap"), "mask": mask, "cta_group": cta_group}


def _multicast_mask(opts: dict, load: bool) -> ir.Expr | None:
    """`cta_mask=`: the CTAs of the cluster the box is written to (each at the same shared offset,
    each one's mbarrier at the same offset completing), as a uint16 operand of the multicast form;
    None for a unicast copy. As TIRx, a constant mask of no CTA or of one CTA is a unicast copy
    into the issuing CTA; any other mask, constant or run-time, multicasts."""
    mask = opts.get("cta_mask", 0)
    if isinstance(mask, ir.IntImm):
        mask = mask.value
    if isinstance(mask, int) and not isinstance(mask, bool):
        if not 0 <= mask <= 0xFFFF:
            raise Decline(f"`cta_mask=` is a 16-bit mask of CTAs, not {mask}")
        if mask & (mask - 1) == 0:
            return None
    if not load:
        raise Decline("`cta_mask=` is only for global-to-shared copies")
    return value_option(opts, "cta_mask", "uint16")


# -- the tensor map -------------------------------------------------------------------------------

def _global_strides(gbuf: ir.Buffer) -> list[ir.Expr]:
    """The element strides of each dimension of a global parameter buffer (row-major or a
    layout of one memory iter per dimension)."""
    if gbuf.storage is None or gbuf.storage.kind != "param":
        raise Decline(f"`{gbuf.name}` is not a parameter buffer; tirxc makes tensor maps of those")
    if not ir.is_const(gbuf.elem_offset, 0):
        raise Decline(f"`{gbuf.name}` starts at an element offset; a tensor map maps a whole parameter buffer")
    rank = len(gbuf.shape)
    if not 1 <= rank <= tma.MAX_RANK:
        raise Decline(f"a tensor map has rank 1 to {tma.MAX_RANK}; `{gbuf.name}` has {rank} dimensions")
    layout = gbuf.layout
    if layout is None:
        strides, running = [], c(1)
        for extent in reversed(gbuf.shape):
            strides.append(running)
            running = ir.mul(running, extent)
        return strides[::-1]
    shard = layout.shard
    if (len(shard) != rank or layout.replica or layout.swizzle is not None or layout.offset
            or any(it.axis != "m" for it in shard)
            or any(not ir.is_const(ir.binop("-", it.extent, e), 0) for it, e in zip(shard, gbuf.shape))):
        raise Decline(f"the layout of `{gbuf.name}` is not one stride per dimension")
    strides = [it.stride for it in shard]
    if not ir.is_const(strides[-1], 1):
        raise Decline(f"the innermost dimension of `{gbuf.name}` is not contiguous")
    return strides


def _tensor_map(cx, gbuf, data_type, strides, box, swizzle, config, span) -> ir.Buffer:
    """The map parameter for (buffer, box, swizzle ...): one shared by every call that needs it."""
    nbytes = gbuf.dtype.nbytes
    want = (data_type, tuple(reversed(box)), swizzle, config["l2"], config["oob"])
    for param, buf in cx.tensor_maps:
        spec = param.tensor_map
        if spec.buffer is gbuf and (spec.data_type, spec.box, spec.swizzle, spec.l2_promotion, spec.oob_fill) == want:
            return buf
    dims = tuple(reversed(gbuf.shape))
    byte_strides = tuple(ir.mul(s, c(nbytes)) for s in reversed(strides[:-1]))
    for stride in byte_strides:
        if isinstance(stride, ir.IntImm) and stride.value % tma.GLOBAL_ALIGN:
            raise Decline(f"a row of `{gbuf.name}` is {stride.value} bytes; TMA needs strides that are "
                          f"multiples of {tma.GLOBAL_ALIGN} bytes")
    spec = ir.TensorMapSpec(gbuf, data_type, dims, byte_strides, tuple(reversed(box)), (1,) * len(box), 0,
                            swizzle, config["l2"], config["oob"], span)
    name = cx.names.fresh(f"{gbuf.name}_tmap")
    storage = ir.Storage(name, UINT64, "global", "tensormap", tma.BYTES // 8, tma.ALIGN)
    buf = ir.Buffer(name, (c(tma.BYTES // 8),), UINT64, "global", storage, span=span)
    cx.tensor_maps.append((ir.Param(name, ParamKind.TENSOR_MAP, UINT64, None, span, tensor_map=spec), buf))
    return buf


# -- the shared side ------------------------------------------------------------------------------

def swizzle_mode(sbuf: ir.Buffer) -> int:
    """The TMA swizzle (CUtensorMapSwizzle) the shared buffer's layout is laid out in."""
    layout = sbuf.layout
    if layout is None or layout.swizzle is None:
        return 0
    per_element, length, atom, inner = layout.swizzle
    if length == 0:
        return 0
    unit = (16 // sbuf.dtype.nbytes).bit_length() - 1  # elements per 16 bytes, as a power of two
    if not inner or atom != 3 or per_element != unit or length > 3:
        raise Decline(f"the swizzle of `{sbuf.name}` is not one of TMA's (32, 64 or 128 bytes: ComposeLayout("
                      f"{unit}, 1..3, 3, ...) with swizzle_inner=True)")
    return length


def _box(g: ir.TileRegion, swizzle: int, nbytes: int) -> tuple[list[int], list[int]]:
    """The box (outermost first) and how many boxes each dimension takes."""
    extents = regions.const_extents(g)
    box, counts = [], []
    for d, extent in enumerate(extents):
        limit = tma.MAX_BOX
        if d == len(extents) - 1 and swizzle:
            limit = min(limit, tma.SWIZZLE_BYTES[swizzle] // nbytes)
        size = extent if extent <= limit else limit
        if extent % size:
            raise Decline(f"dimension {d} of the global region ({extent} elements) is not a multiple of the "
                          f"{size}-element box TMA can move")
        box.append(size)
        counts.append(extent // size)
    inner = box[-1] * nbytes
    if inner % tma.GLOBAL_ALIGN:
        raise Decline(f"the region's rows are {inner} bytes; TMA moves rows of a multiple of "
                      f"{tma.GLOBAL_ALIGN} bytes")
    return box, counts


def _to_shared(g: ir.TileRegion, s: ir.TileRegion, local) -> tuple:
    """Shared coordinates of the element at offset `local` (per global dim) from the global region's
    start: the non-unit dims correspond in order."""
    index = [v for v, e in zip(local, regions.const_extents(g)) if e != 1]
    return regions.coords_at(s, tuple(c(v) for v in index))


def _shared_origin(g, s, issue, box):
    return _to_shared(g, s, [i * b for i, b in zip(issue, box)])


def _check_shared(cx, g: ir.TileRegion, s: ir.TileRegion, box, issues, swizzle) -> None:
    """Every element of every box sits in shared memory where TMA puts it: at the box origin's
    address plus its row-major offset in the box, swizzled; origins aligned as TMA needs."""
    sbuf = s.buffer
    offsets, nbytes, variable, choices = shared_stages(cx, s, swizzle)
    repeat = 128 << swizzle
    extents = regions.const_extents(s)
    total = prod(box) * len(issues) * prod(len(ch) for ch in choices)
    if total > MAX_CHECKED:
        raise Decline("the region is too large for tirxc to check its shared layout")
    swz = tma_swizzle(swizzle, nbytes)
    expected = [swz(flat) for flat in range(prod(box))]  # each element's offset from its box's origin
    for fixed in product(*_stages_to_check(offsets, variable, choices, repeat // nbytes)):
        starts = [fixed[d] if d in variable else s.starts[d].value for d in range(len(extents))]
        box_offsets = _box_walk(offsets, g, s, starts, box)
        for issue in issues:
            found = box_offsets([i * b for i, b in zip(issue, box)])
            base = found[0]
            if (base * nbytes) % repeat:
                raise Decline(f"a box of the copy starts at byte {base * nbytes} of `{sbuf.name}`, not at a "
                              f"multiple of {repeat} bytes")
            if any(offset != base + want for offset, want in zip(found, expected)):
                raise Decline(f"the layout of `{sbuf.name}` does not hold the {box}-element box as TMA "
                              f"writes it (a row-major box{', swizzled' if swizzle else ''})")


def _stages_to_check(offsets, variable, choices, repeat: int) -> list:
    """The values of the run-time start dims (pipeline stages) whose check proves every one: the
    first alone where each stage moves the whole region by a multiple of both the TMA swizzle's
    repeat (`repeat` elements) and the layout's swizzle period (Offsets.period). Then every offset
    of stage v, the box origins' included, is stage 0's plus the same amount (the stage dim adds
    its own part to the offset, and adding a multiple of the period commutes with the layout's
    swizzle), so the origins stay aligned to the repeat and each element stays at origin +
    swizzled position. Otherwise every stage is checked."""
    step = repeat * offsets.period // gcd(repeat, offsets.period)
    for d in variable:
        parts = offsets.parts(d, choices[d])
        if parts is None or any((p - parts[0]) % step for p in parts):
            return choices
    return [ch[:1] if d in variable else ch for d, ch in enumerate(choices)]


def _box_walk(offsets, g: ir.TileRegion, s: ir.TileRegion, starts: list[int], box):
    """`walk(origin)`: the shared offset of each element of the box at `origin` (a global-region
    offset per dim), row-major. Where every shared dim the region spans is a group of its own in
    the layout, an element's offset before the swizzle is the region start's plus one part per
    dim, summed a dim at a time; otherwise each element's coordinates are evaluated."""
    g_extents = regions.const_extents(g)
    g_kept = [d for d, e in enumerate(g_extents) if e != 1]  # global dims that span
    s_kept = [d for d, e in enumerate(regions.const_extents(s)) if e != 1]  # the shared dims they land on
    steps = {}
    for gd, sd in zip(g_kept, s_kept):
        parts = offsets.parts(sd, range(starts[sd], starts[sd] + g_extents[gd]))
        if parts is None:
            break
        steps[gd] = [p - parts[0] for p in parts]
    else:
        start = offsets.linear(starts)

        def walk(origin):
            totals = [start]
            for gd, o in enumerate(origin):
                if gd in steps:
                    row = steps[gd][o:o + box[gd]]
                    totals = [t + r for t in totals for r in row]
            return [offsets.swizzle(t) for t in totals]
        return walk
    positions = list(product(*(range(b) for b in box)))

    def at(local):  # the shared offset of the element at global-region offset `local`
        coords = list(starts)
        for gd, sd in zip(g_kept, s_kept):
            coords[sd] += local[gd]
        return offsets(coords)

    def walk_each(origin):
        return [at([o + p for o, p in zip(origin, pos)]) for pos in positions]
    return walk_each
