"""TIRx's forced-width copies (`vec_16b` ... `vec_256b`, transpiler/tile/copy/vec_forced.py) with their
cache hints, `vec_auto`, and TIRx's other variant names (transpiler/tile/aliases.py): the variant each
call takes, the instruction its hints make, and which variants a call tries. The refusals and
nvcc are case files: tests/tile/cases/copy_forced/.
The values are checked on the GPU (tests/gpu/test_tile_copy_forced.py)."""
from __future__ import annotations


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
