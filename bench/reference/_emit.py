"""Shared tail of every bench/reference/<sample>.py: compile the sample's
kernels with the reference implementation (apache-tvm-tirx 0.1.0a4) and write
the CUDA text it generates.

Usage (what bench/transpile.py times, one fresh process per run):

    bench/.venv-ref/bin/python bench/reference/<sample>.py OUT.cu

No GPU is needed: `tvm_tirx.tirx.compile` runs the whole TIRx pipeline and the
CUDA code generator; where no NVRTC is importable (here: no cuda-bindings in
the bench venv) the device import stays a source-only module, and
`inspect_source()` returns the CUDA text. The target's arch is fixed
(sm_90, the H200) because an offline build cannot detect it.
"""
from __future__ import annotations

import sys

import tvm_tirx
from tvm_tirx.target import Target

ARCH = "sm_90"


def cuda_source(functions: dict) -> str:
    """CUDA text for {global name: tirx Function}, all kernels in one module."""
    mod = tvm_tirx.IRModule(functions)
    exe = tvm_tirx.tirx.compile(mod, target=Target({"kind": "cuda", "arch": ARCH}))
    parts = [m.inspect_source() for m in exe.mod.imports if m.kind == "cuda"]
    if not parts:
        raise RuntimeError("the reference produced no CUDA module")
    return "\n".join(parts)


def main(functions: dict, argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    text = cuda_source(functions)
    if not argv or argv[0] == "-":
        sys.stdout.write(text)
    else:
        with open(argv[0], "w", encoding="utf-8") as handle:
            handle.write(text)
