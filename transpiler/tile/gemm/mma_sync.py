"""`gemm` (D = alpha * A @ B + beta * C on registers): the lowering of the `mma_sync` variant of
docs/tile-primitives.md's gemm section (TIRx: tile_primitives/gemm.rst).

All four operands are register buffers spread over the lanes by their layouts. The lowering
cuts M / N / K into m16n8k tiles of one `mma.sync` shape, checks that every tile of every
operand sits in the instruction's fragment (which lane holds which element, in which register:
fragments.py evaluates the layouts), and emits the unrolled nest: per (m, n) tile, one `mma.sync`
per K tile, the first one reading C (beta = 1) or zeros (beta = 0), the others accumulating into
D in place. At warpgroup or CTA scope each warp multiplies the tiles of D it holds; every warp
must hold its tiles in the same registers, so the code is the same for all of them."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.target import ptx
from transpiler.target.dtypes import FLOAT32, INT32, MMA_INPUTS, UINT32, VOID
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.gemm.fragments import NoMatch, Operand, a_slots, accumulator_slots, atom, b_slots
from transpiler.tile.registry import Decline, check


@dataclass(frozen=True)
class MmaShape:
    k: int
    mnemonic: str
    pack: int

    @property
    def instruction(self) -> ptx.Instruction:
        return ptx.lookup(self.mnemonic)


def shapes(a_dtype: str, b_dtype: str, d_dtype: str) -> list[MmaShape] | str:
    """The mma.sync shapes for these operand dtypes, largest K first, or why there are none."""
    if a_dtype not in MMA_INPUTS or b_dtype not in MMA_INPUTS:
        bad = a_dtype if a_dtype not in MMA_INPUTS else b_dtype
        return f"mma.sync has no {bad} inputs (it takes {', '.join(MMA_INPUTS)})"
    a_input, b_input = MMA_INPUTS[a_dtype], MMA_INPUTS[b_dtype]
    a, b, pack, ks = a_input.ptx, b_input.ptx, a_input.per_register, a_input.sync_k
    if a_input.family != b_input.family:
        return f"mma.sync does not multiply {a_dtype} by {b_dtype}"
    if d_dtype != a_input.accumulator:
        return f"{a_dtype} products accumulate in {a_input.accumulator} here, not {d_dtype}"
    acc = "s32" if d_dtype == "int32" else "f32"
    out = []
    for k in ks:
        mnemonic = f"mma.sync.aligned.m16n8k{k}.row.col.{acc}.{a}.{b}.{acc}"
        if ptx.lookup(mnemonic) is not None:
            out.append(MmaShape(k, mnemonic, pack))
    return out or f"no mma.sync shape multiplies {a_dtype}"


@check("D, A, B and C are register buffers spread over the threads by layouts")
def in_registers(call, cx):
    for name in ("D", "A", "B", "C"):
        region = call.operand(name)
        if not isinstance(region, ir.TileRegion):
            return f"{name} is not a buffer region"
        if regions.memory(region) != "local":
            return f"{name} is in {regions.memory(region)} memory: stage it into registers first (Tx.copy)"
        if not regions.is_distributed(region.buffer):
            return f"{name} is a register buffer without a thread layout"
    return None


def _number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, (ir.IntImm, ir.FloatImm)):
        return float(value.value)
    return None


@check("alpha is 1 and beta is 0 or 1")
def unit_scales(call, cx):
    alpha, beta = _number(call.operand("alpha")), _number(call.operand("beta"))
    if alpha != 1.0:
        return "mma.sync does not scale the product: alpha must be the constant 1 (not supported yet otherwise)"
    if beta not in (0.0, 1.0):
        return "beta must be the constant 0 (D = A @ B) or 1 (D = A @ B + C); other values are not supported yet"
    return None


@check("transpose_A and transpose_B are constants")
def constant_flags(call, cx):
    for name in ("transpose_A", "transpose_B"):
        if not isinstance(call.operand(name), (bool, int)):
            return f"{name} is not a compile-time True or False"
    return None


def _scope_warps(call, cx) -> int | None:
    if call.scope == "warp":
        return 1
    threads = cx.scope_threads()
    return None if threads is None or threads % 32 else threads // 32


@dataclass
class Tiled:
    """The operands of one call, in logical orientation, and the tile counts."""
    D: Operand
    A: Operand
    B: Operand
    C: Operand
    M: int
    N: int
    K: int


def operands(call) -> Tiled:
    tA, tB = bool(call.operand("transpose_A")), bool(call.operand("transpose_B"))
    D = Operand("D", call.operand("D"))
    A = Operand("A", call.operand("A"), tA)
    B = Operand("B", call.operand("B"), tB)
    C = Operand("C", call.operand("C"))
    M, K = A.rows, A.cols
    if B.rows != K:
        raise NoMatch(f"A has K = {K} but B has K = {B.rows}")
    N = B.cols
    for op in (D, C):
        if (op.rows, op.cols) != (M, N):
            raise NoMatch(f"{op.name} is {op.rows} x {op.cols}, not M x N = {M} x {N}")
    return Tiled(D, A, B, C, M, N, K)


def mma_sync(call: ir.TileCall, cx) -> ir.Stmt:
    """One warp-collective mma.sync per m16n8k tile, fully unrolled."""
    try:
        ops = operands(call)
    except NoMatch as e:
        raise Decline(e.reason)
    found = shapes(ops.A.buffer.dtype.name, ops.B.buffer.dtype.name, ops.D.buffer.dtype.name)
    if isinstance(found, str):
        raise Decline(found)
    if ops.C.buffer.dtype != ops.D.buffer.dtype:
        raise Decline(f"C is {ops.C.buffer.dtype.name} and D {ops.D.buffer.dtype.name}")
    if ops.M % 16 or ops.N % 8:
        raise Decline(f"M = {ops.M} and N = {ops.N} must be multiples of 16 and 8 (the m16n8 tile)")
    warps = _scope_warps(call, cx)
    if warps is None:
        raise Decline("the block's thread count is not a constant multiple of 32")
    reasons = []
    for shape in found:
        if ops.K % shape.k:
            reasons.append(f"K = {ops.K} is not a multiple of {shape.k} ({shape.mnemonic})")
            continue
        refused = cx.target.refusal(shape.instruction.feature, f"`{shape.mnemonic}`")
        if refused is not None:
            reasons.append(refused)
            continue
        try:
            emitted = _emit(call, ops, shape, warps)
            cx.instruction(shape.instruction)
            return emitted
        except NoMatch as e:
            reasons.append(f"m16n8k{shape.k}: {e.reason}")
    raise Decline("; ".join(reasons))


def _emit(call, ops: Tiled, shape: MmaShape, warps: int) -> ir.Stmt:
    beta = _number(call.operand("beta"))
    per_warp: dict[int | None, list] = {}
    for mi in range(ops.M // 16):
        for ni in range(ops.N // 8):
            where = f"the tile at D[{mi * 16}, {ni * 8}]"
            d_warp, d_regs = atom(ops.D, accumulator_slots(mi * 16, ni * 8), where)
            c_regs = None
            if beta == 1.0:
                c_warp, c_regs = atom(ops.C, accumulator_slots(mi * 16, ni * 8), where)
                _same_warp(c_warp, d_warp, "C", where)
            steps = []
            for ki in range(ops.K // shape.k):
                tile = f"the tile at A[{mi * 16}, {ki * shape.k}]"
                a_warp, a_regs = atom(ops.A, a_slots(mi * 16, ki * shape.k, shape.k, shape.pack), tile)
                _same_warp(a_warp, d_warp, "A", tile)
                tile = f"the tile at B[{ki * shape.k}, {ni * 8}]"
                b_warp, b_regs = atom(ops.B, b_slots(ki * shape.k, ni * 8, shape.k, shape.pack), tile)
                _same_warp(b_warp, d_warp, "B", tile)
                steps.append((a_regs, b_regs))
            per_warp.setdefault(d_warp, []).append((d_regs, c_regs, steps))
    programs = list(per_warp.values())
    if None not in per_warp:
        held = sorted(per_warp)
        if held != list(range(warps)):
            raise NoMatch(f"D is held by warps {held} of the {call.scope}'s {warps}: each warp must hold tiles of D")
        if any(p != programs[0] for p in programs[1:]):
            raise NoMatch("the warps hold their tiles of D in different registers")
    elif len(per_warp) > 1:
        raise NoMatch("D is spread over warps for some tiles and not for others")
    return _nest(ops, shape, programs[0])


def _same_warp(warp, d_warp, name, where):
    if warp is not None and d_warp is not None and warp != d_warp:
        raise NoMatch(f"{where} of {name} is in warp {warp}, but the warp computing it holds D there in warp {d_warp}")
    if warp is not None and d_warp is None:
        raise NoMatch(f"{name} is spread over warps but D is not")


def _nest(ops: Tiled, shape: MmaShape, program) -> ir.Stmt:
    D, A, B, C = (regions.registers(op.buffer) for op in (ops.D, ops.A, ops.B, ops.C))
    instr = shape.instruction
    zero = ir.IntImm(INT32, 0) if ops.D.buffer.dtype == INT32 else ir.FloatImm(FLOAT32, 0.0)
    body = []
    for d_regs, c_regs, steps in program:
        d_out = [ir.BufferLoad(D.dtype, D, (c(r),)) for r in d_regs]
        for k, (a_regs, b_regs) in enumerate(steps):
            if k > 0:
                acc = d_out
            elif c_regs is None:
                acc = [zero] * 4
            else:
                acc = [ir.BufferLoad(C.dtype, C, (c(r),)) for r in c_regs]
            a_args = [register_b32(A, r, shape.pack) for r in a_regs]
            b_args = [register_b32(B, r, shape.pack) for r in b_regs]
            args = d_out + a_args + b_args + acc
            body.append(ir.Evaluate(ir.Call(VOID, instr.helper, tuple(args))))
    return ir.Seq(tuple(body))


def register_b32(buf: ir.Buffer, reg: int, pack: int) -> ir.Expr:
    """The 32-bit register of `pack` consecutive elements starting at `reg`."""
    if pack == 1:
        return ir.Reinterpret(UINT32, ir.BufferLoad(buf.dtype, buf, (c(reg),)))
    return ir.BufferVecLoad(UINT32, buf, (c(reg),))
