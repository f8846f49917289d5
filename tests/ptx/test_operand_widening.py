"""PTX operands as real kernels pass them (tirx-kernels' quantizers and MQA kernels): a narrower
integer value for a wider integer operand widens as C widens it (`st.global.b8` of a uint8,
sign-extended from an int8), and `T.address_of(A_map)` is the generic address
`prefetch.tensormap` takes. The values are checked on the GPU (tests/gpu/test_ptx_widening.py)."""
from __future__ import annotations

import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit.test_nvcc import nvcc

KERNEL = """\
from tvm.script import tirx as T


@T.prim_func
def widen(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64,), "uint8")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float16", 2, A.data, 64, 64, 128, 64, 64, 1, 1, 0, 0, 0, 0)
    T.device_entry()
    tx = T.thread_id([64])
    T.ptx.prefetch.tensormap(T.address_of(A_map))
    u = T.alloc_local([1], "uint8")
    s = T.alloc_local([1], "int8")
    u[0] = T.uint8(tx * 3)
    s[0] = T.int8(-tx)
    if tx % 2 == 0:
        T.ptx.st.global_.b8(B.ptr_to([tx]), u[0])
    else:
        T.ptx.st.global_.s8(B.ptr_to([tx]), s[0])
"""


def test_narrower_integers_widen_and_a_tensor_map_address_is_generic():
    result = transpile(KERNEL, "widen.tx", arch="sm_90a")
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    assert "tirx_ptx_st_global_b8(&B_ptr[tx], (unsigned int)u_ptr[0]);" in result.cuda
    assert "tirx_ptx_st_global_s8(&B_ptr[tx], (int)s_ptr[0]);" in result.cuda
    assert "tirx_ptx_prefetch_tensormap(&A_map);" in result.cuda


def test_a_wider_value_is_still_refused():
    result = transpile(KERNEL.replace('s = T.alloc_local([1], "int8")', 's = T.alloc_local([1], "int64")')
                       .replace("T.int8(-tx)", "T.int64(-tx)"), "widen.tx", arch="sm_90a")
    assert [(d.span.line, d.span.col, d.code) for d in result.diagnostics] == [(20, 45, "E0602")]
    assert "is a s32 value, got int64" in result.diagnostics[0].message


@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not installed")
def test_compiles_warning_free(tmp_path):
    cu = tmp_path / "widen.cu"
    cu.write_text(transpile(KERNEL, "widen.tx", arch="sm_90a").cuda)
    rc, out = nvcc(cu, "sm_90a", tmp_path)
    assert rc == 0 and "warning" not in out, out


MAPA = """\
from tvm.script import tirx as T


@T.prim_func
def mapa64(O: T.Buffer((2,), "uint64")):
    T.device_entry()
    bx = T.cta_id([2])
    rank = T.cta_id_in_cluster([2])
    tx = T.thread_id([32])
    s = T.alloc_shared((4,), "uint64")
    r = T.alloc_local((1,), "uint64")
    T.ptx.mapa.shared__cluster.u64(r[0], s.ptr_to([1]), T.uint32(0))
    O[bx] = r[0]
"""


@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not installed")
def test_mapa_u64_takes_and_gives_64_bit_registers(tmp_path):
    """`mapa.shared::cluster.u64`: the ISA types both the address and the result .u64."""
    result = transpile(MAPA, "mapa64.tx", arch="sm_90a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert '"=l"(out0) : "l"((unsigned long long)__cvta_generic_to_shared(ptr0))' in result.cuda
    cu = tmp_path / "mapa64.cu"
    cu.write_text(result.cuda)
    rc, out = nvcc(cu, "sm_90a", tmp_path)
    assert rc == 0 and "warning" not in out, out


GLOBAL_OUT = """\
from tvm.script import tirx as T


@T.prim_func
def global_out(A: T.Buffer((4,), "uint64"), B: T.Buffer((4,), "int32")):
    T.device_entry()
    tx = T.thread_id([1])
    T.ptx.ld.acquire.gpu.global_.u64(A[1], A.data)
    T.ptx.ld.acquire.gpu.global_.b32(B[3], B.ptr_to([2]))
"""


def test_an_element_of_a_global_buffer_is_an_output_and_makes_it_writable():
    """TIRx binds any lvalue to an inline-asm output: `ld...(A[1], ...)` loads into a register that
    is stored to A[1]; A is then written, so not `const`."""
    result = transpile(GLOBAL_OUT, "global_out.tx", arch="sm_90a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "global_out_kernel(unsigned long long* __restrict__ A_ptr, int* __restrict__ B_ptr)" in result.cuda
    assert "tirx_ptx_ld_acquire_gpu_global_u64(A_ptr[1], A_ptr);" in result.cuda


NARROW_OUT = """\
from tvm.script import tirx as T


@T.prim_func
def narrow_out(A: T.Buffer((64,), "float32"), B: T.Buffer((32,), "uint8")):
    T.device_entry()
    tx = T.thread_id([32])
    packed = T.alloc_local([1], "uint8")
    T.ptx.cvt.rn.satfinite.e2m1x2.f32(packed[0], A[2 * tx + 1], A[2 * tx])
    B[tx] = packed[0]
"""


def test_a_byte_destination_of_a_16_bit_register_is_converted_after_the_instruction(tmp_path):
    """cvt's .e2m1x2 result is a byte (the ISA's .b8) in a 16-bit register: a uint8 element takes it
    through a register of the instruction's width, converted after it (flashinfer's fp4 quantizers
    write their bytes so); an element as wide as the register is bound directly, as before."""
    result = transpile(NARROW_OUT, "narrow_out.tx", arch="sm_100a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "tirx_ptx_cvt_rn_satfinite_e2m1x2_f32_narrow0(packed_ptr[0]," in result.cuda
    assert "  out0 = (R0)out0_bits;" in result.cuda
    wide = transpile(NARROW_OUT.replace('"uint8")\n    T.ptx', '"uint16")\n    T.ptx').replace(
        "B[tx] = packed[0]", "B[tx] = T.uint8(packed[0])"), "narrow_out.tx", arch="sm_100a")
    assert wide.ok and "_narrow0" not in wide.cuda
    if has_nvcc():
        cu = tmp_path / "narrow_out.cu"
        cu.write_text(result.cuda)
        for arch in ("sm_100a", "sm_90a"):  # (on sm_90a the helper traps: its unused register must not warn)
            rc, out = nvcc(cu, arch, tmp_path)
            assert rc == 0 and "warning" not in out, out
