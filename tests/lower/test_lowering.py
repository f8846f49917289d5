"""lower.py: C names, dead declarations, loop forms, non-negativity facts,
read-only parameters and the LaunchSpec, through small inline kernels."""
from __future__ import annotations

import textwrap

from tests.conftest import transpile
from transpiler import ir
from transpiler.ir.walk import all_stmts

HEADER = "from tvm.script import tirx as T\n\n"


def compile_ok(body: str):
    result = transpile(HEADER + textwrap.dedent(body))
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    return result


def kernel_lines(body: str) -> list[str]:
    cu = compile_ok(body).cuda
    start = cu.index("_kernel(")
    return [line.strip() for line in cu[start:].splitlines()[1:-1]]


def kernel(body_lines: str, params: str = "A_ptr: T.handle", threads: int = 64, buffers: str = None) -> str:
    buffers = buffers if buffers is not None else 'A = T.match_buffer(A_ptr, (64,), "int32")'
    return (f"@T.prim_func\ndef k({params}):\n    {buffers}\n    T.device_entry()\n    bx = T.cta_id([1])\n"
            f"    tx = T.thread_id([{threads}])\n" + textwrap.indent(textwrap.dedent(body_lines), "    "))


# ---- C names ------------------------------------------------------------------------------------------------

def test_sibling_loops_keep_the_source_name():
    body = kernel_lines(kernel("""
        s: T.int32 = 0
        for k in range(4):
            s += k
        for k in range(8):
            s += k * 2
        A[tx] = s
    """))
    assert "for (int k = 0; k < 4; ++k) {" in body
    assert "for (int k = 0; k < 8; ++k) {" in body
    assert not any("k_1" in line for line in body)


def test_nested_loop_of_the_same_name_stays_distinct():
    result = transpile(HEADER + kernel("""
        s: T.int32 = 0
        for k in range(4):
            for k2 in range(4):
                s += k * k2
        for k in range(2):
            s += k
        A[tx] = s
    """))
    assert result.ok
    body = result.cuda
    assert body.count("for (int k = 0;") == 2


def test_a_visible_name_blocks_the_reuse():
    body = kernel_lines(kernel("""
        s: T.int32 = 0
        for i in range(4):
            s += i
        k: T.let = tx * 3
        for i in range(2):
            for j in range(2):
                s += i + j + k
        A[tx] = s
    """))
    assert "int k = tx * 3;" in body
    assert "for (int i = 0; i < 2; ++i) {" in body  # the first `i` has gone out of scope


def test_lets_in_sibling_loops_share_the_name():
    body = kernel_lines(kernel("""
        for i in range(2):
            j: T.let = tx + i
            A[j] = i
        for i in range(2):
            j: T.let = tx * 2 + i
            A[j] = i
    """))
    assert body.count("int j = tx + i;") == 1
    assert body.count("int j = (tx * 2) + i;") == 1
    assert not any("_1" in line for line in body)


def test_a_user_name_with_a_numeric_suffix_is_kept():
    body = kernel_lines(kernel("""
        s: T.int32 = 0
        for k_1 in range(4):
            s += k_1
        A[tx] = s
    """))
    assert "for (int k_1 = 0; k_1 < 4; ++k_1) {" in body


def test_reserved_c_words_are_suffixed_once():
    body = kernel_lines(kernel("""
        for half in range(2):
            A[tx + half] = 1
        for half in range(2):
            A[tx + half] = 2
    """))
    assert body.count("for (int half_ = 0; half_ < 2; ++half_) {") == 2


# ---- dead declarations --------------------------------------------------------------------------------

def test_unused_ids_lets_and_arrays_are_dropped():
    body = kernel_lines(kernel("""
        a: T.let = tx * 3
        b: T.let = a + 1
        r = T.alloc_local((4,), "int32")
        r[0] = tx
        s: T.int32 = tx
        s = s + 1
        for k in range(4):
            t: T.let = k * 2
        A[tx] = 7
    """))
    assert body == ["int tx = ((int)threadIdx.x);", "A_ptr[tx] = 7;"]


def test_while_loops_are_kept_even_when_empty():
    body = kernel_lines(kernel("""
        i: T.int32 = 0
        while i < tx:
            i += 1
        A[tx] = 1
    """))
    # i is only read by its own loop: the store is dead, the loop's condition is not
    assert any(line.startswith("while (") for line in body)


def test_compile_time_if_emits_the_taken_branch_only():
    body = kernel_lines(kernel("""
        if 64 % 2 == 0:
            A[tx] = 1
        else:
            A[tx] = 2
        if False:
            A[tx] = 3
    """))
    assert body == ["int tx = ((int)threadIdx.x);", "A_ptr[tx] = 1;"]


def test_shared_memory_stores_are_not_dead():
    body = kernel_lines(kernel("""
        sm = T.alloc_shared((64,), "int32")
        sm[tx] = A[tx]
        T.cuda.cta_sync()
        A[tx] = sm[63 - tx]
    """))
    assert "__shared__ alignas(64) int sm_ptr[64];" in body


# ---- loops ---------------------------------------------------------------------------------------------------

def fors(result) -> list[ir.For]:
    return [s for s in all_stmts(result.program.kernels[0].body) if isinstance(s, ir.For)]


def test_descending_and_empty_ranges():
    result = compile_ok(kernel("""
        s: T.int32 = 0
        for k in range(10, 0, -1):
            s += k
        for k in range(5, 7, -1):
            s += k
        for k in range(3, 3):
            s += k
        A[tx] = s
    """))
    loops = fors(result)
    assert len(loops) == 1 and loops[0].direction == -1
    assert "for (int k = 10; k > 0; --k) {" in result.cuda


def test_step_sign_from_facts():
    result = compile_ok(kernel("""
        s: T.int32 = 0
        for k in range(0, m, tx + 1):
            s += k
        for k in range(0, m, step):
            s += k
        A[tx] = s
    """, params="A_ptr: T.handle, m: T.int32, step: T.int32"))
    directions = [f.direction for f in fors(result)]
    assert directions == [1, 0]
    # neither step is bounded well enough to rule out `k += step` passing INT_MAX below m: both
    # loops count in 64 bits (docs/design.md, decision 5)
    assert "for (long long k_wide = 0LL; k_wide < ((long long)m); k_wide += (long long)(tx + 1)) {" in result.cuda
    assert ("for (long long k_wide_1 = 0LL; (((long long)step) > 0) ? (k_wide_1 < ((long long)m)) : "
            "(k_wide_1 > ((long long)m)); k_wide_1 += (long long)step) {") in result.cuda


# ---- non-negativity facts (docs/design.md, decision 7) -----------------------------------------------------------------

def test_facts_flow_through_lets_and_loops():
    body = kernel_lines(kernel("""
        i: T.let = tx * 4 + 3
        A[tx] = i // 3
        for k in range(2, 10):
            A[k] = k % 3
        j: T.let = tx - 32
        A[tx] = j // 3
        A[tx] = (j + 64) // 3
    """, threads=64))
    assert "A_ptr[tx] = i / 3;" in body
    assert "A_ptr[k] = k % 3;" in body
    assert "A_ptr[tx] = tirx_floordiv(j, 3);" in body
    assert "A_ptr[tx] = tirx_floordiv(j + 64, 3);" in body  # not proved: j is signed


# ---- parameters and the LaunchSpec -----------------------------------------------------------------------

def test_read_only_buffers_are_const():
    cu = compile_ok("""
@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    C = T.match_buffer(C_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    B[tx] = A[tx] + C[tx]
    C[tx] = T.float32(0)
""").cuda
    assert "k_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, float* __restrict__ C_ptr) {" in cu


def test_launch_spec_of_a_2d_kernel():
    result = compile_ok("""
@T.prim_func
def tile(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float32")
    T.device_entry()
    bx, by = T.cta_id([4, 8])
    tx, ty = T.thread_id([16, 8])
    sm = T.alloc_shared((16, 8), "float32")
    sm[tx, ty] = A[by * 8 + ty, bx * 16 + tx]
    T.cuda.cta_sync()
    A[by * 8 + ty, bx * 16 + tx] = sm[15 - tx, ty]
""")
    spec = result.program.kernels[0].spec
    assert spec.symbol == "tile_kernel"
    assert [e.value for e in spec.block] == [16, 8, 1]
    assert [e.value for e in spec.grid] == [4, 8, 1]
    assert spec.launch_bounds == 128
    assert spec.static_shared_bytes == 16 * 8 * 4
    assert spec.dynamic_shared_bytes == 0
    assert "extern \"C\" __global__ void __launch_bounds__(128)\ntile_kernel(" in result.cuda


def test_arena_alignment_is_the_largest_view_alignment():
    result = compile_ok("""
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    arena = T.alloc_buffer((256,), "float32", scope="shared.dyn")
    V = T.decl_buffer((64,), "float32", data=arena.data, elem_offset=128, scope="shared.dyn", align=256)
    V[tx] = A[tx]
    T.cuda.cta_sync()
    A[tx] = V[63 - tx]
""")
    assert "extern __shared__ __align__(256) float arena_ptr[];" in result.cuda
    assert result.program.kernels[0].spec.dynamic_shared_bytes == 1024


def test_an_unused_arena_is_not_declared():
    result = compile_ok("""
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    arena = T.alloc_buffer((256,), "float32", scope="shared.dyn")
    A[tx] = T.float32(1)
""")
    assert "extern __shared__" not in result.cuda
    assert result.program.kernels[0].spec.dynamic_shared_bytes == 0


def test_shared_array_nobody_reads_is_dropped():
    """nvcc -Werror rejects it (#550-D, set but never used); the LaunchSpec no
    longer counts its bytes."""
    result = compile_ok(kernel("""
        sm = T.alloc_shared((64,), "int32")
        sm[tx] = A[tx]
        sm[tx] = sm[tx] + 1
        kept = T.alloc_shared((32,), "int32")
        kept[tx % 32] = tx
        T.cuda.cta_sync()
        A[tx] = kept[(tx + 1) % 32]
    """))
    assert "sm_ptr" not in result.cuda
    assert "__shared__ alignas(64) int kept_ptr[32];" in result.cuda
    assert result.program.kernels[0].spec.static_shared_bytes == 32 * 4


def test_vector_access_raises_the_alignment_of_an_array():
    """Whatever the checker lets through, `*(float4*)r_ptr` gets a 16-byte aligned r_ptr."""
    from transpiler.target.dtypes import FLOAT32, INT32, parse_dtype
    from transpiler.lower.facts import align_vector_arrays
    f4 = parse_dtype("float32x4")
    regs = ir.Storage("r_ptr", FLOAT32, "local", "array", 8, 0)
    aligned = ir.Storage("q_ptr", FLOAT32, "local", "array", 8, 32)
    glob = ir.Storage("A_ptr", FLOAT32, "global", "param", None, 4)
    zero = ir.IntImm(INT32, 0)
    body = ir.Seq((ir.ArrayDecl(regs), ir.ArrayDecl(aligned),
                   ir.VecStore(regs, zero, ir.VecLoad(f4, glob, zero)),
                   ir.VecStore(glob, zero, ir.VecLoad(f4, aligned, zero))))
    align_vector_arrays(body)
    assert regs.align == 16
    assert aligned.align == 32  # never lowered
    assert glob.align == 4      # parameters are the caller's business (checked elsewhere)


BUMP = '''
SRC = r"""
__device__ __forceinline__ int bump(int* p) { return atomicAdd(p, 1); }
"""

'''


def test_unused_results_of_calls_with_side_effects_are_kept():
    """A let, scalar or register store nobody reads goes; the call in its value
    stays (T.cuda.func_call may do anything: here an atomic)."""
    result = transpile(HEADER + BUMP + kernel("""
        old: T.let = T.cuda.func_call("bump", C.ptr_to([0]), source_code=SRC, return_type="int32")
        r = T.alloc_local((1,), "int32")
        r[0] = T.cuda.func_call("bump", C.ptr_to([0]), source_code=SRC, return_type="int32") + 1
        t: T.int32 = T.cuda.func_call("bump", C.ptr_to([0]), source_code=SRC, return_type="int32")
        A[tx] = 1
    """, params="A_ptr: T.handle, C_ptr: T.handle",
        buffers='A = T.match_buffer(A_ptr, (64,), "int32")\n    C = T.match_buffer(C_ptr, (1,), "int32")'))
    assert result.ok, result.diagnostics
    start = result.cuda.index("_kernel(")
    body = [line.strip() for line in result.cuda[start:].splitlines()[1:-1]]
    assert body == ["int tx = ((int)threadIdx.x);", "bump(&C_ptr[0]);", "bump(&C_ptr[0]);", "bump(&C_ptr[0]);",
                    "A_ptr[tx] = 1;"]
    assert "int* __restrict__ C_ptr" in result.cuda and "const int* __restrict__ C_ptr" not in result.cuda


def test_unused_pure_values_go_entirely():
    body = kernel_lines(kernel("""
        x: T.let = T.exp(T.float32(tx)) + T.sqrt(T.float32(tx))
        y: T.let = T.max(tx, 3) // 2
        A[tx] = 1
    """))
    assert body == ["int tx = ((int)threadIdx.x);", "A_ptr[tx] = 1;"]


def test_dropping_a_let_keeps_what_others_still_read():
    body = kernel_lines(kernel("""
        a: T.let = tx * 3
        b: T.let = a + 1
        c: T.let = b * a
        A[tx] = a
    """))
    assert body == ["int tx = ((int)threadIdx.x);", "int a = tx * 3;", "A_ptr[tx] = a;"]


def test_what_only_dropped_code_needed_goes_with_it():
    """Headers and helpers are those of the code that is left."""
    cu = compile_ok(kernel("""
        h: T.let = T.float16(tx)
        q: T.let = (tx - 5) // 3
        A[tx] = 1
    """)).cuda
    assert "cuda_fp16.h" not in cu and "tirx_floordiv" not in cu
    kept = compile_ok(kernel("""
        h: T.let = T.float16(tx)
        q: T.let = (tx - 5) // 3
        A[tx] = T.int32(h) + q
    """)).cuda
    assert "#include <cuda_fp16.h>" in kept and "tirx_floordiv(tx - 5, 3)" in kept


def test_warp_and_lane_ids_read_the_thread_id_variable():
    body = kernel_lines(kernel("""
        warp = T.warp_id([4])
        lane = T.lane_id([32])
        A[warp * 32 + lane] = tx
    """, threads=128, buffers='A = T.match_buffer(A_ptr, (128,), "int32")'))
    assert body[:3] == ["int tx = ((int)threadIdx.x);",
                        "int warp = __shfl_sync(0xffffffffu, tx / 32, 0);",
                        "int lane = tx % 32;"]


def test_ids_declared_before_the_thread_id_use_the_builtin():
    cu = compile_ok("""
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    lane = T.lane_id([32])
    tx = T.thread_id([128])
    A[tx] = lane
""").cuda
    assert "int lane = ((int)threadIdx.x) % 32;" in cu


def test_only_a_top_level_let_of_a_register_is_read_for_it_later():
    # `d` is out of scope after its `if`: later reads keep the register; `e` is in scope to the end
    body = kernel_lines("""
@T.prim_func
def k(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (64,), "int32")
    T.device_entry()
    bx = T.cta_id([n])
    tx = T.thread_id([64])
    if tx < 4:
        d: T.let = T.cuda.grid_dim("x")
        A[d] = 1
    A[T.cuda.grid_dim("x") + 1] = 2
    e: T.let = T.cuda.grid_dim("x")
    A[T.cuda.grid_dim("x") + 2] = e
""")
    assert body[body.index("}") + 1:] == ["A_ptr[(((int)gridDim.x) + 1)] = 2;", "int e = ((int)gridDim.x);",
                                          "A_ptr[(e + 2)] = e;"]


def test_two_dimensional_block_linear_thread_index():
    body = kernel_lines("""
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx, ty = T.thread_id([32, 4])
    lane = T.lane_id([32])
    warp = T.warp_id([4])
    A[warp * 32 + lane] = tx + ty
""")
    assert "int lane = (tx + (ty * 32)) % 32;" in body
    assert "int warp = __shfl_sync(0xffffffffu, (tx + (ty * 32)) / 32, 0);" in body


def test_facts_of_a_let_follow_each_unrolled_copy():
    """`t = tx` is non-negative, `t = tx - 1` is not: the second copy's modulo
    must stay a floor modulo (a C % would read A[-1] at tx = 0)."""
    body = kernel_lines(kernel("""
        s: T.int32 = 0
        for k in T.unroll(2):
            t: T.let = tx - k
            s += A[t % 64]
        A[tx] = s
    """))
    assert body[3:11] == ["{", "int t = tx;", "s_ptr[0] = s_ptr[0] + A_ptr[(t % 64)];", "}",
                          "{", "int t = tx - 1;", "s_ptr[0] = s_ptr[0] + A_ptr[(t & 63)];", "}"]


def test_arrays_in_sibling_scopes_share_the_name():
    body = kernel_lines(kernel("""
        if m > 0:
            v: T.int32 = A[tx]
            v += 1
            A[tx] = v
        else:
            v: T.int32 = A[tx]
            v -= 1
            A[tx] = v
        for i in range(2):
            r = T.alloc_local((2,), "int32")
            r[0] = i
            A[i] = r[0]
    """, params="A_ptr: T.handle, m: T.int32"))
    assert body.count("int v_ptr[1];") == 2
    assert "v_ptr[0] = v_ptr[0] - 1;" in body
    assert not any("_ptr_1" in line for line in body)


def test_an_array_declared_after_a_scope_takes_the_name_back():
    body = kernel_lines(kernel("""
        for i in range(2):
            r = T.alloc_local((2,), "int32")
            r[0] = i
            A[i] = r[0]
        r = T.alloc_local((2,), "int32")
        r[1] = tx
        A[tx] = r[1]
    """))
    assert body.count("int r_ptr[2];") == 2


def test_an_array_whose_name_is_in_scope_keeps_the_suffix():
    """On IR: `v_ptr` declared in the enclosing scope stays visible in the loop."""
    from transpiler.target.dtypes import INT32
    from transpiler.lower.names import reuse_source_names
    from transpiler.syntax.source import SourceFile
    outer = ir.Storage("v_ptr", INT32, "local", "array", 1)
    inner = ir.Storage("v_ptr_1", INT32, "local", "array", 1)
    later = ir.Storage("w_ptr_1", INT32, "local", "array", 1)
    zero = ir.IntImm(INT32, 0)
    i = ir.Var(INT32, "i")
    body = ir.Seq((
        ir.ArrayDecl(outer), ir.Store(outer, zero, zero),
        ir.For(i, zero, ir.IntImm(INT32, 2), ir.IntImm(INT32, 1), ir.Seq((
            ir.ArrayDecl(inner), ir.Store(inner, zero, ir.Load(INT32, outer, zero))))),
        ir.ArrayDecl(later), ir.Store(later, zero, ir.Load(INT32, outer, zero)),
    ))
    reuse_source_names(body, SourceFile("k.tx", ""), set())
    assert (outer.name, inner.name, later.name) == ("v_ptr", "v_ptr_1", "w_ptr")


# ---- division --------------------------------------------------------------------------------------------

def test_floor_division_of_narrow_integers_divides_in_int():
    # C promotes int8/int16 operands to int; the helper template takes one T, so the
    # division happens in int and the result is cast back (fuzz finding F8). The int8
    # difference is wrapped to int8 before it is widened (lower/narrow.py): -128 - 1 is 127.
    body = kernel_lines(kernel("""
        A[tx] = (A[0] - A[1]) // T.int8(3)
        A[tx + 1] = T.floormod(A[2], T.int8(-5))
    """, buffers='A = T.match_buffer(A_ptr, (128,), "int8")'))
    assert "A_ptr[tx] = (signed char)tirx_floordiv((int)((signed char)(A_ptr[0] - A_ptr[1])), 3);" in body
    assert "A_ptr[(tx + 1)] = (signed char)tirx_floormod((int)A_ptr[2], -5);" in body


def test_floor_division_of_int32_calls_the_helper_directly():
    body = kernel_lines(kernel("A[tx] = A[0] // (A[1] - 3)"))
    assert "A_ptr[tx] = tirx_floordiv(A_ptr[0], A_ptr[1] - 3);" in body


# ---- views of views ----------------------------------------------------------------------------------------

def test_a_same_dtype_view_of_a_pool_view_counts_from_that_view():
    # Found by `tirxc info`: the nested view used to overwrite its base's pointer offset,
    # moving `Bs_ptr` to byte 32 of the arena.
    body = kernel_lines("""
        @T.prim_func
        def k(A_ptr: T.handle):
            A = T.match_buffer(A_ptr, (64,), "float32")
            T.device_entry()
            tx = T.thread_id([64])
            pool = T.SMEMPool()
            As = pool.alloc((64,), "float32", align=128)
            Bs = pool.alloc((64,), "float32", align=128)
            pool.commit()
            sub = T.decl_buffer((16,), "float32", data=Bs.data, elem_offset=8, scope="shared.dyn")
            Bs[tx] = A[tx]
            As[tx] = A[tx]
            T.cuda.cta_sync()
            A[tx] = Bs[tx] + sub[tx % 16] + As[tx]
    """)
    assert "float* Bs_ptr = (float*)(smem_ptr + 256);" in body
    assert "A_ptr[tx] = (Bs_ptr[tx] + Bs_ptr[((tx % 16) + 8)]) + As_ptr[tx];" in body


def test_a_meta_var_binding_is_a_compile_time_value():
    # `k = 4` would be a mutable int32 scalar; `T.meta_var` keeps 4 a literal that
    # adopts the dtype of the other operand.
    body = kernel_lines(kernel("""
        k = T.meta_var(4)
        A[tx] = A[tx] * k + T.meta_var(2)
    """, buffers='A = T.match_buffer(A_ptr, (64,), "float32")'))
    assert body[-1] == "A_ptr[tx] = (A_ptr[tx] * 4.0f) + 2.0f;"


# ---- C forms of what CUDA lacks for a dtype ---------------------------------------------------------------

def test_narrow_results_are_converted_back_only_where_the_consumer_needs_them():
    body = kernel_lines(kernel("""
        A[tx] = (A[tx] + A[tx + 1]) // T.uint8(2)
        A[tx + 1] = (A[tx] + A[tx + 1]) - A[tx + 2]
        if A[tx] - A[tx + 1] < A[tx]:
            A[tx] = T.uint8(0)
        C[tx] = T.int32(A[tx] * A[tx])
    """, params="A_ptr: T.handle, C_ptr: T.handle",
         buffers='A = T.match_buffer(A_ptr, (128,), "uint8")\n    C = T.match_buffer(C_ptr, (64,), "int32")'))
    assert "A_ptr[tx] = ((unsigned char)(A_ptr[tx] + A_ptr[(tx + 1)])) / 2u;" in body
    assert "A_ptr[(tx + 1)] = (A_ptr[tx] + A_ptr[(tx + 1)]) - A_ptr[(tx + 2)];" in body  # the store wraps
    assert "if (((unsigned char)(A_ptr[tx] - A_ptr[(tx + 1)])) < A_ptr[tx]) {" in body
    assert "C_ptr[tx] = (int)((unsigned char)(A_ptr[tx] * A_ptr[tx]));" in body


def test_narrow_conversion_pass_is_idempotent_and_keeps_wide_code():
    from transpiler.lower.narrow import exact
    from transpiler.target.dtypes import parse_dtype
    u8 = parse_dtype("uint8")
    a, b = ir.Var(u8, "a"), ir.Var(u8, "b")
    once = exact(ir.binop("<", ir.binop("+", a, b), a))
    assert exact(once) == once and isinstance(once.a, ir.Cast)
    wide = ir.binop("<", ir.binop("+", ir.Var(ir.INT32, "x"), ir.Var(ir.INT32, "y")), ir.Var(ir.INT32, "x"))
    assert exact(wide) is wide


def test_clz_and_popcount_count_within_the_dtype():
    body = kernel_lines(kernel("""
        C[tx] = T.clz(S[tx]) + T.popcount(S[tx]) + T.clz(U[tx]) + T.popcount(U[tx])
    """, params="S_ptr: T.handle, U_ptr: T.handle, C_ptr: T.handle",
         buffers='S = T.match_buffer(S_ptr, (64,), "int16")\n    U = T.match_buffer(U_ptr, (64,), "uint8")\n'
                 '    C = T.match_buffer(C_ptr, (64,), "int32")'))
    assert ("C_ptr[tx] = (((__clz((unsigned short)S_ptr[tx]) - 16) + __popc((unsigned short)S_ptr[tx])) + "
            "(__clz(U_ptr[tx]) - 24)) + __popc(U_ptr[tx]);") in body


def test_abs_of_unsigned_values_is_the_value():
    body = kernel_lines(kernel("""
        Q[tx] = T.abs(Q[tx])
        U[tx] = T.abs(U[tx])
        S[tx] = T.abs(S[tx])
    """, params="Q_ptr: T.handle, U_ptr: T.handle, S_ptr: T.handle",
         buffers='Q = T.match_buffer(Q_ptr, (64,), "uint64")\n    U = T.match_buffer(U_ptr, (64,), "uint32")\n'
                 '    S = T.match_buffer(S_ptr, (64,), "int8")'))
    assert "Q_ptr[tx] = Q_ptr[tx];" in body and "U_ptr[tx] = U_ptr[tx];" in body
    assert "S_ptr[tx] = (signed char)abs(S_ptr[tx]);" in body  # abs(-128) is int8's -128 again


def test_fp8_goes_through_float32():
    body = kernel_lines(kernel("""
        A[tx] = A[tx] * A[tx + 1]
        B[tx] = T.cast(A[tx], "float8_e5m2")
        if A[tx] < A[tx + 1]:
            A[tx] = -A[tx]
    """, params="A_ptr: T.handle, B_ptr: T.handle",
         buffers='A = T.match_buffer(A_ptr, (128,), "float8_e4m3fn")\n'
                 '    B = T.match_buffer(B_ptr, (64,), "float8_e5m2")'))
    assert "A_ptr[tx] = (__nv_fp8_e4m3)(((float)A_ptr[tx]) * ((float)A_ptr[(tx + 1)]));" in body
    assert "B_ptr[tx] = (__nv_fp8_e5m2)((float)A_ptr[tx]);" in body
    assert "if (((float)A_ptr[tx]) < ((float)A_ptr[(tx + 1)])) {" in body
    assert "A_ptr[tx] = (__nv_fp8_e4m3)-((float)A_ptr[tx]);" in body


def test_large_unrolled_shift_counts_compile_quickly():
    import time
    start = time.perf_counter()
    result = transpile(HEADER + kernel("""
        for i in T.unroll(3):
            L[tx] = L[tx] + (T.int64(1) << T.int64(i * 1000000000))
    """, params="L_ptr: T.handle", buffers='L = T.match_buffer(L_ptr, (64,), "int64")'))
    assert time.perf_counter() - start < 5  # folding it would build a number of 10**9 bits (9 GB, 19 s)
    # the checker may refuse the count; what reaches lowering is printed, never folded
    assert result.ok and "(1LL << 1000000000LL)" in result.cuda or not result.ok


# ---- T.cuda.func_call sources and <cstdint> ---------------------------------------------------------------

FIXED = '''
SRC = r"""
__device__ __forceinline__ int32_t add_at(uint64_t* p, int32_t k) {
  atomicAdd(p, (uint64_t)k);  // uint8_t, in a comment, is not used
  return k;
}
"""

'''


def test_fixed_width_names_of_func_call_sources_are_defined():
    cu = compile_ok(FIXED + kernel("""
        B[tx] = T.cuda.func_call("add_at", A.ptr_to([tx]), B[tx], source_code=SRC, return_type="int32")
    """, params="A_ptr: T.handle, B_ptr: T.handle",
        buffers='A = T.match_buffer(A_ptr, (64,), "uint64")\n    B = T.match_buffer(B_ptr, (64,), "int32")')).cuda
    prelude = cu[cu.index("// The <cstdint>"):cu.index("__device__ __forceinline__ int32_t add_at")]
    assert "#ifdef __CUDACC_RTC__\ntypedef int int32_t;\n#else\n#include <cstdint>\n#endif\n" in prelude
    assert "typedef unsigned long long tirx_uint64_t;\n#define uint64_t tirx_uint64_t\n" in prelude
    assert "uint8_t" not in prelude and "int64_t" not in prelude.replace("uint64_t", "")
    assert "add_at(&A_ptr[tx], B_ptr[tx])" in cu  # an `unsigned long long*` where the source says uint64_t*


def test_sources_without_fixed_width_names_get_no_prelude():
    cu = compile_ok(FIXED.replace("int32_t", "int").replace("uint64_t", "unsigned long long") + kernel("""
        B[tx] = T.cuda.func_call("add_at", A.ptr_to([tx]), B[tx], source_code=SRC, return_type="int32")
    """, params="A_ptr: T.handle, B_ptr: T.handle",
        buffers='A = T.match_buffer(A_ptr, (64,), "uint64")\n    B = T.match_buffer(B_ptr, (64,), "int32")')).cuda
    assert "cstdint" not in cu and "typedef" not in cu


def test_fixed_width_names_are_found_outside_comments_and_strings():
    from transpiler.target.cnames import fixed_width_names
    src = 'int64_t f(uint8_t x) { /* int16_t */ const char* s = "uint32_t"; return x; } // int32_t'
    assert fixed_width_names(src) == ["uint8_t", "int64_t"]
    assert fixed_width_names("my_int32_t x; int32_tx y;") == []
