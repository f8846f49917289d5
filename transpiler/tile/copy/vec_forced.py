"""`copy` with a forced vector width (TIRx's `vec_16b` ... `vec_256b`) and load cache hints, and
`vec_auto`, TIRx's name for the auto-vectorizing copy (tirxc's `gmem_smem`, then `reg`).

A forced-width copy is one thread's single PTX `ld` / `st` of exactly 2, 4, 8, 16 or 32 bytes
(docs/tile-primitives.md, copy): the region holds exactly that many bytes, contiguous on both sides,
at an address that is a multiple of the width. Between global or shared memory and registers it is
one instruction; between global and shared memory a load into the lowering's own registers and a
store. The bits travel in 32-bit containers (16-bit for `vec_16b`), as in TIRx. Every such variant
is `explicit`: tried only when the call names it with `dispatch=`.

Cache hints (options of the call, on a load from global memory): `cache="nc"` (the read-only
path, `ld.global.nc`; tirxc also takes the cache operators `ca`, `cg`, `cs`, `lu`, `cv`),
`l1_evict="L1::evict_first"` ..., `l2_evict="L2::evict_last"` ... (256-bit loads only, as
ptxas says) and `prefetch_size="L2::64B" | "L2::128B" | "L2::256B"`."""
from __future__ import annotations

from math import gcd

from transpiler import ir
from transpiler.ir.analysis import modular
from transpiler.target import ptx
from transpiler.target.dtypes import HANDLE, UINT32, parse_dtype
from transpiler.tile.copy import plan as plan
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.copy_async.common import ptx_call
from transpiler.tile.registry import Decline, attempt, check, named

UINT16 = parse_dtype("uint16")
_FORM = {32: ("v8.u32", 8, UINT32), 16: ("v4.u32", 4, UINT32), 8: ("v2.u32", 2, UINT32), 4: ("u32", 1, UINT32),
         2: ("u16", 1, UINT16)}  # bytes -> (PTX vector and type, containers, the container's dtype)
_PAIRS = {("global", "shared"), ("shared", "global"), ("global", "local"), ("local", "global"),
          ("shared", "local"), ("local", "shared")}  # (src, dst), as TIRx's copy allows
CACHE = ("nc", "ca", "cg", "cs", "lu", "cv")
L1_EVICT = ("evict_normal", "evict_unchanged", "evict_first", "evict_last", "no_allocate")
L2_EVICT = ("evict_first", "evict_last", "evict_normal")
PREFETCH = ("64B", "128B", "256B")


@check("it copies between global, shared memory and registers (not within one)")
def memory_pair(call, cx):
    src, dst = regions.memory(call.operand("src")), regions.memory(call.operand("dst"))
    if (src, dst) in _PAIRS:
        return None
    return f"it copies {src} to {dst}; a forced width moves global <-> shared, global <-> registers or " \
           f"shared <-> registers"


def _one_of(value, choices: tuple[str, ...], prefix: str, key: str) -> str:
    """An option's qualifier, with or without its `L1::` / `L2::` prefix; raises Decline when unknown."""
    text = value[len(prefix):] if isinstance(value, str) and value.startswith(prefix) else value
    if not isinstance(text, str) or text not in choices:
        shown = ", ".join(f'"{prefix}{x}"' for x in choices)
        raise Decline(f"`{key}={value!r}` is not one of {shown}")
    return prefix + text


def load_hints(call, src: ir.TileRegion, nbytes: int) -> list[str]:
    """The load's cache qualifiers, in the ISA's order (`.nc`, L1, L2, prefetch size), from the
    call's options; raises Decline with the reason when they cannot be used."""
    cache, l1, l2, size = (call.option(k) for k in ("cache", "l1_evict", "l2_evict", "prefetch_size"))
    given = [k for k, v in (("cache", cache), ("l1_evict", l1), ("l2_evict", l2), ("prefetch_size", size))
             if v not in (None, "")]
    if not given:
        return []
    if regions.memory(src) != "global":
        raise Decline(f"`{given[0]}=` is a hint of loads from global memory; src is in {regions.memory(src)} memory")
    out = []
    if cache not in (None, ""):
        if cache not in CACHE:
            raise Decline(f"`cache={cache!r}` is not one of {', '.join(repr(x) for x in CACHE)}")
        out.append(cache)
    if l1 not in (None, ""):
        out.append(_one_of(l1, L1_EVICT, "L1::", "l1_evict"))
    if l2 not in (None, ""):
        out.append(_one_of(l2, L2_EVICT, "L2::", "l2_evict"))
        if nbytes != 32:
            raise Decline(f"`l2_evict=` goes only with 256-bit loads (vec_256b); this load is {nbytes * 8}-bit")
    if size not in (None, ""):
        out.append(_one_of(size, PREFETCH, "L2::", "prefetch_size"))
    if cache not in (None, "", "nc") and (l1 not in (None, "") or l2 not in (None, "")):
        raise Decline(f"the eviction priorities do not go with the cache operator `.{cache}`")
    return out


def _misaligned(e: ir.Expr, n: int) -> bool:
    """Whether e is, for every value of its variables, not a multiple of n."""
    m, r = modular(e)
    return r % (gcd(m, n) if m else n) != 0


def _side(cx, region: ir.TileRegion, lanes: int, nbytes: int) -> plan.Side:
    """The operand as one contiguous run of `lanes` elements at a multiple of nbytes (or Decline)."""
    name = region.buffer.name or "the registers"
    if regions.memory(region) == "local" and regions.is_distributed(region.buffer):
        raise Decline(f"`{name}` is spread over threads' registers; a forced width copies one thread's own")
    side = plan.affine(region)
    if side is None:
        raise Decline(f"`{name}`'s layout is not one stride per dimension, so its elements are not one "
                      f"contiguous run")
    runs = plan.merge(regions.squeezed(region), [side.strides]) if side.strides else None
    if runs is not None and (len(runs.extents) != 1 or not ir.is_const(runs.strides[0][-1], 1)):
        raise Decline(f"the elements of `{name}`'s region are not contiguous")
    if side.chunk and side.chunk < lanes:
        raise Decline(f"`{name}`'s swizzle keeps only {side.chunk} elements together, not {lanes}")
    if _misaligned(side.base, lanes) or _misaligned(side.flat.elem_offset, lanes):
        raise Decline(f"`{name}`'s region does not start at a multiple of {nbytes} bytes")
    if regions.memory(region) != "local" and not plan.aligned_storage(cx, side.flat, nbytes) \
            and not _raise_alignment(cx, side.flat, nbytes):
        raise Decline(f"`{name}` is only {cx.alignment(side.flat)}-byte aligned, not {nbytes}")
    return side


def _raise_alignment(cx, buf: ir.Buffer, nbytes: int) -> bool:
    """A shared array the kernel declares is given the alignment (its declaration prints it)."""
    storage = buf.storage
    if storage is not None and storage.scope.startswith("shared") and storage.kind == "array":
        cx.raise_alignment(storage, nbytes)
        return True
    return False


def _containers(cx, side: plan.Side, dtype: ir.DType, cbytes: int, count: int, stmts: list) -> list[ir.Expr]:
    """The register operand's containers (`count` of `cbytes` each) over its own register array."""
    first = ir.add(side.flat.elem_offset, side.base)  # in elements of the register array
    return containers(cx, side.flat, first, dtype, cbytes, count, stmts, side.region.span)


def containers(cx, regs: ir.Buffer, first: ir.Expr, dtype: ir.DType, cbytes: int, count: int, stmts: list,
               span=None, views: dict | None = None) -> list[ir.Expr]:
    """`count` containers of `cbytes` bytes over a register array, from its element `first` on (a
    typed pointer over the array, declared into stmts unless `views` has it already; the array
    aligned to the containers)."""
    storage = regs.storage
    if storage is None or storage.scope != "local" or storage.kind != "array":
        raise Decline("the register operand is not a register array")
    cx.raise_alignment(storage, cbytes * count)
    cdtype = UINT32 if cbytes == 4 else UINT16
    words = (views or {}).get((id(storage), cbytes))
    if words is None:
        view = ir.Storage(cx.names.fresh(f"{regs.name or 'regs'}_u{cbytes * 8}"), cdtype, "local",
                          "view_pointer", None, cbytes, base=storage)
        words = ir.Buffer("", (c(max(1, storage.size * storage.dtype.nbytes // cbytes)),), cdtype, "local", view,
                          None, c(0), cbytes)
        stmts.append(ir.DeclView(words, span))
        if views is not None:
            views[id(storage), cbytes] = words
    ratio = dtype.nbytes / cbytes
    index = ir.mul(first, c(int(ratio))) if ratio >= 1 else ir.binop("floordiv", first, c(int(1 / ratio)))
    return [ir.BufferLoad(cdtype, words, (ir.add(index, c(k)),), span) for k in range(count)]


HINT_KEYS = ("cache", "l1_evict", "l2_evict", "prefetch_size")


def hinted_load(call, cx, src: ir.TileRegion, dtype: ir.DType, lanes: int, flat: ir.Buffer, index: ir.Expr,
                regs: ir.Buffer, first: ir.Expr, views: dict | None = None) -> ir.Stmt | None:
    """For the auto-vectorizing copies (`reg`, `gmem_smem` of a thread's own registers, so `vec_auto`):
    the load of `lanes` elements from global memory (flat[index]) into registers (regs[first] on) as
    one PTX `ld` with the call's cache hints, as TIRx's `vec_auto` honours them; None when the
    call gives no hint (the C vector load stays)."""
    if all(call.option(k) in (None, "") for k in HINT_KEYS) or regions.memory(src) != "global":
        return None
    nbytes = lanes * dtype.nbytes
    if nbytes not in _FORM:
        raise Decline(f"the cache hints need loads of 2 to 32 bytes; this copy loads {nbytes} byte"
                      f"{'s' if nbytes > 1 else ''} at a time")
    hints = load_hints(call, src, nbytes)
    tail, num, cdtype = _FORM[nbytes]
    stmts: list[ir.Stmt] = []
    words = containers(cx, regs, first, dtype, cdtype.nbytes, num, stmts, call.span, views)
    address = ir.BufferAddress(HANDLE, flat, (index,), call.span)
    stmts.append(ptx_call(cx, ".".join(["ld", "global", *hints, tail]), *words, address, span=call.span))
    return ir.Seq(tuple(stmts), call.span)


def _space(region: ir.TileRegion) -> str:
    return "shared" if regions.memory(region) == "shared" else "global"


def forced(nbytes: int):
    """The lowering of a copy of exactly `nbytes` bytes as one vector access each way (TIRx's
    `vec_<bits>b`)."""
    def lower(call: ir.TileCall, cx) -> ir.Stmt:
        dst, src = call.operand("dst"), call.operand("src")
        dtype = dst.buffer.dtype
        count = regions.num_elements(dst)
        name = f"vec_{nbytes * 8}b"
        if dtype.nbytes > nbytes or nbytes % dtype.nbytes:
            raise Decline(f"{name} moves {nbytes} bytes: not a whole number of {dtype.name} elements")
        if count * dtype.nbytes != nbytes:
            raise Decline(f"{name} moves exactly {nbytes // dtype.nbytes} {dtype.name} elements ({nbytes} bytes); "
                          f"the region has {count}")
        lanes = nbytes // dtype.nbytes
        tail, num, cdtype = _FORM[nbytes]
        hints = load_hints(call, src, nbytes)
        if nbytes == 32:
            cx.require("ld256", "256-bit ld / st")
        s, d = _side(cx, src, lanes, nbytes), _side(cx, dst, lanes, nbytes)
        stmts: list[ir.Stmt] = []
        ld = ".".join(["ld", _space(src), *hints, tail])
        st = f"st.{_space(dst)}.{tail}"
        for mnemonic in (ld, st):
            found = ptx.forms(mnemonic)
            if isinstance(found, str):
                raise Decline(f"`{mnemonic}`: {found}")
        if regions.memory(dst) == "local":
            regs = _containers(cx, d, dtype, cdtype.nbytes, num, stmts)
            stmts.append(ptx_call(cx, ld, *regs, _address(s), span=call.span))
        elif regions.memory(src) == "local":
            regs = _containers(cx, s, dtype, cdtype.nbytes, num, stmts)
            stmts.append(ptx_call(cx, st, _address(d), *regs, span=call.span))
        else:  # global <-> shared through registers of the lowering's own
            storage = ir.Storage(cx.names.fresh("vec"), cdtype, "local", "array", num, cdtype.nbytes)
            tmp = ir.Buffer("vec", (c(num),), cdtype, "local", storage, None, None, 0)
            regs = [ir.BufferLoad(cdtype, tmp, (c(k),), call.span) for k in range(num)]
            stmts += [ir.Allocate(tmp, call.span), ptx_call(cx, ld, *regs, _address(s), span=call.span),
                      ptx_call(cx, st, _address(d), *regs, span=call.span)]
        return ir.Seq(tuple(stmts), call.span)
    return lower


def _address(side: plan.Side) -> ir.Expr:
    return ir.BufferAddress(HANDLE, side.flat, (side.base,), side.region.span)


def vec_auto(call: ir.TileCall, cx) -> ir.Stmt:
    """TIRx's auto-vectorizing copy: global <-> shared as `gmem_smem`, registers as `reg`."""
    reasons = []
    for name in ("gmem_smem", "reg"):
        reason, code = attempt(named("copy", name), call, cx)
        if reason is None:
            return code
        reasons.append(f"{name}: {reason}")
    raise Decline("; ".join(reasons))
