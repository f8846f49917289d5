"""nvcc for the tests, with its successes cached by content.

`compile_cuda(text, flags)` compiles one self-contained translation unit (`nvcc FLAGS -c`)
and returns (return code, output). A success is stored under a key that hashes the
text, the flags and nvcc's `--version`, so a rerun of an unchanged kernel costs a file
read; whatever changes the generated CUDA, the flags or the compiler misses the cache.
Failures are never stored (a flaky or killed compile must run again).

The cache is `build/nvcc-cache/` (git-ignored, removed by `make clean` and by CI's
fresh checkout); `TIRXC_NVCC_CACHE=<dir>` moves it, `TIRXC_NVCC_CACHE=off` turns it off.
Entries are written to a temporary name and renamed, so parallel workers (pytest -n)
can share it: two workers compiling the same text both store the same entry.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "build" / "nvcc-cache"


@functools.lru_cache(maxsize=None)
def nvcc_version() -> str:
    path = shutil.which("nvcc") or "nvcc"
    done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    return f"{path}\n{done.stdout}"


def cache_dir() -> Path | None:
    setting = os.environ.get("TIRXC_NVCC_CACHE", "")
    if setting.lower() in ("off", "0", "no"):
        return None
    return Path(setting) if setting else DEFAULT


def key(text: str, flags) -> str:
    digest = hashlib.sha256()
    for part in (nvcc_version(), "\0".join(flags), text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0\1")
    return digest.hexdigest()


def compile_cuda(text: str, flags, *, name: str = "kernel", timeout: int = 300) -> tuple[int, str]:
    """`nvcc *flags -c name.cu`: (return code, stdout + stderr, stripped)."""
    flags = tuple(f for f in flags if f != "-c")
    folder = cache_dir()
    entry = folder / f"{key(text, flags)}.json" if folder else None
    if entry is not None and entry.is_file():
        stored = json.loads(entry.read_text(encoding="utf-8"))
        return stored["code"], stored["output"]
    with tempfile.TemporaryDirectory(prefix="tirxc-nvcc-") as scratch:
        cu = Path(scratch) / f"{name}.cu"
        cu.write_text(text, encoding="utf-8")
        proc = subprocess.run(["nvcc", *flags, "-c", str(cu), "-o", str(cu.with_suffix(".o"))],
                              capture_output=True, text=True, timeout=timeout)
    code, output = proc.returncode, (proc.stdout + proc.stderr).strip()
    if entry is not None and code == 0:
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".part")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"code": code, "output": output, "flags": list(flags)}, out)
        os.replace(temporary, entry)
    return code, output
