"""`gemm_async` on Blackwell: the `tcgen05` variant (docs/tile-primitives.md, gemm_async; TIRx:
tile_primitives/gemm_async.rst, backend gemm_async/tcgen05.py). Compiled only here: tirxc's test
machines have no sm_100 GPU.

C (M, N) in tensor memory [+]= A (M, K) @ B (N, K)^T (`transA` / `transB`: the region is (K, M) /
(K, N)), A and B shared tiles named by matrix descriptors (shared_operands.py: K- or MN-major, swizzled
or not; MN-major for kind::f16, the instruction descriptor's transpose bits 15 / 16), issued by
one thread (thread scope) or by one elected lane (warp scope). M is 128 (datapath D) or 64 rows
(datapath F, C declared with `tmem_datapath_layout("F", 64, N)`). `cta_group=2` multiplies over a
CTA pair: each CTA holds its 128 (datapath A) or 64 rows (datapath B) of A and C and half of B's
rows (N / 2), and the instruction's M is 256 or 128 (datapath.py). The instruction descriptor is
folded at compile time from the dtypes and the shape (`descI=` passes a pre-encoded one for the
block-scaled kinds, as in TIRx). With SFA / SFB (scale factors in tensor memory) the call is the
block-scaled MMA; each K step reads the scale-factor columns of its K slice. Like TIRx, the
lowering emits no completion: `tcgen05.commit` and the mbarrier wait are the caller's."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir.tmem import column
from transpiler.target import ptx, tcgen05 as isa
from transpiler.target.tcgen05 import per_column
from transpiler.target.dtypes import INT32, UINT32, VOID
from transpiler.tile import regions
from transpiler.tile.gemm_async.datapath import DESCRIBE, a_tmem_datapath, datapath_of, expected, matrix_view, sample_points
from transpiler.tile.gemm.fragments import NoMatch
from transpiler.tile.gemm_async.shared_operands import SharedOperand, prove, shared_operand, tcgen05_descriptor
from transpiler.tile.gemm_async.wgmma import scale_d
from transpiler.tile.registry import Decline, check

_SCALED_MNEMONIC = {"mxf8f6f4": ".block_scale", "mxf4": ".block_scale.block32", "mxf4nvf4": ".block_scale.block16"}
_SF_PER_MMA = {"mxf8f6f4": 1, "mxf4": 2, "mxf4nvf4": 4}  # scale factors of a row one MMA reads: K / block


@check("C is in tensor memory")
def accumulator_in_tmem(call, cx):
    C = call.operand("C")
    if not isinstance(C, ir.TileRegion) or regions.memory(C) != "tmem":
        where = regions.memory(C) if isinstance(C, ir.TileRegion) else "not a buffer"
        return f"C is in {where} memory; tcgen05 accumulates in tensor memory"
    if cx.call.threads.tmem_slot is None:
        return "no `tcgen05.alloc` precedes the call, so C has no tensor-memory address"
    return None


def tcgen05(call: ir.TileCall, cx) -> ir.Stmt:
    """One tcgen05.mma per (N tile, K step), by one thread (an elected lane at warp scope)."""
    try:
        body = _lower(call, cx, cx.call.threads.tmem_slot)
    except NoMatch as e:
        raise Decline(e.reason)
    if call.scope == "warp":
        return ir.If(ir.Call(UINT32, "tirx_elect_sync", ()), body, None)
    return body


def _ptx_type(dtype, what) -> str:
    found = isa.PTX_TYPE.get(dtype.name)
    if found is None:
        raise NoMatch(f"tcgen05 has no {dtype.name} {what}")
    return found


def _lower(call: ir.TileCall, cx, slot) -> ir.Stmt:
    C_region, A_region, B_region = call.operand("C"), call.operand("A"), call.operand("B")
    SFA, SFB = call.operand("SFA"), call.operand("SFB")
    group = call.option("cta_group", 1)
    if group not in (1, 2):
        raise NoMatch(f"cta_group={group!r}: one CTA (1) or a CTA pair (2)")
    if not isinstance(A_region, ir.TileRegion) or not isinstance(B_region, ir.TileRegion):
        raise NoMatch("A and B must be buffer regions")
    a_in_tmem = regions.memory(A_region) == "tmem"
    enable = scale_d(call.operand("accum"))
    if enable is None:
        raise NoMatch("accum is not a bool or an integer value")
    for name, region in (("A", A_region), ("B", B_region)):
        if region.buffer.dtype.bits < 8:  # tirxc's storage of them is not what the tensor cores read
            raise NoMatch(f"{name} is {region.buffer.dtype.name}: tirxc stores 4- and 6-bit elements one to a byte, "
                          "and the tensor cores read them packed (kind::mxf4) or in a padded byte layout "
                          "(kind::f8f6f4) that tirxc does not produce: not supported yet")
    a, b = _ptx_type(A_region.buffer.dtype, "A"), _ptx_type(B_region.buffer.dtype, "B")
    d = isa.PTX_TYPE.get(C_region.buffer.dtype.name)
    if d not in isa.D_TYPES:
        raise NoMatch(f"tcgen05 does not accumulate in {C_region.buffer.dtype.name}")
    scaled = SFA is not None or SFB is not None
    if scaled:
        if not isinstance(SFA, ir.TileRegion) or not isinstance(SFB, ir.TileRegion):
            raise NoMatch("block scaling takes both SFA and SFB, as tensor-memory regions")
        if regions.memory(SFA) != "tmem" or regions.memory(SFB) != "tmem":
            raise NoMatch("SFA and SFB must be in tensor memory")
        sf = _ptx_type(SFA.buffer.dtype, "scale factors")
        kind = next((k for k, ab, sfs in isa.SCALED_KINDS if a in ab and b in ab and sf in sfs), None)
        if kind is None:
            raise NoMatch(f"no block-scaled tcgen05 kind multiplies {a} by {b} with {sf} scale factors")
    else:
        kind = next((k for k, ds, ab in isa.KINDS if d in ds and a in ab and b in ab), None)
        if kind is None:
            raise NoMatch(f"no tcgen05 kind multiplies {a} by {b} into {d}")
    B = shared_operand(cx, "B", B_region, bool(call.operand("transB")))
    C_view = matrix_view(C_region, "C")
    M, N = C_view.rows, C_view.cols
    ws = _weight_stationary(call, C_view, group)
    if a_in_tmem:
        if bool(call.operand("transA")):
            raise NoMatch("A in tensor memory is K-major (rows on lanes); transA is not supported with it")
        A_view = matrix_view(A_region, "A")
        A = None
        a_rows, K = A_view.rows, A_view.cols
    else:
        A = shared_operand(cx, "A", A_region, bool(call.operand("transA")))
        a_rows, K = A.rows, A.cols
    if a_rows != M or B.cols != K or B.rows * group != N:
        raise NoMatch(f"C is {M} x {N}, A {a_rows} x {K} and B {B.rows} x {B.cols}: tcgen05 wants A (M, K) "
                      f"and B (N{' / 2' if group == 2 else ''}, K)")
    if M not in (64, 128):
        raise NoMatch(f"M = {M}: tcgen05 has 128 or 64 rows per CTA (several M tiles are not supported yet)")
    if ws and (group != 1 or M != 64 or scaled):
        raise NoMatch("`.ws` (weight-stationary) is supported for M = 64 on one CTA, unscaled (datapath E); "
                      f"M = {M}{', cta_group=2' if group == 2 else ''}{', block-scaled' if scaled else ''} "
                      "is not supported yet")
    if C_view.batched and not ws:
        raise NoMatch("a batched C (2, M, N / 2) is the `.ws` datapath E; weight_stationary=False contradicts it")
    mma_m = M * group
    mma_k = isa.K[kind][0]
    if K % mma_k:
        raise NoMatch(f"K = {K} is not a multiple of {mma_k} (kind::{kind})")
    steps = next(s for kinds, g, s, _ in isa.SHAPES if kind in kinds and g == group)
    step = steps.get(mma_m)
    mma_n = max((n for n in range(step, 257, step) if N % n == 0), default=None) if step else None
    if mma_n is None:
        raise NoMatch(f"N = {N} is not a multiple of {step} (tcgen05 M = {mma_m})")
    given_m, given_n = (_int_option(call, name) for name in ("mma_m", "mma_n"))
    if given_m is not None and given_m != mma_m:
        raise NoMatch(f"mma_m={given_m!r}: the MMA's M is {mma_m} here ({M} rows per CTA"
                      f"{', a CTA pair' if group == 2 else ''})")
    if given_n is not None:  # a narrower instruction tile, as TIRx's `mma_n=` asks
        if not (isinstance(given_n, int) and 0 < given_n <= 256 and given_n % step == 0 and N % given_n == 0):
            raise NoMatch(f"mma_n={given_n!r}: an MMA of M = {mma_m} is a multiple of {step} columns, at most 256, "
                          f"and must divide N = {N}")
        mma_n = given_n
    datapath = "E" if ws else datapath_of(M, group)
    if datapath in ("B", "E") and mma_n != N:
        raise NoMatch(f"N = {N} needs {N // mma_n} MMAs; datapath {datapath} ("
                      f"{'M = 64 per CTA of a pair' if datapath == 'B' else '`.ws` M = 64'}) folds the whole N onto "
                      f"two lane halves, so tirxc issues it as one MMA (N at most 256)")
    if ws and mma_n not in (64, 128, 256):
        raise NoMatch(f"N = {N}: a `.ws` MMA is 64, 128 or 256 wide")
    for op, rows in ((A, M), (B, mma_n // group)):
        if op is not None:
            _majorness(op, kind)
            prove(op, rows, mma_k)
    d_addr = _tmem_address(C_view, slot, check=datapath, name="C")
    if a_in_tmem:
        a_datapath = a_tmem_datapath(A_view, M, group, ws)
        _tmem_address(A_view, slot, check=a_datapath, name="A")  # A's layout (raises if not the datapath)
    idesc = _instr_descriptor(call, kind, a, b, d, mma_m, mma_n, SFA if scaled else None)
    if isinstance(idesc, ir.IntImm) and call.option("descI") is None:
        idesc = ir.IntImm(UINT32, idesc.value | int(A is not None and A.mn_major) << 15 | int(B.mn_major) << 16)
    mnemonic = f"tcgen05.mma{'.ws' if ws else ''}.cta_group::{group}.kind::{kind}" + \
        (_SCALED_MNEMONIC[kind] if scaled else "")
    names = ["d_tmem", "a_tmem" if a_in_tmem else "a_desc", "b_desc", "idesc"] + \
        (["scale_a_tmem", "scale_b_tmem"] if scaled else []) + ["enable_input_d"]
    forms = ptx.forms(mnemonic)
    if not isinstance(forms, list):
        raise NoMatch(f"no tcgen05 form `{mnemonic}`")
    instr = cx.instruction(next(f for f in forms if [op.name for op in f.operands] == names))
    body = []
    sf_step = None
    if scaled:
        sf_cols = regions.const_extents(SFA)
        sf_step = sf_cols[-1] // (K // mma_k) if sf_cols else None
        if sf_cols and sf_cols[-1] == _SF_PER_MMA[kind]:
            sf_step = 0  # one MMA's scale factors, which every K step reuses (as TIRx reads SF_K = sf_per_mma)
        if sf_step is None or (sf_step == 0 and sf_cols[-1] != _SF_PER_MMA[kind]):
            raise NoMatch(f"SFA has {sf_cols[-1] if sf_cols else 'no'} scale-factor columns: a K step reads "
                          f"{_SF_PER_MMA[kind]}, so it needs {_SF_PER_MMA[kind]} (reused by every K step) or one "
                          f"set per K step ({K // mma_k} steps)")
    for ni in range(N // mma_n):
        d_tile = ir.add(d_addr, ir.IntImm(UINT32, ni * mma_n))
        for ki in range(K // mma_k):
            a_arg = _tmem_address(A_view, slot, col=ki * mma_k, name="A") if a_in_tmem else \
                tcgen05_descriptor(A, 0, ki * mma_k)
            args = [d_tile, a_arg,
                    tcgen05_descriptor(B, ni * mma_n // group, ki * mma_k), idesc]
            if scaled:
                args[3] = _scale_factor_id(idesc, ki * sf_step % (per_column(SFA.buffer.dtype) or 1))
                args += [_tmem_address(matrix_view(SFA, "SFA"), slot, col=ki * sf_step, name="SFA"),
                         _tmem_address(matrix_view(SFB, "SFB"), slot, col=ki * sf_step, name="SFB")]
            args.append(enable if ki == 0 else ir.IntImm(UINT32, 1))
            body.append(ir.Evaluate(ir.Call(VOID, instr.helper, tuple(args))))
    return ir.Seq(tuple(body))


def _int_option(call: ir.TileCall, name: str):
    value = call.option(name)
    return value.value if isinstance(value, ir.IntImm) else value


def _majorness(op: SharedOperand, kind: str) -> None:
    """MN-major operands: kind::f16 only here (bits 15 / 16 of the instruction descriptor)."""
    if not op.mn_major or kind == "f16":
        return
    dtype = op.region.buffer.dtype.name
    raise NoMatch(f"{op.name} is MN-major in shared memory: MN-major {dtype} operands (kind::{kind}) are not "
                  "supported yet; lay it out K-major")


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
    if sfa is None:
        value = isa.instr_descriptor(isa.FORMAT[a], isa.FORMAT[b], m, n, d_format=isa.FORMAT[d])
    else:
        scale = isa.SCALE_FORMAT[isa.PTX_TYPE[sfa.buffer.dtype.name]]
        value = isa.instr_descriptor(isa.FORMAT[a], isa.FORMAT[b], m, n, scale_format=scale)
    return ir.IntImm(UINT32, value)


def _weight_stationary(call, C_view, group: int) -> bool:
    """`.ws`: `weight_stationary=True`, or without it (as in TIRx) a C in datapath E: batched
    (2, M, N / 2), or (M, N) with the column halves folded onto lanes 64 apart."""
    given = call.option("weight_stationary")
    if isinstance(given, ir.IntImm):
        given = bool(given.value)
    if given is not None and not isinstance(given, bool):
        raise NoMatch("weight_stationary= is True or False")
    if given is not None:
        return given
    if C_view.batched:
        return True
    first = C_view.place(0, 0)
    if group != 1 or C_view.rows != 64 or C_view.cols % 2 or first is None:
        return False
    for i, j in sample_points(C_view.rows, C_view.cols):  # a packed (M, 2, N / 2) C: datapath E, only `.ws` writes it
        got = C_view.place(i, j)
        if got is None or (got[0] - first[0], got[1] - first[1]) != expected("E", C_view.rows, C_view.cols, i, j):
            return False
    return True


def _tmem_address(view, slot, col: int = 0, name: str = "", check: str | None = None) -> ir.Expr:
    """The 32-bit tensor-memory address of element (0, col) of a matrix view (datapath.py):
    the slot's base, the lane in the high half, the column in the low; with `check`, first that the
    view's layout is that datapath, relative to its first element."""
    place = view.place
    first = place(0, col)
    if first is None:
        raise NoMatch(f"{name} has no tensor-memory layout or its region start is not constant")
    lane, index = first
    if check is not None:
        for i, j in sample_points(view.rows, view.cols):
            other = place(i, j)
            if other is None or (other[0] - lane, other[1] - index) != expected(check, view.rows, view.cols, i, j):
                raise NoMatch(f"{name}'s tensor-memory layout is not {DESCRIBE[check]}")
        for i, j, dlane in view.copies:  # a batched A's second half: the same element 64 lanes down
            other = view.place_copy(i, j)
            if other is None or (other[0] - lane, other[1] - index) != (dlane, j):
                raise NoMatch(f"{name}'s tensor-memory layout is not {DESCRIBE[check]}")
    buf = view.region.buffer
    offset = ir.add(ir.IntImm(INT32, lane << 16), column(ir.IntImm(INT32, index), buf.dtype, buf.allocated_addr))
    base = ir.BufferLoad(UINT32, slot, (ir.IntImm(INT32, 0),))
    return ir.add(base, ir.cast(UINT32, offset))
