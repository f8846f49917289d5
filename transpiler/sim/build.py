"""Compiling the sim flavour of a file's CUDA for the CPU: the host C++ compiler (g++, or
$TIRXC_SIM_CXX) against the runtime in transpiler/sim/include/. The runtime's translation units
(include/*.cpp) are compiled once into objects cached by the hash of the runtime's sources, the
compiler and the flags; each program is compiled against the runtime's headers and linked with
those objects into an executable cached by the hash of everything that goes into it (docs/sim.md,
"The interfaces")."""
from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # (not on Windows)
    fcntl = None

INCLUDE = Path(__file__).with_name("include")
# -fwrapv: signed integers wrap, as the GPU's adders do; -ffp-contract=off: no fused a * b + c
# the kernel did not ask for (docs/sim.md, "Numerics").
FLAGS = ("-std=c++17", "-O1", "-fwrapv", "-ffp-contract=off", "-fno-strict-aliasing", "-w", "-pthread")
# the runtime's objects, built once, take -O2: the scheduler and the collectives run at every
# barrier (a few per cent of a barrier-heavy kernel's run against -O1)
RUNTIME_FLAGS = tuple("-O2" if flag == "-O1" else flag for flag in FLAGS)


class BuildError(Exception):
    """The host compiler is missing or rejected the code (its message says where)."""


def compiler() -> str:
    return os.environ.get("TIRXC_SIM_CXX", "g++")


def cache_root() -> Path:
    root = os.environ.get("TIRXC_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                         os.path.expanduser("~/.cache"), "tirxc")
    return Path(root) / "sim"


def _runtime_sources() -> list[Path]:
    return sorted(p for p in INCLUDE.iterdir() if p.suffix in (".h", ".cpp"))


def _runtime_key(cxx: str) -> str:
    text = "".join(p.name + p.read_text(encoding="utf-8") for p in _runtime_sources())
    return hashlib.sha256("\0".join((text, cxx, *RUNTIME_FLAGS)).encode()).hexdigest()[:24]


def runtime_objects(cxx: str | None = None) -> list[Path]:
    """The runtime's objects, built once per content key under the cache root: a builder holds a
    lock for the key, and builds into a folder of its own renamed into place (a reader finds every
    object or none; without the lock, parallel builders of one key both succeed, the first stays)."""
    cxx = cxx or compiler()
    folder = cache_root() / f"runtime-{_runtime_key(cxx)}"
    units = sorted(INCLUDE.glob("*.cpp"))
    objects = [folder / (unit.stem + ".o") for unit in units]
    if folder.is_dir():
        return objects
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _held(folder.parent / f"{folder.name}.lock"):  # (a second builder waits, then finds it built)
        if not folder.is_dir():
            _build_runtime(cxx, units, folder)
    return objects


@contextlib.contextmanager
def _held(lock: Path):
    """An exclusive lock on `lock` where the platform has flock; elsewhere nothing (the rename
    below keeps parallel builders correct, only not frugal)."""
    if fcntl is None:
        yield
        return
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_runtime(cxx: str, units: list[Path], folder: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="runtime-build-", dir=folder.parent))
    try:
        running = [(unit, subprocess.Popen([cxx, *RUNTIME_FLAGS, "-I", str(INCLUDE), "-c", str(unit), "-o",
                                            str(scratch / (unit.stem + ".o"))],
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                   for unit in units]
        for unit, process in running:
            _, stderr = process.communicate()
            if process.returncode != 0:
                raise BuildError(f"the host C++ compiler rejected the simulator's runtime ({unit.name}):\n"
                                 f"{_first_errors(stderr)}")
        try:
            os.rename(scratch, folder)  # atomic: a reader finds every object or no folder
        except OSError:
            if not folder.is_dir():  # (another builder of the key renamed its folder first: use it)
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def build(source: str, name: str = "kernel") -> Path:
    """The executable of one program's sim C++ (the sim flavour CUDA with its entry appended)."""
    cxx = compiler()
    if shutil.which(cxx) is None:
        raise BuildError(f"the host C++ compiler '{cxx}' is not on PATH (set TIRXC_SIM_CXX to another)")
    runtime = runtime_objects(cxx)
    key = hashlib.sha256("\0".join((source, runtime[0].parent.name, cxx, *FLAGS)).encode()).hexdigest()[:24]
    folder = cache_root() / key
    executable = folder / "sim"
    if executable.exists():
        return executable
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        cpp = Path(scratch) / f"{name}.cpp"
        cpp.write_text(source, encoding="utf-8")
        built = Path(scratch) / "sim"
        command = [cxx, *FLAGS, "-I", str(INCLUDE), "-include", "tirx_sim.h", str(cpp), *map(str, runtime),
                   "-o", str(built)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"the host C++ compiler rejected the simulated code of {name}:\n"
                             f"{_first_errors(done.stderr)}")
        os.replace(built, executable)  # atomic: a parallel build of the same key finds a whole file
    return executable


def _first_errors(stderr: str, lines: int = 30) -> str:
    return "\n".join(stderr.strip().splitlines()[:lines])
