"""The CUDA snippets of the TIRx documentation's "Buffers and memory" chapter
("the seed" below) as targeted assertions, each from a small inline `.tx`
source. Where docs/design.md differs from the seed (natural alignment of
register arrays, decision 12; `const` on read-only parameters, decision 8) the
test follows docs/design.md and says so.
"""
from __future__ import annotations

import re
import textwrap

import pytest

from tests.conftest import transpile

HEADER = "from tvm.script import tirx as T\nfrom tvm.tirx.layout import TileLayout, S\n\n"


def compile_ok(body: str, prelude: str = ""):
    """Compile a kernel written indented in a test; `prelude` is module-level text (unindented)."""
    result = transpile(HEADER + prelude + textwrap.dedent(body))
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    return result


def cuda(body: str, prelude: str = "") -> str:
    return compile_ok(body, prelude).cuda


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def kernel_text(cu: str, symbol: str) -> str:
    """The body of one kernel (signature line through the closing brace)."""
    start = cu.index(f"{symbol}(")
    end = cu.index("\n}\n", start)
    return cu[start:end + 2]


def one_thread_kernel(name: str, decl: str, stmt: str, extra_params: str = "", dtype: str = "float32") -> str:
    return f"""
    @T.prim_func
    def {name}(A_ptr: T.handle, B_ptr: T.handle{extra_params}):
        A = T.match_buffer(A_ptr, (4, 8), "{dtype}")
        {decl}
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([1])
        for i in range(4):
            for j in range(8):
                {stmt}
    """


# ---- "Declaring buffers": one access, four index computations ---------------------------------------

FOUR_B = [
    ("row_major", 'B = T.match_buffer(B_ptr, (4, 8), "float32")', "B_ptr[((i * 8) + j)]"),
    ("col_major", 'B = T.match_buffer(B_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8):(1, 4)]))',
     "B_ptr[((j * 4) + i)]"),
    ("elem_offset", 'B = T.match_buffer(B_ptr, (4, 8), "float32", elem_offset=64)', "B_ptr[(((i * 8) + j) + 64)]"),
    ("stride16", 'B = T.match_buffer(B_ptr, (4, 8), "float32", layout=TileLayout(S[(4, 8):(16, 1)]))',
     "B_ptr[((i * 16) + j)]"),
]


@pytest.mark.parametrize("name, decl, index", FOUR_B, ids=[x[0] for x in FOUR_B])
def test_four_declarations_of_B(name, decl, index):
    cu = cuda(one_thread_kernel(name, decl, "B[i, j] = A[i, j] + T.float32(1)"))
    # only B's metadata changes the address; A's load stays i * 8 + j
    assert f"{index} = A_ptr[((i * 8) + j)] + 1.0f;" in lines(cu)


def test_four_declarations_differ_only_in_the_index_of_B():
    bodies = []
    for name, decl, index in FOUR_B:
        body = kernel_text(cuda(one_thread_kernel("k", decl, "B[i, j] = A[i, j] + T.float32(1)")), "k_kernel")
        bodies.append(body.replace(index, "<B>"))
    assert len(set(bodies)) == 1, bodies


# ---- Static shared memory ---------------------------------------------------------------------------

SMEM_DEMO = """
@T.prim_func
def smem_demo(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    sm = T.alloc_shared((128,), "float32")   # static shared memory
    sm[tx] = A[tx]
    T.cuda.cta_sync()
    B[tx] = sm[tx] * T.float32(2.0)
"""


def test_smem_demo_is_the_seed_kernel():
    cu = cuda(SMEM_DEMO)
    # The seed's kernel, except `const` on the read-only A (docs/design.md, decision 8,
    # spells the parameters; read-only buffers are deliberately `const`).
    expected = textwrap.dedent("""\
        extern "C" __global__ void __launch_bounds__(128)
        smem_demo_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
          int tx = ((int)threadIdx.x);
          __shared__ alignas(64) float sm_ptr[128];
          sm_ptr[tx] = A_ptr[tx];
          __syncthreads();
          B_ptr[tx] = sm_ptr[tx] * 2.0f;
        }
        """)
    assert expected in cu
    # bx is never read: no dead declaration for it (nvcc -Werror would reject it)
    assert "blockIdx" not in cu


def test_smem_demo_launch_spec():
    spec = compile_ok(SMEM_DEMO).program.kernels[0].spec
    assert spec.symbol == "smem_demo_kernel"
    assert spec.launch_bounds == 128
    assert spec.static_shared_bytes == 512
    assert spec.dynamic_shared_bytes == 0


def test_launch_bounds_for_a_single_thread():
    """docs/design.md, decision 8: the constant block size, whatever it is (blocks are always
    constant: the checker rejects a symbolic T.thread_id extent)."""
    cu = cuda("""
    @T.prim_func
    def one(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (1,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([1])
        A[0] = T.float32(1)
    """)
    assert 'extern "C" __global__ void __launch_bounds__(1)\none_kernel(float* __restrict__ A_ptr) {' in cu


# ---- Dynamic shared memory: one arena, views at offsets -----------------------------------------------

DYN = """
@T.prim_func
def dyn(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    C = T.match_buffer(C_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    arena = T.alloc_buffer((128,), "float32", scope="shared.dyn")
    As = T.decl_buffer((64,), "float32", data=arena.data, scope="shared.dyn")
    Bs = T.decl_buffer((64,), "float32", data=arena.data, elem_offset=64, scope="shared.dyn")
    As[tx] = A[tx]
    Bs[tx] = B[tx]
    T.cuda.cta_sync()
    C[tx] = As[tx] + Bs[tx]
"""


def test_dynamic_arena_is_one_extern_array_and_views_are_offsets():
    result = compile_ok(DYN)
    cu = result.cuda
    externs = re.findall(r"extern __shared__ .*;", cu)
    assert externs == ["extern __shared__ __align__(64) float arena_ptr[];"]
    body = lines(kernel_text(cu, "dyn_kernel"))
    assert body[1:] == [
        "extern __shared__ __align__(64) float arena_ptr[];",
        "int tx = ((int)threadIdx.x);",
        "arena_ptr[tx] = A_ptr[tx];",            # As: the view at offset 0
        "arena_ptr[(tx + 64)] = B_ptr[tx];",     # Bs: the view at offset 64
        "__syncthreads();",
        "C_ptr[tx] = arena_ptr[tx] + arena_ptr[(tx + 64)];",
        "}",
    ]
    assert "__shared__ alignas" not in cu  # no static copy of the views
    spec = result.program.kernels[0].spec
    assert spec.dynamic_shared_bytes == 512  # 128 floats, the seed's host launch argument
    assert spec.static_shared_bytes == 0


def test_two_dynamic_arenas_are_an_error():
    source = DYN.replace(
        'As = T.decl_buffer((64,), "float32", data=arena.data, scope="shared.dyn")',
        'As = T.alloc_buffer((64,), "float32", scope="shared.dyn")')
    result = transpile(HEADER + source)
    assert not result.ok


def test_arena_views_of_other_dtypes_are_typed_pointers():
    cu = cuda("""
    @T.prim_func
    def mixed(A_ptr: T.handle, H_ptr: T.handle, C_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        H = T.match_buffer(H_ptr, (64,), "float16")
        C = T.match_buffer(C_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        arena = T.alloc_buffer((512,), "uint8", scope="shared.dyn")
        As = T.decl_buffer((64,), "float32", data=arena.data, scope="shared.dyn")
        Hs = T.decl_buffer((64,), "float16", data=arena.data, byte_offset=256, scope="shared.dyn", align=128)
        As[tx] = A[tx]
        Hs[tx] = H[tx]
        T.cuda.cta_sync()
        C[tx] = As[tx] + T.cast(Hs[tx], "float32")
    """)
    body = lines(cu)
    assert body.count("extern __shared__ __align__(128) unsigned char arena_ptr[];") == 1  # the largest align
    assert "float* As_ptr = (float*)arena_ptr;" in body
    assert "half* Hs_ptr = (half*)(arena_ptr + 256);" in body  # the view's pointer starts at its byte offset
    assert "Hs_ptr[tx] = H_ptr[tx];" in body
    assert "C_ptr[tx] = As_ptr[tx] + ((float)Hs_ptr[tx]);" in body


# ---- Registers ---------------------------------------------------------------------------------------------

REGISTERS = """
@T.prim_func
def regs(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 4), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    r = T.alloc_local((4,), "float32"{align})
    for k in T.unroll(4):
        r[k] = A[tx, k]
    B[tx] = (r[0] + r[1]) + (r[2] + r[3])
"""


def test_register_array_with_unroll():
    body = lines(cuda(REGISTERS.format(align="")))
    # docs/design.md, decision 12: natural alignment for local arrays (the seed's alignas(64) is its known wart)
    assert "float r_ptr[4];" in body
    start = body.index("r_ptr[0] = A_ptr[(tx * 4)];")
    assert body[start:start + 5] == [
        "r_ptr[0] = A_ptr[(tx * 4)];",
        "r_ptr[1] = A_ptr[((tx * 4) + 1)];",
        "r_ptr[2] = A_ptr[((tx * 4) + 2)];",
        "r_ptr[3] = A_ptr[((tx * 4) + 3)];",
        "B_ptr[tx] = (r_ptr[0] + r_ptr[1]) + (r_ptr[2] + r_ptr[3]);",
    ]
    assert "for" not in "\n".join(body)  # fully expanded


def test_register_array_keeps_an_explicit_alignment():
    assert "alignas(64) float r_ptr[4];" in lines(cuda(REGISTERS.format(align=", align=64")))


def test_register_array_read_as_a_vector():
    cu = cuda("""
    @T.prim_func
    def vec_regs(A_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (256,), "float32", align=16)
        B = T.match_buffer(B_ptr, (256,), "float32", align=16)
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        r = T.alloc_local((4,), "float32", align=16)
        r.vstore([0], A.vload([tx * 4], dtype="float32x4"))
        B.vstore([tx * 4], r.vload([0], dtype="float32x4"))
    """)
    body = lines(cu)
    assert "alignas(16) float r_ptr[4];" in body  # float4 access needs 16 bytes
    assert "*(float4*)r_ptr = *(const float4*)(A_ptr + (tx * 4));" in body
    assert "*(float4*)(B_ptr + (tx * 4)) = *(float4*)r_ptr;" in body


def test_unrolled_let_gets_a_block_per_iteration():
    cu = cuda("""
    @T.prim_func
    def blocks(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        for k in T.unroll(2):
            t: T.let = tx * 2 + k
            A[t] = T.float32(1)
    """)
    body = lines(kernel_text(cu, "blocks_kernel"))
    assert body[2:-1] == ["{", "int t = tx * 2;", "A_ptr[t] = 1.0f;", "}",
                          "{", "int t = (tx * 2) + 1;", "A_ptr[t] = 1.0f;", "}"]


# ---- Scalars: three spellings, one lowering ------------------------------------------------------------

SCALAR_EXPLICIT = """
@T.prim_func
def scal(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 4), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    acc = T.alloc_local((1,), "float32")
    acc[0] = T.float32(0.0)
    phase = T.alloc_local((1,), "int32")
    phase[0] = 0
    while phase[0] < 4:
        acc[0] = acc[0] + A[tx, phase[0]]
        phase[0] += 1
    B[tx] = acc[0]
"""

SCALAR_SUGAR = """
@T.prim_func
def scal(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 4), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    acc: T.float32 = 0.0
    phase: T.int32 = 0
    while phase < 4:
        acc = acc + A[tx, phase]
        phase += 1
    B[tx] = acc
"""

SCALAR_LOCAL_SCALAR = """
@T.prim_func
def scal(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 4), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    acc = T.local_scalar("float32")
    acc = T.float32(0.0)
    phase = T.local_scalar("int32")
    phase = 0
    while phase < 4:
        acc = acc + A[tx, phase]
        phase += 1
    B[tx] = acc
"""


def test_scalar_is_a_one_element_array():
    body = lines(cuda(SCALAR_SUGAR))
    assert "int phase_ptr[1];" in body
    assert "phase_ptr[0] = 0;" in body
    assert "while (phase_ptr[0] < 4) {" in body
    assert "acc_ptr[0] = acc_ptr[0] + A_ptr[((tx * 4) + phase_ptr[0])];" in body
    assert "phase_ptr[0] = phase_ptr[0] + 1;" in body
    assert "B_ptr[tx] = acc_ptr[0];" in body
    assert not any("alignas" in line for line in body)  # decision 12 (docs/design.md), not the seed's alignas(64)


@pytest.mark.parametrize("other", [SCALAR_SUGAR, SCALAR_LOCAL_SCALAR], ids=["sugar", "local_scalar"])
def test_scalar_spellings_give_identical_cuda(other):
    assert cuda(other) == cuda(SCALAR_EXPLICIT)


# ---- let ---------------------------------------------------------------------------------------------------

def test_let_on_a_runtime_value_is_a_plain_c_local():
    cu = cuda("""
    @T.prim_func
    def lets(A_ptr: T.handle, m: T.int32):
        A = T.match_buffer(A_ptr, (64,), "int32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        half: T.let = m * 2
        twice: T.let[T.int32] = m * 2
        A[tx] = half + twice
    """)
    body = lines(cu)
    # `half` is a CUDA type name (cuda_fp16.h), so the C local is `half_`
    assert any(re.fullmatch(r"int half_? = m \* 2;", line) for line in body), body
    assert "int twice = m * 2;" in body
    assert not any("half_ptr" in line or "twice_ptr" in line for line in body)  # not a buffer


def test_let_of_a_constant_is_folded_away():
    cu = cuda("""
    @T.prim_func
    def lets(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        n: T.let = 4 * 8
        half: T.let[T.int32] = 64 // 2
        A[tx] = A[(tx + half) % 64] * T.float32(n)
    """)
    body = lines(kernel_text(cu, "lets_kernel"))
    assert body[1:] == ["int tx = ((int)threadIdx.x);", "A_ptr[tx] = A_ptr[((tx + 32) % 64)] * 32.0f;", "}"]


# ---- Buffer API: ptr_to / data, vload / vstore, view / permute ------------------------------------------

PTR_SOURCES = '''
SRC = r"""
__device__ __forceinline__ float ld(const float* p) { return *p; }
"""

SRC_AT = r"""
__device__ __forceinline__ float ld_at(const float* base, int i) { return base[i]; }
"""
'''


def test_ptr_to_and_data():
    cu = cuda("""
    @T.prim_func
    def ptrs(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        B = T.match_buffer(B_ptr, (64,), "float32")
        C = T.match_buffer(C_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        B[tx] = T.cuda.func_call("ld", A.ptr_to([tx]), source_code=SRC, return_type="float32")
        C[tx] = T.cuda.func_call("ld_at", A.data, 63 - tx, source_code=SRC_AT, return_type="float32")
    """, prelude=PTR_SOURCES)
    body = lines(cu)
    assert "B_ptr[tx] = ld(&A_ptr[tx]);" in body
    assert "C_ptr[tx] = ld_at(A_ptr, 63 - tx);" in body


def test_vload_vstore():
    cu = cuda("""
    @T.prim_func
    def vec(A_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (256,), "float32", align=16)
        B = T.match_buffer(B_ptr, (256,), "float32", align=16)
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        B.vstore([tx * 4], A.vload([tx * 4], dtype="float32x4"))
    """)
    # the seed prints `*(float4*)(A_ptr + ...)`; A is read-only, so `const float*` (design.md, decision 8), and
    # the vector cast keeps the const instead of casting it away
    assert "*(float4*)(B_ptr + (tx * 4)) = *(const float4*)(A_ptr + (tx * 4));" in lines(cu)


def test_vector_reads_keep_const_only_for_read_only_parameters():
    cu = cuda("""
    @T.prim_func
    def vec(A_ptr: T.handle, H_ptr: T.handle, W_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (256,), "float32", align=16)
        H = T.match_buffer(H_ptr, (128,), "float16", align=16)
        W = T.match_buffer(W_ptr, (256,), "float32", align=16)
        B = T.match_buffer(B_ptr, (256,), "float32", align=16)
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        Ts = T.alloc_shared((256,), "float32", align=16)
        h = T.alloc_local((2,), "float16", align=4)
        Ts.vstore([tx * 4], A.vload([tx * 4], dtype="float32x4"))
        h.vstore([0], H.vload([tx * 2], dtype="float16x2"))
        T.cuda.cta_sync()
        W.vstore([tx * 4], W.vload([(tx + 1) % 64 * 4], dtype="float32x4"))
        B.vstore([tx * 4], Ts.vload([(63 - tx) * 4], dtype="float32x4"))
        B[tx] = T.cast(h[1], "float32")
    """)
    body = lines(cu)
    assert ("vec_kernel(const float* __restrict__ A_ptr, const half* __restrict__ H_ptr, "
            "float* __restrict__ W_ptr, float* __restrict__ B_ptr) {") in body
    assert "*(float4*)(Ts_ptr + (tx * 4)) = *(const float4*)(A_ptr + (tx * 4));" in body
    assert "*(half2*)h_ptr = *(const half2*)(H_ptr + (tx * 2));" in body
    # W is written, so its pointer is not const; shared and local arrays never are
    assert "*(float4*)(W_ptr + (tx * 4)) = *(float4*)(W_ptr + (((tx + 1) % 64) * 4));" in body
    assert "*(float4*)(B_ptr + (tx * 4)) = *(float4*)(Ts_ptr + ((63 - tx) * 4));" in body


def test_view_and_permute():
    cu = cuda("""
    @T.prim_func
    def views(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        A = T.match_buffer(A_ptr, (256,), "float32")
        B = T.match_buffer(B_ptr, (64,), "float32")
        C = T.match_buffer(C_ptr, (4, 64), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        A2 = A.view(64, 4)
        B[tx] = A2[tx, 0] + A2[tx, 3]
        At = A2.permute(1, 0)
        for i in range(4):
            C[i, tx] = At[i, tx]
    """)
    body = lines(cu)
    assert "B_ptr[tx] = A_ptr[(tx * 4)] + A_ptr[((tx * 4) + 3)];" in body  # A2[tx, j] -> tx * 4 + j
    assert "C_ptr[((i * 64) + tx)] = A_ptr[((tx * 4) + i)];" in body     # At[i, j] -> j * 4 + i


def test_view_of_a_two_dimensional_buffer():
    cu = cuda("""
    @T.prim_func
    def reshape(A_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (8, 32), "float32")
        B = T.match_buffer(B_ptr, (256,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        A4 = A.view(4, 64)
        B[tx] = A4[3, tx]
    """)
    assert "B_ptr[tx] = A_ptr[(tx + 192)];" in lines(cu)


# ---- T.cuda.func_call -----------------------------------------------------------------------------------

RELU = '''
SRC = r"""
__device__ __forceinline__ float my_relu(float x) { return x > 0.f ? x : 0.f; }
"""

@T.prim_func
def relu_a(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    B[tx] = T.cuda.func_call("my_relu", A[tx], source_code=SRC, return_type="float32")

@T.prim_func
def relu_b(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    B[tx] = T.cuda.func_call("my_relu", A[tx], source_code=SRC, return_type="float32") + \\
        T.cuda.func_call("my_relu", -A[tx], source_code=SRC, return_type="float32")
'''


def test_func_call_source_is_pasted_once_verbatim():
    cu = cuda(RELU)
    definition = "__device__ __forceinline__ float my_relu(float x) { return x > 0.f ? x : 0.f; }"
    assert cu.count(definition) == 1
    assert cu.index(definition) < cu.index("relu_a_kernel(")  # declared before use
    body = lines(cu)
    assert "B_ptr[tx] = my_relu(A_ptr[tx]);" in body
    assert "B_ptr[tx] = my_relu(A_ptr[tx]) + my_relu(-A_ptr[tx]);" in body


# ---- floor division (docs/design.md, decision 7) ---------------------------------------------------------

DIVISION = """
@T.prim_func
def division(A_ptr: T.handle, m: T.int32):
    A = T.match_buffer(A_ptr, (256,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([256])
    A[tx] = {expr}
"""


@pytest.mark.parametrize("expr, text", [
    ("tx // 3", "tx / 3"),                      # both provably non-negative: plain C
    ("tx % 3", "tx % 3"),
    ("(tx * 4 + 1) // 3", "((tx * 4) + 1) / 3"),
    ("tx // 8", "tx / 8"),                      # non-negative wins over the shift
    ("(tx - 128) // 8", "(tx - 128) >> 3"),     # possibly negative, power of two: exact shift
    ("(tx - 128) % 8", "(tx - 128) & 7"),
    ("m // 4", "m >> 2"),
    ("m % 64", "m & 63"),
    ("(tx - 128) // 3", "tirx_floordiv(tx - 128, 3)"),  # otherwise the helper
    ("(tx - 128) % 3", "tirx_floormod(tx - 128, 3)"),
    ("tx // m", "tirx_floordiv(tx, m)"),        # the divisor's sign is unknown
    ("tx % m", "tirx_floormod(tx, m)"),
    ("m // -4", "tirx_floordiv(m, -4)"),        # a negative power of two is not a shift
])
def test_floor_division(expr, text):
    cu = cuda(DIVISION.format(expr=expr))
    assert f"A_ptr[tx] = {text};" in lines(cu)
    # the helpers are pasted only when called
    for helper in ("tirx_floordiv", "tirx_floormod"):
        assert (f"__device__ __forceinline__ T {helper}(" in cu) == (f"{helper}(" in text)


def test_floor_division_helpers_pasted_once():
    cu = cuda(DIVISION.format(expr="(tx // m) + (m // tx) + (tx % m)"))
    assert cu.count("__device__ __forceinline__ T tirx_floordiv(T a, T b)") == 1
    assert cu.count("__device__ __forceinline__ T tirx_floormod(T a, T b)") == 1


def test_true_division_of_integers_is_an_error():
    result = transpile(HEADER + textwrap.dedent(DIVISION.format(expr="tx / 3")))
    assert not result.ok
    assert "//" in " ".join(d.message + " " + str(getattr(d, "help", "")) for d in result.diagnostics)


# ---- literals (docs/design.md, decision 11) --------------------------------------------------------------

LITERALS = """
@T.prim_func
def lits(F_ptr: T.handle, D_ptr: T.handle, H_ptr: T.handle, U_ptr: T.handle):
    F = T.match_buffer(F_ptr, (64,), "float32")
    D = T.match_buffer(D_ptr, (64,), "float64")
    H = T.match_buffer(H_ptr, (64,), "float16")
    U = T.match_buffer(U_ptr, (64,), "uint32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    {stmt}
"""


@pytest.mark.parametrize("stmt, line", [
    ("F[tx] = F[tx] * T.float32(2.0)", "F_ptr[tx] = F_ptr[tx] * 2.0f;"),
    ("F[tx] = F[tx] * T.float32(0.1)", "F_ptr[tx] = F_ptr[tx] * 0.1f;"),
    ("F[tx] = F[tx] + T.float32(1e-30)", "F_ptr[tx] = F_ptr[tx] + 1.0e-30f;"),
    ("F[tx] = F[tx] - T.float32(-2.5)", "F_ptr[tx] = F_ptr[tx] - (-2.5f);"),
    ("F[tx] = T.float32(16777217)", "F_ptr[tx] = 16777216.0f;"),  # the float32 value, not the source text
    ("F[tx] = T.float32(3.4028234663852886e38)", "F_ptr[tx] = 3.4028235e38f;"),  # FLT_MAX
    ("F[tx] = T.float32(1.0) / T.float32(3.0)", "F_ptr[tx] = 0.33333334f;"),  # folded in float32
    ("D[tx] = D[tx] * T.float64(2.0)", "D_ptr[tx] = D_ptr[tx] * 2.0;"),
    ("D[tx] = T.float64(0.1)", "D_ptr[tx] = 0.1;"),
    ("D[tx] = T.float64(1.0) / T.float64(3.0)", "D_ptr[tx] = 0.3333333333333333;"),
    ("H[tx] = H[tx] * T.float16(2.0)", "H_ptr[tx] = H_ptr[tx] * ((half)2.0f);"),
    ("H[tx] = T.float16(0.1)", "H_ptr[tx] = ((half)0.1f);"),
    ("F[tx] = T.float32('inf')", "F_ptr[tx] = CUDART_INF_F;"),
    ("F[tx] = T.float32('-inf')", "F_ptr[tx] = -CUDART_INF_F;"),
    ("F[tx] = T.float32('nan')", "F_ptr[tx] = CUDART_NAN_F;"),
    ("D[tx] = T.float64('inf')", "D_ptr[tx] = CUDART_INF;"),
    ("D[tx] = T.float64('nan')", "D_ptr[tx] = CUDART_NAN;"),
    ("F[tx] = F[tx] * T.float32('inf')", "F_ptr[tx] = F_ptr[tx] * CUDART_INF_F;"),
    ("F[tx] = F[tx] + T.float32('-inf')", "F_ptr[tx] = F_ptr[tx] + (-CUDART_INF_F);"),
    ("F[tx] = T.float32(1e39)", "F_ptr[tx] = CUDART_INF_F;"),  # overflows float32, as in C
    ("H[tx] = T.float16('inf')", "H_ptr[tx] = ((half)CUDART_INF_F);"),
    ("U[tx] = U[tx] & T.uint32(0xFFFF0000)", "U_ptr[tx] = U_ptr[tx] & 0xffff0000u;"),
    ("U[tx] = U[tx] ^ T.uint32(0xFFFFFFFF)", "U_ptr[tx] = U_ptr[tx] ^ 0xffffffffu;"),
    ("U[tx] = U[tx] | T.uint32(7)", "U_ptr[tx] = U_ptr[tx] | 7u;"),
    ("U[tx] = U[tx] + T.uint32(100000)", "U_ptr[tx] = U_ptr[tx] + 100000u;"),
])
def test_literal(stmt, line):
    cu = cuda(LITERALS.format(stmt=stmt))
    assert line in lines(cu)
    uses_constants = "CUDART_" in line
    assert ("#include <math_constants.h>" in cu) == uses_constants


# ---- includes (docs/design.md, decision 21) ----------------------------------------------------------------

def test_no_headers_for_a_float_kernel():
    cu = cuda(SMEM_DEMO)
    assert "#include" not in cu
    assert "cuda/std" not in cu


def test_fp16_header_only_when_half_is_used():
    cu = cuda("""
    @T.prim_func
    def halves(H_ptr: T.handle, F_ptr: T.handle):
        H = T.match_buffer(H_ptr, (64,), "float16")
        F = T.match_buffer(F_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        F[tx] = T.cast(H[tx], "float32")
    """)
    assert [line for line in cu.splitlines() if line.startswith("#include")] == ["#include <cuda_fp16.h>"]
    assert "F_ptr[tx] = (float)H_ptr[tx];" in lines(cu)


def test_bf16_header():
    cu = cuda("""
    @T.prim_func
    def bhalves(H_ptr: T.handle, F_ptr: T.handle):
        H = T.match_buffer(H_ptr, (64,), "bfloat16")
        F = T.match_buffer(F_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        F[tx] = T.cast(H[tx], "float32")
    """)
    assert [line for line in cu.splitlines() if line.startswith("#include")] == ["#include <cuda_bf16.h>"]
    assert "const nv_bfloat16* __restrict__ H_ptr" in cu


# ---- parameters --------------------------------------------------------------------------------------------

def test_parameters_buffers_then_scalars_then_extents():
    cu = cuda("""
    @T.prim_func
    def saxpy(a: T.float32, x_ptr: T.handle, y_ptr: T.handle):
        n = T.int32()
        x = T.match_buffer(x_ptr, (n,), "float32")
        y = T.match_buffer(y_ptr, (n,), "float32")
        T.device_entry()
        bx = T.cta_id([T.ceildiv(n, 256)])
        tx = T.thread_id([256])
        i: T.let = bx * 256 + tx
        if i < n:
            y[i] = a * x[i] + y[i]
    """)
    assert ("saxpy_kernel(const float* __restrict__ x_ptr, float* __restrict__ y_ptr, float a, int n) {"
            in cu.splitlines())
    assert "y_ptr[i] = (a * x_ptr[i]) + y_ptr[i];" in lines(cu)


def test_buffer_annotation_parameters_are_named_after_the_buffer():
    cu = cuda("""
    @T.prim_func
    def ann(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        B[tx] = A[tx]
    """)
    assert "ann_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {" in cu


def test_printf_includes_cstdio_for_nvcc_only():
    cu = cuda("""
    @T.prim_func
    def show(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        T.cuda.printf("tx=%d v=%f\\n", tx, A[tx])
    """)
    assert "#ifndef __CUDACC_RTC__\n#include <cstdio>\n#endif\n" in cu  # NVRTC has printf built in
    assert 'printf("tx=%d v=%f\\n", tx, A_ptr[tx]);' in lines(cu)


def test_reinterpret_of_an_expression_compiles_to_an_intrinsic():
    cu = cuda("""
    @T.prim_func
    def bits(A_ptr: T.handle, U_ptr: T.handle):
        A = T.match_buffer(A_ptr, (64,), "float32")
        U = T.match_buffer(U_ptr, (64,), "uint32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        U[tx] = T.reinterpret("uint32", A[tx] * T.float32(2))
    """)
    assert "U_ptr[tx] = __float_as_uint(A_ptr[tx] * 2.0f);" in lines(cu)
