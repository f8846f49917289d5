"""`tirxc info`: the resource report of each kernel, its JSON and its SVG.

Most facts are checked on the report data (`info.report`), which the text, JSON
and SVG outputs are all printed from; the command line itself is run for exit
codes, error rendering, the output files and determinism.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from transpiler.cli import info
from transpiler.driver import compile_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SVG_NS = "{http://www.w3.org/2000/svg}"

PADDED = """\
from tvm.script import tirx as T


@T.prim_func
def padded(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    tx = T.thread_id([64])
    pool = T.SMEMPool()
    flag = pool.alloc((1,), "uint32")
    tile = pool.alloc((64,), "float32", align=128)
    pool.move_base_to(0)
    again = pool.alloc((16,), "float32")
    pool.commit(1024)
    flag[0] = T.uint32(1)
    tile[tx] = A[tx]
    T.cuda.cta_sync()
    again[tx % 16] = tile[tx]
    A[tx] = again[tx % 16]
"""

BROKEN = """\
from tvm.script import tirx as T


@T.prim_func
def broken(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    tx = T.thread_id([64])
    A[tx] = undefined_name
"""


def kernel(path_or_name: str, text: str | None = None) -> dict:
    """The report of the first kernel of a sample (by stem) or of inline source."""
    if text is None:
        path = SAMPLES / f"{path_or_name}.tx"
        name, data = str(path), path.read_bytes()
    else:
        name, data = path_or_name, text.encode()
    result = compile_file(name, data, until="cuda")
    assert result.ok, result.diagnostics
    return info.report(result.program)["kernels"][0]


def spans(entries, *keys) -> list[tuple]:
    return [tuple(e[k] for k in keys) for e in entries]


def run(*args, cwd=None, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TIRXC_DEBUG")}
    full_env["PYTHONPATH"] = str(ROOT)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "transpiler", "info", *map(str, args)], capture_output=True,
                          cwd=cwd, env=full_env, timeout=120)


# ---- the arena map -------------------------------------------------------------------------

def test_pool_rewind_shows_as_an_overlap():
    k = kernel("smem_pool")
    arena = k["arena"]
    assert (arena["c_name"], arena["bytes"], arena["align"]) == ("smem_ptr", 65536, 128)
    assert spans(arena["buffers"], "name", "start", "end", "align", "line") == [
        ("As", 0, 32768, 128, 25), ("Bs", 32768, 65536, 128, 26), ("Cs", 0, 32768, 128, 40)]
    assert arena["gaps"] == []
    assert spans(arena["overlaps"], "buffer", "with", "start", "end") == [("Cs", "As", 0, 32768)]
    assert k["shared"]["dynamic"] == 65536 and k["shared"]["opt_in"]
    text = info.render_text(info.report(compile_file("smem_pool.tx", (SAMPLES / "smem_pool.tx").read_bytes()).program))
    assert "    0..32768      32768  As      float32[128, 64]    128    25\n" in text
    assert "    overlap  0..32768 (32768 B): Cs reuses bytes of As\n" in text
    assert "over 48 KiB: the launcher raises the kernel's dynamic shared limit" in text


def test_decl_buffer_views_over_a_named_arena():
    arena = kernel("dyn_smem_views")["arena"]
    assert (arena["name"], arena["c_name"], arena["bytes"], arena["align"]) == ("arena", "arena_ptr", 512, 64)
    assert spans(arena["buffers"], "name", "start", "end", "shape") == [("As", 0, 256, [64]), ("Bs", 256, 512, [64])]
    assert arena["gaps"] == [] and arena["overlaps"] == []


def test_alignment_padding_unused_tail_and_rewind():
    arena = kernel("padded.tx", PADDED)["arena"]
    # the alignment each view's address has: at offset 0 the arena's (128), not the 4 asked for
    assert spans(arena["buffers"], "name", "start", "end", "align") == [
        ("flag", 0, 4, 128), ("tile", 128, 384, 128), ("again", 0, 64, 128)]
    # `again` covers 4..64 after the rewind; 64..128 is the padding before the 128-aligned `tile`
    assert spans(arena["gaps"], "start", "end", "kind", "align") == [(64, 128, "padding", 128),
                                                                      (384, 1024, "unused", None)]
    assert spans(arena["overlaps"], "buffer", "with", "start", "end") == [("again", "flag", 0, 4)]


def test_no_arena_no_tmem():
    k = kernel("saxpy")
    assert k["arena"] is None and k["tmem"] is None
    assert k["shared"]["total"] == 0


# ---- tensor memory ------------------------------------------------------------------------

def test_tmem_pool_columns():
    k = kernel("tmem_pool")
    tmem = k["tmem"]
    assert tmem["allocated"] == 512 and tmem["lanes"] == 128
    assert spans(tmem["buffers"], "name", "start", "end", "columns", "line") == [
        ("acc", 0, 256, 256, 26), ("acc2", 256, 512, 256, 27)]
    assert tmem["overlaps"] == []
    # the pool's slot is the arena's only buffer
    assert spans(k["arena"]["buffers"], "name", "start", "end") == [("tmem_addr", 0, 4)]


def test_tmem_manual_decl_buffer():
    k = kernel("tmem_manual")
    assert k["tmem"]["allocated"] == 512
    assert spans(k["tmem"]["buffers"], "name", "start", "end") == [("acc", 0, 512)]
    assert spans(k["shared"]["arrays"], "name", "dtype", "bytes") == [("addr", "uint32", 4)]
    assert k["arena"] is None


def test_tmem_overlap():
    # (a view past the allocated columns is an error, E0708, in tests/check/cases/tmem_bounds.tx)
    text = (SAMPLES / "tmem_manual.tx").read_text().replace(
        "    r = T.alloc_local((8,), \"uint32\")\n",
        "    acc2 = T.decl_buffer((CTA_M, 128), \"float32\", scope=\"tmem\", allocated_addr=256)\n"
        "    r = T.alloc_local((8,), \"uint32\")\n")
    tmem = kernel("two_views.tx", text)["tmem"]
    assert spans(tmem["buffers"], "name", "start", "end") == [("acc", 0, 512), ("acc2", 256, 384)]
    assert spans(tmem["overlaps"], "buffer", "with", "start", "end") == [("acc2", "acc", 256, 384)]


# ---- architecture, launch shape, registers, parameters ---------------------------------------

def test_architecture_and_its_reason():
    k = kernel("mma_gemm_fp16")
    assert k["min_arch"] == "sm_80"
    assert spans(k["arch_reasons"], "arch", "line") == [("sm_80", 62)]
    assert k["arch_reasons"][0]["helper"].startswith("tirx_ptx_mma_sync_aligned_m16n8k16")
    assert [x["arch"] for x in k["shared"]["limits"]][0] == "sm_80"  # sm_75 cannot run it
    tmem = kernel("tmem_pool")
    assert tmem["min_arch"] == "sm_100a"
    # arch-specific code runs on that architecture only
    assert spans(tmem["shared"]["limits"], "arch", "bytes", "fits") == [("sm_100", 232448, True)]


def test_per_architecture_opt_in_limits():
    limits = {x["arch"]: x["bytes"] for x in kernel("smem_pool")["shared"]["limits"]}
    assert limits["sm_80"] == 163 * 1024 and limits["sm_86"] == 99 * 1024
    assert limits["sm_90"] == limits["sm_100"] == 232448


def test_symbolic_grid_and_parameters():
    k = kernel("saxpy")
    assert k["grid"] == ["ceildiv(n, 256)", "1", "1"]
    assert (k["block"], k["threads"], k["launch_bounds"]) == ([256, 1, 1], 256, 256)
    assert [(p["name"], p["kind"], p["dtype"], p.get("shape")) for p in k["params"]] == [
        ("a", "scalar", "float32", None), ("x", "buffer", "float32", ["n"]), ("y", "buffer", "float32", ["n"]),
        ("n", "extent", "int32", None)]
    assert k["params"][1]["readonly"] and not k["params"][2]["readonly"]


def test_register_arrays():
    assert spans(kernel("registers_unroll")["registers"], "name", "c_name", "dtype", "elements", "bytes") == [
        ("r", "r_ptr", "float32", 4, 16)]
    mma = kernel("mma_gemm_fp16")
    assert spans(mma["registers"], "name", "elements", "bytes") == [("acc", 32, 128), ("a_frag", 8, 32),
                                                                     ("b_frag", 8, 32)]
    assert spans(mma["shared"]["arrays"], "name", "bytes") == [("As", 4096), ("Bs", 4096)]


# ---- the command line ----------------------------------------------------------------------

def test_text_json_and_svg(tmp_path):
    picture = tmp_path / "smem_pool.svg"
    result = run(SAMPLES / "smem_pool.tx", "--svg", picture)
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode().startswith("smem_pool.tx: 1 kernel\n\nkernel smem_pool (CUDA symbol ")
    root = ET.fromstring(picture.read_text())
    assert root.tag == f"{SVG_NS}svg"
    titles = [t.text for t in root.iter(f"{SVG_NS}title")]
    assert "As float32[128, 64]: bytes 0..32768, align 128, line 25" in titles
    assert "Bs float32[128, 64]: bytes 32768..65536, align 128, line 26" in titles
    assert "Cs reuses bytes 0..32768 of As" in titles
    as_band = next(r for r in root.iter(f"{SVG_NS}rect") if r.findtext(f"{SVG_NS}title", "").startswith("As "))
    bs_band = next(r for r in root.iter(f"{SVG_NS}rect") if r.findtext(f"{SVG_NS}title", "").startswith("Bs "))
    assert float(as_band.get("x")) + float(as_band.get("width")) == pytest.approx(float(bs_band.get("x")))
    data = json.loads(run(SAMPLES / "smem_pool.tx", "--json").stdout)
    assert data == info.report(compile_file("smem_pool.tx", (SAMPLES / "smem_pool.tx").read_bytes()).program)


def test_svg_padding_is_hatched_and_tmem_drawn(tmp_path):
    source = tmp_path / "padded.tx"
    source.write_text(PADDED)
    picture = tmp_path / "padded.svg"
    assert run(source, "--svg", picture).returncode == 0
    root = ET.fromstring(picture.read_text())
    pad = [r for r in root.iter(f"{SVG_NS}rect") if r.findtext(f"{SVG_NS}title", "").startswith("padding")]
    assert [r.get("fill") for r in pad] == ["url(#padding)"]
    assert root.find(f".//{SVG_NS}pattern[@id='padding']") is not None
    assert run(SAMPLES / "tmem_pool.tx", "--svg", picture).returncode == 0
    titles = [t.text for t in ET.fromstring(picture.read_text()).iter(f"{SVG_NS}title")]
    assert "tcgen05.alloc: columns 0..512" in titles
    assert "acc float32[128, 256]: columns 0..256, line 26" in titles
    assert "acc2 float32[128, 256]: columns 256..512, line 27" in titles


def test_input_errors_are_rendered_like_compile_errors(tmp_path):
    source = tmp_path / "broken.tx"
    source.write_text(BROKEN)
    picture = tmp_path / "broken.svg"
    result = run(source, "--svg", picture)
    assert result.returncode == 1 and result.stdout == b""
    assert f"{source}:9:13: error[E0300]: unknown name `undefined_name`" in result.stderr.decode()
    assert not picture.exists()


def test_usage_errors_exit_2(tmp_path):
    assert run(tmp_path / "missing.tx").returncode == 2
    assert run(SAMPLES / "saxpy.tx", "--no-such-flag").returncode == 2
    source = tmp_path / "k.tx"
    source.write_text(BROKEN)
    assert run(source, "--svg", source).returncode == 2  # would overwrite its own input
    assert source.read_text() == BROKEN


def test_output_is_deterministic(tmp_path):
    outputs = []
    for seed, cwd in (("0", ROOT), ("12345", tmp_path)):
        picture = tmp_path / f"out{seed}.svg"
        text = run(SAMPLES / "tmem_pool.tx", "--svg", picture, cwd=cwd, env={"PYTHONHASHSEED": seed})
        data = run(SAMPLES / "smem_pool.tx", "--json", cwd=cwd, env={"PYTHONHASHSEED": seed})
        outputs.append((text.stdout, data.stdout, picture.read_bytes()))
    assert outputs[0] == outputs[1]
    assert str(ROOT).encode() not in outputs[0][0] + outputs[0][1] + outputs[0][2]


def test_global_workspaces_are_listed_apart_from_the_parameters():
    k = kernel("global_workspace")
    assert [p["name"] for p in k["params"]] == ["A", "total", "n"]
    assert spans(k["workspaces"], "name", "dtype", "shape", "line") == [
        ("partials", "float32", ["ceildiv(n, 256)"], 31), ("tickets", "int32", ["1"], 32)]


# ---- the alignment a view has, overlaps in linear time, host expressions -------------------------------------

UNALIGNED = """\
from tvm.script import tirx as T


@T.prim_func
def views(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    T.device_entry()
    tx = T.thread_id([64])
    arena = T.alloc_buffer((256,), "float32", scope="shared.dyn")
    V0 = T.decl_buffer((4,), "float32", data=arena.data, elem_offset=1, scope="shared.dyn")
    V1 = T.decl_buffer((4,), "float32", data=arena.data, elem_offset=4, scope="shared.dyn")
    V2 = T.decl_buffer((4,), "float32", data=arena.data, elem_offset=8, scope="shared.dyn")
    V3 = T.decl_buffer((4,), "float32", data=arena.data, elem_offset=32, scope="shared.dyn")
    V4 = T.decl_buffer((4,), "float32", data=arena.data, scope="shared.dyn")
    V0[0] = A[tx]
    V1[0] = V0[1]
    V2[0] = V1[1]
    V3[0] = V2[1]
    A[tx] = V3[1] + V4[0]
"""


def test_a_views_alignment_is_the_one_its_address_has():
    """A view at byte 4 of a 64-byte aligned arena is 4-byte aligned, whatever align= says;
    one at byte 0 has the arena's alignment."""
    arena = kernel("unaligned.tx", UNALIGNED)["arena"]
    assert arena["align"] == 64
    assert spans(arena["buffers"], "name", "start", "align") == [("V0", 4, 4), ("V1", 16, 16), ("V2", 32, 32),
                                                                 ("V3", 128, 64), ("V4", 0, 64)]
    text = info.render_text(info.report(compile_file("unaligned.tx", UNALIGNED.encode(), until="cuda").program))
    assert "    4..20       16  V0      float32[4]      4    10\n" in text
    assert info.address_align(96, 1024) == 32 and info.address_align(0, 16) == 16 and \
        info.address_align(-1, 64) is None


class _Placed:
    def __init__(self, name, start, end):
        self.name, self.start, self.end = name, start, end


def test_overlaps_are_every_pair_sharing_bytes_in_the_order_of_a_pairwise_scan():
    import random
    rng = random.Random(7)
    for _ in range(200):
        placed = []
        for i in range(rng.randrange(0, 14)):
            start = rng.randrange(0, 40)
            placed.append(_Placed(f"b{i}", start, start + rng.randrange(0, 12)))
        expected = [(later.name, earlier.name, max(earlier.start, later.start), min(earlier.end, later.end))
                    for i, later in enumerate(placed) for earlier in placed[:i]
                    if max(earlier.start, later.start) < min(earlier.end, later.end)]
        assert spans(info._overlaps(placed), "buffer", "with", "start", "end") == expected


def test_overlaps_take_time_in_the_views_and_overlaps_not_their_square():
    """100,000 views side by side: a pairwise scan would compare 5e9 pairs."""
    import time
    placed = [_Placed(f"v{i}", 16 * i, 16 * i + 16) for i in range(100_000)]
    placed.append(_Placed("whole", 0, 16 * 100_000))
    started = time.perf_counter()
    overlaps = info._overlaps(placed)
    assert len(overlaps) == 100_000 and overlaps[0]["buffer"] == "whole"
    assert time.perf_counter() - started < 10


def test_many_views_are_reported_in_linear_time():
    views = 3000
    lines = ["from tvm.script import tirx as T", "", "", "@T.prim_func", "def views(A_ptr: T.handle):",
             '    A = T.match_buffer(A_ptr, (64,), "float32")', "    T.device_entry()", "    tx = T.thread_id([64])",
             f'    arena = T.alloc_buffer(({views * 4},), "float32", scope="shared.dyn")']
    lines += [f'    V{i} = T.decl_buffer((4,), "float32", data=arena.data, elem_offset={4 * i}, scope="shared.dyn")'
              for i in range(views)]
    lines += ["    V0[0] = A[tx]", f"    A[tx] = V{views - 1}[1]", ""]
    program = compile_file("views.tx", "\n".join(lines).encode(), until="cuda").program
    import time
    started = time.perf_counter()
    report = info.report(program)
    info.render_text(report)
    info.render_svg(report)
    assert time.perf_counter() - started < 10
    assert len(report["kernels"][0]["arena"]["buffers"]) == views and report["kernels"][0]["arena"]["overlaps"] == []


HOST = """\
from tvm.script import tirx as T


@T.prim_func
def host(A_ptr: T.handle, n: T.int32, m: T.int32):
    A = T.match_buffer(A_ptr, ((T.truncdiv(n - 1000, 1000) + 1) * 1000, T.truncmod(m, 7) + T.min(n, 3),
                               T.Select(n > m, n, m)), "float32")
    T.device_entry()
    bx = T.cta_id([T.ceildiv(n, 256)])
    tx = T.thread_id([32])
    A[0, 0, 0] = 1.0
"""


def test_host_expressions_are_shown_as_the_source_writes_them():
    k = kernel("host.tx", HOST)
    assert k["grid"] == ["ceildiv(n, 256)", "1", "1"]
    assert k["params"][0]["shape"] == ["(truncdiv(n - 1000, 1000) + 1) * 1000", "truncmod(m, 7) + min(n, 3)",
                                       "n if (n > m) else m"]
