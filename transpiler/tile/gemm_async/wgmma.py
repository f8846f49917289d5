"""`gemm_async` on Hopper: the lowering of the `wgmma` variant (docs/tile-primitives.md, gemm_async).

TIRx lowers gemm_async to tcgen05 only (gemm_async/tcgen05.py); this variant follows the same
conventions for sm_90a's `wgmma.mma_async`: C (M, N) += A (M, K) @ B (N, K)^T by default (B is
(N, K); `transA=True` / `transB=True`: the region is (K, M) / (K, N)), A and B in shared memory
named by matrix descriptors built from their layouts (K- or MN-major, swizzled or not:
shared_operands.py; MN-major f16 / bf16 only, wgmma's tnspA / tnspB), or A in registers with the
wgmma A-fragment layout; the accumulator C a register buffer of the
warpgroup with the wgmma accumulator layout. `accum=` is the scale-d of the first K step (False:
C = A @ B, True: C += A @ B; a run-time value chooses at run time); the later K steps accumulate.
The lowering issues one `wgmma.fence` and then one `wgmma.mma_async` per (M tile, N tile, K step);
like TIRx's tcgen05 variant it emits no completion: `wgmma.commit_group` and `wgmma.wait_group`
stay the caller's."""
from __future__ import annotations

from transpiler import ir
from transpiler.target import ptx
from transpiler.target.dtypes import MMA_INPUTS, UINT32, VOID
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.gemm.fragments import NoMatch, Operand, a_slots, atom, wgmma_accumulator_slots
from transpiler.tile.gemm.mma_sync import register_b32
from transpiler.tile.gemm_async.shared_operands import prove, shared_operand, wgmma_descriptor
from transpiler.tile.registry import Decline, check

_N_INT = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256)


@check("no scale factors (SFA / SFB)")
def unscaled(call, cx):
    if call.operand("SFA") is not None or call.operand("SFB") is not None:
        return "block-scaled products (SFA / SFB) are tcgen05's (sm_100a)"
    return None


@check("C is a register buffer of the warpgroup")
def accumulator_in_registers(call, cx):
    C = call.operand("C")
    if not isinstance(C, ir.TileRegion) or regions.memory(C) != "local":
        where = regions.memory(C) if isinstance(C, ir.TileRegion) else "not a buffer"
        return f"C is in {where} memory; wgmma accumulates in registers"
    if not regions.is_distributed(C.buffer):
        return "C is a register buffer without a thread layout (give it the wgmma accumulator layout)"
    return None


def scale_d(accum) -> ir.Expr | None:
    """`accum=` as wgmma's scale-d predicate (a uint32), None when it is not a value."""
    if isinstance(accum, bool) or isinstance(accum, int):
        return ir.IntImm(UINT32, 1 if accum else 0)
    if isinstance(accum, ir.Expr) and (accum.dtype.is_int or accum.dtype.name == "bool"):
        return accum if accum.dtype == UINT32 else ir.cast(UINT32, accum)
    return None


def wgmma(call: ir.TileCall, cx) -> ir.Stmt:
    """wgmma.fence, then one wgmma.mma_async per (M tile of 64, N tile, K step)."""
    try:
        return _lower(call, cx)
    except NoMatch as e:
        raise Decline(e.reason)


def _lower(call: ir.TileCall, cx) -> ir.Stmt:
    C_region, A_region, B_region = call.operand("C"), call.operand("A"), call.operand("B")
    if not isinstance(A_region, ir.TileRegion) or not isinstance(B_region, ir.TileRegion):
        raise NoMatch("A and B must be buffer regions")
    first = scale_d(call.operand("accum"))
    if first is None:
        raise NoMatch("accum is not a bool or an integer value")
    a_dtype, b_dtype = A_region.buffer.dtype.name, B_region.buffer.dtype.name
    if a_dtype not in MMA_INPUTS or b_dtype not in MMA_INPUTS:
        raise NoMatch(f"wgmma does not multiply {a_dtype} by {b_dtype}")
    a_input, b_input = MMA_INPUTS[a_dtype], MMA_INPUTS[b_dtype]
    if a_input.family != b_input.family:
        raise NoMatch(f"wgmma does not multiply {a_dtype} by {b_dtype}")
    a, b, kstep, pack = a_input.ptx, b_input.ptx, a_input.wgmma_k, a_input.per_register
    integer, transposable = a_input.family == "int", a_input.wgmma_transposable
    acc_dtype = a_input.accumulator
    C = Operand("C", C_region)
    if C.buffer.dtype.name != acc_dtype:
        raise NoMatch(f"{a_dtype} products accumulate in {acc_dtype} here, not {C.buffer.dtype.name}")
    M, N = C.rows, C.cols
    in_registers = regions.memory(A_region) == "local"
    if in_registers:
        if bool(call.operand("transA")):
            raise NoMatch("A in registers is (M, K): transA is not allowed")
        A = Operand("A", A_region)
    else:
        A = shared_operand(cx, "A", A_region, bool(call.operand("transA")))
    B = shared_operand(cx, "B", B_region, bool(call.operand("transB")))
    K = A.cols
    if (A.rows, B.cols) != (M, K) or B.rows != N:
        raise NoMatch(f"C is {M} x {N}, A {A.rows} x {A.cols} and B {B.rows} x {B.cols}: "
                      f"wgmma wants A (M, K) and B (N, K)")
    if M % 64:
        raise NoMatch(f"M = {M} is not a multiple of 64 (wgmma's m64)")
    if K % kstep:
        raise NoMatch(f"K = {K} is not a multiple of {kstep} ({a_dtype} wgmma's k{kstep})")
    widths = _N_INT if integer else tuple(range(8, 257, 8))
    n_inst = max((n for n in widths if N % n == 0), default=None)
    if n_inst is None:
        raise NoMatch(f"N = {N} is not a multiple of 8")
    for op, rows in ((A, 64), (B, n_inst)):
        if in_registers and op is A:
            continue
        if op.mn_major and not transposable:
            raise NoMatch(f"{op.name} is MN-major in shared memory; wgmma transposes only f16 / bf16 operands "
                          f"(tnspA / tnspB): a {op.region.buffer.dtype.name} {op.name} must be K-major")
        prove(op, rows, kstep)
    d = "s32" if integer else "f32"
    mnemonic = f"wgmma.mma_async.sync.aligned.m64n{n_inst}k{kstep}.{d}.{a}.{b}"
    forms = ptx.forms(mnemonic)
    if not isinstance(forms, list):
        raise NoMatch(f"no wgmma form `{mnemonic}`")
    instr = forms[1] if in_registers else forms[0]
    imms = []
    if not integer:
        imms = [1, 1] + ([int(A.mn_major)] if not in_registers and transposable else []) + \
            ([int(B.mn_major)] if transposable else [])
    name = cx.instruction(instr).helper + (f"<{', '.join(map(str, imms))}>" if imms else "")
    C_regs = regions.registers(C.buffer)
    A_regs = regions.registers(A.buffer) if in_registers else None
    body = [ir.Evaluate(ir.Call(VOID, cx.instruction(ptx.lookup("wgmma.fence.sync.aligned")).helper, ()))]
    for mi in range(M // 64):
        for ni in range(N // n_inst):
            d_regs = _accumulator(C, mi * 64, ni * n_inst, n_inst)
            d = [ir.BufferLoad(C_regs.dtype, C_regs, (c(r),)) for r in d_regs]
            for ki in range(K // kstep):
                if in_registers:
                    a_regs = _a_fragment(A, mi * 64, ki * kstep, kstep, pack)
                    a_args = [register_b32(A_regs, r, pack) for r in a_regs]
                else:
                    a_args = [wgmma_descriptor(A, mi * 64, ki * kstep)]
                b_desc = wgmma_descriptor(B, ni * n_inst, ki * kstep)
                scale = first if ki == 0 else ir.IntImm(UINT32, 1)
                body.append(ir.Evaluate(ir.Call(VOID, name, tuple(d + a_args + [b_desc, scale]))))
    return ir.Seq(tuple(body))


def _accumulator(C: Operand, m0: int, n0: int, n: int) -> list[int]:
    """The registers of the m64n<n> accumulator tile at (m0, n0): warp w holds rows 16w .. 16w + 15,
    every warp in the same registers."""
    regs = None
    for w in range(4):
        where = f"rows {m0 + 16 * w} .. {m0 + 16 * w + 15} of C"
        warp, got = atom(C, wgmma_accumulator_slots(m0 + 16 * w, n0, n), where)
        if warp != w:
            raise NoMatch(f"{where} are in warp {warp}; the wgmma accumulator layout puts them in warp {w} "
                          f"of the warpgroup" if warp is not None else "C is not spread over the warpgroup's 4 warps")
        if regs is not None and got != regs:
            raise NoMatch("the warps hold their rows of C in different registers")
        regs = got
    return regs


def _a_fragment(A: Operand, m0: int, k0: int, k: int, pack: int) -> list[int]:
    regs = None
    for w in range(4):
        where = f"rows {m0 + 16 * w} .. {m0 + 16 * w + 15}, columns {k0} .. {k0 + k - 1} of A"
        warp, got = atom(A, a_slots(m0 + 16 * w, k0, k, pack), where)
        if warp != w:
            raise NoMatch(f"{where} are in warp {warp}; the wgmma A fragment puts them in warp {w}"
                          if warp is not None else "A is not spread over the warpgroup's 4 warps")
        if regs is not None and got != regs:
            raise NoMatch("the warps hold their rows of A in different registers")
        regs = got
    return regs
