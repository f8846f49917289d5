"""Compiling the sim flavour of a file's CUDA for the CPU: the host C++ compiler (g++, or
$TIRXC_SIM_CXX) against the runtime in transpiler/sim/include/, into an executable cached by
the hash of everything that goes into it (docs/sim.md, "The interfaces")."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

INCLUDE = Path(__file__).with_name("include")
# -fwrapv: signed integers wrap, as the GPU's adders do; -ffp-contract=off: no fused a * b + c
# the kernel did not ask for (docs/sim.md, "Numerics")
FLAGS = ("-std=c++17", "-O1", "-fwrapv", "-ffp-contract=off", "-fno-strict-aliasing", "-w", "-pthread")


class BuildError(Exception):
    """The host compiler is missing or rejected the code (its message says where)."""


def compiler() -> str:
    return os.environ.get("TIRXC_SIM_CXX", "g++")


def cache_root() -> Path:
    root = os.environ.get("TIRXC_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                         os.path.expanduser("~/.cache"), "tirxc")
    return Path(root) / "sim"


def _runtime_text() -> str:
    return "".join(p.name + p.read_text(encoding="utf-8") for p in sorted(INCLUDE.glob("*.h")))


def build(source: str, name: str = "kernel") -> Path:
    """The executable of one program's sim C++ (the sim flavour CUDA with its entry appended)."""
    cxx = compiler()
    if shutil.which(cxx) is None:
        raise BuildError(f"the host C++ compiler '{cxx}' is not on PATH (set TIRXC_SIM_CXX to another)")
    key = hashlib.sha256("\0".join((source, _runtime_text(), cxx, *FLAGS)).encode()).hexdigest()[:24]
    folder = cache_root() / key
    executable = folder / "sim"
    if executable.exists():
        return executable
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        cpp = Path(scratch) / f"{name}.cpp"
        cpp.write_text(source, encoding="utf-8")
        built = Path(scratch) / "sim"
        command = [cxx, *FLAGS, "-I", str(INCLUDE), "-include", "tirx_sim.h", str(cpp), "-o", str(built)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"the host C++ compiler rejected the simulated code of {name}:\n"
                             f"{_first_errors(done.stderr)}")
        os.replace(built, executable)  # atomic: a parallel build of the same key finds a whole file
    return executable


def _first_errors(stderr: str, lines: int = 30) -> str:
    return "\n".join(stderr.strip().splitlines()[:lines])
