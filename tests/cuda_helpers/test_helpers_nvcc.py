"""Every kernel of tests/cuda_helpers/kernels/ transpiles cleanly and its `.cu` compiles with nvcc,
warnings as errors, for the architectures its first line names (`# nvcc: sm_90a sm_100a`); the
kernels of an architecture in a few nvcc runs (tests/nvcc_batch.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import has_nvcc, transpile
from tests.nvcc_batch import compile_many

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

KERNELS = Path(__file__).resolve().parent / "kernels"
PAIRS = [(path, arch) for path in sorted(KERNELS.glob("*.tx"))
         for arch in path.read_text().splitlines()[0].removeprefix("# nvcc:").split()]


@pytest.fixture(scope="module")
def compiled() -> dict[tuple[Path, str], tuple[int, str]]:
    """{(kernel, arch): (return code, nvcc's output)}: an architecture's kernels in a few nvcc runs
    (tests/nvcc_batch.py), cached by content."""
    by_arch: dict[str, dict[str, str]] = {}
    for path, arch in PAIRS:
        result = transpile(path.read_text(), path.name)
        assert result.ok, (path.name, [str(d.message) for d in result.diagnostics])
        by_arch.setdefault(arch, {})[path.stem] = result.cuda
    return {(KERNELS / f"{stem}.tx", arch): done
            for arch, sources in by_arch.items()
            for stem, done in compile_many(sources, ["-std=c++17", "-Werror", "all-warnings", f"-arch={arch}"]).items()}


@pytest.mark.parametrize("path,arch", PAIRS, ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_kernel_compiles_warning_free(compiled, path, arch):
    code, output = compiled[(path, arch)]
    assert code == 0, output
