"""The CuPy launcher: one self-contained Python module per .tx file (DECISIONS 20)."""
from __future__ import annotations


def render_launcher(program, cuda: str, module_name: str | None = None) -> str:
    raise NotImplementedError
