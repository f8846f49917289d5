"""render_cuda lays out the .cu file with a Python copy of
templates/kernel.cu.j2 (transpiler/emit.py, _render_skeleton) so that a run
need not import Jinja; the copy must write exactly what the template does."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from transpiler import data_text

from transpiler.codegen import cuda as emit
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent


def _jinja(**values) -> str:
    return __import__("transpiler.codegen.jinja", fromlist=["environment"]).environment().get_template("kernel.cu.j2").render(**values)


def test_the_python_copy_is_of_the_current_template():
    assert data_text("templates", "kernel.cu.j2") == emit.KERNEL_TEMPLATE, \
        "templates/kernel.cu.j2 changed: update emit._render_skeleton to match it, then " \
        "emit.KERNEL_TEMPLATE (until then Jinja renders it, correctly but slowly)"


@pytest.mark.parametrize("line_info", [False, True])
def test_samples_render_the_same(line_info):
    for path in sorted((ROOT / "samples").glob("*.tx")):
        result = compile_source(SourceFile(path.name, path.read_text(encoding="utf-8")), line_info=line_info)
        assert result.ok, path
        program = result.program
        values = dict(version="0.1.0", source=path.name, min_arch=f"sm_{program.min_arch}{program.arch_suffix}",
                      headers=program.headers, helpers=[emit.ptx.helper_source(h) for h in program.helpers],
                      func_sources=emit.func_source_parts(program, line_info),
                      kernels=emit.kernel_parts(program, line_info))
        assert emit._render_skeleton(**values) == _jinja(**values) == result.cuda.replace(
            f"tirxc {emit.__version__} ", "tirxc 0.1.0 ", 1), path


@pytest.mark.parametrize("case", range(6))
def test_edge_cases_render_the_same(case):
    kernel = {"line": None, "symbol": "k_kernel", "launch_bounds": [None, 0, 256, 1, None, 32][case],
              "params": [[], ["int n"], ["float* __restrict__ A_ptr", "int n"], ["x"], [], ["a", "b", "c"]][case],
              "body": ["", "  return;", "  int x = 0;\n  x = x + 1;", "\n", "  a;\n", "  //"][case]}
    values = dict(version="9.9", source=["a.tx", "b c.tx", "", "x", "y", "z"][case], min_arch="sm_75",
                  headers=[[], ["cstdio"], ["cuda_fp16.h", "math_constants.h", "cstdio"], ["x"], [], []][case],
                  helpers=[[], ["__device__ int f() {}"], ["a", "b\n"], [], ["\n"], ["h"]][case],
                  func_sources=[[], ["\n\nint g();\n\n"], ["a"], [], ["\n"], ["s\n", "t"]][case],
                  kernels=[[], [kernel], [kernel, kernel], [kernel], [], [kernel]][case])
    assert emit._render_skeleton(**values) == _jinja(**values)


def test_a_plain_run_does_not_import_jinja():
    code = ("import sys; from transpiler.cli.main import main\n"
            "try:\n    main([sys.argv[1], '-o', sys.argv[2]])\nexcept SystemExit as e:\n    assert not e.code\n"
            "print(sorted(m for m in ('jinja2', 'lark') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "samples" / "saxpy.tx"), os.devnull], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
