"""tirxc's version of TIRx's helper library (transpiler/sema/library/*.tx, sema/library/prelude.py): its
sources parse and ship in the wheel, its imports bind the upstream names, and the CUDA its
classes emit compiles warning-free with nvcc. What they compute is checked on the host
(test_hostrun.py: PipelineState) and on the GPU (tests/gpu/test_pipeline_library.py)."""
from __future__ import annotations

import re
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from tests.conftest import has_nvcc, transpile
from transpiler.diag.diagnostics import Diagnostics
from transpiler.sema.library import prelude
from transpiler.sema.library.imports import LIBRARY_MODULES
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("short", sorted(prelude.SOURCES))
def test_library_source_parses(short):
    text = resources.files("transpiler.sema.library").joinpath(prelude.SOURCES[short]).read_text(encoding="utf-8")
    diags = Diagnostics()
    assert parse(SourceFile(short, text), diags) is not None, [d.message for d in diags.items]


def test_library_sources_are_package_data():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"transpiler.sema.library" = ["*.tx"]' in text
    assert '"transpiler.sema.library"' in text.split("[tool.setuptools.package-dir]")[0]
    shipped = {p.name for p in (ROOT / "transpiler" / "sema" / "library").glob("*.tx")}
    assert shipped == set(prelude.SOURCES.values())


@pytest.mark.parametrize("short", sorted(prelude.SOURCES))
def test_every_public_name_of_a_library_source_is_importable(short):
    """Each class or function the library source defines (not `_private`) is a name of the
    upstream module, and an import of it compiles and binds it (no refusal where it is used)."""
    names = sorted(n for n in prelude._names(short) if not n.startswith("_"))
    modules = ("tvm.tirx.bench",) if short == "bench" else \
        (f"tvm.tirx.lang.{short}", f"tvm.backend.cuda.lang.{short}", "tvm.tirx.lang")
    assert names and set(names) <= set(LIBRARY_MODULES[modules[0]])
    for module in modules:
        source = (f"from tvm.script import tirx as T\nfrom {module} import {', '.join(names)}\n\n"
                  f"X = ({', '.join(f'{n}.__name__' for n in names)},)\n\n"
                  "@T.prim_func\ndef k(A: T.Buffer((1,), \"int32\")):\n    T.device_entry()\n"
                  "    tx = T.thread_id([1])\n    A[0] = len(X)\n")
        result = transpile(source)
        assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
        assert "A_ptr[0] = %d;" % len(names) in result.cuda


def test_names_not_in_the_library_are_still_refused_by_name():
    source = ("from tvm.script import tirx as T\nfrom tvm.tirx.lang.tile_scheduler import RankAwareGroupMajorTileScheduler\n\n"
              "@T.prim_func\ndef k(A: T.Buffer((1,), \"int32\")):\n    T.device_entry()\n"
              "    tx = T.thread_id([1])\n    s = RankAwareGroupMajorTileScheduler()\n")
    result = transpile(source)
    assert [(d.span.line, d.span.col, d.code) for d in result.diagnostics] == [(8, 9, "E0518")]


BARRIERS = '''\
from tvm.script import tirx as T
from tvm.tirx.lang.pipeline import MBarrier, TMABar, TCGen05Bar, PipelineState, Pipeline
from tvm.tirx.lang.warp_role import WarpRole, WarpgroupRole


@T.prim_func
def barriers(A: T.Buffer((256,), "int32")):
    T.device_entry()
    T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1})
    cbx = T.cta_id_in_cluster([2])
    bx = T.cta_id([2])
    warp = T.warp_id([4])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    plain = MBarrier(pool, 2, phase_offset=1)
    tma = TMABar(pool, 2)
    mma = TCGen05Bar(pool, 2, leader=(tx == 32))
    pipe = Pipeline(pool, 4, full="tma", empty="mbar", init_empty=2)
    pool.commit()
    plain.init(1)
    tma.init(1)
    mma.init(1)
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    state = PipelineState(2, 0)
    with WarpRole(warp, 0, regs=40):
        if tx == 0:
            tma.arrive(state.stage, tx_count=0)
            tma.arrive(state.stage, remote=1)
            tma.arrive(state.stage, tx_count=0, remote=1, pred=(cbx == 0))
            plain.arrive(state.stage)
            plain.arrive(state.stage, remote=1, count=1)
            pipe.full.arrive(0, tx_count=0)
            pipe.empty.arrive(0)
            mma.arrive(0)
            mma.arrive(1, cta_mask=3)
            mma.arrive(1, cta_mask=cbx + 1, pred=(cbx == 0))
            mma.arrive(0, pred=(cbx == 1))
            state.advance()
    with WarpgroupRole(warp // 4, (0, 1), regs=232, increase=True):
        plain.wait(0, 0)
        tma.wait(state.stage, state.phase)
        pipe.empty.wait(0, 1)
    A[bx * 128 + tx] = state.phase
'''


def test_library_kernel_checks():
    result = transpile(BARRIERS, arch="sm_100a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    cuda = result.cuda
    # Pipeline(...) initialises its two barriers where it is made, with their counts
    assert re.search(r"mbarrier_init_shared_b64\(&\w+\[3\], 2u\)", cuda)
    # phase_offset=1 is XORed into the phase waited on (a constant here)
    assert re.search(r"tirx_cuda_mbarrier_wait\(&\w+\[0\], 1\);", cuda)


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_library_kernel_compiles_with_nvcc(tmp_path):
    result = transpile(BARRIERS, arch="sm_100a")
    assert result.ok
    cu = tmp_path / "barriers.cu"
    cu.write_text(result.cuda, encoding="utf-8")
    proc = subprocess.run(["nvcc", "-gencode", "arch=compute_100a,code=sm_100a", "-std=c++17", "-Werror",
                           "all-warnings", "-c", str(cu), "-o", str(tmp_path / "barriers.o")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_the_gpu_tests_ring_kernels_compile_with_nvcc(tmp_path):
    from tests.gpu.test_pipeline_library import KERNELS
    result = transpile(KERNELS)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    cu = tmp_path / "ring.cu"
    cu.write_text(result.cuda, encoding="utf-8")
    proc = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror",
                           "all-warnings", "-c", str(cu), "-o", str(tmp_path / "ring.o")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_line_info_attributes_library_code_to_the_calling_line():
    result = transpile(BARRIERS, arch="sm_100a", line_info=True)
    assert result.ok
    lines = BARRIERS.split("\n")
    directives = [int(n) for n in re.findall(r'^#line (\d+) "kernel\.tx"$', result.cuda, re.M)]
    assert directives and max(directives) <= len(lines)
    # each C line's .tx line, counted as the preprocessor does (`#line N` names the next line N)
    current, source_line = None, {}
    for i, line in enumerate(result.cuda.split("\n")):
        match = re.match(r"#line (\d+) ", line)
        if match:
            current = int(match.group(1))
            continue
        source_line[i] = current
        current = current + 1 if current is not None else None
    commit = next(i for i, line in enumerate(result.cuda.split("\n"))
                  if "tirx_ptx_tcgen05_commit" in line and "(&" in line)
    assert lines[source_line[commit] - 1].strip() == "mma.arrive(0)"
