"""The packed f32x2 forms of the `reg` elementwise variant on sm_100: `add` / `sub` / `mul` / `fma`
on float32 registers, two elements per instruction (PTX `add.rn.f32x2` ...; the pairs packed into
.b64 registers by `mov.b64` and unpacked after). Used when `--arch` names sm_100 or newer (with no
target given tirxc keeps the scalar form, which runs everywhere); `rounding_mode=` picks
.rn (the default), .rz, .rm or .rp. A thread's elements are paired in order; an odd one out
is computed alone."""
from __future__ import annotations

from transpiler import ir
from transpiler.target import ptx
from transpiler.target.dtypes import UINT32, UINT64, VOID
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import bind_scalars, element, held_elements, unflatten
from transpiler.tile.elementwise.ops import extents
from transpiler.tile.registry import Decline

PACKED = ("add", "sub", "mul", "fma")
ROUNDING = ("rn", "rz", "rm", "rp")
MAX_ELEMENTS = 512  # straight-line code per pair: larger tiles keep the scalar loop


def rounding(call) -> str:
    mode = call.option("rounding_mode", "rn")
    if mode not in ROUNDING:
        raise Decline(f"`rounding_mode=` is {mode!r}, not one of {', '.join(ROUNDING)}")
    return mode


def applies(call, p, cx) -> str | None:
    if p.op not in PACKED:
        return f"`{p.op}` has no packed form"
    if not cx.target.has("f32x2"):
        return "the target is not sm_100 or newer"
    if p.dst.buffer.dtype.name != "float32" or p.dtype.name != "float32":
        return "the operands are not float32"
    for _, value in p.inputs:
        if isinstance(value, ir.TileRegion) and value.buffer.dtype.name != "float32":
            return "the operands are not float32"
    return None


def _form(cx, mnemonic: str, outs: int, arity: int) -> str:
    return next(cx.instruction(f).helper for f in ptx.forms(mnemonic)
                if len(f.operands) == arity and sum(op.is_dest for op in f.operands) == outs)


def _call(helper: str, *args) -> ir.Stmt:
    return ir.Evaluate(ir.Call(VOID, helper, tuple(args)))


def packed(call, p, cx) -> ir.Stmt | None:
    """The packed code, or None where the scalar form is used."""
    mode = rounding(call)
    if applies(call, p, cx) is not None:
        return None
    dst = p.dst
    targets = []  # (lvalue of the dst element, its index in dst's region, own)
    if regions.is_distributed(dst.buffer):
        regs = regions.registers(dst.buffer)
        for reg, index, own, guard in held_elements(p, cx):
            if guard is not True:
                return None
            targets.append((ir.BufferLoad(regs.dtype, regs, (c(reg),)), index, own))
    else:
        count = regions.num_elements(dst)
        if count > MAX_ELEMENTS:
            return None
        for k in range(count):
            index = unflatten(c(k), extents(dst))
            coords = tuple(ir.add(s, i) for s, i in zip(dst.starts, index))
            targets.append((regions.load(dst, coords), index, None))
    if len(targets) < 2:
        return None
    pre, values = bind_scalars(p, cx)
    names = [name for name, _ in p.inputs]
    body = list(pre)
    temps = []
    for k in range(len(names)):
        store = cx.names.fresh(f"pair{k}_ptr")
        buf = ir.Buffer(f"pair{k}", (c(1),), UINT64, "local", ir.Storage(store, UINT64, "local", "array", 1, 0),
                        None, None, 0)
        body.append(ir.Allocate(buf))
        temps.append(ir.BufferLoad(UINT64, buf, (c(0),)))
    pack, unpack = _form(cx, "mov.b64", 1, 3), _form(cx, "mov.b64", 2, 3)
    op = cx.instruction(ptx.forms(f"{p.op}.{mode}.f32x2")[0]).helper
    for k in range(0, len(targets) - 1, 2):
        pair = targets[k:k + 2]
        inputs = [_inputs(p, index, values, own, element) for _, index, own in pair]
        for t, name in enumerate(names):
            body.append(_call(pack, temps[t], ir.Reinterpret(UINT32, inputs[0][name]),
                              ir.Reinterpret(UINT32, inputs[1][name])))
        body.append(_call(op, temps[0], *temps))
        body.append(_call(unpack, pair[0][0], pair[1][0], temps[0]))
    if len(targets) % 2:
        target, index, own = targets[-1]
        value = element(p, index, values, own=own)
        body.append(ir.BufferStore(target.buffer, target.indices, ir.cast(dst.buffer.dtype, value)))
    return ir.Seq(tuple(body))


def _inputs(p, index, values, own, element) -> dict:
    """Each input's value at one element (the plan's compute is bypassed: the instruction does it)."""
    seen = {}

    def capture(v):
        seen.update(v)
        return v[next(iter(v))] if v else ir.const(0.0, p.dtype)
    from dataclasses import replace
    element(replace(p, compute=capture), index, values, own=own)
    return seen
