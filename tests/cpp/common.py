"""Shared pieces of the C++ host-interface tests: where the CUDA headers are, generating a
sample's header and .cu, and loading its CuPy launcher (which needs no GPU to check arguments)."""
from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from tests.conftest import SAMPLES
from transpiler.codegen.host_cpp import module_name
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile


def cuda_include() -> str | None:
    """The CUDA toolkit's include folder (cuda_runtime_api.h), found from nvcc or the usual places."""
    candidates = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(os.path.realpath(nvcc)).parent.parent / "include")
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "include")
    candidates += [Path("/usr/local/cuda/include")]
    for c in candidates:
        if (c / "cuda_runtime_api.h").is_file():
            return str(c)
    return None


def generate(stem: str, folder: Path, text: str | None = None, line_info: bool = False):
    """Write <stem>.cu (kernels + entry points) and <stem>.h into folder; return the driver
    Result (with the launcher), or None when the sample has no C++ interface (E0800)."""
    source = SourceFile(f"{stem}.tx", text if text is not None else (SAMPLES / f"{stem}.tx").read_text())
    result = compile_source(source, until="launcher", launcher_name=stem, header_module=module_name(stem),
                            header_include=f"{stem}.h", cu_name=f"{stem}.cu", line_info=line_info)
    if not result.ok:
        assert [d.code for d in result.diagnostics if d.severity == "error"] == ["E0800"], \
            [str(d.message) for d in result.diagnostics]
        return None
    (folder / f"{stem}.cu").write_text(result.cuda)
    (folder / f"{stem}.h").write_text(result.header)
    (folder / f"{stem}_launcher.py").write_text(result.launcher)
    return result


def load_launcher(stem: str, folder: Path):
    path = folder / f"{stem}_launcher.py"
    spec = importlib.util.spec_from_file_location(f"tirxc_cpp_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sample_stems() -> list[str]:
    return sorted(p.stem for p in SAMPLES.glob("*.tx"))
