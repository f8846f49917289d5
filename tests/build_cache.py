"""The tests' compiler runs, with their successes cached by content.

`compile_cuda(text, flags)` compiles one self-contained translation unit (`nvcc FLAGS -c`)
and returns (return code, output). `host_program_output(source, flags)` builds a C++
program with g++ and runs it (the host runs of generated kernels, tests/emit/hostc.py);
its standard output is the result; `host_program_runs(source, flags, argvs)` builds one and
runs it once per argument list (several programs in one build, each picked by its arguments). A success is stored under a key that hashes the
compiler's `--version`, the flags and the source text: whatever changes the generated
code, the flags or the compiler misses the cache, and a rerun of an unchanged kernel
costs a file read. Failures are never stored (a flaky or killed run must run again).
A source that includes local headers passes them (`headers=`): they are written next
to it and hashed with it; any other local include would hide its changes from the key.

The cache is `build/test-cache/` (git-ignored, removed by `make clean` and by CI's
fresh checkout); `TIRXC_TEST_CACHE=<dir>` moves it, `TIRXC_TEST_CACHE=off` turns it off.
Entries are written to a temporary name and renamed, so parallel workers (pytest -n)
can share it: two workers building the same source both store the same entry.
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
DEFAULT = ROOT / "build" / "test-cache"


@functools.lru_cache(maxsize=None)
def tool_version(tool: str) -> str:
    path = shutil.which(tool) or tool
    done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    return f"{path}\n{done.stdout}"


def cache_dir() -> Path | None:
    setting = os.environ.get("TIRXC_TEST_CACHE", "")
    if setting.lower() in ("off", "0", "no"):
        return None
    return Path(setting) if setting else DEFAULT


def _entry(tool: str, flags, text: str, headers: dict[str, str] | None = None) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256()
    extra = [f"{name}\0{body}" for name, body in sorted((headers or {}).items())]
    for part in (tool_version(tool), "\0".join(flags), text, *extra):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0\1")
    return folder / Path(tool).name / f"{digest.hexdigest()}.json"


def _load(entry: Path | None) -> dict | None:
    if entry is None or not entry.is_file():
        return None
    return json.loads(entry.read_text(encoding="utf-8"))


def _store(entry: Path | None, value: dict) -> None:
    if entry is None:
        return
    entry.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".part")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(value, out)
    os.replace(temporary, entry)


def compile_cuda(text: str, flags, *, name: str = "kernel", timeout: int = 300,
                 headers: dict[str, str] | None = None) -> tuple[int, str]:
    """`nvcc *flags -c name.cu` (headers: {file name: text} written beside it): (return code,
    stdout + stderr, stripped)."""
    flags = tuple(f for f in flags if f != "-c")
    entry = _entry("nvcc", flags, text, headers)
    stored = _load(entry)
    if stored is not None:
        return stored["code"], stored["output"]
    with tempfile.TemporaryDirectory(prefix="tirxc-nvcc-") as scratch:
        cu = Path(scratch) / f"{name}.cu"
        cu.write_text(text, encoding="utf-8")
        for header, body in (headers or {}).items():
            (Path(scratch) / header).write_text(body, encoding="utf-8")
        proc = subprocess.run(["nvcc", *flags, "-c", str(cu), "-o", str(cu.with_suffix(".o"))],
                              capture_output=True, text=True, timeout=timeout)
    code, output = proc.returncode, (proc.stdout + proc.stderr).strip()
    if code == 0:
        _store(entry, {"code": code, "output": output})
    return code, output


def host_program_output(source: str, flags, *, compiler: str = "g++", build_timeout: int = 300,
                        run_timeout: int = 120, context: str = "") -> str:
    """`compiler *flags prog.cpp -o prog`, then `prog`: its standard output. A failed build or
    run fails the calling test (with the compiler's or the program's error output, then context)."""
    flags = tuple(flags)
    entry = _entry(compiler, flags, source)
    stored = _load(entry)
    if stored is not None:
        return stored["stdout"]
    with tempfile.TemporaryDirectory(prefix="tirxc-host-") as scratch:
        cpp, exe = Path(scratch) / "prog.cpp", Path(scratch) / "prog"
        cpp.write_text(source, encoding="utf-8")
        build = subprocess.run([compiler, *flags, str(cpp), "-o", str(exe)], capture_output=True, text=True,
                               timeout=build_timeout)
        assert build.returncode == 0, f"{compiler} failed:\n{build.stderr[-4000:]}{context}"
        done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=run_timeout)
        assert done.returncode == 0, f"the host run failed:\n{done.stderr[-4000:]}{context}"
    _store(entry, {"stdout": done.stdout})
    return done.stdout


def host_program_runs(source: str, flags, argvs: list[list[str]], *, compiler: str = "g++",
                      build_timeout: int = 300, run_timeout: int = 120) -> tuple[int, str, list[tuple[int, str, str]]]:
    """`compiler *flags prog.cpp -o prog`, then `prog *argv` for each argv: (the build's return
    code, its error output, [(return code, stdout, stderr) of each run]); no runs when the build
    fails. Stored only when the build and every run succeed."""
    flags = tuple(flags)
    entry = _entry(compiler, flags, source + "\0runs\0" + json.dumps(argvs))
    stored = _load(entry)
    if stored is not None:
        return 0, "", [(0, stdout, "") for stdout in stored["stdouts"]]
    with tempfile.TemporaryDirectory(prefix="tirxc-host-") as scratch:
        cpp, exe = Path(scratch) / "prog.cpp", Path(scratch) / "prog"
        cpp.write_text(source, encoding="utf-8")
        build = subprocess.run([compiler, *flags, str(cpp), "-o", str(exe)], capture_output=True, text=True,
                               timeout=build_timeout)
        if build.returncode != 0:
            return build.returncode, build.stderr, []
        runs = []
        for argv in argvs:
            done = subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=run_timeout)
            runs.append((done.returncode, done.stdout, done.stderr))
    if all(code == 0 for code, _, _ in runs):
        _store(entry, {"stdouts": [stdout for _, stdout, _ in runs]})
    return 0, "", runs
