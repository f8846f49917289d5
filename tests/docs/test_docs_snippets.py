"""The commands and outputs the docs show are what tirxc does today: README's and comparison.md's
error examples are the output of their example files, docs/cpp.md's Makefile works pasted into an
empty folder, docs/ci-guide.md's CI job runs as written (after its install line), and no install
hint names a package that is not published (tirxc is installed from a checkout)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, has_nvcc

DOCS = ROOT / "docs"


def _tirxc_on_path(tmp_path: Path) -> dict:
    """An environment whose `tirxc` is this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "tirxc"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m transpiler "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONPATH=str(ROOT),
                MAKEFLAGS="")


def _check_output(folder: Path, name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "transpiler", "--check", name], cwd=folder, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _block_after(text: str, marker: str, fence: str) -> str:
    return text.split(marker, 1)[1].split(f"```{fence}\n", 1)[1].split("```", 1)[0]


def test_the_readme_error_example_is_todays_output():
    done = _check_output(DOCS / "examples" / "readme", "bad.tx")
    assert done.returncode == 1
    shown = _block_after((ROOT / "README.md").read_text(encoding="utf-8"), "all of a file at once", "text")
    assert shown == done.stderr


@pytest.mark.parametrize("name, marker", [("bad.tx", "**Integer `/`**"),
                                          ("bad2.tx", "**A second dynamic shared memory allocation**")])
def test_the_comparison_error_examples_are_todays_output(name, marker):
    done = _check_output(DOCS / "examples" / "comparison", name)
    assert done.returncode == 1
    shown = _block_after((DOCS / "comparison.md").read_text(encoding="utf-8"), marker, "text")
    assert shown == done.stderr


def test_no_install_hint_names_an_unpublished_package():
    texts = [ROOT / "README.md", *DOCS.glob("*.md"), *(ROOT / "transpiler").rglob("*.py"), ROOT / "Makefile"]
    found = []
    for path in texts:
        for command in re.findall(r"pip3? install ([^\n`#;&|)]*)", path.read_text(encoding="utf-8")):
            packages = [word.strip("'\"") for word in command.split()]
            found += [f"{path.relative_to(ROOT)}: {word}" for word in packages
                      if word == "tirxc" or word.startswith("tirxc[") or word.startswith("tirxc==")]
    assert found == []


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc() or shutil.which("make") is None or shutil.which("g++") is None,
                    reason="needs make, nvcc and g++")
def test_the_cpp_makefile_works_as_pasted(tmp_path):
    work = tmp_path / "app"
    (work / "kernels").mkdir(parents=True)
    shutil.copy(ROOT / "samples" / "saxpy.tx", work / "kernels" / "saxpy.tx")
    (work / "Makefile").write_text(_block_after((DOCS / "cpp.md").read_text(encoding="utf-8"),
                                                "## From a Makefile", "make"), encoding="utf-8")
    (work / "main.cpp").write_text(
        '#include <cstdio>\n#include "saxpy.h"\n'
        "int main() {\n    tirxc::launch_config config;\n"
        "    cudaError_t status = tirxc::saxpy::saxpy_launch_config(2.0f, nullptr, nullptr, 0, &config);\n"
        '    std::printf("%d\\n", (int)status);\n    return 0;\n}\n', encoding="utf-8")
    env = _tirxc_on_path(tmp_path)
    nvcc = Path(shutil.which("nvcc")).resolve()
    cuda_home = os.environ.get("CUDA_HOME") or str(nvcc.parent.parent)
    if not (Path(cuda_home) / "include" / "cuda_runtime.h").exists():
        cuda_home = "/usr/local/cuda"  # the Makefile's default, for an nvcc on PATH through a wrapper
    built = subprocess.run(["make", "-j4", f"CUDA_HOME={cuda_home}"], cwd=work, env=env, capture_output=True,
                           text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    assert sorted(p.name for p in (work / "build").iterdir()) == ["saxpy.cu", "saxpy.h", "saxpy.o"]
    assert (work / "app").exists()


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc() or shutil.which("make") is None, reason="needs make and nvcc")
def test_the_ci_guide_job_runs_as_written(tmp_path):
    job = _block_after((DOCS / "ci-guide.md").read_text(encoding="utf-8"), "## Putting it together", "sh")
    lines = job.strip().splitlines()
    assert "pip install /path/to/tirxc" in lines[0]  # installing is the one step replaced: tirxc is put on PATH
    work = tmp_path / "project"
    shutil.copytree(DOCS / "examples" / "ci", work, ignore=shutil.ignore_patterns("gen"))
    script = "set -e\n" + "\n".join(line for line in lines[1:] if not line.startswith("export PATH"))
    done = subprocess.run(["sh", "-c", script], cwd=work, env=_tirxc_on_path(tmp_path), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "nvcc gen/scale.cu" in done.stdout
