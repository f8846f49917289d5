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
