"""What the `copy_async` variants share: reading their options, PTX calls built by mnemonic,
pointers into regions, and a numeric evaluation of a memory layout (the element offset of each
constant coordinate), with which a variant proves that the data a hardware copy writes lands
where the buffer's layout says it is."""
from __future__ import annotations

from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target import ptx
from transpiler.target.tma import swizzle_address
from transpiler.target.dtypes import HANDLE, VOID, parse_dtype
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import Check, Decline, check
from transpiler.tile.copy.plan import multiple_of
from transpiler.tile.periodic import periodic


# -- options -------------------------------------------------------------------------------------

def options_of(call: ir.TileCall, allowed: tuple[str, ...], variant: str) -> dict:
    """The call's config as a dict; an option the variant does not know declines it."""
    unknown = [name for name, _ in call.config if name not in allowed]
    if unknown:
        raise Decline(f"`{variant}` does not take the option{'s' if len(unknown) > 1 else ''} "
                      + ", ".join(f"`{u}=`" for u in unknown))
    return dict(call.config)


def int_option(opts: dict, name: str, default: int | None = None) -> int | None:
    value = opts.get(name, default)
    if isinstance(value, ir.IntImm):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if value is None or isinstance(value, int):
        return value
    raise Decline(f"`{name}=` must be a constant integer")


def bool_option(opts: dict, name: str) -> bool:
    value = opts.get(name, False)
    if isinstance(value, ir.IntImm):
        return bool(value.value)
    if isinstance(value, (bool, int)):
        return bool(value)
    raise Decline(f"`{name}=` must be True or False")


def address_option(opts: dict, name: str, what: str) -> ir.BufferAddress:
    """A pointer option (`mbar=bar.ptr_to([0])`) as the address a PTX operand takes."""
    value = opts.get(name)
    if isinstance(value, ir.TileRegion):
        return ir.BufferAddress(HANDLE, value.buffer, tuple(value.starts), value.span)
    if isinstance(value, ir.BufferAddress):
        return value
    raise Decline(f"`{name}=` must be {what}, such as `bar.ptr_to([0])`")


def value_option(opts: dict, name: str, dtype: str) -> ir.Expr | None:
    """A run-time value option converted to `dtype` (None when absent)."""
    value = opts.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return ir.IntImm(parse_dtype(dtype), value)
    if isinstance(value, ir.Expr) and (value.dtype.is_int or value.dtype.name == "bool"):
        return ir.cast(parse_dtype(dtype), value)
    raise Decline(f"`{name}=` must be an integer value")


# -- checks ---------------------------------------------------------------------------------------

def pair(dst: tuple[str, ...], src: tuple[str, ...], says: str) -> Check:
    """Like checks.memories, worded for the async variants."""
    def test(call, cx):
        d, s = call.operand("dst"), call.operand("src")
        if not isinstance(d, ir.TileRegion) or not isinstance(s, ir.TileRegion):
            return "dst and src must be buffer regions"
        dm, sm = regions.memory(d), regions.memory(s)
        return None if dm in dst and sm in src else f"it copies {sm} to {dm}"
    return Check(says, test)


@check("both regions have constant extents")
def constant_extents(call, cx):
    for name in ("dst", "src"):
        if regions.const_extents(call.operand(name)) is None:
            return f"the extents of {name} are not constant"
    return None


# -- PTX calls ------------------------------------------------------------------------------------

def ptx_call(cx, mnemonic: str, *args, span=None, pred: ir.Expr | None = None) -> ir.Stmt:
    """`T.ptx[mnemonic](*args)` as the checker would build it: the form with as many operands as
    args; immediates (Python ints at `imm` operands) go into the helper's template; `pred`, a
    uint32, guards it (`pred=`)."""
    return ir.Evaluate(ptx_expr(cx, mnemonic, *args, span=span, pred=pred), span)


def ptx_expr(cx, mnemonic: str, *args, span=None, pred: ir.Expr | None = None) -> ir.Call:
    found = ptx.forms(mnemonic)
    assert isinstance(found, list), f"{mnemonic}: {found}"
    instr = next((f for f in found if len(f.operands) == len(args)), None)
    assert instr is not None, f"{mnemonic} has no form of {len(args)} operands"
    if pred is not None:
        instr = ptx.predicated(instr)
        args = args + (pred,)
    values, template = [], []
    for op, arg in zip(instr.operands + ((ptx.Operand("in", "u32"),) if pred is not None else ()), args):
        if op.role == "imm":
            template.append(str(arg))
        elif op.role == "addr" or op.role in ("out", "inout"):
            values.append(arg)
        else:
            dtype = parse_dtype(op.dtype)
            if isinstance(arg, int):
                values.append(ir.IntImm(dtype, arg))
            elif arg.dtype == dtype:
                values.append(arg)
            elif arg.dtype.nbytes == dtype.nbytes and not (arg.dtype.is_int and dtype.is_int):
                values.append(ir.Reinterpret(dtype, arg, span))
            else:
                values.append(ir.cast(dtype, arg))
    name = cx.instruction(instr).helper + (f"<{', '.join(template)}>" if template else "")
    dtype = parse_dtype(ptx.KINDS[instr.returns][1]) if instr.returns else VOID
    return ir.Call(dtype, name, tuple(values), span)


def address(region: ir.TileRegion, coords) -> ir.BufferAddress:
    """`buf.ptr_to(coords)`: the generic address of one element."""
    return ir.BufferAddress(HANDLE, region.buffer, tuple(coords), region.span)


def seq(stmts) -> ir.Stmt:
    stmts = [s for s in stmts if s is not None]
    return stmts[0] if len(stmts) == 1 else ir.Seq(tuple(stmts))


# -- layouts, numerically ---------------------------------------------------------------------------

class Offsets:
    """The element offset (from the buffer's data + elem_offset) of constant coordinates of a
    buffer with a constant shape and a memory-only layout (None: row-major), swizzle included;
    `None` from `make` when the layout is one this cannot evaluate."""

    def __init__(self, shape, plan, strides, offset, swizzle):
        self.shape = shape
        self._plan = plan  # [(dims, [(extent, stride)...])] per group, or None: one group of all dims
        self._strides = strides
        self._offset = offset
        self._swizzle = swizzle
        self._swizzled = None  # swizzle(), once asked for

    @staticmethod
    def make(buf: ir.Buffer) -> "Offsets | None":
        shape = buf.const_shape()
        if shape is None:
            return None
        layout = buf.layout
        if layout is None:
            strides = [prod(shape[d + 1:]) for d in range(len(shape))]
            return Offsets(shape, [([d], [(shape[d], strides[d])]) for d in range(len(shape))], None, 0, None)
        if not layouts.is_memory_only(layout) or layout.replica:
            return None
        iters = []
        for it in layout.shard:
            if not isinstance(it.extent, ir.IntImm) or not isinstance(it.stride, ir.IntImm):
                return None
            iters.append((it.extent.value, it.stride.value))
        offset = 0
        for _, value in layout.offset:
            if not isinstance(value, ir.IntImm):
                return None
            offset += value.value
        groups = layouts.dim_groups([c(e) for e in shape], [c(e) for e, _ in iters])
        if groups is None:
            plan = [(list(range(len(shape))), iters)]
        else:
            plan = [(dims, [iters[k] for k in ks]) for dims, ks in groups]
        return Offsets(shape, plan, None, offset, layout.swizzle)

    def __call__(self, coords) -> int:
        return layouts.swizzle_const(self.linear(coords), self._swizzle)

    def linear(self, coords) -> int:
        """The offset of constant coordinates before the layout's swizzle."""
        total = self._offset
        for dims, iters in self._plan:
            flat = 0
            for d in dims:
                flat = flat * self.shape[d] + coords[d]
            for k in range(len(iters) - 1, -1, -1):
                extent, stride = iters[k]
                total += (flat % extent if k else flat) * stride  # the outermost part is not wrapped
                flat //= extent
        return total

    def parts(self, d: int, values) -> list[int] | None:
        """What each of `values` of coordinate `d` adds to the offset before the swizzle, whatever
        the other coordinates are: None unless `d` is a group of its own in the layout (its
        flattened index shares no iterator with another dimension)."""
        group = next(((dims, iters) for dims, iters in self._plan if d in dims), None)
        if group is None or group[0] != [d]:
            return None
        out = []
        for flat in values:
            total = 0
            for k in range(len(group[1]) - 1, -1, -1):
                extent, stride = group[1][k]
                total += (flat % extent if k else flat) * stride
                flat //= extent
            out.append(total)
        return out

    def swizzle(self, offset: int) -> int:
        if self._swizzled is None:  # (the checks of a copy swizzle every element of the box)
            self._swizzled = periodic(lambda u: layouts.swizzle_const(u, self._swizzle), self.period)
        return self._swizzled(offset)

    @property
    def period(self) -> int:
        """Offsets a multiple of this many elements apart swizzle alike (one is the other plus the
        difference): ComposeLayout's XOR reads and writes only the bits below per_element + atom +
        length of an offset."""
        if self._swizzle is None:
            return 1
        per_element, length, atom, _ = self._swizzle
        return 1 << (per_element + atom + length)


def align_shared(cx, buf: ir.Buffer, need: int) -> None:
    """TMA's shared side starts on `need` bytes (128; a swizzle's whole period). Shared storage is
    an array or the arena, declared by tirxc: its alignment is raised to `need` (an `align=` is a
    minimum, which a larger one keeps); a typed view into it must start `need`-aligned too."""
    storage, offset = buf.storage, 0
    while storage.kind == "view_pointer" and storage.base is not None:
        offset += storage.byte_offset
        storage = storage.base
    if offset % need:
        raise Decline(f"`{buf.name}` starts at byte {offset} of its storage; TMA needs a multiple of {need}")
    cx.raise_alignment(storage, need)


def tma_swizzle(mode: int, nbytes: int):
    """TMA's swizzle (target/tma.py) of an element offset from a swizzle-repeat boundary."""
    swizzled = lambda offset: swizzle_address(offset * nbytes, mode) // nbytes  # noqa: E731
    repeat = 128 << mode  # bytes
    return periodic(swizzled, repeat // nbytes) if repeat % nbytes == 0 else swizzled


def shared_stages(cx, s: ir.TileRegion, swizzle: int):
    """What a TMA copy's shared side needs checked first: (the buffer's offsets, its element
    bytes, its run-time start dims, the values each start dim takes): its storage aligned to the
    swizzle's repeat (`128 << swizzle` bytes) and starting on it, and run-time starts only in
    dimensions the region does not span (a pipeline stage)."""
    sbuf = s.buffer
    offsets = Offsets.make(sbuf)
    if offsets is None:
        raise Decline(f"the layout of `{sbuf.name}` is not a constant memory layout")
    nbytes = sbuf.dtype.nbytes
    repeat = 128 << swizzle
    align_shared(cx, sbuf, repeat)
    if not multiple_of(ir.mul(sbuf.elem_offset, c(nbytes)), repeat):
        raise Decline(f"`{sbuf.name}` does not start at a multiple of {repeat} bytes")
    extents = regions.const_extents(s)
    variable = [d for d, start in enumerate(s.starts) if not isinstance(start, ir.IntImm)]
    if any(extents[d] != 1 for d in variable):
        raise Decline("the shared region starts at a run-time offset in a dimension it spans; only a "
                      "single index (a pipeline stage) may be a run-time value")
    choices = [range(offsets.shape[d]) if d in variable else (None,) for d in range(len(extents))]
    return offsets, nbytes, variable, choices
