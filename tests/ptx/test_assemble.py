"""The PTX table through ptxas in CI (marker `nvcc`): a seeded sample of the spellings each
family accepts beyond its examples (which test_nvcc.py compiles), every form called from a
kernel of its own, compiled for the targets that between them have every family. The full
enumeration, every spelling on every target the table claims, is `python -m
tests.ptx.assemble --all` (docs/ptx.md gives its figures)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tests.build_cache import compile_cuda
from tests.conftest import has_nvcc, transpile
from tests.ptx import assemble
from tests.ptx.spellings import accepted
from transpiler.target import ptx
from transpiler.target.target import Target

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

TARGETS = ("sm_90a", "sm_100a", "sm_120a")
PER_FAMILY = 2
SEED = 28


def sample() -> list[str]:
    """PER_FAMILY spellings of each family, drawn from a small expansion of its pattern."""
    return [s for family in ptx.FAMILIES for s in accepted(family, PER_FAMILY, SEED, cap=400, examples=False)]


@pytest.fixture(scope="module")
def spellings():
    return sample()


@pytest.mark.parametrize("arch", TARGETS)
def test_sampled_spellings_assemble(spellings, arch):
    target = Target.parse(arch)
    instrs = [i for i in assemble.instructions(given=spellings) if target.allows(i.feature)]
    number = arch[3:]
    flags = ("-std=c++17", "-gencode", f"arch=compute_{number},code=sm_{number}", "-c")
    code, output = compile_cuda(assemble.translation_unit(instrs), flags, name=f"assemble_{arch}", timeout=900)
    if code:  # name the spellings ptxas refuses
        report = io.StringIO()
        assemble.run((arch,), None, given=spellings, out=report)
        pytest.fail(f"ptxas refused spellings on {arch}:\n{report.getvalue()[-6000:]}\n{output[-2000:]}")


def test_the_sample_is_seeded_and_reaches_most_families(spellings):
    assert spellings == sample()
    assert len({ptx.family_of(s).pattern for s in spellings}) > len(ptx.FAMILIES) // 2


def test_a_refused_form_is_named(tmp_path):
    """The check can fail, and says which kernel: a helper whose text is not PTX is refused,
    its neighbour is not."""
    instrs = [ptx.lookup("red.relaxed.gpu.global.add.u32"), ptx.lookup("add.s32")]
    source = assemble.translation_unit(instrs).replace("add.u32 [", "add.q32 [")
    header, entries = assemble.split_entries(assemble.to_ptx(source, tmp_path))
    refused = assemble.assemble_arch(header, entries, "sm_90", tmp_path)
    assert list(refused) == [0] and "q32" in refused[0]


# The .b128 spellings: each has its values as 64-bit halves and as one 128-bit scalar (uint128,
# bound with the "q" constraint); both assemble from sm_80, the oldest target the table claims, to
# sm_100a, which has all of them (`python -m tests.ptx.assemble --family b128` runs every target).
B128 = ("ld.shared.b128", "ld.shared::cta.b128", "st.shared.b128", "ld.global.L2::cache_hint.b128",
        "st.global.L2::cache_hint.b128", "ld.relaxed.gpu.global.b128", "st.release.cluster.shared::cta.b128",
        "atom.shared.cas.b128", "atom.global.exch.L2::cache_hint.b128", "atom.acquire.cta.shared::cta.cas.b128",
        "ldu.global.b128", "mov.b128", "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128",
        "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
        "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128")


@pytest.mark.parametrize("arch", ("sm_80", "sm_100a"))
def test_b128_forms_assemble(arch):
    target = Target.parse(arch)
    instrs = [i for i in assemble.instructions(given=list(B128)) if target.allows(i.feature)]
    assert any(op.kind == "b128" for i in instrs for op in i.operands)
    number = arch[3:]
    flags = ("-std=c++17", "-gencode", f"arch=compute_{number},code=sm_{number}", "-c")
    code, output = compile_cuda(assemble.translation_unit(instrs), flags, name=f"assemble_b128_{arch}")
    assert code == 0, output[-4000:]


# the case files whose accepted calls ptxas judges too (the forms real kernels write)
CASES = ("printed_form_and_evaluate_calls", "integer_shared_addresses_byte_loads_and_float_pairs")


@pytest.mark.parametrize("name", CASES)
def test_case_file_kernels_assemble(name):
    text = (Path(__file__).resolve().parent / "cases" / f"{name}.tx").read_text(encoding="utf-8")
    arch = re.search(r"# ARCH: sm_(\d+a?)", text)[1]
    result = transpile(text, f"{name}.tx", arch=f"sm_{arch}")
    assert result.ok, [d.message for d in result.diagnostics]
    flags = ("-std=c++17", "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-c")
    code, output = compile_cuda(result.cuda, flags, name=name)
    assert code == 0, output[-4000:]
