"""`Tx.copy_async` with `gather4=` (TMA `.tile::gather4`, sm_100a) and `src_selector=` (a tensor map
chosen at run time) through the `tma` variant (transpiler/tile/copy_async/tma_gather.py): the
instruction and its operands, the tensor maps the launcher encodes (one row high, checked by
running the launcher's encoder logic on the host with a fake driver), the refusals with their
positions, and an nvcc compile for sm_100a. No GPU test: gather4 needs sm_100 and the GPU tests
run on an H200 (sm_90)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit.test_nvcc import nvcc
from tests.hostile._util import FakeArray, load_launcher

# The upstream GPU round-trip kernel (tests/python/tirx/.../copy_async/test_tma.py,
# _build_selector_gather_gpu_kernel), with the dynamic arena declared align=1024 (tirxc proves a
# TMA destination's alignment; the arena's default is 64 bytes). COPY is the call's options.
KERNEL = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle, flag: T.int32, Out_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256, 64), "float16")
    B = T.match_buffer(B_ptr, (256, 64), "float16")
    Out = T.match_buffer(Out_ptr, (4, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    dyn = T.alloc_buffer((576,), "uint8", scope="shared.dyn", align=1024)
    T.attr({"tirx.dyn_smem_bytes": 576})
    A_smem = T.decl_buffer((4, 64), "float16", dyn.data, layout=T.TileLayout(T.S[4, 64]))
    mbar = T.decl_buffer((1,), "uint64", dyn.data, elem_offset=64)
    mbar_ptr = T.meta_var(mbar.ptr_to([0]))
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar_ptr, T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(DST, SRC, mbar=mbar_ptr, OPTIONS)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(mbar_ptr, T.uint32(512))
    T.cuda.mbarrier_wait(mbar_ptr, 0)
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    Tx.cta.copy(Out[:, :], A_smem[:, :])
'''
CALL_LINE, CALL_COL = 23, 9
UPSTREAM = 'dispatch="tma_explicit", gather4=[7, 3, 19, 5], src_selector=[(flag != 0, B)]'
GATHER = "tile__gather4_mbarrier__complete_tx__bytes"


def kernel(options: str = UPSTREAM, dst: str = "A_smem[:, :]", src: str = "A[0:1, :]") -> str:
    return KERNEL.replace("DST", dst).replace("SRC", src).replace("OPTIONS", options)


def ok(text: str, arch: str = "sm_100a", **options):
    result = transpile(text, "gather.tx", arch=arch, **options)
    assert result.ok, [(d.span.line, d.code, d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    return result


def refusal(text: str, arch: str = "sm_100a") -> str:
    """The one E0904 of the copy (at its position) and the tma variant's reason."""
    result = transpile(text, "gather.tx", arch=arch)
    errs = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line, d.span.col) for d in errs] == [("E0904", CALL_LINE, CALL_COL)], \
        [(d.code, d.span.line, d.message) for d in errs]
    notes = [n.message for n in errs[0].notes if "tma" in n.message]
    assert len(notes) == 1, [n.message for n in errs[0].notes]
    return notes[0]


def tensor_maps(result) -> list:
    return [p.tensor_map for p in result.program.kernels[0].spec.params if p.tensor_map is not None]


# -- the instruction ------------------------------------------------------------------------------

def test_the_upstream_call_issues_one_gather4_through_the_selected_map():
    result = ok(kernel())
    program = result.program.kernels[0]
    assert [d.variant for d in program.tile_dispatch][0] == "tma_explicit"
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes "
            "[%0], [%1, {%2, %3, %4, %5, %6}], [%7];") in result.cuda
    # the first candidate whose condition holds, else the main buffer's map: one instruction
    assert "unsigned long long tmap = (flag != 0) ? ((unsigned long long)&B_tmap) : ((unsigned long long)&A_tmap);" \
        in result.cuda
    # coordinates innermost first: the column, then the four rows
    assert f"{GATHER}(&A_smem_ptr[0], tmap, 0, 7, 3, 19, 5, &mbar_ptr[0]);" in result.cuda
    assert result.cuda.count(f"{GATHER}(&") == 1


def test_without_a_selector_the_main_map_is_the_operand_and_rows_may_be_run_time_values():
    result = ok(kernel('dispatch="tma_explicit", gather4=[tid, flag, 2 * flag + 1, 255]', src="A[0:1, 0:64]"))
    assert "?" not in result.cuda.split("Tx.copy_async")[1].split("\n    }")[0]
    assert f"{GATHER}(&A_smem_ptr[0], (unsigned long long)&A_tmap, 0, tid, flag, (2 * flag) + 1, 255, " \
           "&mbar_ptr[0]);" in result.cuda
    assert "B_tmap" not in result.cuda


def test_without_arch_the_kernel_needs_sm_100a():
    result = transpile(kernel(), "gather.tx")
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    assert "// Minimum architecture: sm_100a" in result.cuda


def test_options_of_the_tile_form_compose_with_gather4():
    result = ok(kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4], cache_hint="evict_last", '
                       'prefetch_tensormap=True, cta_mask=3'))
    call = next(line for line in result.cuda.splitlines() if f"{GATHER}_multicast__cluster_L2__cache_hint(&" in line)
    assert call.strip() == (f"tirx_ptx_cp_async_bulk_tensor_2d_shared__cluster_global_{GATHER}_multicast__cluster"
                            "_L2__cache_hint(&A_smem_ptr[0], (unsigned long long)&A_tmap, 0, 1, 2, 3, 4, "
                            "&mbar_ptr[0], 3u, 1508705875169116160ull);")  # evict_last: 0x14F0000000000000
    assert "prefetch_tensormap(&A_tmap)" in result.cuda.replace("tirx_ptx_prefetch_tensormap", "prefetch_tensormap")


def test_a_column_window_starts_the_box_at_its_column():
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', dst="A_smem[:, 0:32]", src="A[0:1, 32:64]")
    text = text.replace("T.TileLayout(T.S[4, 64])", "T.TileLayout(T.S[4, 32])").replace(
        "A_smem = T.decl_buffer((4, 64)", "A_smem = T.decl_buffer((4, 32)").replace(
        "Tx.cta.copy(Out[:, :], A_smem[:, :])", "Tx.cta.copy(Out[:, 0:32], A_smem[:, :])")
    result = ok(text)
    assert f"{GATHER}(&A_smem_ptr[0], (unsigned long long)&A_tmap, 32, 1, 2, 3, 4, &mbar_ptr[0]);" in result.cuda


SWIZZLED = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, ComposeLayout


@T.prim_func
def swizzled(A_ptr: T.handle, stage: T.int32):
    A = T.match_buffer(A_ptr, (256, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    Sm = T.alloc_buffer((2, 8, 64), "float16", scope="shared", align=1024, layout=ComposeLayout(3, 3, 3, S[(2, 8, 64)]))
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        Tx.copy_async(Sm[REGION], A[0:1, :], dispatch="tma_explicit", mbar=bar.ptr_to([0]), gather4=[0, 1, 2, 3])
'''


def test_rows_of_a_swizzled_buffer_start_at_their_unswizzled_address():
    # Rows 4..7 of a 128-byte-swizzled 8 x 64 half tile start 512 bytes into the 1024-byte repeat:
    # the instruction takes that address (element 256) and TMA's address swizzle puts each row
    # where the layout has it; the map carries the swizzle (3).
    result = ok(SWIZZLED.replace("REGION", "0, 4:8, :"))
    assert f"{GATHER}(&Sm_ptr[256], (unsigned long long)&A_tmap, 0, 0, 1, 2, 3, &bar_ptr[0]);" in result.cuda
    maps = tensor_maps(result)
    assert [(m.box, m.swizzle) for m in maps] == [((64, 1), 3)]


def test_a_run_time_stage_moves_the_address_by_whole_stages():
    result = ok(SWIZZLED.replace("REGION", "stage, 0:4, :"))
    assert f"{GATHER}(&Sm_ptr[(stage * 512)], (unsigned long long)&A_tmap, 0, 0, 1, 2, 3, &bar_ptr[0]);" \
        in result.cuda


# -- the tensor maps, through the launcher's own encoder logic -------------------------------------

class _FakeDriver:
    """cuTensorMapEncodeTiled's stand-in: records what would reach the driver."""

    def __init__(self):
        self.calls = []

    def __call__(self, out, data_type, rank, address, dims, strides, box, element_strides, *enums):
        self.calls.append((data_type, rank, address.value, list(dims), list(strides)[:rank - 1], list(box),
                           list(element_strides), enums))
        return 0


def test_each_map_is_one_row_high_and_encoded_for_its_own_array(tmp_path):
    launcher = load_launcher(tmp_path, ok(kernel(), until="launcher").launcher, "gather4")
    fn = launcher.kernel
    runtime = launcher.__tirxc_runtime__
    runtime.tensormap._ENCODER[0] = driver = _FakeDriver()  # the encoder the tensormap module looks up
    a = FakeArray((256, 64), "<f2", address=1 << 20)
    b = FakeArray((256, 64), "<f2", address=2 << 20)
    out = FakeArray((4, 64), "<f2", address=3 << 20)
    values, _, _ = fn._bind((a, b, np.int32(1), out))
    maps = {p["name"]: p for p in fn.spec["params"] if p["kind"] == "tensormap"}
    assert sorted(maps) == ["A_tmap", "B_tmap"]
    for name, address in (("A_tmap", 1 << 20), ("B_tmap", 2 << 20)):
        fields = runtime.tensor_map_fields(fn, maps[name], values)
        # float16 (6), rank 2, extents innermost first, a 128-byte row stride, box {64, 1}
        assert fields == (6, 2, (64, 256), (128,), (64, 1), (1, 1), 0, 0, 2, 0)
        runtime.tensormap.encode_tensor_map(fn, maps[name], fields, address)
    assert [call[2] for call in driver.calls] == [1 << 20, 2 << 20]
    assert all(call[5] == [64, 1] for call in driver.calls)


def test_a_narrower_window_of_a_wider_tensor_keeps_the_tensors_row_stride():
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', src="A[0:1, 0:64]").replace(
        'A = T.match_buffer(A_ptr, (256, 64), "float16")', 'A = T.match_buffer(A_ptr, (256, 96), "float16")')
    maps = tensor_maps(ok(text))
    assert [(tuple(d.value for d in m.dims), tuple(s.value for s in m.strides), m.box) for m in maps] == \
        [((96, 256), (192,), (64, 1))]


# -- refusals -------------------------------------------------------------------------------------

@pytest.mark.parametrize("options, dst, src, reason", [
    ('dispatch="tma_explicit", gather4=[1, 2, 3]', "A_smem[:, :]", "A[0:1, :]",
     "`gather4=` names exactly four rows, not 3 values"),
    ('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', "A_smem[:, :]", "A[0:4, :]",
     "the global region of a gather4 copy is one row (`A[0:1, ...]`, the rows being `gather4=`'s), not 4"),
    ('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', "A_smem[:, :]", "A[5:6, :]",
     "the global region of a gather4 copy is row 0:1 of `A`: the four rows `gather4=` names are absolute"),
    ('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', "A_smem[0:2, :]", "A[0:1, :]",
     "the shared region of a gather4 copy holds the four rows (4 x 64 elements), not (2, 64)"),
    ('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', "A_smem[0, 0:4]", "A[0:1, 0:4]",
     "a gather4 row is 8 bytes; TMA moves rows of a multiple of 16 bytes"),
    ("gather4=[1, 2, 3, 4]", "A_smem[:, :]", "A[0:1, :]", '`gather4=` needs dispatch="tma_explicit"'),
    ('dispatch="tma_auto", gather4=[1, 2, 3, 4]', "A_smem[:, :]", "A[0:1, :]",
     '`gather4=` needs dispatch="tma_explicit"'),
    ('dispatch="tma_explicit", src_selector=[(flag, A[0:8, :])]', "A_smem[:, :]", "A[0:4, :]",
     "item 0 of `src_selector=` is a region of `A`; a candidate is a whole buffer (a region or view of one is not "
     "supported yet)"),
    ('dispatch="tma_explicit", src_selector=[(1, B)]', "A_smem[:, :]", "A[0:4, :]",
     "the condition of item 0 of `src_selector=` is not a run-time value"),
    ('dispatch="tma_explicit", src_selector=[(flag, B), flag]', "A_smem[:, :]", "A[0:4, :]",
     "item 1 of `src_selector=` is not a (condition, global buffer) pair"),
])
def test_refusals(options, dst, src, reason):
    note = refusal(kernel(options, dst, src))
    assert reason in note, note


def test_a_candidate_of_another_dtype_is_refused():
    text = kernel('dispatch="tma_explicit", src_selector=[(flag, B)]', src="A[0:4, :]").replace(
        'B = T.match_buffer(B_ptr, (256, 64), "float16")', 'B = T.match_buffer(B_ptr, (256, 32), "float32")')
    assert refusal(text).endswith("the candidate `B` of `src_selector=` is float32; `A` is float16")


def test_a_selector_on_a_tile_copy_selects_the_map_of_every_box():
    # without gather4: the main region's box through whichever map the condition picks
    result = ok(kernel('dispatch="tma_explicit", src_selector=[(flag == 1, B)]', src="A[4:8, :]"))
    assert "unsigned long long tmap = (flag == 1) ? ((unsigned long long)&B_tmap) : ((unsigned long long)&A_tmap);" \
        in result.cuda
    assert "tile_mbarrier__complete_tx__bytes(&A_smem_ptr[0], tmap, 0, 4, &mbar_ptr[0]);" in result.cuda
    assert [m.box for m in tensor_maps(result)] == [(64, 4), (64, 4)]


def test_gather4_needs_sm_100():
    note = refusal(kernel(), arch="sm_90a")
    assert note == ("variant `tma_explicit`: as `tma`: TMA gather4 (`gather4=`) needs "
                    "sm_100a, sm_101a, sm_103a, sm_110a, sm_100f, sm_101f, sm_103f or sm_110f; the target is sm_90a"), note


def test_a_store_takes_no_gather4():
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', dst="A[0:1, :]", src="A_smem[:, :]").replace(
        "mbar=mbar_ptr, ", "")
    assert refusal(text).endswith("`gather4=` is only for global-to-shared copies")


def test_a_tensor_of_three_dimensions_is_refused():
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', src="A[0, 0:1, :]").replace(
        'A = T.match_buffer(A_ptr, (256, 64), "float16")', 'A = T.match_buffer(A_ptr, (2, 256, 64), "float16")')
    assert refusal(text).endswith("TMA gather4 reads rows of a 2-d tensor; `A` has 3 dimensions")


@pytest.mark.parametrize("first, accepted", [(1, False), (2, True)])
def test_the_rows_start_on_a_128_byte_boundary(first, accepted):
    # 32 half elements a row: row 1 starts at byte 64, row 2 at byte 128
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]', dst=f"A_smem[{first}:{first + 4}, :]",
                  src="A[0:1, 0:32]").replace("T.TileLayout(T.S[4, 64])", "T.TileLayout(T.S[8, 32])").replace(
        "A_smem = T.decl_buffer((4, 64)", "A_smem = T.decl_buffer((8, 32)").replace(
        "Tx.cta.copy(Out[:, :], A_smem[:, :])", "Tx.cta.copy(Out[:, 0:32], A_smem[2:6, :])")
    if accepted:
        assert f"{GATHER}(&A_smem_ptr[64], (unsigned long long)&A_tmap, 0, 1, 2, 3, 4, " in ok(text).cuda
    else:
        assert refusal(text).endswith("the gather4 rows start at byte 64 of `A_smem`, not at a multiple of 128 bytes")


def test_a_store_takes_no_selector():
    text = kernel('dispatch="tma_explicit", src_selector=[(flag, B)]', dst="A[0:4, :]", src="A_smem[:, :]").replace(
        "mbar=mbar_ptr, ", "")
    assert refusal(text).endswith("`src_selector=` is only for global-to-shared copies")


def test_a_destination_the_rows_do_not_fill_as_tma_writes_them_is_refused():
    # a column-major tile: the four rows are not one after another
    text = kernel('dispatch="tma_explicit", gather4=[1, 2, 3, 4]').replace(
        "T.TileLayout(T.S[4, 64])", "T.TileLayout(T.S[(4, 64):(1, 4)])")
    assert refusal(text).endswith("the layout of `A_smem` does not hold the four rows as TMA writes them "
                                  "(64-element rows one after another)")


def test_rows_wider_than_the_swizzle_span_are_refused():
    text = SWIZZLED.replace("REGION", "0, 0:4, :").replace("(2, 8, 64)", "(2, 8, 128)").replace(
        "(256, 64)", "(256, 128)")
    result = transpile(text, "gather.tx", arch="sm_100a")
    notes = [n.message for d in result.diagnostics for n in d.notes if "tma_explicit" in n.message]
    assert notes and notes[0].endswith("a gather4 row is 128 elements; one instruction moves rows of at most 64 "
                                       "(the 128-byte swizzle span): split the columns over several calls"), notes


# -- nvcc -----------------------------------------------------------------------------------------

@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", ["upstream", "swizzled_stage", "options"])
def test_compiles_warning_free_for_sm_100a(tmp_path, name):
    text = {"upstream": kernel(), "swizzled_stage": SWIZZLED.replace("REGION", "stage, 4:8, :"),
            "options": kernel('dispatch="tma_explicit", gather4=[tid, 2, 3, 4], cache_hint="evict_last", '
                              'prefetch_tensormap=True, cta_mask=3, src_selector=[(flag, B)]')}[name]
    cu = tmp_path / f"{name}.cu"
    cu.write_text(ok(text).cuda)
    rc, out = nvcc(cu, "sm_100a", tmp_path)
    assert rc == 0 and "warning" not in out, out
