"""docs/examples/ci/Makefile does what docs/ci-guide.md says: a parallel build of
every kernel, nothing rebuilt when nothing changed, only the stale kernel rebuilt
after an edit, lint, the golden diff failing on a change, and nvcc accepting the output."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, has_nvcc

EXAMPLE = ROOT / "docs" / "examples" / "ci"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


@pytest.fixture
def project(tmp_path):
    """A copy of the example with this checkout's tirxc first on PATH."""
    work = tmp_path / "proj"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("gen", "golden"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "tirxc"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m transpiler "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT), MAKEFLAGS="")
    return work, env


def make(work, env, *args, check=True):
    result = subprocess.run(["make", "--no-print-directory", *args], cwd=work, env=env,
                            capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def edit(path, old, new):
    """Change a kernel and make it newer than its outputs whatever the filesystem's clock granularity."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    stamp = os.stat(path).st_mtime + 5
    os.utime(path, (stamp, stamp))


def test_parallel_build_and_incremental_rebuild(project):
    work, env = project
    make(work, env, "-j4")
    kernels = sorted(p.stem for p in (work / "kernels").glob("*.tx"))
    assert kernels == ["block_sum", "scale"]
    for name in kernels:
        assert f"{name}_kernel(" in (work / "gen" / f"{name}.cu").read_text(encoding="utf-8")
        assert "CUDA_SOURCE" in (work / "gen" / f"{name}.py").read_text(encoding="utf-8")
    assert not list((work / "gen").glob(".tirxc-*")), "a temporary file was left behind"

    again = make(work, env)
    assert "tirxc" not in again.stdout and "Nothing to be done" in again.stdout

    edit(work / "kernels" / "scale.tx", "A[i] * s", "A[i] * s + 1.0")
    rebuilt = make(work, env)
    assert "kernels/scale.tx" in rebuilt.stdout and "block_sum" not in rebuilt.stdout
    assert "+ 1.0f" in (work / "gen" / "scale.cu").read_text(encoding="utf-8")


def test_a_kernel_with_errors_fails_lint_and_build_and_keeps_the_old_output(project):
    work, env = project
    make(work, env)
    old = (work / "gen" / "scale.cu").read_text(encoding="utf-8")
    edit(work / "kernels" / "scale.tx", "i: T.let = bx * 256 + tx", "i: T.let = bx / 2")
    lint = make(work, env, "lint", check=False)
    assert lint.returncode != 0 and "kernels/scale.tx:13:16: error[E0304]" in lint.stderr
    build = make(work, env, check=False)
    assert build.returncode != 0 and "error[E0304]" in build.stderr
    assert (work / "gen" / "scale.cu").read_text(encoding="utf-8") == old


def test_golden_check_catches_a_change(project):
    work, env = project
    make(work, env, "update-golden")
    make(work, env, "golden-check")
    edit(work / "kernels" / "block_sum.tx", "B[bx] = sm[0]", "B[bx] = sm[0] * 2.0")
    diff = make(work, env, "golden-check", check=False)
    assert diff.returncode != 0
    assert "+    B_ptr[bx] = sm_ptr[0] * 2.0f;" in diff.stdout


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="needs nvcc")
def test_generated_files_compile_with_nvcc(project):
    work, env = project
    result = make(work, env, "nvcc-check")
    assert result.stdout.count("nvcc gen/") == 2
