"""Helpers of the hostile-input tests: compile in process, compile with nvcc, load a launcher."""
from __future__ import annotations

import importlib.util
import itertools
import re
import shutil
import sys

import pytest

from transpiler.driver import compile_file

nvcc_mark = [pytest.mark.nvcc, pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")]
_loaded = itertools.count()
_addresses = itertools.count(1)


def compile_text(text: str, name: str = "hostile.tx", **options):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    options.setdefault("until", "launcher")
    options.setdefault("launcher_name", "hostile")
    return compile_file(name, text.encode("utf-8", "surrogatepass"), **options)


def ok(text: str, name: str = "hostile.tx", **options):
    result = compile_text(text, name, **options)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    return result


def errors(text: str, name: str = "hostile.tx", **options) -> list[tuple[int, str, str]]:
    result = compile_text(text, name, **options)
    return [(d.span.line, d.code, d.message) for d in result.diagnostics if d.severity == "error"]


def load_launcher(tmp_path, launcher_text: str, stem: str = "hostile"):
    """Import a generated launcher from a file, as a user would."""
    path = tmp_path / f"{stem}_{next(_loaded)}.py"
    path.write_text(launcher_text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeArray:
    """Just enough of a GPU array for the launcher's checks."""

    def __init__(self, shape, typestr="<f4", strides=None, address=None, readonly=False):
        # at an address of its own unless given one: launch_config refuses arrays that share memory
        address = (next(_addresses) << 40) + (1 << 20) if address is None else address
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "strides": strides,
                                         "data": (address, readonly), "version": 3}


_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def declared_c_names(cuda: str) -> set[str]:
    """Identifiers that the kernels declare (parameters, locals, arrays, loop variables)."""
    names = set()
    for match in re.finditer(r"(?:\b(?:int|float|double|half|bool|char|short|long long|unsigned \w+|"
                             r"signed char|long|nv_bfloat16)\*?\s+(?:__restrict__\s+)?)([A-Za-z_]\w*)\s*(?=[=;\[,)])",
                             cuda):
        names.add(match.group(1))
    return names
