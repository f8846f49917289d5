"""TIRx's forced-width copies (`vec_16b` ... `vec_256b`, transpiler/tile/copy/vec_forced.py) with their
cache hints, `vec_auto`, and TIRx's other variant names (transpiler/tile/aliases.py): the variant each
call takes, the instruction its hints make, why a call is refused (E0904 at its location), and nvcc.
The values are checked on the GPU (tests/gpu/test_tile_copy_forced.py)."""
from __future__ import annotations

import pytest

from tests.check.case_files import run
from tests.conftest import errors, transpile
from tests.tile.case_kernels import kernel_case
from transpiler.tile import registry as variants


HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid
'''


def _compiled(name: str):
    """A kernel of tests/tile/cases/copy_forced/ at its `# ARCH:`."""
    path = kernel_case("copy_forced", name)
    _, result = run(path, path.read_text(encoding="utf-8"))
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    return result


def test_hints_become_the_load_qualifiers():
    cuda = _compiled("fw_128").cuda
    assert '"ld.global.nc.L1::no_allocate.L2::256B.v4.u32 ' in cuda
    assert '"st.shared.v4.u32 ' in cuda and '"ld.shared.v4.u32 ' in cuda and '"st.global.v4.u32 ' in cuda
    narrow = _compiled("fw_narrow").cuda
    assert '"ld.global.cs.v2.u32 ' in narrow and '"ld.global.L1::evict_last.u32 ' in narrow
    assert '"ld.global.u16 ' in narrow and '"st.shared.u16 ' in narrow
    wide = _compiled("fw_256").cuda
    assert '"ld.global.nc.L1::no_allocate.L2::evict_first.L2::256B.v8.u32 ' in wide
    assert '"st.global.v8.u32 ' in wide


def test_auto_copies_honour_the_load_hints():
    cuda = _compiled("fw_hinted_auto").cuda
    first, second, third = cuda.split("// Tx.")[1:4]
    assert first.count('tirx_ptx_ld_global_nc_v4_u32(') == 1 and "for (int f = 0; f < 4; ++f)" in first
    assert "tirx_ptx_ld_global_nc_L1__evict_last_v4_u32(" in second
    assert "tirx_ptx" not in third  # a store: no hint


def test_auto_copies_refuse_hints_they_cannot_put_on_a_load():
    text = HEAD + '''
@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 4), "float32")
    B = T.match_buffer(B_ptr, (4,), "uint8")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    R = T.alloc_buffer((32, 4), "float32", scope="local", layout=TileLayout(S[(32, 4) : (1 @ laneid, 1)]))
    Tx.warp.copy(R, A, dispatch="vec_auto", l2_evict="L2::evict_first")
    b = T.alloc_local((4,), "uint8")
    Tx.copy(b[0:1], B[1:2], dispatch="reg", cache="nc")
'''
    result = transpile(text, "k.tx")
    assert errors(result) == [(13, 5, "E0904"), (15, 5, "E0904")]
    assert result.diagnostics[0].notes[0].message == (
        "variant `vec_auto`: gmem_smem: it copies global to local; reg: `l2_evict=` goes only with 256-bit "
        "loads (vec_256b); this load is 128-bit")
    assert "variant `reg`: the cache hints need loads of 2 to 32 bytes; this copy loads 1 byte at a time" in \
        [n.message for n in result.diagnostics[1].notes]


def test_forced_variants_are_tried_only_when_named():
    text = HEAD + '''
@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    B = T.match_buffer(B_ptr, (4, 2), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    r = T.alloc_local((4,), "float32")
    Tx.copy(r, A)
    Tx.copy(B, A)
'''
    result = transpile(text, "k.tx")
    assert errors(result) == [(14, 5, "E0904")]
    assert [n.message.split(":")[0] for n in result.diagnostics[0].notes] == [
        "variant `gmem_smem`", "variant `ldstmatrix`", "variant `reg`", "variant `fallback`"]
    good = transpile(text.replace("    Tx.copy(B, A)\n", ""), "k.tx")
    assert [d.variant for d in good.program.kernels[0].tile_dispatch] == ["reg"]
    explicit = {v.name for v in variants.VARIANTS["copy"] if v.explicit}
    assert explicit == {"vec_16b", "vec_32b", "vec_64b", "vec_128b", "vec_256b", "vec_auto"}


BAD = HEAD + '''
@T.prim_func
def bad(A_ptr: T.handle, D_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    D = T.match_buffer(D_ptr, (8,), "float64")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((64,), "float32", scope="shared")
    Sw = T.alloc_buffer((8, 32), "float32", scope="shared", layout=ComposeLayout(1, 3, 3, S[(8, 32)]))
    C = T.alloc_buffer((8, 8), "float32", scope="shared")
    r = T.alloc_local((8,), "float32")
    d = T.alloc_local((1,), "float64")
    L = T.alloc_buffer((32, 4), "float32", scope="local", layout=TileLayout(S[(32, 4) : (1 @ laneid, 1)]))
    N = T.alloc_buffer((8, 8), "float32", scope="shared", layout=TileLayout(S[(2, 4, 8) : (256, 8, 1)]))
    Tx.copy(r[0:2], A[0:2], dispatch="vec_128b")
    Tx.copy(d, D[0:1], dispatch="vec_32b")
    Tx.warp.copy(Sm[0:4], A[0:4], dispatch="vec_128b")
    Tx.copy(Sm[0:4], Sm[4:8], dispatch="vec_128b")
    Tx.copy(Sm[0:4], r[0:4], dispatch="vec_128b", cache="nc")
    Tx.copy(r[0:4], A[0:4], dispatch="vec_128b", cache="ro")
    Tx.copy(r[0:4], A[0:4], dispatch="vec_128b", l1_evict="L2::evict_first")
    Tx.copy(r[0:4], A[0:4], dispatch="vec_128b", l2_evict="L2::evict_first")
    Tx.copy(r[0:4], A[0:4], dispatch="vec_128b", cache="cs", l1_evict="L1::no_allocate")
    Tx.copy(r, A[0:8], dispatch="vec_256b")
    Tx.copy(Sm[0:8], A[0:8], dispatch="vec_256b")
    Tx.copy(L[0, :], A[0:4], dispatch="vec_128b")
    Tx.copy(r[0:4], C[0:4, 1], dispatch="vec_128b")
    Tx.copy(r[0:4], Sw[0, 0:4], dispatch="vec_128b")
    Tx.copy(r[0:2], A[1:3], dispatch="vec_64b")
    Tx.copy(r[0:4], A[0:4], dispatch="vec_512b")
    Tx.copy(r[0:4], L[0, :], dispatch="vec_auto")
    Tx.copy(r[0:4], N[1, 0:4], dispatch="vec_128b")
'''


def test_refusals_name_the_reason_at_the_call():
    result = transpile(BAD, "bad.tx", arch="sm_90a")
    lines = list(range(19, 37))
    assert errors(result) == [(line, 5, "E0905" if line == 34 else "E0904") for line in lines]
    notes = [d.notes[0].message if d.notes else d.help for d in result.diagnostics]
    assert notes == [
        "variant `vec_128b`: vec_128b moves exactly 4 float32 elements (16 bytes); the region has 2",
        "variant `vec_32b`: vec_32b moves 4 bytes: not a whole number of float64 elements",
        "variant `vec_128b`: it runs at warp scope",
        "variant `vec_128b`: it copies shared to shared; a forced width moves global <-> shared, global <-> "
        "registers or shared <-> registers",
        "variant `vec_128b`: `cache=` is a hint of loads from global memory; src is in local memory",
        "variant `vec_128b`: `cache='ro'` is not one of 'nc', 'ca', 'cg', 'cs', 'lu', 'cv'",
        "variant `vec_128b`: `l1_evict='L2::evict_first'` is not one of \"L1::evict_normal\", "
        "\"L1::evict_unchanged\", \"L1::evict_first\", \"L1::evict_last\", \"L1::no_allocate\"",
        "variant `vec_128b`: `l2_evict=` goes only with 256-bit loads (vec_256b); this load is 128-bit",
        "variant `vec_128b`: the eviction priorities do not go with the cache operator `.cs`",
        "variant `vec_256b`: 256-bit ld / st needs sm_100 or newer; the target is sm_90a",
        "variant `vec_256b`: 256-bit ld / st needs sm_100 or newer; the target is sm_90a",
        "variant `vec_128b`: `L` is spread over threads' registers; a forced width copies one thread's own",
        "variant `vec_128b`: the elements of `C`'s region are not contiguous",
        "variant `vec_128b`: `Sw`'s swizzle keeps only 2 elements together, not 4",
        "variant `vec_64b`: `A`'s region does not start at a multiple of 8 bytes",
        "did you mean `vec_128b`?",
        "variant `vec_auto`: gmem_smem: it copies local to local; reg: a register buffer spread over threads is "
        "copied at the scope of its threads, not at thread scope",
        "variant `vec_128b`: `N`'s layout is not one stride per dimension, so its elements are not one "
        "contiguous run",
    ]


def test_256_bit_shared_access_is_refused_on_sm_100():
    text = BAD.split("    Tx.copy(r[0:2], A[0:2]")[0] + '    Tx.copy(Sm[0:8], A[0:8], dispatch="vec_256b")\n'
    result = transpile(text, "bad.tx", arch="sm_100a")
    assert errors(result) == [(19, 5, "E0904")]
    assert result.diagnostics[0].notes[0].message == (
        "variant `vec_256b`: `st.shared.v8.u32`: a 256-bit access takes .global or generic addressing")


ALIASES = HEAD + '''
@T.prim_func
def al(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (1024,), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer((512,), "float16", scope="shared", align=1024)
    bar = T.alloc_shared([1], "uint64")
    if tid == 0:
        Tx.copy_async(Sm[0:64], A[0:64], dispatch="tma_auto", mbar=bar.ptr_to([0]))
        Tx.copy_async(Sm[64:128], A[64:128], dispatch="tma_explicit", mbar=bar.ptr_to([0]))
        Tx.copy_async(Sm, A[512:1024], dispatch="tma_auto", mbar=bar.ptr_to([0]))
        Tx.copy_async(Sm, A[0:512], dispatch="tma_explicit", mbar=bar.ptr_to([0]))
        Tx.copy_async(Sm[0:64], A[0:64], dispatch="tma_explicit", mbar=bar.ptr_to([0]), gather4=[1, 2, 3, 4])
    Tx.cta.copy_async(Sm[0:64], A[0:64], dispatch="tma_auto", mbar=bar.ptr_to([0]))
'''


def test_tirx_variant_names_run_tirxc_variants():
    result = transpile(ALIASES, "al.tx", arch="sm_90a")
    assert errors(result) == [(17, 9, "E0904"), (18, 9, "E0904"), (19, 5, "E0904")]
    good = transpile("\n".join(ALIASES.splitlines()[:16]), "al.tx", arch="sm_90a")
    assert not good.diagnostics
    assert [d.variant for d in good.program.kernels[0].tile_dispatch] == ["tma_auto", "tma_explicit", "tma_auto"]
    notes = [d.notes[0].message for d in result.diagnostics]
    assert notes == ["variant `tma_explicit`: the region is 2 TMA boxes; `tma_explicit` issues one instruction "
                     "(the region's extents as the box): use `tma_auto`",
                     "variant `tma_explicit`: as `tma`: TMA gather4 (`gather4=`) needs "
                     "sm_100a, sm_101a, sm_103a, sm_110a, sm_100f, sm_101f, sm_103f or sm_110f; the target is sm_90a",
                     "variant `tma_auto`: as `tma`: it runs at cta scope"]
