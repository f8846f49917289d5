"""The parameter buffers a kernel writes without a store naming them, so that they are not
read-only (lowering's `_readonly_params`; the launcher refuses read-only arrays and overlaps for
them): those a bulk tensor store or reduction writes through their TMA tensor map, and those an
element of which is a PTX instruction's output (`T.ptx.ld...(A[0], ...)`)."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir.walk import all_exprs, walk_expr
from transpiler.target import ptx


def written_by_ptx(body: ir.Stmt, params, instructions) -> set[str]:
    """The storage names of the buffers the body's PTX instructions write (`instructions`: the
    module's PTX instructions by helper name): through a TMA tensor map, or as an instruction's
    output; one walk over the body's expressions."""
    calls = [(e, instr) for e in all_exprs(body)
             if e.__class__ is ir.Call and (instr := ptx.instruction_of(e.func, instructions)) is not None]
    return written_through_maps(calls, params) | written_by_ptx_outputs(calls)


def written_through_maps(calls, params) -> set[str]:
    """The storage names of the buffers whose tensor maps a global-writing TMA instruction uses
    (`calls`: the body's PTX calls with their instructions)."""
    maps = {p.name: p.tensor_map.buffer.storage.name for p in params if p.tensor_map is not None}
    if not maps:
        return set()
    out = set()
    for e, instr in calls:
        if not _writes_global(instr.mnemonic):
            continue
        for arg in e.args:
            out.update(maps[x.storage.name] for x in walk_expr(arg)
                       if isinstance(x, ir.Address) and x.storage.name in maps)
    return out


def _writes_global(mnemonic: str) -> bool:
    return mnemonic.startswith("cp.reduce.async.bulk.tensor") or (
        mnemonic.startswith("cp.async.bulk.tensor") and ".global.shared" in mnemonic)


def written_by_ptx_outputs(calls) -> set[str]:
    """The storage names of buffers an element of which a PTX wrapper writes (an out / inout
    operand), in the order the operands take their arguments (immediates are the helper's
    template, sunk operands take none, the predicate comes last)."""
    out = set()
    for e, instr in calls:
        operands = [op for k, op in enumerate(instr.operands) if op.role != "imm" and k not in instr.sinks]
        for op, arg in zip(operands, e.args):
            if op.role in ("out", "inout") and isinstance(arg, ir.Load):
                out.add(arg.storage.name)
    return out
