"""`sm100_packed`: the Blackwell reduction of a thread's 1-D float32 registers to one value
(docs/tile-primitives.md, ## reductions). A sum keeps eight partial sums and adds pairs of them
with `add.rn.ftz.f32x2` (the pairs packed into .b64 registers by `mov.b64`); max / min keep four
and fold two new elements into each with the three-input `max.f32` / `min.f32`."""
from __future__ import annotations

from transpiler import ir
from transpiler.target import ptx
from transpiler.target.dtypes import UINT32, UINT64, VOID
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.elementwise.common import loop
from transpiler.tile.reduction.common import at, combine, parse, parsed_check, put, scratch


def _gate(r, call, cx):
    for name, region in (("dst", r.dst), ("src", r.src)):
        if regions.memory(region) != "local" or regions.is_distributed(region.buffer):
            return f"{name} is not a thread's own registers"
    if r.src.buffer.dtype.name != "float32":
        return f"src is {r.src.buffer.dtype.name}, not float32"
    if len(r.src.extents) != 1:
        return f"src is {len(r.src.extents)}-D, not 1-D"
    if r.spatial_len != 1:
        return f"dst has {r.spatial_len} elements, not 1"
    if r.reduce_len < 8:
        return f"src has {r.reduce_len} elements, fewer than 8"
    return None


gate = parsed_check("one thread reduces 8 or more float32 registers (1-D) to one", _gate)


def _form(mnemonic: str, outs: int, arity: int) -> ptx.Instruction:
    """The form of a mnemonic with `outs` destinations and `arity` operands (mov.b64 packs with
    one destination, unpacks with two)."""
    return next(f for f in ptx.forms(mnemonic)
                if len(f.operands) == arity and sum(op.is_dest for op in f.operands) == outs)


def _call(cx, mnemonic: str, *args, outs: int = 1) -> ir.Stmt:
    return ir.Evaluate(ir.Call(VOID, cx.instruction(_form(mnemonic, outs, len(args))).helper, tuple(args)))


def _bits(value: ir.Expr) -> ir.Expr:
    return ir.Reinterpret(UINT32, value)


def lower_packed(call: ir.TileCall, cx) -> ir.Stmt:
    r = parse(call)
    start = r.src.starts[0]
    n = r.reduce_len
    chunks, rest = divmod(n, 8)

    def src(k) -> ir.Expr:
        return regions.load(r.src, (ir.add(start, k if isinstance(k, ir.Expr) else c(k)),))
    dst_coords = tuple(r.dst.starts)
    old = regions.load(r.dst, dst_coords)
    return (_packed_sum if r.op == "sum" else _three_input)(r, cx, src, old, chunks, rest)


def _packed_sum(r, cx, src, old, chunks, rest) -> ir.Stmt:
    alloc, part = scratch(cx, "local_sum", r.src.buffer.dtype, 8)
    a_alloc, acc = scratch(cx, "acc", UINT64)
    b_alloc, rhs = scratch(cx, "rhs", UINT64)
    body = [alloc, a_alloc, b_alloc]
    for i in range(8):
        body.append(put(part, i, ir.binop("+", src(i), old) if r.accum and i == 0 else src(i)))

    def add_pairs(pairs_into, lhs, rhs_values):
        """part[j], part[j + 1] = (lhs pair) + (rhs pair), by add.rn.ftz.f32x2."""
        return [_call(cx, "mov.b64", at(acc, 0), _bits(lhs[0]), _bits(lhs[1])),
                _call(cx, "mov.b64", at(rhs, 0), _bits(rhs_values[0]), _bits(rhs_values[1])),
                _call(cx, "add.rn.ftz.f32x2", at(acc, 0), at(acc, 0), at(rhs, 0)),
                _call(cx, "mov.b64", at(part, pairs_into), at(part, pairs_into + 1), at(acc, 0), outs=2)]

    def chunk(outer):
        base = ir.mul(ir.add(outer, c(1)), c(8))
        stmts = []
        for j in range(4):
            stmts += add_pairs(2 * j, (at(part, 2 * j), at(part, 2 * j + 1)),
                               (src(ir.add(base, c(2 * j))), src(ir.add(base, c(2 * j + 1)))))
        return ir.Seq(tuple(stmts))
    body.append(loop(cx, "outer", chunks - 1, chunk, unroll=True))
    for i in range(rest):
        body.append(put(part, 0, ir.binop("+", at(part, 0), src(chunks * 8 + i))))
    for into, a, b in ((0, 0, 2), (4, 4, 6), (0, 0, 4)):  # 8 -> 4 -> 2
        body += add_pairs(into, (at(part, a), at(part, a + 1)), (at(part, b), at(part, b + 1)))
    body.append(regions.store(r.dst, tuple(r.dst.starts), ir.binop("+", at(part, 0), at(part, 1))))
    return ir.Seq(tuple(body))


def _three_input(r, cx, src, old, chunks, rest) -> ir.Stmt:
    mnemonic = f"{r.op}.f32"
    alloc, temp = scratch(cx, "temp", r.src.buffer.dtype, 4)
    body = [alloc]
    for i in range(4):
        if r.accum and i == 0:
            body.append(_call(cx, mnemonic, at(temp, 0), src(0), src(1), old))
        else:
            body.append(put(temp, i, combine(r.op, src(2 * i), src(2 * i + 1))))

    def chunk(outer):
        base = ir.mul(ir.add(outer, c(1)), c(8))
        return ir.Seq(tuple(_call(cx, mnemonic, at(temp, i), at(temp, i), src(ir.add(base, c(2 * i))),
                                  src(ir.add(base, c(2 * i + 1)))) for i in range(4)))
    body.append(loop(cx, "outer", chunks - 1, chunk, unroll=True))
    for i in range(rest):
        body.append(put(temp, 0, combine(r.op, at(temp, 0), src(chunks * 8 + i))))
    alloc2, res = scratch(cx, "result", r.src.buffer.dtype)
    body += [alloc2, put(res, 0, combine(r.op, at(temp, 0), at(temp, 1))),
             _call(cx, mnemonic, at(res, 0), at(res, 0), at(temp, 2), at(temp, 3)),
             regions.store(r.dst, tuple(r.dst.starts), at(res, 0))]
    return ir.Seq(tuple(body))
