"""`copy_async` variants (transpiler/tile/copy_async*.py): which variant each call takes, the tensor
maps the TMA variant adds, the values a host run computes for cp.async (emulated by memcpy, threads
one after another), TMA's shared image checked against an independent swizzle formula, and the
launcher of every kernel. Refusals (E0904 with each variant's reason) and nvcc are the case files'
(tests/tile/cases/copy_async/)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tests.conftest import transpile
from tests.emit import hostc
from tests.tile.case_kernels import kernel_source, transpiling_cases
from transpiler import ir
from transpiler.target.dtypes import INT32, parse_dtype
from transpiler.tile.copy_async import common as common
from transpiler.ir.launch import ParamKind

HOST_PRELUDE = "#include <vector_types.h>\n#undef __shared__\n#define __shared__\n"


HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TCol, TileLayout, TLane, ComposeLayout
from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg
'''


def source(name: str) -> str:
    """The kernel `name` of tests/tile/cases/copy_async/."""
    return kernel_source("copy_async", name)


def _compiled(name: str, **options):
    result = transpile(source(name), f"{name}.tx", **options)
    assert not result.diagnostics, [str(d) for d in result.diagnostics]
    return result


def test_ldgsts_partition_of_the_docs_program():
    cuda = _compiled("ldgsts_cta").cuda
    # 128 x 32 float32 over 128 threads: 16-byte copies, outer = 8
    assert cuda.count("tirx_ptx_cp_async_cg_shared_global<16>(") == 8
    assert "cp.async.wait_group" in cuda and "__syncthreads" in cuda


def test_ldgsts_narrows_to_rows_it_can_align():
    cuda = _compiled("ldgsts_window").cuda
    assert "tirx_ptx_cp_async_ca_shared_global<8>(" in cuda and "<16>" not in cuda


def test_ldgsts_options_pick_the_instruction_form():
    fill = _compiled("ldgsts_zero_fill").cuda
    assert re.search(r"tirx_ptx_cp_async_cg_shared_global_v1<16>\(.*\? 16u : 0u\)", fill)
    pred = _compiled("ldgsts_predicated").cuda
    assert "tirx_ptx_cp_async_cg_shared_global_L2__128B_pred<16>(" in pred


# -- cp.async on the host: each helper replaced by memcpy ------------------------------------------

_HELPER = re.compile(r"(?:template <[^\n]*>\n)?__device__ __forceinline__ void (tirx_ptx_cp_async\w*)\([^)]*\) \{\n"
                     r".*?\n\}\n", re.S)


def _host_cp_async(cuda: str) -> str:
    names = _HELPER.findall(cuda)
    defs = []
    for name in names:
        if name.endswith("commit_group"):
            defs.append(f"static inline void {name}() {{}}")
        elif name.endswith("wait_group"):
            defs.append(f"template <int g> static inline void {name}() {{}}")
        elif name.endswith("_v1"):  # src-size: bytes past it are zeros
            defs.append(f"template <int n> static inline void {name}(const void* d, const void* s, unsigned int k) "
                        f"{{ std::memcpy((void*)d, s, k); std::memset((char*)d + k, 0, n - k); }}")
        elif name.endswith("_pred"):
            defs.append(f"template <int n> static inline void {name}(const void* d, const void* s, unsigned int p) "
                        f"{{ if (p) std::memcpy((void*)d, s, n); }}")
        else:
            defs.append(f"template <int n> static inline void {name}(const void* d, const void* s) "
                        f"{{ std::memcpy((void*)d, s, n); }}")
    body = _HELPER.sub("", cuda)
    head, sep, rest = body.partition('extern "C"')
    return HOST_PRELUDE + head + "\n".join(defs) + "\n" + sep + rest


def _host(name, buffers, threads, scalars=None):
    return hostc.run(_host_cp_async(_compiled(name).cuda), buffers, threads=threads, scalars=scalars)


needs_gxx = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")


@needs_gxx
def test_ldgsts_round_trips_on_the_host():
    a = np.arange(128 * 32, dtype=np.float32) * 0.25
    out = _host("ldgsts_cta", {"A": list(a), "B": [0.0] * a.size}, 128)
    assert np.array_equal(out["B"], a)


@needs_gxx
def test_ldgsts_window_with_run_time_start():
    a = np.arange(64 * 8, dtype=np.float32) - 7
    out = _host("ldgsts_window", {"A": list(a), "B": [0.0] * 192}, 32, {"m0": 5})
    assert np.array_equal(np.array(out["B"]).reshape(32, 6), a.reshape(64, 8)[10:42, 2:8])


@needs_gxx
def test_ldgsts_zero_fill_past_the_predicate():
    a = np.arange(128, dtype=np.float32) + 1
    out = _host("ldgsts_zero_fill", {"A": list(a), "B": [9.0] * 128}, 32, {"n": 20})
    want = a.reshape(32, 4).copy()
    want[20:] = 0
    assert np.array_equal(np.array(out["B"]).reshape(32, 4), want)


@needs_gxx
def test_ldgsts_predicate_without_fill_leaves_the_destination():
    a = np.arange(128, dtype=np.float32) + 1
    out = _host("ldgsts_predicated", {"A": list(a), "B": [9.0] * 128}, 32, {"n": 7})
    want = a.reshape(32, 4).copy()
    want[7:] = -1
    assert np.array_equal(np.array(out["B"]).reshape(32, 4), want)


@needs_gxx
def test_ldgsts_into_a_swizzled_tile():
    a = np.arange(16 * 32, dtype=np.float32) * 3
    out = _host("ldgsts_swizzled", {"A": list(a), "B": [0.0] * a.size}, 128)
    assert np.array_equal(out["B"], a)


# -- TMA ------------------------------------------------------------------------------------------

def _maps(result):
    return [p for p in result.program.kernels[0].spec.params if p.kind is ParamKind.TENSOR_MAP]


def test_tma_adds_one_map_per_buffer_box_and_swizzle():
    result = _compiled("tma_stages")
    (tmap,) = _maps(result)  # two calls (one with a cache hint) share the map
    spec = tmap.tensor_map
    assert tmap.name == "A_tmap" and spec.buffer.name == "A"
    assert spec.box == (64, 128) and spec.swizzle == 3 and spec.data_type == 9 and spec.element_strides == (1, 1)
    assert [d.name for d in spec.dims] == ["K", "M"]
    assert "const __grid_constant__ tirx_tensor_map A_tmap" in result.cuda
    assert f"{0x12F0000000000000}ull)" in result.cuda  # evict_first's policy
    assert result.cuda.count("(unsigned long long)&A_tmap") == 2


def test_tma_maps_per_direction_and_box_count():
    result = _compiled("tma_store")
    (tmap,) = _maps(result)
    assert tmap.tensor_map.buffer.name == "B" and tmap.tensor_map.box == (64, 64)
    assert result.cuda.count("tirx_ptx_cp_async_bulk_tensor_2d_global_shared__cta_tile_bulk_group((") == 2
    halves = _compiled("tma_load_halves")
    assert _maps(halves)[0].tensor_map.box == (16, 32) and _maps(halves)[0].tensor_map.swizzle == 2
    assert halves.cuda.count("mbarrier__complete_tx__bytes(&") == 2
    flat = _compiled("tma_load_3d")
    assert _maps(flat)[0].tensor_map.box == (32, 16, 1) and _maps(flat)[0].tensor_map.swizzle == 0


def test_tma_options_reach_the_map_and_the_instruction():
    result = _compiled("tma_options")
    load, store = _maps(result)
    assert (load.tensor_map.oob_fill, load.tensor_map.l2_promotion) == (1, 3)
    assert (store.tensor_map.oob_fill, store.tensor_map.l2_promotion) == (0, 2)
    assert "tirx_ptx_prefetch_tensormap(&A_tmap);" in result.cuda
    assert "cp_reduce_async_bulk_tensor_2d_global_shared__cta_add_tile_bulk_group((unsigned long long)&B_tmap" \
        in result.cuda


def test_tma_launcher_encodes_the_map():
    result = _compiled("tma_load_swizzled", launcher_name="k", until="launcher")
    assert "'kind': 'tensormap'" in result.launcher and "'box': (64, 64)" in result.launcher
    assert "'swizzle': 3" in result.launcher


def _cutlass_128b(offset_bytes: int) -> int:
    """CUTLASS's Swizzle<3, 4, 3> on a byte offset: bits 4-6 ^= bits 7-9 (TMA's 128-byte swizzle)."""
    return offset_bytes ^ ((offset_bytes >> 3) & 0x70)


def test_property_tma_swizzle_and_layout_agree_with_cutlass_formula():
    swz = common.tma_swizzle(3, 2)
    layout = ir.Layout((ir.layout.Iter(ir.IntImm(INT32, 8), ir.IntImm(INT32, 64)),
                        ir.layout.Iter(ir.IntImm(INT32, 64), ir.IntImm(INT32, 1))), (), (), (3, 3, 3, True))
    FLOAT16 = parse_dtype("float16")
    storage = ir.Storage("s", FLOAT16, "shared", "array", 512)
    buf = ir.Buffer("s", (ir.IntImm(INT32, 8), ir.IntImm(INT32, 64)), FLOAT16, "shared", storage, layout)
    offsets = common.Offsets.make(buf)
    for r in range(8):
        for col in range(64):
            flat = r * 64 + col
            assert swz(flat) * 2 == _cutlass_128b(flat * 2)
            assert offsets([r, col]) == swz(flat)


def test_tcgen05_instructions():
    ldst = _compiled("tcgen05_ldst_f32").cuda
    assert "tcgen05_st_sync_aligned_32x32b_x8_b32(tmem_addr_ptr[0], __float_as_uint(A_reg_ptr[0])" in ldst
    # 6 columns from column 2: .x4 then .x2, at columns 2 and 6
    assert re.search(r"tcgen05_ld_sync_aligned_32x32b_x4_b32\(B_reg_ptr\[0\], .*tmem_addr_ptr\[0\] \+ 2u\)", ldst)
    assert re.search(r"tcgen05_ld_sync_aligned_32x32b_x2_b32\(B_reg_ptr\[4\], B_reg_ptr\[5\], tmem_addr_ptr\[0\] "
                     r"\+ 6u\)", ldst)
    cp = _compiled("tcgen05_cp_warpx4").cuda
    assert "tcgen05_cp_cta_group__1_32x128b_warpx4(tmem_addr_ptr[0], tirx_cuda_tcgen05_make_desc(&A_smem_ptr[0], " \
           "0, 8, 0))" in cp
    wide = _compiled("tcgen05_cp_128x256b").cuda
    assert "tcgen05_cp_cta_group__1_128x256b(tmem_addr_ptr[0], tirx_cuda_tcgen05_make_desc(&A_smem_ptr[0], " \
           "128, 8, 0))" in wide


def test_dsmem_maps_the_peer_and_copies_each_chunk():
    cuda = _compiled("dsmem_pair").cuda
    assert cuda.count("tirx_ptx_mapa_u64(mapped") == 2 and "16384u" in cuda
    rows = _compiled("dsmem_rows").cuda
    assert rows.count("cp_async_bulk_shared__cluster_shared__cta_mbarrier__complete_tx__bytes((void*)") == 16
    assert "192u" in rows


@pytest.mark.parametrize("shape, extents, strides, swizzle", [
    ((2, 32, 64), (64, 64), (64, 1), (3, 3, 3, True)),  # a swizzle atom repeated down the rows
    ((16, 128), (16, 2, 64), (64, 1024, 1), (3, 3, 3, True)),  # column halves
    ((6, 10), (10, 6), (1, 10), None),  # column-major, regrouped against the shape
    ((8, 12), (4, 24), (24, 1), (2, 1, 3, False)),  # sizes that never line up: one group
])
def test_property_numeric_offsets_match_the_layout_arithmetic(shape, extents, strides, swizzle):
    from transpiler.ir import layout as layouts
    iters = tuple(layouts.Iter(ir.IntImm(INT32, e), ir.IntImm(INT32, s)) for e, s in zip(extents, strides))
    layout = ir.Layout(iters, (), (), swizzle)
    dtype = parse_dtype("float16")
    dims = tuple(ir.IntImm(INT32, e) for e in shape)
    buf = ir.Buffer("s", dims, dtype, "shared", ir.Storage("s", dtype, "shared", "array", 1 << 16), layout)
    offsets = common.Offsets.make(buf)
    for coords in np.ndindex(*shape):
        want = layouts.memory_index(layout, [ir.IntImm(INT32, v) for v in coords], dims, ir.IntImm(INT32, 0))
        assert offsets(list(coords)) == want.value, coords


@pytest.mark.parametrize("path", transpiling_cases("copy_async"), ids=lambda p: p.stem)
def test_launcher_builds(path):
    name = path.stem
    result = transpile(path.read_text(encoding="utf-8"), path.name, until="launcher", launcher_name=name)
    assert not result.diagnostics
    assert ("'kind': 'tensormap'" in result.launcher) == name.startswith("tma")


def test_a_tma_store_makes_its_buffer_writable_and_a_tma_load_does_not():
    """A buffer only a TMA store writes is not `const` (the launcher refuses read-only arrays and
    overlaps for it); one only TMA loads read stays `const` (lower/tma_writes.py)."""
    from transpiler.driver import compile_source
    from transpiler.syntax.source import SourceFile

    stored = compile_source(SourceFile("s.tx", source("tma_store")), arch="sm_90a")
    assert not stored.diagnostics, stored.diagnostics
    signature = next(line for line in stored.cuda.splitlines() if "tma_store_kernel(" in line)
    assert "const half* __restrict__ A_ptr" in signature and " half* __restrict__ B_ptr" in signature
    assert "const half* __restrict__ B_ptr" not in signature
    loaded = compile_source(SourceFile("l.tx", source("tma_stages")), arch="sm_90a")
    assert not loaded.diagnostics, loaded.diagnostics
    signature = next(line for line in loaded.cuda.splitlines() if "tma_stages_kernel(" in line)
    assert "const " in signature.split("A_ptr")[0]
