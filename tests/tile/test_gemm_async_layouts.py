"""`Tx.gemm_async` with MN-major and unswizzled shared operands (transpiler/tile/gemm_async/shared_operands.py):
wgmma (sm_90a) and tcgen05 (sm_100a, compile only).

The value check runs on the CPU: the generated calls' matrix descriptors (start, LBO, SBO, layout
type) and transpose flags are read back and fed to a model of the tensor core written here from
the PTX ISA's canonical layouts (CuTe-style shapes and strides, independent of tirxc's), which
fetches each instruction's A and B tiles from a shared memory filled by evaluating the buffers'
TIRx layouts; the model's product must be A @ B^T, over a sweep of majors, swizzles, shapes and
dtypes (properties). The refusals and the instructions of single cases are case files:
tests/tile/cases/gemm_async/. The GPU checks are in tests/gpu/test_tile_gemm_async_layouts.py."""
from __future__ import annotations

import re
from math import prod

import numpy as np
import pytest

from tests.conftest import has_nvcc
from tests.nvcc_batch import compile_many
from tests.tile import gemm_kernels as gk
from tests.tile.test_gemm import _compile, _top_level
from transpiler.sema.library.tma_utils import shared_layout

EB = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3fn": 1, "int8": 1}
PER_ELEMENT = {1: 4, 2: 3, 4: 2}
IMPORTS = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid, wid_in_wg, TLane, TCol, tmem_datapath_layout
from tvm.tirx.cuda.tile_primitive.tma_utils import mma_shared_layout, SwizzleMode
'''


# -- operand layouts: the .tx text and, for the model, (extents, strides, swizzle) -------------------------

class Operand:
    """A shared operand: its buffer shape, layout text and the layout as integers."""

    def __init__(self, shape, text, extents, strides, swizzle, offset=0):
        self.shape, self.text, self.extents, self.strides, self.swizzle = tuple(shape), text, extents, strides, swizzle
        self.offset = offset
        self.start = (0,) * len(shape)  # where the operand's region starts in the buffer

    def element(self, coords) -> int:
        """TIRx's layout: flatten row-major, split over the shard, sum digit x stride, swizzle."""
        flat = 0
        for x, x0, e in zip(coords, self.start, self.shape):
            flat = flat * e + x + x0
        m = self.offset
        for e, s in zip(reversed(self.extents), reversed(self.strides)):
            m += (flat % e) * s
            flat //= e
        if self.swizzle is None:
            return m
        per_element, length, atom, _ = self.swizzle
        unit = m >> per_element
        unit ^= (unit >> atom) & ((1 << length) - 1)
        return (unit << per_element) | (m & ((1 << per_element) - 1))


def mma(dtype: str, mode: int, shape) -> Operand:
    """`mma_shared_layout(dtype, mode, shape)`."""
    layout = shared_layout(EB[dtype] * 8, mode, list(shape))
    return Operand(shape, f'mma_shared_layout("{dtype}", {mode}, {tuple(shape)})',
                   [it.extent.value for it in layout.shard], [it.stride.value for it in layout.shard], layout.swizzle)


def swizzled_columns(dtype: str, mode: int, rows: int, cols: int) -> Operand:
    """(rows, cols) with the rows contiguous (column-major), swizzled: an MN-major A or B that is
    not transposed (TIRx's `_mn_major_layout` for one atom of columns)."""
    pe = PER_ELEMENT[EB[dtype]]
    return Operand((rows, cols), f"ComposeLayout({pe}, {mode}, 3, S[({rows}, {cols}) : (1, {rows})])",
                   [rows, cols], [1, rows], (pe, mode, 3, True))


# -- kernels -----------------------------------------------------------------------------------------------

def _fill(name: str, op: Operand, rows: int, K: int, trans: bool, threads: int = 128) -> str:
    idx = "k, r" if trans else "r, k"
    return (f"    for i in range({rows * K // threads}):\n"
            f"        r: T.let = (i * {threads} + tid) // {K}\n"
            f"        k: T.let = (i * {threads} + tid) % {K}\n"
            f"        {name}s[{idx}] = {name}[r, k]\n")


def wgmma_kernel(M, N, K, A: Operand, B: Operand, tA=False, tB=False, dtype="float16") -> str:
    """C (M, N) = A (M, K) @ B (N, K)^T by one Tx.wg.gemm_async over shared tiles As, Bs of the
    given layouts (transposed: (K, M) / (K, N)), filled by plain stores."""
    lc = gk.wgmma_acc_layout(M, N)
    rc = gk.nregs(lc)
    return IMPORTS + f'''
@T.prim_func
def wgmma_gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, IC_ptr: T.handle):
    A = T.match_buffer(A_ptr, ({M}, {K}), "{dtype}")
    B = T.match_buffer(B_ptr, ({N}, {K}), "{dtype}")
    C = T.match_buffer(C_ptr, ({M * N},), "float32")
    IC = T.match_buffer(IC_ptr, (128, {rc}), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    As = T.alloc_buffer({A.shape}, "{dtype}", scope="shared", align=1024, layout={A.text})
    Bs = T.alloc_buffer({B.shape}, "{dtype}", scope="shared", align=1024, layout={B.text})
{_fill("A", A, M, K, tA)}{_fill("B", B, N, K, tB)}    acc = T.alloc_buffer(({M}, {N}), "float32", scope="local",
                         layout={gk.layout_text(lc)})
    c = acc.local({rc})
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    Tx.wg.gemm_async(acc, As, Bs, transA={tA}, transB={tB}, accum=False)
    T.ptx.wgmma.commit_group.sync.aligned()
    T.ptx.wgmma.wait_group.sync.aligned(0)
    for r in T.unroll({rc}):
        C[IC[tid, r]] = c[r]
'''


def tcgen05_kernel(M, N, K, A: Operand, B: Operand, tA=False, tB=False, dtype="float16") -> str:
    """C (M, N) in tensor memory = A @ B^T by one thread's Tx.gemm_async (compile only)."""
    c_layout = "TileLayout(S[(128, 512) : (1 @ TLane, 1 @ TCol)])" if M == 128 else \
        'tmem_datapath_layout("F", 64, 512)'
    return IMPORTS + f'''
@T.prim_func
def tc_gemm(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, ({M}, {K}), "{dtype}")
    B = T.match_buffer(B_ptr, ({N}, {K}), "{dtype}")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    As = T.alloc_buffer({A.shape}, "{dtype}", scope="shared", align=1024, layout={A.text})
    Bs = T.alloc_buffer({B.shape}, "{dtype}", scope="shared", align=1024, layout={B.text})
    tmem_addr = T.alloc_shared([1], "uint32")
    mbar = T.alloc_shared([1], "uint64")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
    tmem = T.decl_buffer(({M}, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout={c_layout})
{_fill("A", A, M, K, tA)}{_fill("B", B, N, K, tB)}    if tid == 0:
        Tx.gemm_async(tmem[0:{M}, 0:{N}], As, Bs, transA={tA}, transB={tB}, accum=False)
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(mbar.ptr_to([0]))
'''


# -- the tensor-core model ---------------------------------------------------------------------------------

def _canonical(major: str, mode: int, T: int, lbo: int, sbo: int):
    """The PTX canonical layout in elements, CuTe-style ((MN modes), (K modes)) : (strides);
    T = elements in 16 bytes, lbo / sbo in elements."""
    if major == "K":
        row = {0: T, 1: 2 * T, 2: 4 * T, 3: 8 * T}[mode]
        k_stride = lbo if mode == 0 else T
        return ((8, None), (T, None)), ((row, sbo), (1, k_stride))
    if mode == 0:
        return ((T, 1, None), (8, None)), ((1, T, sbo), (T, lbo))
    n = 1 << mode
    return ((T, n, None), (8, None)), ((1, T, lbo), (n * T, sbo))


def _cute(coord: int, shape, stride) -> int:
    """A coordinate split colexicographically over a mode (the last extent unbounded)."""
    out = 0
    for i, (e, s) in enumerate(zip(shape, stride)):
        if e is None or i == len(shape) - 1:
            out += coord * s
            break
        out += (coord % e) * s
        coord //= e
    return out


def _fetch(mem, eb, desc, major, rows, cols):
    """The (rows, cols) tile a descriptor (start element, lbo, sbo, mode) names."""
    start, lbo, sbo, mode = desc
    T = 16 // eb
    (mn_shape, k_shape), (mn_stride, k_stride) = _canonical(major, mode, T, lbo * T, sbo * T)
    out = np.empty((rows, cols))
    for r in range(rows):
        for k in range(cols):
            byte = start * eb + (_cute(r, mn_shape, mn_stride) + _cute(k, k_shape, k_stride)) * eb
            if mode:
                byte ^= ((byte >> 7) & ((1 << mode) - 1)) << 4
            out[r, k] = mem[byte // eb]
    return out


def _memory(op: Operand, logical: np.ndarray, trans: bool) -> np.ndarray:
    """The shared buffer as stored: each element of the (rows, K) matrix where the layout puts it."""
    mem = np.full(prod(op.shape) * 2, np.nan)
    rows, K = logical.shape
    for r in range(rows):
        for k in range(K):
            mem[op.element((k, r) if trans else (r, k))] = logical[r, k]
    return mem


_DESC = re.compile(r"tirx_cuda_(?:wgmma|tcgen05)_make_desc\(&(As|Bs)_ptr\[(\d+)\], (\d+), (\d+), (\d+)\)")


def _descs(call: str):
    found = _DESC.findall(call)
    assert [f[0] for f in found] == ["As", "Bs"], call
    return [tuple(int(x) for x in f[1:]) for f in found]


def simulate_wgmma(cuda: str, M, N, K, A: Operand, B: Operand, tA, tB, eb=2):
    rng = np.random.default_rng(7)
    a, b = rng.integers(-4, 5, (M, K)).astype(float), rng.integers(-4, 5, (N, K)).astype(float)
    mem_a, mem_b = _memory(A, a, tA), _memory(B, b, tB)
    calls = re.findall(r"tirx_ptx_wgmma_mma_async_sync_aligned_m64n(\d+)k(\d+)_\w+"
                       r"<(\d+), (\d+), (\d+), (\d+)>\((.*)\);", cuda)
    n, k = int(calls[0][0]), int(calls[0][1])
    assert len(calls) == (M // 64) * (N // n) * (K // k)
    C = np.zeros((M, N))
    it = iter(calls)
    for mi in range(M // 64):
        for ni in range(N // n):
            for ki in range(K // k):
                *_, ta, tb, args = next(it)
                da, db = _descs(args)
                ma, mb = ("MN" if ta == "1" else "K"), ("MN" if tb == "1" else "K")
                C[mi * 64:(mi + 1) * 64, ni * n:(ni + 1) * n] += _fetch(mem_a, eb, da, ma, 64, k) @ \
                    _fetch(mem_b, eb, db, mb, n, k).T
    np.testing.assert_array_equal(C, a @ b.T)
    return calls


def simulate_tcgen05(cuda: str, M, N, K, A: Operand, B: Operand, tA, tB, eb=2):
    rng = np.random.default_rng(8)
    a, b = rng.integers(-4, 5, (M, K)).astype(float), rng.integers(-4, 5, (N, K)).astype(float)
    mem_a, mem_b = _memory(A, a, tA), _memory(B, b, tB)
    calls = re.findall(r"tirx_ptx_tcgen05_mma_cta_group__1_kind__f16_v1\((.*)\);", cuda)
    C = np.zeros((M, N))
    for call in calls:
        d, _, _, idesc, _ = _top_level(call)
        idesc = int(idesc.rstrip("u"))
        col = re.search(r"\+ (\d+)u", d)
        n0 = int(col.group(1)) if col else 0
        m_inst, n_inst = (idesc >> 24 & 31) << 4, (idesc >> 17 & 63) << 3
        da, db = _descs(call)
        ma, mb = ("MN" if idesc >> 15 & 1 else "K"), ("MN" if idesc >> 16 & 1 else "K")
        C[:m_inst, n0:n0 + n_inst] += _fetch(mem_a, eb, da, ma, m_inst, 16) @ _fetch(mem_b, eb, db, mb, n_inst, 16).T
    assert len(calls) == (N // n_inst) * (K // 16)
    np.testing.assert_array_equal(C, a @ b.T)
    return calls


# -- wgmma -------------------------------------------------------------------------------------------------

def _wg_cases(dtype="float16"):
    return {
        # name: M, N, K, A, B, transA, transB, (tnspA, tnspB), (A lbo, sbo, mode), (B lbo, sbo, mode)
        "b_mn_128B": (64, 128, 64, mma(dtype, 3, (64, 64)), mma(dtype, 3, (64, 128)), False, True, (0, 1),
                      (1, 64, 3), (512, 64, 3)),
        "a_mn_128B": (64, 64, 64, mma(dtype, 3, (64, 64)), mma(dtype, 3, (64, 64)), True, False, (1, 0),
                      (1, 64, 3), (1, 64, 3)),
        "ab_mn_m128": (128, 64, 64, mma(dtype, 3, (64, 128)), mma(dtype, 3, (64, 64)), True, True, (1, 1),
                       (512, 64, 3), (1, 64, 3)),
        "a_mn_64B": (64, 64, 32, mma(dtype, 2, (32, 64)), mma(dtype, 2, (64, 32)), True, False, (1, 0),
                     (128, 32, 2), (1, 32, 2)),
        "a_mn_untransposed": (64, 64, 64, swizzled_columns(dtype, 3, 64, 64), mma(dtype, 3, (64, 64)), False, False,
                              (1, 0), (1, 64, 3), (1, 64, 3)),
        "k_major_two_atoms_of_k": (64, 64, 128, mma(dtype, 3, (64, 128)), mma(dtype, 3, (64, 128)), False, False,
                                   (0, 0), (1, 64, 3), (1, 64, 3)),
        "none_k_major": (64, 128, 64, mma(dtype, 0, (64, 64)), mma(dtype, 0, (128, 64)), False, False, (0, 0),
                         (64, 8, 0), (128, 8, 0)),
        "none_mn_major": (64, 128, 64, mma(dtype, 0, (64, 64)), mma(dtype, 0, (64, 128)), True, True, (1, 1),
                          (8, 64, 0), (8, 64, 0)),
        "none_n256": (64, 256, 64, mma(dtype, 0, (64, 64)), mma(dtype, 0, (256, 64)), False, False, (0, 0),
                      (64, 8, 0), (256, 8, 0)),
        "none_m128_k96": (128, 64, 96, mma(dtype, 0, (128, 96)), mma(dtype, 0, (64, 96)), False, False, (0, 0),
                           (128, 8, 0), (64, 8, 0)),
    }


WGMMA = {**_wg_cases(),
         **{f"bf16_{k}": v for k, v in _wg_cases("bfloat16").items() if k in ("b_mn_128B", "none_k_major")}}


def _wg_text(name):
    M, N, K, A, B, tA, tB, *_ = WGMMA[name]
    return wgmma_kernel(M, N, K, A, B, tA, tB, "bfloat16" if name.startswith("bf16") else "float16")


@pytest.mark.parametrize("name", WGMMA)
def test_property_wgmma_reads_every_element_where_the_layout_put_it(name):
    M, N, K, A, B, tA, tB, tnsp, a_desc, b_desc = WGMMA[name]
    result = _compile(_wg_text(name))
    assert result.ok, [str(d.message) for d in result.diagnostics]
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "wgmma"
    calls = simulate_wgmma(result.cuda, M, N, K, A, B, tA, tB)
    assert {(int(c[2]), int(c[3]), int(c[4]), int(c[5])) for c in calls} == {(1, 1, *tnsp)}
    first = _descs(calls[0][6])
    assert (first[0][1:], first[1][1:]) == (a_desc, b_desc)


def test_property_model_catches_a_wrong_descriptor():
    """The CPU model is not vacuous: the same kernel with B's LBO halved does not multiply."""
    M, N, K, A, B, tA, tB, *_ = WGMMA["b_mn_128B"]
    cuda = _compile(_wg_text("b_mn_128B")).cuda
    with pytest.raises(AssertionError):
        simulate_wgmma(cuda.replace("[0], 512, 64, 3)", "[0], 256, 64, 3)"), M, N, K, A, B, tA, tB)
    with pytest.raises(AssertionError):
        simulate_wgmma(cuda.replace("<1, 1, 0, 1>", "<1, 1, 0, 0>"), M, N, K, A, B, tA, tB)


# -- tcgen05 (compile only) --------------------------------------------------------------------------------

TCGEN05 = {
    # name: M, N, K, A, B, transA, transB, dtype
    "a_mn_128B": (128, 128, 64, mma("float16", 3, (64, 128)), mma("float16", 3, (128, 64)), True, False, "float16"),
    "b_mn_64B_bf16": (128, 64, 32, mma("bfloat16", 2, (128, 32)), mma("bfloat16", 2, (32, 64)), False, True,
                      "bfloat16"),
    "none_k_major": (128, 128, 64, mma("float16", 0, (128, 64)), mma("float16", 0, (128, 64)), False, False,
                     "float16"),
    "none_mn_major_m64": (64, 64, 64, mma("float16", 0, (64, 64)), mma("float16", 0, (64, 64)), True, True,
                          "float16"),
}


def _tc_text(name):
    M, N, K, A, B, tA, tB, dtype = TCGEN05[name]
    return tcgen05_kernel(M, N, K, A, B, tA, tB, dtype)


@pytest.mark.parametrize("name", TCGEN05)
def test_property_tcgen05_reads_every_element_where_the_layout_put_it(name):
    M, N, K, A, B, tA, tB, dtype = TCGEN05[name]
    result = _compile(_tc_text(name), arch="sm_100a")
    assert result.ok, [str(d.message) for d in result.diagnostics]
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "tcgen05"
    calls = simulate_tcgen05(result.cuda, M, N, K, A, B, tA, tB)
    idesc = int(_top_level(calls[0])[3].rstrip("u"))
    assert (idesc >> 15 & 1, idesc >> 16 & 1) == (int(tA), int(tB))


# -- nvcc ----------------------------------------------------------------------------------------------------

NVCC_NAMES = ("wg_b_mn_128B", "wg_none_mn_major", "wg_bf16_none_k_major", "tc_a_mn_128B", "tc_none_k_major")


def _nvcc_arch(name: str) -> str:
    return "sm_90a" if name.startswith("wg_") else "sm_100a"


@pytest.fixture(scope="module")
def nvcc_results():
    """{name: (its transpile Result, (return code, nvcc output) or None when it did not transpile)}:
    the kernels of an architecture by as few nvcc runs as their includes allow (tests/nvcc_batch.py)."""
    results = {}
    for name in NVCC_NAMES:
        kind, case = name.split("_", 1)
        results[name] = _compile(_wg_text(case), arch=None) if kind == "wg" else _compile(_tc_text(case),
                                                                                           arch=_nvcc_arch(name))
    compiled = {}
    for arch in ("sm_90a", "sm_100a"):
        compiled.update(compile_many({n: r.cuda for n, r in results.items() if r.ok and _nvcc_arch(n) == arch},
                                     (f"-arch={arch}", "-std=c++17", "-Werror", "all-warnings")))
    return {name: (results[name], compiled.get(name)) for name in NVCC_NAMES}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", NVCC_NAMES)
def test_property_kernels_compile_warning_free(name, nvcc_results):
    result, compiled = nvcc_results[name]
    assert result.ok, [str(d.message) for d in result.diagnostics]
    code, output = compiled
    assert code == 0, output


# -- A in registers, B MN-major -----------------------------------------------------------------------------

def registers_a_mn_major_b() -> str:
    """tests/tile/gemm_kernels.py's register-A wgmma kernel (M = N = K = 64, C += A @ B^T) with B
    (N, K) stored N-contiguous: an MN-major B that is not transposed (wgmma's tnspB). The GPU test
    runs it; its instructions are stated by
    tests/tile/cases/gemm_async/wgmma_register_a_with_mn_major_b_sets_tnsp_b.tx."""
    text = gk.wgmma_kernel(64, 64, 64, accum=True, a_in_registers=True)
    old = 'layout=ComposeLayout(3, 3, 3, S[(64, 64)]))'
    assert text.count(old) == 1
    return text.replace(old, 'layout=ComposeLayout(3, 3, 3, S[(64, 64) : (1, 64)]))')


def test_property_wgmma_k_slice_inside_the_swizzle_atom():
    """A and B as columns 32 .. 63 of 64-wide K-major 128-byte swizzled buffers: each K step's
    descriptor starts 64 + 32 k bytes into the atom row, and the hardware's address swizzle still
    finds every element."""
    A, B = mma("float16", 3, (64, 64)), mma("float16", 3, (64, 64))
    text = wgmma_kernel(64, 64, 32, A, B).replace("Tx.wg.gemm_async(acc, As, Bs,",
                                                   "Tx.wg.gemm_async(acc, As[:, 32:64], Bs[:, 32:64],")
    text = text.replace("range(16)", "range(32)").replace("// 32", "// 64").replace("% 32", "% 64")
    text = text.replace("(64, 32), \"float16\")", "(64, 64), \"float16\")")
    result = _compile(text)
    assert result.ok, [str(d.message) for d in result.diagnostics]
    A.start = B.start = (0, 32)
    calls = simulate_wgmma(result.cuda, 64, 64, 32, A, B, False, False)
    assert [_descs(c[6])[0][0] for c in calls] == [32, 48]
