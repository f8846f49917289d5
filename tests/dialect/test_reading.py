"""Reading an older spelling: the forms one at a time, a kernel mixing spellings, forms not migrated
yet, diagnostics pointed into the file as written, and files in today's spelling left alone."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from transpiler.driver import migrate_source
from transpiler.syntax.source import SourceFile

HEAD = "from tvm.script import tirx as Tx\n\n\n@Tx.prim_func\ndef k(A: Tx.Buffer((128,), \"float32\")):\n"


def migrate(body: str, head: str = HEAD) -> str:
    reading = migrate_source(SourceFile("k.tx", head + body))
    assert not reading.stop, [d.message for d in reading.diagnostics]
    return reading.text[len(head) - len(HEAD) + HEAD.index("@"):]


@pytest.mark.parametrize("old, new", [
    ("    with Tx.kernel():\n        Tx.cta_id([1], parent=\"kernel\")\n",
     "    T.device_entry()\n    T.cta_id([1])\n"),
    ("    with Tx.kernel():  # the device code\n        tid = Tx.thread_id([128], parent=\"cta\")\n",
     "    T.device_entry()  # the device code\n    tid = T.thread_id([128])\n"),
    ("    with Tx.kernel():\n        lane = Tx.thread_id([32], parent=\"warp\")\n",
     "    T.device_entry()\n    lane = T.lane_id([32])\n"),
    ("    with Tx.kernel():\n        w = Tx.warp_id(\n            [4], parent=\"warpgroup\")\n",
     "    T.device_entry()\n    w = T.warp_id_in_wg(\n        [4])\n"),
    ("    with Tx.kernel():\n        c = Tx.cta_id([2], parent=\"cluster\")\n",
     "    T.device_entry()\n    c = T.cta_id_in_cluster([2])\n"),
])
def test_thread_ids_and_the_kernel_block(old, new):
    assert migrate(old).split("\n", 2)[2] == new


@pytest.mark.parametrize("old, new", [
    ("Tx.ptx.mbarrier.init(b, 1)", "T.ptx.mbarrier.init.shared.b64(b, 1)"),
    ("Tx.ptx.mbarrier.try_wait(b, p)", "T.cuda.mbarrier_wait(b, p)"),
    ("Tx.ptx.mbarrier.arrive.expect_tx(b, 64)", "T.ptx.mbarrier.arrive.expect_tx.shared.b64(b, 64)"),
    ("Tx.ptx.fence.proxy_async(\"shared::cta\")", "T.ptx[\"fence.proxy.async.shared::cta\"]()"),
    ("Tx.ptx.fence.mbarrier_init()", "T.ptx.fence.mbarrier_init.release.cluster()"),
    ("Tx.ptx.tcgen05.fence.before_thread_sync()", "T.ptx.tcgen05.fence__before_thread_sync()"),
    ("Tx.ptx.tcgen05.wait.st()", "T.ptx.tcgen05.wait__st.sync.aligned()"),
    ("Tx.ptx.tcgen05.commit(b, cta_group=2)",
     "T.ptx[\"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64\"](b)"),
    ("Tx.ptx.tcgen05.commit(b, cta_group=2, cta_mask=Tx.uint16(3))",
     "T.ptx[\"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64\"]"
     "(b, T.uint16(3))"),
    ("x = Tx.PoolAllocator()", "x = T.SMEMPool()"),
    ("Tx.ptx.cp_async.bulk.commit_group()", "T.ptx.cp.async_.bulk.commit_group()"),
    ("Tx.ptx.cp_async.bulk.wait_group(0)", "T.ptx.cp.async_.bulk.wait_group.read(0)"),
    ("Tx.ptx.cp_async.bulk.wait_group(1, read=False)", "T.ptx.cp.async_.bulk.wait_group(1)"),
    ("Tx.ptx.elect_sync()", "T.cuda.elect_sync()"),
])
def test_keyword_ptx_wrappers_and_the_pool(old, new):
    assert migrate(f"    T.device_entry()\n    {old}\n").split("\n")[-2] == f"    {new}"


def test_scope_blocks_give_their_scope_to_their_tile_calls():
    old = ("    with Tx.kernel():\n        with Tx.cta():\n            # both tiles\n            Tx.copy(a, b)\n"
           "        with Tx.thread()[Tx.ptx.elect_sync()]:\n            Tx.gemm_async(c, a, b)\n"
           "        Tx.fill(a, 0)\n")
    new = ("    T.device_entry()\n    # both tiles\n    Tx.cta.copy(a, b)\n    if T.cuda.elect_sync():\n"
           "        Tx.gemm_async(c, a, b)\n    Tx.fill(a, 0)\n")
    text = migrate_source(SourceFile("k.tx", HEAD + old)).text
    assert text.startswith("from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n")
    assert text.endswith(new)


def test_imports_that_moved():
    head = ("from tvm.script import tirx as Tx\nfrom tvm.tir.layout import S, TileLayout\n"
            "from tvm.tirx.op_schedule.cuda.common import tma_shared_layout, SwizzleMode\n")
    text = migrate_source(SourceFile("k.tx", head + HEAD[HEAD.index("\n") + 1:] + "    with Tx.kernel():\n"
                                     "        pass\n")).text
    assert text.startswith("from tvm.script import tirx as T\nfrom tvm.tirx.layout import S, TileLayout\n"
                           "from tvm.backend.cuda.tile_primitive.tma_utils import mma_shared_layout as "
                           "tma_shared_layout, SwizzleMode\n")


def test_a_kernel_mixing_spellings_is_one_error_that_says_so():
    result = transpile(HEAD + "    Tx.device_entry()\n    Tx.cta_id([1], parent=\"kernel\")\n", "k.tx")
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("E0210", 6)]
    message = result.diagnostics[0].message
    assert "mixes an older spelling of TIRx with today's" in message and "T.device_entry" in message
    assert result.diagnostics[0].notes[0].span.line == 7


def test_a_form_mixes_only_with_a_spelling_older_than_it():
    # June's spelling had `T.device_entry()` and still the keyword PTX wrappers
    june = migrate_source(SourceFile("k.tx", HEAD + "    Tx.device_entry()\n    Tx.ptx.mbarrier.init(b, 1)\n"))
    assert not june.stop and june.era == "june"
    # the PTX table's spellings came in August, after the wrappers
    body = "    Tx.device_entry()\n    Tx.ptx.fence.mbarrier_init()\n    Tx.ptx[\"fence.proxy.async\"]()\n"
    mixed = transpile(HEAD + body, "k.tx")
    assert [d.code for d in mixed.diagnostics] == ["E0210"]


def test_kernels_of_one_file_may_differ_in_spelling():
    second = "\n\n@Tx.prim_func\ndef j(A: Tx.Buffer((128,), \"float32\")):\n    Tx.device_entry()\n"
    reading = migrate_source(SourceFile("k.tx", HEAD + "    with Tx.kernel():\n        pass\n" + second))
    assert not reading.stop and reading.migrated


def test_a_form_not_migrated_yet_is_refused_by_name():
    result = transpile(HEAD + "    with Tx.kernel():\n        with Tx.warp()[0:1]:\n            pass\n", "k.tx")
    assert [d.code for d in result.diagnostics] == ["E0211"]
    assert "not supported yet" in result.diagnostics[0].message


def test_a_raw_bulk_copy_wrapper_is_refused_by_name():
    result = transpile(HEAD + "    Tx.device_entry()\n    Tx.ptx.cp_async.bulk.tensor.g2c(a, b, c)\n", "k.tx")
    assert [d.code for d in result.diagnostics] == ["E0211"]
    assert "`T.ptx.cp_async.bulk.tensor.g2c` is not supported yet" in result.diagnostics[0].message


def test_diagnostics_point_into_the_file_as_written():
    text = HEAD + "    with Tx.kernel():\n        bx = Tx.cta_id([1], parent=\"kernel\")\n        y = undefined_name\n"
    result = transpile(text, "k.tx")
    notes = [d for d in result.diagnostics if d.severity == "note"]
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert len(notes) == 1 and "read as the pre-upstream fork's spelling" in notes[0].message
    assert [(d.span.line, d.span.col) for d in errors] == [(8, 13)]


def test_a_file_in_todays_spelling_is_left_alone():
    text = HEAD.replace("Tx", "T") + "    T.device_entry()\n    T.cta_id([1])\n"
    reading = migrate_source(SourceFile("k.tx", text))
    assert not reading.migrated and reading.text == text and reading.diagnostics == []


def test_a_range_of_a_scope_is_an_if_on_its_id():
    old = ("    with Tx.kernel():\n        wg = Tx.warpgroup_id([2], parent=\"cta\")\n"
           "        w = Tx.warp_id([4], parent=\"warpgroup\")\n"
           "        with Tx.warpgroup()[0:1]:\n            with Tx.warp()[1:3]:\n                Tx.copy(a, b)\n")
    new = ("    T.device_entry()\n    wg = T.warpgroup_id([2])\n    w = T.warp_id_in_wg([4])\n"
           "    if wg == 0:\n        if 1 <= w and w < 3:\n            Tx.warp.copy(a, b)\n")
    assert migrate_source(SourceFile("k.tx", HEAD + old)).text.endswith(new)


def test_a_range_without_its_id_is_refused():
    result = transpile(HEAD + "    with Tx.kernel():\n        with Tx.warp()[0:1]:\n            pass\n", "k.tx")
    assert [d.code for d in result.diagnostics] == ["E0211"]
    assert "no warp id declared" in result.diagnostics[0].message


def test_the_dialect_imported_as_a_module_and_an_ir_module_class():
    old = ("import tvm.script.tirx as Tx\nfrom tvm.script import ir as I\n\n\n@I.ir_module(tirx=True)\nclass Mod:\n"
           "    @Tx.prim_func(tirx=True)\n    def k(A: Tx.Buffer((128,), \"float32\")):\n        with Tx.kernel():\n"
           "            with Tx.cta():\n                Tx.fill(A[:], 0)\n")
    new = ("import tvm.script.tirx as T\nfrom tvm.script.tirx import tile as Tx\nfrom tvm.script import ir as I\n\n\n"
           "@I.ir_module\nclass Mod:\n    @T.prim_func\n    def k(A: T.Buffer((128,), \"float32\")):\n"
           "        T.device_entry()\n        Tx.cta.fill(A[:], 0)\n")
    assert migrate_source(SourceFile("k.tx", old)).text == new


@pytest.mark.parametrize("old, new", [
    ("if Tx.filter(w, 0, 1):", "if w == 0:"),
    ("if Tx.filter(w, 1, n):", "if (1 <= w and w < n):"),
    ("if Tx.filter(w, w % 2 == Tx.int32(0)):", "if (w % 2 == T.int32(0)):"),
])
def test_mays_thread_filter_is_a_condition(old, new):
    body = f"    with Tx.kernel():\n        {old}\n            pass\n"
    text = migrate_source(SourceFile("k.tx", HEAD + body)).text
    assert text.endswith(f"    T.device_entry()\n    {new}\n        pass\n")


def test_the_compiler_reads_every_line_where_the_file_has_it():
    # the tile import the migration adds joins the dialect's import and a dropped `with` header leaves
    # an empty line (`tirxc migrate` gives the import a line and drops the header's)
    text = HEAD + ("    with Tx.kernel():\n        with Tx.cta():\n            Tx.fill(A[0:4], 0)\n"
                   "        y = undefined\n")
    reading = migrate_source(SourceFile("k.tx", text))
    assert reading.source.text.split("\n")[0] == ("from tvm.script import tirx as T; "
                                                  "from tvm.script.tirx import tile as Tx")
    assert reading.source.text.count("\n") == text.count("\n")
    assert reading.source.text.split("\n")[5:8] == ["    T.device_entry()", "", "    Tx.cta.fill(A[0:4], 0)"]
    assert reading.text.split("\n")[1] == "from tvm.script.tirx import tile as Tx"
    assert reading.text.count("\n") == text.count("\n")  # a line added, a line gone
    errors = [d for d in transpile(text, "k.tx").diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line) for d in errors] == [("E0300", 9)]


def test_a_block_indented_with_tabs_is_refused_not_broken():
    result = transpile(HEAD + "\twith Tx.kernel():\n\t\tTx.cta_id([1], parent=\"kernel\")\n", "k.tx")
    assert [d.code for d in result.diagnostics] == ["E0211"]
