"""GPU tests: skipped, with the reason, when CuPy or a CUDA device is missing."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile


def _gpu_reason() -> str | None:
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed"
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return "no CUDA device"
    except Exception as err:  # CuPy raises driver-specific errors without a GPU
        return f"no usable CUDA device ({type(err).__name__})"
    return None


GPU_SKIP_REASON = _gpu_reason()


SIMULATED = Path(__file__).resolve().parent.parent / "sim"  # tests/sim/gpu: the same tests on the CPU


def pytest_collection_modifyitems(config, items):
    """Skips the items that need a GPU (this hook sees the whole session's items once this folder
    is collected). Not those under tests/sim/, which run tests/gpu's tests under `tirxc sim`: the
    folder name tests/sim/gpu puts "gpu" in their keywords too."""
    if GPU_SKIP_REASON is None:
        return
    skip = pytest.mark.skip(reason=f"GPU test: {GPU_SKIP_REASON}")
    for item in items:
        if "gpu" in item.keywords and not Path(item.path).resolve().is_relative_to(SIMULATED):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def launcher_for(tmp_path_factory):
    """launcher_for(stem) -> the imported launcher module of samples/<stem>.tx."""
    folder = tmp_path_factory.mktemp("launchers")
    cache = {}

    def load(stem: str, text: str | None = None):
        if stem in cache:
            return cache[stem]
        source = SourceFile(f"{stem}.tx", text if text is not None else (SAMPLES / f"{stem}.tx").read_text())
        result = compile_source(source, until="launcher", launcher_name=stem)
        assert result.ok, [str(d.message) for d in result.diagnostics]
        path = folder / f"{stem}_launcher.py"
        path.write_text(result.launcher)
        spec = importlib.util.spec_from_file_location(f"tirxc_gpu_{stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cache[stem] = module
        return module

    return load
