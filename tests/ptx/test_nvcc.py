"""The PTX table as ptxas sees it (marker `nvcc`): every form of every example spelling,
one .cu per architecture (tests/ptx/corpus.py), and kernels using each family through the
whole pipeline; each compiled with both spellings of the target flags (plain `-arch=sm_90a`
also runs a generic compute_90 pass, which the arch-specific helpers survive through their
feature-macro guards), warnings as errors. The compiles run in parallel once per session."""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import has_nvcc, transpile
from tests.build_cache import compile_cuda
from tests.ptx.corpus import instructions, translation_unit
from transpiler.target import ptx

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

KERNELS = Path(__file__).resolve().parent / "kernels"
FLAGS = ("-std=c++17", "-Werror", "all-warnings", "-c")
ARCH = {"sm_80": ("-arch=sm_80",), "sm_90a": ("-arch=sm_90a",), "sm_100a": ("-arch=sm_100a",),
        "compute_90a": ("-gencode", "arch=compute_90a,code=sm_90a"),
        "compute_100a": ("-gencode", "arch=compute_100a,code=sm_100a"), "sm_100f": ("-arch=sm_100f",)}

# (source, flags): the corpus of each architecture, and the pipeline kernels
JOBS = [
    ("corpus80", "sm_80"),
    ("corpus90", "compute_90a"), ("corpus90", "sm_100a"),
    ("corpus100", "sm_100a"), ("corpus100", "compute_100a"),
    ("hopper_forms", "sm_90a"), ("hopper_forms", "compute_90a"), ("hopper_forms", "sm_100a"),
    ("blackwell_forms", "sm_100a"), ("blackwell_forms", "compute_100a"), ("blackwell_forms", "sm_100f"),
    ("pair_forms", "sm_100a"), ("pair_forms", "compute_100a"),
    ("wgmma_shapes", "compute_90a"), ("gpu_forms", "compute_90a"), ("gpu_preserve_dst_b128_reductions_local", "compute_90a"), ("gpu_compare_select_and_warp_votes", "compute_90a"),
    ("gpu_compare_select_and_warp_votes", "sm_80"), ("gpu_forms_arith", "sm_80"), ("gpu_b128_moves_predicate_logic_fp8_mma", "compute_90a"),
]


def _wgmma_shapes() -> str:
    """Every N of the bf16 -> f32 line (its rs form at every fourth), and a spread of N for the
    f16-accumulator, fp8 and int8 lines."""
    instrs = []
    for n in range(8, 257, 8):
        forms = ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16")
        instrs += forms if n % 32 == 0 else forms[:1]
        if n in (8, 24, 144, 240, 256):
            instrs += ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16")[:1]
            instrs += ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.e5m2")[:1]
            instrs += ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k32.s32.s8.s8")[:1]
    return translation_unit(instrs)


def _source(name: str) -> str:
    if name.startswith("corpus"):
        return translation_unit(list(instructions(int(name[6:]))))
    if name == "wgmma_shapes":
        return _wgmma_shapes()
    result = transpile((KERNELS / f"{name}.tx").read_text(encoding="utf-8"), f"{name}.tx")
    assert result.ok, [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in result.diagnostics]
    return result.cuda


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("ptx_nvcc")
    sources = {}
    for name, _ in JOBS:
        if name not in sources:
            sources[name] = out / f"{name}.cu"
            sources[name].write_text(_source(name), encoding="utf-8")

    def run(job):  # cached by content (tests/build_cache.py)
        name, arch = job
        # the corpora hold every form of the table: ptxas takes minutes on them on a busy 2-core machine
        return compile_cuda(sources[name].read_text(encoding="utf-8"), [*ARCH[arch], *FLAGS], name=name,
                            timeout=1800)

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip(RUN, pool.map(run, RUN)))
    for job, plain in SUBSUMED.items():  # the generic pass alone may have failed: compile to decide
        done[job] = done[plain] if done[plain][0] == 0 else run(job)
    return done


# `-arch=sm_90a` runs the passes of `-gencode arch=compute_90a,code=sm_90a` (the same preprocessing,
# cicc, ptxas and host passes, the same flags) and a generic compute_90 one: where a source has
# both jobs, the plain one's success is the other's, which is compiled only when the plain one fails
SUBSUMED = {(name, arch): (name, "sm_" + arch[8:]) for name, arch in JOBS
            if arch.startswith("compute_") and (name, "sm_" + arch[8:]) in JOBS}
RUN = [job for job in JOBS if job not in SUBSUMED]


@pytest.mark.parametrize("job", JOBS, ids=lambda j: f"{j[0]}-{j[1]}")
def test_compiles(compiled, job):
    code, output = compiled[job]
    assert code == 0, f"nvcc {' '.join(ARCH[job[1]])} {job[0]}.cu failed:\n{output[-4000:]}"


def test_a_wrong_form_fails(tmp_path):
    """The corpus test can fail: ptxas rejects a helper whose text is not PTX."""
    instr = ptx.lookup("red.relaxed.gpu.global.add.u32")
    text = translation_unit([instr]).replace("add.u32 [", "add.q32 [")
    path = tmp_path / "bad.cu"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(["nvcc", "-arch=sm_90a", *FLAGS, str(path), "-o", str(tmp_path / "bad.o")],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "q32" in proc.stdout + proc.stderr
