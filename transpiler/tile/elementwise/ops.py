"""The elementwise ops (`Tx.add`, `Tx.exp`, `Tx.select` ...): what each computes per element, and
its operands as a `Plan` (docs/tile-primitives.md, ## elementwise). The variants that place the
elements on threads are in elementwise/registers.py and shared.py; the fused ops reuse the plans (fused/composed.py).

An operand is a buffer region or a scalar: a Python number or a run-time value (`x[0]`, a
parameter). A region broadcasts against dst as NumPy does (extents right-aligned, an extent of 1
repeats); a region whose non-unit extents equal dst's is matched element for element."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.target.dtypes import BOOL, DType
from transpiler.tile import regions
from transpiler.tile.registry import Check, check

UNARY_MATH = ("sqrt", "exp", "exp2", "log2")  # f(src * scale + bias)
BINARY = {"add": "+", "sub": "-", "mul": "*", "fdiv": "/", "maximum": "max", "minimum": "min"}
OPS = ("fill", "memset", "zero", "cast", *UNARY_MATH, "reciprocal", "silu", *BINARY, "fma", "select")


@dataclass(frozen=True)
class Plan:
    """dst and the named inputs of one elementwise computation; `compute(values)` builds the
    element's value from the inputs' values (already in the compute dtype)."""
    op: str
    dst: ir.TileRegion
    inputs: tuple[tuple[str, object], ...]  # (name, TileRegion | ir.Expr | int | float | bool)
    dtype: DType  # the compute dtype
    compute: object  # (dict name -> ir.Expr) -> ir.Expr

    def regions(self) -> list[ir.TileRegion]:
        return [self.dst] + [v for _, v in self.inputs if isinstance(v, ir.TileRegion)]


def _const(value, dtype: DType) -> ir.Expr:
    return ir.const(value, dtype)


def as_dtype(value, dtype: DType) -> ir.Expr:
    """A scalar or loaded value in the compute dtype."""
    if isinstance(value, ir.Expr):
        return value if value.dtype == dtype else ir.cast(dtype, value)
    return _const(float(value) if dtype.is_float else int(value), dtype)


def binary(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.binop(BINARY.get(op, op), a, b)


def unary_math(name: str, x: ir.Expr) -> ir.Expr:
    return ir.Call(x.dtype, "math:" + name, (x,))


def silu(x: ir.Expr) -> ir.Expr:
    one = _const(1.0, x.dtype)
    return ir.binop("/", x, ir.binop("+", one, unary_math("exp", ir.unary("-", x))))


def compute_dtype(dst: ir.TileRegion, values) -> DType:
    """The widest dtype among dst and the region inputs (dst wins a tie), as TIRx computes."""
    best = dst.buffer.dtype
    for v in values:
        if isinstance(v, ir.TileRegion) and v.buffer.dtype.bits > best.bits:
            best = v.buffer.dtype
    return best


# the operands that hold values (a region, a number or a run-time scalar), as opposed to op names
_VALUE_OPERANDS = frozenset(("value", "src", "src1", "src2", "bias", "scale", "true_value", "false_value",
                             "data", "operand0", "operand1"))


def plan(call: ir.TileCall) -> Plan | str:
    """The call's plan, or why it has none (a reason for the variants' refusal)."""
    return plan_of(call.op, dict(call.operands), call)


def plan_of(op: str, ops: dict, call: ir.TileCall) -> Plan | str:
    dst = ops.get("output" if op == "binary_chain" else "dst")
    if not isinstance(dst, ir.TileRegion):
        return "dst must be a buffer region"
    if regions.num_elements(dst) is None:
        return "dst's extents are not constant"
    text = next(((key, value) for key, value in ops.items()
                 if key in _VALUE_OPERANDS and isinstance(value, str)), None)
    if text is not None:
        return f"`{text[0]}` is the string {text[1]!r}; an operand is a buffer region or a number"
    if op in ("fill", "memset"):
        value = ops["value"]
        if isinstance(value, ir.TileRegion):
            return f"`{op}` takes a scalar value, not a buffer region"
        return Plan(op, dst, (("value", value),), dst.buffer.dtype, lambda v: v["value"])
    if op == "zero":
        return Plan(op, dst, (), dst.buffer.dtype, lambda v, d=dst.buffer.dtype: _const(0, d))
    if op == "cast":
        src = ops.get("src") if ops.get("src") is not None else dst
        dtype = src.buffer.dtype if isinstance(src, ir.TileRegion) else dst.buffer.dtype
        return Plan(op, dst, (("src", src),), dtype, lambda v: v["src"])
    if op in UNARY_MATH or op in ("reciprocal", "silu"):
        src = ops.get("src") if ops.get("src") is not None else dst
        inputs = [("src", src)]
        bias, scale = ops.get("bias"), ops.get("scale")
        if op in UNARY_MATH:
            if bias is not None:
                inputs.append(("bias", bias))
            if scale is not None:
                if isinstance(scale, ir.TileRegion):
                    return "`scale=` is a scalar (a number or a run-time value), not a buffer region"
                inputs.append(("scale", scale))
        dtype = compute_dtype(dst, [v for _, v in inputs])
        if not dtype.is_float:
            return f"`{op}` computes on floating-point values; the operands are {dtype}"
        return Plan(op, dst, tuple(inputs), dtype, _unary_compute(op))
    if op in BINARY:
        a, b = ops["src1"], ops["src2"]
        dtype = compute_dtype(dst, (a, b))
        if op == "fdiv" and not dtype.is_float:
            return f"`fdiv` divides floating-point values; the operands are {dtype}"
        return Plan(op, dst, (("src1", a), ("src2", b)), dtype, lambda v, o=op: binary(o, v["src1"], v["src2"]))
    if op == "fma":
        inputs = (("src", ops["src"]), ("scale", ops["scale"]), ("bias", ops["bias"]))
        dtype = compute_dtype(dst, [v for _, v in inputs])
        return Plan(op, dst, inputs, dtype,
                    lambda v: ir.binop("+", ir.binop("*", v["src"], v["scale"]), v["bias"]))
    if op == "select":
        pred = ops["pred"]
        if not isinstance(pred, (ir.TileLambda, ir.TileRegion, ir.Expr, bool, int)):
            return "`pred` must be a function of dst's coordinates (`lambda i, j: ...`)"
        inputs = (("true_value", ops["true_value"]), ("false_value", ops["false_value"]), ("pred", pred))
        dtype = dst.buffer.dtype
        return Plan(op, dst, inputs, dtype, _select)
    if op == "binary_chain":
        return _chain(dst, ops)
    return f"`{op}` is not an elementwise op"


CHAIN_ALIASES = {"max": "maximum", "min": "minimum", "div": "fdiv"}


def _chain(dst: ir.TileRegion, ops: dict) -> Plan | str:
    """`(operand0 op0 data) op1 operand1`, or `operand1 op1 (operand0 op0 data)` with reverse1."""
    names = []
    for key in ("op0", "op1"):
        name = CHAIN_ALIASES.get(ops[key], ops[key]) if isinstance(ops[key], str) else None
        if name not in BINARY:
            return f"`{key}` is {ops[key]!r}, not one of {', '.join(BINARY)}"
        names.append(name)
    reverse = ops.get("reverse1")
    if not isinstance(reverse, (bool, int)):
        return "`reverse1` must be a constant True or False"
    inputs = (("data", ops["data"]), ("operand0", ops["operand0"]), ("operand1", ops["operand1"]))
    dtype = compute_dtype(dst, [v for _, v in inputs])
    if "fdiv" in names and not dtype.is_float:
        return f"`fdiv` divides floating-point values; the operands are {dtype}"

    def compute(v, op0=names[0], op1=names[1], reverse=bool(reverse)):
        first = binary(op0, v["operand0"], v["data"])
        return binary(op1, v["operand1"], first) if reverse else binary(op1, first, v["operand1"])
    return Plan("binary_chain", dst, inputs, dtype, compute)


def _unary_compute(op: str):
    def compute(v):
        x = v["src"]
        if "scale" in v:
            x = ir.binop("*", x, v["scale"])
        if "bias" in v:
            x = ir.binop("+", x, v["bias"])
        if op == "reciprocal":
            return ir.binop("/", _const(1.0, x.dtype), x)
        if op == "silu":
            return silu(x)
        return unary_math(op, x)
    return compute


def _select(v):
    pred = v["pred"]
    cond = pred if pred.dtype == BOOL else ir.binop("!=", pred, ir.const(0, pred.dtype))
    return ir.select(cond, v["true_value"], v["false_value"])


def substitute(e: ir.Expr, env: dict) -> ir.Expr:
    """e with each variable of env replaced by its value (folded as it is rebuilt)."""
    if isinstance(e, ir.Var):
        return env.get(e.name, e)
    return ir.map_children(e, lambda x: substitute(x, env))


def predicate(fn: ir.TileLambda, coords) -> ir.Expr:
    """A `pred` lambda at dst's buffer coordinates."""
    return substitute(fn.body, {p.name: v for p, v in zip(fn.params, coords)})


def input_dtype(plan: Plan, name: str) -> DType:
    """The dtype an input is brought to before compute (the predicate keeps its own)."""
    if name == "pred":
        value = dict(plan.inputs)["pred"]
        return value.buffer.dtype if isinstance(value, ir.TileRegion) else BOOL
    return plan.dtype


# -- shapes ------------------------------------------------------------------------------------

def extents(region: ir.TileRegion) -> tuple[int, ...]:
    return tuple(e.value for e in region.extents)


def broadcast_reason(dst: ir.TileRegion, src: ir.TileRegion, name: str) -> str | None:
    """None when src matches dst element for element or broadcasts to it."""
    a, b = regions.squeezed(dst), regions.squeezed(src)
    if b is None:
        return f"{name}'s extents are not constant"
    if a == b:
        return None
    d, s = extents(dst), extents(src)
    pad = len(d) - len(s)
    if pad < 0 and all(e == 1 for e in s[:-pad]):
        s, pad = s[-pad:], 0
    if pad < 0 or any(se != de and se != 1 for se, de in zip(s, d[pad:])):
        return f"{name} has extents {s} and dst {d}: they neither match nor broadcast"
    return None


def src_coords(dst: ir.TileRegion, src: ir.TileRegion, index: tuple[ir.Expr, ...]) -> tuple[ir.Expr, ...]:
    """The coordinates in src of the element at `index` (one offset per dim of dst's region)."""
    if regions.squeezed(dst) == regions.squeezed(src):
        nonunit = tuple(i for i, e in zip(index, extents(dst)) if e != 1)
        return regions.coords_at(src, nonunit)
    d, s = extents(dst), extents(src)
    pad = len(d) - len(s)
    out = []
    for k, (start, extent) in enumerate(zip(src.starts, s)):
        if k + pad < 0 or extent == 1:
            out.append(start)
        else:
            out.append(ir.add(start, index[k + pad]))
    return tuple(out)


# -- conditions of the variants over the parsed call ---------------------------------------------

@check("the operands are buffer regions or scalars that match dst")
def parses(call, cx):
    p = plan(call)
    if isinstance(p, str):
        return p
    for name, value in p.inputs:
        if isinstance(value, ir.TileRegion):
            reason = broadcast_reason(p.dst, value, name)
            if reason:
                return reason
    return None


def _memory(wanted: str, says: str) -> Check:
    def test(call, cx):
        p = plan(call)
        if isinstance(p, str):
            return p
        for name, region in [("dst", p.dst)] + [(n, v) for n, v in p.inputs if isinstance(v, ir.TileRegion)]:
            if regions.memory(region) != wanted:
                return f"{name} is in {regions.memory(region)} memory"
        return None
    return Check(says, test)


in_registers = _memory("local", "every operand is in registers (local)")
in_shared = _memory("shared", "every operand is in shared memory")
