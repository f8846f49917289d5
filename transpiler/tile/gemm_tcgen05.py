"""`gemm_async` on Blackwell: the `tcgen05` variant (docs/tile-primitives.md, gemm_async; TIRx:
tile_primitives/gemm_async.rst, backend gemm_async/tcgen05.py). Compiled only here: tirxc's test
machines have no sm_100 GPU.

C (M, N) in tensor memory [+]= A (M, K) @ B (N, K)^T, A and B K-major swizzled shared tiles named
by matrix descriptors (gemm_shared.py), issued by one thread (thread scope) or by one elected
lane (warp scope). `cta_group=2` multiplies over a CTA pair: each CTA holds its 128 rows of A and
C and half of B's rows (N / 2), and the instruction's M is 256. The instruction descriptor is
folded at compile time from the dtypes and the shape (`descI=` passes a pre-encoded one for the
block-scaled kinds, as in TIRx). With SFA / SFB (scale factors in tensor memory) the call is the
block-scaled MMA; each K step reads the scale-factor columns of its K slice. Like TIRx, the
lowering emits no completion: `tcgen05.commit` and the mbarrier wait are the caller's."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema import tcgen05_desc as desc
from transpiler.sema.tmem_packing import column, per_column
from transpiler.target import ptx
from transpiler.target.dtypes import INT32, UINT32, VOID
from transpiler.tile import regions
from transpiler.tile.checks import all_threads_active, scopes
from transpiler.tile.gemm_async import scale_d
from transpiler.tile.gemm_frag import NoMatch
from transpiler.tile.gemm_shared import shared_operand, tcgen05_descriptor
from transpiler.tile.variants import Check, Decline, check, variant

_SCALED_MNEMONIC = {"mxf8f6f4": ".block_scale", "mxf4": ".block_scale.block32", "mxf4nvf4": ".block_scale.block16"}


def _target_is_blackwell(call, cx):
    if cx.arch and cx.arch < 100:
        return f"tcgen05 needs sm_100a or newer; {cx.target_text}"
    return None


blackwell = Check("the target has tcgen05 (sm_100a or newer)", _target_is_blackwell)


@check("C is in tensor memory")
def accumulator_in_tmem(call, cx):
    C = call.operand("C")
    if not isinstance(C, ir.TileRegion) or regions.memory(C) != "tmem":
        where = regions.memory(C) if isinstance(C, ir.TileRegion) else "not a buffer"
        return f"C is in {where} memory; tcgen05 accumulates in tensor memory"
    if cx.call.threads.tmem_slot is None:
        return "no `tcgen05.alloc` precedes the call, so C has no tensor-memory address"
    return None


@variant("gemm_async", "tcgen05", priority=10,
         when=(scopes("thread", "warp"), blackwell, all_threads_active, accumulator_in_tmem))
def tcgen05(call: ir.TileCall, cx) -> ir.Stmt:
    """One tcgen05.mma per (N tile, K step), by one thread (an elected lane at warp scope)."""
    try:
        body = _lower(call, cx.call.threads.tmem_slot)
    except NoMatch as e:
        raise Decline(e.reason)
    if call.scope == "warp":
        return ir.If(ir.Call(UINT32, "tirx_elect_sync", ()), body, None)
    return body


def _ptx_type(dtype, what) -> str:
    found = desc._BY_NAME.get(dtype.name)
    if found is None:
        raise NoMatch(f"tcgen05 has no {dtype.name} {what}")
    return found


def _lower(call: ir.TileCall, slot) -> ir.Stmt:
    C_region, A_region, B_region = call.operand("C"), call.operand("A"), call.operand("B")
    SFA, SFB = call.operand("SFA"), call.operand("SFB")
    group = call.option("cta_group", 1)
    if group not in (1, 2):
        raise NoMatch(f"cta_group={group!r}: one CTA (1) or a CTA pair (2)")
    if not isinstance(A_region, ir.TileRegion) or not isinstance(B_region, ir.TileRegion):
        raise NoMatch("A and B must be buffer regions")
    if regions.memory(A_region) == "tmem":
        raise NoMatch("A in tensor memory is not supported yet")
    enable = scale_d(call.operand("accum"))
    if enable is None:
        raise NoMatch("accum is not a bool or an integer value")
    a, b = _ptx_type(A_region.buffer.dtype, "A"), _ptx_type(B_region.buffer.dtype, "B")
    d = {"float32": "f32", "int32": "s32", "float16": "f16"}.get(C_region.buffer.dtype.name)
    if d is None:
        raise NoMatch(f"tcgen05 does not accumulate in {C_region.buffer.dtype.name}")
    scaled = SFA is not None or SFB is not None
    if scaled:
        if not isinstance(SFA, ir.TileRegion) or not isinstance(SFB, ir.TileRegion):
            raise NoMatch("block scaling takes both SFA and SFB, as tensor-memory regions")
        if regions.memory(SFA) != "tmem" or regions.memory(SFB) != "tmem":
            raise NoMatch("SFA and SFB must be in tensor memory")
        sf = _ptx_type(SFA.buffer.dtype, "scale factors")
        kind = next((k for k, ab, sfs in desc._SCALED_KINDS if a in ab and b in ab and sf in sfs), None)
        if kind is None:
            raise NoMatch(f"no block-scaled tcgen05 kind multiplies {a} by {b} with {sf} scale factors")
    else:
        kind = next((k for k, ds, ab in desc._KINDS if d in ds and a in ab and b in ab), None)
        if kind is None:
            raise NoMatch(f"no tcgen05 kind multiplies {a} by {b} into {d}")
    A = shared_operand("A", A_region, bool(call.operand("transA")))
    B = shared_operand("B", B_region, bool(call.operand("transB")))
    extents = regions.const_extents(C_region)
    dims = [e for e in (extents or []) if e != 1]
    if extents is None or len(dims) != 2:
        raise NoMatch("C is not a constant 2-D region")
    M, N = dims
    K = A.cols
    if A.rows != M or B.cols != K or B.rows * group != N:
        raise NoMatch(f"C is {M} x {N}, A {A.rows} x {A.cols} and B {B.rows} x {B.cols}: tcgen05 wants A (M, K) "
                      f"and B (N{' / 2' if group == 2 else ''}, K)")
    if M != 128:
        raise NoMatch(f"M = {M}: tirxc issues tcgen05 with 128 rows per CTA (64 is not supported yet)")
    mma_m = M * group
    mma_k = desc._K[kind][0]
    if K % mma_k:
        raise NoMatch(f"K = {K} is not a multiple of {mma_k} (kind::{kind})")
    steps = next(s for kinds, g, s, _ in desc._SHAPES if kind in kinds and g == group)
    step = steps.get(mma_m)
    mma_n = max((n for n in range(step, 257, step) if N % n == 0), default=None) if step else None
    if mma_n is None:
        raise NoMatch(f"N = {N} is not a multiple of {step} (tcgen05 M = {mma_m})")
    d_addr = _tmem_address(C_region, slot, rows=M, cols=N, name="C")
    idesc = _instr_descriptor(call, kind, a, b, d, mma_m, mma_n, SFA if scaled else None)
    mnemonic = f"tcgen05.mma.cta_group::{group}.kind::{kind}" + (_SCALED_MNEMONIC[kind] if scaled else "")
    names = ["d_tmem", "a_desc", "b_desc", "idesc"] + (["scale_a_tmem", "scale_b_tmem"] if scaled else []) + \
        ["enable_input_d"]
    forms = ptx.forms(mnemonic)
    if not isinstance(forms, list):
        raise NoMatch(f"no tcgen05 form `{mnemonic}`")
    instr = next(f for f in forms if [op.name for op in f.operands] == names)
    body = []
    sf_step = None
    if scaled:
        sf_cols = regions.const_extents(SFA)
        sf_step = sf_cols[-1] // (K // mma_k) if sf_cols else None
        if not sf_step:
            raise NoMatch("SFA has fewer scale-factor columns than K steps")
    for ni in range(N // mma_n):
        d_tile = ir.add(d_addr, ir.IntImm(UINT32, ni * mma_n))
        for ki in range(K // mma_k):
            args = [d_tile, tcgen05_descriptor(A, 0, ki * mma_k),
                    tcgen05_descriptor(B, ni * mma_n // group, ki * mma_k), idesc]
            if scaled:
                args[3] = _scale_factor_id(idesc, ki * sf_step % (per_column(SFA.buffer.dtype) or 1))
                args += [_tmem_address(SFA, slot, col=ki * sf_step, name="SFA"),
                         _tmem_address(SFB, slot, col=ki * sf_step, name="SFB")]
            args.append(enable if ki == 0 else ir.IntImm(UINT32, 1))
            body.append(ir.Evaluate(ir.Call(VOID, instr.helper, tuple(args))))
    return ir.Seq(tuple(body))


def _scale_factor_id(idesc: ir.Expr, byte: int) -> ir.Expr:
    """The descriptor with the scale factors' byte within their 32-bit columns (A: bits 29-30,
    B: bits 4-5), for K steps whose scale factors share a column."""
    bits = byte << 29 | byte << 4
    if isinstance(idesc, ir.IntImm):
        return ir.IntImm(UINT32, (idesc.value & ~0x60000030 & 0xFFFFFFFF) | bits)
    return ir.binop("|", ir.binop("&", idesc, ir.IntImm(UINT32, ~0x60000030 & 0xFFFFFFFF)), ir.IntImm(UINT32, bits))


def _instr_descriptor(call, kind, a, b, d, m, n, sfa) -> ir.Expr:
    given = call.option("descI")
    if given is not None:
        if sfa is None:
            raise NoMatch("descI= is for block-scaled products; a dense tcgen05 encodes its own")
        if isinstance(given, int):
            return ir.IntImm(UINT32, given & 0xFFFFFFFF)
        if isinstance(given, ir.Expr) and given.dtype.is_int:
            return given if given.dtype == UINT32 else ir.cast(UINT32, given)
        raise NoMatch("descI= is a 32-bit instruction descriptor (an integer)")
    value = desc._FORMAT[a] << 7 | desc._FORMAT[b] << 10 | (n >> 3) << 17 | (m >> 4) << 24
    if sfa is None:
        value |= desc._FORMAT[d] << 4
    else:
        sf = desc._BY_NAME[sfa.buffer.dtype.name]
        value |= desc._SCALE_FORMAT[sf] << 23
    return ir.IntImm(UINT32, value)


def _tmem_address(region: ir.TileRegion, slot, rows: int | None = None, cols: int | None = None, col: int = 0,
                  name: str = "") -> ir.Expr:
    """The 32-bit tensor-memory address of element (start row, start column + col): the slot's
    base, the lane in the high half, the column in the low; for C, checks that the region is the
    identity datapath (row r on lane start + r, column j on column start + j)."""
    buf = region.buffer
    if buf.layout is None or not all(isinstance(s, ir.IntImm) for s in region.starts):
        raise NoMatch(f"{name} has no tensor-memory layout or its region start is not constant")
    dims = [d for d, e in enumerate(region.extents) if not (isinstance(e, ir.IntImm) and e.value == 1)]

    def at(i: int, j: int) -> tuple[ir.Expr, ir.Expr]:
        coords = [s.value for s in region.starts]
        if len(dims) == 2:
            coords[dims[0]] += i
            coords[dims[1]] += j
        axes = layouts.apply(buf.layout, [ir.IntImm(INT32, v) for v in coords], list(buf.shape))
        return layouts.linear_index(axes.get("TLane", [])), layouts.linear_index(axes.get("TCol", []))

    lane, index = at(0, col)
    if rows is not None:
        for i, j in ((1, 0), (rows - 1, 0), (0, 1), (0, cols - 1), (rows - 1, cols - 1)):
            other = at(i, j)
            if not (ir.is_const(other[0]) and ir.is_const(lane) and ir.is_const(other[1]) and ir.is_const(index)) \
                    or (other[0].value - lane.value, other[1].value - index.value) != (i, j):
                raise NoMatch(f"{name}'s tensor-memory layout does not put row r on lane r and column j on column j "
                              f"(tcgen05's M = 128 datapath)")
    offset = ir.add(ir.binop("<<", lane, ir.IntImm(INT32, 16)), column(index, buf.dtype, buf.allocated_addr))
    base = ir.BufferLoad(UINT32, slot, (ir.IntImm(INT32, 0),))
    return ir.add(base, ir.cast(UINT32, offset))
