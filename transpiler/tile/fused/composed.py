"""The fused forms (docs/tile-primitives.md, ## fused). TIRx lowers them only for Trainium; tirxc
lowers each as the elementwise and reduction calls it stands for, each dispatched to its own
variant as if written out (so they take the same operands in the same memories):

- `binary_reduce(bout, rout, a, b, binary_op, reduce_op, reduce_axes)`:
  `bout = a binary_op b`, then `rout = reduce_op(bout, reduce_axes)`;
- `unary_reduce(uout, rout, x, unary_op, reduce_op, bias, scale, reduce_axes)`:
  `uout = unary_op(x * scale + bias)`, then `rout = reduce_op(uout, reduce_axes)`;
- `reduce_negate(out, x, reduce_op, reduce_axes, accum)`: `out = -reduce_op(x, reduce_axes)`;
- `binary_chain(out, data, operand0, operand1, op0, op1, reverse1)`:
  `out = (operand0 op0 data) op1 operand1`, or `operand1 op1 (operand0 op0 data)` when
  `reverse1`: one elementwise pass (the `reg` / `smem` variants of the elementwise family).
"""
from __future__ import annotations

from transpiler import ir
from transpiler.tile.elementwise.ops import BINARY, UNARY_MATH
from transpiler.tile.reduction.common import REDUCE_OPS
from transpiler.tile.registry import VARIANTS, Decline, attempt, check

ALIASES = {"max": "maximum", "min": "minimum", "div": "fdiv", "divide": "fdiv", "multiply": "mul",
           "subtract": "sub"}
UNARY = UNARY_MATH + ("reciprocal", "silu")


def binary_name(value) -> str | None:
    name = ALIASES.get(value, value) if isinstance(value, str) else None
    return name if name in BINARY else None


def _op_names(call) -> str | None:
    ops = dict(call.operands)
    for key in ("binary_op", "op0", "op1"):
        if key in ops and binary_name(ops[key]) is None:
            return f"`{key}` is {ops[key]!r}, not one of {', '.join(BINARY)}"
    if "unary_op" in ops and ops["unary_op"] not in UNARY:
        return f"`unary_op` is {ops['unary_op']!r}, not one of {', '.join(UNARY)}"
    if "reduce_op" in ops and ops["reduce_op"] not in REDUCE_OPS:
        return f"`reduce_op` is {ops['reduce_op']!r}, not one of {', '.join(REDUCE_OPS)}"
    if call.op == "reduce_negate" and ops.get("accum"):
        return "`reduce_negate` with accum=True is not supported yet"
    return None


@check("the op names are known")
def op_names(call, cx):
    return _op_names(call)


def sub_call(call: ir.TileCall, op: str, operands: dict) -> ir.TileCall:
    """A call of another op at the same scope, with the same threads and options."""
    from transpiler.ir.tile_ops import OPS, REQUIRED
    values = tuple((name, operands.get(name, default if default is not REQUIRED else None))
                   for name, default in OPS[op].params)
    return ir.TileCall(op, call.scope, values, call.config, call.workspace, None, call.threads, call.span)


def lower_sub(sub: ir.TileCall, cx) -> tuple[str, ir.Stmt]:
    """The code of the first variant that accepts `sub` (as dispatch would choose it)."""
    reasons = []
    for case in VARIANTS.get(sub.op, []):
        if case.explicit:
            continue
        scx = cx.sub_lowering(sub)
        reason, code = attempt(case, sub, scx)
        if reason is None:
            cx.adopt(scx)
            return case.name, code
        reasons.append(f"{case.name}: {reason}")
    raise Decline(f"no variant of `{sub.op}` takes its part ({'; '.join(reasons)})")


def parts(call: ir.TileCall) -> list[ir.TileCall]:
    ops = dict(call.operands)
    if call.op == "binary_reduce":
        first = sub_call(call, binary_name(ops["binary_op"]), {
            "dst": ops["binary_output"], "src1": ops["binary_input1"], "src2": ops["binary_input2"]})
        source = ops["binary_output"]
        out, axes, accum = ops["reduce_output"], ops["reduce_axes"], False
    elif call.op == "unary_reduce":
        first = sub_call(call, ops["unary_op"], {"dst": ops["unary_output"], "src": ops["unary_input"],
                                                 "bias": ops["bias"], "scale": ops["scale"]})
        source = ops["unary_output"]
        out, axes, accum = ops["reduce_output"], ops["reduce_axes"], False
    else:  # reduce_negate
        reduce = sub_call(call, ops["reduce_op"], {"dst": ops["output"], "src": ops["input"],
                                                   "axes": ops["reduce_axes"], "accum": False})
        negate = sub_call(call, "mul", {"dst": ops["output"], "src1": ops["output"], "src2": -1.0})
        return [reduce, negate]
    reduce = sub_call(call, ops["reduce_op"], {"dst": out, "src": source, "axes": axes, "accum": accum})
    return [first, reduce]


@check("each part (the elementwise op, the reduction) has a variant that takes it")
def parts_lower(call, cx) -> str | None:
    for sub in parts(call):
        try:
            lower_sub(sub, cx)
        except Decline as declined:
            return declined.reason
    return None


def lower_composed(call: ir.TileCall, cx) -> ir.Stmt:
    out = []
    for sub in parts(call):
        name, code = lower_sub(sub, cx)
        out.append(ir.Comment(f"{sub.op}: {name}"))
        out.append(ir.Block(code))
    return ir.Seq(tuple(out))
